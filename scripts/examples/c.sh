#!/usr/bin/env bash
# Build the C example connectors (examples/c/) into build/examples/c/.
#
# Toolchain: Debian clang-22 + lld-22 + libclang-rt-22-dev-wasm32 + wasi-libc
# (apt-get install -y when missing; system packages, nothing under
# $TOOLCHAINS/c), wit-bindgen and wasm-tools (cargo install, pinned in
# lib.sh). guest-sdk/c/build.sh does the work; see docs/authoring/c.md.
source "$(dirname "$0")/lib.sh"

out="$OUT_ROOT/c"
mkdir -p "$out"
for example in counter-source:source file-sink:sink; do
    name="${example%%:*}" world="${example##*:}"
    started=$(date +%s)
    "$ROOT/guest-sdk/c/build.sh" --world "$world" --build-dir "$ROOT/build" --out "$out/$name.wasm" \
        "$ROOT/examples/c/$name"/*.c || die "building examples/c/$name failed"
    built "$out/$name.wasm" "$started"
done
