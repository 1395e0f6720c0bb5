#!/usr/bin/env bash
# Build a Copycat connector written in JavaScript into a WebAssembly component.
#
#   build-component.sh ENTRY.js source|sink|transform OUT.wasm [BUILD_DIR]
#
# Installs the toolchain on first use (see toolchain.sh), then bundles ENTRY.js
# with the SDK and runs componentize-js (see componentize.mjs). BUILD_DIR
# (default: OUT.wasm's directory + /<name>.build) holds the bundle, the
# assembled WIT and the up-to-date stamp. COPYCAT_HOME (default: the checkout
# holding this script) is where wit/ (connector@0.3.0, errant, dynamic, transform) is read from; set
# COPYCAT_TOOLCHAINS to move the toolchain (default ~/.cache/copycat/toolchains).
set -euo pipefail

[[ $# -ge 3 && $# -le 4 ]] || { echo "usage: $0 ENTRY.js source|sink|transform OUT.wasm [BUILD_DIR]" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/toolchain.sh"
ensure_js_toolchain

args=(--entry "$1" --world "$2" --out "$3" --toolchain "$JS_TOOLCHAIN")
[[ $# -eq 4 ]] && args+=(--build-dir "$4")
exec node "$JS_SDK_DIR/tools/componentize.mjs" "${args[@]}"
