//! The throughput benchmark (`copycat-bench`, src/main.rs): its arguments,
//! what one run measures and the figures of one measurement. The
//! measurements themselves are in [`ceiling`] (raw rdkafka clients, the
//! ceilings) and [`copycat`] (Copycat in an embedded worker); [`tables`]
//! prints them and [`figures`] appends the headline figures to the results
//! file.
//!
//! Invariants: every measurement of a run writes to (or reads) its own
//! fresh topic with `--partitions` partitions and exactly `--records`
//! records of `--value-size` bytes, the records datagen generates; a
//! measurement's clock covers only the work named in its doc.

pub mod ceiling;
pub mod copycat;
pub mod figures;
pub mod tables;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, anyhow};
use clap::{Parser, ValueEnum};

/// Throughput of Copycat's datagen source → Kafka, at-least-once and
/// exactly-once, against a plain rdkafka producer loop (the ceiling) on the
/// same broker.
#[derive(Parser, Debug)]
#[command(about, long_about = None)]
pub struct Args {
    /// Records per measurement.
    ///
    /// 5,000,000 by default: at this machine's 1–1.5 M rec/s a million
    /// records took under a second, and Copycat's connector start-up
    /// (≈ 0.1–0.2 s, timed; the ceiling's producer is warmed up untimed)
    /// was a sixth of the run. The start-up is reported on its own (`start
    /// ms`) and stays in the timed run.
    #[arg(long, default_value_t = 5_000_000)]
    pub records: u64,
    /// Bytes per record value (datagen's `value.size`).
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,
    /// Partitions of each benchmark topic.
    #[arg(long, default_value_t = 3)]
    pub partitions: i32,
    /// Runs; each runs every selected measurement, in rotating order.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Records per datagen poll (`batch.size` and the host's `poll.max.records`).
    #[arg(long, default_value_t = 2000)]
    pub batch_size: u32,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    pub bootstrap: String,
    /// Directory holding datagen.wasm and file-sink.wasm (the worker's `plugin.path`).
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    pub plugin_dir: PathBuf,
    /// What to measure, comma-separated: ceiling, copycat (at-least-once),
    /// copycat-eos (exactly-once), ceiling-eos, sink-ceiling,
    /// sink-ceiling-batch, copycat-sink. Default: all (ceiling-eos only with
    /// the poll boundary). Ratios need the ceiling (sink-ceiling) in the
    /// same run.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<Measure>,
    /// copycat-eos: `transaction.boundary` (poll: one transaction per
    /// non-empty poll; interval: one per --transaction-interval-ms).
    #[arg(long, value_enum, default_value_t = Boundary::Poll)]
    pub transaction_boundary: Boundary,
    /// copycat-eos with --transaction-boundary interval:
    /// `transaction.boundary.interval.ms` (the runtime's default is
    /// `offset.flush.interval.ms`, 5000).
    #[arg(long)]
    pub transaction_interval_ms: Option<u64>,
    /// ceiling-eos: call `commit_transaction` with records still in flight
    /// (as Copycat's task does), instead of waiting for their
    /// acknowledgements first; shows rdkafka's 100 ms flush step.
    #[arg(long)]
    pub naive_commit: bool,
    /// A producer setting for every measurement, `key=value`
    /// (Copycat: `producer.override.<key>`); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub producer_override: Vec<String>,
    /// Where the sink scenarios write their files (default: the system temp
    /// directory); a fresh directory under it is removed after each run.
    #[arg(long)]
    pub sink_dir: Option<PathBuf>,
    /// Keep the benchmark topics (by default they are deleted at the end).
    #[arg(long)]
    pub keep_topics: bool,
}

/// One measurement of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Measure {
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
/// `transaction.boundary` of the exactly-once runs.
pub enum Boundary {
    Poll,
    Interval,
}

impl Args {
    /// `--producer-override`s as a map.
    pub fn overrides(&self) -> Result<BTreeMap<String, String>> {
        self.producer_override
            .iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .ok_or_else(|| anyhow!("--producer-override {kv}: expected KEY=VALUE"))
            })
            .collect()
    }

    /// Whether `m` is measured in this run.
    pub fn measures(&self, m: Measure) -> bool {
        if self.only.is_empty() {
            m != Measure::CeilingEos || self.transaction_boundary == Boundary::Poll
        } else {
            self.only.contains(&m)
        }
    }

    /// `transaction.boundary` as written in the connector config (and shown
    /// in the report).
    pub fn boundary_desc(&self) -> String {
        match (self.transaction_boundary, self.transaction_interval_ms) {
            (Boundary::Poll, _) => "transaction.boundary=poll".to_owned(),
            (Boundary::Interval, Some(ms)) => format!("transaction.boundary=interval, {ms} ms"),
            (Boundary::Interval, None) => "transaction.boundary=interval, default interval".to_owned(),
        }
    }
}

/// Which measurement of a run.
pub type Pick = fn(&Run) -> Option<Measurement>;

/// One timed phase.
#[derive(Debug, Clone, Copy)]
pub struct Measurement {
    pub elapsed: Duration,
    /// Copycat only: `start_connector` → first record visible in the topic
    /// (at-least-once) or first transaction committed (exactly-once).
    pub startup: Option<Duration>,
    /// Copycat only: records per second after that.
    pub steady: Option<f64>,
    /// Exactly-once only: transactions committed.
    pub transactions: Option<u64>,
    /// Copycat exactly-once only: from the moment the task had polled every
    /// record to the commit of the last transaction (with the interval
    /// boundary, the rest of the last interval).
    pub end_wait: Option<Duration>,
    /// CPU time of this process (user + system, all threads) over the
    /// measurement: the producer's or Copycat's own work, not the broker's.
    pub cpu: Option<Duration>,
}

impl Measurement {
    /// Records per second over the whole measurement.
    pub fn rate(&self, records: u64) -> f64 {
        records as f64 / self.elapsed.as_secs_f64()
    }

    /// CPU nanoseconds of this process per record.
    pub fn cpu_ns(&self, records: u64) -> Option<f64> {
        self.cpu.map(|c| c.as_secs_f64() * 1e9 / records.max(1) as f64)
    }
}

/// The measurements of one run (`None`: not measured).
#[derive(Debug, Default)]
pub struct Run {
    pub ceiling: Option<Measurement>,
    pub ceiling_batch: Option<Measurement>,
    pub alo: Option<Measurement>,
    pub eos: Option<Measurement>,
    pub ceiling_eos: Option<Measurement>,
    pub sink_ceiling: Option<Measurement>,
    pub sink_ceiling_batch: Option<Measurement>,
    pub sink: Option<Measurement>,
}

/// An embedded worker's properties: the broker, the plugin directory and
/// `offsets_topic`.
pub fn worker_props(args: &Args, offsets_topic: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("bootstrap.servers".to_owned(), args.bootstrap.clone()),
        ("plugin.path".to_owned(), args.plugin_dir.display().to_string()),
        ("offset.storage.topic".to_owned(), offsets_topic.to_owned()),
    ])
}
