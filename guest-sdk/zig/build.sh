#!/usr/bin/env bash
# Build a Zig Copycat connector into a WebAssembly component.
#
#   guest-sdk/zig/build.sh --world source|sink --out NAME.wasm [--build-dir DIR] [--optimize MODE] ROOT.zig
#
# Steps (each skipped when its output is up to date):
#   1. the toolchain: PyPI `ziglang` (pinned below) in a venv under
#      $TOOLCHAINS/zig (zig's cache too), wit-bindgen and wasm-tools
#      (cargo install, pinned in scripts/examples/lib.sh);
#   2. the bindings: `wit-bindgen c --world WORLD` of the C SDK's worlds
#      (guest-sdk/c/wit: the sink imports the errant record reporter) into
#      DIR/wit-c/WORLD/ (shared with the C SDK), then `zig translate-c` of
#      WORLD.h into DIR/wit-zig/WORLD.zig (Zig 0.17 has no @cImport);
#   3. zig build-exe -target wasm32-wasi -fno-entry -mexec-model=reactor
#      -fstrip --stack 1048576: ROOT.zig importing the module `copycat`
#      (guest-sdk/zig/copycat.zig), which imports the module `bindings` (the
#      translated header), plus the generated C glue (WORLD.c: the canonical
#      ABI lifting and lowering). A 1 MiB stack instead of Zig's 16 MiB
#      default: the module starts with 17 pages of memory instead of 257;
#   4. wasm-tools component new with the WASI preview1 reactor adapter.
#
# COPYCAT_HOME is the Copycat checkout (default: two levels above this file).
# DIR defaults to ./build; MODE to ReleaseSmall (ReleaseSafe keeps the
# safety checks; a failed check traps).
set -euo pipefail

COPYCAT_HOME="${COPYCAT_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck source=../../scripts/examples/lib.sh
source "$COPYCAT_HOME/scripts/examples/lib.sh"
SDK="$COPYCAT_HOME/guest-sdk/zig"

ZIG_VERSION=0.17.1
ZIG_HOME="$TOOLCHAINS/zig"

world="" out="" build_dir="$PWD/build" optimize=ReleaseSmall root=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --world) world="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --optimize) optimize="$2"; shift 2 ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see $0 --help)" ;;
    *) [[ -z "$root" ]] || die "one root .zig file only (import the others from it)"; root="$1"; shift ;;
    esac
done
[[ "$world" == source || "$world" == sink ]] || die "--world source|sink is required"
[[ -n "$out" ]] || die "--out FILE.wasm is required"
[[ -n "$root" && -f "$root" ]] || die "the root .zig file is missing: ${root:-(none given)}"

mkdir -p "$build_dir" "$(dirname "$out")"
build_dir="$(cd "$build_dir" && pwd)"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

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
ensure_wit_bindgen
ensure_wasm_tools
adapter="$(reactor_adapter)"

# 2. Bindings -----------------------------------------------------------------
# Exactly as guest-sdk/c/build.sh does it (same stamp, same output): the C
# SDK's worlds with wit/connector and wit/errant@0.1.0 as deps.
gen="$build_dir/wit-c/$world"
zgen="$build_dir/wit-zig/$world.zig"
C_WIT_DIR="$COPYCAT_HOME/guest-sdk/c/wit"
ERRANT_WIT_DIR="$COPYCAT_HOME/wit/errant@0.1.0"
stamp="$(cat "$C_WIT_DIR"/*.wit "$WIT_DIR"/*.wit "$ERRANT_WIT_DIR"/*.wit | sha256sum | cut -c1-16)-$(wit-bindgen --version | tr -dc '0-9.')"
if [[ "$(cat "$gen/.stamp" 2>/dev/null)" != "$stamp" ]]; then
    tmp="$(mktemp -d "$build_dir/.wit-c.XXXXXX")" && chmod 755 "$tmp"
    mkdir -p "$tmp/wit/deps/connector" "$tmp/wit/deps/errant"
    cp "$C_WIT_DIR"/*.wit "$tmp/wit/"
    cp "$WIT_DIR"/*.wit "$tmp/wit/deps/connector/"
    cp "$ERRANT_WIT_DIR"/*.wit "$tmp/wit/deps/errant/"
    wit-bindgen c "$tmp/wit" --world "$world" --out-dir "$tmp" >/dev/null 2>&1 ||
        die "wit-bindgen c failed for the world $world"
    rm -rf "$tmp/wit"
    echo "$stamp" >"$tmp/.stamp"
    mkdir -p "$build_dir/wit-c"
    rm -rf "$gen"
    mv "$tmp" "$gen"
fi
if [[ ! -f "$zgen" || "$gen/.stamp" -nt "$zgen" ]]; then
    # The first translate-c builds the translator itself (minutes); later
    # runs take a fraction of a second.
    [[ -d "$ZIG_GLOBAL_CACHE_DIR" ]] || say "zig translate-c: first run, building the translator (a few minutes)"
    mkdir -p "$(dirname "$zgen")"
    "${ZIG[@]}" translate-c "$gen/$world.h" -target wasm32-wasi -lc >"$zgen.tmp" ||
        die "zig translate-c $gen/$world.h failed"
    mv "$zgen.tmp" "$zgen"
fi

# 3 + 4. Compile and componentize (skipped when $out is newer than every input).
name="$(basename "$out" .wasm)"
work="$build_dir/zig/$name"
mkdir -p "$work" "$(dirname "$out")"
root_dir="$(cd "$(dirname "$root")" && pwd)"
if [[ -f "$out" ]]; then
    stale="$(find "$root_dir" "$SDK" -newer "$out" -name '*.zig' -print -quit)"
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
        -I "$gen" "$gen/$world.c" "$gen/${world}_component_type.o" \
        "-Mroot=$root_dir/$(basename "$root")" \
        --dep bindings \
        "-Mcopycat=$SDK/copycat.zig" \
        "-Mbindings=$zgen"
) || die "compiling $name failed"
wasm-tools component new "$work/$name.core.wasm" --adapt "wasi_snapshot_preview1=$adapter" -o "$out" ||
    die "wasm-tools component new failed for $name"
