#!/usr/bin/env bash
# Build the example connectors of every language (examples/SPEC.md) into
# build/examples/<lang>/{counter-source,file-sink}.wasm. Each
# scripts/examples/<lang>.sh installs its own toolchain idempotently (from
# the package registries) under ~/.cache/copycat/toolchains/<lang>; the first
# run takes minutes, later ones seconds.
#
#   scripts/build-examples.sh            # every language
#   scripts/build-examples.sh python go  # some
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

langs=("$@")
if ((${#langs[@]} == 0)); then
    langs=(rust python js c zig go)
fi
failed=()
for lang in "${langs[@]}"; do
    script="scripts/examples/$lang.sh"
    [[ -x "$script" ]] || { echo "build-examples: no $script" >&2; failed+=("$lang"); continue; }
    start=$(date +%s)
    echo "==> $lang" >&2
    if "$script"; then
        echo "==> $lang: ok ($(( $(date +%s) - start )) s)" >&2
    else
        echo "==> $lang: FAILED ($(( $(date +%s) - start )) s)" >&2
        failed+=("$lang")
    fi
done
if ((${#failed[@]})); then
    echo "build-examples: failed: ${failed[*]}" >&2
    exit 1
fi
