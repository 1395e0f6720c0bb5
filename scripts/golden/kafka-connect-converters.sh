#!/usr/bin/env bash
# Regenerates tests/golden/kafka-connect/converters.json: what Kafka Connect
# 4.4.0's own converters (its jars from Maven Central, through
# scripts/kafka-connect.sh) make of Connect data and of bytes: JsonConverter
# (schemas.enable, decimal.format, replace.null.with.default, schema.content),
# StringConverter, ByteArrayConverter, the numeric converters,
# BooleanConverter and SimpleHeaderConverter, as key, value and header
# converters; the serialized bytes, the round trip, decode-only inputs, and
# the errors they throw. KafkaConnectConverters.java, beside this script,
# defines the cases; the file's "format" field documents the neutral JSON
# form of schemas, values, bytes and errors.
#
#   scripts/golden/kafka-connect-converters.sh          regenerate the golden file
#   scripts/golden/kafka-connect-converters.sh --check  exit 1 if it is not what Kafka Connect gives now
#
# Needs java 17+ (and mvn for the first fetch of the jars). Deterministic: the
# JVM's time zone and locale are pinned (Kafka Connect's Values, behind
# SimpleHeaderConverter, formats and parses dates in the default time zone),
# a HashMap's entries are sorted, and the same cases give the same bytes.
# Float and double text comes from the JVM's Double.toString/Float.toString,
# which Java 19 changed (JDK-4511638): the file is made with Java 17, the
# oldest Java Kafka Connect 4.4 runs on; set GOLDEN_JAVA to use another java.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

GOLDEN=tests/golden/kafka-connect/converters.json
JAVA="${GOLDEN_JAVA:-java}"

check=0
case "${1:-}" in
"") ;;
--check) check=1 ;;
*)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac

start=$SECONDS
classpath="$(scripts/kafka-connect.sh classpath)"
mkdir -p "$(dirname "$GOLDEN")"
tmp="$(mktemp "${TMPDIR:-/tmp}/converters.XXXXXX.json")"
trap 'rm -f "$tmp"' EXIT
# Kafka's classes log through slf4j/log4j2: errors only (SimpleHeaderConverter
# warns about every header it falls back to bytes for).
"$JAVA" -Dlog4j2.level=ERROR -Duser.timezone=UTC -Duser.language=en -Duser.country=US \
    -Dfile.encoding=UTF-8 -cp "$classpath" scripts/golden/KafkaConnectConverters.java "$tmp"
echo >>"$tmp"

if ((check)); then
    if ! diff -u "$GOLDEN" "$tmp"; then
        echo "kafka-connect-converters.sh: $GOLDEN is not what Kafka Connect gives: rerun without --check" >&2
        exit 1
    fi
    echo "kafka-connect-converters.sh: $GOLDEN is up to date ($((SECONDS - start)) s)" >&2
else
    chmod 644 "$tmp"
    mv "$tmp" "$GOLDEN"
    trap - EXIT
    echo "kafka-connect-converters.sh: wrote $GOLDEN ($((SECONDS - start)) s)" >&2
fi
