#!/usr/bin/env bash
# Build the JavaScript examples (examples/js/) into
# build/examples/js/{counter-source,counter-source-v2,file-sink,uppercase-transform}.wasm,
# after running the SDK's and the examples' unit tests (`node --test`).
#
#   scripts/examples/js.sh          test, then build all four
#   scripts/examples/js.sh test     only the unit tests and the type check
#
# counter-source and file-sink are connectors of `copycat:connector@0.3.0`
# (counter-source is dynamic: it exports `copycat:dynamic/instance`),
# uppercase-transform a transform of `copycat:transform@0.1.0`.
# counter-source-v2.wasm is counter-source built from a staged copy of its
# source (build/js/counter-source-v2/) in which only the version in
# `describe` is changed, 0.1.0 -> 0.2.0: the hot-swap test (tests/all/swap.rs)
# replaces one with the other under exactly-once.
#
# Toolchain: componentize-js 0.23.0 (StarlingMonkey) and Rolldown, pinned in
# guest-sdk/js/toolchain/package-lock.json and installed with `npm ci` into
# $TOOLCHAINS/js on first use (needs Node.js ^20.19 or >= 22.12 and npm).
# A rerun with nothing changed only re-bundles (about a second) and skips
# componentize-js. Intermediate files (bundle, assembled WIT) go to build/js/.
source "$(dirname "$0")/lib.sh"

source "$ROOT/guest-sdk/js/tools/toolchain.sh"

# The SDK's tests and each example's, under Node.js with the SDK's
# in-memory host (guest-sdk/js/testing); then the SDK's TypeScript
# definitions (guest-sdk/js/types/) against a typed use of the whole SDK
# (guest-sdk/js/test/types/usage.ts), with the toolchain's tsc.
run_tests() {
    ensure_js_toolchain
    local register="$ROOT/guest-sdk/js/testing/register.mjs" dir
    for dir in "$ROOT/guest-sdk/js" "$ROOT"/examples/js/*/; do
        dir="${dir%/}"
        say "node --test ${dir#"$ROOT"/}"
        (cd "$dir" && node --import "$register" --test --test-reporter=dot) >&2 ||
            die "unit tests failed in ${dir#"$ROOT"/}"
    done
    say "tsc --noEmit -p guest-sdk/js/test/types"
    node "$JS_TOOLCHAIN/node_modules/typescript/bin/tsc" -p "$ROOT/guest-sdk/js/test/types" >&2 ||
        die "the TypeScript definitions in guest-sdk/js/types/ do not check"
}

build() {
    local name="$1" entry="$2" world="$3" build_dir="$4"
    local started
    started=$(date +%s)
    node "$ROOT/guest-sdk/js/tools/componentize.mjs" \
        --entry "$entry" \
        --world "$world" \
        --out "$OUT_ROOT/js/$name.wasm" \
        --build-dir "$build_dir" \
        --toolchain "$JS_TOOLCHAIN" \
        --copycat-home "$ROOT" ||
        die "building $name failed"
    built "$OUT_ROOT/js/$name.wasm" "$started"
}

run_tests
[[ "${1:-}" == test ]] && exit 0

mkdir -p "$OUT_ROOT/js"
for example in counter-source:source file-sink:sink uppercase-transform:transform; do
    name="${example%%:*}" world="${example##*:}"
    build "$name" "$ROOT/examples/js/$name/src/index.js" "$world" "$ROOT/build/js/$name"
done

# counter-source-v2: the same source describing version 0.2.0.
stage="$ROOT/build/js/counter-source-v2/src"
mkdir -p "$stage"
src="$ROOT/examples/js/counter-source/src/index.js"
# Other modules of src/ (none today) are staged as they are.
find "$ROOT/examples/js/counter-source/src" -mindepth 1 -maxdepth 1 ! -name index.js -exec cp -R {} "$stage/" \;
grep -q "^  version: '0.1.0',$" "$src" || die "examples/js/counter-source/src/index.js: no \"  version: '0.1.0',\" line to change for counter-source-v2"
sed "s/^  version: '0.1.0',$/  version: '0.2.0',/" "$src" >"$stage/index.js.new"
# Rewrite only on change, so that an unchanged rebuild stays up to date.
if cmp -s "$stage/index.js.new" "$stage/index.js"; then rm "$stage/index.js.new"; else mv "$stage/index.js.new" "$stage/index.js"; fi
build counter-source-v2 "$stage/index.js" source "$ROOT/build/js/counter-source-v2/build"
