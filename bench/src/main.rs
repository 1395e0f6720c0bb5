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
//! Over TLS (`--security`; by default when the broker's SSL listener is
//! known, `--tls-bootstrap`/`--tls-ca`, and `--only` is not given): the
//! same runs also measure ceiling, copycat, sink-ceiling and copycat-sink
//! with their clients on the SSL listener (`security.protocol=SSL`, the
//! server's certificate verified against the CA), through the same code:
//! only the worker properties the clients are configured from differ. The
//! TLS measurements write their own fresh topics; the sinks read the same
//! pre-filled topic. Each measurement runs over both transports
//! back to back (which goes first alternates by run), and the tables print
//! Copycat ÷ ceiling over TLS beside plaintext, and TLS ÷ plaintext.
//!
//! The headline figures (medians, ratios, the goals) are appended to
//! the results file (`copycat_bench::results`). The measurements, tables and
//! figures live in `copycat_bench::throughput`; this file runs them.
//!
//! This is a benchmark, not a test: nothing is asserted about speed.

use anyhow::{Context, Result, bail};
use clap::Parser;
use copycat_bench::kafka::count_committed;
use copycat_bench::throughput::ceiling::{fill_sink_topic, run_ceiling, run_ceiling_eos, run_sink_ceiling};
use copycat_bench::throughput::copycat::{run_copycat, run_copycat_sink};
use copycat_bench::throughput::figures::record_results;
use copycat_bench::throughput::tables::{report, report_sink, report_tls};
use copycat_bench::throughput::{Args, Measure, Run, Security, worker_props};
use copycat_bench::{Watermarks, create_topics, delete_topics, init_tracing, unique, warm_up};
use copycat_runtime::WorkerConfig;
use copycat_runtime::kafka::producer_config;
use rdkafka::producer::{BaseProducer, Producer};
use std::time::Duration;

/// The source measurements' topics of one run over one transport.
struct SourceTopics {
    ceiling: String,
    ceiling_batch: String,
    alo: String,
    eos: String,
    ceiling_eos: String,
}

impl SourceTopics {
    fn new(sec: Security) -> Self {
        let t = |what: &str| unique(&format!("copycat-bench-{what}{}", sec.tag()));
        Self {
            ceiling: t("ceiling"),
            ceiling_batch: t("ceiling-batch"),
            alo: t("datagen"),
            eos: t("datagen-eos"),
            ceiling_eos: t("ceiling-eos"),
        }
    }

    /// `m`'s topic (`None` for the sink measurements).
    fn of(&self, m: Measure) -> Option<&str> {
        match m {
            Measure::Ceiling => Some(&self.ceiling),
            Measure::CeilingBatch => Some(&self.ceiling_batch),
            Measure::Copycat => Some(&self.alo),
            Measure::CopycatEos => Some(&self.eos),
            Measure::CeilingEos => Some(&self.ceiling_eos),
            Measure::SinkCeiling | Measure::SinkCeilingBatch | Measure::CopycatSink => None,
        }
    }
}

