//! A compacted Kafka topic used as a replicated key-value log (Kafka
//! Connect's `KafkaBasedLog`): every worker of a cluster writes records
//! (`key` → JSON value, or a tombstone) and reads the whole topic, in order,
//! into the same latest-value-per-key view. The foundation of distributed
//! mode's config and status topics (`config.storage.topic`,
//! `status.storage.topic`).
//!
//! [`TopicLog::send`] returns once every in-sync replica has the record;
//! [`TopicLog::catch_up`] then reads up to the high watermark taken when it
//! is called, so a worker always reads its own writes, and any two workers
//! that caught up after the same write agree on everything before it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer};
use rdkafka::{Offset, TopicPartitionList};

use super::shared_producer::{AckSink, Delivery, SourceProducer};
use super::{KafkaError, worker_client_config};
use crate::config::WorkerConfig;

/// One record as read: its key and value (`None`: a tombstone).
pub type LogRecord = (String, Option<Vec<u8>>);

/// The writer's delivery reports, by the number `send` gave the record,
/// until `send` takes its own.
#[derive(Default)]
struct Reports(Mutex<BTreeMap<usize, Result<(), rdkafka::error::KafkaError>>>);

impl AckSink for Reports {
    fn delivered(&self, result: &DeliveryResult<'_>, seq: usize) {
        let result = result.as_ref().map(|_| ()).map_err(|(e, _)| e.clone());
        if let Ok(mut reports) = self.0.lock() {
            reports.insert(seq, result);
        }
    }
}

impl Reports {
    /// The report of record `seq`, if it came; older ones (of records whose
    /// `send` gave up waiting) are dropped.
    fn take(&self, seq: usize) -> Option<Result<(), rdkafka::error::KafkaError>> {
        let mut reports = self.0.lock().ok()?;
        let report = reports.remove(&seq);
        reports.retain(|s, _| *s > seq);
        report
    }
}

/// A compacted topic read in full and tailed.
pub struct TopicLog {
    topic: String,
    /// A producer whose delivery reports a thread of its own serves,
    /// blocking while there are none (rust-rdkafka's `ThreadedProducer`
    /// spins for the last millisecond of every 100 ms wait: two of them
    /// were most of an idle distributed worker's CPU).
    producer: SourceProducer,
    reports: Arc<Reports>,
    /// The number of the next record written.
    next_seq: usize,
    consumer: BaseConsumer,
    timeout: Duration,
    /// The latest value of every key read so far.
    view: BTreeMap<String, Vec<u8>>,
}

impl std::fmt::Debug for TopicLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicLog")
            .field("topic", &self.topic)
            .field("keys", &self.view.len())
            .finish_non_exhaustive()
    }
}

impl TopicLog {
    /// Open `topic` (which must exist, see [`super::ensure_compacted_topic`])
    /// with every partition assigned from the beginning; nothing is read yet.
    pub fn open(worker: &WorkerConfig, topic: &str) -> Result<Self, KafkaError> {
        let timeout = worker.offset_flush_timeout.max(Duration::from_secs(10));
        let producer = SourceProducer::create(
            worker_client_config(worker, &worker.producer)
                .set("enable.idempotence", "true")
                .set("acks", "all")
                .set("linger.ms", "0"),
        )
        .map_err(|e| KafkaError::new(format!("creating the writer of {topic}"), e))?;
        let consumer: BaseConsumer = worker_client_config(worker, &worker.consumer)
            .set("group.id", "copycat-log-reader")
            .set("enable.auto.commit", "false")
            .set("enable.partition.eof", "false")
            // An idle worker's reader asks twice a second instead of 100
            // times; a write is still seen at once (the broker answers a
            // held fetch as soon as data arrives), and `catch_up` asks for
            // the end offsets through the producer, not behind this fetch.
            .set("fetch.wait.max.ms", "500")
            .create()
            .map_err(|e| KafkaError::new(format!("creating the reader of {topic}"), e))?;
        let md = consumer
            .fetch_metadata(Some(topic), timeout)
            .map_err(|e| KafkaError::new(format!("reading metadata of {topic}"), e))?;
        let mut tpl = TopicPartitionList::new();
        for t in md.topics() {
            for p in t.partitions() {
                tpl.add_partition_offset(topic, p.id(), Offset::Beginning)
                    .map_err(|e| KafkaError::new(format!("assigning {topic}"), e))?;
            }
        }
        consumer
            .assign(&tpl)
            .map_err(|e| KafkaError::new(format!("assigning {topic}"), e))?;
        Ok(Self {
            topic: topic.to_owned(),
            producer,
            reports: Arc::new(Reports::default()),
            next_seq: 0,
            consumer,
            timeout,
            view: BTreeMap::new(),
        })
    }

