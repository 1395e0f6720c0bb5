#!/usr/bin/env bash
# Build a C Copycat connector or transform into a WebAssembly component.
#
#   guest-sdk/c/build.sh --world WORLD --out NAME.wasm [--build-dir DIR] [--cflags "..."] FILE.c...
#
# WORLD: source, sink (copycat:connector@0.3.0; the sink with the errant
# record reporter), source-dynamic, sink-dynamic (the same plus the running
# instance of copycat:dynamic@0.1.0: define copycat_dynamic), or transform
# (copycat:transform@0.1.0). See guest-sdk/c/wit/copycat-c.wit.
#
# Steps (each skipped when its output is up to date):
#   1. the toolchain: Debian clang-22, lld-22, libclang-rt-22-dev-wasm32 and
#      wasi-libc (apt-get install when missing: root, or sudo without a
#      password), wit-bindgen and wasm-tools (cargo install, pinned in
#      scripts/examples/lib.sh);
#   2. the bindings: `wit-bindgen c --world WORLD` of the SDK's worlds
#      (guest-sdk/c/wit) over $COPYCAT_HOME/wit/{connector@0.3.0,
#      errant@0.1.0,dynamic@0.1.0,transform@0.1.0}, into
#      DIR/wit-c-0.3/WORLD/ (generated once per WIT change);
#   3. clang-22 --target=wasm32-wasi -mexec-model=reactor: your files, the
#      SDK (guest-sdk/c/src: copycat.c, batch.c, view.c and the world's glue,
#      source.c, sink.c or transform.c) and the bindings into a core module
#      DIR/c/NAME.core.wasm;
#   4. wasm-tools component new with the WASI preview1 reactor adapter.
#
# COPYCAT_HOME is the Copycat checkout (default: two levels above this file).
# DIR defaults to ./build. CFLAGS defaults to -O2 (the SDK's per-record path
# inlines into your code; -Oz is about a third smaller and slower).
#
# The SDK's unit tests run natively: guest-sdk/c/test/run.sh.
set -euo pipefail

COPYCAT_HOME="${COPYCAT_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck source=../../scripts/examples/lib.sh
source "$COPYCAT_HOME/scripts/examples/lib.sh"
SDK="$COPYCAT_HOME/guest-sdk/c"

world="" out="" build_dir="$PWD/build" cflags="${CFLAGS:--O2}"
sources=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --world) world="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --cflags) cflags="$2"; shift 2 ;;
    -h | --help) sed -n '2,33p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see $0 --help)" ;;
    *) sources+=("$1"); shift ;;
    esac
