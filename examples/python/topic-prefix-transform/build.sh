#!/usr/bin/env bash
# Build topic-prefix-transform.wasm (a transform component) with componentize-py.
#
# The toolchain (a venv with componentize-py from PyPI) is installed once by
# the Copycat checkout's scripts/examples/python.sh, which also supplies the
# WIT contracts (wit/) and the SDK (guest-sdk/python). COPYCAT_HOME (default: ../../..) is
# that checkout.
set -euo pipefail
cd "$(dirname "$0")"
COPYCAT_HOME="$(cd "${COPYCAT_HOME:-../../..}" 2>/dev/null && pwd)" || COPYCAT_HOME=""
script="$COPYCAT_HOME/scripts/examples/python.sh"
if [[ ! -x "$script" ]]; then
    echo "error: $script not found: set COPYCAT_HOME to a Copycat checkout" >&2
    exit 1
fi
"$script" build transform "$PWD" "topic_prefix" "$PWD/topic-prefix-transform.wasm"
