#!/usr/bin/env bash
# A real PostgreSQL (Debian's `postgresql` package, 15 here) for Copycat's
# tests, demo and benchmarks (issue 26's connectors): a private cluster on
# its own port and data directory, never the system's own server.
#
#   scripts/postgres.sh fetch        install Debian's postgresql if its server binaries are missing (idempotent)
#   scripts/postgres.sh start        initdb (first time) + start + wait until it answers
#   scripts/postgres.sh stop         fast shutdown (idempotent)
#   scripts/postgres.sh status       exit 0 iff our server runs and answers
#   scripts/postgres.sh url          print the connection URL of the test user and database
#   scripts/postgres.sh ca           print the path of the CA certificate that signed the server's
#   scripts/postgres.sh tls-user     print the user that may log in over TLS only
#   scripts/postgres.sh psql ARGS    psql as that user on that database (e.g. -c 'select 1')
#   scripts/postgres.sh logs [N]     tail the server log
#   scripts/postgres.sh reset        stop and delete the cluster (the next start runs initdb)
#
# The cluster: user `copycat`, password `copycat-secret` (SCRAM-SHA-256 over
# TCP, as a production server asks), database `copycat`, listening on
# 127.0.0.1:$COPYCAT_POSTGRES_PORT only. TLS is on, with a certificate for
# 127.0.0.1 and localhost signed by a private CA made at initdb (`ca`); the
# user `copycat_tls` (same password) is refused without TLS (pg_hba), so a
# test can prove a connection used it. PostgreSQL refuses to run as root:
# as root, the server runs as the `postgres` user the package creates, so
# its data lives where that user can reach it (root's home is private):
#
#   COPYCAT_POSTGRES_PORT  default 55432
#   COPYCAT_POSTGRES_DIR   default /var/tmp/copycat-postgres (data/, the socket, postgres.log)
set -euo pipefail

PORT="${COPYCAT_POSTGRES_PORT:-55432}"
DIR="${COPYCAT_POSTGRES_DIR:-/var/tmp/copycat-postgres}"
DATA="$DIR/data"
LOG="$DIR/postgres.log"
USER_NAME=copycat
TLS_USER=copycat_tls
PASSWORD=copycat-secret
TLS="$DIR/tls"
DATABASE=copycat

log() { echo "postgres.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# The newest installed server's bin directory (initdb, pg_ctl, postgres).
bindir() {
    local d
    d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [[ -n "$d" && -x "$d/pg_ctl" ]] || return 1
    echo "$d"
}

# Runs a server binary as the server's user.
as_server() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

fetch() {
    if bindir >/dev/null; then
        return 0
    fi
    command -v apt-get >/dev/null || die "PostgreSQL's server is not installed and apt-get is missing: install postgresql (15+)"
    log "installing Debian's postgresql"
    local sudo=()
    [[ "$(id -u)" == 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq postgresql >/dev/null
    bindir >/dev/null || die "postgresql installed, but no /usr/lib/postgresql/*/bin/pg_ctl"
}

psql_as_owner() {
    as_server "$(bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U postgres -d postgres "$@"
}

answers() {
    as_server "$(bindir)/pg_isready" -q -h 127.0.0.1 -p "$PORT" 2>/dev/null
}

start() {
    fetch
    local bin
    bin="$(bindir)"
    mkdir -p "$DIR"
    [[ "$(id -u)" == 0 ]] && chown postgres: "$DIR"
    if [[ ! -f "$DATA/PG_VERSION" ]]; then
        log "initdb in $DATA"
        local pwfile="$DIR/.pw"
        echo "$PASSWORD" >"$pwfile"
        [[ "$(id -u)" == 0 ]] && chown postgres: "$pwfile"
        as_server "$bin/initdb" -D "$DATA" -U postgres --pwfile="$pwfile" \
            --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
        rm -f "$pwfile"
        make_tls
        # copycat_tls over TLS only; everyone else with SCRAM, TLS or not.
        local hba="$DATA/pg_hba.conf"
        { echo "hostnossl all $TLS_USER 127.0.0.1/32 reject"; cat "$hba"; } >"$hba.new"
        mv "$hba.new" "$hba"
        [[ "$(id -u)" == 0 ]] && chown postgres: "$hba"
    fi
    if ! as_server "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
        as_server "$bin/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
            -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$TLS/server.crt -c ssl_key_file=$TLS/server.key" start >/dev/null ||
            {
                tail -n 20 "$LOG" >&2 || true
                die "the server did not start (log: $LOG)"
            }
    fi
    local deadline=$((SECONDS + 60))
    until answers; do
        ((SECONDS < deadline)) || die "the server does not answer on 127.0.0.1:$PORT (log: $LOG)"
        sleep 0.2
    done
    # The test user and database (idempotent).
    psql_as_owner <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$USER_NAME') THEN
    CREATE ROLE $USER_NAME LOGIN PASSWORD '$PASSWORD' CREATEDB;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$TLS_USER') THEN
    CREATE ROLE $TLS_USER LOGIN PASSWORD '$PASSWORD' IN ROLE $USER_NAME;
  END IF;
END \$\$;
SQL
    if [[ "$(psql_as_owner -tAc "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" != 1 ]]; then
        psql_as_owner -c "CREATE DATABASE $DATABASE OWNER $USER_NAME"
    fi
    log "PostgreSQL is up: $(url)"
}

# A private CA and a server certificate for 127.0.0.1 and localhost (10 years).
make_tls() {
    command -v openssl >/dev/null || die "openssl is needed for the server's TLS certificate"
    mkdir -p "$TLS"
    openssl req -x509 -new -nodes -newkey rsa:2048 -days 3650 -subj "/CN=Copycat test CA" \
        -keyout "$TLS/ca.key" -out "$TLS/ca.crt" 2>/dev/null
    openssl req -new -nodes -newkey rsa:2048 -subj "/CN=localhost" \
        -keyout "$TLS/server.key" -out "$TLS/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$TLS/san.ext"
    openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.crt" -CAkey "$TLS/ca.key" -CAcreateserial \
        -days 3650 -extfile "$TLS/san.ext" -out "$TLS/server.crt" 2>/dev/null
    chmod 600 "$TLS/server.key" "$TLS/ca.key"
    chmod 644 "$TLS/ca.crt"
    [[ "$(id -u)" == 0 ]] && chown -R postgres: "$TLS"
    return 0
}

stop() {
    local bin
    bin="$(bindir)" || return 0
    [[ -f "$DATA/PG_VERSION" ]] || return 0
    if as_server "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
        as_server "$bin/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null
    fi
}

url() {
    echo "postgresql://$USER_NAME:$PASSWORD@127.0.0.1:$PORT/$DATABASE"
}

case "${1:-}" in
fetch) fetch ;;
start) start ;;
stop) stop ;;
status)
    bindir >/dev/null && answers && echo "running: 127.0.0.1:$PORT, data $DATA, log $LOG"
    ;;
url) url ;;
ca) echo "$TLS/ca.crt" ;;
tls-user) echo "$TLS_USER" ;;
psql)
    shift
    PGPASSWORD="$PASSWORD" "$(bindir)/psql" -X -v ON_ERROR_STOP=1 "$(url)" "$@"
    ;;
logs) tail -n "${2:-50}" "$LOG" ;;
reset)
    stop
    rm -rf "$DATA" "$LOG" "$TLS"
    ;;
*)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
