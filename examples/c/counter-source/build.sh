#!/usr/bin/env bash
# Build counter-source.wasm, a Copycat source connector in C.
#
#   ./build.sh
#
# COPYCAT_HOME (default: ../../.., the Copycat checkout) holds the WIT
# contract (wit/) and the C SDK (guest-sdk/c/). The first build installs the
# toolchain (Debian clang-22, lld-22, libclang-rt-22-dev-wasm32, wasi-libc;
# wit-bindgen and wasm-tools through cargo); later builds take a second or
# two. Generated bindings and objects go to build/.
set -euo pipefail
cd "$(dirname "$0")"
COPYCAT_HOME="$(cd "${COPYCAT_HOME:-../../..}" 2>/dev/null && pwd)" || COPYCAT_HOME=""
export COPYCAT_HOME
if [[ ! -f "$COPYCAT_HOME/guest-sdk/c/build.sh" ]]; then
    echo "error: set COPYCAT_HOME to a Copycat checkout (the directory holding wit/ and guest-sdk/c/)" >&2
    exit 1
fi
exec "$COPYCAT_HOME/guest-sdk/c/build.sh" --world source-dynamic --build-dir build --out counter-source.wasm ./*.c
