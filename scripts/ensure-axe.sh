#!/bin/sh
# axe-core (the accessibility checker the layout tests inject into the page,
# tests/test_web_layout.py), installed with npm into tools/axe/ (git ignores tools/).
# Only test tooling: the page itself never loads it.
set -eu

DIR="$(cd "$(dirname "$0")/.." && pwd)/tools/axe"
AXE="$DIR/node_modules/axe-core/axe.min.js"

if [ -f "$AXE" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-axe: npm is missing; install Node.js and npm to run the layout tests" >&2
    exit 1
fi
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || printf '{"name": "mombasa-test-tools", "private": true}\n' > "$DIR/package.json"
npm install --prefix "$DIR" --no-audit --no-fund --silent axe-core@4
test -f "$AXE"
