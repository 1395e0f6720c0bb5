# Copycat task runner. `just` (no args) lists recipes.
#
# Kafka: `just test` / `just demo` start a real single-node Apache Kafka
# (KRaft, from Maven Central jars, state under ~/.cache/copycat/kafka-run) and
# LEAVE IT RUNNING so reruns are fast. Stop it with `just kafka-stop`.
# Tests leave their topics behind; a start finding over 1,000 partitions
# (KAFKA_MAX_PARTITIONS) deletes the broker's data first.
# Set KAFKA_BOOTSTRAP=host:port to use an existing cluster instead (then
# kafka-start/kafka-stop do nothing). KAFKA_PORT changes the local port (9092).

set shell := ["bash", "-euo", "pipefail", "-c"]
# Recipe arguments reach the shell as "$@" (safe quoting).
set positional-arguments

# Build output lives outside the clone.
export CARGO_TARGET_DIR := env_var_or_default("CARGO_TARGET_DIR", home_directory() / ".cache/copycat/target")

plugin_dir := justfile_directory() / "build/plugins"
fixture_dir := justfile_directory() / "build/fixtures"

# List recipes
default:
    @just --list

# Start the local Kafka broker (no-op if running or KAFKA_BOOTSTRAP is set)
kafka-start:
    scripts/kafka.sh start

# Stop the local Kafka broker
kafka-stop:
    scripts/kafka.sh stop

# Is the local Kafka broker running and answering?
kafka-status:
    scripts/kafka.sh status

# Tail the local broker's log
kafka-logs lines="100":
    scripts/kafka.sh logs "$1"

# Delete the local broker's data (stops it first)
kafka-reset:
    scripts/kafka.sh reset

# Start the local schema registry (Apicurio Registry, Confluent's API; needs a JDK 21+); `scripts/registry.sh env` prints its URL
registry-start:
    scripts/registry.sh start

# Stop the local schema registry (it keeps its schemas in memory: they go with it)
registry-stop:
    scripts/registry.sh stop

# Start the local PostgreSQL (Debian's package, a private cluster on 127.0.0.1:55432); `scripts/postgres.sh url` prints its URL
postgres-start:
    scripts/postgres.sh start

# Stop the local PostgreSQL
postgres-stop:
    scripts/postgres.sh stop

# Start the local HDFS (a MiniDFSCluster with WebHDFS; needs Java 17); `scripts/hdfs.sh url` prints its WebHDFS URL
hdfs-start:
    scripts/hdfs.sh start

# Stop the local HDFS (the next start formats a fresh file system)
hdfs-stop:
    scripts/hdfs.sh stop

# Install the wasm32-wasip2 Rust target if missing
wasm-target:
    rustup target list --installed | grep -x wasm32-wasip2 >/dev/null || rustup target add wasm32-wasip2

# Build connectors/* -> build/plugins/*.wasm and tests/fixtures/* -> build/fixtures/*.wasm
build-connectors *args: wasm-target
    scripts/build-connectors.sh "$@"

# Build the example connectors in every language (or some: `just build-examples python go`)
build-examples *langs:
    scripts/build-examples.sh "$@"

# Build the web console's front end (runtime/console -> dist, embedded in the binary by the next cargo build)
console:
    scripts/console.sh build

# The web console's typecheck and unit tests (its browser tests are in tests/all/console.rs)
console-test:
    scripts/console.sh test

# Regenerate docs/console/*.png: the console's browser test, saving a screenshot of each page
console-screenshots: console build-connectors kafka-start
    cargo build -p copycat-cli --bin copycat
    KAFKA_BOOTSTRAP="$(scripts/kafka.sh bootstrap)" COPYCAT_PLUGIN_DIR="{{plugin_dir}}" \
        COPYCAT_FIXTURE_DIR="{{fixture_dir}}" COPYCAT_CONSOLE_SCREENSHOTS="{{justfile_directory()}}/docs/console" \
        cargo test -p copycat-tests --test all -- console::console_drives_connectors_plugins_and_offsets

# Host build (runtime with its web console, CLI, tests) plus all guest components
build: console build-connectors
    cargo build --workspace

# rustfmt check + clippy with warnings denied
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings
    scripts/check-layers.sh

# Lint, build components, start Kafka, run all tests (broker is left running)
test *args: console console-test lint build-connectors build-examples kafka-start
    # The CLI tests run the `copycat` binary, which `cargo test` does not
    # build for another package's tests.
    cargo build -p copycat-cli --bin copycat
    cargo build -p copycat-runtime --example embedded
    # The chaos test restarts the broker: only one this project started.
    export COPYCAT_LOCAL_KAFKA="$([ -z "${KAFKA_BOOTSTRAP:-}" ] && echo 1 || echo 0)"; \
    export KAFKA_BOOTSTRAP="$(scripts/kafka.sh bootstrap)" \
        COPYCAT_PLUGIN_DIR="{{plugin_dir}}" \
        COPYCAT_FIXTURE_DIR="{{fixture_dir}}" \
        COPYCAT_EXAMPLES_DIR="{{justfile_directory()}}/build/examples"; \
    cargo test --workspace "$@" && \
    cargo test -p copycat-tests --test all -- --ignored chaos
    @echo "Kafka left running at $(scripts/kafka.sh bootstrap); stop it with: just kafka-stop"

# End-to-end demo against the local broker
demo: build kafka-start
    KAFKA_BOOTSTRAP="$(scripts/kafka.sh bootstrap)" COPYCAT_PLUGIN_DIR="{{plugin_dir}}" scripts/demo.sh

# Benchmarks against the local broker (`just bench --bin languages`: one scenario)
bench *args: build-connectors kafka-start
    KAFKA_BOOTSTRAP="$(scripts/kafka.sh bootstrap)" COPYCAT_PLUGIN_DIR="{{plugin_dir}}" scripts/bench.sh "$@"

# Run a Kafka tool class, e.g. `just kafka-tool org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:9092 --list`
kafka-tool class *args:
    scripts/kafka.sh run-class "$@"

# Fetch Kafka Connect 4.4 (ConnectStandalone + FileStream connectors) for `bench --bin kafka_connect`
kafka-connect-fetch:
    scripts/kafka-connect.sh fetch

# Regenerate the golden outputs of Kafka Connect 4.4's own code (every scripts/golden/kafka-connect-*.sh -> tests/golden/kafka-connect; `just golden --check` only compares)
golden *args:
    for script in scripts/golden/kafka-connect-*.sh; do "$script" "$@"; done

# What CI runs (.ci/run): toolchain checks, `just test`, stop Kafka
ci:
    .ci/run
