//! The guest boundary, per record: a pass-through component driven in one
//! instance, no Kafka, so only the component-model call, the lowering and
//! lifting of `list<sink-record>` / `list<source-record>` and the guest
//! SDK's conversions are measured.
//!
//! - `sink-put`: the host calls `put` with a batch it built beforehand;
//!   the guest (`build/fixtures/passthrough-sink.wasm`) drops it.
//! - `source-poll`: the host calls `poll`; the guest
//!   (`build/fixtures/passthrough-source.wasm`) returns a clone of a batch it
//!   prepared at `start`, and the host drops the lifted records.
//!
//! Batch sizes 1 … 10,000 times record (value) sizes 10 B … 10 KB, every
//! combination up to 100 MB a batch. Criterion's throughput is in records,
//! so it prints time per record; a `direction | batch | record bytes |
//! ns/record` table (criterion's mean per call divided by the batch) follows.
//!
//! - `source-poll-typed` (issue 22): 1,000 typed records a poll against
//!   bytes, converters that make no bytes. `prebuilt-*`: the fixture
//!   `prebuilt-source` pushes records prepared at start (datagen's typed
//!   shape) through the SDK every poll, in the mode named (see its doc);
//!   `bytes` are their encodings, so the sizes match. `boundary-typed` is
//!   typed ÷ bytes, split into the guest's part (encode-only − bytes) and
//!   the host's (typed − encode-only); `boundary-typed-crossing` is typed
//!   less the guest's part ÷ bytes (the goal, ≤ 3×);
//!   `boundary-typed-vs-json` is typed ÷ `json-bytes` (the same records
//!   serialised with serde_json by the guest); `prebuilt-host-check` is the host's
//!   check in-process; `prebuilt-json-wire` / `-value` add JsonConverter,
//!   writing from the encoding or through a `Value` tree. `datagen-*`: datagen (`COPYCAT_PLUGIN_DIR`,
//!   default `build/plugins`), its record building included
//!   (`boundary-typed-datagen`).
//!
//! `scripts/bench.sh` runs it (`COPYCAT_BENCH_BOUNDARY=0` skips it); alone:
//! `cargo bench -p copycat-bench --bench boundary --profile dev` after
//! `scripts/build-connectors.sh`. `COPYCAT_FIXTURE_DIR` overrides
//! `build/fixtures`; criterion's usual arguments (a filter, `--list`) work.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use copycat_bench::results::{self, Goal, Record};
use copycat_data::Schema;
use copycat_data::wire::Checked;
use copycat_runtime::engine::guest::{ConvertError, Decoded, Guest, RecordConverters, SinkBatch, SinkRecordRef};
use copycat_runtime::engine::{EngineConfig, WasmEngine};
use copycat_runtime::host::{Grants, TaskHost, TaskIdent, TaskLimits};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};

/// Records per call.
const BATCHES: &[usize] = &[1, 10, 100, 1_000, 10_000];
/// Bytes of each record's value.
const RECORD_BYTES: &[usize] = &[10, 100, 1_000, 10_000];
/// Largest batch measured (records x value bytes).
const MAX_BATCH_BYTES: usize = 100 * 1000 * 1000;
/// Room for the largest batch twice over (the source's prepared batch and
/// its clone) plus the lowering's copy.
const MEMORY_BYTES: usize = 1024 * 1024 * 1024;

/// The two directions across the boundary.
#[derive(Clone, Copy)]
enum Direction {
    SinkPut,
    SourcePoll,
}

impl Direction {
    fn group(self) -> &'static str {
        match self {
            Self::SinkPut => "sink-put",
            Self::SourcePoll => "source-poll",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::SinkPut => "host -> guest put",
            Self::SourcePoll => "guest poll -> host",
        }
    }
}

/// One measured combination, for the summary table.
struct Row {
    direction: Direction,
    batch: usize,
    bytes: usize,
    id: String,
}

fn fixture_dir() -> PathBuf {
    std::env::var_os("COPYCAT_FIXTURE_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/fixtures"),
        PathBuf::from,
    )
}

/// Where criterion writes its estimates (the directory it would choose
/// itself, made explicit so the summary can read them back).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion"),
        |t| PathBuf::from(t).join("criterion"),
    )
}

fn plugin_dir() -> PathBuf {
    std::env::var_os("COPYCAT_PLUGIN_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/plugins"),
        PathBuf::from,
    )
}

