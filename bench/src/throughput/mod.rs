//! The throughput benchmark (`copycat-bench`, src/main.rs): its arguments,
//! what one run measures and the figures of one measurement. The
//! measurements themselves are in [`ceiling`] (raw rdkafka clients, the
//! ceilings) and [`copycat`] (Copycat in an embedded worker); [`tables`]
//! prints them and [`figures`] appends the headline figures to the results
//! file.
//!
//! Every measurement can run over the broker's PLAINTEXT listener or its
//! SSL listener ([`Security`]): the same code, with the worker properties
//! ([`worker_props`]) the measured clients are configured from naming the
//! other listener and Kafka Connect's TLS keys. Only the measured clients
//! change; the bookkeeping around them (topic admin, end offsets, counts)
//! stays on `--bootstrap`.
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

use anyhow::{Result, anyhow, bail};
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
    /// Transports to measure over, comma-separated: plaintext, tls (the
    /// broker's SSL listener, --tls-bootstrap, server certificate verified
    /// against --tls-ca). Each selected measurement runs over each, in the
    /// same run. Default: plaintext, plus tls when --only is not given and
    /// both --tls-bootstrap and --tls-ca are known; then only ceiling,
    /// copycat, sink-ceiling and copycat-sink run over TLS.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub security: Vec<Security>,
    /// The broker's SSL listener (`scripts/kafka.sh secure-env`'s
    /// KAFKA_SSL_BOOTSTRAP; `just bench` sets it for the local broker).
    #[arg(long, env = "KAFKA_SSL_BOOTSTRAP")]
    pub tls_bootstrap: Option<String>,
    /// The CA certificate (PEM) that signed the SSL listener's certificate
    /// (`scripts/kafka.sh secure-env`'s KAFKA_TLS_CA).
    #[arg(long, env = "KAFKA_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
}

/// How the measured clients reach the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Security {
    /// The PLAINTEXT listener, `--bootstrap`.
    Plaintext,
    /// The SSL listener, `--tls-bootstrap`: `security.protocol=SSL`, the
    /// server's certificate verified against `--tls-ca` (hostname
    /// verification on), as Kafka Connect's keys configure it.
    Tls,
}

impl Security {
    /// Both, plaintext first.
    pub const ALL: [Security; 2] = [Security::Plaintext, Security::Tls];

    /// Index into per-security arrays.
    pub fn index(self) -> usize {
        match self {
            Security::Plaintext => 0,
            Security::Tls => 1,
        }
    }

