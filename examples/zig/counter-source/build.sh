#!/usr/bin/env bash
# Build counter-source.wasm, a Copycat source connector in Zig.
#
#   ./build.sh
#
# COPYCAT_HOME (default: ../../.., the Copycat checkout) holds the WIT
# contract (wit/) and the Zig SDK (guest-sdk/zig/copycat.zig, imported as the
# module "copycat"). The first build installs Zig 0.17.1 from PyPI into
# ~/.cache/copycat/toolchains/zig (and wit-bindgen and wasm-tools through
# cargo); later builds take a few seconds. Generated bindings go to build/.
set -euo pipefail
cd "$(dirname "$0")"
COPYCAT_HOME="$(cd "${COPYCAT_HOME:-../../..}" 2>/dev/null && pwd)" || COPYCAT_HOME=""
export COPYCAT_HOME
if [[ ! -f "$COPYCAT_HOME/guest-sdk/zig/build.sh" ]]; then
    echo "error: set COPYCAT_HOME to a Copycat checkout (the directory holding wit/ and guest-sdk/zig/)" >&2
    exit 1
fi
exec "$COPYCAT_HOME/guest-sdk/zig/build.sh" --world source --dynamic --build-dir build --out counter-source.wasm counter_source.zig