/// Converters that make no bytes (and decode nothing): a 0.3.0 source's
/// typed batch crosses the boundary and is checked, but not converted.
struct NoConversion;

impl RecordConverters for NoConversion {
    fn key(&self, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        Ok(None)
    }

    fn value(&self, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        Ok(None)
    }

    fn header(&self, _: &str, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        Ok(None)
    }

    fn decode_key(&self, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        Ok(Decoded::Raw)
    }

    fn decode_value(&self, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        Ok(Decoded::Raw)
    }

    fn decode_header(&self, _: &str, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        Ok(Decoded::Raw)
    }
}

/// A started instance of `name` (a fixture) with `config`: the worker's
/// default limits (epoch deadline, memory cap) except a memory cap large
/// enough for the biggest batch.
fn start(engine: &WasmEngine, name: &str, config: &[(&str, String)]) -> Result<Guest> {
    start_at(engine, &fixture_dir().join(format!("{name}.wasm")), name, config)
}

/// [`start`] for the component at `path`; a 0.3.0 component gets the
/// [`NoConversion`] converters.
fn start_at(engine: &WasmEngine, path: &Path, name: &str, config: &[(&str, String)]) -> Result<Guest> {
    let plugin = engine
        .load(path)
        .map_err(|e| anyhow!("{e} (run scripts/build-connectors.sh first)"))?;
    let limits = TaskLimits {
        memory_bytes: MEMORY_BYTES,
        ..TaskLimits::default()
    };
    let host = TaskHost::new(
        TaskIdent::task("bench-boundary", 0),
        &limits,
        Arc::default(),
        &Grants::default(),
    )
    .map_err(|e| anyhow!("{e}"))?;
    let mut guest = Guest::instantiate(engine, &plugin, host, &limits).map_err(|e| anyhow!("{e}"))?;
    if guest.contract() == copycat_runtime::engine::guest::Contract::V0_3 {
        guest.set_record_converters(Arc::new(NoConversion), "bench".to_owned());
    }
    let config: Vec<(String, String)> = config.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    match guest.kind() {
        copycat_runtime::Kind::Source => guest.source_start(&config),
        copycat_runtime::Kind::Sink => guest.sink_start(&config),
        copycat_runtime::Kind::Transform => guest.transform_configure(&config),
    }
    .map_err(|e| anyhow!("{name}: start: {e}"))?;
    Ok(guest)
}

/// The batch the host hands to `put`, in the guest's contract shape: what a
/// sink task builds from a consumer poll (topic, partition, offset, value,
/// timestamp; no key, no headers). Built once, outside the timing, as the
/// sink task builds it while consuming.
fn sink_batch(guest: &Guest, batch: usize, bytes: usize) -> Result<SinkBatch> {
    let value: Vec<u8> = (0..bytes).map(|i| b'a' + (i % 26) as u8).collect();
    let mut b = guest.sink_batch();
    for i in 0..batch {
        b.push(SinkRecordRef {
            topic: "bench",
            partition: 0,
            offset: i as i64,
            key: None,
            value: Some(&value),
            headers: std::iter::empty(),
            timestamp: Some(1_700_000_000_000),
        })
        .map_err(|e| anyhow!("{e}"))?;
    }
    Ok(b)
}

