#!/usr/bin/env bash
# Build a Zig Copycat connector or transform into a WebAssembly component.
#
#   guest-sdk/zig/build.sh --world source|sink|transform [--dynamic] --out NAME.wasm
#                          [--build-dir DIR] [--optimize MODE] ROOT.zig
#   guest-sdk/zig/build.sh --test      # the SDK's unit tests (zig test, native)
#
# Steps (each skipped when its output is up to date):
#   1. the toolchain: PyPI `ziglang` (pinned below) in a venv under
#      $TOOLCHAINS/zig (zig's cache too), wit-bindgen and wasm-tools
#      (cargo install, pinned in scripts/examples/lib.sh);
#   2. the bindings: `wit-bindgen c` of the SDK's world (guest-sdk/zig/wit:
#      source or sink of copycat:connector@0.3.0, `--dynamic` adding the
#      copycat:dynamic@0.1.0 instance, the sink importing the errant record
#      reporter; or copycat:transform@0.1.0's transform) into
#      DIR/wit-zig/WORLD/, then `zig translate-c` of its header into
#      DIR/wit-zig/WORLD.zig (Zig 0.17 has no @cImport);
#   3. zig build-exe -target wasm32-wasi -fno-entry -mexec-model=reactor
#      -fstrip --stack 1048576: ROOT.zig importing the module `copycat`
#      (guest-sdk/zig/copycat.zig), which imports the module `bindings` (the
#      translated header), plus the generated C glue (WORLD.c: the canonical
#      ABI lifting and lowering) and src/post_return.c (the SDK keeps a
#      poll's or apply's batch buffers for the next call instead of letting
#      the glue free them). A 1 MiB stack instead of Zig's 16 MiB default:
#      the module starts with 17 pages of memory instead of 257;
#   4. wasm-tools component new with the WASI preview1 reactor adapter.
#
# COPYCAT_HOME is the Copycat checkout (default: two levels above this file).
# DIR defaults to ./build; MODE to ReleaseFast (docs/authoring/zig.md says
# why: ReleaseSmall is smaller and slower; ReleaseSafe keeps the safety
# checks, a failed one traps).
set -euo pipefail

COPYCAT_HOME="${COPYCAT_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck source=../../scripts/examples/lib.sh
source "$COPYCAT_HOME/scripts/examples/lib.sh"
SDK="$COPYCAT_HOME/guest-sdk/zig"

ZIG_VERSION=0.17.1
ZIG_HOME="$TOOLCHAINS/zig"

world="" dynamic=0 out="" build_dir="$PWD/build" optimize=ReleaseFast root="" run_tests=0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --world) world="$2"; shift 2 ;;
    --dynamic) dynamic=1; shift ;;
    --test) run_tests=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --optimize) optimize="$2"; shift 2 ;;
    -h | --help) sed -n '2,31p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see $0 --help)" ;;
    *) [[ -z "$root" ]] || die "one root .zig file only (import the others from it)"; root="$1"; shift ;;
    esac
done
if [[ $run_tests == 0 ]]; then
    [[ "$world" == source || "$world" == sink || "$world" == transform ]] || die "--world source|sink|transform is required"
    [[ $dynamic == 0 || "$world" != transform ]] || die "--dynamic is for sources and sinks"
    [[ -n "$out" ]] || die "--out FILE.wasm is required"
    [[ -n "$root" && -f "$root" ]] || die "the root .zig file is missing: ${root:-(none given)}"
    mkdir -p "$build_dir" "$(dirname "$out")"
    build_dir="$(cd "$build_dir" && pwd)"
    out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
fi

# 1. Toolchain ----------------------------------------------------------------
ZIG=("$ZIG_HOME/venv/bin/python" -m ziglang)
export ZIG_GLOBAL_CACHE_DIR="$ZIG_HOME/cache"
ensure_zig() {
    if [[ -x "$ZIG_HOME/venv/bin/python" ]] && [[ "$("${ZIG[@]}" version 2>/dev/null)" == "$ZIG_VERSION" ]]; then
        return
    fi
    command -v python3 >/dev/null || die "python3 is needed to install Zig from PyPI (apt-get install python3-venv)"
    say "installing ziglang $ZIG_VERSION (PyPI) into $ZIG_HOME/venv"
    rm -rf "$ZIG_HOME/venv"
    mkdir -p "$ZIG_HOME"
    python3 -m venv "$ZIG_HOME/venv" >&2 || die "python3 -m venv failed (apt-get install python3-venv)"
    "$ZIG_HOME/venv/bin/pip" install --quiet --disable-pip-version-check "ziglang==$ZIG_VERSION" >&2 ||
        die "pip install ziglang==$ZIG_VERSION failed"
    [[ "$("${ZIG[@]}" version)" == "$ZIG_VERSION" ]] || die "zig $ZIG_VERSION did not install"
}
ensure_zig
if [[ $run_tests == 1 ]]; then
    # The encoder, the decoder and the batch builders, natively.
    "${ZIG[@]}" test "$SDK/src/tests.zig"
    exit
