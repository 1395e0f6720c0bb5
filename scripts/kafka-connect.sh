#!/usr/bin/env bash
# Apache Kafka Connect 4.4.0 (the real one, from Maven Central jars) for the
# side-by-side benchmark (`bench --bin kafka_connect`, docs/BENCHMARKS.md).
# The jars are resolved by Maven from the POMs of connect-runtime, connect-api,
# connect-json, connect-transforms and connect-file (their runtime dependency
# closure, the same way scripts/kafka.sh fetches the broker), into
# $COPYCAT_CACHE/kafka-connect-4.4.0/libs (default ~/.cache/copycat).
# connect-file 4.4.0 is not on Maven Central: see connect_file_published below
# (4.3.1's sources are rebuilt against 4.4.0 instead). Needs java, javac, mvn.
#
#   scripts/kafka-connect.sh fetch                       download the jars (idempotent)
#   scripts/kafka-connect.sh classpath                   print the classpath (fetches first)
#   scripts/kafka-connect.sh standalone WORKER CONN...   run ConnectStandalone in the foreground
#   scripts/kafka-connect.sh run-class CLASS ARGS        run any class with that classpath
#
# Environment:
#   KAFKA_CONNECT_HEAP_OPTS  JVM heap, default "-Xms256m -Xmx2g" (bin/connect-standalone.sh's default)
#   KAFKA_CONNECT_LOG_LEVEL  root log level for `standalone`, default INFO
#   COPYCAT_CACHE            cache root, default ~/.cache/copycat
set -euo pipefail

KAFKA_VERSION=4.4.0
LOG4J_VERSION=2.24.3
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}"
HOME_DIR="$CACHE/kafka-connect-$KAFKA_VERSION"
LIBS="$HOME_DIR/libs"
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

log() { echo "kafka-connect.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# connect-file (FileStreamSource/FileStreamSink) is not on Maven Central for
# 4.4.0 (its maven-metadata.xml ends at 4.3.1; the 4.4.0 POM is a 404), while
# connect-runtime, -api, -json and -transforms are. The 4.3.1 jar does not
# load on 4.4.0 (NoClassDefFoundError: org/apache/kafka/common/utils/
# AppInfoParser, which 4.4 moved to ...common.utils.internals), so when 4.4.0
# is missing this script takes connect-file 4.3.1's published sources
# (SHA-1 checked), changes that one import, and compiles them against the
# 4.4.0 jars into libs/connect-file-4.3.1-rebuilt-4.4.0.jar. The two
# connectors' code is otherwise as published.
CONNECT_FILE_FALLBACK=4.3.1
connect_file_published() {
    local url="https://repo1.maven.org/maven2/org/apache/kafka/connect-file/$KAFKA_VERSION/connect-file-$KAFKA_VERSION.pom"
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)" == 200 ]]
}

