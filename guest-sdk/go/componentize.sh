#!/usr/bin/env bash
# Build a Go connector package into a Copycat component.
#
#   guest-sdk/go/componentize.sh <source|sink|transform> <package-dir> <out.wasm>
#
# The package is a Go main package that registers itself with source.Export,
# sink.Export or transform.Export. Steps (what
# bytecodealliance/componentize-go does for a synchronous world):
#   1. GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared: a WASI preview1
#      reactor core module whose //go:wasmexport functions are the WIT exports;
#   2. wasm-tools component embed: attach the world's WIT
#      (wit/connector@0.3.0 for source and sink, wit/transform@0.1.0); for a
#      sink also the errant record reporter's (wit/errant@0.1.0, world
#      reporting), which the component imports only if it calls
#      sink.ReportErrant (a source must never import it: the host refuses
#      it); for a source or sink whose module exports
#      copycat:dynamic/instance (it imports package dynamic) also
#      wit/dynamic@0.1.0 (world dynamic);
#   3. wasm-tools component new --adapt: wrap it into a component, with the
#      WASI preview1 -> 0.2 reactor adapter.
# Intermediate files go to <out>.d/ beside the output. Go's build cache lives
# under $TOOLCHAINS/go (see scripts/examples/lib.sh), not in the repository.
set -euo pipefail

SDK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../scripts/examples/lib.sh
source "$SDK/../../scripts/examples/lib.sh"

[[ $# -eq 3 ]] || die "usage: $0 <source|sink|transform> <package-dir> <out.wasm>"
world="$1" pkg="$2" out="$3"
case "$world" in
    source | sink) world_wit="$ROOT/wit/connector@0.3.0" ;;
    transform) world_wit="$ROOT/wit/transform@0.1.0" ;;
    *) die "world must be source, sink or transform, not '$world'" ;;
esac
[[ -f "$pkg/go.mod" || -f "$pkg/main.go" ]] || die "$pkg: not a Go package directory"

go_env() {
    export GOCACHE="$TOOLCHAINS/go/cache" GOMODCACHE="$TOOLCHAINS/go/mod"
    # Never switch to a downloaded toolchain behind the user's back.
    export GOTOOLCHAIN=local
}

# ensure_go: a Go >= 1.24 (//go:wasmexport) on PATH or at /usr/local/go.
ensure_go() {
    if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
        export PATH="/usr/local/go/bin:$PATH"
    fi
    command -v go >/dev/null 2>&1 || die "Go not found: install Go >= 1.25 (https://go.dev/dl) and put it on PATH"
    local v
    v="$(go env GOVERSION)"
    [[ "$v" =~ ^go1\.([0-9]+) ]] || die "cannot read the Go version ($v)"
    (( BASH_REMATCH[1] >= 25 )) || die "Go $v is too old: the SDK needs Go >= 1.25 (//go:wasmexport, wasip1 c-shared)"
}

ensure_go
go_env
ensure_wasm_tools
adapter="$(reactor_adapter)"

ERRANT_WIT_DIR="$ROOT/wit/errant@0.1.0"
DYNAMIC_WIT_DIR="$ROOT/wit/dynamic@0.1.0"

mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
work="${COPYCAT_BUILD_DIR:-$out.d}"
mkdir -p "$work"

# -s -w: no symbol table or DWARF (Go's own pclntab still names the frames
# of a panic's stack trace). -checklinkname=0: the SDK's cabi_realloc uses
# runtime.sbrk before Go's heap is initialized.
(cd "$pkg" && GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false \
    -ldflags='-checklinkname=0 -s -w' -o "$work/core.wasm" .) ||
    die "go build of $pkg failed"
wasm-tools component embed "$world_wit" --world "$world" "$work/core.wasm" -o "$work/embed.wasm" ||
    die "wasm-tools component embed failed"
# embed_more DIR WORLD: a further component-type section, merged by
# `component new`.
embed_more() {
    wasm-tools component embed "$1" --world "$2" "$work/embed.wasm" -o "$work/embed.wasm.tmp" ||
        die "wasm-tools component embed of $1 failed"
    mv "$work/embed.wasm.tmp" "$work/embed.wasm"
}
if [[ "$world" == sink ]]; then
    # The errant record reporter, imported only if the module calls it
    # (sink.ReportErrant).
    embed_more "$ERRANT_WIT_DIR" reporting
fi
if [[ "$world" != transform ]] &&
    wasm-tools print "$work/core.wasm" | grep -F '(export "copycat:dynamic/instance@0.1.0#start"' >/dev/null; then
    # The package imports guest-sdk/go/dynamic: a dynamic connector.
    embed_more "$DYNAMIC_WIT_DIR" dynamic
fi
wasm-tools component new "$work/embed.wasm" --adapt "wasi_snapshot_preview1=$adapter" -o "$out.tmp" ||
    die "wasm-tools component new failed: a missing export means $pkg does not register with package $world (${world}.Export)"
wasm-tools validate "$out.tmp" || die "the component does not validate"
mv "$out.tmp" "$out"
