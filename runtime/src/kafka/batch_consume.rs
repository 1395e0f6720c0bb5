//! Take fetched messages from librdkafka in runs, with
//! `rd_kafka_consume_batch_queue`, instead of one `poll` per message.
//!
//! The clock reads and the queue lock of a `poll` happen once per run.
//!
//! The batch call cannot be used on the consumer's own queue: it serves a
//! rebalance found there by unassigning (rust-rdkafka asks for rebalances as
//! events and sets no rebalance callback), so the task would lose its
//! partitions. A [`MessageQueue`] is a queue of its own that the assigned
//! partitions' fetched messages are routed to; rebalances, errors and commit
//! results stay on the consumer's queue, which the task still polls between
//! runs.
//!
//! A partition is routed *before* it is assigned ([`MessageQueue::assign`]).
//! One assigned at an offset (an exactly-once sink resumes where its files
//! end) starts fetching inside `assign`, into the consumer's queue until it
//! is routed: routed afterwards, its first fetch could already be there
//! while the next ones came through this queue. The task reads this queue
//! once `poll` returns nothing, which `poll` also does after serving a
//! rebalance or a commit result, so it handed the later records to the guest
//! first. (The exactly-once file sink took the earlier ones for records it
//! already had and dropped them: lines lost after a failover.) A partition
//! that cannot be routed stays on the consumer's queue entirely, so its
//! messages still come in order.
//!
//! After a partition is revoked, messages of it still in the queue are
//! outdated (librdkafka's version barrier) and dropped by the batch call.
//!
//! That barrier moves when a partition starts fetching, and a partition is
//! routed before that, so [`MessageQueue::assign`] gives every partition a
//! start offset: one assigned without (to resume from the group's committed
//! offset) starts only after librdkafka's own lookup of that offset, and in
//! between the task read whatever the partition's fetch queue already held,
//! forwarded here by the routing and not outdated yet. An unassigned
//! partition's fetch queue is not always empty: librdkafka 2.12 restarts a
//! partition stopped while the lookup of a logical start offset (ListOffsets,
//! e.g. for auto.offset.reset) is in flight (the outdated reply re-arms the
//! lookup, and the next reply starts fetching), so it goes on fetching,
//! unassigned, into its fetch queue. A sink task whose first assignment was
//! revoked that way, and which got the partition back when the other task
//! stopped, handed that task's records to the guest a second time, from
//! offset 0 (the rebalance test's 300 lines instead of 200). Assigned at an
//! offset, a partition starts fetching inside `assign`, which moves the
//! barrier past everything fetched before.
//!
//! This module and [`super::batch_produce`] are the runtime's `unsafe` code:
//! FFI calls, and ownership of the messages the batch call hands out.
#![allow(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::{CStr, CString, c_char, c_void};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::time::Duration;

use rdkafka::bindings as rdsys;
use rdkafka::client::{Client, ClientContext};
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::{KafkaError as RdKafkaError, KafkaResult, RDKafkaErrorCode};
use rdkafka::{Offset, TopicPartitionList};

/// Messages asked for per batch call.
const RUN: usize = 512;

/// Stand-in for a header key that is not UTF-8 (Kafka's are Java strings;
/// another client may write anything).
const NOT_UTF8: &str = "\u{FFFD}";

/// A queue of fetched messages, apart from the consumer's own; it lives no
/// longer than the consumer (`'c`).
pub struct MessageQueue<'c> {
    raw: NonNull<rdsys::rd_kafka_queue_t>,
    rk: NonNull<rdsys::rd_kafka_t>,
    /// Messages taken from librdkafka and not handed out yet, in order.
    pending: VecDeque<Fetched<'c>>,
    /// Scratch for the batch call.
    scratch: Vec<*mut rdsys::rd_kafka_message_t>,
    /// Whether any partition is routed here (else waiting on it is pointless).
    routed: bool,
    _client: PhantomData<&'c ()>,
}

impl std::fmt::Debug for MessageQueue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageQueue")
            .field("pending", &self.pending.len())
            .field("routed", &self.routed)
            .finish()
    }
}

