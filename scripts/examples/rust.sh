#!/usr/bin/env bash
# Build the Rust examples (examples/rust/: two connectors and a transform)
# into build/examples/rust/.
#
# Toolchain: stable Rust with the wasm32-wasip2 target (added with rustup if
# missing). Each example is a project of its own (its own [workspace], the
# SDK guest-sdk/rust as a path dependency), built the way its build.sh
# builds it (release profile), into $CARGO_TARGET_DIR/wasm.
source "$(dirname "$0")/lib.sh"

rustup target list --installed | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
target_dir="${CARGO_TARGET_DIR:-$HOME/.cache/copycat/target}/wasm"
out="$OUT_ROOT/rust"
mkdir -p "$out"
for name in counter-source file-sink uppercase-transform; do
    started=$(date +%s)
    cargo build --quiet --release --target wasm32-wasip2 --target-dir "$target_dir" \
        --manifest-path "$ROOT/examples/rust/$name/Cargo.toml" || die "building examples/rust/$name failed"
    cp "$target_dir/wasm32-wasip2/release/${name//-/_}.wasm" "$out/$name.wasm"
    built "$out/$name.wasm" "$started"
done
