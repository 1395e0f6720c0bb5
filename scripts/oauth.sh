#!/usr/bin/env bash
# A real OpenID Connect identity provider, Keycloak, for the test broker's
# OIDC listener (scripts/kafka.sh, KAFKA_PORT+8): clients get their tokens from
# it with the client-credentials grant, and the broker checks them. Keycloak's
# distribution comes from Maven Central (org.keycloak:keycloak-quarkus-dist);
# everything lives under $COPYCAT_CACHE (default ~/.cache/copycat).
#
#   scripts/oauth.sh fetch      download and unpack Keycloak (idempotent)
#   scripts/oauth.sh start      start Keycloak (dev mode, http on 127.0.0.1) with the
#                               copycat realm and wait until it issues a token the broker accepts
#   scripts/oauth.sh stop       SIGTERM, wait, SIGKILL (idempotent)
#   scripts/oauth.sh status     exit 0 iff our Keycloak is running and issuing tokens
#   scripts/oauth.sh env        print the token endpoint and client credentials (KEY=value lines)
#   scripts/oauth.sh logs [N]   tail Keycloak's log
#   scripts/oauth.sh reset      stop and delete Keycloak's database (next start imports the realm afresh)
#
# The realm `copycat` has one confidential client, copycat / copycat-oauth-secret,
# with service accounts (the client-credentials grant); its access tokens carry
# the audience `kafka` and are signed with the RSA key that scripts/kafka.sh made
# for its OIDC listener (KAFKA_OIDC_SIGNING_KEY in `scripts/kafka.sh secure-env`),
# so the broker must have been started once before (it need not be running).
# Keycloak runs in development mode (`kc.sh start-dev`): http only, its H2
# file database in the unpacked distribution's data/ directory, no admin user,
# no management port (besides OAUTH_PORT it listens only on an ephemeral
# 127.0.0.1 port, its transaction manager's recovery listener). A realm that
# differs from the one imported (a new signing key after `scripts/kafka.sh
# reset`) starts Keycloak on a new database.
#
# Environment:
#   OAUTH_PORT            http port on 127.0.0.1, default 9180 (scripts/kafka.sh reads it too:
#                         the broker expects tokens issued by http://127.0.0.1:$OAUTH_PORT/realms/copycat)
#   OAUTH_START_TIMEOUT   seconds to wait for the first token, default 240 (the first start
#                         after a fetch builds Keycloak's dev-mode image, about 25 s more)
#   OAUTH_JAVA_HOME       the JDK to run Keycloak with; default the newest JDK Keycloak
#                         supports (17, 21, 25) among /usr/lib/jvm/*, $JAVA_HOME and `java`
#   JAVA_OPTS_APPEND      extra JVM flags (kc.sh's), default -XX:TieredStopAtLevel=1 (faster start)
#   COPYCAT_CACHE         cache root, default ~/.cache/copycat
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/java.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/java.sh"

KEYCLOAK_VERSION=26.7.3
# OpenJDK versions Keycloak 26 supports (https://www.keycloak.org/server/supported-configurations).
SUPPORTED_JAVA=(25 21 17)
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}"
KC_HOME="$CACHE/keycloak-$KEYCLOAK_VERSION"
RUN_DIR="$CACHE/oauth-run"
PID_FILE="$RUN_DIR/keycloak.pid"
LOG_FILE="$RUN_DIR/keycloak.log"
IMPORT_DIR="$KC_HOME/data/import"
REALM_FILE="$IMPORT_DIR/copycat-realm.json"
PORT="${OAUTH_PORT:-9180}"
START_TIMEOUT="${OAUTH_START_TIMEOUT:-240}"
STOP_TIMEOUT="${OAUTH_STOP_TIMEOUT:-30}"
REALM=copycat
CLIENT_ID=copycat
CLIENT_SECRET=copycat-oauth-secret
BASE_URL="http://127.0.0.1:$PORT"
ISSUER="$BASE_URL/realms/$REALM"
TOKEN_ENDPOINT="$ISSUER/protocol/openid-connect/token"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SELF="$SCRIPTS/$(basename "${BASH_SOURCE[0]}")"

