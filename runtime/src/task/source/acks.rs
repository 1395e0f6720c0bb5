//! Delivery acknowledgements: the delivery-tag encoding (what a record was,
//! and which batch it belongs to) and the ring of batches whose records
//! Kafka has not acknowledged yet.

use crate::kafka::shared_producer::AckSink;
use crate::metrics::TaskInstruments;
use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};
use rdkafka::producer::DeliveryResult;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Low three bits of a delivery tag: what the record was.
pub(super) const KIND_MASK: usize = 0b111;

/// A tracked batch's slot is `tag >> SLOT_SHIFT`.
pub(super) const SLOT_SHIFT: usize = 3;

/// A record of a tracked batch; the slot is `tag >> SLOT_SHIFT`.
pub(super) const KIND_TRACKED: usize = 0;

/// A record of the offsets write in flight.
pub(super) const KIND_OFFSETS: usize = 1;

/// A record nobody waits for individually (transactions: the commit does).
pub(super) const KIND_UNTRACKED: usize = 2;

/// An offset record inside a transaction (not a data record: not counted).
pub(super) const KIND_TXN_OFFSETS: usize = 3;

/// An at-most-once record: counted in `Acks::unacked`, which a stopping
/// task waits for (its own records only, not the whole shared producer).
pub(super) const KIND_AT_MOST_ONCE: usize = 4;

/// Batches in flight at once; each has a slot in a ring of counters, so a
/// delivery callback is one atomic decrement (no lock, no lookup).
pub(super) const RING: usize = 1024;

/// Records of one poll still waiting for Kafka's acknowledgement.
pub(super) struct Batch {
    pub(super) id: u64,
    /// How many records it holds.
    pub(super) records: u64,
    /// Latest offset per source partition in this batch.
    pub(super) offsets: Vec<(String, String)>,
}

/// The task's state shared with its delivery callbacks, which run on the
/// (possibly shared) producer's polling thread; each record's delivery
/// opaque points here ([`Delivery`]).
pub(super) struct Acks {
    /// Unacknowledged records per batch slot (`id % RING`).
    pub(super) pending: Box<[AtomicUsize]>,
    /// Unacknowledged records of the offsets write in flight.
    pub(super) offsets_pending: AtomicUsize,
    /// At-most-once records handed over and not acknowledged yet.
    pub(super) unacked: AtomicUsize,
    /// Records acknowledged so far.
    pub(super) acked: AtomicU64,
    /// The first delivery failure; it fails the task.
    pub(super) failure: Mutex<Option<String>>,
    /// `copycat_source_records_produced_total` (an atomic add per record).
    pub(super) instruments: Arc<TaskInstruments>,
}

impl Acks {
    pub(super) fn new(instruments: Arc<TaskInstruments>) -> Self {
        Self {
            pending: (0..RING).map(|_| AtomicUsize::new(0)).collect(),
            offsets_pending: AtomicUsize::new(0),
            unacked: AtomicUsize::new(0),
            acked: AtomicU64::new(0),
            failure: Mutex::new(None),
            instruments,
        }
    }

    pub(super) fn fail(&self, msg: String) {
        let mut f = crate::util::lock(&self.failure);
        if f.is_none() {
            *f = Some(msg);
        }
    }

    pub(super) fn failure(&self) -> Option<String> {
        crate::util::lock(&self.failure).clone()
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
