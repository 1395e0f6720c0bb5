#!/usr/bin/env bash
# Regenerate the Go bindings of the copycat:connector WIT, and of the
# errant record reporter (copycat:errant@0.1.0, for package sink), into
# internal/bindings/ (committed, as Go convention wants for generated code:
# `go build` never runs generators, so a module must build as checked in).
#
#   guest-sdk/go/generate.sh           regenerate internal/bindings/
#   guest-sdk/go/generate.sh --check   fail if internal/bindings/ is stale
#
# Needs wit-bindgen 0.63.0 (scripts/examples/lib.sh: ensure_wit_bindgen) and
# gofmt. Both worlds are generated with one package prefix; their shared
# import packages must come out identical and are written once, and each
# world's export glue goes to exports/wit_exports_<world>/. The imports of
# go.bytecodealliance.org/pkg/wit/{types,runtime} are rewritten to the SDK's
# own internal/wit/ (see internal/wit/README.md).
set -euo pipefail

SDK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WIT="${WIT_DIR:-$SDK/../../wit/connector}"
ERRANT_WIT="$SDK/../../wit/errant@0.1.0"
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

for world in source sink; do
    wit-bindgen go "$WIT" --world "$world" --pkg-name "$PREFIX" --quiet --out-dir "$tmp/$world" >"$tmp/log" 2>&1 ||
        { cat "$tmp/log" >&2; echo "error: wit-bindgen go failed for world $world" >&2; exit 1; }
    if grep -rq 'go.bytecodealliance.org/pkg/wit/async\|witTypes\.\(Stream\|Future\)' "$tmp/$world"; then
        echo "error: the $world bindings need wit/async or streams/futures, which internal/wit/ does not implement" >&2
        exit 1
    fi
    mkdir -p "$out/exports/wit_exports_$world"
    mv "$tmp/$world/exports/wit_exports/wit_exports.go" "$out/exports/wit_exports_$world/wit_exports.go"
    rmdir "$tmp/$world/exports/wit_exports"
    for dir in "$tmp/$world"/imports/*/; do
        name="$(basename "$dir")"
        if [[ -d "$out/imports/$name" ]]; then
            diff -r "$out/imports/$name" "$dir" >/dev/null ||
                { echo "error: imports/$name differs between the source and sink worlds" >&2; exit 1; }
        else
            mkdir -p "$out/imports"
            cp -r "$dir" "$out/imports/$name"
        fi
    done
    # Exported interfaces get no generated files without --generate-stubs;
    # their packages are the SDK's hand-written glue (exports/export_*/glue.go).
    if find "$tmp/$world/exports" -type f | grep -q .; then
        echo "error: unexpected generated files under exports/: $(find "$tmp/$world/exports" -type f)" >&2
        exit 1
    fi
done

# The errant record reporter (wit/errant@0.1.0, world `reporting`: imports
# only), which componentize.sh embeds beside the sink world. Its generated
# exports file declares nothing and is dropped.
wit-bindgen go "$ERRANT_WIT" --world reporting --pkg-name "$PREFIX" --quiet --out-dir "$tmp/errant" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log" >&2; echo "error: wit-bindgen go failed for $ERRANT_WIT" >&2; exit 1; }
if grep -q '//go:wasmexport' "$tmp/errant/exports/wit_exports/wit_exports.go"; then
    echo "error: the errant world now has exports; guest-sdk/go/generate.sh does not expect them" >&2
    exit 1
fi
for dir in "$tmp/errant"/imports/*/; do
    name="$(basename "$dir")"
    [[ "$name" == copycat_errant_* ]] || { echo "error: unexpected import package $name from $ERRANT_WIT" >&2; exit 1; }
    mkdir -p "$out/imports"
    cp -r "$dir" "$out/imports/$name"
done

find "$out" -name '*.go' -exec sed -i \
    -e "s#\"go.bytecodealliance.org/pkg/wit/types\"#\"$MODULE/internal/wit/types\"#" \
    -e "s#\"go.bytecodealliance.org/pkg/wit/runtime\"#\"$MODULE/internal/wit/runtime\"#" {} +
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
        echo "error: the Go bindings do not match wit/connector and wit/errant@0.1.0; run guest-sdk/go/generate.sh" >&2
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
