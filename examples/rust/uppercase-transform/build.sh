#!/usr/bin/env bash
# Build uppercase-transform.wasm (a transform component) with stable Rust.
#
#   ./build.sh          build uppercase-transform.wasm
#   ./build.sh test     run the unit tests natively (cargo test)
#
# Run it over JSON lines without Kafka:
#   copycat dev run uppercase-transform.wasm -c fields=name --input records.jsonl
# or in a connector's chain:
#   transforms=upper
#   transforms.upper.type=wasm
#   transforms.upper.plugin=/path/to/uppercase-transform.wasm
#   transforms.upper.fields=name
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${1:-}" == test ]]; then
    exec cargo test
fi
rustup target list --installed | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
cargo build --release --target wasm32-wasip2
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/uppercase_transform.wasm" "uppercase-transform.wasm"
echo "built $(pwd)/uppercase-transform.wasm"
