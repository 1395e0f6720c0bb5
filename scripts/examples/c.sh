#!/usr/bin/env bash
# Build the C example connectors and transform (examples/c/) into
# build/examples/c/: counter-source.wasm (world source-dynamic),
# file-sink.wasm (sink) and uppercase-transform.wasm (transform), after the
# C SDK's native unit tests (guest-sdk/c/test/run.sh, gcc).
#
# Toolchain: Debian clang-22 + lld-22 + libclang-rt-22-dev-wasm32 + wasi-libc
# (apt-get install -y when missing; system packages, nothing under
# $TOOLCHAINS/c), wit-bindgen and wasm-tools (cargo install, pinned in
# lib.sh). guest-sdk/c/build.sh does the work; see docs/authoring/c.md.
source "$(dirname "$0")/lib.sh"

"$ROOT/guest-sdk/c/test/run.sh" >&2 || die "the C SDK's unit tests failed"

out="$OUT_ROOT/c"
mkdir -p "$out"
for example in counter-source:source-dynamic file-sink:sink uppercase-transform:transform; do
    name="${example%%:*}" world="${example##*:}"
    started=$(date +%s)
    "$ROOT/guest-sdk/c/build.sh" --world "$world" --build-dir "$ROOT/build" --out "$out/$name.wasm" \
        "$ROOT/examples/c/$name"/*.c || die "building examples/c/$name failed"
    built "$out/$name.wasm" "$started"
done
