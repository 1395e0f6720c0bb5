//! Copycat against Apache Kafka Connect 4.4, side by side on the same broker
//! in the same run: the same file through each one's file source into a
//! fresh topic, and the same topic out through each one's file sink.
//!
//! - source: one generated file of `--lines` lines of `--line-size` bytes
//!   (plus `\n`) → Kafka Connect's `FileStreamSourceConnector` (ConnectStandalone,
//!   at-least-once, offsets in a file, `StringConverter` for keys and values)
//!   into one fresh topic, and Copycat's `file-source` component
//!   (`copycat standalone`) into another with the same partitions. Timed
//!   from spawning the process until the topic's end offsets sum to
//!   `--lines` (watermarks polled every 10 ms, under a deadline).
//! - sink: Kafka Connect's source topic of the same run (so both sinks read
//!   the same records) → `FileStreamSinkConnector` into one file, and
//!   Copycat's `file-sink` into `<dir>/<topic>-<partition>.txt`. Timed from
//!   spawning the process until the output holds every line (its size is
//!   exactly `lines × (line-size + 1)` bytes, polled every 10 ms); the lines
//!   are counted afterwards.
//!
//! Over TLS (`--security`; by default also over TLS when the broker's SSL
//! listener and CA are known, `--tls-bootstrap`/`--tls-ca`, as `just bench`
//! sets them): the same scenarios again with both workers' clients on the
//! SSL listener, configured with the same Kafka Connect keys
//! (`security.protocol=SSL`, `ssl.truststore.type=PEM`,
//! `ssl.truststore.location`, top-level and under `producer.`,
//! `consumer.`, `admin.`), in the same runs; the sinks of both transports
//! read the same topic. Each transport gets its own tables, and TLS ÷
//! plaintext per system is printed.
//!
//! Reported per process: records/s over the whole time (start-up
//! included), time to the first record in the topic (first byte in the
//! output), records/s after that, and peak RSS of the process tree (the
//! largest sum of `VmRSS` over the process and its descendants, sampled
//! every 20 ms, or the root's `VmHWM` if larger). Ratios: Copycat ÷ Kafka
//! Connect for throughput, Kafka Connect ÷ Copycat for memory.
//!
//! `scripts/bench.sh` runs it (`COPYCAT_BENCH_KAFKA_CONNECT=0` skips it);
//! alone: `scripts/kafka-connect.sh fetch && cargo build -p copycat-runtime
//! --bin copycat && cargo run -p copycat-bench --bin kafka_connect -- --runs 3`.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, ValueEnum};
use copycat_bench::files::{dir_bytes, dir_lines};
use copycat_bench::kafka::{send_retrying, tls_keys};
use copycat_bench::process::{Proc, tail};
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::table::cell;
use copycat_bench::throughput::Security;
use copycat_bench::{
    RssSampler, Watermarks, create_topics, delete_topics, free_port, init_tracing, median, unique, workspace,
};
use copycat_runtime::WorkerConfig;
use rdkafka::ClientConfig;

