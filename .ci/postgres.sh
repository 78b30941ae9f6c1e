#!/usr/bin/env bash
# Start a throw-away PostgreSQL cluster on loopback and print its DATABASE_URL.
# Usage: eval "$(bash .ci/postgres.sh start)"  …  bash .ci/postgres.sh stop "$PGROOT"
set -euo pipefail
case "${1:-}" in
  start)
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends postgresql >&2
    fi
    PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    PGROOT=$(mktemp -d)
    PGPORT=${PGPORT:-5433}
    while (echo > "/dev/tcp/127.0.0.1/$PGPORT") 2>/dev/null; do PGPORT=$((PGPORT + 1)); done
    mkdir -p "$PGROOT/sock"
    chown -R postgres:postgres "$PGROOT"
    runuser -u postgres -- "$PGBIN/initdb" -D "$PGROOT/data" -U postgres --auth-local=peer \
      --auth-host=md5 -E UTF8 --locale=C.UTF-8 >/dev/null
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGROOT/data" -l "$PGROOT/log" -w start \
      -o "-p $PGPORT -k $PGROOT/sock -c listen_addresses=127.0.0.1 -c fsync=off" >/dev/null
    runuser -u postgres -- psql -q -h "$PGROOT/sock" -p "$PGPORT" \
      -c "CREATE ROLE app LOGIN PASSWORD 'app' CREATEDB" >/dev/null
    echo "export PGROOT=$PGROOT PGBIN=$PGBIN"
    echo "export DATABASE_URL=postgres://app:app@127.0.0.1:$PGPORT/postgres"
    ;;
  stop)
    PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$2/data" -m fast -w stop >/dev/null || true
    rm -rf "$2"
    ;;
  *) echo "usage: $0 start|stop PGROOT" >&2; exit 2 ;;
esac
