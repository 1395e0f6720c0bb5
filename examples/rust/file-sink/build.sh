#!/usr/bin/env bash
# Build file-sink.wasm (a WebAssembly component) with stable Rust.
#
#   ./build.sh          build file-sink.wasm
#   ./build.sh test     run the unit tests natively (cargo test)
set -euo pipefail
cd "$(dirname "$0")"
if [[ "${1:-}" == test ]]; then
    exec cargo test
fi
rustup target list --installed | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
cargo build --release --target wasm32-wasip2
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/file_sink.wasm" "file-sink.wasm"
echo "built $(pwd)/file-sink.wasm"
