//! `copycat-bench`: throughput of Copycat's datagen source component → Kafka,
//! against the ceiling of a plain rdkafka producer loop writing the same
//! records with the same producer settings to the same broker.
//!
//! Each run measures both, in alternating order (odd runs: ceiling first),
//! each against its own fresh topic with the same partition count:
//!
//! - ceiling: a `BaseProducer` with exactly Copycat's source-task producer
//!   settings (`copycat_runtime::kafka::producer_config`: idempotent,
//!   `acks=all`, `linger.ms=5`), sending the keys and values datagen
//!   generates (`stream-0:<seq>`, value = key + '.' padding), no explicit
//!   partition. Timed from the first send to the last delivery
//!   acknowledgement.
//! - copycat: an embedded `Worker` running the datagen component
//!   (`tasks.max=1`, `streams=1`, `count=<records>`). Timed from
//!   `start_connector` until the topic's end offsets sum to `records`
//!   (watermarks polled every 20 ms), so it includes the connector's start:
//!   loading the component, instantiating it, reading the offsets topic and
//!   creating the producer. That start-up is also reported on its own.
//!
//! This is a benchmark, not a test: nothing is asserted about speed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, ValueEnum};
use copycat_runtime::engine::{EngineConfig, WasmEngine};
use copycat_runtime::kafka::producer_config;
use copycat_runtime::task::TaskState;
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::{ClientConfig, ClientContext};

/// Throughput of Copycat's datagen source → Kafka, against a plain rdkafka
/// producer loop (the ceiling) on the same broker.
#[derive(Parser, Debug)]
#[command(about, long_about = None)]
struct Args {
    /// Records per measurement.
    #[arg(long, default_value_t = 1_000_000)]
    records: u64,
    /// Bytes per record value (datagen's `value.size`).
    #[arg(long, default_value_t = 100)]
    value_size: usize,
    /// Partitions of each benchmark topic.
    #[arg(long, default_value_t = 3)]
    partitions: i32,
    /// Runs; each measures the ceiling and Copycat, in alternating order.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Records per datagen poll (`batch.size` and the host's `poll.max.records`).
    #[arg(long, default_value_t = 2000)]
    batch_size: u32,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding datagen.wasm (the worker's `plugin.path`).
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
    /// What to measure.
    #[arg(long, value_enum, default_value_t = Only::Both)]
    only: Only,
    /// Keep the benchmark topics (by default they are deleted at the end).
    #[arg(long)]
    keep_topics: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Only {
    Both,
    Ceiling,
    Copycat,
}

impl Args {
    fn ceiling(&self) -> bool {
        self.only != Only::Copycat
    }

    fn copycat(&self) -> bool {
        self.only != Only::Ceiling
    }
}

/// One timed phase.
#[derive(Debug, Clone, Copy)]
struct Measurement {
    elapsed: Duration,
    /// Copycat only: `start_connector` → first record visible in the topic.
    startup: Option<Duration>,
    /// Copycat only: records per second after the first record was visible.
    steady: Option<f64>,
}

impl Measurement {
    fn rate(&self, records: u64) -> f64 {
        records as f64 / self.elapsed.as_secs_f64()
    }
}

#[derive(Debug, Default)]
struct Run {
    ceiling: Option<Measurement>,
    copycat: Option<Measurement>,
}

fn unique(prefix: &str) -> String {
    let n: u64 = rand::rng().random();
    format!("{prefix}-{n:016x}")
}

fn bar(prefix: &str, len: u64) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{prefix:>20} [{elapsed_precise}] [{bar:32}] {pos:>9}/{len:9} {per_sec:>14} {msg}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_prefix(prefix.to_owned());
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}

fn spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}

// ------------------------------------------------------------------ Kafka helpers

fn admin(bootstrap: &str) -> Result<AdminClient<DefaultClientContext>> {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .context("creating the admin client")
}

async fn create_topics(bootstrap: &str, topics: &[&str], partitions: i32) -> Result<()> {
    let admin = admin(bootstrap)?;
    let new: Vec<NewTopic<'_>> = topics
        .iter()
        .map(|t| NewTopic::new(t, partitions, TopicReplication::Fixed(1)))
        .collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    for r in admin.create_topics(&new, &opts).await.context("creating topics")? {
        r.map_err(|(t, code)| anyhow!("creating topic {t}: {code}"))?;
    }
    Ok(())
}