/// Copycat's file source and sink against Kafka Connect 4.4's
/// FileStreamSource and FileStreamSink, on the same broker.
#[derive(Parser, Debug)]
#[command(
    about = "Copycat's file source and sink against Kafka Connect 4.4's FileStreamSource and FileStreamSink, on the same broker"
)]
struct Args {
    /// Lines in the input file (records per measurement).
    #[arg(long, default_value_t = 1_000_000)]
    lines: u64,
    /// Bytes per line, without its `\n`.
    #[arg(long, default_value_t = 100)]
    line_size: usize,
    /// Partitions of each benchmark topic.
    #[arg(long, default_value_t = 3)]
    partitions: i32,
    /// Runs (each: both sources, then both sinks; who goes first alternates).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Deadline of one measurement (one process), in seconds.
    #[arg(long, default_value_t = 300)]
    phase_timeout_secs: u64,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding file-source.wasm and file-sink.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
    /// The `copycat` CLI (default: next to this binary, as `cargo build -p
    /// copycat-cli --bin copycat` leaves it).
    #[arg(long, env = "COPYCAT_BIN")]
    copycat_bin: Option<PathBuf>,
    /// scripts/kafka-connect.sh (runs ConnectStandalone).
    #[arg(long, env = "KAFKA_CONNECT_SCRIPT")]
    kafka_connect_script: Option<PathBuf>,
    /// Where the input file, configs, outputs and logs go (default: a fresh
    /// directory under the system temp dir, removed at the end).
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Keep the work directory and the topics.
    #[arg(long)]
    keep: bool,
    /// Scenarios to measure, comma-separated: source, sink.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "source,sink")]
    only: Vec<Scenario>,
    /// Systems to measure, comma-separated: kafka-connect, copycat (ratios
    /// need both).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "kafka-connect,copycat")]
    systems: Vec<System>,
    /// An extra line for Copycat's worker.properties, `key=value`
    /// (e.g. `offset.flush.interval.ms=1000`); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    copycat_worker: Vec<String>,
    /// An extra line for Kafka Connect's worker properties, `key=value`
    /// (e.g. `plugin.discovery=service_load`); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    kc_worker: Vec<String>,
    /// Transports, comma-separated: plaintext, tls (both systems' clients
    /// on the broker's SSL listener, --tls-bootstrap, with Kafka Connect's
    /// `security.protocol=SSL` and PEM truststore keys, top-level and under
    /// `producer.`/`consumer.`/`admin.`). Default: plaintext, plus tls when
    /// --tls-bootstrap and --tls-ca are known.
    #[arg(long, value_enum, value_delimiter = ',')]
    security: Vec<Security>,
    /// The broker's SSL listener (`scripts/kafka.sh secure-env`'s
    /// KAFKA_SSL_BOOTSTRAP; `just bench` sets it for the local broker).
    #[arg(long, env = "KAFKA_SSL_BOOTSTRAP")]
    tls_bootstrap: Option<String>,
    /// The CA certificate (PEM) of the SSL listener (KAFKA_TLS_CA).
    #[arg(long, env = "KAFKA_TLS_CA")]
    tls_ca: Option<PathBuf>,
}

impl Args {
    /// The transports measured over (see `--security`).
    fn securities(&self) -> Vec<Security> {
        let tls = if self.security.is_empty() {
            self.tls_bootstrap.is_some() && self.tls_ca.is_some()
        } else {
            self.security.contains(&Security::Tls)
        };
        Security::ALL
            .into_iter()
            .filter(|s| match s {
                Security::Plaintext => self.security.is_empty() || self.security.contains(s),
                Security::Tls => tls,
            })
            .collect()
    }

    /// The SSL listener and the CA file, or why they are missing.
    fn tls(&self) -> Result<(&str, &Path)> {
        match (&self.tls_bootstrap, &self.tls_ca) {
            (Some(b), Some(ca)) => Ok((b, ca)),
            _ => bail!("--security tls needs --tls-bootstrap and --tls-ca (KAFKA_SSL_BOOTSTRAP, KAFKA_TLS_CA)"),
        }
    }
}

/// `KEY=VALUE` flags as property pairs.
fn extra_props(flag: &str, kvs: &[String]) -> Result<Vec<(String, String)>> {
    kvs.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| anyhow!("--{flag} {kv}: expected KEY=VALUE"))
        })
        .collect()
}

