#!/usr/bin/env bash
# Regenerate the Go bindings of the worlds the SDK implements into
# internal/bindings/: copycat:connector@0.3.0 (source, sink), its dynamic
# instance (copycat:dynamic@0.1.0), transforms (copycat:transform@0.1.0) and
# the errant record reporter (copycat:errant@0.1.0, for package sink), (committed, as Go convention wants for generated code:
# `go build` never runs generators, so a module must build as checked in).
#
#   guest-sdk/go/generate.sh           regenerate internal/bindings/
#   guest-sdk/go/generate.sh --check   fail if internal/bindings/ is stale
#
# Needs wit-bindgen 0.63.0 (scripts/examples/lib.sh: ensure_wit_bindgen) and
# gofmt. All worlds are generated with one package prefix; their shared
# import packages must come out identical and are written once, and each
# world's export glue goes to exports/wit_exports_<world>/. The imports of
# go.bytecodealliance.org/pkg/wit/{types,runtime} are rewritten to the SDK's
# own internal/wit/ (see internal/wit/README.md).
set -euo pipefail

SDK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WIT="$SDK/../../wit"
MODULE="github.com/copycat-connect/copycat/guest-sdk/go"
PREFIX="$MODULE/internal/bindings"
DEST="$SDK/internal/bindings"

check=false
[[ "${1:-}" == "--check" ]] && check=true

command -v wit-bindgen >/dev/null || { echo "error: wit-bindgen not on PATH (cargo install wit-bindgen-cli --version 0.63.0 --locked)" >&2; exit 1; }
command -v gofmt >/dev/null || { echo "error: gofmt not on PATH" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/bindings"
mkdir -p "$out"

# same FILE1 FILE2: equal but for the header comment naming the packages a
# world was generated from.
same() { cmp -s <(grep -v '^//     ' "$1") <(grep -v '^//     ' "$2"); }

# The worlds, as <wit dir>:<world>:<name of its exports package>. The
# shared import packages of all of them must come out identical (but for the
# header) and are written once, from the first world that has them.
for spec in "connector@0.3.0:source:source" "connector@0.3.0:sink:sink" \
    "dynamic@0.1.0:dynamic:dynamic" "transform@0.1.0:transform:transform" \
    "errant@0.1.0:reporting:"; do
    IFS=: read -r dir world exports <<<"$spec"
    wit-bindgen go "$WIT/$dir" --world "$world" --pkg-name "$PREFIX" --quiet --out-dir "$tmp/$world" >"$tmp/log" 2>&1 ||
        { cat "$tmp/log" >&2; echo "error: wit-bindgen go failed for world $world of wit/$dir" >&2; exit 1; }
    if grep -rq 'go.bytecodealliance.org/pkg/wit/async\|witTypes\.\(Stream\|Future\)' "$tmp/$world"; then
        echo "error: the $world bindings need wit/async or streams/futures, which internal/wit/ does not implement" >&2
        exit 1
    fi
    if [[ -n "$exports" ]]; then
        mkdir -p "$out/exports/wit_exports_$exports"
        mv "$tmp/$world/exports/wit_exports/wit_exports.go" "$out/exports/wit_exports_$exports/wit_exports.go"
    elif grep -q '//go:wasmexport' "$tmp/$world/exports/wit_exports/wit_exports.go"; then
        echo "error: world $world of wit/$dir now has exports; guest-sdk/go/generate.sh does not expect them" >&2
        exit 1
    else
        rm "$tmp/$world/exports/wit_exports/wit_exports.go"
    fi
    rmdir "$tmp/$world/exports/wit_exports"
    # Exported interfaces get no generated files without --generate-stubs;
    # their packages are the SDK's hand-written glue (exports/export_*/glue.go).
    if find "$tmp/$world/exports" -type f | grep -q .; then
        echo "error: unexpected generated files under exports/: $(find "$tmp/$world/exports" -type f)" >&2
        exit 1
    fi
    for d in "$tmp/$world"/imports/*/; do
        name="$(basename "$d")"
        if [[ -d "$out/imports/$name" ]]; then
            for f in "$d"*; do
                same "$f" "$out/imports/$name/$(basename "$f")" ||
                    { echo "error: imports/$name differs between worlds (now $world of wit/$dir)" >&2; exit 1; }
            done
        else
            mkdir -p "$out/imports"
            cp -r "$d" "$out/imports/$name"
        fi
    done
done

# The generated code's only use of package runtime is runtime.Pinner; the
# import is pointed at internal/wit/runtime, whose Pinner keeps objects
# alive without runtime.Pinner's per-object cost (see its comment). Any
# other runtime.X in generated code then fails to compile, on purpose.
find "$out" -name '*.go' -exec sed -i \
    -e "s#\"go.bytecodealliance.org/pkg/wit/types\"#\"$MODULE/internal/wit/types\"#" \
    -e "s#\"go.bytecodealliance.org/pkg/wit/runtime\"#\"$MODULE/internal/wit/runtime\"#" \
    -e "s#^\t\"runtime\"\$#\truntime \"$MODULE/internal/wit/runtime\"#" {} +
gofmt -w "$out"

if $check; then
    stale=false
    while IFS= read -r f; do
        rel="${f#"$out"/}"
        cmp -s "$f" "$DEST/$rel" || { echo "stale: internal/bindings/$rel" >&2; stale=true; }
    done < <(find "$out" -type f)
    while IFS= read -r f; do
        rel="${f#"$DEST"/}"
        [[ -e "$out/$rel" ]] || { echo "stale: internal/bindings/$rel (no longer generated)" >&2; stale=true; }
    done < <(find "$DEST" -type f \( -name wit_bindings.go -o -name wit_exports.go -o -name empty.s \))
    if $stale; then
        echo "error: the Go bindings do not match wit/; run guest-sdk/go/generate.sh" >&2
        exit 1
    fi
    exit 0
fi

# Replace the generated files, keep the hand-written glue.
if [[ -d "$DEST" ]]; then
    find "$DEST" -type f \( -name wit_bindings.go -o -name wit_exports.go -o -name empty.s \) -delete
fi
mkdir -p "$DEST"
cp -r "$out"/. "$DEST"/
echo "generated $(find "$out" -name '*.go' | wc -l) files into ${DEST#"$SDK"/}" >&2