async fn delete_topics(bootstrap: &str, topics: &[String]) -> Result<()> {
    if topics.is_empty() {
        return Ok(());
    }
    let admin = admin(bootstrap)?;
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    for r in admin.delete_topics(&names, &opts).await.context("deleting topics")? {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::UnknownTopicOrPartition)) => {}
            Err((t, code)) => eprintln!("warning: deleting topic {t}: {code}"),
        }
    }
    Ok(())
}

/// Reads a topic's end offsets.
struct Watermarks {
    consumer: BaseConsumer,
    topic: String,
    partitions: i32,
}

impl Watermarks {
    fn new(bootstrap: &str, topic: &str, partitions: i32) -> Result<Self> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", bootstrap)
            .set("client.id", "copycat-bench-watermarks")
            .create()
            .context("creating the watermark consumer")?;
        Ok(Self {
            consumer,
            topic: topic.to_owned(),
            partitions,
        })
    }

    /// Wait until the broker reports every partition of a freshly created
    /// topic with a leader and answers end-offset requests for all of them.
    fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(md) = self.consumer.fetch_metadata(Some(&self.topic), Duration::from_secs(5))
                && let Some(t) = md.topics().first()
                && t.error().is_none()
                && t.partitions().len() == self.partitions as usize
                && t.partitions().iter().all(|p| p.error().is_none() && p.leader() >= 0)
                && self.sum().is_ok()
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("topic {} did not become ready within 30 s", self.topic);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The sum of the end offsets (the topics are fresh: start offsets are 0).
    fn sum(&self) -> Result<u64> {
        let mut total = 0;
        for p in 0..self.partitions {
            let (_, hi) = self
                .consumer
                .fetch_watermarks(&self.topic, p, Duration::from_secs(10))
                .with_context(|| format!("reading the end offset of {}/{p}", self.topic))?;
            total += hi.max(0) as u64;
        }
        Ok(total)
    }
}

// ------------------------------------------------------------------ the ceiling

/// Counts delivery acknowledgements.
struct CountAcks {
    target: u64,
    acked: AtomicU64,
    failed: AtomicU64,
    first_error: Mutex<Option<String>>,
    last_ack: Mutex<Option<Instant>>,
}

impl ClientContext for CountAcks {}

impl ProducerContext for CountAcks {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        match result {
            Ok(_) => {
                if self.acked.fetch_add(1, Ordering::Relaxed) + 1 == self.target
                    && let Ok(mut t) = self.last_ack.lock()
                {
                    *t = Some(Instant::now());
                }
            }
            Err((e, _)) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut first) = self.first_error.lock() {
                    first.get_or_insert_with(|| e.to_string());
                }
            }
        }
    }
}

/// The record datagen generates for stream 0, sequence `seq`.
fn datagen_record(seq: u64, value_size: usize, key: &mut String, value: &mut Vec<u8>) {
    key.clear();
    let _ = write!(key, "stream-0:{seq}");
    value.clear();
    let take = key.len().min(value_size);
    value.extend_from_slice(&key.as_bytes()[..take]);
    value.resize(value_size, b'.');
}

