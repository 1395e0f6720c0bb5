#!/usr/bin/env bash
# Build {{name}}.wasm (a WebAssembly component) with stable Rust.
set -euo pipefail
cd "$(dirname "$0")"
rustup target list --installed | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
cargo build --release --target wasm32-wasip2
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/{{name_snake}}.wasm" "{{name}}.wasm"
echo "built $(pwd)/{{name}}.wasm"
