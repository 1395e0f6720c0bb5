//! The same source in every language (`examples/SPEC.md`'s counter-source,
//! `--value-size` bytes per value, 100 by default): compile time without
//! and with the compiled-code cache, instantiate time, nanoseconds per
//! record across the boundary (a `poll(1000)` loop in one instance, no
//! Kafka), linear memory per instance, and records per second into Kafka
//! through a worker. Medians of `--runs`.
//!
//! With `--before-dir` (examples built at an older commit,
//! `scripts/bench-languages-before.sh`), the same run also measures those
//! components' boundary, and the new ones' on the same records (their own
//! short values, `value.size=0`), so before and after compare like for like.
//!
//! `just bench` runs it last; alone:
//! `cargo run -p copycat-bench --bin languages -- --records 200000`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use copycat_bench::results::{self, Record};
use copycat_bench::unique;
use copycat_runtime::engine::guest::Guest;
use copycat_runtime::engine::{EngineConfig, WasmEngine};
use copycat_runtime::host::{Grants, TaskHost, TaskIdent, TaskLimits};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use indicatif::ProgressBar;
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

#[derive(Parser)]
#[command(about = "The counter source in every language: compile, instantiate, boundary, memory, Kafka")]
struct Args {
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Records per boundary run.
    #[arg(long, default_value_t = 200_000)]
    records: u64,
    /// Records per Kafka run.
    #[arg(long, default_value_t = 1_000_000)]
    kafka_records: u64,
    /// Runs per measurement (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// build/examples (`<lang>/counter-source.wasm`).
    #[arg(long, env = "COPYCAT_EXAMPLES_DIR", default_value = "build/examples")]
    examples_dir: PathBuf,
    /// Languages to measure.
    #[arg(long, value_delimiter = ',', default_value = "rust,python,js,c,zig,go")]
    langs: Vec<String>,
    /// Bytes per record value (the counter-source's `value.size`).
    #[arg(long, default_value_t = 100)]
    value_size: usize,
    /// Only the compile, instantiate, boundary and memory figures (no Kafka).
    #[arg(long)]
    skip_kafka: bool,
    /// Examples built at an older commit (`<dir>/<lang>/counter-source.wasm`):
    /// their boundary is measured in the same run.
    #[arg(long)]
    before_dir: Option<PathBuf>,
}

struct Row {
    lang: String,
    size: u64,
    cold_ms: f64,
    cached_ms: f64,
    instantiate_ms: f64,
    ns_per_record: f64,
    memory_mib: f64,
    kafka_rate: f64,
    /// With `--before-dir`: the old component's and this one's boundary on
    /// the old records (`value.size=0`).
    before: Option<(f64, f64)>,
}

