//! librdkafka's enqueue path alone, per record: a source task's batch of
//! 2,000 datagen-like records (16 B keys, 100 B values, partitioner-chosen)
//! handed to the producer
//!
//! - `send`: one rust-rdkafka `send` (`rd_kafka_producev` by topic name) per
//!   record, as a program written against rust-rdkafka does;
//! - `produce-batch`: one `rd_kafka_produce_batch` through a topic handle
//!   (`copycat_runtime::kafka::batch_produce`), as Copycat's source tasks
//!   do.
//!
//! The producer is connected to the broker (so the topic's partitions are
//! known and the partitioner runs) but lingers for 15 minutes, so nothing is
//! sent while the clock runs; each batch is purged from the queue, untimed,
//! after it is measured. Needs the broker (`KAFKA_BOOTSTRAP`, default
//! 127.0.0.1:9092) and creates one 3-partition topic.
//!
//! Alone: `cargo bench -p copycat-bench --bench enqueue --profile dev`.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use copycat_bench::results::{self, Record};
use copycat_bench::{create_topics, delete_topics, unique};
use copycat_runtime::kafka::batch_produce::{Msg, Run, Scratch, TopicHandle};
use criterion::{Criterion, Throughput};
use rdkafka::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, PurgeConfig};

const BATCH: usize = 2_000;
const VALUE_BYTES: usize = 100;

fn records() -> Vec<(String, Vec<u8>)> {
    (0..BATCH)
        .map(|seq| {
            let mut key = String::new();
            let _ = write!(key, "stream-0:{seq}");
            let mut value = key.clone().into_bytes();
            value.resize(VALUE_BYTES, b'.');
            (key, value)
        })
        .collect()
}

fn producer(bootstrap: &str, topic: &str) -> Result<Arc<BaseProducer>> {
    let p: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("linger.ms", "900000")
        .set("queue.buffering.max.messages", "1000000")
        .set("message.timeout.ms", "0")
        .create()
        .context("creating the producer")?;
    p.client()
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .context("fetching the topic's metadata")?;
    Ok(Arc::new(p))
}

/// Drop what is queued (untimed) and serve the purge reports until the
/// queue is empty: unserved reports still count against
/// `queue.buffering.max.messages`, and a full queue refuses records in
/// nanoseconds.
fn purge(p: &BaseProducer) {
    p.purge(PurgeConfig::default().queue().inflight());
    let deadline = Instant::now() + Duration::from_secs(10);
    while p.in_flight_count() > 0 && Instant::now() < deadline {
        p.poll(Duration::from_millis(1));
    }
}

fn main() -> Result<()> {
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".into());
    let rt = tokio::runtime::Runtime::new()?;
    let topic = unique("copycat-bench-enqueue");
    rt.block_on(create_topics(&bootstrap, &[&topic], 3))?;
    let p = producer(&bootstrap, &topic)?;
    // Metadata also reaches the topic handle's state once it exists.
    let handle = TopicHandle::new(&p, |p| p.client(), &topic).context("topic handle")?;
    let recs = records();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut group = c.benchmark_group("enqueue");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("send", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let mut refused = 0;
                for (k, v) in &recs {
                    let rec = BaseRecord::<str, [u8]>::to(&topic)
                        .key(k.as_str())
                        .payload(v.as_slice());
                    refused += usize::from(p.send(rec).is_err());
                }
                total += start.elapsed();
                assert_eq!(refused, 0, "send: librdkafka refused records; the figure would be void");
                purge(&p);
            }
            total
        });
    });
    let mut scratch = Scratch::default();
    group.bench_function("produce-batch", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let mut run = Run::<()>::new(&mut scratch);
                for (k, v) in &recs {
                    let msg = Msg {
                        key: Some(k.as_bytes()),
                        value: Some(v),
                        partition: None,
                    };
                    run.push(msg, ());
                }
                let sent = run.send(&handle, || Err::<(), ()>(()));
                drop(run);
                total += start.elapsed();
                assert!(sent.is_ok(), "produce-batch: {sent:?}; the figure would be void");
                purge(&p);
            }
            total
        });
    });
    group.finish();
    drop(handle);
    c.final_summary();
    // Criterion's estimates, per record.
    let mut out = Vec::new();
    for name in ["send", "produce-batch"] {
        if let Some(ns) = criterion_mean_ns("enqueue", name) {
            let per = ns / BATCH as f64;
            println!("enqueue {name}: {per:.1} ns/record");
            out.push(
                Record::new(&format!("source-enqueue-{name}"), "per-record", per, "ns/record")
                    .param("batch", BATCH as f64)
                    .param("record_bytes", VALUE_BYTES as f64)
                    .note("criterion mean per batch ÷ batch; librdkafka's enqueue path only, nothing sent"),
            );
        }
    }
    if let Err(e) = results::append(&out) {
        eprintln!("warning: recording the results: {e:#}");
    }
    if let Err(e) = rt.block_on(delete_topics(&bootstrap, &[topic])) {
        eprintln!("warning: {e:#}");
    }
    Ok(())
}

/// Criterion's mean time per iteration, from its `estimates.json` (in the
/// directory criterion chooses itself, as `boundary` reads it).
fn criterion_mean_ns(group: &str, name: &str) -> Option<f64> {
    let dir = match (std::env::var_os("CRITERION_HOME"), std::env::var_os("CARGO_TARGET_DIR")) {
        (Some(home), _) => std::path::PathBuf::from(home),
        (None, Some(t)) => std::path::PathBuf::from(t).join("criterion"),
        (None, None) => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion"),
    };
    let path = dir.join(group).join(name).join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["mean"]["point_estimate"].as_f64()
}
