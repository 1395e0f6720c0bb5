//! The source task's loop: poll the guest, hand batches to the sender,
//! commit source offsets once Kafka acknowledged every record up to them
//! (at-least-once), or within the batch's transaction (exactly-once).

use crate::config::{DeliveryGuarantee, TransactionBoundary};
use crate::engine::batch::Tolerate;
use crate::engine::guest::{Guest, GuestError, SourceBatch, SourcePosition};
use crate::host::transactions::TransactionRequest;
use crate::kafka::offset_store::{offset_key, offset_value};
use crate::kafka::shared_producer::Delivery;
use crate::kafka::wait_acknowledged;
use crate::task::errors::ErrorHandler;
use crate::task::records::RecordCheck;
use crate::task::{IdleBackoff, TaskContext, TaskFailure, pause};
use rdkafka::producer::{BaseRecord, Producer};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::acks::*;
use super::sender::*;
use super::txn::*;

/// The shortest pause after an empty poll when a commit is due (see
/// `SourceRunner::next_commit_due`).
pub(super) const MIN_DUE_PAUSE: Duration = Duration::from_millis(1);

pub(super) struct SourceRunner<'a> {
    pub(super) ctx: &'a TaskContext,
    pub(super) guest: Guest,
    /// The task's own producer (exactly-once, `producer.shared=false`) or
    /// the worker's shared one.
    pub(super) producer: Arc<Kproducer>,
    /// Where the task's delivery reports land.
    pub(super) acks: Arc<Acks>,
    /// The pause after an empty poll, growing while polls stay empty.
    pub(super) idle: IdleBackoff,
    /// Batches handed to the sender thread, which produces them while the
    /// task thread polls the guest for the next one. Started with the
    /// first batch, ended after `SENDER_IDLE` without one.
    pub(super) sender: Option<BatchSender>,
    pub(super) sender_thread: Option<JoinHandle<()>>,
    /// When the last batch was handed to the sender thread.
    pub(super) last_handed: Instant,
    pub(super) next_batch: u64,
    /// Batches sent and not yet committed, oldest first.
    pub(super) batches: VecDeque<Batch>,
    /// The offsets write in flight, if any, and how many records it covers.
    pub(super) writing: Option<(Vec<SourcePosition>, u64)>,
    /// Records polled whose offsets are not committed yet.
    pub(super) uncommitted: u64,
    pub(super) last_commit: Instant,
    /// Exactly-once: the open transaction, if any.
    pub(super) txn: Option<OpenTxn>,
    /// Limits and contract checks on each batch.
    pub(super) check: RecordCheck,
    /// What becomes of records a transform, a converter or a check refuses
    /// (`errors.*`).
    pub(super) errors: ErrorHandler,
}