fn run_ceiling(args: &Args, worker: &WorkerConfig, topic: &str, warmup_topic: &str) -> Result<Measurement> {
    // Exactly the settings of Copycat's source-task producers.
    let mut cfg = producer_config(worker, &BTreeMap::new());
    cfg.set("client.id", "copycat-bench-ceiling");
    let producer: BaseProducer<CountAcks> = cfg
        .create_with_context(CountAcks {
            target: args.records,
            acked: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            first_error: Mutex::new(None),
            last_ack: Mutex::new(None),
        })
        .context("creating the ceiling producer")?;
    // Warm up before the clock starts: connected, the topic's metadata
    // known, and the idempotent producer's id acquired (a fresh idempotent
    // librdkafka producer that finds no broker up yet retries that after a
    // fixed 500 ms). The warm-up record goes to its own topic, so the
    // benchmark topic holds exactly `records` records.
    producer
        .client()
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .context("fetching the ceiling topic's metadata")?;
    producer
        .send(BaseRecord::to(warmup_topic).key("warm-up").payload("warm-up"))
        .map_err(|(e, _)| anyhow!("ceiling: producing the warm-up record: {e}"))?;
    producer
        .flush(Duration::from_secs(30))
        .context("ceiling: flushing the warm-up record")?;
    let ctx = producer.context();
    if ctx.acked.swap(0, Ordering::Relaxed) != 1 {
        bail!("ceiling: the warm-up record was not acknowledged");
    }
    let pb = bar("ceiling (rdkafka)", args.records);
    let mut key = String::with_capacity(32);
    let mut value = Vec::with_capacity(args.value_size);
    let start = Instant::now();
    for seq in 0..args.records {
        datagen_record(seq, args.value_size, &mut key, &mut value);
        let mut rec = BaseRecord::to(topic).key(key.as_bytes()).payload(value.as_slice());
        loop {
            match producer.send(rec) {
                Ok(()) => break,
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    rec = back;
                    producer.poll(Duration::from_millis(10));
                }
                Err((e, _)) => bail!("ceiling: producing to {topic}: {e}"),
            }
        }
        if seq % 1024 == 0 {
            producer.poll(Duration::ZERO);
            pb.set_position(ctx.acked.load(Ordering::Relaxed));
        }
    }
    while ctx.acked.load(Ordering::Relaxed) + ctx.failed.load(Ordering::Relaxed) < args.records {
        producer.poll(Duration::from_millis(5));
        pb.set_position(ctx.acked.load(Ordering::Relaxed));
        if start.elapsed() > Duration::from_secs(600) {
            bail!("ceiling: not every record was acknowledged within 600 s");
        }
    }
    let end = ctx.last_ack.lock().ok().and_then(|t| *t).unwrap_or_else(Instant::now);
    producer.flush(Duration::from_secs(60)).context("ceiling: flushing")?;
    pb.finish_and_clear();
    let failed = ctx.failed.load(Ordering::Relaxed);
    if failed > 0 {
        let first = ctx.first_error.lock().ok().and_then(|e| e.clone()).unwrap_or_default();
        bail!("ceiling: {failed} records were not acknowledged (first error: {first})");
    }
    Ok(Measurement {
        elapsed: end - start,
        startup: None,
        steady: None,
    })
}

// ------------------------------------------------------------------ Copycat

fn worker_props(args: &Args, offsets_topic: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("bootstrap.servers".to_owned(), args.bootstrap.clone()),
        ("plugin.path".to_owned(), args.plugin_dir.display().to_string()),
        ("offset.storage.topic".to_owned(), offsets_topic.to_owned()),
    ])
}

