//! `copycat-bench`: throughput of Copycat's datagen source component → Kafka,
//! at-least-once and exactly-once, against the ceiling of a plain rdkafka
//! producer loop writing the same records with the same producer settings to
//! the same broker; and of Copycat's file-sink component, Kafka → file,
//! against a plain rdkafka consumer writing the same file.
//!
//! Each run measures all four, in rotating order (run 1: ceiling,
//! at-least-once, ceiling-batch, exactly-once; run 2 starts with
//! at-least-once; …), each against its own fresh topic with the same
//! partition count:
//!
//! - ceiling: a `BaseProducer` with exactly Copycat's source-task producer
//!   settings (`copycat_runtime::kafka::producer_config`: idempotent,
//!   `acks=all`, `linger.ms=5`), sending the keys and values datagen
//!   generates (`stream-0:<seq>`, value = key + '.' padding), no explicit
//!   partition. Timed from the first send to the last delivery
//!   acknowledgement.
//! - ceiling-batch: the same producer and records, generated `--batch-size`
//!   at a time into one buffer and enqueued with one
//!   `rd_kafka_produce_batch` call per batch, the call Copycat's tasks use
//!   (`copycat_runtime::kafka::batch_produce`). The ceiling above is what
//!   a program written against rust-rdkafka's API does; this one is what
//!   librdkafka can do with the same records.
//! - copycat (at-least-once): an embedded `Worker` running the datagen
//!   component (`tasks.max=1`, `streams=1`, `count=<records>`). Timed from
//!   `start_connector` until the topic's end offsets sum to `records`
//!   (watermarks polled every 20 ms), so it includes the connector's start:
//!   loading the component, instantiating it, reading the offsets topic and
//!   creating the producer. That start-up is also reported on its own.
//! - copycat-eos: the same with `delivery.guarantee=exactly-once` (and
//!   `transaction.boundary` as given, default `poll`), a fresh worker with a
//!   fresh offsets topic. End offsets include one transaction marker per
//!   partition per transaction, so completion comes from the task's metrics
//!   instead: `records_out` is set after every committed transaction; the
//!   run ends when the committed records reach `records`. A read_committed
//!   count of the topic afterwards checks it.
//!
//! Kafka → file (`sink-ceiling`, `copycat-sink`): each run fills one fresh
//! topic (same partitions) with the same records through the ceiling's
//! producer loop (not timed), then both read all of it, each in its own
//! consumer group, alternating who goes first:
//!
//! - sink-ceiling: a raw rdkafka `BaseConsumer` with the sink task's
//!   consumer settings (runtime/src/task/sink.rs: read_committed, no auto
//!   commit, `auto.offset.reset=earliest`, `fetch.queue.backoff.ms=10`),
//!   subscribed, writing each value and a `\n` to one file through a
//!   `BufWriter`, fsynced at the end. Timed from creating the consumer until
//!   the last line is written and synced.
//! - copycat-sink: an embedded `Worker` running the file-sink component
//!   (`tasks.max=1`, at-least-once) into `<dir>/<topic>-<partition>.txt`.
//!   Timed from `start_connector` until the files' sizes sum to
//!   records × (value size + 1) (polled every 10 ms). Both outputs are
//!   checked to hold exactly `records` lines.
//!
//! The headline figures (medians, ratios, the goals) are appended to
//! the results file (`copycat_bench::results`).
//!
//! This is a benchmark, not a test: nothing is asserted about speed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, ValueEnum};
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::{Watermarks, cpu_time, create_topics, delete_topics, init_tracing, median, props, unique};
use copycat_runtime::TaskState;
use copycat_runtime::config::Props;
use copycat_runtime::engine::WasmEngine;
use copycat_runtime::kafka::batch_consume::MessageQueue;
use copycat_runtime::kafka::batch_produce::{self, Msg, Run as BatchRun, Scratch, TopicHandle};
use copycat_runtime::kafka::{producer_config, sink_consumer_config};
use copycat_runtime::task::TaskMetrics;
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use indicatif::{ProgressBar, ProgressStyle};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message as _;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};
use rdkafka::{ClientConfig, ClientContext, Offset, TopicPartitionList};

/// Throughput of Copycat's datagen source → Kafka, at-least-once and
/// exactly-once, against a plain rdkafka producer loop (the ceiling) on the
/// same broker.
#[derive(Parser, Debug)]
#[command(about, long_about = None)]
struct Args {
    /// Records per measurement.
    ///
    /// 5,000,000 by default: at this machine's 1–1.5 M rec/s a million
    /// records took under a second, and Copycat's connector start-up
    /// (≈ 0.1–0.2 s, timed; the ceiling's producer is warmed up untimed)
    /// was a sixth of the run. The start-up is reported on its own (`start
    /// ms`) and stays in the timed run.
    #[arg(long, default_value_t = 5_000_000)]
    records: u64,
    /// Bytes per record value (datagen's `value.size`).
    #[arg(long, default_value_t = 100)]
    value_size: usize,
    /// Partitions of each benchmark topic.
    #[arg(long, default_value_t = 3)]
    partitions: i32,
    /// Runs; each runs every selected measurement, in rotating order.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Records per datagen poll (`batch.size` and the host's `poll.max.records`).
    #[arg(long, default_value_t = 2000)]
    batch_size: u32,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding datagen.wasm and file-sink.wasm (the worker's `plugin.path`).
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
    /// What to measure, comma-separated: ceiling, copycat (at-least-once),
    /// copycat-eos (exactly-once), ceiling-eos, sink-ceiling,
    /// sink-ceiling-batch, copycat-sink. Default: all (ceiling-eos only with
    /// the poll boundary). Ratios need the ceiling (sink-ceiling) in the
    /// same run.
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Measure>,
    /// copycat-eos: `transaction.boundary` (poll: one transaction per
    /// non-empty poll; interval: one per --transaction-interval-ms).
    #[arg(long, value_enum, default_value_t = Boundary::Poll)]
    transaction_boundary: Boundary,
    /// copycat-eos with --transaction-boundary interval:
    /// `transaction.boundary.interval.ms` (the runtime's default is
    /// `offset.flush.interval.ms`, 5000).
    #[arg(long)]
    transaction_interval_ms: Option<u64>,
    /// ceiling-eos: call `commit_transaction` with records still in flight
    /// (as Copycat's task does), instead of waiting for their
    /// acknowledgements first; shows rdkafka's 100 ms flush step.
    #[arg(long)]
    naive_commit: bool,
    /// A producer setting for every measurement, `key=value`
    /// (Copycat: `producer.override.<key>`); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    producer_override: Vec<String>,
    /// Where the sink scenarios write their files (default: the system temp
    /// directory); a fresh directory under it is removed after each run.
    #[arg(long)]
    sink_dir: Option<PathBuf>,
    /// Keep the benchmark topics (by default they are deleted at the end).
    #[arg(long)]
    keep_topics: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Measure {
    /// The raw rdkafka producer loop.
    Ceiling,
    /// The raw producer loop enqueuing each --batch-size records with one
    /// `rd_kafka_produce_batch` call (through
    /// `copycat_runtime::kafka::batch_produce`, as Copycat's tasks do)
    /// instead of one `send` per record.
    CeilingBatch,
    /// Copycat, `delivery.guarantee=at-least-once`.
    Copycat,
    /// Copycat, `delivery.guarantee=exactly-once`.
    CopycatEos,
    /// The ceiling's loop made transactional like an exactly-once task with
    /// `transaction.boundary=poll`: one transaction per --batch-size records
    /// plus one offset-like record to a second topic (measured by default
    /// with the poll boundary: what Kafka's transactions allow at that size).
    CeilingEos,
    /// Kafka → file, the ceiling: a raw rdkafka consumer with the sink
    /// task's consumer settings writing each value as a line to one file.
    SinkCeiling,
    /// Kafka → file through Copycat's file-sink component, at-least-once.
    CopycatSink,
    /// The sink ceiling taking its messages in runs
    /// (`copycat_runtime::kafka::batch_consume`, as Copycat's sink tasks
    /// do) instead of one `poll` per message.
    SinkCeilingBatch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Boundary {
    Poll,
    Interval,
}

impl Args {
    fn overrides(&self) -> Result<BTreeMap<String, String>> {
        self.producer_override
            .iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .ok_or_else(|| anyhow!("--producer-override {kv}: expected KEY=VALUE"))
            })
            .collect()
    }

    fn measures(&self, m: Measure) -> bool {
        if self.only.is_empty() {
            m != Measure::CeilingEos || self.transaction_boundary == Boundary::Poll
        } else {
            self.only.contains(&m)
        }
    }

    /// `transaction.boundary` as written in the connector config (and shown
    /// in the report).
    fn boundary_desc(&self) -> String {
        match (self.transaction_boundary, self.transaction_interval_ms) {
            (Boundary::Poll, _) => "transaction.boundary=poll".to_owned(),
            (Boundary::Interval, Some(ms)) => format!("transaction.boundary=interval, {ms} ms"),
            (Boundary::Interval, None) => "transaction.boundary=interval, default interval".to_owned(),
        }
    }
}

/// Which measurement of a run.
type Pick = fn(&Run) -> Option<Measurement>;

/// One timed phase.
#[derive(Debug, Clone, Copy)]
struct Measurement {
    elapsed: Duration,
    /// Copycat only: `start_connector` → first record visible in the topic
    /// (at-least-once) or first transaction committed (exactly-once).
    startup: Option<Duration>,
    /// Copycat only: records per second after that.
    steady: Option<f64>,
    /// Exactly-once only: transactions committed.
    transactions: Option<u64>,
    /// Copycat exactly-once only: from the moment the task had polled every
    /// record to the commit of the last transaction (with the interval
    /// boundary, the rest of the last interval).
    end_wait: Option<Duration>,
    /// CPU time of this process (user + system, all threads) over the
    /// measurement: the producer's or Copycat's own work, not the broker's.
    cpu: Option<Duration>,
}

impl Measurement {
    fn rate(&self, records: u64) -> f64 {
        records as f64 / self.elapsed.as_secs_f64()
    }

