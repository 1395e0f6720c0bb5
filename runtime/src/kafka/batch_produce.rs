//! Enqueue runs of records for one topic with librdkafka's
//! `rd_kafka_produce_batch`: the topic is looked up once per run, locked
//! once per run, and the clock read once per run.
//!
//! (rust-rdkafka's `send` does each of those per record.) The batch call
//! cannot carry headers or timestamps, so records with either still go
//! through `send`, in order: a run is enqueued before the next record is.
//!
//! [`flush`] is here too: librdkafka's flush, which rust-rdkafka wraps in a
//! loop that waits 100 ms at a time.
//!
//! This module and [`super::batch_consume`] are the runtime's `unsafe`
//! code: the FFI calls and the delivery opaques' hand-over to librdkafka.
//! Each block says why it is sound; the types keep the invariants:
//! - a [`TopicHandle`] holds the client that created it, so the handle is
//!   destroyed before the client;
//! - a [`Run`] borrows the bytes its records point to for as long as it
//!   holds them, and owns the delivery opaque of every record it has not
//!   handed to librdkafka (it drops them when it is dropped).
#![allow(unsafe_code)]

use std::any::Any;
use std::ffi::CString;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

use rdkafka::IntoOpaque;
use rdkafka::bindings as rdsys;
use rdkafka::client::{Client, ClientContext};
use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};

/// librdkafka's "let the partitioner choose" partition.
const PARTITION_UA: i32 = -1;

/// Records per `rd_kafka_produce_batch` call at most: bounds the scratch
/// array; one call per 1,024 records amortises the per-call work.
const CHUNK: usize = 1024;

/// A librdkafka topic handle of one producer, for [`Run::send`].
pub struct TopicHandle {
    raw: NonNull<rdsys::rd_kafka_topic_t>,
    name: String,
    /// The client the handle belongs to, kept alive until the handle is
    /// destroyed.
    _owner: Arc<dyn Any + Send + Sync>,
}

// SAFETY: librdkafka topic handles are reference-counted and thread-safe
// (every use takes the topic's own lock); the handle is only destroyed in
// `drop`.
unsafe impl Send for TopicHandle {}
// SAFETY: as above; `&TopicHandle` only passes the pointer to librdkafka.
unsafe impl Sync for TopicHandle {}

impl std::fmt::Debug for TopicHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicHandle").field("name", &self.name).finish()
    }
}

impl TopicHandle {
    /// A handle on `name` for the client `client(owner)` returns; the
    /// handle keeps `owner` alive.
    pub fn new<T, C>(owner: &Arc<T>, client: impl Fn(&T) -> &Client<C>, name: &str) -> Result<Self, RdKafkaError>
    where
        T: Send + Sync + 'static,
        C: ClientContext,
    {
        let c_name = CString::new(name).map_err(|_| RdKafkaError::MessageProduction(RDKafkaErrorCode::InvalidTopic))?;
        let rk = client(owner).native_ptr();
        // SAFETY: `rk` is a live client (owned by `owner`, which the handle
        // keeps); `c_name` is a valid C string for the call; a null config
        // means the client's default topic config, as `producev` uses.
        let raw = unsafe { rdsys::rd_kafka_topic_new(rk, c_name.as_ptr(), std::ptr::null_mut()) };
        let Some(raw) = NonNull::new(raw) else {
            // SAFETY: reads librdkafka's thread-local last error.
            let code = unsafe { rdsys::rd_kafka_last_error() };
            return Err(RdKafkaError::MessageProduction(code.into()));
        };
        let owner: Arc<dyn Any + Send + Sync> = owner.clone();
        Ok(Self {
            raw,
            name: name.to_owned(),
            _owner: owner,
        })
    }

    /// The topic's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TopicHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from `rd_kafka_topic_new` and is destroyed
        // once, while its client (`_owner`, dropped after this) is alive.
        unsafe { rdsys::rd_kafka_topic_destroy(self.raw.as_ptr()) }
    }
}