log() { echo "oauth.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# ---------------------------------------------------------------- fetch

fetch() {
    [[ -f "$KC_HOME/.complete" ]] && return 0
    command -v mvn >/dev/null || die "mvn not found (used to fetch Keycloak from Maven Central)"
    command -v tar >/dev/null || die "tar not found"
    log "fetching Keycloak $KEYCLOAK_VERSION from Maven Central into $KC_HOME"
    local tmp="$KC_HOME.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    # -C: a checksum that does not match Maven Central's is an error.
    (cd "$tmp" && mvn -q -B -C -Dstyle.color=never \
        org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
        -Dartifact="org.keycloak:keycloak-quarkus-dist:$KEYCLOAK_VERSION:tar.gz" -DoutputDirectory="$tmp") \
        >"$tmp.log" 2>&1 || {
        cat "$tmp.log" >&2
        die "mvn failed to fetch Keycloak $KEYCLOAK_VERSION (is Maven Central reachable?)"
    }
    rm -f "$tmp.log"
    tar -xzf "$tmp/keycloak-quarkus-dist-$KEYCLOAK_VERSION.tar.gz" -C "$tmp" || die "unpacking Keycloak failed"
    [[ -x "$tmp/keycloak-$KEYCLOAK_VERSION/bin/kc.sh" ]] || die "bin/kc.sh missing from the Keycloak distribution"
    rm -rf "$KC_HOME"
    mv "$tmp/keycloak-$KEYCLOAK_VERSION" "$KC_HOME"
    rm -rf "$tmp"
    touch "$KC_HOME/.complete"
    log "fetched Keycloak $KEYCLOAK_VERSION ($(du -sm "$KC_HOME" | cut -f1) MB)"
}

# ---------------------------------------------------------------- helpers

# The java to run Keycloak with: OAUTH_JAVA_HOME's, or the newest supported one found.
pick_java() { java_pick OAUTH_JAVA_HOME "Keycloak $KEYCLOAK_VERSION" "${SUPPORTED_JAVA[@]}"; }

our_pid() {
    # Prints the pid of the Keycloak we started (kc.sh, or the JVM it exec'd), if alive.
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid="$(cat "$PID_FILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # Guard against pid reuse: it must be our distribution's kc.sh or JVM.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$KC_HOME/bin" || return 1
    echo "$pid"
}

# The resident memory of Keycloak's JVM (kc.sh's child, or kc.sh itself once it exec'd java), in MB.
rss_mb() {
    local pid="$1" p kb=0
    for p in "$pid" $(pgrep -P "$pid" || true); do
        if [[ "$(cat "/proc/$p/comm" 2>/dev/null)" == java ]]; then
            kb="$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0)"
        fi
    done
    echo $((kb / 1024))
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The broker's side (scripts/kafka.sh secure-env): the signing key, the
# JWKS file it checks tokens with, the issuer and audience it expects.
KAFKA_OIDC_SIGNING_KEY="" KAFKA_OIDC_JWKS="" KAFKA_OIDC_ISSUER="" KAFKA_OIDC_AUDIENCE=""
broker_env() {
    local line
    while IFS= read -r line; do
        case "$line" in
        KAFKA_OIDC_SIGNING_KEY=*) KAFKA_OIDC_SIGNING_KEY="${line#*=}" ;;
        KAFKA_OIDC_JWKS=*) KAFKA_OIDC_JWKS="${line#*=}" ;;
        KAFKA_OIDC_ISSUER=*) KAFKA_OIDC_ISSUER="${line#*=}" ;;
        KAFKA_OIDC_AUDIENCE=*) KAFKA_OIDC_AUDIENCE="${line#*=}" ;;
        esac
    done < <(bash "$SCRIPTS/kafka.sh" secure-env)
    [[ -n "$KAFKA_OIDC_SIGNING_KEY" && -n "$KAFKA_OIDC_JWKS" ]] ||
        die "scripts/kafka.sh secure-env names no OIDC signing key (KAFKA_OIDC_SIGNING_KEY, KAFKA_OIDC_JWKS)"
    [[ -f "$KAFKA_OIDC_SIGNING_KEY" && -f "$KAFKA_OIDC_JWKS" ]] ||
        die "no token signing key at $KAFKA_OIDC_SIGNING_KEY: scripts/kafka.sh start makes it (start the broker once first)"
    [[ "$KAFKA_OIDC_ISSUER" == "$ISSUER" ]] ||
        die "the broker expects tokens issued by $KAFKA_OIDC_ISSUER, Keycloak would issue them as $ISSUER: give both scripts the same OAUTH_PORT"
}

