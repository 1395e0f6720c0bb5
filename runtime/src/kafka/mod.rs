//! Kafka I/O: client configs, the source-offset store, and the admin calls
//! the worker needs. All of it is rdkafka (librdkafka).

pub mod batch_consume;
pub mod batch_produce;
pub mod log;
pub mod offsets;
pub(crate) mod shared_producer;

use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::producer::{Producer, ProducerContext};

use crate::config::{Props, WorkerConfig};

/// Wait until Kafka has acknowledged everything `producer` has in flight
/// (another thread serves its delivery reports), or until `deadline`.
///
/// Before `flush` or `commit_transaction`: rust-rdkafka 0.39's `flush`
/// polls 100 ms at a time whenever anything is in flight (its `poll` runs
/// to its deadline), so calling it with a record in flight costs at least
/// 100 ms; after this wait it finds nothing to wait for. The wait is
/// librdkafka's own flush ([`batch_produce::flush`]): it sends what waits
/// out `linger.ms` at once, and wakes when the last report is served.
pub(crate) fn wait_acknowledged<C: ProducerContext>(producer: &impl Producer<C>, deadline: Instant) {
    batch_produce::flush(producer.client(), deadline.saturating_duration_since(Instant::now()));
}

/// A Kafka error with what Copycat was doing.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{what}: {source}")]
pub struct KafkaError {
    /// What failed, e.g. "creating the producer for task x-0".
    pub what: String,
    /// The client's error.
    #[source]
    pub source: rdkafka::error::KafkaError,
}

impl KafkaError {
    pub(crate) fn new(what: impl Into<String>, source: rdkafka::error::KafkaError) -> Self {
        Self {
            what: what.into(),
            source,
        }
    }
}

/// A client config: `bootstrap.servers`, then the worker's `<kind>.*`
/// settings, then the connector's overrides.
pub fn client_config(worker: &WorkerConfig, base: &Props, overrides: &Props) -> ClientConfig {
    let mut cfg = ClientConfig::new();
    cfg.set("bootstrap.servers", &worker.bootstrap_servers);
    for (k, v) in base.iter().chain(overrides.iter()) {
        // The Java consumer's batch size is the host's (records per `put`);
        // librdkafka has no such property and would refuse the config.
        if k != MAX_POLL_RECORDS {
            cfg.set(k, v);
        }
    }
    cfg
}

/// The settings among `settings` that librdkafka refuses (an unknown
/// property, or a value it does not take, such as a compression codec it was
/// built without), each as (`<prefix><key>`, librdkafka's reason). Checked
/// when a config is read, so the key is named at once instead of a task
/// failing to create its client after its restarts.
pub fn client_setting_problems(prefix: &str, settings: &Props) -> Vec<(String, String)> {
    settings
        .iter()
        .filter(|(k, _)| k.as_str() != MAX_POLL_RECORDS)
        .filter_map(|(k, v)| {
            let mut cfg = ClientConfig::new();
            cfg.set(k, v);
            let e = cfg.create_native_config().err()?;
            let msg = match e {
                rdkafka::error::KafkaError::ClientConfig(_, msg, _, _) => msg,
                other => other.to_string(),
            };
            let reason = if msg.starts_with("No such configuration property") {
                format!("not a librdkafka setting (Copycat's Kafka clients are librdkafka, not Java's): {msg}")
            } else {
                format!("librdkafka does not take '{v}': {msg}")
            };
            Some((format!("{prefix}{k}"), reason))
        })
        .collect()
}

/// `max.poll.records` (`consumer.max.poll.records`,
/// `consumer.override.max.poll.records`): how many records a sink task is
/// given per `put`, as with Kafka Connect's Java consumer.
pub const MAX_POLL_RECORDS: &str = "max.poll.records";

/// A sink task's consumer settings: the worker's `consumer.*` and the
/// connector's `consumer.override.*` over Copycat's defaults, in consumer
/// group `group`. Offsets are committed by the task after `flush` (never
/// automatically), and only committed transactions are read. The benchmark's
/// raw-consumer ceiling uses the same settings.
pub fn sink_consumer_config(worker: &WorkerConfig, overrides: &Props, group: &str, client_id: &str) -> ClientConfig {
    let mut cfg = client_config(worker, &worker.consumer, overrides);
    cfg.set("group.id", group)
        .set("client.id", client_id)
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("isolation.level", "read_committed");
    // librdkafka's fetch.queue.backoff.ms (1000 ms) idles a sink that has
    // drained its prefetch queue: with 10 ms a file sink went from 120k to
    // 470k records/s (docs/BENCHMARKS.md, against Kafka Connect).
    for (k, v) in [
        ("auto.offset.reset", "earliest"),
        ("partition.assignment.strategy", "range,roundrobin"),
        ("fetch.queue.backoff.ms", "10"),
    ] {
        if !worker.consumer.contains_key(k) && !overrides.contains_key(k) {
            cfg.set(k, v);
        }
    }
    cfg
}