    /// CPU nanoseconds of this process per record.
    fn cpu_ns(&self, records: u64) -> Option<f64> {
        self.cpu.map(|c| c.as_secs_f64() * 1e9 / records.max(1) as f64)
    }
}

#[derive(Debug, Default)]
struct Run {
    ceiling: Option<Measurement>,
    ceiling_batch: Option<Measurement>,
    alo: Option<Measurement>,
    eos: Option<Measurement>,
    ceiling_eos: Option<Measurement>,
    sink_ceiling: Option<Measurement>,
    sink_ceiling_batch: Option<Measurement>,
    sink: Option<Measurement>,
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

/// The records datagen generates for stream 0, made the way datagen makes
/// them: key `stream-0:<seq>` (itoa), value the key padded with '.' to
/// `value_size` in a buffer that keeps its padding between records.
struct DatagenRecords {
    key: Vec<u8>,
    value: Vec<u8>,
    /// Leading bytes of `value` that hold a key.
    prefix: usize,
}

impl DatagenRecords {
    fn new(value_size: usize) -> Self {
        Self {
            key: Vec::with_capacity(32),
            value: vec![b'.'; value_size],
            prefix: 0,
        }
    }

    /// Record `seq`'s key and value.
    fn next(&mut self, seq: u64) -> (&[u8], &[u8]) {
        let mut digits = itoa::Buffer::new();
        self.key.clear();
        self.key.extend_from_slice(b"stream-0:");
        self.key.extend_from_slice(digits.format(seq).as_bytes());
        let take = self.key.len().min(self.value.len());
        self.value[..take].copy_from_slice(&self.key[..take]);
        if self.prefix > take {
            self.value[take..self.prefix].fill(b'.');
        }
        self.prefix = take;
        (&self.key, &self.value)
    }
}

fn run_ceiling(
    args: &Args,
    worker: &WorkerConfig,
    topic: &str,
    warmup_topic: &str,
    label: &str,
    batched: bool,
) -> Result<Measurement> {
    // Exactly the settings of Copycat's source-task producers.
    let mut cfg = producer_config(worker, &args.overrides()?);
    cfg.set("client.id", "copycat-bench-ceiling");
    let producer: Arc<BaseProducer<CountAcks>> = Arc::new(
        cfg.create_with_context(CountAcks {
            target: args.records,
            acked: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            first_error: Mutex::new(None),
            last_ack: Mutex::new(None),
        })
        .context("creating the ceiling producer")?,
    );
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
    let pb = bar(label, args.records);
    let cpu0 = cpu_time();
    let start = Instant::now();
    if batched {
        produce_batched(args, &producer, topic, &pb)?;
    } else {
        produce_one_by_one(args, &producer, topic, &pb)?;
    }
    while ctx.acked.load(Ordering::Relaxed) + ctx.failed.load(Ordering::Relaxed) < args.records {
        producer.poll(Duration::from_millis(5));
        pb.set_position(ctx.acked.load(Ordering::Relaxed));
        if start.elapsed() > Duration::from_secs(600) {
            bail!("ceiling: not every record was acknowledged within 600 s");
        }
    }
    let end = ctx.last_ack.lock().ok().and_then(|t| *t).unwrap_or_else(Instant::now);
    let cpu = cpu_time().saturating_sub(cpu0);
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
        transactions: None,
        end_wait: None,
        cpu: Some(cpu),
    })
}

/// Send one record, serving delivery reports while the producer's queue
/// is full.
fn send_waiting(producer: &BaseProducer<CountAcks>, topic: &str, key: &[u8], value: &[u8]) -> Result<()> {
    let mut rec = BaseRecord::to(topic).key(key).payload(value);
    loop {
        match producer.send(rec) {
            Ok(()) => return Ok(()),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                rec = back;
                producer.poll(Duration::from_millis(10));
            }
            Err((e, _)) => bail!("producing to {topic}: {e}"),
        }
    }
}

/// The ceiling's records, one `send` per record.
fn produce_one_by_one(args: &Args, producer: &BaseProducer<CountAcks>, topic: &str, pb: &ProgressBar) -> Result<()> {
    let ctx = producer.context();
    let mut records = DatagenRecords::new(args.value_size);
    for seq in 0..args.records {
        let (key, value) = records.next(seq);
        send_waiting(producer, topic, key, value).context("ceiling")?;
        if seq % 1024 == 0 {
            producer.poll(Duration::ZERO);
            pb.set_position(ctx.acked.load(Ordering::Relaxed));
        }
    }
    Ok(())
}

/// The ceiling's records, `--batch-size` at a time, each batch enqueued
/// with `rd_kafka_produce_batch` (the records are generated into one
/// buffer first, as a poll's batch arrives in Copycat).
fn produce_batched(args: &Args, producer: &Arc<BaseProducer<CountAcks>>, topic: &str, pb: &ProgressBar) -> Result<()> {
    let handle = TopicHandle::new(producer, |p| p.client(), topic).context("ceiling-batch: a topic handle")?;
    let mut scratch = Scratch::default();
    let mut records = DatagenRecords::new(args.value_size);
    let mut data: Vec<u8> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let batch = u64::from(args.batch_size.max(1));
    let mut first = 0;
    while first < args.records {
        let end = (first + batch).min(args.records);
        data.clear();
        spans.clear();
        for seq in first..end {
            let (key, value) = records.next(seq);
            spans.push((data.len(), key.len()));
            data.extend_from_slice(key);
            data.extend_from_slice(value);
        }
        let mut run = BatchRun::<()>::new(&mut scratch);
        for &(at, key_len) in &spans {
            let key = data.get(at..at + key_len);
            let value = data.get(at + key_len..at + key_len + args.value_size);
            run.push(
                Msg {
                    key,
                    value,
                    partition: None,
                },
                (),
            );
        }
        run.send(&handle, || {
            producer.poll(Duration::from_millis(10));
            Ok::<(), ()>(())
        })
        .map_err(|e| anyhow!("ceiling-batch: producing to {topic}: {e:?}"))?;
        producer.poll(Duration::ZERO);
        pb.set_position(producer.context().acked.load(Ordering::Relaxed));
        first = end;
    }
    Ok(())
}