# The realm: the client, the audience mapper and the broker's signing key.
write_realm() {
    local out="$1" key
    key="$(grep -v -- '-----' "$KAFKA_OIDC_SIGNING_KEY" | tr -d '\n')"
    (
        umask 077
        cat >"$out" <<EOF
{
  "realm": "$REALM",
  "enabled": true,
  "clients": [
    {
      "clientId": "$CLIENT_ID",
      "enabled": true,
      "publicClient": false,
      "clientAuthenticatorType": "client-secret",
      "secret": "$CLIENT_SECRET",
      "serviceAccountsEnabled": true,
      "standardFlowEnabled": false,
      "directAccessGrantsEnabled": false,
      "protocol": "openid-connect",
      "protocolMappers": [
        {
          "name": "audience $KAFKA_OIDC_AUDIENCE",
          "protocol": "openid-connect",
          "protocolMapper": "oidc-audience-mapper",
          "config": {
            "included.custom.audience": "$KAFKA_OIDC_AUDIENCE",
            "access.token.claim": "true",
            "id.token.claim": "false"
          }
        }
      ]
    }
  ],
  "components": {
    "org.keycloak.keys.KeyProvider": [
      {
        "name": "copycat-broker-key",
        "providerId": "rsa",
        "config": {
          "priority": ["200"],
          "enabled": ["true"],
          "active": ["true"],
          "algorithm": ["RS256"],
          "privateKey": ["$key"]
        }
      }
    ]
  }
}
EOF
    )
}

# The `kid` of the key the broker checks tokens with (its JWKS file).
broker_kid() {
    sed -n 's/.*"kid":"\([^"]*\)".*/\1/p' "$KAFKA_OIDC_JWKS"
}

# One real round-trip: a client-credentials token request; prints the token.
token() {
    local answer
    answer="$(curl -s --max-time 10 -d grant_type=client_credentials -d "client_id=$CLIENT_ID" \
        -d "client_secret=$CLIENT_SECRET" "$TOKEN_ENDPOINT" 2>/dev/null)" || return 1
    sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p' <<<"$answer" | grep .
}

