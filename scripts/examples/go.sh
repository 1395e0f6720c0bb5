#!/usr/bin/env bash
# Build the Go example connectors (examples/go/{counter-source,file-sink,
# uppercase-transform}) into build/examples/go/, after running the SDK's and
# the examples' unit tests natively (go test). Uses the system Go (>= 1.25,
# no TinyGo) and wasm-tools; Go's build cache lives under $TOOLCHAINS/go.
# The SDK (guest-sdk/go) has no dependencies outside Go's standard library,
# so nothing is downloaded from the Go module proxy. Its generated bindings
# are committed (guest-sdk/go/internal/bindings); when wit-bindgen is
# installed they are checked against wit/ first.
#
#   scripts/examples/go.sh            test, then build
#   COPYCAT_GO_TEST=0 scripts/examples/go.sh   build only
source "$(dirname "$0")/lib.sh"

SDK="$ROOT/guest-sdk/go"
OUT="$OUT_ROOT/go"
mkdir -p "$OUT"

if command -v wit-bindgen >/dev/null 2>&1 && wit-bindgen --version 2>/dev/null | grep -q "$WIT_BINDGEN_VERSION"; then
    "$SDK/generate.sh" --check || die "guest-sdk/go/internal/bindings is stale: run guest-sdk/go/generate.sh"
else
    say "go: wit-bindgen $WIT_BINDGEN_VERSION not installed; not checking guest-sdk/go/internal/bindings against the WIT"
fi

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
fi
export GOCACHE="$TOOLCHAINS/go/cache" GOMODCACHE="$TOOLCHAINS/go/mod" GOTOOLCHAIN=local

if [[ "${COPYCAT_GO_TEST:-1}" != 0 ]]; then
    say "go: go test (guest-sdk/go and examples/go, natively)"
    (cd "$SDK" && go test ./...) || die "go test failed in guest-sdk/go"
    for name in counter-source file-sink uppercase-transform; do
        (cd "$ROOT/examples/go/$name" && go test ./...) || die "go test failed in examples/go/$name"
    done
fi

# up_to_date OUT DIR...: OUT exists and no file under DIR... is newer.
up_to_date() {
    local out="$1"
    shift
    [[ -f "$out" ]] || return 1
    [[ -z "$(find "$@" -type f -newer "$out" -print -quit)" ]]
}

for spec in counter-source:source file-sink:sink uppercase-transform:transform; do
    name="${spec%%:*}" world="${spec#*:}"
    out="$OUT/$name.wasm"
    if up_to_date "$out" "$ROOT/examples/go/$name" "$SDK" "$ROOT/wit"; then
        say "go: $name is up to date (${out#"$ROOT"/})"
        continue
    fi
    started=$(date +%s)
    "$SDK/componentize.sh" "$world" "$ROOT/examples/go/$name" "$out"
    built "$out" "$started"
done
