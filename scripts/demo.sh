#!/usr/bin/env bash
# Placeholder: the end-to-end demo. `just demo` has already built the runtime and
# the connector components (build/plugins) and started Kafka (KAFKA_BOOTSTRAP).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
echo "Kafka: ${KAFKA_BOOTSTRAP:-$(scripts/kafka.sh bootstrap)}"
echo "Plugins: ${COPYCAT_PLUGIN_DIR:-$PWD/build/plugins}"
ls -1 "${COPYCAT_PLUGIN_DIR:-$PWD/build/plugins}" 2>/dev/null || true
echo "TODO: demo not written yet"
