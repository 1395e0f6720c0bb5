#!/usr/bin/env bash
# Build every guest component (connectors/* and tests/fixtures/*) for
# wasm32-wasip2 with the `wasm` profile, then copy them to:
#   build/plugins/<name>.wasm    crate copycat-<name>           (connectors/*)
#   build/fixtures/<name>.wasm   crate copycat-fixture-<name>   (tests/fixtures/*)
# Both cdylib ([lib] crate-type = ["cdylib", ...]) and binary ([[bin]] /
# src/main.rs) crates are handled: the file names come from cargo's own
# artifact messages, not from guessing. A package's cdylib, or its bin named
# like the package, gets the package's short name; other bins get their own
# bin name (prefix stripped the same way).
#
# Extra arguments are passed to cargo build (e.g. --locked).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
TARGET=wasm32-wasip2
PROFILE=wasm
TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/copycat/target}/wasm"
PLUGIN_DIR="$ROOT/build/plugins"
FIXTURE_DIR="$ROOT/build/fixtures"

# Guest packages = workspace members whose manifest is under connectors/ or tests/fixtures/.
mapfile -t packages < <(
    cargo metadata --no-deps --format-version 1 | python3 -c '
import json, os, sys
root = sys.argv[1]
meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
for p in meta["packages"]:
    if p["id"] not in members:
        continue
    rel = os.path.relpath(p["manifest_path"], root)
    if rel.startswith(("connectors/", "tests/fixtures/")):
        print(p["name"])
' "$ROOT"
)

if [[ ${#packages[@]} -eq 0 ]]; then
    echo "build-connectors: no packages under connectors/ or tests/fixtures/" >&2
    exit 0
fi

pargs=()
for p in "${packages[@]}"; do pargs+=(-p "$p"); done
echo "build-connectors: ${packages[*]}" >&2

# The postgres connectors' TLS (rustls with ring) compiles ring's C and
# assembly for wasm32 with clang: Debian's clang-N has the WebAssembly
# target (the C example toolchain's clang-22 among them). An explicit
# CC_wasm32_wasip2 wins.
if [[ -z "${CC_wasm32_wasip2:-}" ]]; then
    for cc in clang-22 clang-21 clang-20 clang-19 clang; do
        if command -v "$cc" >/dev/null; then
            export CC_wasm32_wasip2="$cc"
            ar="llvm-ar${cc#clang}"
            command -v "$ar" >/dev/null && export AR_wasm32_wasip2="$ar"
            break
        fi
    done
    [[ -n "${CC_wasm32_wasip2:-}" ]] || {
        echo "build-connectors: no clang found (the postgres connectors' TLS needs one with the wasm32 target: apt-get install clang)" >&2
        exit 1
    }
fi

# Human-readable diagnostics go to stderr; JSON artifact messages to a file.
messages="$(mktemp)"
trap 'rm -f "$messages"' EXIT
cargo build --target "$TARGET" --profile "$PROFILE" --target-dir "$TARGET_DIR" \
    --message-format=json-render-diagnostics "${pargs[@]}" "$@" >"$messages"

mkdir -p "$PLUGIN_DIR" "$FIXTURE_DIR"
rm -f "$PLUGIN_DIR"/*.wasm "$FIXTURE_DIR"/*.wasm

python3 - "$ROOT" "$PLUGIN_DIR" "$FIXTURE_DIR" "$messages" <<'EOF'
import json, os, shutil, subprocess, sys

root, plugin_dir, fixture_dir, messages = sys.argv[1:5]
root = os.path.realpath(root)

def short(name, prefixes):
    for p in prefixes:
        if name.startswith(p):
            return name[len(p):]
    return name

meta = json.loads(subprocess.run(
    ["cargo", "metadata", "--no-deps", "--format-version", "1"],
    check=True, capture_output=True, text=True, cwd=root).stdout)
names = {os.path.realpath(p["manifest_path"]): p["name"] for p in meta["packages"]}

copied = {}
for line in open(messages):
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if msg.get("reason") != "compiler-artifact":
        continue
    rel = os.path.relpath(os.path.realpath(msg["manifest_path"]), root)
    if rel.startswith("connectors/"):
        dest_dir, prefixes = plugin_dir, ("copycat-",)
    elif rel.startswith("tests/fixtures/"):
        dest_dir, prefixes = fixture_dir, ("copycat-fixture-", "fixture-", "copycat-")
    else:
        continue  # a dependency (copycat-sdk, ...)
    kinds = msg["target"]["kind"]
    if not ("cdylib" in kinds or "bin" in kinds):
        continue
    pkg_name = names[os.path.realpath(msg["manifest_path"])]
    target_name = msg["target"]["name"]
    if "cdylib" in kinds or target_name.replace("_", "-") == pkg_name:
        name = short(pkg_name, prefixes)
    else:
        name = short(target_name.replace("_", "-"), prefixes)
    wasm = [f for f in msg["filenames"] if f.endswith(".wasm")]
    if not wasm:
        continue
    dest = os.path.join(dest_dir, name + ".wasm")
    if dest in copied:
        sys.exit(f"build-connectors: {dest} would be produced by both {copied[dest]} and {pkg_name}/{target_name}")
    shutil.copyfile(wasm[0], dest)
    copied[dest] = f"{pkg_name}/{target_name}"
    print(f"  {os.path.relpath(dest, root)}  <-  {pkg_name} ({target_name}, {os.path.getsize(dest)} bytes)", file=sys.stderr)

if not copied:
    sys.exit("build-connectors: cargo produced no .wasm components")
EOF