fn median(v: Vec<f64>) -> f64 {
    copycat_bench::median(v).unwrap_or(f64::NAN)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn config(topic: &str, count: u64, value_size: usize) -> Vec<(String, String)> {
    [
        ("topic", topic.to_owned()),
        ("streams", "1".to_owned()),
        ("count", count.to_string()),
        ("value.size", value_size.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

fn instance(engine: &WasmEngine, path: &Path, count: u64, value_size: usize) -> Result<Guest> {
    let plugin = engine.load(path).map_err(|e| anyhow!("{e}"))?;
    let limits = TaskLimits::default();
    let host = TaskHost::new(
        TaskIdent::task("bench-lang", 0),
        &limits,
        Arc::default(),
        &Grants::default(),
    )
    .map_err(|e| anyhow!("{e}"))?;
    let mut guest = Guest::instantiate(engine, &plugin, host, &limits).map_err(|e| anyhow!("{e}"))?;
    // A 0.3.0 source's batches go through the connector's converters (the
    // defaults here; the counter-source's raw bytes bypass them).
    let converters = copycat_runtime::task::record_converters(&Default::default()).map_err(|e| anyhow!("{e}"))?;
    guest.set_record_converters(converters, "unused".to_owned());
    guest
        .source_start(&config("unused", count, value_size))
        .map_err(|e| anyhow!("start: {e}"))?;
    Ok(guest)
}

fn measure(args: &Args, lang: &str, path: &Path) -> Result<Row> {
    let sp = ProgressBar::new_spinner().with_message(format!("{lang}: compiling"));
    sp.enable_steady_tick(Duration::from_millis(100));
    let size = std::fs::metadata(path)?.len();
    // Compile without a cache (cold), then twice through a fresh cache
    // directory: the second load of a new engine reads compiled code.
    let mut cold = Vec::new();
    let mut cached = Vec::new();
    for _ in 0..args.runs {
        let engine = WasmEngine::new(&EngineConfig::default()).map_err(|e| anyhow!("{e:#}"))?;
        let t = Instant::now();
        engine.load(path).map_err(|e| anyhow!("{e}"))?;
        cold.push(ms(t.elapsed()));
        let dir = tempfile_dir()?;
        let with_cache = EngineConfig {
            cache_dir: Some(dir.clone()),
            ..EngineConfig::default()
        };
        WasmEngine::new(&with_cache)
            .map_err(|e| anyhow!("{e:#}"))?
            .load(path)
            .map_err(|e| anyhow!("{e}"))?;
        let engine = WasmEngine::new(&with_cache).map_err(|e| anyhow!("{e:#}"))?;
        let t = Instant::now();
        engine.load(path).map_err(|e| anyhow!("{e}"))?;
        cached.push(ms(t.elapsed()));
        let _ = std::fs::remove_dir_all(&dir);
    }
    sp.set_message(format!("{lang}: instantiating and polling"));
    let engine = WasmEngine::new(&EngineConfig::default()).map_err(|e| anyhow!("{e:#}"))?;
    let mut inst = Vec::new();
    for _ in 0..args.runs.max(5) {
        let t = Instant::now();
        let g = instance(&engine, path, 0, args.value_size)?;
        inst.push(ms(t.elapsed()));
        drop(g);
    }
    let (per_record, memory) = boundary(args, &engine, lang, path, args.value_size)?;
    let before = match &args.before_dir {
        Some(dir) => {
            let old = dir.join(lang).join("counter-source.wasm");
            if old.is_file() {
                sp.set_message(format!("{lang}: the old component"));
                let (old_ns, _) = boundary(args, &engine, lang, &old, 0)?;
                let (new_ns, _) = boundary(args, &engine, lang, path, 0)?;
                Some((old_ns, new_ns))
            } else {
                eprintln!("{lang}: {} is missing; no before figure", old.display());
                None
            }
        }
        None => None,
    };
    let mut rates = Vec::new();
    if !args.skip_kafka {
        sp.set_message(format!("{lang}: into Kafka"));
        for _ in 0..args.runs {
            rates.push(kafka_rate(args, path)?);
        }
    }
    sp.finish_and_clear();
    Ok(Row {
        lang: lang.to_owned(),
        size,
        cold_ms: median(cold),
        cached_ms: median(cached),
        instantiate_ms: median(inst),
        ns_per_record: per_record,
        memory_mib: memory as f64 / (1024.0 * 1024.0),
        kafka_rate: median(rates),
        before,
    })
}

/// Median ns per record of a `poll(1000)` loop over `--records` records,
/// and the largest linear memory seen.
fn boundary(args: &Args, engine: &WasmEngine, lang: &str, path: &Path, value_size: usize) -> Result<(f64, usize)> {
    let mut per_record = Vec::new();
    let mut memory = 0usize;
    for _ in 0..args.runs {
        let mut g = instance(engine, path, 0, value_size)?;
        // One poll first: a guest's first call may set up state (and
        // Python's and JavaScript's first call is slower).
        g.source_poll(1000, None).map_err(|e| anyhow!("poll: {e}"))?;
        let t = Instant::now();
        let mut n = 0u64;
        while n < args.records {
            let batch = g.source_poll(1000, None).map_err(|e| anyhow!("poll: {e}"))?;
            if batch.is_empty() {
                bail!("{lang}: poll returned nothing with count=0 (unbounded)");
            }
            n += batch.len() as u64;
        }
        per_record.push(t.elapsed().as_nanos() as f64 / n as f64);
        memory = memory.max(g.memory_bytes());
    }
    Ok((median(per_record), memory))
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(unique("copycat-bench-cache"));
    std::fs::create_dir_all(&dir).context("creating a cache directory")?;
    Ok(dir)
}

/// Records per second into Kafka once the task runs: from the first record
/// in the topic until `--records` are (one task, one partition,
/// at-least-once; start-up — producer id, topic creation — is left out).
fn kafka_rate(args: &Args, path: &Path) -> Result<f64> {
    let rt = tokio::runtime::Runtime::new().context("tokio runtime")?;
    let mut props = std::collections::BTreeMap::new();
    props.insert("bootstrap.servers".to_owned(), args.bootstrap.clone());
    props.insert("offset.storage.topic".to_owned(), unique("bench-lang-offsets"));
    props.insert("offset.storage.partitions".to_owned(), "1".to_owned());
    let wcfg = WorkerConfig::from_props(props).map_err(|e| anyhow!("{e}"))?;
    let worker = rt.block_on(Worker::start(wcfg)).map_err(|e| anyhow!("{e}"))?;
    let name = unique("bench-lang");
    let topic = unique("bench-lang");
    let mut cprops: std::collections::BTreeMap<String, String> = config(&topic, args.kafka_records, args.value_size)
        .into_iter()
        .collect();
    cprops.insert("name".into(), name.clone());
    cprops.insert("connector.class".into(), path.display().to_string());
    let ccfg = ConnectorConfig::from_props(cprops, worker.config()).map_err(|e| anyhow!("{e}"))?;
    let watermarks: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &args.bootstrap)
        .create()
        .context("creating the watermark consumer")?;
    let end = || -> u64 {
        watermarks
            .fetch_watermarks(&topic, 0, Duration::from_secs(5))
            .map(|(_, hi)| hi.max(0) as u64)
            .unwrap_or(0)
    };
    let started = Instant::now();
    worker.start_connector(ccfg).map_err(|e| anyhow!("{e}"))?;
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut first: Option<(Instant, u64)> = None;
    let (t, base) = loop {
        let n = end();
        if first.is_none() && n > 0 {
            first = Some((Instant::now(), n));
        }
        if n >= args.kafka_records {
            break first.unwrap_or((Instant::now(), 0));
        }
        if let Some(f) = worker
            .status(&name)
            .ok()
            .and_then(|s| s.tasks.into_iter().find_map(|t| t.trace))
        {
            bail!("the task failed: {f}");
        }
        if Instant::now() > deadline {
            bail!("{} records not in Kafka within 600 s", args.kafka_records);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let secs = t.elapsed().as_secs_f64();
    worker.shutdown();
    if base >= args.kafka_records || secs <= 0.0 {
        // Everything landed between two looks at the topic: time it from
        // the start of the connector instead (start-up included).
        return Ok(args.kafka_records as f64 / started.elapsed().as_secs_f64());
    }
    Ok((args.kafka_records - base) as f64 / secs)
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let mut rows = Vec::new();
    for lang in &args.langs {
        let path = args.examples_dir.join(lang).join("counter-source.wasm");
        if !path.is_file() {
            eprintln!("{lang}: {} is missing (just build-examples); skipped", path.display());
            continue;
        }
        rows.push(measure(&args, lang, &path).with_context(|| format!("measuring {lang}"))?);
    }
    println!();
    println!(
        "The counter source per language: medians of {} runs; {}-byte values; boundary = poll(1000) loop in one instance, {} records; Kafka = {} records, one task, at-least-once",
        args.runs, args.value_size, args.records, args.kafka_records
    );
    let rust_ns = rows.iter().find(|r| r.lang == "rust").map(|r| r.ns_per_record);
    println!(
        "{:<8} {:>10} {:>12} {:>12} {:>13} {:>12} {:>9} {:>11} {:>13}",
        "lang",
        "size KiB",
        "compile ms",
        "cached ms",
        "instantiate",
        "ns/record",
        "x Rust",
        "memory MiB",
        "Kafka rec/s"
    );
    for r in &rows {
        let ratio = rust_ns.map_or(f64::NAN, |rust| r.ns_per_record / rust);
        println!(
            "{:<8} {:>10.0} {:>12.0} {:>12.1} {:>13.2} {:>12.0} {:>9.2} {:>11.1} {:>13.0}",
            r.lang,
            r.size as f64 / 1024.0,
            r.cold_ms,
            r.cached_ms,
            r.instantiate_ms,
            r.ns_per_record,
            ratio,
            r.memory_mib,
            r.kafka_rate
        );
    }
    if rows.iter().any(|r| r.before.is_some()) {
        println!();
        println!(
            "Before and after, same run, the old records (value.size=0: the old counter-source's short values), ns/record:"
        );
        println!("{:<8} {:>12} {:>12} {:>10}", "lang", "before", "after", "speed-up");
        for r in &rows {
            if let Some((old, new)) = r.before {
                println!("{:<8} {:>12.0} {:>12.0} {:>9.1}x", r.lang, old, new, old / new);
            }
        }
    }
    let rust_rate = rows.iter().find(|r| r.lang == "rust").map(|r| r.kafka_rate);
    let mut out = Vec::new();
    for r in &rows {
        let scenario = format!("languages-{}", r.lang);
        let note = format!("median of {} runs", args.runs);
        out.push(
            Record::new(&scenario, "boundary", r.ns_per_record, "ns/record")
                .runs(args.runs)
                .note(format!(
                    "{note}; poll(1000) loop in one instance, {}-byte values",
                    args.value_size
                )),
        );
        if let Some((old, new)) = r.before {
            out.push(
                Record::new(&scenario, "boundary-before", old, "ns/record")
                    .runs(args.runs)
                    .note(format!("{note}; the older component, its own short values")),
            );
            out.push(
                Record::new(&scenario, "boundary-after-short", new, "ns/record")
                    .runs(args.runs)
                    .note(format!("{note}; this component, value.size=0")),
            );
        }
        if args.skip_kafka {
            continue;
        }
        let mut kafka = Record::new(&scenario, "kafka-throughput", r.kafka_rate, "rec/s")
            .runs(args.runs)
            .note(format!("{note}; {} records, one task", args.kafka_records));
        if r.lang != "rust"
            && let Some(rust) = rust_rate
        {
            kafka = kafka.vs("Rust", Some(rust), None);
        }
        out.push(kafka);
    }
    results::append(&out)?;
    Ok(())
}
