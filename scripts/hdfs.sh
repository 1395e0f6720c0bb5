#!/usr/bin/env bash
# A real HDFS with WebHDFS for the hdfs-sink's tests, chaos test and bench:
# Hadoop's MiniDFSCluster (org.apache.hadoop:hadoop-client-minicluster from
# Maven Central, no tarball, no Docker), one namenode and one datanode on
# fixed 127.0.0.1 ports, started by the checked-in scripts/hdfs/MiniHdfs.java.
# Everything lives under $COPYCAT_CACHE (default ~/.cache/copycat).
#
#   scripts/hdfs.sh fetch        resolve the minicluster's jars (idempotent)
#   scripts/hdfs.sh start        start it (a fresh, formatted file system) and wait until WebHDFS answers
#   scripts/hdfs.sh stop         SIGTERM, wait, SIGKILL (idempotent)
#   scripts/hdfs.sh status       exit 0 iff our cluster is running and WebHDFS answers
#   scripts/hdfs.sh url          print the WebHDFS base URL (http://127.0.0.1:PORT)
#   scripts/hdfs.sh logs [N]     tail the cluster's log
#   scripts/hdfs.sh reset        stop it and delete its run directory (data, logs)
#
# Clients speak WebHDFS: http://127.0.0.1:$HDFS_HTTP_PORT/webhdfs/v1/PATH?op=...&user.name=U.
# CREATE and OPEN answer 307 to the datanode, at 127.0.0.1:$HDFS_DATANODE_HTTP_PORT,
# so a client needs both addresses. Permissions are off: any user.name may
# write anywhere. Each start formats the file system (the cluster only ever
# holds test data); a cluster already running is kept.
#
# Hadoop 3.4.x on Java 17 needs JAXB, javax.activation and javax.annotation
# on the classpath, or WebHDFS answers 500 then 404 (they left the JDK in 11).
# The cluster takes 4-10 s to start and ~400 MB of memory.
#
# Environment:
#   HDFS_HTTP_PORT            namenode HTTP (WebHDFS) port, default 9870
#   HDFS_RPC_PORT             namenode RPC port, default 9820
#   HDFS_DATANODE_PORT        datanode data transfer port, default 9866
#   HDFS_DATANODE_HTTP_PORT   datanode HTTP port (WebHDFS redirects there), default 9864
#   HDFS_DATANODE_IPC_PORT    datanode IPC port, default 9867
#   HDFS_START_TIMEOUT        seconds to wait for WebHDFS to answer, default 120
#   HDFS_JAVA_OPTS            JVM flags, default "-Xmx512m -XX:TieredStopAtLevel=1"
#   COPYCAT_CACHE             cache root, default ~/.cache/copycat
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/maven.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/maven.sh"

HADOOP_VERSION=3.4.1
LOG4J_VERSION=2.24.3
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}"
HDFS_HOME="$CACHE/hdfs-$HADOOP_VERSION"
LIBS="$HDFS_HOME/lib"
RUN_DIR="$CACHE/hdfs-run"
BASE_DIR="$RUN_DIR/cluster"
PID_FILE="$RUN_DIR/hdfs.pid"
LOG_FILE="$RUN_DIR/hdfs.log"
HTTP_PORT="${HDFS_HTTP_PORT:-9870}"
RPC_PORT="${HDFS_RPC_PORT:-9820}"
DN_PORT="${HDFS_DATANODE_PORT:-9866}"
DN_HTTP_PORT="${HDFS_DATANODE_HTTP_PORT:-9864}"
DN_IPC_PORT="${HDFS_DATANODE_IPC_PORT:-9867}"
START_TIMEOUT="${HDFS_START_TIMEOUT:-120}"
STOP_TIMEOUT="${HDFS_STOP_TIMEOUT:-30}"
JAVA_OPTS="${HDFS_JAVA_OPTS:--Xmx512m -XX:TieredStopAtLevel=1}"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SELF="$SCRIPTS/$(basename "${BASH_SOURCE[0]}")"
LAUNCHER="$SCRIPTS/hdfs/MiniHdfs.java"
URL="http://127.0.0.1:$HTTP_PORT"

