#!/usr/bin/env bash
# Regenerates tests/golden/kafka-connect/transforms.json: what Kafka Connect
# 4.4.0's own single message transforms and predicates (connect-transforms,
# its jars from Maven Central, through scripts/kafka-connect.sh) make of a
# corpus of records: InsertField, ReplaceField, MaskField, ValueToKey,
# ExtractField, SetSchemaMetadata, TimestampRouter, RegexRouter, Flatten,
# Cast, TimestampConverter, Filter, HoistField, InsertHeader, DropHeaders
# and HeaderFrom ($Key and $Value where both exist), and the predicates
# TopicNameMatches, HasHeaderKey and RecordIsTombstone: the records they
# return, the records they drop, the errors they throw when applied and the
# configurations they reject; and every one's ConfigDef.
# KafkaConnectTransforms.java, beside this script, defines the corpus and
# the cases; the file's "format" field documents the JSON (the neutral form
# of schemas and values is NeutralJson.java's, shared with
# kafka-connect-converters.sh; both are compiled and run by java.sh).
#
#   scripts/golden/kafka-connect-transforms.sh          regenerate the golden file
#   scripts/golden/kafka-connect-transforms.sh --check  exit 1 if it is not what Kafka Connect gives now
#
# Needs java 17+ (and mvn for the first fetch of the jars). Deterministic: the
# JVM's time zone and locale are pinned (TimestampConverter and
# TimestampRouter format in UTC themselves, but InsertHeader's literals go
# through Values, which uses the defaults), a HashMap's entries are sorted,
# and the same cases give the same bytes. The file is made with Java 17, the
# oldest Java Kafka Connect 4.4 runs on; set GOLDEN_JAVA to use another java
# (and GOLDEN_JAVAC if its javac is not beside it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/golden/java.sh
source scripts/golden/java.sh

GOLDEN=tests/golden/kafka-connect/transforms.json

check="$(golden_check_flag "${BASH_SOURCE[0]}" "$@")"

start=$SECONDS
tmp="$(mktemp "${TMPDIR:-/tmp}/transforms.XXXXXX.json")"
trap 'rm -f "$tmp"' EXIT
golden_java KafkaConnectTransforms "$tmp"
golden_finish kafka-connect-transforms.sh "$GOLDEN" "$tmp" "$check" "$start"
