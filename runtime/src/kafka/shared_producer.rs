//! Source tasks' producers: one producer per worker and producer config,
//! shared by every at-least-once and at-most-once source task whose
//! effective producer settings (the worker's `producer.*` plus the
//! connector's `producer.override.*`) are the same. Exactly-once tasks keep
//! a producer each (their `transactional.id` is the task's); so do all
//! source tasks of a worker with `producer.shared=false`.
//!
//! A librdkafka producer is thread-safe and batches across topics; one per
//! task costs ≈ 7 threads, 2 broker connections and an idempotent producer
//! id each, which is what limited how many tasks one worker could carry.
//!
//! Delivery reports are routed back to the task that produced the record:
//! each record's delivery opaque is an `Arc<Delivery>` (one per batch or
//! offsets write, cloned per record: one atomic increment, no lock) naming
//! the task's [`AckSink`] and a tag the task interprets (which batch slot,
//! what kind of record). A failed delivery therefore fails only the task
//! whose record it was, and a stopping task waits for its own records
//! only. The registry holds the producers weakly: a shared producer is
//! dropped (closed) when the last task using it ends.
//!
//! The registry also keeps the worker's metadata client, with which source
//! tasks look up the topics their records name (one per worker instead of
//! one per task, held the same way).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use rdkafka::ClientContext;
use rdkafka::consumer::BaseConsumer;
use rdkafka::producer::{DeliveryResult, Producer, ProducerContext, ThreadedProducer};

use super::{KafkaError, client_config, producer_config};
use crate::config::{Props, WorkerConfig};

/// Where a task's delivery reports go; implemented by the source task's
/// acknowledgement state. Called on the producer's polling thread: it must
/// not block.
pub(crate) trait AckSink: Send + Sync {
    /// The delivery report of one record sent with `tag`.
    fn delivered(&self, result: &DeliveryResult<'_>, tag: usize);
}

/// A record's delivery opaque: whose record it is and the owner's tag.
pub(crate) struct Delivery {
    sink: Arc<dyn AckSink>,
    tag: usize,
}

impl Delivery {
    /// The opaque for records `sink` sends with `tag` (clone it per record).
    pub(crate) fn new(sink: Arc<dyn AckSink>, tag: usize) -> Arc<Self> {
        Arc::new(Self { sink, tag })
    }
}

/// A source producer's context: it only routes each delivery report to
/// the task that sent the record.
#[derive(Debug, Default)]
pub(crate) struct Router;

impl ClientContext for Router {}

impl ProducerContext for Router {
    type DeliveryOpaque = Arc<Delivery>;

