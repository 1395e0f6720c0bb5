//! The sender thread: produces the batches the task thread hands over,
//! while the task thread polls the guest for the next one, building Kafka
//! records ([`Enqueuer`]) in runs per topic.

use crate::config::DeliveryGuarantee;
use crate::engine::guest::SourceBatch;
use crate::kafka::batch_produce::{Msg, Run, Scratch, SendError, TopicHandle};
use crate::kafka::shared_producer::{Delivery, Serving, SourceProducer};
use crate::task::{TaskContext, TaskFailure};
use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header as KHeader, OwnedHeaders};
use rdkafka::producer::{BaseRecord, Producer};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use super::acks::*;

/// How long the sender thread stays without a batch before the task ends
/// it (a rate-limited or idle task then has one thread, not two); the next
/// batch starts a new one.
pub(super) const SENDER_IDLE: Duration = Duration::from_secs(1);

/// How long the sender thread waits for the next batch before it leaves
/// serving delivery reports to the producer's fallback thread: longer than
/// a busy task's guest takes for a `poll`, so a busy sender keeps serving
/// its own reports.
pub(super) const SENDER_LINGER: Duration = Duration::from_millis(2);

pub(super) type Kproducer = SourceProducer;

/// A batch handed to the sender thread, with its delivery opaque.
pub(super) type Handed = (Arc<Delivery>, SourceBatch);

/// Hands a batch to the sender thread.
pub(super) type BatchSender = SyncSender<Handed>;

/// Start the thread that produces the batches the task thread hands over.
pub(super) fn spawn_sender(
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
pub(super) fn sender_next<'p>(
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
pub(super) struct Enqueuer {
    pub(super) topics: HashMap<String, TopicHandle>,
    pub(super) scratch: Scratch,
    /// Whether records with an explicit partition may go in runs: not with
    /// a transactional producer (`batch_produce::Msg::partition` says why).
    pub(super) explicit_partitions: bool,
    /// Whether runs are used at all (`COPYCAT_PRODUCE_BATCH=0`: every
    /// record through `send`, for comparison or as a fallback).
    pub(super) runs: bool,
}

/// `COPYCAT_PRODUCE_BATCH`: `0` turns runs off (read once per process).
pub(super) fn produce_batch_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("COPYCAT_PRODUCE_BATCH").is_none_or(|v| v != "0"))
}

impl Enqueuer {
    /// Produce one batch's records, in order.
    pub(super) fn produce(
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
pub(super) fn send_run(
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
pub(super) fn send<'r>(
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