log() { echo "hdfs.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# ---------------------------------------------------------------- fetch

fetch() {
    [[ -f "$LIBS/.complete" ]] && return 0
    command -v java >/dev/null || die "java not found (the minicluster needs Java 11+)"
    command -v mvn >/dev/null || die "mvn not found (used to fetch Hadoop jars from Maven Central)"
    log "fetching hadoop-client-minicluster $HADOOP_VERSION from Maven Central into $LIBS"
    mkdir -p "$HDFS_HOME"
    local tmp="$HDFS_HOME/lib.tmp.$$"
    maven_resolve "$HDFS_HOME/pom.xml" "$tmp" scripts/hdfs.sh "MiniDFSCluster $HADOOP_VERSION" hdfs-minicluster "
    <dependency>
      <groupId>org.apache.hadoop</groupId>
      <artifactId>hadoop-client-minicluster</artifactId>
      <version>$HADOOP_VERSION</version>
    </dependency>
    <!-- Left the JDK in 11; without them WebHDFS answers 500, then 404. -->
    <dependency>
      <groupId>javax.xml.bind</groupId>
      <artifactId>jaxb-api</artifactId>
      <version>2.2.11</version>
    </dependency>
    <dependency>
      <groupId>javax.activation</groupId>
      <artifactId>javax.activation-api</artifactId>
      <version>1.2.0</version>
    </dependency>
    <dependency>
      <groupId>javax.annotation</groupId>
      <artifactId>javax.annotation-api</artifactId>
      <version>1.3.2</version>
    </dependency>" "Hadoop logs through slf4j 1.7"
    maven_require_jars "$tmp" "$HADOOP_VERSION" hadoop-client-minicluster hadoop-client-api hadoop-client-runtime
    maven_install "$tmp" "$LIBS"
    # Hadoop is chatty at INFO; WARN and up go to the log.
    cat >"$HDFS_HOME/log4j2.properties" <<'L4J'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.target = SYSTEM_OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.out.ref = OUT
L4J
    maven_complete "$LIBS"
}

# ---------------------------------------------------------------- helpers

our_pid() {
    # Prints the pid of the cluster we started, if alive.
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid="$(cat "$PID_FILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # Guard against pid reuse: it must be a JVM running our launcher.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$LAUNCHER" || return 1
    echo "$pid"
}

# One real round trip: the root's status through WebHDFS.
answers() {
    curl -sf --max-time 5 "$URL/webhdfs/v1/?op=GETFILESTATUS&user.name=copycat" 2>/dev/null |
        grep -q '"FileStatus"'
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
    local pid
    if pid="$(our_pid)" && answers; then
        log "HDFS already running (pid $pid): $URL"
        echo "$URL"
        return 0
    fi
    [[ -n "${pid:-}" ]] && stop
    mkdir -p "$RUN_DIR"
    rm -rf "$BASE_DIR"
    # A pid file left by a run that was killed (no stop) must not be read as
    # the new cluster's pid: the wait below would see a dead pid and give up.
    rm -f "$PID_FILE"
    [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
    log "starting MiniDFSCluster $HADOOP_VERSION: WebHDFS $URL, datanode HTTP 127.0.0.1:$DN_HTTP_PORT (log $LOG_FILE)"
    # setsid: own session, so the cluster outlives the caller and does not get
    # its Ctrl-C. The inner shell records its pid and exec's the JVM, which
    # must not hold the lock's fd (9) nor be a child of a shell of ours.
    cd "$RUN_DIR"
    # shellcheck disable=SC2016,SC2086
    setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
        java $JAVA_OPTS -Djava.awt.headless=true \
        -Dlog4j2.configurationFile="$HDFS_HOME/log4j2.properties" \
        -cp "$LIBS/*" "$LAUNCHER" "$BASE_DIR" "$RPC_PORT" "$HTTP_PORT" "$DN_PORT" "$DN_HTTP_PORT" "$DN_IPC_PORT" \
        </dev/null >"$LOG_FILE" 2>&1 9>&- &
    local i
    for ((i = 0; i < 100; i++)); do
        [[ -s "$PID_FILE" ]] && break
        sleep 0.05
    done
    pid="$(cat "$PID_FILE" 2>/dev/null || true)"
    [[ -n "$pid" ]] || die "the cluster's launcher wrote no pid"
    local deadline=$((SECONDS + START_TIMEOUT))
    until grep -q '^MiniHdfs ready' "$LOG_FILE" 2>/dev/null && answers; do
        if ! kill -0 "$pid" 2>/dev/null; then
            log_tail
            die "the cluster exited during start"
        fi
        if ((SECONDS >= deadline)); then
            log_tail
            stop >/dev/null 2>&1 || true
            die "WebHDFS did not answer within ${START_TIMEOUT}s"
        fi
        sleep 0.3
    done
    log "HDFS is up (pid $pid): $URL"
    echo "$URL"
}

stop() {
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PID_FILE"
        log "not running"
        return 0
    fi
    log "stopping HDFS (pid $pid)"
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
    rm -f "$PID_FILE"
    log "stopped"
}

status() {
    local pid
    if ! pid="$(our_pid)"; then
        echo "not running"
        return 1
    fi
    if answers; then
        echo "running: pid $pid, WebHDFS $URL, datanode HTTP 127.0.0.1:$DN_HTTP_PORT, log $LOG_FILE"
        return 0
    fi
    echo "running but NOT answering: pid $pid, WebHDFS $URL, log $LOG_FILE"
    return 1
}

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# Serialise fetch/start/stop/reset (e.g. parallel test binaries). The
# cluster must not inherit the lock fd (see `9>&-` on its command line).
lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/hdfs-run.lock"
    flock -w 300 9 || die "timed out waiting for $CACHE/hdfs-run.lock"
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
url) echo "$URL" ;;
logs) tail -n "${1:-100}" "$LOG_FILE" ;;
reset)
    lock
    stop
    rm -rf "$RUN_DIR"
    log "removed $RUN_DIR"
    ;;
*) usage ;;
esac
