//! A source task: poll the guest for batches, produce them to Kafka, and
//! commit the batches' source offsets once Kafka acknowledged every record
//! up to them (at-least-once).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header as KHeader, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer};

use super::records::RecordCheck;
use super::{FENCED, IdleBackoff, TaskContext, TaskFailure, TaskState, pause};
use crate::config::{DeliveryGuarantee, TransactionBoundary};
use crate::engine::guest::{Guest, GuestError, SourceBatch, SourcePosition};
use crate::host::transactions::TransactionRequest;
use crate::kafka::batch_produce::{Msg, Run, Scratch, SendError, TopicHandle};
use crate::kafka::offsets::{offset_key, offset_value};
use crate::kafka::shared_producer::{AckSink, Delivery, Serving, SourceProducer};
use crate::kafka::{KafkaError, producer_config, wait_acknowledged};
use crate::metrics::TaskInstruments;

/// Low three bits of a delivery tag: what the record was.
const KIND_MASK: usize = 0b111;
/// A tracked batch's slot is `tag >> SLOT_SHIFT`.
const SLOT_SHIFT: usize = 3;
/// A record of a tracked batch; the slot is `tag >> SLOT_SHIFT`.
const KIND_TRACKED: usize = 0;
/// A record of the offsets write in flight.
const KIND_OFFSETS: usize = 1;
/// A record nobody waits for individually (transactions: the commit does).
const KIND_UNTRACKED: usize = 2;
/// An offset record inside a transaction (not a data record: not counted).
const KIND_TXN_OFFSETS: usize = 3;
/// An at-most-once record: counted in `Acks::unacked`, which a stopping
/// task waits for (its own records only, not the whole shared producer).
const KIND_AT_MOST_ONCE: usize = 4;

/// How long the sender thread stays without a batch before the task ends
/// it (a rate-limited or idle task then has one thread, not two); the next
/// batch starts a new one.
const SENDER_IDLE: Duration = Duration::from_secs(1);

/// How long the sender thread waits for the next batch before it leaves
/// serving delivery reports to the producer's fallback thread: longer than
/// a busy task's guest takes for a `poll`, so a busy sender keeps serving
/// its own reports.
const SENDER_LINGER: Duration = Duration::from_millis(2);

/// Batches in flight at once; each has a slot in a ring of counters, so a
/// delivery callback is one atomic decrement (no lock, no lookup).
const RING: usize = 1024;
/// The shortest pause after an empty poll when a commit is due (see
/// `SourceRunner::next_commit_due`).
const MIN_DUE_PAUSE: Duration = Duration::from_millis(1);

/// Records of one poll still waiting for Kafka's acknowledgement.
struct Batch {
    id: u64,
    /// How many records it holds.
    records: u64,
    /// Latest offset per source partition in this batch.
    offsets: Vec<(String, String)>,
}

/// The task's state shared with its delivery callbacks, which run on the
/// (possibly shared) producer's polling thread; each record's delivery
/// opaque points here ([`Delivery`]).
struct Acks {
    /// Unacknowledged records per batch slot (`id % RING`).
    pending: Box<[AtomicUsize]>,
    /// Unacknowledged records of the offsets write in flight.
    offsets_pending: AtomicUsize,
    /// At-most-once records handed over and not acknowledged yet.
    unacked: AtomicUsize,
    /// Records acknowledged so far.
    acked: AtomicU64,
    /// The first delivery failure; it fails the task.
    failure: Mutex<Option<String>>,
    /// `copycat_source_records_produced_total` (an atomic add per record).
    instruments: Arc<TaskInstruments>,
}