/// The ceiling's loop with transactions: `batch_size` records per
/// transaction, plus one record to `offsets_topic` in each (as an
/// exactly-once task writes its source offset). Returns the measurement and
/// the mean time `commit_transaction` took.
fn run_ceiling_eos(args: &Args, worker: &WorkerConfig, topic: &str, offsets_topic: &str) -> Result<(Measurement, f64)> {
    let mut cfg = producer_config(worker, &args.overrides()?);
    cfg.set("client.id", "copycat-bench-ceiling-eos");
    cfg.set("transactional.id", unique("copycat-bench-ceiling-eos"));
    cfg.set("transaction.timeout.ms", "60000");
    // Delivery reports served by the producer's own thread, as a task's
    // are (by its fallback thread) while it commits.
    let producer: ThreadedProducer<CountAcks> = cfg
        .create_with_context(CountAcks {
            target: args.records,
            acked: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            first_error: Mutex::new(None),
            last_ack: Mutex::new(None),
        })
        .context("creating the transactional ceiling producer")?;
    let txn_timeout = Duration::from_secs(30);
    producer
        .init_transactions(txn_timeout)
        .context("ceiling-eos: initialising transactions")?;
    producer
        .client()
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .context("fetching the ceiling-eos topic's metadata")?;
    let ctx = producer.context();
    let pb = bar("ceiling-eos (rdkafka)", args.records);
    let mut records = DatagenRecords::new(args.value_size);
    let mut commit_time = Duration::ZERO;
    let mut transactions = 0u64;
    let cpu0 = cpu_time();
    let start = Instant::now();
    let mut seq = 0;
    while seq < args.records {
        producer
            .begin_transaction()
            .context("ceiling-eos: beginning a transaction")?;
        let end = (seq + u64::from(args.batch_size)).min(args.records);
        while seq < end {
            let (key, value) = records.next(seq);
            let mut rec = BaseRecord::to(topic).key(key).payload(value);
            loop {
                match producer.send(rec) {
                    Ok(()) => break,
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        rec = back;
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    Err((e, _)) => bail!("ceiling-eos: producing to {topic}: {e}"),
                }
            }
            seq += 1;
        }
        let offset = format!("{{\"seq\":{}}}", seq - 1);
        producer
            .send(BaseRecord::to(offsets_topic).key("stream-0").payload(&offset))
            .map_err(|(e, _)| anyhow!("ceiling-eos: producing to {offsets_topic}: {e}"))?;
        let t = Instant::now();
        // rdkafka 0.39's `commit_transaction` first calls its own `flush`,
        // which, if any message is still unacknowledged, polls for a full
        // 100 ms before looking again: every transaction would take at
        // least 100 ms. librdkafka's flush first (what a task does: sends
        // the batches lingering for `linger.ms` at once, waits for the
        // last report) makes that flush return at once.
        if !args.naive_commit {
            batch_produce::flush(producer.client(), txn_timeout);
        }
        producer
            .commit_transaction(txn_timeout)
            .context("ceiling-eos: committing a transaction")?;
        commit_time += t.elapsed();
        transactions += 1;
        pb.set_position(seq);
    }
    let elapsed = start.elapsed();
    pb.finish_and_clear();
    let failed = ctx.failed.load(Ordering::Relaxed);
    if failed > 0 {
        let first = ctx.first_error.lock().ok().and_then(|e| e.clone()).unwrap_or_default();
        bail!("ceiling-eos: {failed} records were not acknowledged (first error: {first})");
    }
    Ok((
        Measurement {
            elapsed,
            startup: None,
            steady: None,
            transactions: Some(transactions),
            end_wait: None,
            cpu: Some(cpu_time().saturating_sub(cpu0)),
        },
        commit_time.as_secs_f64() * 1e3 / transactions.max(1) as f64,
    ))
}

// ------------------------------------------------------------------ Copycat

fn worker_props(args: &Args, offsets_topic: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("bootstrap.servers".to_owned(), args.bootstrap.clone()),
        ("plugin.path".to_owned(), args.plugin_dir.display().to_string()),
        ("offset.storage.topic".to_owned(), offsets_topic.to_owned()),
    ])
}

/// Records committed so far by an exactly-once task, from its metrics:
/// (records polled, records committed, transactions committed).
///
/// `records_out` is the producer's acknowledged count, stored after every
/// committed transaction. The runtime currently counts the transaction's
/// offset records (one per source partition, so one per transaction with
/// `streams=1`) in it too; that shows as more records acknowledged than
/// polled, and is subtracted then. (Should the runtime count data records
/// only, `records_out` never exceeds `records_in` and is taken as is.)
fn eos_progress(metrics: &[Arc<TaskMetrics>]) -> (u64, u64, u64) {
    let sum = |f: fn(&TaskMetrics) -> &AtomicU64| metrics.iter().map(|m| f(m).load(Ordering::Relaxed)).sum::<u64>();
    let out = sum(|m| &m.records_out);
    let commits = sum(|m| &m.offset_commits);
    let polled = sum(|m| &m.records_in);
    let committed = if out > polled { out.saturating_sub(commits) } else { out };
    (polled, committed, commits)
}

/// Count the records a read_committed consumer sees in `topic`, reading from
/// the beginning until its position reaches the end offsets on every
/// partition (positions, not the last record's offset: with transactions the
/// last offsets of a partition are commit markers).
fn count_committed(bootstrap: &str, topic: &str, partitions: i32) -> Result<u64> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("client.id", "copycat-bench-verify")
        .set("group.id", unique("copycat-bench-verify"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .context("creating the read_committed consumer")?;
    let mut ends = Vec::new();
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        let (_, hi) = consumer
            .fetch_watermarks(topic, p, Duration::from_secs(10))
            .with_context(|| format!("reading the end offset of {topic}/{p}"))?;
        ends.push(hi.max(0));
        tpl.add_partition_offset(topic, p, Offset::Beginning)?;
    }
    consumer.assign(&tpl).context("assigning the verify consumer")?;
    let reached = |c: &BaseConsumer| -> bool {
        c.position().is_ok_and(|pos| {
            (0..partitions).all(|p| match pos.find_partition(topic, p).map(|e| e.offset()) {
                Some(Offset::Offset(o)) => o >= ends[p as usize],
                _ => ends[p as usize] == 0,
            })
        })
    };
    let mut count = 0u64;
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut idle_since = Instant::now();
    loop {
        match consumer.poll(Duration::from_millis(100)) {
            Some(Ok(_)) => {
                count += 1;
                idle_since = Instant::now();
                continue;
            }
            None => {}
            Some(Err(e)) => bail!("verify: consuming {topic}: {e}"),
        }
        if reached(&consumer) {
            return Ok(count);
        }
        if Instant::now() > deadline || idle_since.elapsed() > Duration::from_secs(10) {
            eprintln!("warning: verify: the read_committed position of {topic} did not reach the end offsets {ends:?}");
            return Ok(count);
        }
    }
}