/// The high watermark of `topic`/`partition` as of `client`'s last fetch
/// response for it (librdkafka's cache: no request to the broker); `None`
/// when not known (nothing fetched yet).
pub fn cached_high_watermark<C: ClientContext>(client: &Client<C>, topic: &str, partition: i32) -> Option<i64> {
    let topic = CString::new(topic).ok()?;
    let (mut low, mut high) = (-1i64, -1i64);
    // SAFETY: `client` is a live client for the call; `topic` is a
    // NUL-terminated string alive for the call; `low` and `high` are valid
    // for writes. The call only reads librdkafka's partition state.
    let err = unsafe {
        rdsys::rd_kafka_get_watermark_offsets(client.native_ptr(), topic.as_ptr(), partition, &mut low, &mut high)
    };
    (err == rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0).then_some(high)
}

impl<'c> MessageQueue<'c> {
    /// A new, empty queue of `client`'s.
    pub fn new<C: ClientContext>(client: &'c Client<C>) -> Result<Self, RdKafkaError> {
        let rk = NonNull::new(client.native_ptr()).ok_or(RdKafkaError::ClientCreation("no client".into()))?;
        // SAFETY: `rk` is a live client, which outlives the queue ('c).
        let raw = unsafe { rdsys::rd_kafka_queue_new(rk.as_ptr()) };
        let raw = NonNull::new(raw).ok_or(RdKafkaError::ClientCreation("creating a message queue".into()))?;
        Ok(Self {
            raw,
            rk,
            pending: VecDeque::new(),
            scratch: Vec::with_capacity(RUN),
            routed: false,
            _client: PhantomData,
        })
    }

    /// Assign `partitions` (with their start offsets) to `consumer`, each
    /// routed here first, so that every message fetched for it comes through
    /// this queue, in order (see the module documentation). A partition that
    /// cannot be routed is assigned all the same and read from the
    /// consumer's queue. Fails only if the assignment does.
    ///
    /// A partition without a start offset (`Offset::Invalid`: resume from
    /// the group's committed offset) is assigned at its committed offset,
    /// looked up here first (waiting up to `lookup`), or at `uncommitted`
    /// (the consumer's `auto.offset.reset`) if the group has none, so that
    /// it starts fetching inside `assign` and nothing its fetch queue held
    /// before is handed out (see the module documentation). If the lookup
    /// fails, librdkafka looks the offsets up after the assignment, as it
    /// does by itself.
    pub fn assign<C: ConsumerContext>(
        &mut self,
        consumer: &BaseConsumer<C>,
        partitions: &TopicPartitionList,
        uncommitted: Offset,
        lookup: Duration,
    ) -> KafkaResult<()> {
        let starts = start_offsets(consumer, partitions, uncommitted, lookup);
        let partitions = starts.as_ref().unwrap_or(partitions);
        let elements = partitions.elements();
        if let Err(e) = self.route(elements.iter().map(|e| (e.topic(), e.partition()))) {
            tracing::warn!(error = %e, "routing fetched messages; they are read one by one");
        }
        consumer.assign(partitions)
    }

