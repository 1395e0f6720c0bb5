#!/usr/bin/env bash
# Build the JavaScript example connectors (examples/js/) into
# build/examples/js/{counter-source,file-sink}.wasm.
#
# Toolchain: componentize-js 0.23.0 (StarlingMonkey) and Rolldown, pinned in
# guest-sdk/js/toolchain/package-lock.json and installed with `npm ci` into
# $TOOLCHAINS/js on first use (needs Node.js ^20.19 or >= 22.12 and npm).
# A rerun with nothing changed only re-bundles (about a second) and skips
# componentize-js. Intermediate files (bundle, assembled WIT) go to build/js/.
source "$(dirname "$0")/lib.sh"

source "$ROOT/guest-sdk/js/tools/toolchain.sh"
ensure_js_toolchain

mkdir -p "$OUT_ROOT/js"
for example in counter-source:source file-sink:sink; do
    name="${example%%:*}" world="${example##*:}"
    started=$(date +%s)
    node "$ROOT/guest-sdk/js/tools/componentize.mjs" \
        --entry "$ROOT/examples/js/$name/src/index.js" \
        --world "$world" \
        --out "$OUT_ROOT/js/$name.wasm" \
        --build-dir "$ROOT/build/js/$name" \
        --toolchain "$JS_TOOLCHAIN" \
        --copycat-home "$ROOT" ||
        die "building examples/js/$name failed"
    built "$OUT_ROOT/js/$name.wasm" "$started"
done