rebuild_connect_file() {
    local libs="$1" v="$CONNECT_FILE_FALLBACK" work="$HOME_DIR/connect-file-build"
    local base="https://repo1.maven.org/maven2/org/apache/kafka/connect-file/$v/connect-file-$v-sources.jar"
    command -v javac >/dev/null || die "javac not found (needed to rebuild connect-file $v for $KAFKA_VERSION)"
    log "connect-file $KAFKA_VERSION is not on Maven Central; rebuilding connect-file $v's sources against $KAFKA_VERSION"
    rm -rf "$work"
    mkdir -p "$work/src" "$work/classes"
    curl -sSf -o "$work/sources.jar" "$base" || die "downloading $base"
    local want got
    want="$(curl -sSf "$base.sha1" | cut -c1-40)" || die "downloading $base.sha1"
    got="$(sha1sum "$work/sources.jar" | cut -c1-40)"
    [[ "$want" == "$got" ]] || die "connect-file-$v-sources.jar: SHA-1 $got, Maven Central says $want"
    (cd "$work/src" && jar xf ../sources.jar)
    sed -i 's/^import org\.apache\.kafka\.common\.utils\.AppInfoParser;/import org.apache.kafka.common.utils.internals.AppInfoParser;/' \
        "$work"/src/org/apache/kafka/connect/file/*.java
    javac -nowarn --release 17 -d "$work/classes" -cp "$libs/*" \
        "$work"/src/org/apache/kafka/connect/file/*.java || die "compiling connect-file $v against $KAFKA_VERSION"
    cp -r "$work/src/META-INF" "$work/classes/"
    rm -f "$work/classes/META-INF/MANIFEST.MF"
    jar cf "$libs/connect-file-$v-rebuilt-$KAFKA_VERSION.jar" -C "$work/classes" .
    rm -rf "$work"
}

fetch() {
    if [[ -f "$LIBS/.complete" ]]; then
        return 0
    fi
    command -v java >/dev/null || die "java not found (Kafka Connect $KAFKA_VERSION needs Java 17+)"
    command -v mvn >/dev/null || die "mvn not found (used to fetch the Kafka Connect jars from Maven Central)"
    log "fetching Kafka Connect $KAFKA_VERSION jars from Maven Central into $LIBS"
    mkdir -p "$HOME_DIR"
    local pom="$HOME_DIR/pom.xml" tmp="$HOME_DIR/libs.tmp.$$" a deps="" file_published=0
    connect_file_published && file_published=1
    for a in connect-runtime connect-api connect-json connect-transforms; do
        deps+="
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>$a</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>"
    done
    if ((file_published)); then
        deps+="
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>connect-file</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>"
    fi
    cat >"$pom" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/kafka-connect.sh: resolves a runnable Kafka Connect $KAFKA_VERSION classpath. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.copycat</groupId>
  <artifactId>kafka-connect-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>$deps
    <!-- Connect logs through slf4j; bind it to log4j2 like the Kafka distribution does. -->
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-core</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>3.8.1</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
EOF
    rm -rf "$tmp"
    mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" ||
        die "mvn failed to fetch Kafka Connect $KAFKA_VERSION (is Maven Central reachable?)"
    for a in connect-runtime connect-api connect-json connect-transforms kafka-clients; do
        [[ -f "$tmp/$a-$KAFKA_VERSION.jar" ]] || die "$a-$KAFKA_VERSION.jar missing after mvn"
    done
    if ((file_published)); then
        [[ -f "$tmp/connect-file-$KAFKA_VERSION.jar" ]] || die "connect-file-$KAFKA_VERSION.jar missing after mvn"
    else
        rebuild_connect_file "$tmp"
    fi
    rm -rf "$LIBS"
    mv "$tmp" "$LIBS"
    cat >"$HOME_DIR/log4j2.properties" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.target = SYSTEM_OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = ${env:KAFKA_CONNECT_LOG_LEVEL:-INFO}
rootLogger.appenderRef.out.ref = OUT
EOF
    touch "$LIBS/.complete"
    log "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars"
}

# The JVM flags of Kafka's bin/kafka-run-class.sh (G1, 20 ms pause target,
# headless), with connect-standalone.sh's heap.
run_class() {
    fetch
    local class="$1"
    shift
    # shellcheck disable=SC2086 # word splitting of the heap options is intended
    exec java ${KAFKA_CONNECT_HEAP_OPTS:--Xms256m -Xmx2g} -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
        -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
        -Djava.awt.headless=true -Dlog4j2.configurationFile="$HOME_DIR/log4j2.properties" \
        -cp "$LIBS/*" "$class" "$@"
}

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/kafka-connect-fetch.lock"
    flock -w 600 9 || die "timed out waiting for $CACHE/kafka-connect-fetch.lock"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
fetch)
    lock
    fetch
    ;;
classpath)
    (lock && fetch)
    echo "$LIBS/*"
    ;;
standalone)
    [[ $# -ge 1 ]] || usage
    (lock && fetch)
    run_class org.apache.kafka.connect.cli.ConnectStandalone "$@"
    ;;
run-class)
    [[ $# -ge 1 ]] || usage
    (lock && fetch)
    run_class "$@"
    ;;
*) usage ;;
esac