fn run(c: &mut Criterion, engine: &WasmEngine, rows: &mut Vec<Row>) -> Result<()> {
    let combos: Vec<(usize, usize)> = BATCHES
        .iter()
        .flat_map(|&b| RECORD_BYTES.iter().map(move |&s| (b, s)))
        .filter(|&(b, s)| b * s <= MAX_BATCH_BYTES)
        .collect();

    // host -> guest: one sink instance takes every batch.
    let mut sink = start(engine, "passthrough-sink", &[])?;
    let mut group = c.benchmark_group(Direction::SinkPut.group());
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sampling_mode(SamplingMode::Flat);
    for &(batch, bytes) in &combos {
        let id = format!("b{batch}-r{bytes}");
        let mut ran = false;
        let records = sink_batch(&sink, batch, bytes)?;
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_with_input(BenchmarkId::from_parameter(&id), &records, |b, records| {
            ran = true;
            b.iter(|| sink.sink_put(black_box(records)));
        });
        // A trap would have poisoned the instance: this call says so.
        sink.sink_put(&records)
            .map_err(|e| anyhow!("sink put, batch {batch} x {bytes} B: {e}"))?;
        if ran {
            rows.push(Row {
                direction: Direction::SinkPut,
                batch,
                bytes,
                id,
            });
        }
    }
    group.finish();

    // guest -> host: one source instance per combination (the batch is
    // prepared at start).
    let mut group = c.benchmark_group(Direction::SourcePoll.group());
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sampling_mode(SamplingMode::Flat);
    for &(batch, bytes) in &combos {
        let id = format!("b{batch}-r{bytes}");
        let mut source: Option<Guest> = None;
        let mut failed: Option<anyhow::Error> = None;
        group.throughput(Throughput::Elements(batch as u64));
        let max = u32::try_from(batch).context("batch size")?;
        group.bench_function(BenchmarkId::from_parameter(&id), |b| {
            // Instantiated only when the filter selects this benchmark.
            if source.is_none() && failed.is_none() {
                match start(
                    engine,
                    "passthrough-source",
                    &[("batch", batch.to_string()), ("record.bytes", bytes.to_string())],
                ) {
                    Ok(g) => source = Some(g),
                    Err(e) => failed = Some(e),
                }
            }
            if let Some(guest) = source.as_mut() {
                b.iter(|| guest.source_poll(black_box(max), None));
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(mut guest) = source {
            let got = guest
                .source_poll(max, None)
                .map_err(|e| anyhow!("source poll, batch {batch} x {bytes} B: {e}"))?;
            if got.len() != batch {
                bail!("source poll returned {} records, not {batch}", got.len());
            }
            rows.push(Row {
                direction: Direction::SourcePoll,
                batch,
                bytes,
                id,
            });
        }
    }
    group.finish();
    Ok(())
}

/// Records per poll of the typed rows.
const TYPED_BATCH: usize = 1000;
/// Criterion's group of the typed rows.
const TYPED_GROUP: &str = "source-poll-typed";

/// One benchmark of the typed group: a component polled in one mode.
struct TypedCase {
    id: &'static str,
    /// The component: a plugin (datagen) or a fixture.
    plugin: bool,
    name: &'static str,
    config: &'static [(&'static str, &'static str)],
}

/// The typed group's polls (see the module doc).
const TYPED_CASES: &[TypedCase] = &[
    TypedCase {
        id: "prebuilt-bytes",
        plugin: false,
        name: "prebuilt-source",
        config: &[("record.mode", "bytes")],
    },
    TypedCase {
        id: "prebuilt-typed",
        plugin: false,
        name: "prebuilt-source",
        config: &[("record.mode", "typed")],
    },
    TypedCase {
        id: "prebuilt-to-value",
        plugin: false,
        name: "prebuilt-source",
        config: &[("record.mode", "to-value")],
    },
    TypedCase {
        id: "prebuilt-value",
        plugin: false,
        name: "prebuilt-source",
        config: &[("record.mode", "value")],
    },
    TypedCase {
        id: "prebuilt-encode-only",
        plugin: false,
        name: "prebuilt-source",
        config: &[("record.mode", "encode-only")],
    },
    TypedCase {
        id: "prebuilt-json-bytes",
        plugin: false,
        name: "prebuilt-source",
        config: &[("record.mode", "json-bytes")],
    },
    TypedCase {
        id: "datagen-bytes",
        plugin: true,
        name: "datagen",
        config: &[("record.mode", "bytes"), ("value.size", "100")],
    },
    TypedCase {
        id: "datagen-typed",
        plugin: true,
        name: "datagen",
        config: &[("record.mode", "typed")],
    },
];

/// The in-process benchmark of the typed group: the host's check alone.
const HOST_CHECK_ID: &str = "prebuilt-host-check";

/// The prebuilt fixture's records as the host receives them: the batch's
/// schema nodes, the key's and the value's roots, and every record's key
/// and value encodings (the fixture's own functions, natively).
struct Encoded {
    nodes: Vec<copycat_data::wire::SchemaNode>,
    roots: (u32, u32),
    records: Vec<(Vec<u8>, Vec<u8>)>,
}

fn prebuilt_encoded() -> Result<Encoded> {
    use copycat_fixture_prebuilt_source as fixture;
    let mut table = copycat_data::wire::SchemaTable::new();
    let key = table.add(&Schema::string()).map_err(|e| anyhow!("{e}"))?;
    let value = table
        .add(&<fixture::Record as copycat_sdk::v0_3::ToConnect>::schema())
        .map_err(|e| anyhow!("{e}"))?;
    let records = (0..TYPED_BATCH as u64)
        .map(|i| fixture::encoded(i).map_err(|e| anyhow!("{e}")))
        .collect::<Result<_>>()?;
    Ok(Encoded {
        nodes: table.into_nodes(),
        roots: (key, value),
        records,
    })
}

/// What the host does with a typed batch's data in-process (no
/// boundary), each a function of the prebuilt records that returns how
/// many non-null keys and values it met.
#[derive(Clone, Copy)]
enum InProcess {
    /// Check every key and value against the schema table
    /// (`SchemaReader::check`): what `poll` does before the converters.
    Check,
    /// The check, then JsonConverter (schemas enabled) writing each key
    /// and value straight from its encoding (`from_wire`).
    JsonWire,
    /// The check, then each key and value decoded into a `Value` and
    /// written by JsonConverter's `from_connect` (what the converters
    /// without a wire path, e.g. AvroConverter's first half, do).
    JsonValue,
}

/// The in-process benchmarks, by id.
const IN_PROCESS: &[(&str, InProcess)] = &[
    (HOST_CHECK_ID, InProcess::Check),
    ("prebuilt-json-wire", InProcess::JsonWire),
    ("prebuilt-json-value", InProcess::JsonValue),
];

/// The batch's schema table, rebuilt: the runtime keeps a source's last
/// one (`SchemaCache`), so it is built once, outside the measured loop.
fn schema_reader(e: &Encoded) -> Result<copycat_data::wire::SchemaReader> {
    copycat_data::wire::SchemaReader::new(&e.nodes).map_err(|e| anyhow!("{e}"))
}

fn in_process(e: &Encoded, reader: &copycat_data::wire::SchemaReader, what: InProcess) -> Result<usize> {
    use copycat_data::json::JsonConverter;
    let (ks, vs) = (
        reader.schema(e.roots.0).map_err(|e| anyhow!("{e}"))?,
        reader.schema(e.roots.1).map_err(|e| anyhow!("{e}"))?,
    );
    let json = JsonConverter::default();
    let mut n = 0;
    for (k, v) in &e.records {
        for ((s, root), b) in [((ks, e.roots.0), k), ((vs, e.roots.1), v)] {
            let data = reader.check(root, Some(b)).map_err(|e| anyhow!("{e}"))?;
            let made = match what {
                InProcess::Check => Some(Vec::new()),
                InProcess::JsonWire => json.from_wire(data).map_err(|e| anyhow!("{e}"))?,
                InProcess::JsonValue => {
                    let value = data.to_value().map_err(|e| anyhow!("{e}"))?;
                    json.from_connect(Some(s), &value).map_err(|e| anyhow!("{e}"))?
                }
            };
            n += usize::from(made.is_some());
        }
    }
    Ok(n)
}

/// The typed batches against the byte batches (see the module doc);
/// returns the benchmarks that ran.
fn run_typed(c: &mut Criterion, engine: &WasmEngine) -> Result<Vec<&'static str>> {
    let mut group = c.benchmark_group(TYPED_GROUP);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(TYPED_BATCH as u64));
    let max = u32::try_from(TYPED_BATCH).context("batch size")?;
    let mut ran = Vec::new();
    for case in TYPED_CASES {
        let mut guest: Option<Guest> = None;
        let mut failed: Option<anyhow::Error> = None;
        group.bench_function(BenchmarkId::from_parameter(case.id), |b| {
            if guest.is_none() && failed.is_none() {
                let mut config: Vec<(&str, String)> = vec![
                    ("topic", "bench".to_owned()),
                    ("batch.size", TYPED_BATCH.to_string()),
                    ("batch", TYPED_BATCH.to_string()),
                ];
                config.extend(case.config.iter().map(|(k, v)| (*k, (*v).to_owned())));
                let path = match case.plugin {
                    true => plugin_dir().join(format!("{}.wasm", case.name)),
                    false => fixture_dir().join(format!("{}.wasm", case.name)),
                };
                match start_at(engine, &path, case.name, &config) {
                    Ok(g) => guest = Some(g),
                    Err(e) => failed = Some(e),
                }
            }
            if let Some(g) = guest.as_mut() {
                b.iter(|| g.source_poll(black_box(max), None));
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(mut g) = guest {
            let got = g
                .source_poll(max, None)
                .map_err(|e| anyhow!("{} poll ({}): {e}", case.name, case.id))?;
            if got.len() != TYPED_BATCH {
                bail!(
                    "{} poll ({}) returned {} records, not {TYPED_BATCH}",
                    case.name,
                    case.id,
                    got.len()
                );
            }
            ran.push(case.id);
        }
    }
    let encoded = prebuilt_encoded()?;
    let reader = schema_reader(&encoded)?;
    for &(id, what) in IN_PROCESS {
        let want = in_process(&encoded, &reader, what)?;
        let mut measured = false;
        group.bench_function(BenchmarkId::from_parameter(id), |b| {
            measured = true;
            b.iter(|| in_process(black_box(&encoded), &reader, what).map(|n| n == want));
        });
        if measured {
            ran.push(id);
        }
    }
    group.finish();
    Ok(ran)
}

/// Criterion's mean time per call (ns) for one benchmark, from its
/// `estimates.json`.
fn mean_ns(dir: &Path, row: &Row) -> Result<f64> {
    mean_ns_at(dir, row.direction.group(), &row.id)
}

/// Criterion's mean time per call (ns) of benchmark `id` of `group`.
fn mean_ns_at(dir: &Path, group: &str, id: &str) -> Result<f64> {
    let path = dir.join(group).join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    json["mean"]["point_estimate"]
        .as_f64()
        .with_context(|| format!("no mean.point_estimate in {}", path.display()))
}

/// The typed group's figures: printed, and the records of the results
/// file for the benchmarks that ran.
fn typed_records(dir: &Path, ran: &[&str], out: &mut Vec<Record>) -> Result<()> {
    let per = |id: &str| -> Result<Option<f64>> {
        match ran.contains(&id) {
            true => mean_ns_at(dir, TYPED_GROUP, id).map(|ns| Some(ns / TYPED_BATCH as f64)),
            false => Ok(None),
        }
    };
    let b = TYPED_BATCH as f64;
    if let (Some(bytes), Some(typed)) = (per("prebuilt-bytes")?, per("prebuilt-typed")?) {
        println!();
        println!(
            "Typed batch across the boundary ({TYPED_BATCH} records prepared at start, pushed through the SDK every poll, converters that make no bytes): typed {typed:.1} ns/record, bytes of the same size {bytes:.1} ns/record, typed ÷ bytes {:.2}",
            typed / bytes
        );
        let mut rec = Record::new("boundary-typed", "per-record", typed, "ns/record")
            .vs("bytes records of the same size", Some(bytes), None)
            .param("batch", b)
            .note("criterion mean per poll ÷ batch; prebuilt-source: the same records every poll, datagen's shape, typed (the SDK encodes them, the host lifts and checks them; no conversion) against their encodings as raw bytes");
        if let Some(only) = per("prebuilt-encode-only")? {
            let (guest, host) = (only - bytes, typed - only);
            let crossing = typed - guest;
            println!(
                "  split: guest encoding {guest:.1} ns/record (encode-only {only:.1} − bytes), host {host:.1} ns/record (typed − encode-only)"
            );
            println!(
                "  across the boundary (typed less the guest's encoding): {crossing:.1} ns/record, ÷ bytes {:.2}",
                crossing / bytes
            );
            rec = rec.param("guest_ns", guest.round()).param("host_ns", host.round());
            // The issue: a typed batch must not cost more than "a few
            // times" a batch of bytes across the boundary; read here as at
            // most 3× for what crosses it (the guest's encoding of its
            // values is the author's serialisation, compared below with
            // serde_json's).
            out.push(
                Record::new("boundary-typed-crossing", "per-record", crossing, "ns/record")
                    .vs("bytes records of the same size", Some(bytes), None)
                    .goal(Goal::ratio_at_most(3.0))
                    .param("batch", b)
                    .note("typed − (encode-only − bytes): the typed batch's lowering, lifting and the host's check, without the SDK's encoding of the values"),
            );
        }
        if let Some(json) = per("prebuilt-json-bytes")? {
            println!(
                "  against bytes the guest serialises every poll (serde_json, the same records): json-bytes {json:.1} ns/record, typed ÷ json-bytes {:.2}",
                typed / json
            );
            out.push(
                Record::new("boundary-typed-vs-json", "per-record", typed, "ns/record")
                    .vs("the same records serialised by the guest with serde_json, as bytes", Some(json), None)
                    .param("batch", b)
                    .note("criterion mean per poll ÷ batch; prebuilt-source record.mode=typed against record.mode=json-bytes (serde_json::to_writer of key and value every poll)"),
            );
        }
        if let Some(check) = per(HOST_CHECK_ID)? {
            println!("  in-process: the host's check of every key and value {check:.1} ns/record");
            rec = rec.param("host_check_ns", check.round());
        }
        out.push(rec);
        if let (Some(wire), Some(value)) = (per("prebuilt-json-wire")?, per("prebuilt-json-value")?) {
            println!(
                "  in-process, with JsonConverter (schemas enabled) after the check: from the encoding {wire:.1} ns/record, through a Value tree {value:.1} ns/record"
            );
            out.push(
                Record::new("convert-typed-json-wire", "per-record", wire, "ns/record")
                    .vs("through a Value tree", Some(value), None)
                    .param("batch", b)
                    .note("in-process: SchemaReader::check and JsonConverter::from_wire of the prebuilt keys and values, against decode + from_connect"),
            );
        }
        if let Some(to_value) = per("prebuilt-to-value")? {
            println!(
                "  the same Rust values made into Value trees every poll (the SDK's path before PayloadRef::Connect): {to_value:.1} ns/record, ÷ bytes {:.2}",
                to_value / bytes
            );
            out.push(
                Record::new("boundary-typed-to-value", "per-record", to_value, "ns/record")
                    .vs("bytes records of the same size", Some(bytes), None)
                    .param("batch", b)
                    .note("criterion mean per poll ÷ batch; prebuilt-source record.mode=to-value: ToConnect::to_value_in every poll, then PayloadRef::Typed"),
            );
        }
        if let Some(value) = per("prebuilt-value")? {
            println!(
                "  the same records as Value trees (PayloadRef::Typed): {value:.1} ns/record, ÷ bytes {:.2}",
                value / bytes
            );
            out.push(
                Record::new("boundary-typed-value", "per-record", value, "ns/record")
                    .vs("bytes records of the same size", Some(bytes), None)
                    .param("batch", b)
                    .note("criterion mean per poll ÷ batch; prebuilt-source record.mode=value: prepared Value trees, encoded by the SDK every poll"),
            );
        }
    }
    if let (Some(bytes), Some(typed)) = (per("datagen-bytes")?, per("datagen-typed")?) {
        println!(
            "Datagen, building its records every poll: typed {typed:.1} ns/record, bytes (100 B values) {bytes:.1} ns/record, typed ÷ bytes {:.2}",
            typed / bytes
        );
        out.push(
            Record::new("boundary-typed-datagen", "per-record", typed, "ns/record")
                .vs("datagen bytes mode, 100 B values", Some(bytes), None)
                .param("batch", b)
                .note("criterion mean per poll ÷ batch; datagen record.mode=typed (builds, encodes, lifts and checks its struct; no conversion) against record.mode=bytes"),
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let dir = criterion_dir();
    let mut c = Criterion::default().output_directory(&dir).configure_from_args();
    let engine = WasmEngine::new(&EngineConfig::default()).map_err(|e| anyhow!("creating the engine: {e:#}"))?;
    let mut rows = Vec::new();
    run(&mut c, &engine, &mut rows)?;
    let typed = run_typed(&mut c, &engine)?;
    c.final_summary();
    // `--profile-time` (for perf) runs without analysis: no fresh estimates.
    if std::env::args().any(|a| a == "--profile-time") {
        return Ok(());
    }
    let mut out = Vec::new();
    typed_records(&dir, &typed, &mut out)?;
    if rows.is_empty() {
        return results::append(&out);
    }
    println!();
    println!("Boundary: pass-through guest, criterion mean per call / batch");
    println!("| direction | batch | record bytes | ns/record |");
    println!("|---|---:|---:|---:|");
    for row in &rows {
        let ns = mean_ns(&dir, row)? / row.batch as f64;
        let scenario = match row.direction {
            Direction::SinkPut => "boundary-put",
            Direction::SourcePoll => "boundary-poll",
        };
        let mut rec = Record::new(scenario, "per-record", ns, "ns/record")
            .param("batch", row.batch as f64)
            .param("record_bytes", row.bytes as f64)
            .note("criterion mean per call ÷ batch");
        // The goal: ≤ 50 ns per 100-byte record at batch 1,000.
        if row.batch == 1000 && row.bytes == 100 {
            rec = rec.goal(Goal::value_at_most(50.0));
        }
        out.push(rec);
        println!(
            "| {} | {} | {} | {ns:.1} |",
            row.direction.label(),
            row.batch,
            row.bytes
        );
    }
    results::append(&out)?;
    Ok(())
}
