#!/usr/bin/env bash
# Regenerates tests/golden/kafka-connect/client-configs.json: which client
# settings Kafka Connect 4.4.0's own code (its jars from Maven Central,
# through scripts/kafka-connect.sh) gives a connector task's producer,
# consumer and admin client, and what connector.client.config.override.policy
# refuses, for the cases of tests/golden/kafka-connect/client-configs.cases.json
# (KafkaConnectClientConfigs.java, beside this script, calls Kafka Connect's
# Worker methods). Copycat's test against it:
# runtime/src/kafka/client_configs_golden.rs.
#
#   scripts/golden/kafka-connect-client-configs.sh          regenerate the golden file
#   scripts/golden/kafka-connect-client-configs.sh --check  exit 1 if it is not what Kafka Connect gives now
#
# Needs java 17+ (and mvn for the first fetch of the jars). Deterministic:
# the same cases give the same bytes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/golden/java.sh
source scripts/golden/java.sh

CASES=tests/golden/kafka-connect/client-configs.cases.json
GOLDEN=tests/golden/kafka-connect/client-configs.json

check="$(golden_check_flag "${BASH_SOURCE[0]}" "$@")"

start=$SECONDS
classpath="$(scripts/kafka-connect.sh classpath)"
tmp="$(mktemp "${TMPDIR:-/tmp}/client-configs.XXXXXX.json")"
trap 'rm -f "$tmp"' EXIT
# Kafka's classes log through slf4j/log4j2: errors only.
java -Dlog4j2.level=ERROR -Dfile.encoding=UTF-8 -cp "$classpath" scripts/golden/KafkaConnectClientConfigs.java "$CASES" "$tmp"
echo >>"$tmp"

if ((check)); then
    if ! diff -u "$GOLDEN" "$tmp"; then
        echo "kafka-connect-client-configs.sh: $GOLDEN is not what Kafka Connect gives for $CASES: rerun without --check" >&2
        exit 1
    fi
    echo "kafka-connect-client-configs.sh: $GOLDEN is up to date ($((SECONDS - start)) s)" >&2
else
    chmod 644 "$tmp"
    mv "$tmp" "$GOLDEN"
    trap - EXIT
    echo "kafka-connect-client-configs.sh: wrote $GOLDEN ($((SECONDS - start)) s)" >&2
fi