/// Producer settings for source tasks: idempotent (so retries neither
/// duplicate nor reorder), acks from all in-sync replicas.
pub fn producer_config(worker: &WorkerConfig, overrides: &Props) -> ClientConfig {
    let mut cfg = ClientConfig::new();
    cfg.set("bootstrap.servers", &worker.bootstrap_servers);
    cfg.set("enable.idempotence", "true");
    cfg.set("acks", "all");
    cfg.set("linger.ms", "5");
    // Java's partitioner, so a key lands on the same partition as with Kafka
    // Connect or any Java producer.
    cfg.set("partitioner", "murmur2_random");
    cfg.set("client.id", "copycat-producer");
    for (k, v) in worker.producer.iter().chain(overrides.iter()) {
        cfg.set(k, v);
    }
    cfg
}

/// The Kafka cluster's id (`GET /`'s `kafka_cluster_id`), from an admin
/// client; `None` if the cluster cannot be reached in 10 s. Blocking.
pub fn cluster_id(worker: &WorkerConfig) -> Option<String> {
    let admin: AdminClient<DefaultClientContext> = client_config(worker, &worker.admin, &Props::new()).create().ok()?;
    admin.inner().fetch_cluster_id(Duration::from_secs(10))
}

/// Create `topic` (compacted) if it does not exist yet.
pub async fn ensure_compacted_topic(
    worker: &WorkerConfig,
    topic: &str,
    partitions: i32,
    replication: i32,
) -> Result<(), KafkaError> {
    let admin: AdminClient<DefaultClientContext> = client_config(worker, &worker.admin, &Props::new())
        .create()
        .map_err(|e| KafkaError::new("creating the admin client", e))?;
    // Fail fast, and say so, when the cluster cannot be reached at all.
    admin
        .inner()
        .fetch_metadata(None, Duration::from_secs(10))
        .map_err(|e| {
            KafkaError::new(
                format!(
                    "cannot reach Kafka at bootstrap.servers={} within 10 s",
                    worker.bootstrap_servers
                ),
                e,
            )
        })?;
    let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(replication)).set("cleanup.policy", "compact");
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    let results = admin
        .create_topics([&new], &opts)
        .await
        .map_err(|e| KafkaError::new(format!("creating topic {topic}"), e))?;
    for r in results {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((t, code)) => {
                return Err(KafkaError::new(
                    format!("creating topic {t}"),
                    rdkafka::error::KafkaError::AdminOp(code),
                ));
            }
        }
    }
    // A new topic's partitions need a leader before anyone can read them,
    // and the leader must answer for them: a broker reports a new
    // partition's leader before it serves its end offsets, and a reader
    // that asks too early waits out librdkafka's retry back-off (a first
    // task start right after a fresh worker's took 0.7 s reading its
    // offsets in the benchmark, instead of 0.1 s).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ready = admin
            .inner()
            .fetch_metadata(Some(topic), Duration::from_secs(5))
            .map(|md| {
                md.topics().iter().all(|t| {
                    t.error().is_none()
                        && !t.partitions().is_empty()
                        && t.partitions().iter().all(|p| {
                            p.error().is_none()
                                && p.leader() >= 0
                                && admin
                                    .inner()
                                    .fetch_watermarks(topic, p.id(), Duration::from_secs(5))
                                    .is_ok()
                        })
                })
            });
        match ready {
            Ok(true) => return Ok(()),
            Err(e) if Instant::now() >= deadline => {
                return Err(KafkaError::new(format!("waiting for the partitions of {topic}"), e));
            }
            _ if Instant::now() >= deadline => {
                return Err(KafkaError::new(
                    format!("waiting for the partitions of {topic} to get a leader (30 s)"),
                    rdkafka::error::KafkaError::AdminOp(RDKafkaErrorCode::LeaderNotAvailable),
                ));
            }
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}
