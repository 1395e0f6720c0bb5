#!/usr/bin/env bash
# A real schema registry speaking Confluent Schema Registry's REST API, for
# the Avro converter's tests and the demo: Apicurio Registry 3 with its
# Confluent-compatible API (ccompat). The distribution comes from Maven
# Central (io.apicurio:apicurio-registry-app, its `all` tarball);
# everything lives under $COPYCAT_CACHE (default ~/.cache/copycat).
#
#   scripts/registry.sh fetch      download and unpack Apicurio Registry (idempotent)
#   scripts/registry.sh start      start it on 127.0.0.1, wait until its Confluent API answers,
#                                  set the global compatibility to BACKWARD
#   scripts/registry.sh stop       SIGTERM, wait, SIGKILL (idempotent)
#   scripts/registry.sh status     exit 0 iff our registry is running and answering
#   scripts/registry.sh env        print SCHEMA_REGISTRY_URL (a KEY=value line)
#   scripts/registry.sh logs [N]   tail the registry's log
#   scripts/registry.sh reset      stop it and delete its run directory (logs)
#
# Clients take SCHEMA_REGISTRY_URL, http://127.0.0.1:PORT/apis/ccompat/v7,
# as Confluent's clients take a registry's base URL (`schema.registry.url`).
# Storage is in memory: a restart forgets every schema, and the ids of
# records already in Kafka then name nothing (tests register their schemas
# on topics of their own). Apicurio's global default compatibility is NONE;
# Confluent's is BACKWARD, so `start` sets BACKWARD (PUT /config) and checks
# it took: an incompatible new version of a subject is refused with 409, as
# with Confluent's registry. Apicurio also listens on a management port
# (health, metrics), kept on 127.0.0.1 too. scripts/registry-smoke.py checks
# it with Confluent's own Python client and fastavro.
#
# Where Apicurio 3.3.3 answers otherwise than Confluent's registry (checked
# with curl; a client should rely on the HTTP status and error_code only):
#   - ids are global content ids shared across subjects, as Confluent's, but
#     not dense: registering a known schema under another subject uses up an id;
#   - "the same schema" ignores whitespace, key order and `doc`: a schema that
#     differs only in a doc gets the old id and no new version;
#   - a schema may come back re-serialised (keys reordered): parse it, never
#     compare the text;
#   - errors are {"message": ..., "error_code": N} like Confluent's, with
#     other messages: 409/409 "...RuleViolationException: Incompatible
#     artifact: SUBJECT [AVRO], num of incompatible diffs: {1}, list of diff
#     types: [b at /fields/1]"; every invalid schema (bad JSON, unknown type,
#     a default of the wrong type) is 422/42201 "Failed to discover artifact
#     type from content." without the parser's reason; 404/40401 "Subject 'x'
#     not found.", 40402 "Version 9 not found.", 40403 "Schema 9 not found."
#     (40403 too for POST /subjects/SUBJECT with a schema it does not hold);
#   - GET /config/SUBJECT without a subject-level setting answers NONE
#     (Confluent's: 404/40408): ask with ?defaultToGlobal=true; POST
#     /compatibility/... ?verbose=true gives no messages.
#
# Environment:
#   SCHEMA_REGISTRY_PORT             http port on 127.0.0.1, default 9181
#   SCHEMA_REGISTRY_MANAGEMENT_PORT  management port on 127.0.0.1, default 9182
#   SCHEMA_REGISTRY_START_TIMEOUT    seconds to wait for the API to answer, default 120
#   SCHEMA_REGISTRY_JAVA_HOME        the JDK to run it with; default the newest Java 21+
#                                    among /usr/lib/jvm/*, $JAVA_HOME and `java`
#   SCHEMA_REGISTRY_JAVA_OPTS        JVM flags, default "-Xmx256m -XX:TieredStopAtLevel=1"
#   COPYCAT_CACHE                    cache root, default ~/.cache/copycat
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/java.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/java.sh"

