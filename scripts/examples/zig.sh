#!/usr/bin/env bash
# Build the Zig example connectors (examples/zig/) into build/examples/zig/.
#
# Toolchain: PyPI ziglang (pinned in guest-sdk/zig/build.sh) in a venv under
# $TOOLCHAINS/zig, wit-bindgen and wasm-tools (cargo install, pinned in
# lib.sh). guest-sdk/zig/build.sh does the work; see docs/authoring/zig.md.
source "$(dirname "$0")/lib.sh"

out="$OUT_ROOT/zig"
mkdir -p "$out"
for example in counter-source:source:counter_source file-sink:sink:file_sink; do
    IFS=: read -r name world file <<<"$example"
    started=$(date +%s)
    "$ROOT/guest-sdk/zig/build.sh" --world "$world" --build-dir "$ROOT/build" --out "$out/$name.wasm" \
        "$ROOT/examples/zig/$name/$file.zig" || die "building examples/zig/$name failed"
    built "$out/$name.wasm" "$started"
done