# The `kid` in a JWT's header.
jwt_kid() {
    local h="${1%%.*}"
    h="$(tr '_-' '/+' <<<"$h")"
    while ((${#h} % 4)); do h+="="; done
    base64 -d <<<"$h" 2>/dev/null | sed -n 's/.*"kid" *: *"\([^"]*\)".*/\1/p'
}

log_tail() {
    if [[ -f "$LOG_FILE" ]]; then
        log "---- last 40 lines of $LOG_FILE ----"
        tail -n 40 "$LOG_FILE" >&2
        log "----"
    fi
}

# ---------------------------------------------------------------- start/stop

start() {
    fetch
    command -v curl >/dev/null || die "curl not found (used to ask Keycloak for a token)"
    broker_env
    mkdir -p "$RUN_DIR" "$IMPORT_DIR"
    write_realm "$RUN_DIR/realm.wanted"

    local pid
    if pid="$(our_pid)"; then
        if cmp -s "$RUN_DIR/realm.wanted" "$REALM_FILE"; then
            wait_until_issuing "$pid" || die "our Keycloak (pid $pid) is running but issues no token at $TOKEN_ENDPOINT; try 'scripts/oauth.sh stop'"
            log "already running (pid $pid)"
            return 0
        fi
        log "the running Keycloak's realm is not this one (a new signing key?); restarting it on a new database"
        stop
    fi
    rm -f "$PID_FILE"
    local java
    java="$(pick_java)"
    port_open "$PORT" && die "port $PORT on 127.0.0.1 is already in use by something else; set OAUTH_PORT (for both scripts/oauth.sh and scripts/kafka.sh)"
    if ! cmp -s "$RUN_DIR/realm.wanted" "$REALM_FILE"; then
        # --import-realm skips a realm the database has: start from an empty one.
        rm -rf "$KC_HOME/data/h2"
        mv -f "$RUN_DIR/realm.wanted" "$REALM_FILE"
    fi
    rm -f "$RUN_DIR/realm.wanted"

    [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
    log "starting Keycloak $KEYCLOAK_VERSION at $BASE_URL with $java (Java $(java_major "$java"), log $LOG_FILE)"
    # setsid: own session, so Keycloak outlives the caller (a test, CI's shell).
    # The inner shell records its own pid and exec's kc.sh, which runs the JVM
    # (as its child, or exec'd after rebuilding the dev-mode image).
    # C1 only (-XX:TieredStopAtLevel=1): ready in 13 s instead of 16-23 s on
    # a busy 2-core machine, 360 MB resident instead of 470-500 MB.
    # shellcheck disable=SC2016
    JAVA="$java" JAVA_OPTS_APPEND="${JAVA_OPTS_APPEND:--XX:TieredStopAtLevel=1}" setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
        "$KC_HOME/bin/kc.sh" start-dev \
        --http-host=127.0.0.1 --http-port="$PORT" --hostname="$BASE_URL" \
        --import-realm \
        </dev/null >"$LOG_FILE" 2>&1 9>&- &
    local launcher=$! i
    for ((i = 0; i < 100; i++)); do
        [[ -s "$PID_FILE" ]] && break
        sleep 0.05
    done
    pid="$(cat "$PID_FILE" 2>/dev/null || echo "$launcher")"

    if wait_until_issuing "$pid"; then
        log "Keycloak is up (pid $pid, $(rss_mb "$pid") MB resident)"
        return 0
    fi
    log_tail
    kill -0 "$pid" 2>/dev/null && stop >/dev/null 2>&1
    # The next start begins on a new database rather than on whatever this
    # one left.
    rm -f "$REALM_FILE"
    die "Keycloak failed to start"
}

# Wait until Keycloak issues a token signed with the key the broker checks.
wait_until_issuing() {
    local pid="$1" deadline=$((SECONDS + START_TIMEOUT)) jwt kid want
    want="$(broker_kid)"
    until jwt="$(token)"; do
        kill -0 "$pid" 2>/dev/null || {
            log "Keycloak (pid $pid) exited"
            return 1
        }
        ((SECONDS < deadline)) || {
            log "timed out after ${START_TIMEOUT}s waiting for a token from $TOKEN_ENDPOINT"
            return 1
        }
        sleep 0.5
    done
    kid="$(jwt_kid "$jwt")"
    [[ "$kid" == "$want" ]] || {
        log "Keycloak signs its tokens with key id '$kid', the broker checks them against '$want' ($KAFKA_OIDC_JWKS)"
        return 1
    }
}

stop() {
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PID_FILE"
        log "not running"
        return 0
    fi
    log "stopping Keycloak (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
        if ((SECONDS >= deadline)); then
            log "still running after ${STOP_TIMEOUT}s; sending SIGKILL to its process group"
            kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$PID_FILE"
    log "stopped"
}

status() {
    local pid
    if ! pid="$(our_pid)"; then
        echo "not running"
        return 1
    fi
    if token >/dev/null; then
        echo "running: pid $pid, $(rss_mb "$pid") MB resident, issuer $ISSUER, log $LOG_FILE"
        return 0
    fi
    echo "running but NOT issuing tokens: pid $pid, issuer $ISSUER, log $LOG_FILE"
    return 1
}

print_env() {
    cat <<ENV
OAUTH_ISSUER=$ISSUER
OAUTH_TOKEN_ENDPOINT=$TOKEN_ENDPOINT
OAUTH_JWKS_URL=$ISSUER/protocol/openid-connect/certs
OAUTH_CLIENT_ID=$CLIENT_ID
OAUTH_CLIENT_SECRET=$CLIENT_SECRET
ENV
}

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# Serialise fetch/start/stop/reset (two test runs at once). Keycloak must not
# inherit the lock fd (see `9>&-` on its command line).
lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/oauth-run.lock"
    flock -w 600 9 || die "timed out waiting for $CACHE/oauth-run.lock"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
fetch)
    lock
    fetch
    ;;
start)
    lock
    start
    ;;
stop)
    lock
    stop
    ;;
status) status ;;
env) print_env ;;
logs) tail -n "${1:-100}" "$LOG_FILE" ;;
reset)
    lock
    stop
    rm -rf "$KC_HOME/data" "$RUN_DIR"
    log "removed Keycloak's database and $RUN_DIR"
    ;;
*) usage ;;
esac