    /// `plaintext` or `tls`, as `--security` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Security::Plaintext => "plaintext",
            Security::Tls => "tls",
        }
    }

    /// ` [tls]` after a measurement's name over TLS, nothing over plaintext.
    pub fn suffix(self) -> &'static str {
        match self {
            Security::Plaintext => "",
            Security::Tls => " [tls]",
        }
    }

    /// `-tls` after a topic prefix or a scenario name over TLS.
    pub fn tag(self) -> &'static str {
        match self {
            Security::Plaintext => "",
            Security::Tls => "-tls",
        }
    }
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

    /// Whether `m` is measured in this run (over some transport).
    pub fn measures(&self, m: Measure) -> bool {
        if self.only.is_empty() {
            m != Measure::CeilingEos || self.transaction_boundary == Boundary::Poll
        } else {
            self.only.contains(&m)
        }
    }

    /// The transports measured over (see `--security`).
    pub fn securities(&self) -> Vec<Security> {
        if !self.security.is_empty() {
            return Security::ALL
                .into_iter()
                .filter(|s| self.security.contains(s))
                .collect();
        }
        let tls = self.only.is_empty() && self.tls_bootstrap.is_some() && self.tls_ca.is_some();
        Security::ALL
            .into_iter()
            .filter(|s| *s == Security::Plaintext || tls)
            .collect()
    }

    /// Whether `m` is measured over `sec` in this run. Without `--only`,
    /// TLS covers the ceiling and at-least-once source and the sink
    /// ceiling and file-sink (the bench's time), with `--only` every
    /// measure selected.
    pub fn measured(&self, m: Measure, sec: Security) -> bool {
        const DEFAULT_TLS: [Measure; 4] = [
            Measure::Ceiling,
            Measure::Copycat,
            Measure::SinkCeiling,
            Measure::CopycatSink,
        ];
        self.measures(m)
            && self.securities().contains(&sec)
            && (sec == Security::Plaintext || !self.only.is_empty() || DEFAULT_TLS.contains(&m))
    }

    /// Whether `m` is measured over any transport in this run.
    pub fn measured_any(&self, m: Measure) -> bool {
        Security::ALL.into_iter().any(|sec| self.measured(m, sec))
    }

    /// The SSL listener and the CA file, or why they are missing.
    pub fn tls(&self) -> Result<(&str, &std::path::Path)> {
        match (&self.tls_bootstrap, &self.tls_ca) {
            (Some(b), Some(ca)) => Ok((b, ca)),
            _ => bail!(
                "measuring over TLS needs --tls-bootstrap and --tls-ca (KAFKA_SSL_BOOTSTRAP and KAFKA_TLS_CA, as `scripts/kafka.sh secure-env` prints them)"
            ),
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
/// `offsets_topic`; over TLS the SSL listener and Kafka Connect's keys for
/// it, top-level (the worker's own clients) and under `producer.`,
/// `consumer.` and `admin.` (the tasks' clients, which inherit nothing),
/// as docs/operations.md's "Secure clusters" configures them. The
/// ceilings' clients take the same `producer.` / `consumer.` settings.
pub fn worker_props(args: &Args, offsets_topic: &str, sec: Security) -> Result<BTreeMap<String, String>> {
    let mut props = BTreeMap::from([
        ("bootstrap.servers".to_owned(), args.bootstrap.clone()),
        ("plugin.path".to_owned(), args.plugin_dir.display().to_string()),
        ("offset.storage.topic".to_owned(), offsets_topic.to_owned()),
    ]);
    if sec == Security::Tls {
        let (bootstrap, ca) = args.tls()?;
        props.insert("bootstrap.servers".to_owned(), bootstrap.to_owned());
        props.extend(crate::kafka::tls_keys(ca)?);
    }
    Ok(props)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(flags: &[&str]) -> Args {
        let mut argv = vec![
            "copycat-bench",
            "--tls-bootstrap",
            "127.0.0.1:9094",
            "--tls-ca",
            "/ca.pem",
        ];
        argv.extend_from_slice(flags);
        Args::try_parse_from(argv).unwrap()
    }

    #[test]
    fn tls_by_default_covers_the_four_throughput_measures_only() {
        let a = args(&[]);
        assert_eq!(a.securities(), [Security::Plaintext, Security::Tls]);
        for m in [
            Measure::Ceiling,
            Measure::Copycat,
            Measure::SinkCeiling,
            Measure::CopycatSink,
        ] {
            assert!(
                a.measured(m, Security::Tls) && a.measured(m, Security::Plaintext),
                "{m:?}"
            );
        }
        for m in [
            Measure::CeilingBatch,
            Measure::CopycatEos,
            Measure::CeilingEos,
            Measure::SinkCeilingBatch,
        ] {
            assert!(
                !a.measured(m, Security::Tls) && a.measured(m, Security::Plaintext),
                "{m:?}"
            );
        }
    }

    #[test]
    fn only_without_security_stays_on_plaintext() {
        // scripts/bench.sh's interval run: no TLS rows, no extra time.
        let a = args(&["--only", "ceiling,copycat-eos"]);
        assert_eq!(a.securities(), [Security::Plaintext]);
        assert!(!a.measured(Measure::Ceiling, Security::Tls));
        assert!(a.measured(Measure::Ceiling, Security::Plaintext));
    }

    #[test]
    fn security_picks_the_transports_for_every_selected_measure() {
        let a = args(&["--security", "tls", "--only", "copycat-eos"]);
        assert_eq!(a.securities(), [Security::Tls]);
        assert!(a.measured(Measure::CopycatEos, Security::Tls));
        assert!(!a.measured(Measure::CopycatEos, Security::Plaintext));
        assert!(!a.measured(Measure::Copycat, Security::Tls));
    }

    #[test]
    fn the_tls_worker_repeats_the_keys_for_the_task_clients() {
        let dir = std::env::temp_dir().join(crate::unique("copycat-bench-ca"));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = dir.join("ca.pem");
        std::fs::write(&ca, "").unwrap();
        let mut a = args(&[]);
        a.tls_ca = Some(ca);
        let p = worker_props(&a, "offsets", Security::Tls).unwrap();
        assert_eq!(p["bootstrap.servers"], "127.0.0.1:9094");
        for prefix in ["", "producer.", "consumer.", "admin."] {
            assert_eq!(p[&format!("{prefix}security.protocol")], "SSL");
            assert_eq!(p[&format!("{prefix}ssl.truststore.type")], "PEM");
            assert!(p[&format!("{prefix}ssl.truststore.location")].ends_with("ca.pem"));
        }
        let plain = worker_props(&a, "offsets", Security::Plaintext).unwrap();
        assert!(!plain.contains_key("security.protocol"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