impl Acks {
    fn new(instruments: Arc<TaskInstruments>) -> Self {
        Self {
            pending: (0..RING).map(|_| AtomicUsize::new(0)).collect(),
            offsets_pending: AtomicUsize::new(0),
            unacked: AtomicUsize::new(0),
            acked: AtomicU64::new(0),
            failure: Mutex::new(None),
            instruments,
        }
    }

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

impl AckSink for Acks {
    fn delivered(&self, result: &DeliveryResult<'_>, opaque: usize) {
        if let Err((e, msg)) = result {
            use rdkafka::message::Message;
            // Records of an aborted transaction are purged, as they should be.
            if matches!(
                e,
                RdKafkaError::MessageProduction(RDKafkaErrorCode::PurgeQueue | RDKafkaErrorCode::PurgeInflight)
            ) {
                return;
            }
            self.fail(format!(
                "Kafka did not accept a record for topic {} (partition {}): {e}",
                msg.topic(),
                msg.partition()
            ));
            return;
        }
        match opaque & KIND_MASK {
            KIND_TRACKED => {
                self.acked.fetch_add(1, Ordering::Relaxed);
                self.instruments.record_produced();
                if let Some(c) = self.pending.get(opaque >> SLOT_SHIFT) {
                    c.fetch_sub(1, Ordering::Release);
                }
            }
            KIND_AT_MOST_ONCE => {
                self.acked.fetch_add(1, Ordering::Relaxed);
                self.instruments.record_produced();
                self.unacked.fetch_sub(1, Ordering::Release);
            }
            KIND_OFFSETS => {
                self.offsets_pending.fetch_sub(1, Ordering::Release);
            }
            KIND_UNTRACKED => {
                self.acked.fetch_add(1, Ordering::Relaxed);
                self.instruments.record_produced();
            }
            _ => {}
        }
    }
}

type Kproducer = SourceProducer;

/// A batch handed to the sender thread, with its delivery opaque.
type Handed = (Arc<Delivery>, SourceBatch);

/// Hands a batch to the sender thread.
type BatchSender = SyncSender<Handed>;

struct SourceRunner<'a> {
    ctx: &'a TaskContext,
    guest: Guest,
    /// The task's own producer (exactly-once, `producer.shared=false`) or
    /// the worker's shared one.
    producer: Arc<Kproducer>,
    /// Where the task's delivery reports land.
    acks: Arc<Acks>,
    /// The pause after an empty poll, growing while polls stay empty.
    idle: IdleBackoff,
    /// Batches handed to the sender thread, which produces them while the
    /// task thread polls the guest for the next one. Started with the
    /// first batch, ended after `SENDER_IDLE` without one.
    sender: Option<BatchSender>,
    sender_thread: Option<JoinHandle<()>>,
    /// When the last batch was handed to the sender thread.
    last_handed: Instant,
    next_batch: u64,
    /// Batches sent and not yet committed, oldest first.
    batches: VecDeque<Batch>,
    /// The offsets write in flight, if any, and how many records it covers.
    writing: Option<(Vec<SourcePosition>, u64)>,
    /// Records polled whose offsets are not committed yet.
    uncommitted: u64,
    last_commit: Instant,
    /// Exactly-once: the open transaction, if any.
    txn: Option<OpenTxn>,
    /// Limits and contract checks on each batch.
    check: RecordCheck,
}

/// An open transaction: when it began and the latest offset per source
/// partition of the records in it.
struct OpenTxn {
    began: Instant,
    /// Records in it.
    records: u64,
    offsets: BTreeMap<String, String>,
}

