#!/usr/bin/env bash
# Build uppercase-transform.wasm (a WebAssembly component) with the standard Go
# toolchain (>= 1.25) and wasm-tools, through the Copycat Go SDK's
# componentize.sh. COPYCAT_HOME (default: ../../..) is the Copycat checkout
# with wit/ and guest-sdk/go/; when set, go.mod's replace is pointed at it.
#
#   ./build.sh          build uppercase-transform.wasm
#   ./build.sh test     run the unit tests natively (go test)
set -euo pipefail
cd "$(dirname "$0")"
home="$(cd "${COPYCAT_HOME:-../../..}" 2>/dev/null && pwd)" || home=""
[[ -x "$home/guest-sdk/go/componentize.sh" ]] ||
    { echo "error: '$home' is not a Copycat checkout (no guest-sdk/go/componentize.sh); set COPYCAT_HOME" >&2; exit 1; }
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
if [[ -n "${COPYCAT_HOME:-}" ]]; then
    go mod edit -replace "github.com/copycat-connect/copycat/guest-sdk/go=$home/guest-sdk/go"
fi
if [[ "${1:-}" == test ]]; then
    exec go test ./...
fi
COPYCAT_BUILD_DIR="$PWD/build" "$home/guest-sdk/go/componentize.sh" transform . "uppercase-transform.wasm"
echo "built $PWD/uppercase-transform.wasm"
