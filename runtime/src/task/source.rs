//! A source task: poll the guest for batches, produce them to Kafka, and
//! commit the batches' source offsets once Kafka acknowledged every record
//! up to them (at-least-once).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rdkafka::ClientContext;
use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header as KHeader, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};

use super::{TaskContext, TaskFailure, TaskState, pause};
use crate::engine::guest::{Guest, GuestError, SourcePosition, SourceRecord};
use crate::host::TaskHost;
use crate::kafka::offsets::{offset_key, offset_value, read_connector};
use crate::kafka::{KafkaError, producer_config};

/// Low bit of a delivery opaque: 0 = a data batch, 1 = an offsets write.
const KIND_OFFSETS: usize = 1;

/// Batches in flight at once; each has a slot in a ring of counters, so a
/// delivery callback is one atomic decrement (no lock, no lookup).
const RING: usize = 1024;

/// Records of one poll still waiting for Kafka's acknowledgement.
struct Batch {
    id: u64,
    /// Latest offset per source partition in this batch.
    offsets: Vec<(String, String)>,
}

/// State shared with the delivery callbacks, which run on the producer's
/// polling thread.
struct Acks {
    /// Unacknowledged records per batch slot (`id % RING`).
    pending: Box<[AtomicUsize]>,
    /// Unacknowledged records of the offsets write in flight.
    offsets_pending: AtomicUsize,
    /// Records acknowledged so far.
    acked: AtomicU64,
    /// The first delivery failure; it fails the task.
    failure: Mutex<Option<String>>,
}

impl Acks {
    fn fail(&self, msg: String) {
        let mut f = match self.failure.lock() {
            Ok(f) => f,
            Err(p) => p.into_inner(),
        };
        if f.is_none() {
            *f = Some(msg);
        }
    }

    fn failure(&self) -> Option<String> {
        match self.failure.lock() {
            Ok(f) => f.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

impl ClientContext for Acks {}

impl ProducerContext for Acks {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, opaque: usize) {
        if let Err((e, msg)) = result {
            use rdkafka::message::Message;
            self.fail(format!(
                "Kafka did not accept a record for topic {} (partition {}): {e}",
                msg.topic(),
                msg.partition()
            ));
            return;
        }
        if opaque & KIND_OFFSETS == 0 {
            self.acked.fetch_add(1, Ordering::Relaxed);
            if let Some(c) = self.pending.get(opaque >> 1) {
                c.fetch_sub(1, Ordering::Release);
            }
        } else {
            self.offsets_pending.fetch_sub(1, Ordering::Release);
        }
    }
}

type Kproducer = ThreadedProducer<Acks>;

/// Hands a batch (with its delivery opaque) to the sender thread.
type BatchSender = SyncSender<(usize, Vec<SourceRecord>)>;

struct SourceRunner<'a> {
    ctx: &'a TaskContext,
    guest: Guest,
    producer: Arc<Kproducer>,
    /// Batches handed to the sender thread, which produces them while the
    /// task thread polls the guest for the next one.
    sender: Option<BatchSender>,
    sender_thread: Option<JoinHandle<()>>,
    next_batch: u64,
    /// Batches sent and not yet committed, oldest first.
    batches: VecDeque<Batch>,
    /// The offsets write in flight, if any.
    writing: Option<Vec<SourcePosition>>,
    last_commit: Instant,
}

/// The task body.
pub(crate) fn run(ctx: &TaskContext) -> Result<(), TaskFailure> {
    // The producer first: an idempotent producer spends its first few
    // hundred milliseconds getting a producer id, which then overlaps with
    // reading offsets and instantiating the guest.
    let mut pcfg = producer_config(&ctx.worker, &ctx.connector.producer_overrides);
    pcfg.set("client.id", format!("copycat-{}", ctx.ident));
    let producer: Kproducer = pcfg
        .create_with_context(Acks {
            pending: (0..RING).map(|_| AtomicUsize::new(0)).collect(),
            offsets_pending: AtomicUsize::new(0),
            acked: AtomicU64::new(0),
            failure: Mutex::new(None),
        })
        .map_err(|e| KafkaError::new(format!("creating the producer of task {}", ctx.ident), e))?;
    let offsets = read_connector(&ctx.worker, &ctx.ident.connector)?;
    tracing::info!(committed = offsets.len(), "loaded committed source offsets");
    let host = TaskHost::new(
        ctx.ident.clone(),
        &ctx.connector.limits,
        Arc::new(offsets),
        ctx.connector.grants.clone(),
    );
    let guest = Guest::instantiate(&ctx.engine, &ctx.plugin, host, &ctx.connector.limits)?;
    let producer = Arc::new(producer);
    let (sender, sender_thread) = spawn_sender(ctx, producer.clone())?;
    let mut runner = SourceRunner {
        ctx,
        guest,
        producer,
        sender: Some(sender),
        sender_thread: Some(sender_thread),
        next_batch: 0,
        batches: VecDeque::new(),
        writing: None,
        last_commit: Instant::now(),
    };
    runner.guest.source_start(&ctx.task_config)?;
    ctx.status.set(TaskState::Running, None);
    tracing::info!("source task started");
    let result = runner.poll_loop();
    // Whatever happened, deliver what can be delivered and commit its offsets.
    let drained = runner.drain();
    let stopped = runner.guest.source_stop();
    result?;
    drained?;
    stopped.map_err(TaskFailure::from)
}

impl SourceRunner<'_> {
    fn acks(&self) -> &Acks {
        self.producer.context()
    }