fn run_copycat(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    topic: &str,
    created: &mut Vec<String>,
) -> Result<Measurement> {
    let offsets_topic = unique("copycat-bench-offsets");
    created.push(offsets_topic.clone());
    let wcfg = WorkerConfig::from_props(worker_props(args, &offsets_topic)).context("worker config")?;
    let offsets_partitions = wcfg.offset_storage_partitions;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    // Worker::start creates the offsets topic and returns at once; a task
    // that reads it before every partition has a leader fails with
    // NotLeaderForPartition (the runtime does not retry that yet).
    Watermarks::new(&args.bootstrap, &offsets_topic, offsets_partitions)?.wait_ready()?;
    let name = unique("bench-datagen");
    let pairs = [
        ("name", name.clone()),
        ("connector.class", "datagen".to_owned()),
        ("tasks.max", "1".to_owned()),
        ("topic", topic.to_owned()),
        ("streams", "1".to_owned()),
        ("count", args.records.to_string()),
        ("value.size", args.value_size.to_string()),
        ("batch.size", args.batch_size.to_string()),
        ("poll.max.records", args.batch_size.to_string()),
    ];
    let props = pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let cfg = ConnectorConfig::from_props(props, worker.config()).context("connector config")?;
    let marks = Watermarks::new(&args.bootstrap, topic, args.partitions)?;
    let pb = bar("copycat (datagen)", args.records);

    let start = Instant::now();
    worker.start_connector(cfg).context("starting the datagen connector")?;
    let mut first: Option<(Duration, u64)> = None;
    let mut progress = (0, Instant::now());
    let result = loop {
        let n = marks.sum()?;
        if n > 0 && first.is_none() {
            first = Some((start.elapsed(), n));
        }
        pb.set_position(n);
        if n >= args.records {
            break Ok(start.elapsed());
        }
        if n > progress.0 {
            progress = (n, Instant::now());
        } else if progress.1.elapsed() > Duration::from_secs(60) {
            break Err(anyhow!(
                "copycat: no progress for 60 s at {n} of {} records",
                args.records
            ));
        }
        let status = worker.status(&name)?;
        if let Some(t) = status.tasks.iter().find(|t| t.state == TaskState::Failed) {
            break Err(anyhow!(
                "copycat: task {} failed: {}",
                t.id,
                t.trace.as_deref().unwrap_or("(no trace)")
            ));
        }
        if let Ok(m) = worker.task_metrics(&name) {
            let polled: u64 = m.iter().map(|m| m.records_in.load(Ordering::Relaxed)).sum();
            pb.set_message(format!("polled {polled}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    pb.finish_and_clear();
    let sp = spinner("copycat: stopping the worker".into());
    worker.shutdown();
    sp.finish_and_clear();
    let elapsed = result?;
    let total = marks.sum()?;
    if total != args.records {
        eprintln!(
            "warning: copycat topic {topic} holds {total} records, expected exactly {}",
            args.records
        );
    }
    let (startup, steady) = match first {
        Some((t, n)) if elapsed > t => (Some(t), Some((args.records - n) as f64 / (elapsed - t).as_secs_f64())),
        Some((t, _)) => (Some(t), None),
        None => (None, None),
    };
    Ok(Measurement {
        elapsed,
        startup,
        steady,
    })
}

/// Compile datagen.wasm into the worker's on-disk code cache, so that no run
/// pays for compilation (each run starts a fresh worker).
fn warm_up(args: &Args) -> Result<()> {
    let path = args.plugin_dir.join("datagen.wasm");
    if !path.is_file() {
        bail!("{} is missing: run `just build-connectors`", path.display());
    }
    let wcfg = WorkerConfig::from_props(worker_props(args, "unused")).context("worker config")?;
    let sp = spinner(format!("compiling {} (cached on disk)", path.display()));
    let engine = WasmEngine::new(&EngineConfig {
        cache_dir: wcfg.component_cache_dir.clone(),
    })
    .map_err(|e| anyhow!("creating the WebAssembly engine: {e:#}"))?;
    engine
        .load(&path)
        .map_err(|e| anyhow!("loading {}: {e}", path.display()))?;
    sp.finish_and_clear();
    Ok(())
}

// ------------------------------------------------------------------ report

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// One table row: ceiling rec/s and MB/s, Copycat rec/s and MB/s, ratio,
/// start-up ms, steady-state rec/s.
fn print_row(label: &str, [c, k, ratio, start, steady]: [Option<f64>; 5], mb: impl Fn(f64) -> f64) {
    println!(
        "{:<6} {} {} {} {} {} {} {}",
        label,
        cell(c, 14, 0),
        cell(c.map(&mb), 8, 1),
        cell(k, 14, 0),
        cell(k.map(&mb), 8, 1),
        cell(ratio, 7, 3),
        cell(start, 12, 0),
        cell(steady, 15, 0),
    );
}

fn cell(v: Option<f64>, width: usize, decimals: usize) -> String {
    match v {
        Some(x) => format!("{x:>width$.decimals$}"),
        None => format!("{:>width$}", "-"),
    }
}

fn report(args: &Args, runs: &[Run]) {
    let mb = |rate: f64| rate * args.value_size as f64 / 1e6;
    println!();
    println!(
        "datagen → Kafka, {} records × {} B, {} partitions, at-least-once",
        args.records, args.value_size, args.partitions
    );
    println!(
        "(idempotent producer, acks=all, linger.ms=5; MB/s counts value bytes only, {} B per record, 1 MB = 10^6 B;",
        args.value_size
    );
    println!(" ratio = copycat rec/s ÷ ceiling rec/s; copycat time includes connector start-up, shown separately)");
    println!(
        "{:<6} {:>14} {:>8} {:>14} {:>8} {:>7} {:>12} {:>15}",
        "run", "ceiling rec/s", "MB/s", "copycat rec/s", "MB/s", "ratio", "cc start ms", "cc steady rec/s"
    );
    let mut cols: [Vec<f64>; 5] = Default::default();
    let mut steady_ratios = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let c = r.ceiling.map(|m| m.rate(args.records));
        let k = r.copycat.map(|m| m.rate(args.records));
        let ratio = c.zip(k).map(|(c, k)| k / c);
        let start = r.copycat.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3);
        let steady = r.copycat.and_then(|m| m.steady);
        steady_ratios.extend(c.zip(steady).map(|(c, s)| s / c));
        for (col, v) in cols.iter_mut().zip([c, k, ratio, start, steady]) {
            col.extend(v);
        }
        print_row(&(i + 1).to_string(), [c, k, ratio, start, steady], mb);
    }
    let [c, k, ratio, start, steady] = cols.map(median);
    print_row("median", [c, k, ratio, start, steady], mb);
    if let Some(r) = ratio {
        println!("Copycat / ceiling (median of per-run ratios): {r:.3}");
    }
    if let Some(r) = median(steady_ratios) {
        println!("Copycat after its first record / ceiling (steady state, median): {r:.3}");
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    if args.records == 0 || args.runs == 0 || args.partitions < 1 || args.batch_size == 0 {
        bail!("--records, --runs, --partitions and --batch-size must be at least 1");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    eprintln!(
        "copycat-bench: {} records × {} B, {} partitions, {} run(s), Kafka at {}",
        args.records, args.value_size, args.partitions, args.runs, args.bootstrap
    );
    if args.copycat() {
        warm_up(&args)?;
    }
    let ceiling_worker = WorkerConfig::from_props(worker_props(&args, "unused")).context("worker config")?;
    let mut created: Vec<String> = Vec::new();
    let mut runs = Vec::new();
    let outcome = (|| -> Result<()> {
        for i in 0..args.runs {
            let ceiling_topic = unique("copycat-bench-ceiling");
            let copycat_topic = unique("copycat-bench-datagen");
            let warmup_topic = unique("copycat-bench-warmup");
            let mut topics = Vec::new();
            if args.ceiling() {
                topics.push(ceiling_topic.as_str());
                rt.block_on(create_topics(&args.bootstrap, &[&warmup_topic], 1))?;
                created.push(warmup_topic.clone());
            }
            if args.copycat() {
                topics.push(copycat_topic.as_str());
            }
            rt.block_on(create_topics(&args.bootstrap, &topics, args.partitions))?;
            created.extend(topics.iter().map(|t| (*t).to_owned()));
            for t in &topics {
                Watermarks::new(&args.bootstrap, t, args.partitions)?.wait_ready()?;
            }
            runs.push(Run::default());
            let Some(run) = runs.last_mut() else { break };
            let ceiling_first = i % 2 == 0;
            for phase in 0..2 {
                if (phase == 0) == ceiling_first {
                    if args.ceiling() {
                        let m = run_ceiling(&args, &ceiling_worker, &ceiling_topic, &warmup_topic)?;
                        let total = Watermarks::new(&args.bootstrap, &ceiling_topic, args.partitions)?.sum()?;
                        if total != args.records {
                            eprintln!(
                                "warning: ceiling topic {ceiling_topic} holds {total} records, expected exactly {}",
                                args.records
                            );
                        }
                        eprintln!(
                            "run {}: ceiling {:>10.0} rec/s ({:.2} s)",
                            i + 1,
                            m.rate(args.records),
                            m.elapsed.as_secs_f64()
                        );
                        run.ceiling = Some(m);
                    }
                } else if args.copycat() {
                    let m = run_copycat(&args, &rt, &copycat_topic, &mut created)?;
                    eprintln!(
                        "run {}: copycat {:>10.0} rec/s ({:.2} s, first record after {} ms)",
                        i + 1,
                        m.rate(args.records),
                        m.elapsed.as_secs_f64(),
                        m.startup.map_or(0, |d| d.as_millis())
                    );
                    run.copycat = Some(m);
                }
            }
        }
        Ok(())
    })();
    report(&args, &runs);
    if !args.keep_topics {
        if let Err(e) = rt.block_on(delete_topics(&args.bootstrap, &created)) {
            eprintln!("warning: {e:#}");
        }
    } else if !created.is_empty() {
        eprintln!("kept topics: {}", created.join(" "));
    }
    outcome
}
