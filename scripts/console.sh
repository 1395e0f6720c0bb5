#!/usr/bin/env bash
# The web console's front end (runtime/console, Preact + Vite) with npm:
#   scripts/console.sh build   npm ci (when package-lock.json changed), then
#                              npm run build -> runtime/console/dist, which
#                              the runtime embeds (rest/console.rs)
#   scripts/console.sh test    typecheck and unit tests (vitest)
# Needs Node.js 20+ and npm, and the npm registry (first install only).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../runtime/console"

command -v npm >/dev/null || {
    echo "console.sh: npm not found: install Node.js 20+ (Debian: apt-get install nodejs npm)" >&2
    exit 1
}
major="$(node -p 'process.versions.node.split(".")[0]')"
((major >= 20)) || {
    echo "console.sh: Node.js $(node --version) is too old: the console's build needs 20+" >&2
    exit 1
}

# npm ci wipes node_modules: only when the lock file is newer than the
# last install's record of it.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
    npm ci --no-audit --no-fund --loglevel=error
fi

case "${1:-build}" in
build) npm run --silent build ;;
test)
    npm run --silent typecheck
    npm run --silent test
    ;;
*)
    echo "usage: scripts/console.sh build|test" >&2
    exit 2
    ;;
esac