/// Send everything `client`'s producer holds back for `linger.ms` at once,
/// and wait up to `timeout` until every message it has in flight is
/// acknowledged and its delivery report served.
///
/// For a producer whose delivery reports another thread serves (all of
/// Copycat's: rust-rdkafka asks librdkafka for them as events), this is
/// `rd_kafka_flush`'s event-mode wait: no polling here, a wake-up when the
/// count of messages in flight reaches zero. Waiting for that count alone
/// would leave each partition's last batch waiting out `linger.ms` (5 ms
/// for source tasks), which an exactly-once task pays at every commit.
/// Returns whether nothing is in flight any more.
pub fn flush<C: ClientContext>(client: &Client<C>, timeout: Duration) -> bool {
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: `client` is alive for the call; `rd_kafka_flush` is
    // thread-safe and, with delivery reports as events, only waits.
    let err = unsafe { rdsys::rd_kafka_flush(client.native_ptr(), ms) };
    err == rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
}

/// The array a [`Run`] fills; reuse one per sending thread. Empty between
/// runs.
#[derive(Default)]
pub struct Scratch(Vec<rdsys::rd_kafka_message_t>);

// SAFETY: a `Scratch` only holds pointers while a `Run` borrows it; the
// `Run` (which is neither `Send` nor `Sync`) empties it when it ends.
unsafe impl Send for Scratch {}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch").field("capacity", &self.0.capacity()).finish()
    }
}

/// One record of a run.
#[derive(Debug, Clone, Copy)]
pub struct Msg<'a> {
    /// Key bytes (librdkafka copies them).
    pub key: Option<&'a [u8]>,
    /// Value bytes (copied); `None` is a tombstone.
    pub value: Option<&'a [u8]>,
    /// `None`: the partitioner chooses.
    ///
    /// Not with a transactional producer: for a topic whose metadata the
    /// producer has not seen yet, librdkafka 2.12's `produce_batch` adds
    /// the unassigned partition (-1) to the transaction for a record with
    /// an explicit partition, the coordinator answers
    /// `UNKNOWN_TOPIC_OR_PARTITION` and the transaction fails. (`producev`
    /// and the partitioner path of `produce_batch` skip it.) Send such
    /// records one by one instead.
    pub partition: Option<i32>,
}

/// Why [`Run::send`] stopped.
#[derive(Debug)]
pub enum SendError<E> {
    /// librdkafka refused record `index` of the run (counted from the
    /// run's first record); the records before it were enqueued.
    Refused {
        /// Which record.
        index: usize,
        /// Its partition, as asked.
        partition: Option<i32>,
        /// librdkafka's reason.
        error: RdKafkaError,
    },
    /// The producer's queue was full and `when_full` said to stop.
    Stopped(E),
}

/// Records for one topic, collected and then enqueued with
/// `rd_kafka_produce_batch`. Records it still holds when it is dropped are
/// not produced (their opaques are dropped).
pub struct Run<'s, 'a, O: IntoOpaque> {
    msgs: &'s mut Vec<rdsys::rd_kafka_message_t>,
    /// The records' bytes must outlive the run.
    _data: PhantomData<&'a [u8]>,
    /// The run owns the opaques it holds.
    _opaque: PhantomData<O>,
}

impl<'s, 'a, O: IntoOpaque> Run<'s, 'a, O> {
    /// An empty run on `scratch`.
    pub fn new(scratch: &'s mut Scratch) -> Self {
        scratch.0.clear();
        Self {
            msgs: &mut scratch.0,
            _data: PhantomData,
            _opaque: PhantomData,
        }
    }

    /// How many records the run holds.
    pub fn len(&self) -> usize {
        self.msgs.len()
    }

    /// Whether the run holds no record.
    pub fn is_empty(&self) -> bool {
        self.msgs.is_empty()
    }

    /// Add a record with its delivery opaque.
    pub fn push(&mut self, msg: Msg<'a>, opaque: O) {
        let (key, key_len) = msg
            .key
            .map_or((std::ptr::null_mut(), 0), |k| (k.as_ptr().cast_mut().cast(), k.len()));
        let (payload, len) = msg
            .value
            .map_or((std::ptr::null_mut(), 0), |v| (v.as_ptr().cast_mut().cast(), v.len()));
        self.msgs.push(rdsys::rd_kafka_message_t {
            err: rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR,
            rkt: std::ptr::null_mut(),
            partition: msg.partition.unwrap_or(PARTITION_UA),
            payload,
            len,
            key,
            key_len,
            offset: 0,
            _private: opaque.into_ptr(),
        });
    }

    /// Enqueue every record held for `topic`, in order. When the
    /// producer's queue is full, `when_full` is called (to wait, or to say
    /// stop) and the rest is retried. The run is empty afterwards, whatever
    /// the outcome.
    pub fn send<E>(
        &mut self,
        topic: &TopicHandle,
        mut when_full: impl FnMut() -> Result<(), E>,
    ) -> Result<(), SendError<E>> {
        let result = self.send_all(topic, &mut when_full);
        self.drop_from(0);
        result
    }

