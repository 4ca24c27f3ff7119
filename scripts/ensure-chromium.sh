#!/bin/sh
# Debian's Chromium for the web page's browser tests (tests/test_web.py).
# Installs the `chromium` package only when /usr/bin/chromium is missing; never downloads
# a browser build of its own (Playwright drives this binary through executable_path).
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available;" \
         "install Chromium with your system's package manager" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "ensure-chromium: installing Chromium needs root (or sudo)" >&2
        exit 1
    fi
fi

echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium
"$CHROMIUM" --version
