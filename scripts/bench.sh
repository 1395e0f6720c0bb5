#!/usr/bin/env bash
# The benchmark suite. First the throughput benchmark: Copycat's datagen
# source component -> Kafka, at-least-once and exactly-once, against a plain
# rdkafka producer loop with the same producer settings on the same broker
# (the ceiling), and Kafka -> Copycat's file-sink against a plain rdkafka
# consumer writing the same file. Prints records/s and each one's ratio to
# the same run's ceiling for every run and the median. Then the other
# scenarios (each skippable, below), then `report`: the summary table in
# docs/BENCHMARKS.md and the plots in docs/bench/ (COPYCAT_BENCH_REPORT=0
# skips it; COPYCAT_BENCH_NOTE adds a line to the summary, e.g. that it was a
# short development run). See docs/BENCHMARKS.md.
#
# `just bench` has already built the connector components (build/plugins) and
# started Kafka; it sets KAFKA_BOOTSTRAP and COPYCAT_PLUGIN_DIR. Arguments go
# to the benchmark binary, e.g.
#   scripts/bench.sh --records 200000 --runs 5 --partitions 6
#   scripts/bench.sh --only ceiling
#   scripts/bench.sh --only ceiling,copycat-eos --transaction-boundary interval --transaction-interval-ms 1000
#   scripts/bench.sh --help
# or run one scenario's binary alone (bench/src/bin/<name>.rs), e.g.
#   scripts/bench.sh --bin languages            (`just bench --bin languages`)
#   scripts/bench.sh --bin languages --skip-kafka --langs rust,c
#
# Build profile: dev, NOT --release. In the dev profile all dependencies
# (wasmtime, cranelift, librdkafka's Rust side, ...) are built with
# opt-level 3 and the copycat-runtime crate with opt-level 2 (root
# Cargo.toml), so the hot paths are optimised without a ~10 minute release
# build of wasmtime. The benchmark crate itself (which holds the ceiling's
# producer loop) is raised to opt-level 2 here, with --config, so the
# ceiling is not handicapped by unoptimised code. copycat-data is at
# opt-level 3 in the dev profile (root Cargo.toml); where its converters and
# wire decoding are measured (the boundary's typed rows, the converters
# benchmark) it is built as in a release build (DATA_OPT: no debug
# assertions or overflow checks either).
set -euo pipefail
DATA_OPT=(--config 'profile.dev.package.copycat-data.debug-assertions=false'
    --config 'profile.dev.package.copycat-data.overflow-checks=false')
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/copycat/target}"
export KAFKA_BOOTSTRAP="${KAFKA_BOOTSTRAP:-$(scripts/kafka.sh bootstrap)}"

# One scenario alone: `--bin <name> [its arguments]`.
if [[ "${1:-}" == --bin ]]; then
    bin="${2:?--bin needs a scenario name (bench/src/bin/<name>.rs)}"
    shift 2
    extra=()
    if [[ "$bin" == languages ]]; then
        scripts/build-examples.sh
        export COPYCAT_EXAMPLES_DIR="${COPYCAT_EXAMPLES_DIR:-$PWD/build/examples}"
        if [[ "${COPYCAT_BENCH_BEFORE:-1}" != 0 ]] && dir="$(scripts/bench-languages-before.sh)"; then
            extra=(--before-dir "$dir")
        fi
    fi
    if [[ "$bin" == console ]]; then
        scripts/console.sh build
        cargo build --quiet -p copycat-cli --bin copycat
    fi
    exec cargo run --quiet -p copycat-bench --bin "$bin" \
        --config 'profile.dev.package.copycat-bench.opt-level=2' "${DATA_OPT[@]}" \
        -- "${extra[@]}" "$@"
fi
# The TLS rows use the project's broker's SSL listener and CA when the
# benchmark runs against that broker (an external cluster's are set by hand:
# KAFKA_SSL_BOOTSTRAP, KAFKA_TLS_CA).
if [[ "$(env -u KAFKA_BOOTSTRAP scripts/kafka.sh bootstrap)" == "$KAFKA_BOOTSTRAP" ]]; then
    while IFS='=' read -r k v; do
        case "$k" in KAFKA_SSL_BOOTSTRAP | KAFKA_TLS_CA) [[ -n "${!k:-}" ]] || export "$k=$v" ;; esac
    done < <(scripts/kafka.sh secure-env)
