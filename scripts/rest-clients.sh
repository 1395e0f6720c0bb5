#!/usr/bin/env bash
# Third-party Kafka Connect REST clients, unchanged, driven by small checked-in
# programs against any Kafka Connect REST endpoint (Copycat's or Kafka
# Connect's own): tests/all/rest_clients.rs runs them against a Copycat worker
# and against Kafka Connect 4.4 (docs/rest-compatibility.md).
#
#   java    org.sourcelab:kafka-connect-client 4.0.4 (Maven Central; the client
#           AKHQ uses) driven by tests/clients/java/src/KafkaConnectClientDriver.java;
#           its runtime dependency closure (tests/clients/java/pom.xml) is copied
#           by Maven into $CACHE/java/libs and the driver compiled with javac
#   python  kafka-connect-py 1.0.0 (PyPI) driven by tests/clients/python/driver.py,
#           in a venv at $CACHE/python
#
# No Go client: the Go module proxy serves none of the Go Kafka Connect clients
# (docs/rest-compatibility.md records the refusals), and kcctl is not in any
# package registry.
#
#   scripts/rest-clients.sh fetch                          install both (idempotent, cached)
#   scripts/rest-clients.sh run CLIENT URL PREFIX SOURCE_FILE SINK_FILE TOPIC
#                                                          run one driver (java|python) against URL
#
# A driver prints a line per client call ("ok ..." / "FAILED ...") and a count,
# and exits with the number of failures.
#
# Environment: COPYCAT_CACHE (default ~/.cache/copycat); $CACHE is
# $COPYCAT_CACHE/rest-clients.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}/rest-clients"
JAVA_SRC="$ROOT/tests/clients/java"
PY_SRC="$ROOT/tests/clients/python"
PY_CLIENT="kafka-connect-py==1.0.0"

log() { echo "rest-clients.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/fetch.lock"
    flock -w 600 9 || die "timed out waiting for $CACHE/fetch.lock"
}

# The Java client's jars (rebuilt when the POM changes) and the compiled
# driver (rebuilt when its source changes).
fetch_java() {
    command -v mvn >/dev/null || die "mvn not found (used to fetch the Java client from Maven Central)"
    command -v javac >/dev/null || die "javac not found (needed to compile the Java driver)"
    local libs="$CACHE/java/libs" classes="$CACHE/java/classes" sum
    sum="$(sha256sum "$JAVA_SRC/pom.xml" | cut -c1-64)"
    if [[ ! -f "$libs/.complete" || "$(cat "$libs/.complete")" != "$sum" ]]; then
        log "fetching org.sourcelab:kafka-connect-client and its dependencies from Maven Central"
        local tmp="$CACHE/java/libs.tmp.$$"
        rm -rf "$tmp"
        mvn -q -B -f "$JAVA_SRC/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
            -DoutputDirectory="$tmp" >&2 || die "mvn could not resolve $JAVA_SRC/pom.xml"
        compgen -G "$tmp/kafka-connect-client-*.jar" >/dev/null || die "no kafka-connect-client jar in $tmp"
        rm -rf "$libs"
        mv "$tmp" "$libs"
        echo "$sum" >"$libs/.complete"
    fi
    sum="$(cat "$JAVA_SRC"/src/*.java | sha256sum | cut -c1-64)"
    if [[ ! -f "$classes/.source-sha256" || "$(cat "$classes/.source-sha256")" != "$sum" ]]; then
        log "compiling the Java driver"
        rm -rf "$classes"
        mkdir -p "$classes"
        javac -nowarn --release 17 -d "$classes" -cp "$libs/*" "$JAVA_SRC"/src/*.java || die "compiling the Java driver"
        echo "$sum" >"$classes/.source-sha256"
    fi
}

fetch_python() {
    local venv="$CACHE/python"
    if [[ -f "$venv/.complete" && "$(cat "$venv/.complete")" == "$PY_CLIENT" ]]; then
        return 0
    fi
    command -v python3 >/dev/null || die "python3 not found"
    log "installing $PY_CLIENT from PyPI into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv" || die "python3 -m venv (install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$PY_CLIENT" >&2 || die "pip install $PY_CLIENT"
    echo "$PY_CLIENT" >"$venv/.complete"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
fetch)
    lock
    fetch_java
    fetch_python
    ;;
run)
    [[ $# -eq 6 ]] || die "usage: run java|python URL PREFIX SOURCE_FILE SINK_FILE TOPIC"
    client="$1"
    shift
    (lock && fetch_java && fetch_python)
    case "$client" in
    java) exec java -cp "$CACHE/java/classes:$CACHE/java/libs/*" KafkaConnectClientDriver "$@" ;;
    python) exec "$CACHE/python/bin/python" "$PY_SRC/driver.py" "$@" ;;
    *) die "unknown client $client (java or python)" ;;
    esac
    ;;
*)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