    /// Write `key` → `value` (`None`: delete the key) and wait until Kafka
    /// acknowledged it; a record Kafka did not take (its delivery report is
    /// an error) is an error here too. One writer at a time (`&mut`): a
    /// report older than the record being sent belongs to a `send` that
    /// already gave up, and is dropped.
    pub fn send(&mut self, key: &str, value: Option<&[u8]>) -> Result<(), KafkaError> {
        let what = || format!("writing {key} to {}", self.topic);
        let seq = self.next_seq;
        self.next_seq += 1;
        let opaque = Delivery::new(self.reports.clone(), seq);
        let mut record: BaseRecord<'_, str, [u8], Arc<Delivery>> =
            BaseRecord::with_opaque_to(&self.topic, opaque).key(key);
        if let Some(v) = value {
            record = record.payload(v);
        }
        self.producer
            .send(record)
            .map_err(|(e, _)| KafkaError::new(what(), e))?;
        // librdkafka's flush, not rust-rdkafka's (which waits 100 ms at
        // least). It returns once no record is left in the producer: its
        // report has been served (by the producer's thread) by then.
        let flushed = super::batch_produce::flush(self.producer.client(), self.timeout);
        match self.reports.take(seq) {
            Some(result) => result.map_err(|e| KafkaError::new(what(), e)),
            None => Err(KafkaError::new(
                what(),
                rdkafka::error::KafkaError::Flush(if flushed {
                    // Flushed, yet no report: not expected of librdkafka.
                    rdkafka::error::RDKafkaErrorCode::Fail
                } else {
                    rdkafka::error::RDKafkaErrorCode::OperationTimedOut
                }),
            )),
        }
    }

    /// Read every record written before this call, in order per partition,
    /// apply them to the view and return them.
    pub fn catch_up(&mut self) -> Result<Vec<LogRecord>, KafkaError> {
        let topic = self.topic.clone();
        let assignment = self
            .consumer
            .assignment()
            .map_err(|e| KafkaError::new(format!("reading the assignment of {topic}"), e))?;
        let mut ends: HashMap<i32, i64> = HashMap::new();
        for e in assignment.elements() {
            // The producer's connection, not the reader's: the broker
            // answers a connection's requests in order, and holds the
            // reader's fetch up to `fetch.wait.max.ms` while there is nothing
            // new, so the question would wait behind it (a failover in the
            // benchmark took 18 s instead of 7).
            let (_, high) = self
                .producer
                .client()
                .fetch_watermarks(&topic, e.partition(), self.timeout)
                .map_err(|err| KafkaError::new(format!("reading the end of {topic}/{}", e.partition()), err))?;
            ends.insert(e.partition(), high);
        }
        let mut read = Vec::new();
        let deadline = Instant::now() + self.timeout;
        loop {
            // Done when every partition's position reached the end seen above.
            if let Ok(pos) = self.consumer.position() {
                ends.retain(|p, end| {
                    let at = pos
                        .elements_for_topic(&topic)
                        .iter()
                        .find(|e| e.partition() == *p)
                        .and_then(|e| match e.offset() {
                            Offset::Offset(o) => Some(o),
                            _ => None,
                        });
                    // An empty partition has no position yet.
                    *end > 0 && at.is_none_or(|o| o < *end)
                });
            }
            if ends.is_empty() {
                return Ok(read);
            }
            if Instant::now() > deadline {
                return Err(KafkaError::new(
                    format!("reading {topic} to its end took over {} ms", self.timeout.as_millis()),
                    rdkafka::error::KafkaError::MessageConsumption(rdkafka::types::RDKafkaErrorCode::OperationTimedOut),
                ));
            }
            let Some(msg) = self.consumer.poll(Duration::from_millis(10)) else {
                continue;
            };
            let msg = msg.map_err(|e| KafkaError::new(format!("reading {topic}"), e))?;
            let Some(key) = msg.key().map(|k| String::from_utf8_lossy(k).into_owned()) else {
                continue;
            };
            let value = msg.payload().map(<[u8]>::to_vec);
            match &value {
                Some(v) => self.view.insert(key.clone(), v.clone()),
                None => self.view.remove(&key),
            };
            read.push((key, value));
        }
    }

    /// The latest value of `key` read so far.
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.view.get(key).map(Vec::as_slice)
    }

    /// Every key and its latest value read so far, in key order.
    pub fn view(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.view
    }
}