fi
export COPYCAT_PLUGIN_DIR="${COPYCAT_PLUGIN_DIR:-$PWD/build/plugins}"
# Every scenario appends its headline figures (JSON lines) here; emptied now,
# read by the report at the end.
export COPYCAT_BENCH_RESULTS="${COPYCAT_BENCH_RESULTS:-$CARGO_TARGET_DIR/bench-results.jsonl}"
mkdir -p "$(dirname "$COPYCAT_BENCH_RESULTS")"
: >"$COPYCAT_BENCH_RESULTS"
# The command that reproduces this run, for the report: the COPYCAT_BENCH_*
# switches set, then this script with its arguments.
if [[ -z "${COPYCAT_BENCH_COMMAND:-}" ]]; then
    COPYCAT_BENCH_COMMAND=""
    for v in $(compgen -e | grep '^COPYCAT_BENCH_' | grep -Ev '^COPYCAT_BENCH_(RESULTS|COMMAND|NOTE)$' | sort); do
        COPYCAT_BENCH_COMMAND+="$v=$(printf '%q' "${!v}") "
    done
    COPYCAT_BENCH_COMMAND+="scripts/bench.sh"
    [[ $# -gt 0 ]] && COPYCAT_BENCH_COMMAND+=" $(printf '%q ' "$@")"
    export COPYCAT_BENCH_COMMAND="${COPYCAT_BENCH_COMMAND% }"
fi

cargo run --quiet -p copycat-bench --bin copycat-bench \
    --config 'profile.dev.package.copycat-bench.opt-level=2' \
    -- "$@"
# Exactly-once with transaction.boundary=interval (1 s) against the same run's
# raw producer; only its source-eos-interval rows are kept (the ceiling rows
# above stay those of the main run). 15M records: the last record's commit
# waits out the rest of its interval (0-1 s), which on the main run's 5M
# records (about 5 s) would move the ratio by up to a fifth.
# COPYCAT_BENCH_EOS_INTERVAL=0 skips it.
if [[ "${COPYCAT_BENCH_EOS_INTERVAL:-1}" != 0 && $# -eq 0 ]]; then
    interval_results="$(mktemp)"
    COPYCAT_BENCH_RESULTS="$interval_results" \
    cargo run --quiet -p copycat-bench --bin copycat-bench \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --only ceiling,copycat-eos --transaction-boundary interval --transaction-interval-ms 1000 \
           --records 15000000
    grep '"scenario":"source-eos-interval"' "$interval_results" >>"$COPYCAT_BENCH_RESULTS" || true
    rm -f "$interval_results"
fi
# What the sandbox's limits cost (no Kafka involved): COPYCAT_BENCH_LIMITS=0 skips it.
if [[ "${COPYCAT_BENCH_LIMITS:-1}" != 0 ]]; then
    cargo run --quiet -p copycat-bench --bin limits \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --runs 5
fi
# The guest boundary per record, criterion (no Kafka): a pass-through sink's
# `put` and source's `poll` (build/fixtures/passthrough-*.wasm), batches 1 to
# 10,000 x values 10 B to 10 KB, then typed batches against byte batches
# (build/fixtures/prebuilt-source.wasm and build/plugins/datagen.wasm,
# issue 22), ~4 minutes;
# COPYCAT_BENCH_BOUNDARY=0 skips it.
# `--profile dev`: `cargo bench` would otherwise use the release-based bench
# profile and rebuild wasmtime.
if [[ "${COPYCAT_BENCH_BOUNDARY:-1}" != 0 ]]; then
    COPYCAT_FIXTURE_DIR="${COPYCAT_FIXTURE_DIR:-$PWD/build/fixtures}" \
    cargo bench --quiet -p copycat-bench --bench boundary --profile dev \
        --config 'profile.dev.package.copycat-bench.opt-level=2' "${DATA_OPT[@]}"
fi
# librdkafka's enqueue path per record, criterion: rust-rdkafka's `send` per
# record against one `rd_kafka_produce_batch` per 2,000 records (what source
# tasks use), nothing sent; ~15 s; COPYCAT_BENCH_ENQUEUE=0 skips it.
if [[ "${COPYCAT_BENCH_ENQUEUE:-1}" != 0 ]]; then
    cargo bench --quiet -p copycat-bench --bench enqueue --profile dev \
        --config 'profile.dev.package.copycat-bench.opt-level=2'
fi
# Hot-swap pause between two component versions: COPYCAT_BENCH_SWAP=0 skips it.
if [[ "${COPYCAT_BENCH_SWAP:-1}" != 0 ]]; then
    COPYCAT_FIXTURE_DIR="${COPYCAT_FIXTURE_DIR:-$PWD/build/fixtures}" \
    cargo run --quiet -p copycat-bench --bin swap \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --swaps 30
fi
# Dynamic connector: a watched directory's new file to Kafka, and the
# reconfiguration pause; COPYCAT_BENCH_DYNAMIC=0 skips it.
if [[ "${COPYCAT_BENCH_DYNAMIC:-1}" != 0 ]]; then
    COPYCAT_PLUGIN_DIR="${COPYCAT_PLUGIN_DIR:-$PWD/build/plugins}" \
    cargo run --quiet -p copycat-bench --bin dynamic \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --rounds 20
fi
# PostgreSQL connectors: postgres-source and postgres-sink rows/s beside a
# native client loop and COPY, against the project's PostgreSQL
# (scripts/postgres.sh, started here); COPYCAT_BENCH_POSTGRES=0 skips it.
if [[ "${COPYCAT_BENCH_POSTGRES:-1}" != 0 ]]; then
    scripts/postgres.sh start
    COPYCAT_PLUGIN_DIR="${COPYCAT_PLUGIN_DIR:-$PWD/build/plugins}" \
    cargo run --quiet -p copycat-bench --bin postgres \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --rows 200000 --runs 3
fi
# Distributed failover: SIGKILL / SIGTERM a worker of three; COPYCAT_BENCH_FAILOVER=0 skips it.
if [[ "${COPYCAT_BENCH_FAILOVER:-1}" != 0 ]]; then
    cargo build --quiet -p copycat-cli --bin copycat
    COPYCAT_BIN="$CARGO_TARGET_DIR/debug/copycat" \
    cargo run --quiet -p copycat-bench --bin failover \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --runs 5
fi
# The web console: what an open console costs its worker, list load times,
# bundle size, in Debian's Chromium; COPYCAT_BENCH_CONSOLE=0 skips it.
if [[ "${COPYCAT_BENCH_CONSOLE:-1}" != 0 ]]; then
    scripts/console.sh build
    cargo build --quiet -p copycat-cli --bin copycat
    COPYCAT_PLUGIN_DIR="${COPYCAT_PLUGIN_DIR:-$PWD/build/plugins}" \
    cargo run --quiet -p copycat-bench --bin console \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --connectors 100
fi
# End-to-end latency datagen -> Kafka -> file-sink at fixed rates; COPYCAT_BENCH_LATENCY=0 skips it.
if [[ "${COPYCAT_BENCH_LATENCY:-1}" != 0 ]]; then
    for rate in 100 1000 10000; do
        cargo run --quiet -p copycat-bench --bin latency \
            --config 'profile.dev.package.copycat-bench.opt-level=2' \
            -- --rate "$rate" --secs 10
    done
fi
# Density: many rate-limited datagen tasks in one worker (RSS, idle CPU);
# COPYCAT_BENCH_DENSITY=0 skips it, COPYCAT_BENCH_DENSITY_TASKS sets the count
# (1,000 by default, the issue's figure; see BENCHMARKS.md#density).
if [[ "${COPYCAT_BENCH_DENSITY:-1}" != 0 ]]; then
    cargo run --quiet -p copycat-bench --bin density \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --tasks "${COPYCAT_BENCH_DENSITY_TASKS:-1000}"
fi
# The counter source in every language (build/examples; `just build-examples`),
# 100-byte values, next to the examples of the commit before issue 27 (built
# once by scripts/bench-languages-before.sh; COPYCAT_BENCH_BEFORE=0 skips them).
if [[ "${COPYCAT_BENCH_LANGUAGES:-1}" != 0 ]]; then
    scripts/build-examples.sh
    before=()
    if [[ "${COPYCAT_BENCH_BEFORE:-1}" != 0 ]] && dir="$(scripts/bench-languages-before.sh)"; then
        before=(--before-dir "$dir")
    fi
    COPYCAT_EXAMPLES_DIR="${COPYCAT_EXAMPLES_DIR:-$PWD/build/examples}" \
    cargo run --quiet -p copycat-bench --bin languages \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --runs 3 "${before[@]}"
fi
# Against Kafka Connect 4.4: the same 1M-line file through FileStreamSource and
# Copycat's file-source, the same topic out through FileStreamSink and
# file-sink (ConnectStandalone vs `copycat standalone`, on the same broker);
# COPYCAT_BENCH_KAFKA_CONNECT=0 skips it. Needs java, javac and mvn (the jars come
# from Maven Central, cached under ~/.cache/copycat/kafka-connect-4.4.0).
if [[ "${COPYCAT_BENCH_KAFKA_CONNECT:-1}" != 0 ]]; then
    scripts/kafka-connect.sh fetch
    cargo build --quiet -p copycat-cli --bin copycat
    cargo run --quiet -p copycat-bench --bin kafka_connect \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --runs 3
fi
# Kafka Connect's converters on the source path (issue 22): datagen's typed
# records through StringConverter, JsonConverter (with and without schemas)
# and AvroConverter against the byte path and the raw producer, beside Kafka
# Connect 4.4 converting the same records (bench/kafka-connect/DatagenSource.java,
# compiled by `scripts/kafka-connect.sh plugins`, which also fetches Apicurio's
# AvroConverter); and the transforms (issue 23): the json row through three
# built-in transforms on both systems, and through one transform component
# (the shipped redact) on Copycat. 300,000 records per measurement, 3 runs:
# about 6 minutes.
# The Avro row needs the schema registry: SCHEMA_REGISTRY_URL, else the
# project's (scripts/registry.sh; started here if it is not running, never
# restarted). COPYCAT_BENCH_CONVERTERS=0 skips it.
if [[ "${COPYCAT_BENCH_CONVERTERS:-1}" != 0 ]]; then
    if [[ -z "${SCHEMA_REGISTRY_URL:-}" ]]; then
        if scripts/registry.sh status >/dev/null 2>&1 || scripts/registry.sh start; then
            export "$(scripts/registry.sh env)"
        else
            echo "bench.sh: no schema registry (scripts/registry.sh start failed): the converters' Avro row is skipped" >&2
        fi
    fi
    cargo run --quiet -p copycat-bench --bin converters \
        --config 'profile.dev.package.copycat-bench.opt-level=2' "${DATA_OPT[@]}" \
        -- --runs 3
fi
# http-sink to a local HTTP server against a plain HTTP client loop (one
# value a request, and 100 a request); COPYCAT_BENCH_HTTP_SINK=0 skips it.
if [[ "${COPYCAT_BENCH_HTTP_SINK:-1}" != 0 ]]; then
    cargo run --quiet -p copycat-bench --bin http_sink \
        --config 'profile.dev.package.copycat-bench.opt-level=2' \
        -- --runs 3
fi
# hdfs-sink's MB/s beside a raw WebHDFS writer of the same files (issue 26);
# needs HDFS (scripts/hdfs.sh; started here if it is not running).
# COPYCAT_BENCH_HDFS=0 skips it.
if [[ "${COPYCAT_BENCH_HDFS:-1}" != 0 ]]; then
    if scripts/hdfs.sh status >/dev/null 2>&1 || scripts/hdfs.sh start >/dev/null; then
        cargo run --quiet -p copycat-bench --bin hdfs \
            --config 'profile.dev.package.copycat-bench.opt-level=2' \
            -- --runs 3
    else
        echo "bench.sh: no HDFS (scripts/hdfs.sh start failed): the hdfs-sink row is skipped" >&2
    fi
fi
# The summary table (docs/BENCHMARKS.md) and plots (docs/bench/*.svg) from
# $COPYCAT_BENCH_RESULTS; COPYCAT_BENCH_REPORT=0 skips it.
if [[ "${COPYCAT_BENCH_REPORT:-1}" != 0 ]]; then
    cargo run --quiet -p copycat-bench --bin report
fi