/// Fails, saying why, unless a producer configured from `worker` (the
/// ceiling's settings) reaches the broker within 10 s: a broker without
/// the SSL listener, or a CA that did not sign its certificate, ends the
/// bench before the first run rather than in its middle.
fn check_reachable(args: &Args, worker: &WorkerConfig, sec: Security) -> Result<()> {
    let producer: BaseProducer = producer_config(worker, &args.overrides()?)
        .create()
        .context("creating a probe producer")?;
    if let Err(e) = producer.client().fetch_metadata(None, Duration::from_secs(10)) {
        bail!(
            "the broker at {} ({}) did not answer within 10 s: {e} (a broker started by an older scripts/kafka.sh has no SSL listener: `just kafka-stop && just kafka-start`)",
            worker.bootstrap_servers,
            sec.name()
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    if args.records == 0 || args.runs == 0 || args.partitions < 1 || args.batch_size == 0 {
        bail!("--records, --runs, --partitions and --batch-size must be at least 1");
    }
    let securities = args.securities();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    eprintln!(
        "copycat-bench: {} records × {} B, {} partitions, {} run(s), Kafka at {}{}",
        args.records,
        args.value_size,
        args.partitions,
        args.runs,
        args.bootstrap,
        if securities.contains(&Security::Tls) {
            format!(", over TLS at {}", args.tls()?.0)
        } else {
            String::new()
        }
    );
    if args.security.is_empty() && args.only.is_empty() && !securities.contains(&Security::Tls) {
        eprintln!(
            "copycat-bench: not measuring over TLS: KAFKA_SSL_BOOTSTRAP and KAFKA_TLS_CA (or --tls-bootstrap, --tls-ca) are not set (`just bench` sets them for the local broker)"
        );
    }
    let mut components = Vec::new();
    if args.measured_any(Measure::Copycat) || args.measured_any(Measure::CopycatEos) {
        components.push("datagen");
    }
    if args.measured_any(Measure::CopycatSink) {
        components.push("file-sink");
    }
    let warm_cfg =
        WorkerConfig::from_props(worker_props(&args, "unused", Security::Plaintext)?).context("worker config")?;
    warm_up(&warm_cfg, &args.plugin_dir, &components, true)?;
    let sink_measures = [Measure::SinkCeiling, Measure::SinkCeilingBatch, Measure::CopycatSink];
    let sinks = sink_measures.into_iter().any(|m| args.measured_any(m));
    let sink_root = args
        .sink_dir
        .clone()
        .unwrap_or_else(std::env::temp_dir)
        .join(unique("copycat-bench-sink"));
    // The ceilings' clients take a task's settings from these (the sink
    // topic is filled over plaintext whatever is measured).
    let mut ceiling_workers = Vec::new();
    for sec in Security::ALL {
        if sec == Security::Tls && !securities.contains(&sec) {
            ceiling_workers.push(None);
            continue;
        }
        let w = WorkerConfig::from_props(worker_props(&args, "unused", sec)?)
            .with_context(|| format!("worker config ({})", sec.name()))?;
        if sec == Security::Tls {
            check_reachable(&args, &w, sec)?;
        }
        ceiling_workers.push(Some(w));
    }
    let ceiling_worker = |sec: Security| -> Result<&WorkerConfig> {
        ceiling_workers
            .get(sec.index())
            .and_then(Option::as_ref)
            .with_context(|| format!("no worker config for {}", sec.name()))
    };
    let plain_worker = ceiling_worker(Security::Plaintext)?;
    let mut created: Vec<String> = Vec::new();
    // The runs over each transport, indexed by `Security::index`.
    let mut runs: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    let outcome = (|| -> Result<()> {
        for i in 0..args.runs {
            let source_topics = Security::ALL.map(SourceTopics::new);
            let warmup_topic = unique("copycat-bench-warmup");
            let sink_topic = unique("copycat-bench-sink");
            let mut topics = Vec::new();
            if sinks {
                topics.push(sink_topic.as_str());
            }
            let ceilings = [Measure::Ceiling, Measure::CeilingBatch, Measure::CeilingEos];
            if ceilings.into_iter().any(|m| args.measured_any(m)) || sinks {
                rt.block_on(create_topics(&args.bootstrap, &[&warmup_topic], 1))?;
                created.push(warmup_topic.clone());
            }
            for sec in Security::ALL {
                for m in [
                    Measure::Ceiling,
                    Measure::CeilingBatch,
                    Measure::Copycat,
                    Measure::CopycatEos,
                    Measure::CeilingEos,
                ] {
                    if args.measured(m, sec)
                        && let Some(t) = source_topics[sec.index()].of(m)
                    {
                        topics.push(t);
                    }
                }
            }
            rt.block_on(create_topics(&args.bootstrap, &topics, args.partitions))?;
            created.extend(topics.iter().map(|t| (*t).to_owned()));
            for t in &topics {
                Watermarks::new(&args.bootstrap, t, args.partitions)?.wait_ready()?;
            }
            for r in &mut runs {
                r.push(Run::default());
            }
            // Over both transports, each measurement back to back; which
            // goes first alternates by run.
            let mut order_sec = securities.clone();
            if i % 2 == 1 {
                order_sec.reverse();
            }
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
                for &sec in &order_sec {
                    if !args.measured(measure, sec) {
                        continue;
                    }
                    let Some(run) = runs[sec.index()].last_mut() else { break };
                    let Some(topic) = source_topics[sec.index()].of(measure) else {
                        continue;
                    };
                    let tag = sec.suffix();
                    match measure {
                        Measure::Ceiling | Measure::CeilingBatch => {
                            let batched = measure == Measure::CeilingBatch;
                            let (label, name) = if batched {
                                (format!("ceiling (produce_batch){tag}"), format!("ceiling-batch{tag}"))
                            } else {
                                (format!("ceiling (rdkafka){tag}"), format!("ceiling    {tag}"))
                            };
                            let m = run_ceiling(&args, ceiling_worker(sec)?, topic, &warmup_topic, &label, batched)?;
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
                            let (m, commit_ms) = run_ceiling_eos(&args, ceiling_worker(sec)?, topic, &warmup_topic)?;
                            let total = count_committed(&args.bootstrap, topic, args.partitions)?;
                            if total != args.records {
                                eprintln!(
                                    "warning: ceiling-eos{tag} topic {topic} holds {total} committed records, expected exactly {}",
                                    args.records
                                );
                            }
                            eprintln!(
                                "run {}: ceiling-eos{tag} {:>10.0} rec/s ({:.2} s, {} transactions, commit_transaction {:.1} ms on average)",
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
                            let m = run_copycat(&args, &rt, topic, eos, sec, &mut created)?;
                            eprintln!(
                                "run {}: {}{tag} {:>10.0} rec/s ({:.2} s, first {} after {} ms{})",
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
            }
            if sinks {
                // Kafka → file: one pre-filled topic, read by all (each in
                // its own consumer group, over its own transport); who goes
                // first alternates.
                fill_sink_topic(&args, plain_worker, &sink_topic, &warmup_topic)?;
                let run_dir = sink_root.join(format!("run-{}", i + 1));
                let mut order = sink_measures;
                order.rotate_left(i % 3);
                for measure in order {
                    for &sec in &order_sec {
                        if !args.measured(measure, sec) {
                            continue;
                        }
                        let Some(run) = runs[sec.index()].last_mut() else { break };
                        let dir = run_dir.join(sec.name());
                        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                        let (m, label, unit) = match measure {
                            Measure::SinkCeiling | Measure::SinkCeilingBatch => {
                                let batched = measure == Measure::SinkCeilingBatch;
                                let m = run_sink_ceiling(&args, ceiling_worker(sec)?, &sink_topic, &dir, batched, sec)?;
                                (m, if batched { "sink-ceiling-batch" } else { "sink-ceiling" }, "record")
                            }
                            _ => (
                                run_copycat_sink(&args, &rt, &sink_topic, &dir, sec, &mut created)?,
                                "copycat-sink",
                                "line",
                            ),
                        };
                        eprintln!(
                            "run {}: {label}{} {:>10.0} rec/s ({:.2} s, first {unit} after {} ms)",
                            i + 1,
                            sec.suffix(),
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
                }
                let _ = std::fs::remove_dir_all(&run_dir);
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
    ];
    let [plain_runs, tls_runs] = &runs;
    for sec in securities.iter().copied() {
        if sources.into_iter().any(|m| args.measured(m, sec)) {
            report(&args, &runs[sec.index()], sec);
        }
    }
    for sec in securities.iter().copied() {
        if sink_measures.into_iter().any(|m| args.measured(m, sec)) {
            report_sink(&args, &runs[sec.index()], sec);
        }
    }
    if securities.contains(&Security::Tls) {
        report_tls(&args, plain_runs, tls_runs);
    }
    if sinks {
        let _ = std::fs::remove_dir_all(&sink_root);
    }
    if let Err(e) = record_results(&args, plain_runs, tls_runs) {
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