APICURIO_VERSION=3.3.3
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}"
REG_HOME="$CACHE/apicurio-registry-$APICURIO_VERSION"
RUN_JAR="$REG_HOME/quarkus-run.jar"
RUN_DIR="$CACHE/registry-run"
PID_FILE="$RUN_DIR/registry.pid"
URL_FILE="$RUN_DIR/url"
LOG_FILE="$RUN_DIR/registry.log"
PORT="${SCHEMA_REGISTRY_PORT:-9181}"
MGMT_PORT="${SCHEMA_REGISTRY_MANAGEMENT_PORT:-9182}"
START_TIMEOUT="${SCHEMA_REGISTRY_START_TIMEOUT:-120}"
STOP_TIMEOUT="${SCHEMA_REGISTRY_STOP_TIMEOUT:-30}"
JAVA_OPTS="${SCHEMA_REGISTRY_JAVA_OPTS:--Xmx256m -XX:TieredStopAtLevel=1}"
URL="http://127.0.0.1:$PORT/apis/ccompat/v7"
# What URL_FILE records of a running registry: a start that wants other ports restarts it.
WHERE="$URL (management port $MGMT_PORT)"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SELF="$SCRIPTS/$(basename "${BASH_SOURCE[0]}")"

log() { echo "registry.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# ---------------------------------------------------------------- fetch

fetch() {
    [[ -f "$REG_HOME/.complete" ]] && return 0
    command -v mvn >/dev/null || die "mvn not found (used to fetch Apicurio Registry from Maven Central)"
    command -v tar >/dev/null || die "tar not found"
    log "fetching Apicurio Registry $APICURIO_VERSION from Maven Central into $REG_HOME"
    local tmp="$REG_HOME.tmp.$$" tarball dir
    rm -rf "$tmp"
    mkdir -p "$tmp"
    # -C: a checksum that does not match Maven Central's is an error.
    (cd "$tmp" && mvn -q -B -C -Dstyle.color=never \
        org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
        -Dartifact="io.apicurio:apicurio-registry-app:$APICURIO_VERSION:tar.gz:all" -DoutputDirectory="$tmp") \
        >"$tmp.log" 2>&1 || {
        cat "$tmp.log" >&2
        rm -rf "$tmp" "$tmp.log"
        die "mvn failed to fetch Apicurio Registry $APICURIO_VERSION (is Maven Central reachable?)"
    }
    rm -f "$tmp.log"
    tarball="$tmp/apicurio-registry-app-$APICURIO_VERSION-all.tar.gz"
    [[ -f "$tarball" ]] || die "mvn left no $(basename "$tarball")"
    mkdir -p "$tmp/unpacked"
    tar -xzf "$tarball" -C "$tmp/unpacked" || die "unpacking Apicurio Registry failed"
    rm -f "$tarball"
    # The tarball holds quarkus-run.jar and lib/, app/, quarkus/, at its
    # root or in one folder.
    dir="$(dirname "$(find "$tmp/unpacked" -maxdepth 2 -name quarkus-run.jar | head -1)")"
    [[ -f "$dir/quarkus-run.jar" ]] || die "quarkus-run.jar missing from the Apicurio Registry distribution"
    rm -rf "$REG_HOME"
    mv "$dir" "$REG_HOME"
    rm -rf "$tmp"
    touch "$REG_HOME/.complete"
    log "fetched Apicurio Registry $APICURIO_VERSION ($(du -sm "$REG_HOME" | cut -f1) MB)"
}

# ---------------------------------------------------------------- helpers

pick_java() { java_pick SCHEMA_REGISTRY_JAVA_HOME "Apicurio Registry $APICURIO_VERSION" 21+; }

our_pid() {
    # Prints the pid of the registry we started, if alive.
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid="$(cat "$PID_FILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # Guard against pid reuse: it must be a JVM running our distribution.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$RUN_JAR" || return 1
    echo "$pid"
}

rss_mb() {
    local kb
    kb="$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0)"
    echo $((${kb:-0} / 1024))
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# api METHOD PATH [JSON]: one request to the Confluent API; prints the body
# and then the status code on a line of its own. Fails only if nothing answered.
api() {
    local args=(-s --max-time 10 -X "$1" -H 'Accept: application/json' -w '\n%{http_code}')
    [[ $# -ge 3 ]] && args+=(-H 'Content-Type: application/vnd.schemaregistry.v1+json' --data "$3")
    curl "${args[@]}" "$URL$2" 2>/dev/null
}

# A real round trip: GET /subjects answers 200 with a JSON array.
answering() {
    local out
    out="$(api GET /subjects)" || return 1
    [[ "$(tail -n 1 <<<"$out")" == 200 && "$(head -c 1 <<<"$out")" == "[" ]]
}

# Make the global compatibility BACKWARD (Confluent's default) and check it took.
set_backward() {
    local out
    out="$(api PUT /config '{"compatibility":"BACKWARD"}')" || die "PUT $URL/config: no answer"
    [[ "$(tail -n 1 <<<"$out")" == 200 ]] || die "PUT $URL/config {\"compatibility\":\"BACKWARD\"} answered: $out"
    out="$(api GET /config)" || die "GET $URL/config: no answer"
    grep -q '"compatibilityLevel" *: *"BACKWARD"' <<<"$out" ||
        die "the registry's global compatibility is not BACKWARD after setting it: $out"
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
    command -v curl >/dev/null || die "curl not found (used to ask the registry whether it answers)"
    mkdir -p "$RUN_DIR"
    local pid
    if pid="$(our_pid)"; then
        if [[ "$(cat "$URL_FILE" 2>/dev/null)" == "$WHERE" ]]; then
            wait_until_answering "$pid" || die "our registry (pid $pid) is running but does not answer at $URL; try 'scripts/registry.sh stop'"
            set_backward
            log "already running (pid $pid) at $URL"
            return 0
        fi
        log "the running registry listens at $(cat "$URL_FILE" 2>/dev/null || echo 'an unknown address'), not $WHERE: restarting it (its schemas are lost)"
        stop
    fi
    rm -f "$PID_FILE" "$URL_FILE"
    local java p
    java="$(pick_java)"
    for p in "$PORT" "$MGMT_PORT"; do
        port_open "$p" && die "port $p on 127.0.0.1 is already in use by something else; set SCHEMA_REGISTRY_PORT / SCHEMA_REGISTRY_MANAGEMENT_PORT"
    done

    [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
    log "starting Apicurio Registry $APICURIO_VERSION at $URL with $java (Java $(java_major "$java"), log $LOG_FILE)"
    # setsid: own session, so the registry outlives the caller (a test, CI's
    # shell). The inner shell records its own pid and exec's the JVM; its
    # working directory is the run directory (whatever it writes lands there).
    # C1 only (-XX:TieredStopAtLevel=1, the default SCHEMA_REGISTRY_JAVA_OPTS):
    # ready in about 5 s instead of 8-9 s on a busy 2-core machine, and about
    # 220 MB resident instead of 235-265 MB.
    # shellcheck disable=SC2016,SC2086
    (cd "$RUN_DIR" && exec setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
        "$java" $JAVA_OPTS \
        -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" \
        -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$MGMT_PORT" \
        -jar "$RUN_JAR" \
        </dev/null >"$LOG_FILE" 2>&1 9>&-) &
    local launcher=$! i
    for ((i = 0; i < 100; i++)); do
        [[ -s "$PID_FILE" ]] && break
        sleep 0.05
    done
    pid="$(cat "$PID_FILE" 2>/dev/null || echo "$launcher")"

    if wait_until_answering "$pid"; then
        echo "$WHERE" >"$URL_FILE"
        set_backward
        log "Apicurio Registry is up at $URL (pid $pid, $(rss_mb "$pid") MB resident, global compatibility BACKWARD)"
        return 0
    fi
    log_tail
    kill -0 "$pid" 2>/dev/null && stop >/dev/null 2>&1
    die "Apicurio Registry failed to start"
}

wait_until_answering() {
    local pid="$1" deadline=$((SECONDS + START_TIMEOUT))
    until answering; do
        kill -0 "$pid" 2>/dev/null || {
            log "the registry (pid $pid) exited"
            return 1
        }
        ((SECONDS < deadline)) || {
            log "timed out after ${START_TIMEOUT}s waiting for GET $URL/subjects"
            return 1
        }
        sleep 0.3
    done
}

stop() {
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PID_FILE"
        log "not running"
        return 0
    fi
    log "stopping Apicurio Registry (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
        if ((SECONDS >= deadline)); then
            log "still running after ${STOP_TIMEOUT}s; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$PID_FILE" "$URL_FILE"
    log "stopped"
}

status() {
    local pid
    if ! pid="$(our_pid)"; then
        echo "not running"
        return 1
    fi
    if answering; then
        echo "running: pid $pid, $(rss_mb "$pid") MB resident, $URL, log $LOG_FILE"
        return 0
    fi
    echo "running but NOT answering: pid $pid, $URL, log $LOG_FILE"
    return 1
}

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# Serialise fetch/start/stop/reset (two test runs at once). The registry
# must not inherit the lock fd (see `9>&-` on its command line).
lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/registry-run.lock"
    flock -w 600 9 || die "timed out waiting for $CACHE/registry-run.lock"
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
env) echo "SCHEMA_REGISTRY_URL=$URL" ;;
logs) tail -n "${1:-100}" "$LOG_FILE" ;;
reset)
    lock
    stop
    rm -rf "$RUN_DIR"
    log "removed $RUN_DIR"
    ;;
*) usage ;;
esac
