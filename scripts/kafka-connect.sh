#!/usr/bin/env bash
# Apache Kafka Connect 4.4.0 (the real one, from Maven Central jars) for the
# side-by-side benchmark (`bench --bin kafka_connect`, docs/BENCHMARKS.md).
# The jars are resolved by Maven from the POMs of connect-runtime, connect-api,
# connect-json, connect-transforms and connect-file (their runtime dependency
# closure, through scripts/lib/maven.sh like scripts/kafka.sh's broker), into
# $COPYCAT_CACHE/kafka-connect-4.4.0/libs (default ~/.cache/copycat).
# connect-file 4.4.0 is not on Maven Central: see connect_file_published below
# (4.3.1's sources are rebuilt against 4.4.0 instead). Needs java, javac, mvn.
#
#   scripts/kafka-connect.sh fetch                       download the jars (idempotent)
#   scripts/kafka-connect.sh classpath                   print the classpath (fetches first)
#   scripts/kafka-connect.sh standalone WORKER CONN...   run ConnectStandalone in the foreground
#   scripts/kafka-connect.sh distributed WORKER          run ConnectDistributed in the foreground (its
#                                                        group.id and config/offset/status topics come
#                                                        from WORKER; tests/all/rest_compat.rs)
#   scripts/kafka-connect.sh run-class CLASS ARGS        run any class with that classpath
#   scripts/kafka-connect.sh plugins                     build the converter benchmark's plugins (below)
#                                                        and print their plugin.path
#
# The converter benchmark (`bench --bin converters`) adds two plugins under
# $COPYCAT_CACHE/kafka-connect-4.4.0/plugins:
#   copycat-datagen/          bench/kafka-connect/DatagenSource.java (Copycat's datagen records
#                             as a Kafka Connect source) compiled with javac against connect-api
#                             4.4.0; rebuilt when the source changes
#   apicurio-avro-converter/  Apicurio Registry's Kafka Connect AvroConverter
#                             (io.apicurio:apicurio-registry-utils-converter, APICURIO_CONVERTER_VERSION)
#                             and its runtime dependencies from Maven Central, without the jars
#                             the worker provides (Kafka, Connect, slf4j, log4j). Confluent's
#                             io.confluent.connect.avro.AvroConverter is not on Maven Central, nor
#                             are Apicurio's 3.x converter jars.
#
# Environment:
#   KAFKA_CONNECT_HEAP_OPTS  JVM heap, default "-Xms256m -Xmx2g" (bin/connect-standalone.sh's default)
#   KAFKA_CONNECT_OPTS       more JVM options (kafka-run-class.sh's KAFKA_OPTS), e.g. -Duser.timezone=UTC
#   KAFKA_CONNECT_LOG_LEVEL  root log level for `standalone`, default INFO
#   COPYCAT_CACHE            cache root, default ~/.cache/copycat
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/maven.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/maven.sh"

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
    maven_published org.apache.kafka connect-file "$KAFKA_VERSION"
}

rebuild_connect_file() {
    local libs="$1" v="$CONNECT_FILE_FALLBACK" work="$HOME_DIR/connect-file-build"
    command -v javac >/dev/null || die "javac not found (needed to rebuild connect-file $v for $KAFKA_VERSION)"
    log "connect-file $KAFKA_VERSION is not on Maven Central; rebuilding connect-file $v's sources against $KAFKA_VERSION"
    rm -rf "$work"
    mkdir -p "$work/src" "$work/classes"
    maven_download_checked "$(maven_url org.apache.kafka connect-file "$v" "connect-file-$v-sources.jar")" "$work/sources.jar"
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
    local tmp="$HOME_DIR/libs.tmp.$$" a deps="" file_published=0
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
    maven_resolve "$HOME_DIR/pom.xml" "$tmp" scripts/kafka-connect.sh "Kafka Connect $KAFKA_VERSION" \
        kafka-connect-runtime "$deps" "Connect logs through slf4j"
    maven_require_jars "$tmp" "$KAFKA_VERSION" connect-runtime connect-api connect-json connect-transforms kafka-clients
    if ((file_published)); then
        maven_require_jars "$tmp" "$KAFKA_VERSION" connect-file
    else
        rebuild_connect_file "$tmp"
    fi
    maven_install "$tmp" "$LIBS"
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
    maven_complete "$LIBS"
}

