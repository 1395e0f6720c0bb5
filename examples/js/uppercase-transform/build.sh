#!/usr/bin/env bash
# Build uppercase-transform.wasm (a WebAssembly component) with componentize-js.
#
# The toolchain (componentize-js, Rolldown; npm packages pinned by the Copycat
# checkout) is installed on first use into ~/.cache/copycat/toolchains/js
# ($COPYCAT_TOOLCHAINS/js). COPYCAT_HOME (default: ../../..) is the Copycat
# checkout that provides the WIT contract and the JavaScript SDK.
set -euo pipefail
cd "$(dirname "$0")"
COPYCAT_HOME="$(cd "${COPYCAT_HOME:-../../..}" 2>/dev/null && pwd)" || COPYCAT_HOME=""
tool="$COPYCAT_HOME/guest-sdk/js/tools/build-component.sh"
[[ -x "$tool" ]] || { echo "error: '$COPYCAT_HOME' is not a Copycat checkout (no guest-sdk/js); set COPYCAT_HOME" >&2; exit 1; }
COPYCAT_HOME="$COPYCAT_HOME" "$tool" src/index.js transform uppercase-transform.wasm build
echo "built $(pwd)/uppercase-transform.wasm"
