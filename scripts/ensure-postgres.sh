#!/bin/sh
# A throwaway PostgreSQL cluster for the tests (and for trying docs/deploy.md on one
# machine): installs Debian's `postgresql` package only when no server binaries are
# found, creates a cluster under /tmp (trust authentication, listening on 127.0.0.1
# only, fsync off: nothing in it is worth keeping), starts it if it is not running, makes
# the database `mombasa`, and prints its URL on stdout (everything else goes to stderr):
#
#   url=$(sh scripts/ensure-postgres.sh)   # postgresql://postgres@127.0.0.1:55432/mombasa
#
# MOMBASA_PG_DIR (default /tmp/mombasa-pg-<uid>) and MOMBASA_PG_PORT (default 55432)
# choose the cluster. Run as root (initdb refuses root), the cluster belongs to the
# `postgres` user the package creates. Stop it with:
#   pg_ctl -D /tmp/mombasa-pg-<uid>/data stop   (as its owner)
set -eu

PORT="${MOMBASA_PG_PORT:-55432}"
DIR="${MOMBASA_PG_DIR:-/tmp/mombasa-pg-$(id -u)}"
DATA="$DIR/data"
DB=mombasa

say() { echo "ensure-postgres: $*" >&2; }

bindir() {
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
    done
    if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"; return 0
    fi
    return 1
}

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
fi

if ! BIN=$(bindir); then
    if ! command -v apt-get >/dev/null 2>&1; then
        say "no PostgreSQL server found and apt-get is not available;" \
            "install PostgreSQL (initdb, pg_ctl) with your system's package manager"
        exit 1
    fi
    if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
        say "installing PostgreSQL needs root (or sudo)"
        exit 1
    fi
    say "installing Debian's postgresql package"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q >&2
    $SUDO apt-get install -y -q postgresql >&2
    BIN=$(bindir) || { say "postgresql installed, but no initdb/pg_ctl found"; exit 1; }
fi

# initdb and the server refuse to run as root: as root, the cluster is the postgres
# user's (created by the package).
if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
        say "running as root and there is no 'postgres' user to own the cluster"
        exit 1
    fi
    OWNER=postgres
    as_owner() { runuser -u postgres -- "$@"; }
else
    OWNER=$(id -un)
    as_owner() { "$@"; }
fi

mkdir -p "$DIR"
if [ "$(id -u)" -eq 0 ]; then chown "$OWNER" "$DIR"; fi
chmod 700 "$DIR"

if [ ! -s "$DATA/PG_VERSION" ]; then
    say "creating a throwaway cluster in $DATA"
    as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --no-locale \
        >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
fi

if ! as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    say "starting it on 127.0.0.1:$PORT"
    as_owner "$BIN/pg_ctl" -D "$DATA" -w -t 60 -l "$DIR/server.log" start \
        -o "-p $PORT -c listen_addresses=127.0.0.1 -k $DIR -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        >&2 || { tail -n 20 "$DIR/server.log" >&2; exit 1; }
fi

PSQL="$BIN/psql -X -q -h 127.0.0.1 -p $PORT -U postgres"
if ! $PSQL -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'" \
        | grep -q 1; then
    $PSQL -d postgres -c "CREATE DATABASE $DB" >&2
fi
echo "postgresql://postgres@127.0.0.1:$PORT/$DB"
