//! A source task: poll the guest for batches, produce them to Kafka, and
//! commit the batches' source offsets once Kafka acknowledged every record
//! up to them (at-least-once).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rdkafka::ClientContext;
use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header as KHeader, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};

use super::{TaskContext, TaskFailure, TaskState, pause};
use crate::engine::guest::{Guest, GuestError, SourcePosition, SourceRecord};
use crate::host::TaskHost;
use crate::kafka::offsets::{offset_key, offset_value, read_connector};
use crate::kafka::{KafkaError, producer_config};

/// Low bit of a delivery opaque: 0 = a data batch, 1 = an offset commit.
const KIND_OFFSETS: usize = 1;

/// Records of one poll still waiting for Kafka's acknowledgement.
struct Batch {
    pending: usize,
    /// Latest offset per source partition in this batch.
    offsets: Vec<(String, String)>,
}

/// An offsets write waiting for its acknowledgement.
struct OffsetWrite {
    id: u64,
    pending: usize,
    positions: Vec<SourcePosition>,
}

#[derive(Default)]
struct AckState {
    /// Id of `batches[0]`.
    first_batch: u64,
    batches: VecDeque<Batch>,
    writes: VecDeque<OffsetWrite>,
    next_write: u64,
    /// Offsets durable in the offsets topic, not yet told to the guest.
    durable: Vec<SourcePosition>,
    /// The first delivery failure; it fails the task.
    failure: Option<String>,
    acked: u64,
}

impl AckState {
    /// Take the offsets of the acknowledged prefix of batches.
    fn take_committable(&mut self) -> BTreeMap<String, String> {
        let mut merged = BTreeMap::new();
        while self.batches.front().is_some_and(|b| b.pending == 0) {
            if let Some(b) = self.batches.pop_front() {
                self.first_batch += 1;
                merged.extend(b.offsets);
            }
        }
        merged
    }
}

/// Delivery callbacks: run inside `producer.poll`, on the task's thread.
struct AckContext {
    state: Mutex<AckState>,
}

impl AckContext {
    fn lock(&self) -> MutexGuard<'_, AckState> {
        match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}

impl ClientContext for AckContext {}

impl ProducerContext for AckContext {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, opaque: usize) {
        let mut st = self.lock();
        if let Err((e, msg)) = result {
            use rdkafka::message::Message;
            if st.failure.is_none() {
                st.failure = Some(format!(
                    "Kafka did not accept a record for topic {} (partition {}): {e}",
                    msg.topic(),
                    msg.partition()
                ));
            }
            return;
        }
        let id = (opaque >> 1) as u64;
        if opaque & KIND_OFFSETS == 0 {
            st.acked += 1;
            let first = st.first_batch;
            if let Some(b) = id.checked_sub(first).and_then(|i| st.batches.get_mut(i as usize)) {
                b.pending = b.pending.saturating_sub(1);
            }
        } else {
            let mut done = Vec::new();
            if let Some(w) = st.writes.iter_mut().find(|w| w.id == id) {
                w.pending = w.pending.saturating_sub(1);
            }
            while st.writes.front().is_some_and(|w| w.pending == 0) {
                if let Some(w) = st.writes.pop_front() {
                    done.extend(w.positions);
                }
            }
            st.durable.extend(done);
        }
    }
}

type Kproducer = BaseProducer<AckContext>;

struct SourceRunner<'a> {
    ctx: &'a TaskContext,
    guest: Guest,
    producer: Kproducer,
    next_batch: u64,
    last_commit: Instant,
}

