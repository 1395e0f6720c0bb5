#!/usr/bin/env bash
# Regenerates tests/golden/kafka-connect/config-defs.json: what Kafka
# Connect 4.4.0's REST API (its own ConnectorPluginsResource over a
# StandaloneHerder, its jars from Maven Central through
# scripts/kafka-connect.sh) answers for GET /connector-plugins
# ?connectorsOnly=false, GET /connector-plugins/{FileStreamSource,
# FileStreamSink}/config and PUT .../config/validate with a few configs:
# the framework's config definitions (ConnectorConfig, SourceConnectorConfig,
# SinkConnectorConfig, enriched with transforms, predicates and topic
# creation groups) with their groups, order, defaults and documentation,
# and the errors it gives under each key. KafkaConnectConfigDefs.java,
# beside this script, defines the cases; the file's "format" field
# documents the JSON. tests/all/config_defs.rs compares Copycat's answers.
#
#   scripts/golden/kafka-connect-config-defs.sh          regenerate the golden file
#   scripts/golden/kafka-connect-config-defs.sh --check  exit 1 if it is not what Kafka Connect gives now
#
# Needs java 17+ (and mvn for the first fetch of the jars); no broker (the
# herder is never started). Deterministic: the same cases give the same
# bytes. Set GOLDEN_JAVA to use another java (and GOLDEN_JAVAC if its javac
# is not beside it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/golden/java.sh
source scripts/golden/java.sh

GOLDEN=tests/golden/kafka-connect/config-defs.json

check="$(golden_check_flag "${BASH_SOURCE[0]}" "$@")"

start=$SECONDS
tmp="$(mktemp "${TMPDIR:-/tmp}/config-defs.XXXXXX.json")"
trap 'rm -f "$tmp"' EXIT
golden_java KafkaConnectConfigDefs "$tmp"
golden_finish kafka-connect-config-defs.sh "$GOLDEN" "$tmp" "$check" "$start"
