# Install the JavaScript component toolchain (sourced, not run).
#
# Defines `ensure_js_toolchain`: installs the npm packages pinned in
# guest-sdk/js/toolchain/package-lock.json (componentize-js, Rolldown and their
# dependencies, about 390 MB) into $JS_TOOLCHAIN with `npm ci`, from the npm
# registry only. Idempotent: a stamp holding the lockfile's hash makes a rerun
# a no-op. Needs Node.js ^20.19 or >= 22.12 and npm on PATH.

JS_SDK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JS_TOOLCHAIN="${COPYCAT_TOOLCHAINS:-$HOME/.cache/copycat/toolchains}/js"

js_fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

ensure_node() {
    command -v node >/dev/null 2>&1 ||
        js_fail "Node.js is not installed; JavaScript connectors need Node.js ^20.19 or >= 22.12 and npm (Debian: apt-get install nodejs npm)"
    command -v npm >/dev/null 2>&1 || js_fail "npm is not installed (Debian: apt-get install npm)"
    node -e '
        const [major, minor] = process.versions.node.split(".").map(Number);
        process.exit((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22 ? 0 : 1);
    ' || js_fail "Node.js $(node --version) is too old or unsupported: Rolldown needs ^20.19 or >= 22.12"
}

ensure_js_toolchain() {
    ensure_node
    local src="$JS_SDK_DIR/toolchain" want have
    want="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
    have="$(cat "$JS_TOOLCHAIN/.copycat-stamp" 2>/dev/null || true)"
    if [[ "$want" == "$have" && -f "$JS_TOOLCHAIN/node_modules/@bytecodealliance/componentize-js/package.json" ]]; then
        return
    fi
    mkdir -p "$JS_TOOLCHAIN"
    (
        # One installer at a time (two builds may start together).
        if command -v flock >/dev/null 2>&1; then flock 9; fi
        have="$(cat "$JS_TOOLCHAIN/.copycat-stamp" 2>/dev/null || true)"
        if [[ "$want" == "$have" && -f "$JS_TOOLCHAIN/node_modules/@bytecodealliance/componentize-js/package.json" ]]; then
            exit 0
        fi
        printf 'installing the JavaScript toolchain (componentize-js, rolldown; npm ci, ~390 MB) into %s\n' "$JS_TOOLCHAIN" >&2
        rm -f "$JS_TOOLCHAIN/.copycat-stamp"
        cp "$src/package.json" "$src/package-lock.json" "$JS_TOOLCHAIN/"
        # No package needs an install script; --ignore-scripts keeps it that way.
        (cd "$JS_TOOLCHAIN" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2) ||
            js_fail "npm ci failed in $JS_TOOLCHAIN (is the npm registry reachable?)"
        printf '%s\n' "$want" >"$JS_TOOLCHAIN/.copycat-stamp"
    ) 9>"$JS_TOOLCHAIN/.install.lock"
}