    fn poll_loop(&mut self) -> Result<(), TaskFailure> {
        let max = self.ctx.connector.batch_max_records;
        while !self.ctx.stopping() {
            self.check_failure()?;
            self.complete_write();
            if self.last_commit.elapsed() >= self.ctx.worker.offset_flush_interval {
                self.commit_offsets()?;
            }
            let records = match self.guest.source_poll(max) {
                Ok(r) => r,
                Err(GuestError::Retriable(msg)) => {
                    tracing::warn!(%msg, "poll failed with a retriable error; retrying");
                    pause(
                        self.ctx,
                        self.ctx.connector.idle_backoff.max(Duration::from_millis(100)),
                    );
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if records.is_empty() {
                pause(self.ctx, self.ctx.connector.idle_backoff);
                continue;
            }
            self.ctx
                .status
                .metrics
                .records_in
                .fetch_add(records.len() as u64, Ordering::Relaxed);
            self.send_batch(records)?;
        }
        Ok(())
    }

    /// The latest offset per source partition of `records`, in one backward
    /// pass (batches usually hold a handful of partitions).
    fn latest_offsets(records: &[SourceRecord]) -> Vec<(String, String)> {
        let mut latest: Vec<(String, String)> = Vec::new();
        let mut last: Option<&str> = None;
        for r in records.iter().rev() {
            if last == Some(r.source_partition.as_str()) {
                continue;
            }
            last = Some(&r.source_partition);
            if !latest.iter().any(|(p, _)| *p == r.source_partition) {
                latest.push((r.source_partition.clone(), r.source_offset.clone()));
            }
        }
        latest
    }

    fn send_batch(&mut self, records: Vec<SourceRecord>) -> Result<(), TaskFailure> {
        // Every ring slot busy: wait for the oldest batch.
        while self.batches.len() >= RING {
            self.commit_offsets()?;
            if self.batches.len() >= RING {
                self.check_failure()?;
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let id = self.next_batch;
        self.next_batch += 1;
        let slot = (id % RING as u64) as usize;
        if let Some(c) = self.acks().pending.get(slot) {
            c.store(records.len(), Ordering::Release);
        }
        self.batches.push_back(Batch {
            id,
            offsets: Self::latest_offsets(&records),
        });
        let handed = self
            .sender
            .as_ref()
            .is_some_and(|tx| tx.send((slot << 1, records)).is_ok());
        if !handed {
            self.check_failure()?;
            return Err(TaskFailure("the task's sender thread stopped unexpectedly".into()));
        }
        Ok(())
    }

    fn check_failure(&self) -> Result<(), TaskFailure> {
        match self.acks().failure() {
            Some(f) => Err(TaskFailure(f)),
            None => Ok(()),
        }
    }

    fn batch_done(&self, b: &Batch) -> bool {
        let slot = (b.id % RING as u64) as usize;
        self.acks()
            .pending
            .get(slot)
            .is_none_or(|c| c.load(Ordering::Acquire) == 0)
    }

    /// If the offsets write in flight is acknowledged, tell the guest.
    fn complete_write(&mut self) {
        if self.writing.is_none() || self.acks().offsets_pending.load(Ordering::Acquire) != 0 {
            return;
        }
        let Some(positions) = self.writing.take() else { return };
        let metrics = &self.ctx.status.metrics;
        metrics.offset_commits.fetch_add(1, Ordering::Relaxed);
        metrics
            .records_out
            .store(self.acks().acked.load(Ordering::Relaxed), Ordering::Relaxed);
        if let Err(e) = self.guest.source_commit(&positions) {
            tracing::warn!(error = %e, "the task's commit notification failed");
        }
    }

    /// Write the offsets of the acknowledged prefix of batches to the offsets
    /// topic (one write in flight at a time; later batches wait for the next).
    fn commit_offsets(&mut self) -> Result<(), TaskFailure> {
        self.complete_write();
        if self.writing.is_some() {
            return Ok(());
        }
        self.last_commit = Instant::now();
        let mut merged: BTreeMap<String, String> = BTreeMap::new();
        while let Some(front) = self.batches.front() {
            if !self.batch_done(front) {
                break;
            }
            if let Some(b) = self.batches.pop_front() {
                merged.extend(b.offsets);
            }
        }
        if merged.is_empty() {
            return Ok(());
        }
        let positions: Vec<SourcePosition> = merged
            .into_iter()
            .map(|(partition, offset)| SourcePosition { partition, offset })
            .collect();
        self.acks().offsets_pending.store(positions.len(), Ordering::Release);
        let topic = &self.ctx.worker.offset_storage_topic;
        let opaque = KIND_OFFSETS;
        for p in &positions {
            let key = offset_key(&self.ctx.ident.connector, &p.partition);
            let value = offset_value(&p.offset);
            let rec = BaseRecord::<[u8], [u8], usize>::with_opaque_to(topic, opaque)
                .key(key.as_slice())
                .payload(value.as_slice());
            send(&self.producer, rec)?;
        }
        self.writing = Some(positions);
        Ok(())
    }

    /// Wait for every record in flight, commit the last offsets, and notify
    /// the guest; each wait bounded by `offset.flush.timeout.ms`.
    fn drain(&mut self) -> Result<(), TaskFailure> {
        // Let the sender thread finish the batches it holds.
        self.sender = None;
        if let Some(t) = self.sender_thread.take()
            && t.join().is_err()
        {
            return Err(TaskFailure("the task's sender thread panicked".into()));
        }
        self.wait_for("records", |r| r.batches.iter().all(|b| r.batch_done(b)))?;
        self.wait_for("offsets", |r| r.acks().offsets_pending.load(Ordering::Acquire) == 0)?;
        self.complete_write();
        self.commit_offsets()?;
        self.wait_for("offsets", |r| r.acks().offsets_pending.load(Ordering::Acquire) == 0)?;
        self.complete_write();
        self.ctx
            .status
            .metrics
            .records_out
            .store(self.acks().acked.load(Ordering::Relaxed), Ordering::Relaxed);
        Ok(())
    }

    fn wait_for(&self, what: &str, done: impl Fn(&Self) -> bool) -> Result<(), TaskFailure> {
        let timeout = self.ctx.worker.offset_flush_timeout;
        let deadline = Instant::now() + timeout;
        loop {
            self.check_failure()?;
            if done(self) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(TaskFailure(format!(
                    "stopping: Kafka did not acknowledge the task's {what} within {} ms (offset.flush.timeout.ms); records whose offsets were not committed will be delivered again",
                    timeout.as_millis()
                )));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Start the thread that produces the batches the task thread hands over.
fn spawn_sender(ctx: &TaskContext, producer: Arc<Kproducer>) -> Result<(BatchSender, JoinHandle<()>), TaskFailure> {
    let (tx, rx) = sync_channel::<(usize, Vec<SourceRecord>)>(2);
    let default_topic = ctx.connector.topic.clone();
    let span = tracing::Span::current();
    let thread = std::thread::Builder::new()
        .name(format!("copycat-{}-send", ctx.ident))
        .spawn(move || {
            let _enter = span.enter();
            for (opaque, records) in rx {
                if let Err(TaskFailure(msg)) = produce(&producer, default_topic.as_deref(), opaque, &records) {
                    producer.context().fail(msg);
                    break;
                }
            }
        })
        .map_err(|e| TaskFailure(format!("spawning the sender thread of task {}: {e}", ctx.ident)))?;
    Ok((tx, thread))
}

/// Produce one batch's records.
fn produce(
    producer: &Kproducer,
    default_topic: Option<&str>,
    opaque: usize,
    records: &[SourceRecord],
) -> Result<(), TaskFailure> {
    for r in records {
        let topic = r.topic.as_deref().or(default_topic).ok_or_else(|| {
            TaskFailure(format!(
                "a record from source partition '{}' names no topic and the connector config has no `topic`",
                r.source_partition
            ))
        })?;
        let mut rec = BaseRecord::<[u8], [u8], usize>::with_opaque_to(topic, opaque);
        if let Some(k) = &r.key {
            rec = rec.key(k.as_slice());
        }
        if let Some(v) = &r.value {
            rec = rec.payload(v.as_slice());
        }
        if let Some(p) = r.partition {
            rec = rec.partition(p);
        }
        if let Some(ts) = r.timestamp {
            rec = rec.timestamp(ts);
        }
        if !r.headers.is_empty() {
            let mut hs = OwnedHeaders::new_with_capacity(r.headers.len());
            for h in &r.headers {
                hs = hs.insert(KHeader {
                    key: &h.key,
                    value: h.value.as_deref(),
                });
            }
            rec = rec.headers(hs);
        }
        send(producer, rec)?;
    }
    Ok(())
}

/// Enqueue one record, waiting when the producer's queue is full.
fn send<'r>(producer: &Kproducer, mut rec: BaseRecord<'r, [u8], [u8], usize>) -> Result<(), TaskFailure> {
    loop {
        match producer.send(rec) {
            Ok(()) => return Ok(()),
            Err((RdKafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                rec = back;
                if let Some(f) = producer.context().failure() {
                    return Err(TaskFailure(f));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err((e, back)) => {
                return Err(TaskFailure(format!(
                    "cannot produce to topic {} (partition {:?}): {e}",
                    back.topic, back.partition
                )));
            }
        }
    }
}
