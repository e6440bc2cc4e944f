#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on loopback for the store tests and print its URL.
# Installs Debian's server when missing. Idempotent: a running server is reused.
set -euo pipefail
PGPORT=${PGPORT:-5433}
PGDATA=${PGDATA:-/tmp/cinecap-pg}
if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
fi
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
run() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
if ! "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"; then
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    mkdir -p "$PGDATA"; [ "$(id -u)" = 0 ] && chown postgres "$PGDATA"
    run "$BIN/initdb -D $PGDATA -U postgres --auth=trust -E UTF8" >&2
  fi
  run "$BIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -o '-p $PGPORT -k /tmp -h 127.0.0.1' -w start" >&2
fi
"$BIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='cinecap_test'" | grep -q 1 \
  || "$BIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U postgres cinecap_test
echo "postgresql+psycopg://postgres@127.0.0.1:$PGPORT/cinecap_test"