fn run_copycat(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    topic: &str,
    exactly_once: bool,
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
    let mut pairs = vec![
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
    if exactly_once {
        pairs.push(("delivery.guarantee", "exactly-once".to_owned()));
        let boundary = match args.transaction_boundary {
            Boundary::Poll => "poll",
            Boundary::Interval => "interval",
        };
        pairs.push(("transaction.boundary", boundary.to_owned()));
        if let Some(ms) = args.transaction_interval_ms {
            pairs.push(("transaction.boundary.interval.ms", ms.to_string()));
        }
    } else {
        pairs.push(("delivery.guarantee", "at-least-once".to_owned()));
    }
    let mut props: BTreeMap<String, String> = pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    props.extend(
        args.overrides()?
            .into_iter()
            .map(|(k, v)| (format!("producer.override.{k}"), v)),
    );
    let cfg = ConnectorConfig::from_props(props, worker.config()).context("connector config")?;
    let marks = Watermarks::new(&args.bootstrap, topic, args.partitions)?;
    let pb = bar(
        if exactly_once {
            "copycat-eos (datagen)"
        } else {
            "copycat (datagen)"
        },
        args.records,
    );

    let cpu0 = cpu_time();
    let start = Instant::now();
    worker.start_connector(cfg).context("starting the datagen connector")?;
    let mut first: Option<(Duration, u64)> = None;
    let mut watchdog = Watchdog::new(if exactly_once { "copycat-eos" } else { "copycat" });
    let mut transactions = 0;
    let mut all_polled: Option<Duration> = None;
    let result = loop {
        // At-least-once: records in the topic. Exactly-once: records in
        // committed transactions (the end offsets also count markers).
        let (n, msg) = if exactly_once {
            let (polled, committed, commits) = eos_progress(&worker.task_metrics(&name)?);
            transactions = commits;
            if polled >= args.records && all_polled.is_none() {
                all_polled = Some(start.elapsed());
            }
            (committed, format!("polled {polled}, {commits} txns"))
        } else {
            let polled: u64 = worker
                .task_metrics(&name)?
                .iter()
                .map(|m| m.records_in.load(Ordering::Relaxed))
                .sum();
            (marks.sum()?, format!("polled {polled}"))
        };
        if n > 0 && first.is_none() {
            first = Some((start.elapsed(), n));
        }
        pb.set_position(n);
        pb.set_message(msg);
        if n >= args.records {
            break Ok((start.elapsed(), cpu_time().saturating_sub(cpu0)));
        }
        if let Err(e) = watchdog.check(&worker, &name, n, args.records, "records") {
            break Err(e);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    pb.finish_and_clear();
    let sp = spinner("copycat: stopping the worker".into());
    worker.shutdown();
    sp.finish_and_clear();
    let (elapsed, cpu) = result?;
    if exactly_once {
        let sp = spinner(format!("copycat-eos: counting {topic} with read_committed"));
        let total = count_committed(&args.bootstrap, topic, args.partitions)?;
        sp.finish_and_clear();
        if total != args.records {
            eprintln!(
                "warning: copycat-eos topic {topic} holds {total} committed records, expected exactly {}",
                args.records
            );
        }
    } else {
        let total = marks.sum()?;
        if total != args.records {
            eprintln!(
                "warning: copycat topic {topic} holds {total} records, expected exactly {}",
                args.records
            );
        }
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
        transactions: exactly_once.then_some(transactions),
        end_wait: all_polled.map(|t| elapsed.saturating_sub(t)),
        cpu: Some(cpu),
    })
}

// ------------------------------------------------------------------ Kafka → file

/// Bytes the sink files hold once every record is written: each value plus
/// its `\n`.
fn sink_bytes(args: &Args) -> u64 {
    args.records * (args.value_size as u64 + 1)
}

/// Sum of the sizes of the regular files in `dir` (not hidden ones: the
/// file sink's exactly-once temporary files start with a `.`).
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Lines (`\n`s) in the regular, non-hidden files of `dir`.
fn dir_lines(dir: &Path) -> Result<u64> {
    let mut lines = 0u64;
    for e in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let e = e.with_context(|| format!("listing {}", dir.display()))?;
        if e.file_name().to_string_lossy().starts_with('.') || !e.path().is_file() {
            continue;
        }
        lines += file_lines(&e.path())?;
    }
    Ok(lines)
}

/// Lines (`\n` bytes) in the file at `path`.
fn file_lines(path: &Path) -> Result<u64> {
    let mut lines = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    let mut f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    Ok(lines)
}

/// Fill a fresh sink topic with the records datagen generates (the
/// ceiling's producer loop; not timed as a result).
fn fill_sink_topic(args: &Args, worker: &WorkerConfig, topic: &str, warmup_topic: &str) -> Result<()> {
    let m = run_ceiling(args, worker, topic, warmup_topic, "filling the sink topic", false)?;
    let total = Watermarks::new(&args.bootstrap, topic, args.partitions)?.sum()?;
    if total != args.records {
        bail!(
            "the sink topic {topic} holds {total} records after filling, expected {}",
            args.records
        );
    }
    eprintln!(
        "filled {topic} with {} records ({:.0} rec/s)",
        args.records,
        m.rate(args.records)
    );
    Ok(())
}

/// Ends a Copycat measurement that stalls (no progress for 60 s) or whose
/// task failed, with an error saying which.
struct Watchdog {
    label: &'static str,
    best: u64,
    since: Instant,
}

impl Watchdog {
    fn new(label: &'static str) -> Self {
        Self {
            label,
            best: 0,
            since: Instant::now(),
        }
    }

    /// `done` of `total` `unit` so far.
    fn check(&mut self, worker: &Worker, name: &str, done: u64, total: u64, unit: &str) -> Result<()> {
        if done > self.best {
            (self.best, self.since) = (done, Instant::now());
        } else if self.since.elapsed() > Duration::from_secs(60) {
            bail!("{}: no progress for 60 s at {done} of {total} {unit}", self.label);
        }
        let status = worker.status(name)?;
        if let Some(t) = status.tasks.iter().find(|t| t.state == TaskState::Failed) {
            bail!(
                "{}: task {} failed: {}",
                self.label,
                t.id,
                t.trace.as_deref().unwrap_or("(no trace)")
            );
        }
        Ok(())
    }
}

/// The sink ceiling: a raw `BaseConsumer` (subscribed, as a sink task is)
/// reading `topic` and writing each value as a line to one file through a
/// `BufWriter`, fsynced at the end. Timed from creating the consumer until
/// the last line is written and synced.
///
/// `batched`: the messages come in runs through
/// `copycat_runtime::kafka::batch_consume` (the partitions routed to a
/// `MessageQueue` once assigned), as a sink task takes them; otherwise one
/// `poll` per message.
fn run_sink_ceiling(args: &Args, worker: &WorkerConfig, topic: &str, dir: &Path, batched: bool) -> Result<Measurement> {
    let label = if batched { "sink-ceiling-batch" } else { "sink-ceiling" };
    let path = dir.join(format!("{label}.txt"));
    let pb = bar(&format!("{label} (rdkafka)"), args.records);
    let cpu0 = cpu_time();
    let start = Instant::now();
    let consumer: BaseConsumer = sink_consumer_config(
        worker,
        &Props::new(),
        &unique("copycat-bench-sink-ceiling"),
        "copycat-bench-sink-ceiling",
    )
    .create()
    .with_context(|| format!("creating the {label} consumer"))?;
    consumer
        .subscribe(&[topic])
        .with_context(|| format!("{label}: subscribing to {topic}"))?;
    let mut queue = MessageQueue::new(consumer.client()).with_context(|| format!("{label}: a message queue"))?;
    let file = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = BufWriter::with_capacity(64 * 1024, file);
    let mut n = 0u64;
    let mut first: Option<Duration> = None;
    let progress = std::cell::Cell::new(Instant::now());
    let mut line = |value: Option<&[u8]>, n: &mut u64| -> Result<()> {
        if let Some(v) = value {
            out.write_all(v)
                .and_then(|()| out.write_all(b"\n"))
                .with_context(|| format!("writing {}", path.display()))?;
        }
        *n += 1;
        if first.is_none() {
            first = Some(start.elapsed());
        }
        if n.is_multiple_of(4096) {
            pb.set_position(*n);
            progress.set(Instant::now());
        }
        Ok(())
    };
    while n < args.records {
        let mut got = false;
        if batched && queue.is_routed() {
            // Events (and anything fetched before the routing) first.
            while let Some(r) = consumer.poll(Duration::ZERO) {
                match r {
                    Ok(m) => line(m.payload(), &mut n)?,
                    Err(e) => eprintln!("warning: {label}: consumer error: {e}"),
                }
                got = true;
            }
            let mut wait = Duration::from_millis(100);
            while n < args.records {
                match queue.next(wait).with_context(|| format!("{label}: consuming"))? {
                    Some(m) => {
                        if let Some(e) = m.error() {
                            eprintln!("warning: {label}: consumer error: {e}");
                        } else {
                            line(m.payload(), &mut n)?;
                        }
                        got = true;
                    }
                    None => break,
                }
                wait = Duration::ZERO;
            }
        } else {
            match consumer.poll(Duration::from_millis(100)) {
                Some(Ok(m)) => {
                    line(m.payload(), &mut n)?;
                    got = true;
                }
                Some(Err(e)) => eprintln!("warning: {label}: consumer error: {e}"),
                None => {
                    let assignment = consumer.assignment().with_context(|| format!("{label}: assignment"))?;
                    if batched && assignment.count() > 0 {
                        let elements = assignment.elements();
                        queue
                            .route(elements.iter().map(|e| (e.topic(), e.partition())))
                            .with_context(|| format!("{label}: routing the partitions"))?;
                    }
                }
            }
        }
        if !got && progress.get().elapsed() > Duration::from_secs(60) {
            bail!("{label}: no record for 60 s at {n} of {}", args.records);
        }
    }
    drop(queue);
    let file = out
        .into_inner()
        .map_err(|e| anyhow!("flushing {}: {}", path.display(), e.error()))?;
    file.sync_all().with_context(|| format!("syncing {}", path.display()))?;
    let elapsed = start.elapsed();
    let cpu = cpu_time().saturating_sub(cpu0);
    pb.finish_and_clear();
    drop(consumer);
    let lines = file_lines(&path)?;
    if lines != args.records {
        bail!(
            "{label}: {} holds {lines} lines, expected {}",
            path.display(),
            args.records
        );
    }
    Ok(Measurement {
        elapsed,
        startup: first,
        steady: first
            .filter(|f| elapsed > *f)
            .map(|f| (args.records - 1) as f64 / (elapsed - f).as_secs_f64()),
        transactions: None,
        end_wait: None,
        cpu: Some(cpu),
    })
}

/// Copycat's sink: an embedded worker running the file-sink component
/// (`tasks.max=1`, at-least-once) on `topic`, writing
/// `<dir>/<topic>-<partition>.txt`. Timed from `start_connector` until the
/// files hold every line (their sizes sum to records × (value size + 1),
/// polled every 10 ms); the lines are counted afterwards.
fn run_copycat_sink(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    topic: &str,
    dir: &Path,
    created: &mut Vec<String>,
) -> Result<Measurement> {
    let offsets_topic = unique("copycat-bench-offsets");
    created.push(offsets_topic.clone());
    let wcfg = WorkerConfig::from_props(worker_props(args, &offsets_topic)).context("worker config")?;
    let offsets_partitions = wcfg.offset_storage_partitions;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    Watermarks::new(&args.bootstrap, &offsets_topic, offsets_partitions)?.wait_ready()?;
    let out = dir.join("copycat-sink");
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let out_str = out.display().to_string();
    let name = unique("bench-file-sink");
    let cfg = ConnectorConfig::from_props(
        props(&[
            ("name", &name),
            ("connector.class", "file-sink"),
            ("tasks.max", "1"),
            ("topics", topic),
            ("directory", &out_str),
            ("grants.fs.write", &out_str),
        ]),
        worker.config(),
    )
    .context("connector config")?;
    let expected = sink_bytes(args);
    let line = args.value_size as u64 + 1;
    let pb = bar("copycat-sink (file-sink)", args.records);
    let cpu0 = cpu_time();
    let start = Instant::now();
    worker
        .start_connector(cfg)
        .context("starting the file-sink connector")?;
    let mut first: Option<(Duration, u64)> = None;
    let mut watchdog = Watchdog::new("copycat-sink");
    let result = loop {
        let bytes = dir_bytes(&out);
        if bytes > 0 && first.is_none() {
            first = Some((start.elapsed(), bytes / line));
        }
        if bytes >= expected {
            break Ok((start.elapsed(), cpu_time().saturating_sub(cpu0)));
        }
        pb.set_position(bytes / line);
        if let Err(e) = watchdog.check(&worker, &name, bytes / line, args.records, "lines") {
            break Err(e);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    pb.finish_and_clear();
    let sp = spinner("copycat-sink: stopping the worker".into());
    worker.shutdown();
    sp.finish_and_clear();
    let (elapsed, cpu) = result?;
    let lines = dir_lines(&out)?;
    if lines != args.records {
        bail!(
            "copycat-sink: {} holds {lines} lines, expected {}",
            out.display(),
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
        transactions: None,
        end_wait: None,
        cpu: Some(cpu),
    })
}

/// Compile the components (`datagen`, `file-sink`) into the worker's
/// on-disk code cache, so that no run pays for compilation (each run starts
/// a fresh worker).
fn warm_up(args: &Args, components: &[&str]) -> Result<()> {
    let wcfg = WorkerConfig::from_props(worker_props(args, "unused")).context("worker config")?;
    let engine =
        WasmEngine::new(&wcfg.engine_config()).map_err(|e| anyhow!("creating the WebAssembly engine: {e:#}"))?;
    for name in components {
        let path = args.plugin_dir.join(format!("{name}.wasm"));
        if !path.is_file() {
            bail!("{} is missing: run `just build-connectors`", path.display());
        }
        let sp = spinner(format!("compiling {} (cached on disk)", path.display()));
        engine
            .load(&path)
            .map_err(|e| anyhow!("loading {}: {e}", path.display()))?;
        sp.finish_and_clear();
    }
    Ok(())
}

// ------------------------------------------------------------------ report

/// One table column: a value per run, and the median over the runs.
struct Col {
    head: &'static str,
    width: usize,
    decimals: usize,
    values: Vec<Option<f64>>,
}

impl Col {
    fn new(head: &'static str, width: usize, decimals: usize, values: Vec<Option<f64>>) -> Self {
        Self {
            head,
            width: width.max(head.chars().count()),
            decimals,
            values,
        }
    }

    fn median(&self) -> Option<f64> {
        median(self.values.iter().flatten().copied().collect())
    }
}

fn cell(v: Option<f64>, width: usize, decimals: usize) -> String {
    match v {
        Some(x) => format!("{x:>width$.decimals$}"),
        None => format!("{:>width$}", "-"),
    }
}

/// The columns' rows per run, then their medians.
fn print_table(cols: &[Col], runs: usize) {
    let mut line = format!("{:<6}", "run");
    for c in cols {
        let _ = write!(line, " {:>w$}", c.head, w = c.width);
    }
    println!("{line}");
    for i in 0..runs {
        let mut line = format!("{:<6}", i + 1);
        for c in cols {
            let _ = write!(
                line,
                " {}",
                cell(c.values.get(i).copied().flatten(), c.width, c.decimals)
            );
        }
        println!("{line}");
    }
    let mut line = format!("{:<6}", "median");
    for c in cols {
        let _ = write!(line, " {}", cell(c.median(), c.width, c.decimals));
    }
    println!("{line}");
}

/// Per-run `a ÷ b`, where both were measured.
fn ratios(a: &[Option<f64>], b: &[Option<f64>]) -> Vec<Option<f64>> {
    a.iter().zip(b).map(|(a, b)| a.zip(*b).map(|(a, b)| a / b)).collect()
}

/// The Kafka → file table: the sink ceiling, Copycat's file sink and their
/// ratio per run and the medians.
fn report_sink(args: &Args, runs: &[Run]) {
    let records = args.records;
    let ceiling: Vec<Option<f64>> = runs.iter().map(|r| r.sink_ceiling.map(|m| m.rate(records))).collect();
    let sink: Vec<Option<f64>> = runs.iter().map(|r| r.sink.map(|m| m.rate(records))).collect();
    let cpu = |get: &dyn Fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(records))).collect()
    };
    let mut cols = Vec::new();
    if args.measures(Measure::SinkCeiling) {
        cols.push(Col::new("ceiling rec/s", 13, 0, ceiling.clone()));
        cols.push(Col::new(
            "start ms",
            8,
            0,
            runs.iter()
                .map(|r| r.sink_ceiling.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3))
                .collect(),
        ));
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.sink_ceiling)));
    }
    let batch: Vec<Option<f64>> = runs
        .iter()
        .map(|r| r.sink_ceiling_batch.map(|m| m.rate(records)))
        .collect();
    if args.measures(Measure::SinkCeilingBatch) {
        cols.push(Col::new("batch rec/s", 11, 0, batch.clone()));
        if args.measures(Measure::SinkCeiling) {
            cols.push(Col::new("ratio", 6, 3, ratios(&batch, &ceiling)));
        }
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.sink_ceiling_batch)));
    }
    let ratio_col = Col::new("ratio", 6, 3, ratios(&sink, &ceiling));
    let steady_col = Col::new(
        "steady",
        6,
        3,
        runs.iter()
            .map(|r| {
                r.sink
                    .and_then(|m| m.steady)
                    .zip(r.sink_ceiling.and_then(|m| m.steady))
                    .map(|(s, c)| s / c)
            })
            .collect(),
    );
    let (sink_median, ratio_median, steady_median) = (median(flat(&sink)), ratio_col.median(), steady_col.median());
    if args.measures(Measure::CopycatSink) {
        cols.push(Col::new("sink rec/s", 10, 0, sink.clone()));
        if args.measures(Measure::SinkCeiling) {
            cols.push(ratio_col);
        }
        cols.push(Col::new(
            "start ms",
            8,
            0,
            runs.iter()
                .map(|r| r.sink.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3))
                .collect(),
        ));
        if args.measures(Measure::SinkCeiling) {
            cols.push(steady_col);
        }
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.sink)));
        if args.measures(Measure::SinkCeilingBatch) {
            cols.push(Col::new("sink/batch", 10, 3, ratios(&sink, &batch)));
        }
    }
    println!();
    println!(
        "Kafka → file, {} records × {} B, {} partitions (one pre-filled topic per run, read by both)",
        records, args.value_size, args.partitions
    );
    println!(" (ceiling = a raw rdkafka consumer with the sink task's consumer settings writing each value as a line");
    println!(
        " through a BufWriter, fsync at the end; sink = Copycat's file-sink component, at-least-once, tasks.max=1;"
    );
    println!(" both timed from start (consumer creation / start_connector, group join included) to the last line");
    println!(" written; start ms: to the first record / first line; steady = rec/s after that, sink ÷ ceiling;");
    println!(" cpu ns = CPU time of this process (all threads, not the broker) per record;");
    println!(" batch = the same raw consumer taking its messages in runs, as Copycat's sink task does)");
    print_table(&cols, runs.len());
    match (sink_median, ratio_median, steady_median) {
        (Some(rate), Some(ratio), Some(steady)) => println!(
            "Copycat file-sink: {rate:.0} rec/s, {ratio:.3} of the sink ceiling (median of per-run ratios), steady state {steady:.3}"
        ),
        (Some(rate), Some(ratio), None) => {
            println!("Copycat file-sink: {rate:.0} rec/s, {ratio:.3} of the sink ceiling (median of per-run ratios)")
        }
        (Some(rate), _, _) => println!("Copycat file-sink: {rate:.0} rec/s"),
        _ => {}
    }
}

