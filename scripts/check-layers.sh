#!/usr/bin/env bash
# Fails when runtime/src gains an import circle (between files or between
# top-level modules) or a module imports from a layer above its own
# (runtime/layers.toml). Run by `just lint`.
#
# Why a checker of our own (scripts/layers-checker, ~400 lines on `syn`)
# rather than cargo-modules: cargo-modules builds on rust-analyzer's crates
# (a long `cargo install` on every fresh CI machine) and checks for circles
# only, not the direction of layers; `syn` parses the same source the
# compiler does, and this tool resolves `crate::`, `super::`, `self::` and
# child-module paths in `use`, code and macro bodies to files.
#
# `scripts/check-layers.sh --graph` prints which top-level module imports which.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Build output lives outside the clone, shared with `just` (warm after any build).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/copycat/target}"
graph=()
[[ "${1:-}" == "--graph" ]] && graph=(--graph)
exec cargo run --quiet --locked -p copycat-check-layers -- "${graph[@]}" runtime/src/lib.rs runtime/layers.toml