/// The task body.
pub(crate) fn run(ctx: &TaskContext) -> Result<(), TaskFailure> {
    let exactly_once = ctx.connector.delivery == DeliveryGuarantee::ExactlyOnce;
    // At-least-once and at-most-once tasks share the worker's producer for
    // their producer settings; exactly-once tasks need their own
    // (transactional.id is the task's).
    let shared = !exactly_once && ctx.producers.enabled();
    // In a hot swap the previous instance of this task may have left its
    // producer (same guarantee, transactional.id and settings), connected
    // and, exactly-once, initialised; a shared one is kept alive by the
    // hand-over until this instance holds it.
    let handoff_key = format!(
        "{:?}|{}|{shared}|{:?}",
        ctx.connector.delivery,
        transactional_id(ctx),
        ctx.connector.producer_overrides
    );
    let handed = ctx
        .handoff
        .take::<Arc<Kproducer>>(&handoff_key)
        .filter(|p| p.client().fatal_error().is_none());
    let reused = handed.is_some();
    let producer: Arc<Kproducer> = match handed {
        Some(p) => {
            tracing::info!("took over the previous instance's producer");
            p
        }
        None if shared => ctx
            .producers
            .acquire(&ctx.worker, &ctx.connector.producer_overrides)
            .map_err(|e| KafkaError::new(format!("{} (task {})", e.what, ctx.ident), e.source))?,
        None => {
            // The producer first: an idempotent producer spends its first
            // few hundred milliseconds getting a producer id, which then
            // overlaps with reading offsets and instantiating the guest.
            let mut pcfg = producer_config(&ctx.worker, &ctx.connector.producer_overrides);
            pcfg.set("client.id", format!("copycat-{}", ctx.ident));
            if exactly_once {
                // Stable per (offsets topic, connector, task): a restarted or
                // duplicated instance of this task fences the previous one.
                pcfg.set("transactional.id", transactional_id(ctx));
                pcfg.set(
                    "transaction.timeout.ms",
                    ctx.worker.transaction_timeout().as_millis().to_string(),
                );
            }
            Arc::new(
                SourceProducer::create(&pcfg)
                    .map_err(|e| KafkaError::new(format!("creating the producer of task {}", ctx.ident), e))?,
            )
        }
    };
    // Fence any other instance of this task *before* reading the offsets:
    // nothing it commits afterwards can be missed. (A producer handed over
    // is the previous instance's own: there is nothing to fence.)
    if exactly_once && !reused {
        producer
            .init_transactions(ctx.worker.offset_flush_timeout.max(Duration::from_secs(30)))
            .map_err(|e| txn_failure(ctx, &producer, "initialising transactions", e))?;
        tracing::info!(transactional_id = %transactional_id(ctx), "exactly-once: transactions initialised");
    }
    let offsets = ctx.offsets.read_connector(&ctx.worker, &ctx.ident.connector)?;
    tracing::info!(committed = offsets.len(), "loaded committed source offsets");
    let check = RecordCheck::new(ctx.topics.tracker(), offsets.keys().cloned());
    let guest = ctx.instantiate(Arc::new(offsets))?;
    ctx.status.instruments().commit_lag(0);
    let acks = Arc::new(Acks::new(ctx.status.instruments().clone()));
    let mut runner = SourceRunner {
        ctx,
        guest,
        producer,
        acks,
        idle: IdleBackoff::new(ctx.connector.idle_backoff, ctx.connector.idle_backoff_max),
        // A sender thread starts with the first batch.
        sender: None,
        sender_thread: None,
        last_handed: Instant::now(),
        txn: None,
        next_batch: 0,
        batches: VecDeque::new(),
        writing: None,
        uncommitted: 0,
        last_commit: Instant::now(),
        check,
    };
    runner.guest.source_start(&ctx.task_config)?;
    ctx.status.set(TaskState::Running, None);
    tracing::info!("source task started");
    let result = runner.poll_loop();
    // Whatever happened, deliver what can be delivered and commit its offsets.
    let drained = runner.drain();
    let stopped = runner.guest.source_stop();
    if result.is_ok() && drained.is_ok() && ctx.handoff.requested() {
        let SourceRunner { producer, .. } = runner;
        // The sender thread (with its topic handles) is gone: a producer of
        // the task's own is held here only; a shared one may be held by
        // other tasks too.
        if shared || Arc::strong_count(&producer) == 1 {
            ctx.handoff.put(handoff_key, producer);
        }
    }
    result?;
    drained?;
    stopped.map_err(TaskFailure::from)
}