    /// Route the fetched messages of `partitions` here (librdkafka stops a
    /// partition's routing when it stops fetching it: route it again for
    /// every assignment). Before the partitions are assigned, as
    /// [`MessageQueue::assign`] does: a partition routed after its fetching
    /// started may have left its first messages on the consumer's queue.
    pub fn route<'a>(&mut self, partitions: impl IntoIterator<Item = (&'a str, i32)>) -> Result<(), RdKafkaError> {
        for (topic, partition) in partitions {
            let name = CString::new(topic).map_err(|_| RdKafkaError::Subscription(format!("topic name {topic:?}")))?;
            // SAFETY: `rk` is live ('c); `name` is a valid C string for the
            // call. The partition queue handle is released right after the
            // forward, which stays on the partition's fetch queue.
            unsafe {
                let q = rdsys::rd_kafka_queue_get_partition(self.rk.as_ptr(), name.as_ptr(), partition);
                if q.is_null() {
                    return Err(RdKafkaError::Subscription(format!("no partition {topic}-{partition}")));
                }
                rdsys::rd_kafka_queue_forward(q, self.raw.as_ptr());
                rdsys::rd_kafka_queue_destroy(q);
            }
            self.routed = true;
        }
        Ok(())
    }

    /// Whether a partition was ever routed here.
    pub fn is_routed(&self) -> bool {
        self.routed
    }

    /// Drop the messages taken but not handed out (after a rebalance: their
    /// partitions are read again from the committed offsets).
    pub fn discard_pending(&mut self) {
        self.pending.clear();
    }

    /// The next message, waiting up to `timeout` for one when none is
    /// taken yet. `Ok(None)`: none arrived in time.
    pub fn next(&mut self, timeout: Duration) -> Result<Option<Fetched<'c>>, RdKafkaError> {
        if self.pending.is_empty() {
            self.fill(timeout)?;
        }
        Ok(self.pending.pop_front())
    }

    /// Take what the queue holds; if that is nothing, wait up to `timeout`
    /// for the first message, then take what came with it.
    ///
    /// The batch call returns only once it has as many messages as asked
    /// for or its timeout has passed, so the waiting call asks for one: at
    /// a low rate, asking for a full run would hold every message back for
    /// the whole timeout.
    fn fill(&mut self, timeout: Duration) -> Result<(), RdKafkaError> {
        if self.take(Duration::ZERO, RUN)? == 0 && !timeout.is_zero() && self.take(timeout, 1)? == 1 {
            self.take(Duration::ZERO, RUN - 1)?;
        }
        Ok(())
    }

    /// One batch call: up to `max` messages (at most [`RUN`]) into
    /// `pending`, waiting up to `timeout` for all of them. Returns how many.
    fn take(&mut self, timeout: Duration, max: usize) -> Result<usize, RdKafkaError> {
        let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
        self.scratch.clear();
        let max = max.min(self.scratch.capacity());
        // SAFETY: the queue is live; librdkafka writes at most `max`
        // message pointers into the scratch's spare capacity and returns
        // how many (or -1).
        let n = unsafe { rdsys::rd_kafka_consume_batch_queue(self.raw.as_ptr(), ms, self.scratch.as_mut_ptr(), max) };
        let Ok(n) = usize::try_from(n) else {
            // SAFETY: reads librdkafka's thread-local last error.
            let code = unsafe { rdsys::rd_kafka_last_error() };
            return Err(RdKafkaError::MessageConsumption(RDKafkaErrorCode::from(code)));
        };
        let n = n.min(max);
        // SAFETY: librdkafka initialised the first `n` entries.
        unsafe { self.scratch.set_len(n) };
        self.pending
            .extend(self.scratch.drain(..).filter_map(NonNull::new).map(|raw| Fetched {
                raw,
                _queue: PhantomData,
            }));
        Ok(n)
    }
}

/// `partitions` with a start offset for each one given without
/// (`Offset::Invalid`): its committed offset (with its leader epoch, as
/// librdkafka's own lookup resumes), or `uncommitted` if the group has none.
/// `None` if every partition has one already, or if the lookup failed (then
/// librdkafka looks them up after the assignment).
fn start_offsets<C: ConsumerContext>(
    consumer: &BaseConsumer<C>,
    partitions: &TopicPartitionList,
    uncommitted: Offset,
    lookup: Duration,
) -> Option<TopicPartitionList> {
    let mut unknown = TopicPartitionList::new();
    for e in partitions.elements() {
        if e.offset() == Offset::Invalid {
            unknown.add_partition(e.topic(), e.partition());
        }
    }
    if unknown.count() == 0 {
        return None;
    }
    let mut starts = match consumer.committed_offsets(unknown, lookup) {
        Ok(committed) => committed,
        Err(e) => {
            tracing::warn!(error = %e, "looking up the committed offsets of an assignment; librdkafka looks them up after it");
            return None;
        }
    };
    for mut e in starts.elements() {
        // None committed; a partition the lookup failed for keeps
        // `Invalid`: librdkafka looks it up.
        if e.offset() == Offset::Invalid
            && e.error().is_ok()
            && let Err(err) = e.set_offset(uncommitted)
        {
            tracing::warn!(error = %err, partition = e.partition(), "setting a partition's start offset");
        }
    }
    for e in partitions.elements() {
        if e.offset() != Offset::Invalid
            && let Err(err) = starts.add_partition_offset(e.topic(), e.partition(), e.offset())
        {
            tracing::warn!(error = %err, partition = e.partition(), "setting a partition's start offset");
            return None;
        }
    }
    tracing::debug!(
        starts = ?starts.elements().iter().map(|e| (e.partition(), e.offset())).collect::<Vec<_>>(),
        "assignment start offsets"
    );
    Some(starts)
}

impl Drop for MessageQueue<'_> {
    fn drop(&mut self) {
        // Messages first, then the queue (its partitions' forwards keep a
        // reference of their own; what reaches it afterwards is dropped).
        self.pending.clear();
        // SAFETY: created by `rd_kafka_queue_new`, destroyed once, while the
        // client is alive ('c).
        unsafe { rdsys::rd_kafka_queue_destroy(self.raw.as_ptr()) }
    }
}