fn flat(v: &[Option<f64>]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

/// Append the headline figures to the results file (see
/// `copycat_bench::results`).
fn record_results(args: &Args, runs: &[Run]) -> Result<()> {
    let n = args.records;
    let rates = |get: fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).map(|m| m.rate(n))).collect()
    };
    let with_params = |r: Record| {
        r.param("records", n as f64)
            .param("value_size", args.value_size as f64)
            .param("partitions", f64::from(args.partitions))
    };
    let mut out = Vec::new();
    let mut push = |scenario: &str,
                    values: Vec<Option<f64>>,
                    ceiling: Option<(&str, &[Option<f64>])>,
                    goal: Option<Goal>,
                    extra: String| {
        let samples = flat(&values);
        let Some(value) = median(samples.clone()) else {
            return;
        };
        let mut r = with_params(Record::new(scenario, "throughput", value, "rec/s").samples(samples.clone()));
        if let Some((label, c)) = ceiling
            && let Some(cm) = median(flat(c))
        {
            let per_run = ratios(&values, c);
            r = r.vs(label, Some(cm), median(flat(&per_run)));
        }
        if let Some(g) = goal {
            r = r.goal(g);
        }
        let mut note = format!("median of {} runs", samples.len());
        if r.ratio.is_some() {
            note.push_str("; ratio: median of per-run ratios");
        }
        note.push_str(&extra);
        out.push(r.note(note));
    };
    let ceiling = rates(|r| r.ceiling);
    let sink_ceiling = rates(|r| r.sink_ceiling);
    // The per-poll boundary is the default (and Kafka Connect's); the
    // interval boundary gets its own rows.
    let eos_scenario = match args.transaction_boundary {
        Boundary::Poll => "source-eos",
        Boundary::Interval => "source-eos-interval",
    };
    let steady = |get: fn(&Run) -> Option<Measurement>, ceil: fn(&Run) -> Option<Measurement>, both: bool| {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| {
                let c = ceil(r)?;
                let s = get(r)?.steady?;
                Some(s / if both { c.steady? } else { c.rate(n) })
            })
            .collect();
        median(v).map_or_else(String::new, |s| format!("; steady-state ratio {s:.3}"))
    };
    push("source-ceiling", ceiling.clone(), None, None, String::new());
    let ceiling_batch = rates(|r| r.ceiling_batch);
    push(
        "source-ceiling-batch",
        ceiling_batch.clone(),
        Some(("raw rdkafka producer", &ceiling)),
        None,
        format!(
            "; the raw producer enqueuing {} records per rd_kafka_produce_batch call (Copycat's enqueue path)",
            args.batch_size
        ),
    );
    push(
        "source-alo-vs-batch-ceiling",
        rates(|r| r.alo),
        Some(("raw producer with rd_kafka_produce_batch", &ceiling_batch)),
        None,
        steady(|r| r.alo, |r| r.ceiling_batch, false),
    );
    push(
        "source-alo",
        rates(|r| r.alo),
        Some(("raw rdkafka producer", &ceiling)),
        Some(Goal::ratio_at_least(0.9)),
        steady(|r| r.alo, |r| r.ceiling, false),
    );
    push(
        eos_scenario,
        rates(|r| r.eos),
        Some(("raw rdkafka producer", &ceiling)),
        Some(Goal::ratio_at_least(0.75)),
        format!(
            "{}; {}; {} records{}",
            steady(|r| r.eos, |r| r.ceiling, false),
            args.boundary_desc(),
            args.records,
            median(
                runs.iter()
                    .filter_map(|r| r.eos?.end_wait)
                    .map(|d| d.as_secs_f64() * 1e3)
                    .collect()
            )
            .map_or_else(String::new, |ms| format!(
                "; last record polled → its commit: median {ms:.0} ms"
            ))
        ),
    );
    let ceiling_eos = rates(|r| r.ceiling_eos);
    push(
        "source-ceiling-eos",
        ceiling_eos.clone(),
        Some(("raw rdkafka producer", &ceiling)),
        None,
        format!("; one transaction per {} records", args.batch_size),
    );
    push(
        "source-eos-vs-eos-ceiling",
        rates(|r| r.eos),
        Some(("raw transactional producer", &ceiling_eos)),
        None,
        format!(
            "; both one transaction per {} records; {}",
            args.batch_size,
            args.boundary_desc()
        ),
    );
    push("sink-ceiling", sink_ceiling.clone(), None, None, String::new());
    let sink_ceiling_batch = rates(|r| r.sink_ceiling_batch);
    push(
        "sink-ceiling-batch",
        sink_ceiling_batch.clone(),
        Some(("raw rdkafka consumer → file", &sink_ceiling)),
        None,
        "; the raw consumer taking its messages in runs (rd_kafka_consume_batch_queue), as Copycat's sink task does"
            .to_owned(),
    );
    push(
        "sink-vs-batch-ceiling",
        rates(|r| r.sink),
        Some(("raw consumer taking runs of messages", &sink_ceiling_batch)),
        None,
        String::new(),
    );
    push(
        "sink",
        rates(|r| r.sink),
        Some(("raw rdkafka consumer → file", &sink_ceiling)),
        Some(Goal::ratio_at_least(0.9)),
        steady(|r| r.sink, |r| r.sink_ceiling, true),
    );
    // CPU of this process per record: what the client side costs, less
    // moved by the shared machine than the rates are.
    let cpu = |get: fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(n))).collect()
    };
    let ceiling_cpu = cpu(|r| r.ceiling);
    let cpu_rows: [(&str, Pick, &str); 4] = [
        (
            "source-ceiling-batch",
            |r| r.ceiling_batch,
            "the raw producer on rd_kafka_produce_batch",
        ),
        (
            "source-alo",
            |r| r.alo,
            "Copycat at-least-once, connector start included",
        ),
        (
            eos_scenario,
            |r| r.eos,
            "Copycat exactly-once, connector start included",
        ),
        (
            "source-ceiling-eos",
            |r| r.ceiling_eos,
            "the raw producer, transactional",
        ),
    ];
    for (scenario, get, what) in cpu_rows {
        let values = cpu(get);
        let samples = flat(&values);
        let Some(value) = median(samples.clone()) else { continue };
        let per_run = ratios(&values, &ceiling_cpu);
        out.push(
            with_params(Record::new(scenario, "cpu-per-record", value, "ns/record").samples(samples.clone()))
                .vs("raw rdkafka producer", median(flat(&ceiling_cpu)), median(flat(&per_run)))
                .note(format!(
                    "median of {} runs; CPU time of the benchmark process (all threads, not the broker) ÷ records; {what}",
                    samples.len()
                )),
        );
    }
    let sink_values = cpu(|r| r.sink);
    let sink_ceiling_cpu = cpu(|r| r.sink_ceiling);
    let samples = flat(&sink_values);
    if let Some(value) = median(samples.clone()) {
        let per_run = ratios(&sink_values, &sink_ceiling_cpu);
        out.push(
            with_params(Record::new("sink", "cpu-per-record", value, "ns/record").samples(samples.clone()))
                .vs(
                    "raw rdkafka consumer → file",
                    median(flat(&sink_ceiling_cpu)),
                    median(flat(&per_run)),
                )
                .note(format!(
                    "median of {} runs; CPU time of the benchmark process (all threads, not the broker) ÷ records; Copycat file-sink, connector start included",
                    samples.len()
                )),
        );
    }
    results::append(&out)
}