    fn send_all<E>(
        &mut self,
        topic: &TopicHandle,
        when_full: &mut impl FnMut() -> Result<(), E>,
    ) -> Result<(), SendError<E>> {
        let mut start = 0;
        while start < self.msgs.len() {
            let end = (start + CHUNK).min(self.msgs.len());
            let chunk = &mut self.msgs[start..end];
            // `end - start` is at most CHUNK, so it fits a c_int.
            let count = (end - start) as std::os::raw::c_int;
            // SAFETY: `topic` is a live handle; `chunk` is a valid array of
            // `count` messages whose key and payload point into bytes the
            // run borrows for 'a (librdkafka copies them: F_COPY, and keys
            // always); librdkafka takes each enqueued message's opaque and
            // sets `err` on every message it did not enqueue.
            let enqueued = unsafe {
                rdsys::rd_kafka_produce_batch(
                    topic.raw.as_ptr(),
                    PARTITION_UA,
                    rdsys::RD_KAFKA_MSG_F_COPY | rdsys::RD_KAFKA_MSG_F_PARTITION,
                    chunk.as_mut_ptr(),
                    count,
                )
            };
            if enqueued == count {
                // Every opaque now belongs to librdkafka.
                for m in chunk.iter_mut() {
                    m._private = std::ptr::null_mut();
                }
                start = end;
                continue;
            }
            use rdsys::rd_kafka_resp_err_t as E;
            // Every enqueued record's opaque now belongs to librdkafka
            // (after a refused record, later ones may still be enqueued).
            for m in chunk.iter_mut() {
                if m.err == E::RD_KAFKA_RESP_ERR_NO_ERROR {
                    m._private = std::ptr::null_mut();
                }
            }
            // The first record not enqueued: a full queue (then no later
            // record of the chunk was enqueued either), or a refusal, on
            // which the task fails as with `send`.
            let first = chunk.iter().position(|m| m.err != E::RD_KAFKA_RESP_ERR_NO_ERROR);
            let queue_full = match first.and_then(|i| chunk.get(i).map(|m| (i, m))) {
                None => None,
                Some((i, m)) if m.err == E::RD_KAFKA_RESP_ERR__QUEUE_FULL => Some(start + i),
                Some((i, m)) => {
                    return Err(SendError::Refused {
                        index: start + i,
                        partition: (m.partition != PARTITION_UA).then_some(m.partition),
                        error: RdKafkaError::MessageProduction(m.err.into()),
                    });
                }
            };
            let Some(first_full) = queue_full else {
                start = end;
                continue;
            };
            when_full().map_err(SendError::Stopped)?;
            for m in &mut self.msgs[first_full..end] {
                m.err = rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR;
            }
            start = first_full;
        }
        Ok(())
    }

    /// Drop the opaques of the records from `from` on that librdkafka did
    /// not take, and empty the run.
    fn drop_from(&mut self, from: usize) {
        for m in self.msgs.iter_mut().skip(from) {
            if !m._private.is_null() {
                // SAFETY: a non-null opaque is one `push` made with
                // `into_ptr` and librdkafka did not take (taken ones were
                // nulled); it is reclaimed once, here.
                drop(unsafe { O::from_ptr(m._private) });
                m._private = std::ptr::null_mut();
            }
        }
        self.msgs.clear();
    }
}

impl<O: IntoOpaque> Drop for Run<'_, '_, O> {
    fn drop(&mut self) {
        self.drop_from(0);
    }
}

#[cfg(test)]
mod tests {
    //! No broker: librdkafka enqueues without one, which is all `send`
    //! does. What is checked is who owns each record's opaque afterwards:
    //! the opaque's reference count says how many records librdkafka holds
    //! (its queue length also counts error events of the missing broker).
    use std::time::Duration;

    use rdkafka::ClientConfig;
    use rdkafka::producer::{BaseProducer, DeliveryResult, Producer, ProducerContext};

    use super::*;

    struct Ctx;
    impl ClientContext for Ctx {}
    impl ProducerContext for Ctx {
        type DeliveryOpaque = Arc<()>;
        fn delivery(&self, _: &DeliveryResult<'_>, _: Arc<()>) {}
    }

