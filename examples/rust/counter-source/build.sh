#!/usr/bin/env bash
# Build counter-source.wasm (a WebAssembly component) with stable Rust.
#
#   ./build.sh          build counter-source.wasm
#   ./build.sh test     run the unit tests natively (cargo test)
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${1:-}" == test ]]; then
    exec cargo test
fi
rustup target list --installed | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
cargo build --release --target wasm32-wasip2
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/counter_source.wasm" "counter-source.wasm"
echo "built $(pwd)/counter-source.wasm"