fi
ensure_wit_bindgen
ensure_wasm_tools
adapter="$(reactor_adapter)"

# 2. Bindings -----------------------------------------------------------------
# The SDK's worlds (guest-sdk/zig/wit/) with the packages they include
# (wit/connector@0.3.0, wit/dynamic@0.1.0, wit/errant@0.1.0,
# wit/transform@0.1.0) as deps, in one WIT directory.
wit_world="$world"
[[ $dynamic == 1 ]] && wit_world="$world-dynamic"
cname="${wit_world//-/_}"
gen="$build_dir/wit-zig/$wit_world"
zgen="$build_dir/wit-zig/$wit_world.zig"
WIT_PACKAGES=(connector@0.3.0 dynamic@0.1.0 errant@0.1.0 transform@0.1.0)
stamp="$(for p in "${WIT_PACKAGES[@]}"; do cat "$COPYCAT_HOME/wit/$p"/*.wit; done | cat "$SDK"/wit/*.wit - | sha256sum | cut -c1-16)-$(wit-bindgen --version | tr -dc '0-9.')"
if [[ "$(cat "$gen/.stamp" 2>/dev/null)" != "$stamp" ]]; then
    mkdir -p "$build_dir/wit-zig"
    tmp="$(mktemp -d "$build_dir/wit-zig/.gen.XXXXXX")" && chmod 755 "$tmp"
    mkdir -p "$tmp/wit/deps"
    cp "$SDK"/wit/*.wit "$tmp/wit/"
    for p in "${WIT_PACKAGES[@]}"; do
        mkdir -p "$tmp/wit/deps/$p"
        cp "$COPYCAT_HOME/wit/$p"/*.wit "$tmp/wit/deps/$p/"
    done
    wit-bindgen c "$tmp/wit" --world "$wit_world" --out-dir "$tmp" >/dev/null 2>&1 ||
        die "wit-bindgen c failed for the world $wit_world"
    rm -rf "$tmp/wit"
    echo "$stamp" >"$tmp/.stamp"
    rm -rf "$gen"
    mv "$tmp" "$gen"
fi
if [[ ! -f "$zgen" || "$gen/.stamp" -nt "$zgen" ]]; then
    # The first translate-c builds the translator itself (minutes); later
    # runs take a fraction of a second.
    [[ -d "$ZIG_GLOBAL_CACHE_DIR" ]] || say "zig translate-c: first run, building the translator (a few minutes)"
    "${ZIG[@]}" translate-c "$gen/$cname.h" -target wasm32-wasi -lc >"$zgen.tmp" ||
        die "zig translate-c $gen/$cname.h failed"
    mv "$zgen.tmp" "$zgen"
fi

# 3 + 4. Compile and componentize (skipped when $out is newer than every input).
name="$(basename "$out" .wasm)"
work="$build_dir/zig/$name"
mkdir -p "$work" "$(dirname "$out")"
root_dir="$(cd "$(dirname "$root")" && pwd)"
flags="$wit_world $optimize"
if [[ -f "$out" && "$(cat "$work/.flags" 2>/dev/null)" == "$flags" ]]; then
    stale="$(find "$root_dir" "$SDK" -newer "$out" \( -name '*.zig' -o -name '*.c' \) -print -quit)"
    if [[ -z "$stale" && ! "$zgen" -nt "$out" && ! "${BASH_SOURCE[0]}" -nt "$out" ]]; then
        say "up to date: $out"
        exit 0
    fi
fi

# Module flags (--dep, -I, C files) apply to the -M that follows them.
(
    cd "$work"
    "${ZIG[@]}" build-exe -target wasm32-wasi -O "$optimize" -fno-entry -mexec-model=reactor -lc --stack 1048576 -fstrip \
        -femit-bin="$work/$name.core.wasm" \
        --dep copycat \
        -I "$gen" "-DCOPYCAT_ZIG_${world^^}" "$gen/$cname.c" "$SDK/src/post_return.c" "$gen/${cname}_component_type.o" \
        "-Mroot=$root_dir/$(basename "$root")" \
        --dep bindings \
        "-Mcopycat=$SDK/copycat.zig" \
        "-Mbindings=$zgen"
) || die "compiling $name failed"
wasm-tools component new "$work/$name.core.wasm" --adapt "wasi_snapshot_preview1=$adapter" -o "$out" ||
    die "wasm-tools component new failed for $name"
echo "$flags" >"$work/.flags"
