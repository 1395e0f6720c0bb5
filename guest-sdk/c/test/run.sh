#!/usr/bin/env bash
# Build and run the C SDK's unit tests natively (no WebAssembly): the batch
# builder, value writer, schema table, views and reader against
# wit/connector@0.3.0/batch.wit, byte for byte. Under AddressSanitizer and
# UBSan when the compiler has them.
#
#   guest-sdk/c/test/run.sh        (CC defaults to gcc, else cc)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sdk="$(dirname "$here")"
cc="${CC:-$(command -v gcc || command -v cc)}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
flags=(-std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I "$sdk/include" -I "$sdk/src")
san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
if ! echo 'int main(void){return 0;}' | "$cc" "${san[@]}" -x c - -o "$out/probe" 2>/dev/null; then san=(); fi
"$cc" "${flags[@]}" "${san[@]}" -o "$out/wire_test" \
    "$here/wire_test.c" "$sdk/src/batch.c" "$sdk/src/view.c" "$sdk/src/copycat.c"
"$out/wire_test"