/// The task body.
pub(crate) fn run(ctx: &TaskContext) -> Result<(), TaskFailure> {
    let offsets = read_connector(&ctx.worker, &ctx.ident.connector)?;
    tracing::info!(committed = offsets.len(), "loaded committed source offsets");
    let host = TaskHost::new(
        ctx.ident.clone(),
        &ctx.connector.limits,
        Arc::new(offsets),
        ctx.connector.grants.clone(),
    );
    let guest = Guest::instantiate(&ctx.engine, &ctx.plugin, host, &ctx.connector.limits)?;
    let mut pcfg = producer_config(&ctx.worker, &ctx.connector.producer_overrides);
    pcfg.set("client.id", format!("copycat-{}", ctx.ident));
    let producer: Kproducer = pcfg
        .create_with_context(AckContext {
            state: Mutex::new(AckState::default()),
        })
        .map_err(|e| KafkaError::new(format!("creating the producer of task {}", ctx.ident), e))?;
    let mut runner = SourceRunner {
        ctx,
        guest,
        producer,
        next_batch: 0,
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
    fn acks(&self) -> MutexGuard<'_, AckState> {
        self.producer.context().lock()
    }

    fn poll_loop(&mut self) -> Result<(), TaskFailure> {
        let max = self.ctx.connector.batch_max_records;
        while !self.ctx.stopping() {
            self.producer.poll(Duration::ZERO);
            self.check_failure()?;
            if self.last_commit.elapsed() >= self.ctx.worker.offset_flush_interval {
                self.commit_offsets()?;
            }
            self.notify_durable();
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
                self.producer.poll(self.ctx.connector.idle_backoff);
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

    fn send_batch(&mut self, records: Vec<SourceRecord>) -> Result<(), TaskFailure> {
        let id = self.next_batch;
        self.next_batch += 1;
        let mut latest: HashMap<&str, &str> = HashMap::new();
        for r in &records {
            latest.insert(&r.source_partition, &r.source_offset);
        }
        let offsets = latest.into_iter().map(|(p, o)| (p.to_owned(), o.to_owned())).collect();
        self.acks().batches.push_back(Batch {
            pending: records.len(),
            offsets,
        });
        let opaque = (id as usize) << 1;
        let default_topic = self.ctx.connector.topic.as_deref();
        for r in &records {
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
            self.send(rec)?;
        }
        Ok(())
    }

    /// Enqueue one record, waiting (while serving callbacks) when the
    /// producer's queue is full.
    fn send<'r>(&self, mut rec: BaseRecord<'r, [u8], [u8], usize>) -> Result<(), TaskFailure> {
        loop {
            match self.producer.send(rec) {
                Ok(()) => return Ok(()),
                Err((RdKafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    rec = back;
                    self.producer.poll(Duration::from_millis(10));
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

    fn check_failure(&self) -> Result<(), TaskFailure> {
        match self.acks().failure.clone() {
            Some(f) => Err(TaskFailure(f)),
            None => Ok(()),
        }
    }

    /// Write the offsets of every acknowledged batch to the offsets topic.
    fn commit_offsets(&mut self) -> Result<(), TaskFailure> {
        self.last_commit = Instant::now();
        let (positions, id) = {
            let mut st = self.acks();
            let merged = st.take_committable();
            if merged.is_empty() {
                return Ok(());
            }
            let id = st.next_write;
            st.next_write += 1;
            let positions: Vec<SourcePosition> = merged
                .into_iter()
                .map(|(partition, offset)| SourcePosition { partition, offset })
                .collect();
            st.writes.push_back(OffsetWrite {
                id,
                pending: positions.len(),
                positions: positions.clone(),
            });
            (positions, id)
        };
        let topic = &self.ctx.worker.offset_storage_topic;
        let opaque = ((id as usize) << 1) | KIND_OFFSETS;
        for p in &positions {
            let key = offset_key(&self.ctx.ident.connector, &p.partition);
            let value = offset_value(&p.offset);
            let rec = BaseRecord::<[u8], [u8], usize>::with_opaque_to(topic, opaque)
                .key(key.as_slice())
                .payload(value.as_slice());
            self.send(rec)?;
        }
        Ok(())
    }

    /// Tell the guest which offsets are durable now.
    fn notify_durable(&mut self) {
        let durable = std::mem::take(&mut self.acks().durable);
        if durable.is_empty() {
            return;
        }
        let metrics = &self.ctx.status.metrics;
        metrics.offset_commits.fetch_add(1, Ordering::Relaxed);
        metrics.records_out.store(self.acks().acked, Ordering::Relaxed);
        // Keep only the latest offset per partition.
        let mut latest: BTreeMap<String, String> = BTreeMap::new();
        for p in durable {
            latest.insert(p.partition, p.offset);
        }
        let positions: Vec<SourcePosition> = latest
            .into_iter()
            .map(|(partition, offset)| SourcePosition { partition, offset })
            .collect();
        if let Err(e) = self.guest.source_commit(&positions) {
            tracing::warn!(error = %e, "the task's commit notification failed");
        }
    }

    /// Wait for every record in flight, commit the last offsets, and notify
    /// the guest; each wait bounded by `offset.flush.timeout.ms`.
    fn drain(&mut self) -> Result<(), TaskFailure> {
        self.wait_for("records", |st| {
            st.batches.iter().all(|b| b.pending == 0) && st.writes.is_empty()
        })?;
        self.commit_offsets()?;
        self.wait_for("offsets", |st| st.writes.is_empty())?;
        self.notify_durable();
        self.ctx
            .status
            .metrics
            .records_out
            .store(self.acks().acked, Ordering::Relaxed);
        Ok(())
    }

    fn wait_for(&self, what: &str, done: impl Fn(&AckState) -> bool) -> Result<(), TaskFailure> {
        let timeout = self.ctx.worker.offset_flush_timeout;
        let deadline = Instant::now() + timeout;
        loop {
            self.check_failure()?;
            if done(&self.acks()) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(TaskFailure(format!(
                    "stopping: Kafka did not acknowledge the task's {what} within {} ms (offset.flush.timeout.ms); records whose offsets were not committed will be delivered again",
                    timeout.as_millis()
                )));
            }
            self.producer.poll(Duration::from_millis(20));
        }
    }
}