    fn delivery(&self, result: &DeliveryResult<'_>, opaque: Arc<Delivery>) {
        opaque.sink.delivered(result, opaque.tag);
    }
}

/// The producer type of source tasks, shared or not.
pub(crate) type SourceProducer = ThreadedProducer<Router>;

/// The worker's shared source producers, by effective producer config.
#[derive(Debug)]
pub(crate) struct ProducerRegistry {
    /// `producer.shared` (default true).
    enabled: bool,
    /// Weak: a producer lives as long as a task (or a hot-swap hand-over)
    /// holds it.
    producers: Mutex<HashMap<String, Weak<SourceProducer>>>,
    /// The topic-metadata client of source tasks' record checks.
    metadata: Mutex<Weak<BaseConsumer>>,
}

impl ProducerRegistry {
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            producers: Mutex::new(HashMap::new()),
            metadata: Mutex::new(Weak::new()),
        }
    }

    /// Whether source tasks share producers (`producer.shared`).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// The shared producer for `overrides` (a connector's
    /// `producer.override.*`): the live one with the same effective config,
    /// or a new one. A producer that hit a fatal error (an idempotent
    /// producer can) is not handed out again: the next task gets a new one.
    pub(crate) fn acquire(&self, worker: &WorkerConfig, overrides: &Props) -> Result<Arc<SourceProducer>, KafkaError> {
        let cfg = producer_config(worker, overrides);
        let key = config_key(&cfg);
        let mut map = match self.producers.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        if let Some(p) = map.get(&key).and_then(Weak::upgrade) {
            match p.client().fatal_error() {
                None => return Ok(p),
                Some((code, reason)) => tracing::warn!(
                    ?code,
                    %reason,
                    "the shared producer hit a fatal error; tasks starting from now on get a new one"
                ),
            }
        }
        // Forget producers nobody holds any more.
        map.retain(|_, w| w.strong_count() > 0);
        let mut cfg = cfg;
        if !overrides.contains_key("client.id") && !worker.producer.contains_key("client.id") {
            cfg.set("client.id", shared_client_id(map.len()));
        }
        let producer: SourceProducer = cfg
            .create_with_context(Router)
            .map_err(|e| KafkaError::new("creating the worker's shared source producer", e))?;
        let producer = Arc::new(producer);
        tracing::info!(
            client_id = cfg.get("client.id").unwrap_or_default(),
            "created a shared source producer"
        );
        map.insert(key, Arc::downgrade(&producer));
        Ok(producer)
    }

    /// The worker's client for topic metadata (a consumer that never
    /// creates topics: `allow.auto.create.topics=false`), shared by every
    /// source task that looks up a topic its records name.
    pub(crate) fn metadata_client(&self, worker: &WorkerConfig) -> Result<Arc<BaseConsumer>, KafkaError> {
        let mut slot = match self.metadata.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        if let Some(c) = slot.upgrade() {
            return Ok(c);
        }
        let mut cfg = client_config(worker, &worker.consumer, &Props::new());
        cfg.set("allow.auto.create.topics", "false");
        if !worker.consumer.contains_key("client.id") {
            cfg.set("client.id", format!("copycat-worker-{}-metadata", std::process::id()));
        }
        let client: BaseConsumer = cfg
            .create()
            .map_err(|e| KafkaError::new("creating the worker's topic-metadata client", e))?;
        let client = Arc::new(client);
        *slot = Arc::downgrade(&client);
        Ok(client)
    }

    /// Shared producers alive now.
    pub(crate) fn live(&self) -> usize {
        match self.producers.lock() {
            Ok(m) => m.values().filter(|w| w.strong_count() > 0).count(),
            Err(p) => p.into_inner().values().filter(|w| w.strong_count() > 0).count(),
        }
    }
}

/// The registry key: every setting of the effective config, in order.
fn config_key(cfg: &rdkafka::ClientConfig) -> String {
    let mut key = String::new();
    for (k, v) in cfg.config_map() {
        key.push_str(k);
        key.push('\u{1}');
        key.push_str(v);
        key.push('\u{2}');
    }
    key
}

/// `client.id` of a shared producer: it names the worker (its process),
/// and which of the worker's shared producers it is when there are several.
fn shared_client_id(others: usize) -> String {
    let pid = std::process::id();
    match others {
        0 => format!("copycat-worker-{pid}"),
        n => format!("copycat-worker-{pid}-{n}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn worker() -> WorkerConfig {
        WorkerConfig::for_bootstrap("127.0.0.1:1").unwrap()
    }

    #[test]
    fn same_config_shares_other_config_does_not_and_last_user_drops_it() {
        let reg = ProducerRegistry::new(true);
        let w = worker();
        let a = reg.acquire(&w, &Props::new()).unwrap();
        let b = reg.acquire(&w, &Props::new()).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "same effective config: one producer");
        let mut other = Props::new();
        other.insert("linger.ms".into(), "50".into());
        let c = reg.acquire(&w, &other).unwrap();
        assert!(!Arc::ptr_eq(&a, &c), "other settings: another producer");
        assert_eq!(reg.live(), 2);
        drop(c);
        assert_eq!(reg.live(), 1);
        drop((a, b));
        assert_eq!(reg.live(), 0, "dropped with its last user");
        let d = reg.acquire(&w, &Props::new()).unwrap();
        assert_eq!(reg.live(), 1);
        drop(d);
    }

    #[test]
    fn client_id_names_the_worker() {
        assert!(shared_client_id(0).starts_with("copycat-worker-"));
        assert!(shared_client_id(2).ends_with("-2"));
    }
}