impl SourceRunner<'_> {
    pub(super) fn acks(&self) -> &Acks {
        &self.acks
    }

    pub(super) fn poll_loop(&mut self) -> Result<(), TaskFailure> {
        let max = self.ctx.connector.batch_max_records;
        // When `poll` started failing with retriable errors, if it is.
        let mut retrying_since: Option<Instant> = None;
        while !self.ctx.stopping() {
            self.check_failure()?;
            self.complete_write();
            self.commit_transaction_if_due()?;
            if self.last_commit.elapsed() >= self.ctx.worker.offset_flush_interval {
                self.commit_offsets()?;
            }
            let mut tolerate = self.errors.configured().then(|| self.errors.tolerate(self.ctx));
            let polled = self
                .guest
                .source_poll(max, tolerate.as_mut().map(|t| t as &mut dyn Tolerate));
            let records = match polled {
                Ok(r) => {
                    retrying_since = None;
                    r
                }
                Err(GuestError::Retriable(msg)) => {
                    // Kafka Connect polls again without end; with
                    // errors.retry.timeout set, Copycat gives up after it.
                    let since = *retrying_since.get_or_insert_with(Instant::now);
                    if let Some(limit) = self.ctx.connector.errors.task_retry_timeout
                        && since.elapsed() >= limit
                    {
                        return Err(TaskFailure(format!(
                            "`poll` kept failing with retriable errors for {:.1?}, past errors.retry.timeout ({} ms); the last: {msg}",
                            since.elapsed(),
                            limit.as_millis()
                        )));
                    }
                    tracing::warn!(%msg, "poll failed with a retriable error; retrying");
                    pause(
                        self.ctx,
                        self.ctx.connector.idle_backoff.max(Duration::from_millis(100)),
                    );
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let records = self.check.check(
                self.ctx,
                records,
                max,
                tolerate.as_mut().map(|t| t as &mut dyn Tolerate),
            )?;
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
    pub(super) fn next_commit_due(&self) -> Option<Duration> {
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
    pub(super) fn add_uncommitted(&mut self, polled: u64) {
        self.uncommitted = self.uncommitted.saturating_add(polled);
        self.ctx.status.instruments().commit_lag(self.uncommitted);
    }

    /// The offsets of `records` records were committed (or their transaction
    /// aborted: they will not be).
    pub(super) fn sub_uncommitted(&mut self, records: u64) {
        self.uncommitted = self.uncommitted.saturating_sub(records);
        self.ctx.status.instruments().commit_lag(self.uncommitted);
    }

    /// Hand `records` to the sender thread, starting it if there is none.
    pub(super) fn hand_over(&mut self, tag: usize, records: SourceBatch) -> Result<(), TaskFailure> {
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
    pub(super) fn retire_idle_sender(&mut self) -> Result<(), TaskFailure> {
        if self.sender.is_none() || self.last_handed.elapsed() < SENDER_IDLE {
            return Ok(());
        }
        self.join_sender()
    }

    /// Close the sender thread's channel and wait for it to finish the
    /// batches it holds.
    pub(super) fn join_sender(&mut self) -> Result<(), TaskFailure> {
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
    pub(super) fn commit_before_send(&mut self, records: &SourceBatch) -> Result<(), TaskFailure> {
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
    pub(super) fn write_offsets(&self, positions: &[SourcePosition], kind: usize) -> Result<(), TaskFailure> {
        // The dead letters of records these offsets pass first.
        self.errors.flush(self.ctx.worker.offset_flush_timeout)?;
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
    pub(super) fn send_in_transaction(&mut self, records: SourceBatch) -> Result<(), TaskFailure> {
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
    pub(super) fn transaction_boundary_reached(&mut self) -> Result<(), TaskFailure> {
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
    pub(super) fn commit_transaction_if_due(&mut self) -> Result<(), TaskFailure> {
        if let (TransactionBoundary::Interval(every), Some(txn)) = (self.ctx.connector.transaction_boundary, &self.txn)
            && txn.began.elapsed() >= every
        {
            self.commit_transaction()?;
        }
        Ok(())
    }

    /// Write the transaction's offsets into it and commit: records and
    /// offsets become visible together, or not at all.
    pub(super) fn commit_transaction(&mut self) -> Result<(), TaskFailure> {
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
    pub(super) fn abort(&mut self) {
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

    pub(super) fn send_batch(&mut self, records: SourceBatch) -> Result<(), TaskFailure> {
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

    pub(super) fn check_failure(&self) -> Result<(), TaskFailure> {
        match self.acks().failure() {
            Some(f) => Err(TaskFailure(f)),
            None => Ok(()),
        }
    }

    pub(super) fn batch_done(&self, b: &Batch) -> bool {
        let slot = (b.id % RING as u64) as usize;
        self.acks()
            .pending
            .get(slot)
            .is_none_or(|c| c.load(Ordering::Acquire) == 0)
    }

    /// Offsets covering `records` records are durable: count it and tell
    /// the guest.
    pub(super) fn offsets_committed(&mut self, positions: &[SourcePosition], records: u64) {
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
    pub(super) fn complete_write(&mut self) {
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
    pub(super) fn commit_offsets(&mut self) -> Result<(), TaskFailure> {
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
    pub(super) fn drain(&mut self) -> Result<(), TaskFailure> {
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

    pub(super) fn wait_for(&self, what: &str, done: impl Fn(&Self) -> bool) -> Result<(), TaskFailure> {
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