// ------------------------------------------------------------------ measuring

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scenario {
    Source,
    Sink,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum System {
    KafkaConnect,
    Copycat,
}

impl System {
    fn label(self) -> &'static str {
        match self {
            System::KafkaConnect => "Kafka Connect",
            System::Copycat => "Copycat",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Measurement {
    /// Spawn → the last record in place.
    elapsed: Duration,
    /// Spawn → the first record in place.
    first: Duration,
    /// Peak RSS of the process tree, KiB.
    rss_kib: u64,
}

impl Measurement {
    fn rate(&self, n: u64) -> f64 {
        n as f64 / self.elapsed.as_secs_f64()
    }

    fn steady(&self, n: u64) -> Option<f64> {
        let t = self.elapsed.checked_sub(self.first)?.as_secs_f64();
        (t > 0.0).then(|| n as f64 / t)
    }
}

/// Runs `proc` until `progress` reports `n` (polled every 10 ms), under
/// `timeout`; the process is killed in any case.
fn measure(
    mut proc: Proc,
    started: Instant,
    n: u64,
    timeout: Duration,
    mut progress: impl FnMut() -> Result<u64>,
) -> Result<Measurement> {
    let sampler = RssSampler::start(proc.pid());
    let deadline = started + timeout;
    let mut first = None;
    loop {
        let done = progress()?;
        let now = Instant::now();
        if done > 0 && first.is_none() {
            first = Some(now - started);
        }
        if done >= n {
            let rss_kib = sampler.finish();
            proc.kill();
            return Ok(Measurement {
                elapsed: now - started,
                first: first.unwrap_or_default(),
                rss_kib,
            });
        }
        proc.check_alive()?;
        if now > deadline {
            bail!(
                "{}: {done} of {n} records after {} s (deadline); last lines of {}:\n{}",
                proc.name,
                timeout.as_secs(),
                proc.log.display(),
                tail(&proc.log, 30)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn write_props(path: &Path, pairs: &[(&str, String)]) -> Result<()> {
    write_props_with(path, pairs, &[])
}

/// `pairs`, then `extra` (a later line wins in both workers).
fn write_props_with(path: &Path, pairs: &[(&str, String)], extra: &[(String, String)]) -> Result<()> {
    let mut text = String::new();
    for (k, v) in pairs {
        let _ = writeln!(text, "{k}={v}");
    }
    for (k, v) in extra {
        let _ = writeln!(text, "{k}={v}");
    }
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

struct Bench {
    args: Args,
    copycat_bin: PathBuf,
    kc_script: PathBuf,
    dir: PathBuf,
    input: PathBuf,
    /// Offsets topics the Copycat workers create (deleted at the end).
    offsets_topics: std::sync::Mutex<Vec<String>>,
}

impl Bench {
    fn timeout(&self) -> Duration {
        Duration::from_secs(self.args.phase_timeout_secs)
    }

    /// The listener and the security keys for `sec` (Kafka Connect's
    /// names, which Copycat reads too), then the `flag`'s extra lines.
    fn transport(&self, sec: Security, flag: &str, extra: &[String]) -> Result<(String, Vec<(String, String)>)> {
        let (bootstrap, mut keys) = match sec {
            Security::Plaintext => (self.args.bootstrap.clone(), Vec::new()),
            Security::Tls => {
                let (bootstrap, ca) = self.args.tls()?;
                (bootstrap.to_owned(), tls_keys(ca)?)
            }
        };
        keys.extend(extra_props(flag, extra)?);
        Ok((bootstrap, keys))
    }

    fn kc_worker(&self, run: &Path, what: &str, sec: Security) -> Result<PathBuf> {
        let path = run.join(format!("kc-{what}-worker.properties"));
        let (bootstrap, extra) = self.transport(sec, "kc-worker", &self.args.kc_worker)?;
        write_props_with(
            &path,
            &[
                ("bootstrap.servers", bootstrap),
                (
                    "key.converter",
                    "org.apache.kafka.connect.storage.StringConverter".into(),
                ),
                (
                    "value.converter",
                    "org.apache.kafka.connect.storage.StringConverter".into(),
                ),
                (
                    "offset.storage.file.filename",
                    run.join(format!("kc-{what}-offsets")).display().to_string(),
                ),
                ("listeners", format!("http://127.0.0.1:{}", free_port()?)),
            ],
            &extra,
        )?;
        Ok(path)
    }

    fn copycat_worker(&self, run: &Path, what: &str, sec: Security) -> Result<PathBuf> {
        let path = run.join(format!("copycat-{what}-worker.properties"));
        let (bootstrap, extra) = self.transport(sec, "copycat-worker", &self.args.copycat_worker)?;
        let offsets = unique("copycat-bench-kc-offsets");
        if let Ok(mut v) = self.offsets_topics.lock() {
            v.push(offsets.clone());
        }
        // Its own state.dir: a standalone worker restores the connectors it
        // finds there.
        write_props_with(
            &path,
            &[
                ("bootstrap.servers", bootstrap),
                ("plugin.path", self.args.plugin_dir.display().to_string()),
                ("offset.storage.topic", offsets),
                (
                    "state.dir",
                    run.join(format!("copycat-{what}-state")).display().to_string(),
                ),
                ("listeners", "http://127.0.0.1:0".into()),
            ],
            &extra,
        )?;
        Ok(path)
    }

    fn spawn(
        &self,
        system: System,
        run: &Path,
        worker: &Path,
        connector: &Path,
        what: &str,
    ) -> Result<(Proc, Instant)> {
        let (name, mut cmd) = match system {
            System::KafkaConnect => {
                let mut cmd = Command::new("bash");
                cmd.arg(&self.kc_script).arg("standalone");
                ("Kafka Connect (ConnectStandalone)", cmd)
            }
            System::Copycat => {
                let mut cmd = Command::new(&self.copycat_bin);
                cmd.arg("standalone");
                ("Copycat (copycat standalone)", cmd)
            }
        };
        cmd.arg(worker).arg(connector);
        let log = run.join(format!(
            "{what}-{}.log",
            if system == System::Copycat { "copycat" } else { "kc" }
        ));
        let started = Instant::now();
        let proc = Proc::spawn(name, cmd, &log)?;
        Ok((proc, started))
    }

    /// `system`'s file source into `topic`, its clients over `sec`.
    fn source(&self, system: System, run: &Path, topic: &str, sec: Security) -> Result<Measurement> {
        const WHAT: &str = "source";
        let marks = Watermarks::new(&self.args.bootstrap, topic, self.args.partitions)?;
        marks.wait_ready()?;
        let file = self.input.display().to_string();
        let (worker, connector) = match system {
            System::KafkaConnect => {
                let c = run.join("kc-source.properties");
                write_props(
                    &c,
                    &[
                        ("name", unique("kc-file-source")),
                        (
                            "connector.class",
                            "org.apache.kafka.connect.file.FileStreamSourceConnector".into(),
                        ),
                        ("tasks.max", "1".into()),
                        ("file", file),
                        ("topic", topic.into()),
                    ],
                )?;
                (self.kc_worker(run, WHAT, sec)?, c)
            }
            System::Copycat => {
                let c = run.join("copycat-source.properties");
                write_props(
                    &c,
                    &[
                        ("name", unique("copycat-file-source")),
                        ("connector.class", "file-source".into()),
                        ("tasks.max", "1".into()),
                        ("file", file),
                        ("topic", topic.into()),
                        ("grants.fs.read", self.dir.display().to_string()),
                    ],
                )?;
                (self.copycat_worker(run, WHAT, sec)?, c)
            }
        };
        let (proc, started) = self.spawn(system, run, &worker, &connector, "source")?;
        let m = measure(proc, started, self.args.lines, self.timeout(), || marks.sum())?;
        let total = marks.sum()?;
        if total != self.args.lines {
            eprintln!(
                "warning: {} source topic {topic} holds {total} records, expected exactly {}",
                system.label(),
                self.args.lines
            );
        }
        Ok(m)
    }

    /// `system`'s file sink out of `topic`, its clients over `sec`.
    fn sink(&self, system: System, run: &Path, topic: &str, sec: Security) -> Result<Measurement> {
        const WHAT: &str = "sink";
        let out_dir = run.join(match system {
            System::KafkaConnect => "kc-out",
            System::Copycat => "copycat-out",
        });
        fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
        let (worker, connector) = match system {
            System::KafkaConnect => {
                let c = run.join("kc-sink.properties");
                write_props(
                    &c,
                    &[
                        ("name", unique("kc-file-sink")),
                        (
                            "connector.class",
                            "org.apache.kafka.connect.file.FileStreamSinkConnector".into(),
                        ),
                        ("tasks.max", "1".into()),
                        ("file", out_dir.join("out.txt").display().to_string()),
                        ("topics", topic.into()),
                    ],
                )?;
                (self.kc_worker(run, WHAT, sec)?, c)
            }
            System::Copycat => {
                let c = run.join("copycat-sink.properties");
                write_props(
                    &c,
                    &[
                        ("name", unique("copycat-file-sink")),
                        ("connector.class", "file-sink".into()),
                        ("tasks.max", "1".into()),
                        ("directory", out_dir.display().to_string()),
                        ("topics", topic.into()),
                        ("grants.fs.write", out_dir.display().to_string()),
                    ],
                )?;
                (self.copycat_worker(run, WHAT, sec)?, c)
            }
        };
        let want = self.args.lines * (self.args.line_size as u64 + 1);
        let line = self.args.line_size as u64 + 1;
        let (proc, started) = self.spawn(system, run, &worker, &connector, "sink")?;
        let m = measure(proc, started, self.args.lines, self.timeout(), || {
            // Complete lines so far: the output's bytes ÷ bytes per line.
            Ok(dir_bytes(&out_dir).min(want) / line)
        })?;
        let (lines, bytes) = dir_lines(&out_dir)?;
        if lines != self.args.lines || bytes != want {
            eprintln!(
                "warning: {} sink wrote {lines} lines ({bytes} B) to {}, expected {} ({want} B)",
                system.label(),
                out_dir.display(),
                self.args.lines
            );
        }
        Ok(m)
    }
}

/// Produce every line of `input` to `topic` (no key), for a sink-only run.
fn fill_topic(bootstrap: &str, topic: &str, input: &Path) -> Result<()> {
    use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
    use std::io::BufRead;
    let producer: ThreadedProducer<DefaultProducerContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("linger.ms", "5")
        .create()
        .context("creating the producer that fills the sink topic")?;
    let f = fs::File::open(input).with_context(|| format!("opening {}", input.display()))?;
    for line in std::io::BufReader::new(f).lines() {
        let line = line.with_context(|| format!("reading {}", input.display()))?;
        // (`send` hands the record back in its error: large, by rdkafka's design.)
        #[allow(clippy::result_large_err)]
        send_retrying(
            BaseRecord::<(), [u8]>::to(topic).payload(line.as_bytes()),
            |r| producer.send(r),
            || std::thread::sleep(Duration::from_millis(1)),
        )
        .map_err(|e| anyhow!("producing to {topic}: {e}"))?;
    }
    producer
        .flush(Duration::from_secs(120))
        .with_context(|| format!("flushing the records to {topic}"))?;
    Ok(())
}

/// `lines` lines of exactly `size` bytes plus `\n`: `line-<n>:` then `.`s.
fn generate_input(path: &Path, lines: u64, size: usize) -> Result<()> {
    let f = fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let mut line = String::with_capacity(size + 1);
    for i in 0..lines {
        line.clear();
        let _ = write!(line, "line-{i:09}:");
        line.truncate(size);
        while line.len() < size {
            line.push('.');
        }
        line.push('\n');
        w.write_all(line.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    w.flush().with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Compile the two components into the on-disk code cache the CLI uses, so
/// no measured run pays for compilation (as in the other benchmarks).
fn warm_up(args: &Args) -> Result<()> {
    let props = [
        ("bootstrap.servers".to_owned(), args.bootstrap.clone()),
        ("plugin.path".to_owned(), args.plugin_dir.display().to_string()),
    ]
    .into_iter()
    .collect();
    let wcfg = WorkerConfig::from_props(props).context("worker config")?;
    copycat_bench::warm_up(&wcfg, &args.plugin_dir, &["file-source", "file-sink"], false)
}

// ------------------------------------------------------------------ report

#[derive(Debug, Default, Clone, Copy)]
struct Pair {
    kc: Option<Measurement>,
    copycat: Option<Measurement>,
}

/// One table: a row per run and the medians (each column's median; the
/// ratios' medians are medians of the per-run ratios).
fn report(title: &str, first_what: &str, n: u64, pairs: &[Pair]) {
    type Getter = fn(&Measurement, u64) -> Option<f64>;
    let cols: [(&str, Getter, usize); 4] = [
        ("rec/s", |m, n| Some(m.rate(n)), 0),
        ("first ms", |m, _| Some(m.first.as_secs_f64() * 1e3), 0),
        ("steady rec/s", |m, n| m.steady(n), 0),
        ("peak RSS MiB", |m, _| Some(m.rss_kib as f64 / 1024.0), 1),
    ];
    println!();
    println!("{title}");
    println!(" (rec/s: {n} records ÷ time from process start to the last record {first_what}; first ms: to the first;");
    println!(
        " steady: rec/s after the first; thr ratio = Copycat ÷ Kafka Connect rec/s; mem ratio = KC ÷ Copycat peak RSS)"
    );
    let mut head = format!("{:<7}", "run");
    for sys in ["KC", "Copycat"] {
        for (c, _, _) in &cols {
            let _ = write!(head, " {:>w$}", format!("{sys} {c}"), w = sys.len() + c.len() + 1);
        }
    }
    let _ = write!(head, " {:>9} {:>9}", "thr ratio", "mem ratio");
    println!("{head}");
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); cols.len() * 2 + 2];
    for (i, p) in pairs.iter().enumerate() {
        let mut line = format!("{:<7}", i + 1);
        for (s, (sys, m)) in [("KC", p.kc), ("Copycat", p.copycat)].into_iter().enumerate() {
            for (j, (c, get, d)) in cols.iter().enumerate() {
                let v = m.and_then(|m| get(&m, n));
                if let Some(v) = v {
                    medians[s * cols.len() + j].push(v);
                }
                let _ = write!(line, " {}", cell(v, sys.len() + c.len() + 1, *d));
            }
        }
        let thr = p.kc.zip(p.copycat).map(|(k, c)| c.rate(n) / k.rate(n));
        let mem =
            p.kc.zip(p.copycat)
                .and_then(|(k, c)| (c.rss_kib > 0).then(|| k.rss_kib as f64 / c.rss_kib as f64));
        for (k, v) in [thr, mem].into_iter().enumerate() {
            if let Some(v) = v {
                medians[cols.len() * 2 + k].push(v);
            }
        }
        let _ = write!(line, " {} {}", cell(thr, 9, 2), cell(mem, 9, 2));
        println!("{line}");
    }
    let mut line = format!("{:<7}", "median");
    let mut k = 0;
    for sys in ["KC", "Copycat"] {
        for (c, _, d) in &cols {
            let _ = write!(
                line,
                " {}",
                cell(median(medians[k].clone()), sys.len() + c.len() + 1, *d)
            );
            k += 1;
        }
    }
    let thr = median(medians[k].clone());
    let mem = median(medians[k + 1].clone());
    let _ = write!(line, " {} {}", cell(thr, 9, 2), cell(mem, 9, 2));
    println!("{line}");
    if let (Some(thr), Some(mem)) = (thr, mem) {
        println!(
            "{title}: Copycat {thr:.2}x Kafka Connect's throughput at 1/{mem:.1} of its peak RSS (medians of per-run ratios)"
        );
    }
}

/// The results file's records for one table: Copycat's throughput against
/// Kafka Connect's (goal ≥ 3×) and its peak RSS against Kafka Connect's
/// (goal ≤ 1/10); values are medians, ratios medians of per-run ratios.
/// Over TLS (both systems on the SSL listener) the same figures, without
/// the goals (the issue set them for plaintext).
fn records(scenario: &str, n: u64, pairs: &[Pair], sec: Security) -> Vec<Record> {
    let both: Vec<(Measurement, Measurement)> = pairs.iter().filter_map(|p| p.kc.zip(p.copycat)).collect();
    if both.is_empty() {
        return Vec::new();
    }
    let runs = both.len();
    let med = |f: &dyn Fn(&(Measurement, Measurement)) -> f64| median(both.iter().map(f).collect());
    let mut note = format!("median of {runs} runs; ratio = Copycat ÷ Kafka Connect, median of per-run ratios");
    let vs = match sec {
        Security::Plaintext => "Kafka Connect 4.4",
        Security::Tls => {
            note.push_str("; both over TLS (security.protocol=SSL, server certificate verified)");
            "Kafka Connect 4.4 over TLS"
        }
    };
    let with_goal = |r: Record, g: Goal| if sec == Security::Plaintext { r.goal(g) } else { r };
    let rate = |m: &Measurement| m.rate(n);
    let rss = |m: &Measurement| m.rss_kib as f64 / 1024.0;
    let mut out = Vec::new();
    if let Some(v) = med(&|(_, c)| rate(c)) {
        let r = Record::new(scenario, "throughput", v, "rec/s")
            .vs(vs, med(&|(k, _)| rate(k)), med(&|(k, c)| rate(c) / rate(k)))
            .samples(both.iter().map(|(_, c)| rate(c)).collect())
            .note(note.clone())
            .param("records", n as f64);
        out.push(with_goal(r, Goal::ratio_at_least(3.0)));
    }
    if let Some(v) = med(&|(_, c)| rss(c)) {
        let r = Record::new(scenario, "peak-rss", v, "MiB")
            .vs(
                vs,
                med(&|(k, _)| rss(k)),
                med(&|(k, c)| if rss(k) > 0.0 { rss(c) / rss(k) } else { f64::NAN }),
            )
            .samples(both.iter().map(|(_, c)| rss(c)).collect())
            .note(note.clone())
            .param("records", n as f64);
        out.push(with_goal(r, Goal::ratio_at_most(0.1)));
    }
    out
}

/// What TLS costs each system in `scenario`: rec/s over TLS ÷ over
/// plaintext in the same run, the median of those per-run ratios
/// (`pairs` indexed by `Security::index`).
fn tls_cost(scenario: &str, n: u64, pairs: &[Vec<Pair>; 2]) {
    let [plain, tls] = pairs;
    let cost = |get: fn(&Pair) -> Option<Measurement>| {
        median(
            plain
                .iter()
                .zip(tls)
                .filter_map(|(p, t)| Some(get(t)?.rate(n) / get(p)?.rate(n)))
                .collect(),
        )
    };
    let (kc, copycat) = (cost(|p| p.kc), cost(|p| p.copycat));
    if kc.is_none() && copycat.is_none() {
        return;
    }
    let show = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
    println!(
        "{scenario}: TLS ÷ plaintext rec/s (median of per-run ratios): Kafka Connect {}, Copycat {}",
        show(kc),
        show(copycat)
    );
}

// ------------------------------------------------------------------ main

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    if args.lines == 0 || args.runs == 0 || args.partitions < 1 || args.line_size < 16 {
        bail!("--lines, --runs and --partitions must be at least 1, --line-size at least 16");
    }
    let copycat_bin = match &args.copycat_bin {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .context("locating this binary")?
            .parent()
            .map(|d| d.join("copycat"))
            .ok_or_else(|| anyhow!("this binary has no parent directory"))?,
    };
    if !copycat_bin.is_file() {
        bail!(
            "{} is missing: run `cargo build -p copycat-cli --bin copycat` (same profile and target dir), or pass --copycat-bin",
            copycat_bin.display()
        );
    }
    let kc_script = args
        .kafka_connect_script
        .clone()
        .unwrap_or_else(|| workspace().join("scripts/kafka-connect.sh"));
    if !kc_script.is_file() {
        bail!("{} is missing (pass --kafka-connect-script)", kc_script.display());
    }
    // Fetch the jars now, so no measured run includes the download.
    let status = Command::new("bash")
        .arg(&kc_script)
        .arg("fetch")
        .status()
        .with_context(|| format!("running {} fetch", kc_script.display()))?;
    if !status.success() {
        bail!("{} fetch failed ({status})", kc_script.display());
    }
    let plugin_dir = fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let args = Args { plugin_dir, ..args };
    warm_up(&args)?;
    let dir = match &args.work_dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(unique("copycat-bench-kc")),
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let dir = fs::canonicalize(&dir).with_context(|| format!("resolving {}", dir.display()))?;
    let input = dir.join("input.txt");
    eprintln!(
        "kafka_connect: {} lines × {} B → {}, {} partitions, {} run(s), Kafka at {}",
        args.lines,
        args.line_size,
        input.display(),
        args.partitions,
        args.runs,
        args.bootstrap
    );
    generate_input(&input, args.lines, args.line_size)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let bench = Bench {
        args,
        copycat_bin,
        kc_script,
        dir: dir.clone(),
        input,
        offsets_topics: std::sync::Mutex::new(Vec::new()),
    };
    let args = &bench.args;
    let securities = args.securities();
    if securities.contains(&Security::Tls) {
        eprintln!("kafka_connect: also over TLS at {}", args.tls()?.0);
    }
    let mut created: Vec<String> = Vec::new();
    // Per transport (`Security::index`), a pair per run.
    let mut sources: [Vec<Pair>; 2] = [Vec::new(), Vec::new()];
    let mut sinks: [Vec<Pair>; 2] = [Vec::new(), Vec::new()];
    let outcome = (|| -> Result<()> {
        for i in 0..args.runs {
            let run = dir.join(format!("run-{}", i + 1));
            // Each transport's configs, logs and outputs in their own place.
            let run_dir = |sec: Security| -> Result<PathBuf> {
                let d = match sec {
                    Security::Plaintext => run.clone(),
                    Security::Tls => run.join(sec.name()),
                };
                fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
                Ok(d)
            };
            // Each transport's sources write their own topics: (Kafka
            // Connect's, Copycat's).
            let topics = Security::ALL.map(|sec| {
                (
                    unique(&format!("copycat-bench-kc-source{}", sec.tag())),
                    unique(&format!("copycat-bench-copycat-source{}", sec.tag())),
                )
            });
            for &sec in &securities {
                let (kc_topic, cc_topic) = &topics[sec.index()];
                rt.block_on(create_topics(&args.bootstrap, &[kc_topic, cc_topic], args.partitions))?;
                created.extend([kc_topic.clone(), cc_topic.clone()]);
            }
            let order = if i % 2 == 0 {
                [System::KafkaConnect, System::Copycat]
            } else {
                [System::Copycat, System::KafkaConnect]
            };
            let order: Vec<System> = order.into_iter().filter(|s| args.systems.contains(s)).collect();
            // Both systems over one transport back to back; which transport
            // goes first alternates by run.
            let mut order_sec = securities.clone();
            if i % 2 == 1 {
                order_sec.reverse();
            }
            for &sec in &order_sec {
                let mut src = Pair::default();
                let (kc_topic, cc_topic) = &topics[sec.index()];
                for &sys in order.iter().filter(|_| args.only.contains(&Scenario::Source)) {
                    let topic = if sys == System::Copycat { cc_topic } else { kc_topic };
                    let m = bench
                        .source(sys, &run_dir(sec)?, topic, sec)
                        .with_context(|| format!("run {}: {} source{}", i + 1, sys.label(), sec.suffix()))?;
                    eprintln!(
                        "run {}: source {:<13} {:>9.0} rec/s ({:.2} s, first record after {} ms, peak RSS {:.1} MiB){}",
                        i + 1,
                        sys.label(),
                        m.rate(args.lines),
                        m.elapsed.as_secs_f64(),
                        m.first.as_millis(),
                        m.rss_kib as f64 / 1024.0,
                        sec.suffix()
                    );
                    match sys {
                        System::KafkaConnect => src.kc = Some(m),
                        System::Copycat => src.copycat = Some(m),
                    }
                }
                sources[sec.index()].push(src);
            }
            if !args.only.contains(&Scenario::Sink) {
                continue;
            }
            // The sinks (over every transport) read Kafka Connect's source
            // topic of the first transport; fill it if no source wrote it.
            let Some(&first) = securities.first() else { break };
            let sink_topic = &topics[first.index()].0;
            if sources[first.index()].last().and_then(|p| p.kc).is_none() {
                fill_topic(&args.bootstrap, sink_topic, &bench.input)?;
            }
            for &sec in &order_sec {
                let mut snk = Pair::default();
                for &sys in &order {
                    let m = bench
                        .sink(sys, &run_dir(sec)?, sink_topic, sec)
                        .with_context(|| format!("run {}: {} sink{}", i + 1, sys.label(), sec.suffix()))?;
                    eprintln!(
                        "run {}: sink   {:<13} {:>9.0} rec/s ({:.2} s, first line after {} ms, peak RSS {:.1} MiB){}",
                        i + 1,
                        sys.label(),
                        m.rate(args.lines),
                        m.elapsed.as_secs_f64(),
                        m.first.as_millis(),
                        m.rss_kib as f64 / 1024.0,
                        sec.suffix()
                    );
                    match sys {
                        System::KafkaConnect => snk.kc = Some(m),
                        System::Copycat => snk.copycat = Some(m),
                    }
                }
                sinks[sec.index()].push(snk);
            }
            if !args.keep {
                // The outputs of this run are ~2 × 100 MB per transport.
                let _ = fs::remove_dir_all(&run);
            }
        }
        Ok(())
    })();
    println!();
    println!(
        "Copycat vs Kafka Connect 4.4 (standalone), {} lines × {} B, {} partitions, same broker",
        args.lines, args.line_size, args.partitions
    );
    let mut out = Vec::new();
    for &sec in &securities {
        let over = match sec {
            Security::Plaintext => String::new(),
            Security::Tls => format!(", over TLS ({})", args.tls_bootstrap.as_deref().unwrap_or("?")),
        };
        let (srcs, snks) = (&sources[sec.index()], &sinks[sec.index()]);
        if args.only.contains(&Scenario::Source) {
            report(
                &format!("Source: file → FileStreamSource / file-source → topic{over}"),
                "in the topic",
                args.lines,
                srcs,
            );
        }
        if args.only.contains(&Scenario::Sink) {
            report(
                &format!("Sink: topic → FileStreamSink / file-sink → file{over}"),
                "in the output file",
                args.lines,
                snks,
            );
        }
        out.extend(records(
            &format!("vs-kafka-connect-source{}", sec.tag()),
            args.lines,
            srcs,
            sec,
        ));
        out.extend(records(
            &format!("vs-kafka-connect-sink{}", sec.tag()),
            args.lines,
            snks,
            sec,
        ));
    }
    if securities.contains(&Security::Tls) {
        tls_cost("source", args.lines, &sources);
        tls_cost("sink", args.lines, &sinks);
    }
    if let Err(e) = results::append(&out) {
        eprintln!("warning: recording the results: {e:#}");
    }
    if let Ok(mut v) = bench.offsets_topics.lock() {
        created.append(&mut v);
    }
    if args.keep {
        eprintln!("kept {} and topics: {}", dir.display(), created.join(" "));
    } else {
        if let Err(e) = rt.block_on(delete_topics(&args.bootstrap, &created)) {
            eprintln!("warning: {e:#}");
        }
        if args.work_dir.is_none() {
            let _ = fs::remove_dir_all(&dir);
        }
    }
    outcome
}
