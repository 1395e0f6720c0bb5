#!/usr/bin/env bash
# Build {{name}}.wasm (a WebAssembly component) with the standard Go
# toolchain (>= 1.25) and wasm-tools, through the Copycat Go SDK's
# componentize.sh. COPYCAT_HOME (default: the checkout this project was
# created from) is the Copycat checkout with wit/ and guest-sdk/go/.
#
#   ./build.sh          build {{name}}.wasm
#   ./build.sh test     run the unit tests natively (go test)
set -euo pipefail
cd "$(dirname "$0")"
home="${COPYCAT_HOME:-{{copycat_home}}}"
[[ -x "$home/guest-sdk/go/componentize.sh" ]] ||
    { echo "error: $home is not a Copycat checkout (no guest-sdk/go/componentize.sh); set COPYCAT_HOME" >&2; exit 1; }
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
go mod edit -replace "github.com/copycat-connect/copycat/guest-sdk/go=$home/guest-sdk/go"
if [[ "${1:-}" == test ]]; then
    exec go test ./...
fi
COPYCAT_BUILD_DIR="$PWD/build" "$home/guest-sdk/go/componentize.sh" source . "{{name}}.wasm"
echo "built $PWD/{{name}}.wasm"
