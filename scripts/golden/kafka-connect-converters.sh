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
# form of schemas, values, bytes and errors (NeutralJson.java, shared with
# kafka-connect-transforms.sh; both are compiled and run by java.sh).
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
# oldest Java Kafka Connect 4.4 runs on; set GOLDEN_JAVA to use another java
# (and GOLDEN_JAVAC if its javac is not beside it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/golden/java.sh
source scripts/golden/java.sh

GOLDEN=tests/golden/kafka-connect/converters.json

check="$(golden_check_flag "${BASH_SOURCE[0]}" "$@")"

start=$SECONDS
tmp="$(mktemp "${TMPDIR:-/tmp}/converters.XXXXXX.json")"
trap 'rm -f "$tmp"' EXIT
golden_java KafkaConnectConverters "$tmp"
golden_finish kafka-connect-converters.sh "$GOLDEN" "$tmp" "$check" "$start"
