#!/usr/bin/env bash
# Build the example counter-sources of an older commit, for `bench --bin
# languages --before-dir`: the same run then measures the old components
# next to the new ones (issue 27's "before and after, same run").
#
#   scripts/bench-languages-before.sh [REV]   print the directory holding <lang>/counter-source.wasm
#
# REV defaults to 4bffaa9, the last commit before the SDKs moved to contract
# 0.3.0 (Python, JavaScript, C, Go and Zig on 0.1.0; Rust's example on
# 0.2.0). The commit's tree is exported with `git archive` (no worktree)
# under $COPYCAT_CACHE/languages-before/<rev> and built there with its own
# scripts/build-examples.sh (the toolchains are the same pinned ones, cached);
# a finished build is reused. Languages that fail to build are left out
# (the bench says which are missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REV="${1:-4bffaa9}"
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}"
rev="$(git rev-parse --short=12 "$REV^{commit}")" || {
    echo "bench-languages-before: no commit $REV in this clone (a shallow clone? git fetch --unshallow)" >&2
    exit 1
}
dir="$CACHE/languages-before/$rev"
out="$dir/build/examples"
if [[ ! -f "$dir/.built" ]]; then
    echo "bench-languages-before: building the examples of $rev in $dir (once)" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    git archive "$rev" | tar -x -C "$dir"
    # Rust's example builds into the shared target directory's cache.
    (cd "$dir" && scripts/build-examples.sh) >&2 || echo "bench-languages-before: some languages failed to build (see above)" >&2
    touch "$dir/.built"
fi
echo "$out"