/// A summary line: what, rec/s, ratio to the ceiling, steady-state ratio.
type SummaryLine = (String, Option<f64>, Option<f64>, Option<f64>);

/// The columns of a variant of the raw producer (its rec/s and, with the
/// ceiling measured, its ratio to it) and its summary line.
fn variant_columns(
    args: &Args,
    cols: &mut Vec<Col>,
    summary: &mut Vec<SummaryLine>,
    (head, width): (&'static str, usize),
    desc: String,
    rate: &[Option<f64>],
    ceiling: &[Option<f64>],
) {
    let rate_col = Col::new(head, width, 0, rate.to_vec());
    let ratio_col = Col::new("ratio", 6, 3, ratios(rate, ceiling));
    summary.push((desc, rate_col.median(), ratio_col.median(), None));
    cols.push(rate_col);
    if args.measures(Measure::Ceiling) {
        cols.push(ratio_col);
    }
}

fn report(args: &Args, runs: &[Run]) {
    let records = args.records;
    let mb = |rate: f64| rate * args.value_size as f64 / 1e6;
    let ceiling: Vec<Option<f64>> = runs.iter().map(|r| r.ceiling.map(|m| m.rate(records))).collect();
    let mut cols = Vec::new();
    let cpu = |get: &dyn Fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(records))).collect()
    };
    if args.measures(Measure::Ceiling) {
        cols.push(Col::new("ceiling rec/s", 13, 0, ceiling.clone()));
        cols.push(Col::new("MB/s", 6, 1, ceiling.iter().map(|c| c.map(mb)).collect()));
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.ceiling)));
    }
    let mut summary: Vec<SummaryLine> = Vec::new();
    if args.measures(Measure::CeilingBatch) {
        let rate: Vec<Option<f64>> = runs.iter().map(|r| r.ceiling_batch.map(|m| m.rate(records))).collect();
        let desc = format!(
            "ceiling-batch (the raw producer, rd_kafka_produce_batch per {} records)",
            args.batch_size
        );
        variant_columns(
            args,
            &mut cols,
            &mut summary,
            ("batch rec/s", 11),
            desc,
            &rate,
            &ceiling,
        );
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.ceiling_batch)));
        if args.measures(Measure::Copycat) {
            let alo: Vec<Option<f64>> = runs.iter().map(|r| r.alo.map(|m| m.rate(records))).collect();
            cols.push(Col::new("alo/batch", 9, 3, ratios(&alo, &rate)));
        }
    }
    if args.measures(Measure::CeilingEos) {
        let rate: Vec<Option<f64>> = runs.iter().map(|r| r.ceiling_eos.map(|m| m.rate(records))).collect();
        let desc = format!(
            "ceiling-eos (the raw producer, one transaction per {} records)",
            args.batch_size
        );
        variant_columns(
            args,
            &mut cols,
            &mut summary,
            ("ceil-eos rec/s", 10),
            desc,
            &rate,
            &ceiling,
        );
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.ceiling_eos)));
    }
    for measure in [Measure::Copycat, Measure::CopycatEos] {
        if !args.measures(measure) {
            continue;
        }
        let eos = measure == Measure::CopycatEos;
        let heads = if eos {
            ["eos rec/s", "ratio", "start ms", "steady", "txns"]
        } else {
            ["alo rec/s", "ratio", "start ms", "steady", "-"]
        };
        let desc = if eos {
            format!("Copycat exactly-once ({})", args.boundary_desc())
        } else {
            "Copycat at-least-once".to_owned()
        };
        let get = |r: &Run| if eos { r.eos } else { r.alo };
        let ms: Vec<Option<Measurement>> = runs.iter().map(get).collect();
        let rate: Vec<Option<f64>> = ms.iter().map(|m| m.map(|m| m.rate(records))).collect();
        let ratio: Vec<Option<f64>> = rate
            .iter()
            .zip(&ceiling)
            .map(|(k, c)| k.zip(*c).map(|(k, c)| k / c))
            .collect();
        let steady: Vec<Option<f64>> = ms
            .iter()
            .zip(&ceiling)
            .map(|(m, c)| m.and_then(|m| m.steady).zip(*c).map(|(s, c)| s / c))
            .collect();
        let start = ms
            .iter()
            .map(|m| m.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3))
            .collect();
        let ratio_col = Col::new(heads[1], 6, 3, ratio);
        let steady_col = Col::new(heads[3], 6, 3, steady);
        let rate_col = Col::new(heads[0], 10, 0, rate);
        summary.push((desc, rate_col.median(), ratio_col.median(), steady_col.median()));
        cols.push(rate_col);
        if args.measures(Measure::Ceiling) {
            cols.push(ratio_col);
        }
        cols.push(Col::new(heads[2], 8, 0, start));
        if args.measures(Measure::Ceiling) {
            cols.push(steady_col);
        }
        cols.push(Col::new("cpu ns", 6, 0, cpu(&get)));
        if eos {
            let txns = ms
                .iter()
                .map(|m| m.and_then(|m| m.transactions).map(|t| t as f64))
                .collect();
            cols.push(Col::new(heads[4], 5, 0, txns));
            let end_wait = ms
                .iter()
                .map(|m| m.and_then(|m| m.end_wait).map(|d| d.as_secs_f64() * 1e3))
                .collect();
            cols.push(Col::new("end ms", 6, 0, end_wait));
            if args.measures(Measure::CeilingEos) {
                let eos_rate: Vec<Option<f64>> = ms.iter().map(|m| m.map(|m| m.rate(records))).collect();
                let ceiling_eos = runs
                    .iter()
                    .map(|r| r.ceiling_eos.map(|m| m.rate(records)))
                    .collect::<Vec<_>>();
                cols.push(Col::new("eos/ceil-eos", 12, 3, ratios(&eos_rate, &ceiling_eos)));
            }
        }
    }

    println!();
    println!(
        "datagen → Kafka, {} records × {} B, {} partitions, batch {} (poll.max.records)",
        records, args.value_size, args.partitions, args.batch_size
    );
    println!(
        "(idempotent producer, acks=all, linger.ms=5; MB/s counts value bytes only, {} B per record, 1 MB = 10^6 B;",
        args.value_size
    );
    println!(
        " alo = Copycat at-least-once, eos = Copycat exactly-once ({});",
        args.boundary_desc()
    );
    println!(" ratio = rec/s ÷ the same run's ceiling rec/s; Copycat time includes connector start-up (start ms:");
    println!(" until the first record is in the topic, eos: until the first transaction committed);");
    println!(" steady = rec/s after that ÷ ceiling rec/s; txns = transactions committed; end ms = from the");
    println!(" last record polled to its transaction's commit (sampled every 20 ms);");
    println!(" ceil-eos = the raw producer, transactional, one transaction per batch; eos/ceil-eos = eos ÷ ceil-eos;");
    println!(" cpu ns = CPU time of this process (all threads, not the broker) per record)");
    print_table(&cols, runs.len());
    for (desc, rate, ratio, steady) in &summary {
        match (rate, ratio, steady) {
            (Some(rate), Some(ratio), Some(steady)) => println!(
                "{desc}: {rate:.0} rec/s, {ratio:.3} of the ceiling (median of per-run ratios), steady state {steady:.3}"
            ),
            (Some(rate), Some(ratio), None) => {
                println!("{desc}: {rate:.0} rec/s, {ratio:.3} of the ceiling (median of per-run ratios)")
            }
            (Some(rate), _, _) => println!("{desc}: {rate:.0} rec/s"),
            _ => {}
        }
    }
    let eos_vs_alo: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.alo.zip(r.eos).map(|(a, e)| e.rate(records) / a.rate(records)))
        .collect();
    if let Some(r) = median(eos_vs_alo) {
        println!("exactly-once / at-least-once (median of per-run ratios): {r:.3}");
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
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
    let mut components = Vec::new();
    if args.measures(Measure::Copycat) || args.measures(Measure::CopycatEos) {
        components.push("datagen");
    }
    if args.measures(Measure::CopycatSink) {
        components.push("file-sink");
    }
    warm_up(&args, &components)?;
    let sinks = [Measure::SinkCeiling, Measure::SinkCeilingBatch, Measure::CopycatSink]
        .into_iter()
        .any(|m| args.measures(m));
    let sink_root = args
        .sink_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir)
        .join(unique("copycat-bench-sink"));
    let ceiling_worker = WorkerConfig::from_props(worker_props(&args, "unused")).context("worker config")?;
    let mut created: Vec<String> = Vec::new();
    let mut runs = Vec::new();
    let outcome = (|| -> Result<()> {
        for i in 0..args.runs {
            let ceiling_topic = unique("copycat-bench-ceiling");
            let ceiling_batch_topic = unique("copycat-bench-ceiling-batch");
            let alo_topic = unique("copycat-bench-datagen");
            let eos_topic = unique("copycat-bench-datagen-eos");
            let ceiling_eos_topic = unique("copycat-bench-ceiling-eos");
            let warmup_topic = unique("copycat-bench-warmup");
            let sink_topic = unique("copycat-bench-sink");
            let mut topics = Vec::new();
            if sinks {
                topics.push(sink_topic.as_str());
            }
            let ceilings = [Measure::Ceiling, Measure::CeilingBatch, Measure::CeilingEos];
            if ceilings.into_iter().any(|m| args.measures(m)) || sinks {
                if args.measures(Measure::Ceiling) {
                    topics.push(ceiling_topic.as_str());
                }
                if args.measures(Measure::CeilingBatch) {
                    topics.push(ceiling_batch_topic.as_str());
                }
                rt.block_on(create_topics(&args.bootstrap, &[&warmup_topic], 1))?;
                created.push(warmup_topic.clone());
            }
            if args.measures(Measure::Copycat) {
                topics.push(alo_topic.as_str());
            }
            if args.measures(Measure::CopycatEos) {
                topics.push(eos_topic.as_str());
            }
            if args.measures(Measure::CeilingEos) {
                topics.push(ceiling_eos_topic.as_str());
            }
            rt.block_on(create_topics(&args.bootstrap, &topics, args.partitions))?;
            created.extend(topics.iter().map(|t| (*t).to_owned()));
            for t in &topics {
                Watermarks::new(&args.bootstrap, t, args.partitions)?.wait_ready()?;
            }
            runs.push(Run::default());
            let Some(run) = runs.last_mut() else { break };
            // Rotate the order, so that each measurement goes first in turn.
            let mut order = [
                Measure::Ceiling,
                Measure::Copycat,
                Measure::CeilingBatch,
                Measure::CopycatEos,
                Measure::CeilingEos,
            ];
            let n = order.len();
            order.rotate_left(i % n);
            for measure in order {
                if !args.measures(measure) {
                    continue;
                }
                match measure {
                    Measure::Ceiling | Measure::CeilingBatch => {
                        let batched = measure == Measure::CeilingBatch;
                        let (topic, label, name) = if batched {
                            (&ceiling_batch_topic, "ceiling (produce_batch)", "ceiling-batch")
                        } else {
                            (&ceiling_topic, "ceiling (rdkafka)", "ceiling    ")
                        };
                        let m = run_ceiling(&args, &ceiling_worker, topic, &warmup_topic, label, batched)?;
                        let total = Watermarks::new(&args.bootstrap, topic, args.partitions)?.sum()?;
                        if total != args.records {
                            eprintln!(
                                "warning: {name} topic {topic} holds {total} records, expected exactly {}",
                                args.records
                            );
                        }
                        eprintln!(
                            "run {}: {name} {:>10.0} rec/s ({:.2} s)",
                            i + 1,
                            m.rate(args.records),
                            m.elapsed.as_secs_f64()
                        );
                        if batched {
                            run.ceiling_batch = Some(m);
                        } else {
                            run.ceiling = Some(m);
                        }
                    }
                    Measure::CeilingEos => {
                        let (m, commit_ms) =
                            run_ceiling_eos(&args, &ceiling_worker, &ceiling_eos_topic, &warmup_topic)?;
                        let total = count_committed(&args.bootstrap, &ceiling_eos_topic, args.partitions)?;
                        if total != args.records {
                            eprintln!(
                                "warning: ceiling-eos topic {ceiling_eos_topic} holds {total} committed records, expected exactly {}",
                                args.records
                            );
                        }
                        eprintln!(
                            "run {}: ceiling-eos {:>10.0} rec/s ({:.2} s, {} transactions, commit_transaction {:.1} ms on average)",
                            i + 1,
                            m.rate(args.records),
                            m.elapsed.as_secs_f64(),
                            m.transactions.unwrap_or(0),
                            commit_ms
                        );
                        run.ceiling_eos = Some(m);
                    }
                    Measure::SinkCeiling | Measure::SinkCeilingBatch | Measure::CopycatSink => {}
                    Measure::Copycat | Measure::CopycatEos => {
                        let eos = measure == Measure::CopycatEos;
                        let topic = if eos { &eos_topic } else { &alo_topic };
                        let m = run_copycat(&args, &rt, topic, eos, &mut created)?;
                        eprintln!(
                            "run {}: {} {:>10.0} rec/s ({:.2} s, first {} after {} ms{})",
                            i + 1,
                            if eos { "copycat-eos" } else { "copycat    " },
                            m.rate(args.records),
                            m.elapsed.as_secs_f64(),
                            if eos { "commit" } else { "record" },
                            m.startup.map_or(0, |d| d.as_millis()),
                            m.transactions
                                .map(|t| format!(", {t} transactions"))
                                .unwrap_or_default()
                        );
                        if eos {
                            run.eos = Some(m);
                        } else {
                            run.alo = Some(m);
                        }
                    }
                }
            }
            if sinks {
                // Kafka → file: one pre-filled topic, read by both (each in
                // its own consumer group); who goes first alternates.
                fill_sink_topic(&args, &ceiling_worker, &sink_topic, &warmup_topic)?;
                let dir = sink_root.join(format!("run-{}", i + 1));
                std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                let mut order = [Measure::SinkCeiling, Measure::CopycatSink, Measure::SinkCeilingBatch];
                order.rotate_left(i % 3);
                for measure in order {
                    if !args.measures(measure) {
                        continue;
                    }
                    let (m, label, unit) = match measure {
                        Measure::SinkCeiling | Measure::SinkCeilingBatch => {
                            let batched = measure == Measure::SinkCeilingBatch;
                            let m = run_sink_ceiling(&args, &ceiling_worker, &sink_topic, &dir, batched)?;
                            (m, if batched { "sink-ceiling-batch" } else { "sink-ceiling" }, "record")
                        }
                        _ => (
                            run_copycat_sink(&args, &rt, &sink_topic, &dir, &mut created)?,
                            "copycat-sink",
                            "line",
                        ),
                    };
                    eprintln!(
                        "run {}: {label} {:>10.0} rec/s ({:.2} s, first {unit} after {} ms)",
                        i + 1,
                        m.rate(args.records),
                        m.elapsed.as_secs_f64(),
                        m.startup.map_or(0, |d| d.as_millis()),
                    );
                    match measure {
                        Measure::SinkCeiling => run.sink_ceiling = Some(m),
                        Measure::SinkCeilingBatch => run.sink_ceiling_batch = Some(m),
                        _ => run.sink = Some(m),
                    }
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
        Ok(())
    })();
    let sources = [
        Measure::Ceiling,
        Measure::CeilingBatch,
        Measure::Copycat,
        Measure::CopycatEos,
        Measure::CeilingEos,
    ]
    .into_iter()
    .any(|m| args.measures(m));
    if sources {
        report(&args, &runs);
    }
    if sinks {
        report_sink(&args, &runs);
        let _ = std::fs::remove_dir_all(&sink_root);
    }
    if let Err(e) = record_results(&args, &runs) {
        eprintln!("warning: recording the results: {e:#}");
    }
    if !args.keep_topics {
        if let Err(e) = rt.block_on(delete_topics(&args.bootstrap, &created)) {
            eprintln!("warning: {e:#}");
        }
    } else if !created.is_empty() {
        eprintln!("kept topics: {}", created.join(" "));
    }
    outcome
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_ceiling_s_records_are_datagen_s() {
        let mut records = DatagenRecords::new(12);
        assert_eq!(records.next(0), (&b"stream-0:0"[..], &b"stream-0:0.."[..]));
        assert_eq!(records.next(123), (&b"stream-0:123"[..], &b"stream-0:123"[..]));
        let mut short = DatagenRecords::new(4);
        assert_eq!(short.next(7).1, b"stre");
    }
}
