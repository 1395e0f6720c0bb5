#!/usr/bin/env bash
# Build the Zig examples (examples/zig/: counter-source, file-sink,
# uppercase-transform) into build/examples/zig/, after the SDK's unit tests
# (zig test, native: guest-sdk/zig/build.sh --test).
#
# Toolchain: PyPI ziglang (pinned in guest-sdk/zig/build.sh) in a venv under
# $TOOLCHAINS/zig, wit-bindgen and wasm-tools (cargo install, pinned in
# lib.sh). guest-sdk/zig/build.sh does the work; see docs/authoring/zig.md.
source "$(dirname "$0")/lib.sh"

out="$OUT_ROOT/zig"
mkdir -p "$out"
"$ROOT/guest-sdk/zig/build.sh" --test || die "the Zig SDK's unit tests failed"
for example in counter-source:source:counter_source:--dynamic file-sink:sink:file_sink: uppercase-transform:transform:uppercase_transform:; do
    IFS=: read -r name world file flags <<<"$example"
    started=$(date +%s)
    "$ROOT/guest-sdk/zig/build.sh" --world "$world" $flags --build-dir "$ROOT/build" --out "$out/$name.wasm" \
        "$ROOT/examples/zig/$name/$file.zig" || die "building examples/zig/$name failed"
    built "$out/$name.wasm" "$started"
done
