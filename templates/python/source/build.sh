#!/usr/bin/env bash
# Build {{name}}.wasm (a WebAssembly component) with componentize-py.
#
# The toolchain (a venv with componentize-py from PyPI) is installed once by
# the Copycat checkout's scripts/examples/python.sh, which also supplies the
# WIT contract (wit/connector) and the SDK (guest-sdk/python). Set COPYCAT_HOME to
# use another checkout than the one this project was created from.
set -euo pipefail
cd "$(dirname "$0")"
COPYCAT_HOME="${COPYCAT_HOME:-{{copycat_home}}}"
script="$COPYCAT_HOME/scripts/examples/python.sh"
if [[ ! -x "$script" ]]; then
    echo "error: $script not found: set COPYCAT_HOME to a Copycat checkout" >&2
    exit 1
fi
"$script" build source "$PWD" "{{name_snake}}" "$PWD/{{name}}.wasm"
