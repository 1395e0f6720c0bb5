//! The ceilings: what plain rdkafka clients do with the same records on the
//! same broker, the figures Copycat is measured against. Source side: a
//! producer loop with exactly a source task's producer settings (one
//! `send` per record, one `rd_kafka_produce_batch` per batch, or
//! transactional); sink side: a consumer with a sink task's consumer
//! settings writing each value as a line to one file.
//!
//! Invariants: the records are the ones datagen generates (key
//! `stream-0:<seq>`, value the key padded with `.`), the topic holds
//! exactly `--records` of them afterwards, and nothing untimed (client
//! creation, warm-up) is in a source ceiling's clock.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use copycat_runtime::WorkerConfig;
use copycat_runtime::config::Props;
use copycat_runtime::kafka::batch_consume::MessageQueue;
use copycat_runtime::kafka::batch_produce::{self, Msg, Run as BatchRun, Scratch, TopicHandle};
use copycat_runtime::kafka::{producer_config, sink_consumer_config};
use indicatif::ProgressBar;
use rdkafka::ClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message as _;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};

use super::{Args, Measurement, Security};
use crate::files::file_lines;
use crate::kafka::{Watermarks, send_retrying};
use crate::progress::bar;
use crate::{cpu_time, unique};

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

/// The ceiling: the raw producer writing `args.records` datagen records
/// to `topic` (one `send` each, or `batched`: `--batch-size` per
/// `rd_kafka_produce_batch`), after one untimed warm-up record to
/// `warmup_topic`. Timed from the first send to the last acknowledgement.
pub fn run_ceiling(
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

/// The ceiling's records, one `send` per record.
fn produce_one_by_one(args: &Args, producer: &BaseProducer<CountAcks>, topic: &str, pb: &ProgressBar) -> Result<()> {
    let ctx = producer.context();
    let mut records = DatagenRecords::new(args.value_size);
    for seq in 0..args.records {
        let (key, value) = records.next(seq);
        // Serving delivery reports while the producer's queue is full.
        // (`send` hands the record back in its error: large, by rdkafka's design.)
        #[allow(clippy::result_large_err)]
        send_retrying(
            BaseRecord::to(topic).key(key).payload(value),
            |r| producer.send(r),
            || producer.poll(Duration::from_millis(10)),
        )
        .map_err(|e| anyhow!("producing to {topic}: {e}"))
        .context("ceiling")?;
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
pub fn run_ceiling_eos(
    args: &Args,
    worker: &WorkerConfig,
    topic: &str,
    offsets_topic: &str,
) -> Result<(Measurement, f64)> {
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
            #[allow(clippy::result_large_err)]
            send_retrying(
                BaseRecord::to(topic).key(key).payload(value),
                |r| producer.send(r),
                || std::thread::sleep(Duration::from_millis(1)),
            )
            .map_err(|e| anyhow!("ceiling-eos: producing to {topic}: {e}"))?;
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

/// Fill a fresh sink topic with the records datagen generates (the
/// ceiling's producer loop; not timed as a result).
pub fn fill_sink_topic(args: &Args, worker: &WorkerConfig, topic: &str, warmup_topic: &str) -> Result<()> {
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

/// The sink ceiling: a raw `BaseConsumer` (subscribed, as a sink task is)
/// reading `topic` and writing each value as a line to one file through a
/// `BufWriter`, fsynced at the end. Timed from creating the consumer until
/// the last line is written and synced.
///
/// `batched`: the messages come in runs through
/// `copycat_runtime::kafka::batch_consume` (the partitions routed to a
/// `MessageQueue` once assigned), as a sink task takes them; otherwise one
/// `poll` per message. The consumer's settings are `worker`'s (its
/// `consumer.*`, so its transport too); `sec` only names it.
pub fn run_sink_ceiling(
    args: &Args,
    worker: &WorkerConfig,
    topic: &str,
    dir: &Path,
    batched: bool,
    sec: Security,
) -> Result<Measurement> {
    let name = if batched { "sink-ceiling-batch" } else { "sink-ceiling" };
    let path = dir.join(format!("{name}.txt"));
    let label = format!("{name}{}", sec.suffix());
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
    let (lines, _) = file_lines(&path)?;
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