done
case "$world" in
source | sink | transform) glue="$world" defines=() ;;
source-dynamic | sink-dynamic) glue="${world%-dynamic}" defines=(-DCC_DYNAMIC) ;;
*) die "--world source|sink|source-dynamic|sink-dynamic|transform is required" ;;
esac
[[ -n "$out" ]] || die "--out FILE.wasm is required"
[[ ${#sources[@]} -gt 0 ]] || die "no C source files given"
for f in "${sources[@]}"; do [[ -f "$f" ]] || die "no such file: $f"; done

APT_PACKAGES=(clang-22 lld-22 libclang-rt-22-dev-wasm32 wasi-libc)
CC=clang-22

mkdir -p "$build_dir" "$(dirname "$out")"
build_dir="$(cd "$build_dir" && pwd)"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

# 1. Toolchain ----------------------------------------------------------------
c_toolchain_present() {
    command -v "$CC" >/dev/null 2>&1 && command -v wasm-ld-22 >/dev/null 2>&1 &&
        [[ -f /usr/lib/wasm32-wasi/libc.a ]] &&
        ls /usr/lib/llvm-22/lib/clang/22/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1
}

ensure_c_toolchain() {
    c_toolchain_present && return
    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        sudo -n true 2>/dev/null || die "the C toolchain is missing; install it with:
    sudo apt-get update && sudo apt-get install -y ${APT_PACKAGES[*]}"
        sudo=(sudo -n)
    fi
    say "installing ${APT_PACKAGES[*]} (apt)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-cache show clang-22 >/dev/null 2>&1; then
        "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || die "apt-get update failed"
    fi
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${APT_PACKAGES[@]}" >&2 ||
        die "apt-get install ${APT_PACKAGES[*]} failed (clang-22 comes from Debian bookworm-security / trixie)"
    c_toolchain_present || die "the C toolchain is still incomplete after apt-get install"
}

ensure_c_toolchain
ensure_wit_bindgen
ensure_wasm_tools
adapter="$(reactor_adapter)"

# 2. Bindings -----------------------------------------------------------------
# Regenerated when the WIT files or the wit-bindgen version change. The WIT:
# the SDK's worlds (package copycat:c) with Copycat's packages as deps.
gen="$build_dir/wit-c-0.3/$world"
deps=(connector@0.3.0 errant@0.1.0 dynamic@0.1.0 transform@0.1.0)
stamp="$( (cat "$SDK/wit"/*.wit; for d in "${deps[@]}"; do cat "$COPYCAT_HOME/wit/$d"/*.wit; done) | sha256sum | cut -c1-16)-$(wit-bindgen --version | tr -dc '0-9.')"
if [[ "$(cat "$gen/.stamp" 2>/dev/null)" != "$stamp" ]]; then
    # Generated aside and moved into place: a parallel build may read it.
    mkdir -p "$build_dir/wit-c-0.3"
    tmp="$(mktemp -d "$build_dir/wit-c-0.3/.gen.XXXXXX")" && chmod 755 "$tmp"
    mkdir -p "$tmp/wit/deps"
    cp "$SDK/wit"/*.wit "$tmp/wit/"
    for d in "${deps[@]}"; do
        mkdir -p "$tmp/wit/deps/${d%@*}"
        cp "$COPYCAT_HOME/wit/$d"/*.wit "$tmp/wit/deps/${d%@*}/"
    done
    wit-bindgen c "$tmp/wit" --world "$world" --out-dir "$tmp" >/dev/null 2>&1 ||
        die "wit-bindgen c failed for the world $world"
    rm -rf "$tmp/wit"
    echo "$stamp" >"$tmp/.stamp"
    rm -rf "$gen"
    mv "$tmp" "$gen"
fi
cname="${world//-/_}"

# 3 + 4. Compile and componentize (skipped when $out is newer than every input).
name="$(basename "$out" .wasm)"
core="$build_dir/c/$name.core.wasm"
mkdir -p "$build_dir/c" "$(dirname "$out")"
inputs=("${sources[@]}" "$SDK/include/copycat.h" "$SDK/src/"* "$gen/.stamp" "${BASH_SOURCE[0]}")
# (cflags count too: a changed --cflags rebuilds)
flags_stamp="$build_dir/c/$(basename "$out" .wasm).flags"
if [[ -f "$out" ]]; then
    fresh=1
    for f in "${inputs[@]}"; do [[ "$f" -nt "$out" ]] && fresh=0 && break; done
    [[ "$(cat "$flags_stamp" 2>/dev/null)" == "$cflags ${defines[*]}" ]] || fresh=0
    # Headers next to the sources count too.
    for d in $(dirname "${sources[@]}" | sort -u); do
        for h in "$d"/*.h; do [[ -e "$h" && "$h" -nt "$out" ]] && fresh=0; done
    done
    if [[ $fresh == 1 ]]; then
        say "up to date: $out"
        exit 0
    fi
fi

# shellcheck disable=SC2086 # cflags is a list of flags
"$CC" --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor $cflags "${defines[@]}" \
    -Wall -Wextra -Wno-deprecated -Wno-unused-parameter -Wno-missing-field-initializers \
    -I "$SDK/include" -I "$SDK/src" -I "$gen" \
    -Wl,--strip-all \
    -o "$core" \
    "${sources[@]}" "$SDK/src/copycat.c" "$SDK/src/batch.c" "$SDK/src/view.c" "$SDK/src/$glue.c" \
    "$gen/$cname.c" "$gen/${cname}_component_type.o" ||
    die "compiling $name failed"
echo "$cflags ${defines[*]}" >"$flags_stamp"
wasm-tools component new "$core" --adapt "wasi_snapshot_preview1=$adapter" -o "$out" ||
    die "wasm-tools component new failed for $name"
