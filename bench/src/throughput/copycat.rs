//! Copycat measured in an embedded worker (a fresh `Worker` per
//! measurement, with its own offsets topic): the datagen source into Kafka,
//! at-least-once or exactly-once, and the file-sink out of it.
//!
//! Invariants: a measurement's clock starts at `start_connector`, so it
//! includes the connector's start (loading and instantiating the component,
//! reading offsets, creating clients), which is also reported on its own;
//! the worker is shut down before the output is checked; a stalled or
//! failed task ends the measurement with an error ([`Watchdog`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use copycat_runtime::task::TaskMetrics;
use copycat_runtime::{ConnectorConfig, TaskState, Worker, WorkerConfig};

use super::{Args, Boundary, Measurement, Security, worker_props};
use crate::files::{dir_bytes, dir_lines};
use crate::kafka::{Watermarks, count_committed};
use crate::progress::{bar, spinner};
use crate::{cpu_time, props, unique};

/// A fresh embedded worker with its own offsets topic (pushed to
/// `created`), its clients over `sec`, returned once that topic answers.
fn start_worker(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    sec: Security,
    created: &mut Vec<String>,
) -> Result<std::sync::Arc<Worker>> {
    let offsets_topic = unique("copycat-bench-offsets");
    created.push(offsets_topic.clone());
    let wcfg = WorkerConfig::from_props(worker_props(args, &offsets_topic, sec)?).context("worker config")?;
    let offsets_partitions = wcfg.offset_storage_partitions;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    // Worker::start creates the offsets topic and returns at once; a task
    // that reads it before every partition has a leader fails with
    // NotLeaderForPartition (the runtime does not retry that yet).
    Watermarks::new(&args.bootstrap, &offsets_topic, offsets_partitions)?.wait_ready()?;
    Ok(worker)
}

/// From the first progress seen (`first`: when, and how many records by
/// then) and the whole measurement's `elapsed`: the start-up time and the
/// rate of the `records` left after it.
fn startup_steady(first: Option<(Duration, u64)>, elapsed: Duration, records: u64) -> (Option<Duration>, Option<f64>) {
    match first {
        Some((t, n)) if elapsed > t => (Some(t), Some((records - n) as f64 / (elapsed - t).as_secs_f64())),
        Some((t, _)) => (Some(t), None),
        None => (None, None),
    }
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

/// Copycat's source: a fresh embedded worker running the datagen component
/// (`tasks.max=1`, `streams=1`, `count=--records`) into `topic`,
/// at-least-once or `exactly_once`. Timed from `start_connector` until the
/// topic's end offsets (at-least-once) or the task's committed records
/// (exactly-once) reach `--records`; the topic is counted afterwards. The
/// worker and its task reach the broker over `sec`.
pub fn run_copycat(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    topic: &str,
    exactly_once: bool,
    sec: Security,
    created: &mut Vec<String>,
) -> Result<Measurement> {
    let worker = start_worker(args, rt, sec, created)?;
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
    let label = format!(
        "{}{}",
        if exactly_once { "copycat-eos" } else { "copycat" },
        sec.suffix()
    );
    let pb = bar(&format!("{label} (datagen)"), args.records);

    let cpu0 = cpu_time();
    let start = Instant::now();
    worker.start_connector(cfg).context("starting the datagen connector")?;
    let mut first: Option<(Duration, u64)> = None;
    let mut watchdog = Watchdog::new(label.clone());
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
    let sp = spinner(format!("{label}: stopping the worker"));
    worker.shutdown();
    sp.finish_and_clear();
    let (elapsed, cpu) = result?;
    if exactly_once {
        let sp = spinner(format!("{label}: counting {topic} with read_committed"));
        let total = count_committed(&args.bootstrap, topic, args.partitions)?;
        sp.finish_and_clear();
        if total != args.records {
            eprintln!(
                "warning: {label} topic {topic} holds {total} committed records, expected exactly {}",
                args.records
            );
        }
    } else {
        let total = marks.sum()?;
        if total != args.records {
            eprintln!(
                "warning: {label} topic {topic} holds {total} records, expected exactly {}",
                args.records
            );
        }
    }
    let (startup, steady) = startup_steady(first, elapsed, args.records);
    Ok(Measurement {
        elapsed,
        startup,
        steady,
        transactions: exactly_once.then_some(transactions),
        end_wait: all_polled.map(|t| elapsed.saturating_sub(t)),
        cpu: Some(cpu),
    })
}

/// Bytes the sink files hold once every record is written: each value plus
/// its `\n`.
fn sink_bytes(args: &Args) -> u64 {
    args.records * (args.value_size as u64 + 1)
}

/// Ends a Copycat measurement that stalls (no progress for 60 s) or whose
/// task failed, with an error saying which.
pub struct Watchdog {
    label: String,
    best: u64,
    since: Instant,
}

impl Watchdog {
    fn new(label: String) -> Self {
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

/// Copycat's sink: an embedded worker running the file-sink component
/// (`tasks.max=1`, at-least-once) on `topic`, writing
/// `<dir>/<topic>-<partition>.txt`. Timed from `start_connector` until the
/// files hold every line (their sizes sum to records × (value size + 1),
/// polled every 10 ms); the lines are counted afterwards. The worker and
/// its task reach the broker over `sec`.
pub fn run_copycat_sink(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    topic: &str,
    dir: &Path,
    sec: Security,
    created: &mut Vec<String>,
) -> Result<Measurement> {
    let worker = start_worker(args, rt, sec, created)?;
    let label = format!("copycat-sink{}", sec.suffix());
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
    let pb = bar(&format!("{label} (file-sink)"), args.records);
    let cpu0 = cpu_time();
    let start = Instant::now();
    worker
        .start_connector(cfg)
        .context("starting the file-sink connector")?;
    let mut first: Option<(Duration, u64)> = None;
    let mut watchdog = Watchdog::new(label.clone());
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
    let sp = spinner(format!("{label}: stopping the worker"));
    worker.shutdown();
    sp.finish_and_clear();
    let (elapsed, cpu) = result?;
    let (lines, _) = dir_lines(&out)?;
    if lines != args.records {
        bail!(
            "{label}: {} holds {lines} lines, expected {}",
            out.display(),
            args.records
        );
    }
    let (startup, steady) = startup_steady(first, elapsed, args.records);
    Ok(Measurement {
        elapsed,
        startup,
        steady,
        transactions: None,
        end_wait: None,
        cpu: Some(cpu),
    })
}