# The converter benchmark's plugins (see the header).
APICURIO_CONVERTER_VERSION=2.6.13.Final
PLUGINS="$HOME_DIR/plugins"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

datagen_plugin() {
    local src="$REPO_ROOT/bench/kafka-connect/DatagenSource.java" dir="$PLUGINS/copycat-datagen" sum
    [[ -f "$src" ]] || die "$src is missing"
    sum="$(sha256sum "$src" | cut -c1-64)"
    if [[ -f "$dir/.source-sha256" && "$(cat "$dir/.source-sha256")" == "$sum" ]]; then
        return 0
    fi
    command -v javac >/dev/null || die "javac not found (needed to compile $src)"
    log "compiling $src against connect-api $KAFKA_VERSION"
    local work="$PLUGINS/copycat-datagen.build"
    rm -rf "$work" "$dir"
    mkdir -p "$work/classes/META-INF/services" "$dir"
    javac -nowarn --release 17 -d "$work/classes" -cp "$LIBS/*" "$src" || die "compiling $src"
    echo dev.copycat.bench.DatagenSource >"$work/classes/META-INF/services/org.apache.kafka.connect.source.SourceConnector"
    jar cf "$dir/copycat-bench-datagen.jar" -C "$work/classes" .
    rm -rf "$work"
    echo "$sum" >"$dir/.source-sha256"
}

avro_converter_plugin() {
    local dir="$PLUGINS/apicurio-avro-converter"
    if [[ -f "$dir/.complete" ]]; then
        return 0
    fi
    command -v mvn >/dev/null || die "mvn not found (used to fetch Apicurio's AvroConverter from Maven Central)"
    log "fetching Apicurio Registry's Kafka Connect converters $APICURIO_CONVERTER_VERSION from Maven Central"
    mkdir -p "$PLUGINS"
    local tmp="$PLUGINS/apicurio.tmp.$$"
    maven_resolve "$HOME_DIR/apicurio-pom.xml" "$tmp" scripts/kafka-connect.sh \
        "Apicurio Registry's Kafka Connect converters $APICURIO_CONVERTER_VERSION" apicurio-connect-converters "
    <dependency>
      <groupId>io.apicurio</groupId>
      <artifactId>apicurio-registry-utils-converter</artifactId>
      <version>$APICURIO_CONVERTER_VERSION</version>
    </dependency>" "Apicurio logs through slf4j"
    maven_require_jars "$tmp" "$APICURIO_CONVERTER_VERSION" apicurio-registry-utils-converter apicurio-registry-serdes-avro-serde
    # What the worker provides (a plugin's own copy would shadow the API
    # the worker hands it).
    rm -f "$tmp"/connect-*.jar "$tmp"/kafka-clients-*.jar "$tmp"/slf4j-*.jar "$tmp"/log4j-*.jar \
        "$tmp"/lz4-java-*.jar "$tmp"/snappy-java-*.jar "$tmp"/zstd-jni-*.jar
    maven_install "$tmp" "$dir"
    maven_complete "$dir"
}

# The JVM flags of Kafka's bin/kafka-run-class.sh (G1, 20 ms pause target,
# headless), with connect-standalone.sh's heap, and KAFKA_CONNECT_OPTS.
run_class() {
    fetch
    local class="$1"
    shift
    # shellcheck disable=SC2086 # word splitting of the JVM options is intended
    exec java ${KAFKA_CONNECT_HEAP_OPTS:--Xms256m -Xmx2g} ${KAFKA_CONNECT_OPTS:-} -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
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
distributed)
    [[ $# -eq 1 ]] || usage
    (lock && fetch)
    run_class org.apache.kafka.connect.cli.ConnectDistributed "$@"
    ;;
plugins)
    lock
    fetch
    datagen_plugin
    avro_converter_plugin
    echo "$PLUGINS"
    ;;
run-class)
    [[ $# -ge 1 ]] || usage
    (lock && fetch)
    run_class "$@"
    ;;
*) usage ;;
esac