impl SourceRunner<'_> {
    fn acks(&self) -> &Acks {
        &self.acks
    }

    fn poll_loop(&mut self) -> Result<(), TaskFailure> {
        let max = self.ctx.connector.batch_max_records;
        while !self.ctx.stopping() {
            self.check_failure()?;
            self.complete_write();
            self.commit_transaction_if_due()?;
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
            self.check.check(self.ctx, &records, max)?;
            if records.is_empty() {
                if self.txn.is_some() {
                    // A connector may end its transaction on an empty poll.
                    self.transaction_boundary_reached()?;
                }
                // Empty polls in a row back off (up to
                // poll.idle.backoff.max.ms): an idle task costs no CPU. A
                // stop or pause wakes the task at once.
                // The pause ends early when a commit falls due: an open
                // transaction's interval, or the offset flush of records
                // already handed over.
                self.retire_idle_sender()?;
                let idle = self.idle.next();
                pause(self.ctx, self.next_commit_due().map_or(idle, |due| idle.min(due)));
                continue;
            }
            self.idle.reset();
            self.ctx
                .status
                .metrics
                .records_in
                .fetch_add(records.len() as u64, Ordering::Relaxed);
            self.ctx.status.instruments().records_polled(records.len());
            self.add_uncommitted(records.len() as u64);
            match self.ctx.connector.delivery {
                DeliveryGuarantee::AtLeastOnce => self.send_batch(records)?,
                DeliveryGuarantee::AtMostOnce => {
                    self.commit_before_send(&records)?;
                    self.acks.unacked.fetch_add(records.len(), Ordering::AcqRel);
                    self.hand_over(KIND_AT_MOST_ONCE, records)?;
                }
                DeliveryGuarantee::ExactlyOnce => self.send_in_transaction(records)?,
            }
        }
        Ok(())
    }

    /// How long until a commit falls due, if one waits: the open
    /// transaction's `transaction.boundary.interval.ms`, or (at-least-once,
    /// with batches whose offsets are not yet committed)
    /// `offset.flush.interval.ms`. At least 1 ms, so that a commit that
    /// cannot start yet (the previous offsets still being written) does not
    /// turn the idle pause into a spin.
    fn next_commit_due(&self) -> Option<Duration> {
        let left = |every: Duration, since: Instant| Some(every.saturating_sub(since.elapsed()).max(MIN_DUE_PAUSE));
        match (
            self.ctx.connector.delivery,
            self.ctx.connector.transaction_boundary,
            &self.txn,
        ) {
            (DeliveryGuarantee::ExactlyOnce, TransactionBoundary::Interval(every), Some(txn)) => left(every, txn.began),
            (DeliveryGuarantee::AtLeastOnce, ..) if !self.batches.is_empty() || self.writing.is_some() => {
                left(self.ctx.worker.offset_flush_interval, self.last_commit)
            }
            _ => None,
        }
    }

    /// `copycat_source_offset_commit_lag_records`: `polled` more records
    /// wait for their offsets to be committed.
    fn add_uncommitted(&mut self, polled: u64) {
        self.uncommitted = self.uncommitted.saturating_add(polled);
        self.ctx.status.instruments().commit_lag(self.uncommitted);
    }

    /// The offsets of `records` records were committed (or their transaction
    /// aborted: they will not be).
    fn sub_uncommitted(&mut self, records: u64) {
        self.uncommitted = self.uncommitted.saturating_sub(records);
        self.ctx.status.instruments().commit_lag(self.uncommitted);
    }

    /// Hand `records` to the sender thread, starting it if there is none.
    fn hand_over(&mut self, tag: usize, records: SourceBatch) -> Result<(), TaskFailure> {
        let opaque = Delivery::new(self.acks.clone(), tag);
        if self.sender.is_none() {
            let (tx, thread) = spawn_sender(self.ctx, self.producer.clone(), self.acks.clone())?;
            self.sender = Some(tx);
            self.sender_thread = Some(thread);
        }
        let handed = self
            .sender
            .as_ref()
            .is_some_and(|tx| tx.send((opaque, records)).is_ok());
        if !handed {
            self.check_failure()?;
            return Err(TaskFailure("the task's sender thread stopped unexpectedly".into()));
        }
        self.last_handed = Instant::now();
        Ok(())
    }

    /// End the sender thread once it has had nothing to do for
    /// `SENDER_IDLE`: it finishes what it holds first. Only the task thread
    /// starts and ends it, so no batch can be handed to a thread that is
    /// leaving.
    fn retire_idle_sender(&mut self) -> Result<(), TaskFailure> {
        if self.sender.is_none() || self.last_handed.elapsed() < SENDER_IDLE {
            return Ok(());
        }
        self.join_sender()
    }

    /// Close the sender thread's channel and wait for it to finish the
    /// batches it holds.
    fn join_sender(&mut self) -> Result<(), TaskFailure> {
        self.sender = None;
        if let Some(t) = self.sender_thread.take()
            && t.join().is_err()
        {
            return Err(TaskFailure("the task's sender thread panicked".into()));
        }
        self.check_failure()
    }

    /// At-most-once: make the batch's offsets durable before its records
    /// are sent, so a crash can lose them but never repeat them.
    fn commit_before_send(&mut self, records: &SourceBatch) -> Result<(), TaskFailure> {
        let positions: Vec<SourcePosition> = records
            .latest_offsets()
            .into_iter()
            .map(|(partition, offset)| SourcePosition { partition, offset })
            .collect();
        self.write_offsets(&positions, KIND_OFFSETS)?;
        self.wait_for("offsets", |r| r.acks().offsets_pending.load(Ordering::Acquire) == 0)?;
        self.ctx.status.metrics.offset_commits.fetch_add(1, Ordering::Relaxed);
        self.ctx.status.instruments().offsets_committed();
        self.sub_uncommitted(records.len() as u64);
        if let Err(e) = self.guest.source_commit(&positions) {
            tracing::warn!(error = %e, "the task's commit notification failed");
        }
        Ok(())
    }

    /// Produce offset records for `positions` to the offsets topic.
    fn write_offsets(&self, positions: &[SourcePosition], kind: usize) -> Result<(), TaskFailure> {
        if kind == KIND_OFFSETS {
            self.acks().offsets_pending.store(positions.len(), Ordering::Release);
        }
        let topic = &self.ctx.worker.offset_storage_topic;
        let opaque = Delivery::new(self.acks.clone(), kind);
        for p in positions {
            let key = offset_key(&self.ctx.ident.connector, &p.partition);
            let value = offset_value(&p.offset);
            let rec = BaseRecord::<[u8], [u8], Arc<Delivery>>::with_opaque_to(topic, opaque.clone())
                .key(key.as_slice())
                .payload(value.as_slice());
            send(&self.producer, &self.acks, rec)?;
        }
        Ok(())
    }

    /// Exactly-once: add the batch to the open transaction (beginning one if
    /// needed) and commit at the boundary.
    fn send_in_transaction(&mut self, records: SourceBatch) -> Result<(), TaskFailure> {
        if self.txn.is_none() {
            self.producer
                .begin_transaction()
                .map_err(|e| txn_failure(self.ctx, &self.producer, "beginning a transaction", e))?;
            self.txn = Some(OpenTxn {
                began: Instant::now(),
                records: 0,
                offsets: BTreeMap::new(),
            });
        }
        if let Some(txn) = &mut self.txn {
            txn.offsets.extend(records.latest_offsets());
            txn.records += records.len() as u64;
        }
        // The sender thread produces the batch while the task polls for the
        // next one; a commit or abort first waits for it (`join_sender`).
        if let Err(e) = self.hand_over(KIND_UNTRACKED, records) {
            self.abort();
            return Err(e);
        }
        self.transaction_boundary_reached()
    }

    /// After a `poll`: commit or abort as the boundary (or the connector) says.
    fn transaction_boundary_reached(&mut self) -> Result<(), TaskFailure> {
        match (
            self.ctx.connector.transaction_boundary,
            self.guest.take_transaction_request(),
        ) {
            (TransactionBoundary::Poll, _) | (TransactionBoundary::Connector, Some(TransactionRequest::Commit)) => {
                self.commit_transaction()?;
            }
            (TransactionBoundary::Connector, Some(TransactionRequest::Abort)) => {
                tracing::info!("the connector aborted its transaction");
                self.abort();
            }
            (_, Some(request)) => {
                tracing::debug!(
                    ?request,
                    "transaction request ignored: transaction.boundary is not 'connector'"
                );
            }
            (_, None) => {}
        }
        Ok(())
    }

    /// Interval boundary: commit the open transaction once it is old enough.
    fn commit_transaction_if_due(&mut self) -> Result<(), TaskFailure> {
        if let (TransactionBoundary::Interval(every), Some(txn)) = (self.ctx.connector.transaction_boundary, &self.txn)
            && txn.began.elapsed() >= every
        {
            self.commit_transaction()?;
        }
        Ok(())
    }

    /// Write the transaction's offsets into it and commit: records and
    /// offsets become visible together, or not at all.
    fn commit_transaction(&mut self) -> Result<(), TaskFailure> {
        if self.txn.is_none() {
            return Ok(());
        }
        // Every batch of the transaction produced (the sender thread ends;
        // the next batch starts another, far cheaper than a transaction),
        // and none failed.
        if let Err(e) = self.join_sender().and_then(|()| self.check_failure()) {
            self.abort();
            return Err(e);
        }
        let Some(txn) = self.txn.take() else { return Ok(()) };
        let positions: Vec<SourcePosition> = txn
            .offsets
            .into_iter()
            .map(|(partition, offset)| SourcePosition { partition, offset })
            .collect();
        if let Err(e) = self.write_offsets(&positions, KIND_TXN_OFFSETS) {
            self.txn = Some(OpenTxn {
                began: txn.began,
                records: txn.records,
                offsets: BTreeMap::new(),
            });
            self.abort();
            return Err(e);
        }
        let timeout = self.ctx.worker.offset_flush_timeout.max(Duration::from_secs(30));
        // The acknowledgements first (the producer's fallback thread serves
        // them): `commit_transaction` flushes, 100 ms at a time.
        wait_acknowledged(&**self.producer, Instant::now() + timeout);
        if let Err(e) = self.producer.commit_transaction(timeout) {
            self.txn = Some(OpenTxn {
                began: txn.began,
                records: txn.records,
                offsets: BTreeMap::new(),
            });
            self.abort();
            // After the abort: a commit that lost to a newer instance may
            // report an unspecific broker error, and only the abort (or
            // the producer's fatal error) says "fenced".
            return Err(txn_failure(self.ctx, &self.producer, "committing a transaction", e));
        }
        self.offsets_committed(&positions, txn.records);
        Ok(())
    }

    /// Abort the open transaction (best effort): its records and offsets
    /// never become visible to read_committed consumers.
    fn abort(&mut self) {
        if self.txn.is_none() {
            return;
        }
        // Nothing of the transaction may still be on its way to the producer.
        if let Err(TaskFailure(e)) = self.join_sender() {
            tracing::warn!(error = %e, "before aborting the transaction");
        }
        let Some(txn) = self.txn.take() else { return };
        self.sub_uncommitted(txn.records);
        if let Err(e) = self.producer.abort_transaction(Duration::from_secs(10)) {
            tracing::warn!(error = %e, "aborting the transaction failed");
        }
    }

    fn send_batch(&mut self, records: SourceBatch) -> Result<(), TaskFailure> {
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
            records: records.len() as u64,
            offsets: records.latest_offsets(),
        });
        self.hand_over((slot << SLOT_SHIFT) | KIND_TRACKED, records)
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

    /// Offsets covering `records` records are durable: count it and tell
    /// the guest.
    fn offsets_committed(&mut self, positions: &[SourcePosition], records: u64) {
        self.ctx.status.instruments().offsets_committed();
        self.sub_uncommitted(records);
        let metrics = &self.ctx.status.metrics;
        metrics.offset_commits.fetch_add(1, Ordering::Relaxed);
        metrics
            .records_out
            .store(self.acks().acked.load(Ordering::Relaxed), Ordering::Relaxed);
        if let Err(e) = self.guest.source_commit(positions) {
            tracing::warn!(error = %e, "the task's commit notification failed");
        }
    }

    /// If the offsets write in flight is acknowledged, tell the guest.
    fn complete_write(&mut self) {
        if self.writing.is_none() || self.acks().offsets_pending.load(Ordering::Acquire) != 0 {
            return;
        }
        let Some((positions, records)) = self.writing.take() else {
            return;
        };
        self.offsets_committed(&positions, records);
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
        let mut records = 0u64;
        while let Some(front) = self.batches.front() {
            if !self.batch_done(front) {
                break;
            }
            if let Some(b) = self.batches.pop_front() {
                records += b.records;
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
        self.write_offsets(&positions, KIND_OFFSETS)?;
        self.writing = Some((positions, records));
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
        match self.ctx.connector.delivery {
            DeliveryGuarantee::ExactlyOnce => {
                // A failed task's open transaction is aborted, a stopping
                // one's committed.
                if self.acks().failure().is_some() {
                    self.abort();
                    return self.check_failure();
                }
                // The connector draws its own boundaries: a transaction it
                // has not committed is not complete, so it is aborted.
                if self.ctx.connector.transaction_boundary == TransactionBoundary::Connector {
                    self.abort();
                    return Ok(());
                }
                return self.commit_transaction();
            }
            DeliveryGuarantee::AtMostOnce => {
                // Offsets are already durable; deliver what was handed over
                // (this task's records: the producer may be shared).
                let timeout = self.ctx.worker.offset_flush_timeout;
                let deadline = Instant::now() + timeout;
                while self.acks().unacked.load(Ordering::Acquire) > 0 && self.acks().failure().is_none() {
                    if Instant::now() >= deadline {
                        tracing::warn!(
                            unacknowledged = self.acks().unacked.load(Ordering::Acquire),
                            timeout_ms = timeout.as_millis() as u64,
                            "stopping: Kafka did not acknowledge every record within offset.flush.timeout.ms (at-most-once: they may be lost)"
                        );
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                self.ctx
                    .status
                    .metrics
                    .records_out
                    .store(self.acks().acked.load(Ordering::Relaxed), Ordering::Relaxed);
                return self.check_failure();
            }
            DeliveryGuarantee::AtLeastOnce => {}
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
fn spawn_sender(
    ctx: &TaskContext,
    producer: Arc<Kproducer>,
    acks: Arc<Acks>,
) -> Result<(BatchSender, JoinHandle<()>), TaskFailure> {
    let (tx, rx) = sync_channel::<Handed>(2);
    let default_topic = ctx.connector.topic.clone();
    let transactional = ctx.connector.delivery == DeliveryGuarantee::ExactlyOnce;
    let span = tracing::Span::current();
    let thread = std::thread::Builder::new()
        .name(format!("copycat-{}-send", ctx.ident))
        .spawn(move || {
            let _enter = span.enter();
            let mut enqueuer = Enqueuer {
                topics: HashMap::new(),
                scratch: Scratch::default(),
                explicit_partitions: !transactional,
                runs: produce_batch_enabled(),
            };
            // While it has batches to send, this thread serves the
            // producer's delivery reports (any task's, if it is shared):
            // after each batch, and when the queue is full. Once it has
            // waited `SENDER_LINGER` for a batch, the producer's fallback
            // thread serves them, so a slow or rate-limited task's sender
            // sleeps until its next batch.
            let mut serving = Some(producer.serving());
            while let Some((opaque, records)) = sender_next(&rx, &producer, &mut serving) {
                if let Err(TaskFailure(msg)) =
                    enqueuer.produce(&producer, &acks, default_topic.as_deref(), &opaque, &records)
                {
                    acks.fail(msg);
                    break;
                }
                producer.serve_ready();
            }
            drop(serving);
        })
        .map_err(|e| TaskFailure(format!("spawning the sender thread of task {}: {e}", ctx.ident)))?;
    Ok((tx, thread))
}

/// The sender thread's next batch; `None` once the task thread has closed
/// the channel. While none is there it serves the ready delivery reports,
/// waits `SENDER_LINGER`, and then leaves serving to the producer's
/// fallback thread (drops `serving`) until a batch comes.
fn sender_next<'p>(
    rx: &Receiver<Handed>,
    producer: &'p SourceProducer,
    serving: &mut Option<Serving<'p>>,
) -> Option<Handed> {
    match rx.try_recv() {
        Ok(batch) => return Some(batch),
        Err(TryRecvError::Disconnected) => return None,
        Err(TryRecvError::Empty) => {}
    }
    producer.serve_ready();
    match rx.recv_timeout(SENDER_LINGER) {
        Ok(batch) => return Some(batch),
        Err(RecvTimeoutError::Disconnected) => return None,
        Err(RecvTimeoutError::Timeout) => {}
    }
    producer.serve_ready();
    *serving = None;
    let batch = rx.recv().ok()?;
    *serving = Some(producer.serving());
    Some(batch)
}

/// Enqueues batches' records: runs of records for one topic without
/// headers or timestamp through `rd_kafka_produce_batch` (one topic lookup
/// per run, `kafka::batch_produce`), the others one by one with `send`.
/// Holds topic handles, which keep the producer alive: drop it before
/// handing the producer over.
#[derive(Debug)]
struct Enqueuer {
    topics: HashMap<String, TopicHandle>,
    scratch: Scratch,
    /// Whether records with an explicit partition may go in runs: not with
    /// a transactional producer (`batch_produce::Msg::partition` says why).
    explicit_partitions: bool,
    /// Whether runs are used at all (`COPYCAT_PRODUCE_BATCH=0`: every
    /// record through `send`, for comparison or as a fallback).
    runs: bool,
}

/// `COPYCAT_PRODUCE_BATCH`: `0` turns runs off (read once per process).
fn produce_batch_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("COPYCAT_PRODUCE_BATCH").is_none_or(|v| v != "0"))
}

impl Enqueuer {
    /// Produce one batch's records, in order.
    fn produce(
        &mut self,
        producer: &Arc<Kproducer>,
        acks: &Acks,
        default_topic: Option<&str>,
        opaque: &Arc<Delivery>,
        records: &SourceBatch,
    ) -> Result<(), TaskFailure> {
        let Self {
            topics,
            scratch,
            explicit_partitions,
            runs,
        } = self;
        let mut run = Run::new(scratch);
        let mut run_topic: Option<&str> = None;
        for r in records.iter() {
            let topic = r.topic.or(default_topic).ok_or_else(|| {
                TaskFailure(format!(
                    "a record{} names no topic and the connector config has no `topic`",
                    r.origin()
                ))
            })?;
            let plain = *runs
                && r.timestamp.is_none()
                && r.headers.len() == 0
                && (*explicit_partitions || r.partition.is_none());
            if let Some(t) = run_topic
                && (!plain || t != topic)
            {
                send_run(producer, topics, acks, &mut run, t)?;
                run_topic = None;
            }
            if plain {
                run_topic = Some(topic);
                let msg = Msg {
                    key: r.key,
                    value: r.value,
                    partition: r.partition,
                };
                run.push(msg, opaque.clone());
                continue;
            }
            let mut rec = BaseRecord::<[u8], [u8], Arc<Delivery>>::with_opaque_to(topic, opaque.clone());
            if let Some(k) = r.key {
                rec = rec.key(k);
            }
            if let Some(v) = r.value {
                rec = rec.payload(v);
            }
            if let Some(p) = r.partition {
                rec = rec.partition(p);
            }
            if let Some(ts) = r.timestamp {
                rec = rec.timestamp(ts);
            }
            if r.headers.len() > 0 {
                let mut hs = OwnedHeaders::new_with_capacity(r.headers.len());
                for (key, value) in r.headers {
                    hs = hs.insert(KHeader { key, value });
                }
                rec = rec.headers(hs);
            }
            send(producer, acks, rec)?;
        }
        if let Some(t) = run_topic {
            send_run(producer, topics, acks, &mut run, t)?;
        }
        Ok(())
    }
}

/// Enqueue a run of records for `topic`, waiting while the producer's
/// queue is full.
fn send_run(
    producer: &Arc<Kproducer>,
    topics: &mut HashMap<String, TopicHandle>,
    acks: &Acks,
    run: &mut Run<'_, '_, Arc<Delivery>>,
    topic: &str,
) -> Result<(), TaskFailure> {
    let handle = match topics.get(topic) {
        Some(h) => h,
        None => {
            let h = TopicHandle::new(producer, |p| p.client(), topic)
                .map_err(|e| TaskFailure(format!("cannot produce to topic {topic}: {e}")))?;
            topics.entry(topic.to_owned()).or_insert(h)
        }
    };
    run.send(handle, || match acks.failure() {
        Some(f) => Err(f),
        None => {
            producer.serve_when_full();
            Ok(())
        }
    })
    .map_err(|e| match e {
        SendError::Stopped(f) => TaskFailure(f),
        SendError::Refused { partition, error, .. } => TaskFailure(format!(
            "cannot produce to topic {topic} (partition {partition:?}): {error}"
        )),
    })
}

/// Enqueue one record, waiting when the producer's queue is full.
fn send<'r>(
    producer: &Kproducer,
    acks: &Acks,
    mut rec: BaseRecord<'r, [u8], [u8], Arc<Delivery>>,
) -> Result<(), TaskFailure> {
    loop {
        match producer.send(rec) {
            Ok(()) => return Ok(()),
            Err((RdKafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                rec = back;
                if let Some(f) = acks.failure() {
                    return Err(TaskFailure(f));
                }
                producer.serve_when_full();
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

/// The transactional id of a task: stable for (offsets topic, connector,
/// task), so a restarted or duplicated instance fences the previous one.
fn transactional_id(ctx: &TaskContext) -> String {
    format!(
        "copycat-{}-{}-{}",
        ctx.worker.offset_storage_topic,
        ctx.ident.connector,
        ctx.ident.task.unwrap_or(0)
    )
}

/// Explain a transaction error; fencing says which instance won.
fn txn_failure(ctx: &TaskContext, producer: &Kproducer, what: &str, e: RdKafkaError) -> TaskFailure {
    let is_fence = |c: RDKafkaErrorCode| {
        matches!(
            c,
            RDKafkaErrorCode::ProducerFenced | RDKafkaErrorCode::InvalidProducerEpoch | RDKafkaErrorCode::Fenced
        )
    };
    // The call's own error, or the producer's fatal error (raised when the
    // coordinator fenced it, even if the call reported something vaguer).
    let fenced = e.rdkafka_error_code().is_some_and(is_fence)
        || producer.client().fatal_error().is_some_and(|(c, _)| is_fence(c));
    if fenced {
        TaskFailure(format!(
            "{FENCED}another instance of task {} (transactional.id {}) took over; this one stopped without committing ({what}: {e})",
            ctx.ident,
            transactional_id(ctx)
        ))
    } else {
        TaskFailure(format!("exactly-once: {what} failed: {e} ({e:?})"))
    }
}