/// One message from a [`MessageQueue`], owned until dropped.
pub struct Fetched<'c> {
    raw: NonNull<rdsys::rd_kafka_message_t>,
    _queue: PhantomData<&'c ()>,
}

impl std::fmt::Debug for Fetched<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetched")
            .field("partition", &self.partition())
            .field("offset", &self.offset())
            .finish()
    }
}

impl Drop for Fetched<'_> {
    fn drop(&mut self) {
        // SAFETY: handed out by the batch call, destroyed once.
        unsafe { rdsys::rd_kafka_message_destroy(self.raw.as_ptr()) }
    }
}

/// `len` bytes at `ptr` (none for a null pointer).
///
/// # Safety
/// `ptr` must be null or point to `len` readable bytes that live as long as
/// the returned slice.
unsafe fn bytes<'a>(ptr: *const c_void, len: usize) -> Option<&'a [u8]> {
    // SAFETY: as the caller promises.
    (!ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

impl Fetched<'_> {
    fn msg(&self) -> &rdsys::rd_kafka_message_t {
        // SAFETY: the message lives until `self` is dropped.
        unsafe { self.raw.as_ref() }
    }

    /// The error this message carries instead of a record, if any.
    pub fn error(&self) -> Option<RdKafkaError> {
        let err = self.msg().err;
        (err != rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR)
            .then(|| RdKafkaError::MessageConsumption(RDKafkaErrorCode::from(err)))
    }

    /// The topic's name (`None` if it is not UTF-8, which Kafka does not allow).
    pub fn topic(&self) -> Option<&str> {
        let rkt = self.msg().rkt;
        if rkt.is_null() {
            return None;
        }
        // SAFETY: a message keeps its topic handle (and so its name) alive.
        unsafe { CStr::from_ptr(rdsys::rd_kafka_topic_name(rkt)) }.to_str().ok()
    }

    /// Partition.
    pub fn partition(&self) -> i32 {
        self.msg().partition
    }

    /// Offset.
    pub fn offset(&self) -> i64 {
        self.msg().offset
    }

    /// Key bytes.
    pub fn key(&self) -> Option<&[u8]> {
        let m = self.msg();
        // SAFETY: librdkafka's key pointer and length, alive with the message.
        unsafe { bytes(m.key, m.key_len) }
    }

    /// Value bytes (`None`: a tombstone).
    pub fn payload(&self) -> Option<&[u8]> {
        let m = self.msg();
        // SAFETY: librdkafka's payload pointer and length, alive with the message.
        unsafe { bytes(m.payload, m.len) }
    }

    /// Milliseconds since the Unix epoch, if the record has a timestamp.
    pub fn timestamp(&self) -> Option<i64> {
        let mut kind = rdsys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
        // SAFETY: the message is live; `kind` is written by the call.
        let ts = unsafe { rdsys::rd_kafka_message_timestamp(self.raw.as_ptr(), &mut kind) };
        (ts != -1 && kind != rdsys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE).then_some(ts)
    }

    /// The headers, in order: `(key, value)`; a key that is not UTF-8 reads
    /// as U+FFFD.
    pub fn headers(&self) -> impl Iterator<Item = (&str, Option<&[u8]>)> + '_ {
        let mut hdrs: *mut rdsys::rd_kafka_headers_t = std::ptr::null_mut();
        // SAFETY: the message is live; on success `hdrs` points to its
        // headers, owned by the message.
        let err = unsafe { rdsys::rd_kafka_message_headers(self.raw.as_ptr(), &mut hdrs) };
        let hdrs = (err == rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR && !hdrs.is_null()).then_some(hdrs);
        let mut idx = 0usize;
        std::iter::from_fn(move || {
            let hdrs = hdrs?;
            let (mut name, mut value, mut size): (*const c_char, *const c_void, usize) =
                (std::ptr::null(), std::ptr::null(), 0);
            // SAFETY: `hdrs` belongs to the live message; the call writes
            // the header's name, value and size, or returns an error past
            // the last header.
            let err = unsafe { rdsys::rd_kafka_header_get_all(hdrs, idx, &mut name, &mut value, &mut size) };
            if err != rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR || name.is_null() {
                return None;
            }
            idx += 1;
            // SAFETY: a NUL-terminated name and `size` value bytes, owned by
            // the message's headers.
            let key = unsafe { CStr::from_ptr(name) }.to_str().unwrap_or(NOT_UTF8);
            Some((key, unsafe { bytes(value, size) }))
        })
    }
}
