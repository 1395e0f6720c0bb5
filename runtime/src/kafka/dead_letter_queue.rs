//! A task's dead letter queue (`errors.deadletterqueue.topic.name`): its
//! producer and topic, as Kafka Connect makes them. The topic is created
//! when the task starts if it does not exist (one partition, the
//! configured replication factor); the producer writes with `acks=all`,
//! without idempotence, one request in flight, from the worker's
//! `producer.*` and the connector's `producer.override.*` settings.
//! [`DeadLetterProducer::flush`] waits for every record sent so far and
//! says whether any was lost, so a task commits its offsets only after its
//! failed records are safely in the queue.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DeliveryResult, Producer, ProducerContext, ThreadedProducer};
use rdkafka::types::RDKafkaErrorCode;
use rdkafka::{ClientContext, Message};

use super::KafkaError;
use crate::config::WorkerConfig;
use crate::connector::Props;

/// One record for the dead letter queue: the failed record's key, value
/// and headers as they were consumed, and the context headers.
#[derive(Debug, Default)]
pub struct DeadLetter<'a> {
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes.
    pub value: Option<&'a [u8]>,
    /// Headers, the record's own then the `__connect.errors.*` ones.
    pub headers: Vec<(&'a str, Option<&'a [u8]>)>,
    /// The record's timestamp (`None`: the producer stamps it).
    pub timestamp: Option<i64>,
}

/// What the producer's delivery callbacks report.
#[derive(Debug, Default)]
struct Deliveries {
    failed: AtomicU64,
    topic: String,
}

struct DlqContext(Arc<Deliveries>, Arc<dyn Fn() + Send + Sync>);

impl ClientContext for DlqContext {}

impl ProducerContext for DlqContext {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Err((e, m)) = result {
            tracing::error!(
                topic = %self.0.topic,
                error = %e,
                partition = m.partition(),
                "Could not produce message to dead letter queue"
            );
            self.0.failed.fetch_add(1, Ordering::Relaxed);
            (self.1)();
        }
    }
}

/// The producer of one task's dead letter queue.
pub struct DeadLetterProducer {
    producer: ThreadedProducer<DlqContext>,
    deliveries: Arc<Deliveries>,
    /// Failures already reported by [`Self::flush`].
    reported: AtomicU64,
}

impl std::fmt::Debug for DeadLetterProducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeadLetterProducer")
            .field("topic", &self.deliveries.topic)
            .finish()
    }
}

/// The dead letter queue producer's settings, as Kafka Connect's: `acks=all`,
/// no idempotence, one request in flight, then the worker's `producer.*`
/// and the connector's `producer.override.*`.
pub fn producer_config(worker: &WorkerConfig, overrides: &Props, client_id: &str) -> ClientConfig {
    let mut cfg = ClientConfig::new();
    cfg.set("bootstrap.servers", &worker.bootstrap_servers)
        .set("acks", "all")
        .set("enable.idempotence", "false")
        .set("max.in.flight.requests.per.connection", "1")
        .set("partitioner", "murmur2_random")
        .set("client.id", client_id);
    for (k, v) in worker.producer.iter().chain(overrides.iter()) {
        cfg.set(k, v);
    }
    cfg
}

impl DeadLetterProducer {
    /// Make sure `topic` exists (created with one partition and
    /// `replication_factor`, -1 for the broker's default) and start its
    /// producer. `on_failure` runs for every record Kafka refused.
    /// Blocking.
    pub fn start(
        worker: &WorkerConfig,
        admin_overrides: &Props,
        producer: ClientConfig,
        topic: &str,
        replication_factor: i16,
        on_failure: Arc<dyn Fn() + Send + Sync>,
    ) -> Result<Self, KafkaError> {
        ensure_topic(worker, admin_overrides, topic, replication_factor)?;
        let deliveries = Arc::new(Deliveries {
            failed: AtomicU64::new(0),
            topic: topic.to_owned(),
        });
        let producer = producer
            .create_with_context(DlqContext(deliveries.clone(), on_failure))
            .map_err(|e| KafkaError::new(format!("creating the producer of dead letter queue {topic}"), e))?;
        Ok(Self {
            producer,
            deliveries,
            reported: AtomicU64::new(0),
        })
    }

    /// Queue `record` for the topic. Blocks while the producer's queue is
    /// full.
    pub fn send(&self, record: &DeadLetter<'_>) -> Result<(), KafkaError> {
        let mut headers = OwnedHeaders::new_with_capacity(record.headers.len());
        for (key, value) in &record.headers {
            headers = headers.insert(Header { key, value: *value });
        }
        let mut r: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(&self.deliveries.topic).headers(headers);
        if let Some(k) = record.key {
            r = r.key(k);
        }
        if let Some(v) = record.value {
            r = r.payload(v);
        }
        if let Some(ts) = record.timestamp.filter(|t| *t >= 0) {
            r = r.timestamp(ts);
        }
        loop {
            match self.producer.send(r) {
                Ok(()) => return Ok(()),
                Err((rdkafka::error::KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    r = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err((e, _)) => {
                    return Err(KafkaError::new(
                        format!("writing to dead letter queue {}", self.deliveries.topic),
                        e,
                    ));
                }
            }
        }
    }

    /// Wait (at most `timeout`) until every record sent is acknowledged;
    /// an error if one was refused since the last flush, or if some are
    /// still on their way.
    pub fn flush(&self, timeout: Duration) -> Result<(), String> {
        let topic = &self.deliveries.topic;
        if let Err(e) = self.producer.flush(timeout) {
            return Err(format!(
                "records for dead letter queue {topic} were not acknowledged within {} ms: {e}",
                timeout.as_millis()
            ));
        }
        let failed = self.deliveries.failed.load(Ordering::Relaxed);
        let reported = self.reported.swap(failed, Ordering::Relaxed);
        if failed > reported {
            let n = failed - reported;
            return Err(format!("Kafka refused {n} records for dead letter queue {topic}"));
        }
        Ok(())
    }
}

/// Letters still on their way when the task ends get this long (librdkafka
/// purges what is queued when its producer is dropped).
const CLOSE_TIMEOUT: Duration = Duration::from_secs(30);

impl Drop for DeadLetterProducer {
    /// As Kafka Connect's `close()`: what was sent is delivered first (a
    /// task failing with `errors.tolerance=none` still queues its record).
    fn drop(&mut self) {
        if let Err(e) = self.flush(CLOSE_TIMEOUT) {
            tracing::error!(error = %e, "closing the dead letter queue");
        }
    }
}

/// Create `topic` with one partition if it does not exist. Blocking.
fn ensure_topic(worker: &WorkerConfig, overrides: &Props, topic: &str, replication: i16) -> Result<(), KafkaError> {
    let spec = super::create_topic::TopicSpec {
        name: topic,
        partitions: 1,
        replication_factor: replication,
        configs: Vec::new(),
    };
    if super::create_topic::create_topic(worker, overrides, &spec)? {
        tracing::info!(%topic, "created the dead letter queue topic");
    }
    Ok(())
}