    fn producer(extra: &[(&str, &str)]) -> Arc<BaseProducer<Ctx>> {
        let mut cfg = ClientConfig::new();
        cfg.set("bootstrap.servers", "127.0.0.1:1")
            .set("message.timeout.ms", "600000");
        for (k, v) in extra {
            cfg.set(*k, *v);
        }
        Arc::new(cfg.create_with_context(Ctx).unwrap())
    }

    fn push_all<'a>(run: &mut Run<'_, 'a, Arc<()>>, values: &'a [Vec<u8>], opaque: &Arc<()>) {
        for v in values {
            let msg = Msg {
                key: Some(b"k"),
                value: Some(v),
                partition: None,
            };
            run.push(msg, opaque.clone());
        }
    }

    #[test]
    fn a_run_is_enqueued_and_librdkafka_holds_every_opaque() {
        let p = producer(&[]);
        let topic = TopicHandle::new(&p, |p| p.client(), "batch-produce-test").unwrap();
        assert_eq!(topic.name(), "batch-produce-test");
        let opaque = Arc::new(());
        let values: Vec<Vec<u8>> = (0..2500).map(|i| format!("value {i}").into_bytes()).collect();
        let mut scratch = Scratch::default();
        let mut run = Run::new(&mut scratch);
        push_all(&mut run, &values, &opaque);
        assert_eq!(run.len(), 2500);
        run.send(&topic, || Err::<(), ()>(())).unwrap();
        assert!(run.is_empty());
        drop(run);
        assert_eq!(Arc::strong_count(&opaque), 1 + 2500);
    }

    #[test]
    fn a_refused_record_fails_the_run_and_its_opaque_is_dropped() {
        let p = producer(&[("message.max.bytes", "1000")]);
        let topic = TopicHandle::new(&p, |p| p.client(), "batch-produce-test").unwrap();
        let opaque = Arc::new(());
        let mut values: Vec<Vec<u8>> = (0..5).map(|i| format!("value {i}").into_bytes()).collect();
        values[2] = vec![b'x'; 5000];
        let mut scratch = Scratch::default();
        let mut run = Run::new(&mut scratch);
        push_all(&mut run, &values, &opaque);
        match run.send(&topic, || Err::<(), ()>(())) {
            Err(SendError::Refused {
                index: 2,
                partition: None,
                error,
            }) => {
                assert!(error.to_string().contains("too large"), "{error}");
            }
            other => panic!("expected record 2 to be refused, got {other:?}"),
        }
        drop(run);
        // The records after the refused one were enqueued too (librdkafka
        // goes on); the refused record's opaque was dropped.
        assert_eq!(Arc::strong_count(&opaque), 1 + 4);
    }

    #[test]
    fn a_full_queue_waits_and_stopping_drops_what_was_not_enqueued() {
        let p = producer(&[("queue.buffering.max.messages", "10")]);
        let topic = TopicHandle::new(&p, |p| p.client(), "batch-produce-test").unwrap();
        let opaque = Arc::new(());
        let values: Vec<Vec<u8>> = (0..25).map(|i| format!("value {i}").into_bytes()).collect();
        let mut scratch = Scratch::default();
        let mut run = Run::new(&mut scratch);
        push_all(&mut run, &values, &opaque);
        let mut waits = 0;
        let outcome = run.send(&topic, || {
            waits += 1;
            if waits < 3 { Ok(()) } else { Err("stop") }
        });
        assert!(matches!(outcome, Err(SendError::Stopped("stop"))), "{outcome:?}");
        // Nothing left the queue (no broker), so every retry found it full.
        assert_eq!(waits, 3);
        drop(run);
        assert_eq!(Arc::strong_count(&opaque), 1 + 10);
        // Dropping the producer purges the queue: librdkafka's opaques come back.
        p.purge(rdkafka::producer::PurgeConfig::default().queue());
        p.poll(Duration::from_millis(100));
        assert_eq!(Arc::strong_count(&opaque), 1);
    }

    #[test]
    fn a_run_dropped_before_sending_drops_its_opaques() {
        let opaque = Arc::new(());
        let values: Vec<Vec<u8>> = vec![b"a".to_vec(), b"b".to_vec()];
        let mut scratch = Scratch::default();
        let mut run = Run::new(&mut scratch);
        push_all(&mut run, &values, &opaque);
        assert_eq!(Arc::strong_count(&opaque), 3);
        drop(run);
        assert_eq!(Arc::strong_count(&opaque), 1);
    }
}
