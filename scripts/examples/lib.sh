# Shared helpers for scripts/examples/<lang>.sh (sourced, not run).
#
# Every language script installs its own toolchain idempotently under
# $TOOLCHAINS/<lang> (from the package registries only) and builds the
# examples of examples/SPEC.md (each script lists its outputs) into build/examples/<lang>/.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLCHAINS="${COPYCAT_TOOLCHAINS:-$HOME/.cache/copycat/toolchains}"
OUT_ROOT="$ROOT/build/examples"
WIT_DIR="$ROOT/wit/connector"

WIT_BINDGEN_VERSION=0.63.0
WASM_TOOLS_VERSION=1.263.0
ADAPTER_PROVIDER_VERSION=48.0.1

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# `cargo install` a pinned tool unless that version is already on PATH.
ensure_cargo_tool() {
    local crate="$1" bin="$2" version="$3"
    if command -v "$bin" >/dev/null 2>&1 && "$bin" --version 2>/dev/null | grep -q "$version"; then
        return
    fi
    say "installing $crate $version (cargo install, a few minutes the first time)"
    cargo install "$crate" --version "$version" --locked --quiet >&2
}

ensure_wit_bindgen() { ensure_cargo_tool wit-bindgen-cli wit-bindgen "$WIT_BINDGEN_VERSION"; }
ensure_wasm_tools() { ensure_cargo_tool wasm-tools wasm-tools "$WASM_TOOLS_VERSION"; }

# Path of the WASI preview1 -> preview2 *reactor* adapter (from the crate
# wasi-preview1-component-adapter-provider, fetched into cargo's registry).
reactor_adapter() {
    local f
    f="$(ls -d "$HOME"/.cargo/registry/src/*/wasi-preview1-component-adapter-provider-"$ADAPTER_PROVIDER_VERSION" 2>/dev/null | head -1)"
    if [[ -z "$f" ]]; then
        say "fetching wasi-preview1-component-adapter-provider $ADAPTER_PROVIDER_VERSION"
        local tmp
        tmp="$(mktemp -d)"
        (
            cd "$tmp"
            cargo init --quiet --name adapter-fetch >&2
            cargo add --quiet "wasi-preview1-component-adapter-provider@=$ADAPTER_PROVIDER_VERSION" >&2
            cargo fetch --quiet >&2
        )
        rm -rf "$tmp"
        f="$(ls -d "$HOME"/.cargo/registry/src/*/wasi-preview1-component-adapter-provider-"$ADAPTER_PROVIDER_VERSION" | head -1)"
    fi
    [[ -f "$f/artefacts/wasi_snapshot_preview1.reactor.wasm" ]] || die "reactor adapter not found under $f"
    printf '%s\n' "$f/artefacts/wasi_snapshot_preview1.reactor.wasm"
}

# Print one line about a built component.
built() {
    local file="$1" started="$2"
    local size
    size=$(stat -c %s "$file")
    say "built ${file#"$ROOT"/} ($((size / 1024)) KiB) in $(( $(date +%s) - started )) s"
}
