#!/usr/bin/env bash
# Placeholder: the throughput benchmark. `just bench` has already built the
# connector components (build/plugins) and started Kafka (KAFKA_BOOTSTRAP).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
echo "Kafka: ${KAFKA_BOOTSTRAP:-$(scripts/kafka.sh bootstrap)}"
echo "TODO: benchmark not written yet"
