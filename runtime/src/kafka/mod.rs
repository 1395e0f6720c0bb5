//! Kafka I/O: client configs, the source-offset store, and the admin calls
//! the worker needs. All of it is rdkafka (librdkafka).

pub mod batch_consume;
pub mod batch_produce;
pub mod create_topic;
pub mod dead_letter_queue;
pub mod log;
pub mod offset_store;
pub(crate) mod shared_producer;
mod tls_check;

#[cfg(test)]
mod client_configs_golden;

use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::producer::{Producer, ProducerContext};
use rdkafka::{ClientConfig, Offset};

use crate::config::{MAX_POLL_RECORDS, Props, WorkerConfig};

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

/// Whether `e` is the broker refusing this client (ACLs, authentication):
/// permanent until an operator changes the grants, so retrying is useless.
pub fn denied(e: &rdkafka::error::KafkaError) -> bool {
    use RDKafkaErrorCode as C;
    matches!(
        e.rdkafka_error_code(),
        Some(
            C::TopicAuthorizationFailed
                | C::GroupAuthorizationFailed
                | C::ClusterAuthorizationFailed
                | C::TransactionalIdAuthorizationFailed
                | C::DelegationTokenAuthorizationFailed
                | C::SaslAuthenticationFailed
                | C::Authentication
        )
    )
}

/// A connector task's client config: `bootstrap.servers`, then the
/// worker's `<kind>.*` settings, then the connector's overrides. The
/// worker's top-level security settings are not inherited (as by Kafka
/// Connect's task producers and consumers): a secure cluster needs them
/// under `producer.` and `consumer.` too (admin clients:
/// [`connector_admin_config`]).
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

/// A connector's admin client (its offsets operations): `bootstrap.servers`,
/// the worker's top-level security settings with its `admin.*` over them
/// ([`WorkerConfig::connector_admin`]; Kafka Connect's task admin clients
/// inherit the top level), then the connector's `admin.override.*`.
pub fn connector_admin_config(worker: &WorkerConfig, overrides: &Props) -> ClientConfig {
    client_config(worker, &worker.connector_admin(), overrides)
}

/// A client of the worker's own (the offsets, config and status topics,
/// group membership, admin and metadata): `bootstrap.servers`, the worker's
/// `<kind>.*` settings, then its top-level `security.protocol`, `ssl.*` and
/// `sasl.*` settings (translated to librdkafka's names).
pub fn worker_client_config(worker: &WorkerConfig, base: &Props) -> ClientConfig {
    let mut cfg = client_config(worker, base, &Props::new());
    for (k, v) in &worker.security {
        cfg.set(k, v);
    }
    cfg
}

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
    // A killed worker's sink tasks restart elsewhere in ~6 s; with
    // librdkafka's 45 s session timeout the group kept the dead member (and
    // its partitions, unconsumed) that long. 6 s is the broker's least
    // (group.min.session.timeout.ms); heartbeats run on librdkafka's own
    // thread, so a slow `put` does not miss them.
    for (k, v) in [
        ("auto.offset.reset", "earliest"),
        ("partition.assignment.strategy", "range,roundrobin"),
        ("fetch.queue.backoff.ms", "10"),
    ] {
        if !worker.consumer.contains_key(k) && !overrides.contains_key(k) {
            cfg.set(k, v);
        }
    }
    // As a pair: a heartbeat set alone may not fit under 6 s.
    let timing = ["session.timeout.ms", "heartbeat.interval.ms"];
    if !timing
        .iter()
        .any(|k| worker.consumer.contains_key(*k) || overrides.contains_key(*k))
    {
        cfg.set("session.timeout.ms", "6000")
            .set("heartbeat.interval.ms", "1500");
    }
    cfg
}

/// Where a consumer with `cfg` starts a partition its group has no
/// committed offset for, as a start offset to assign: its
/// `auto.offset.reset` (librdkafka's names and aliases; librdkafka's
/// default, the end, when unset). `Offset::Invalid` for `error`, which only
/// librdkafka's own lookup applies.
pub fn offset_reset(cfg: &ClientConfig) -> Offset {
    match cfg
        .get("auto.offset.reset")
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("smallest" | "earliest" | "beginning") => Offset::Beginning,
        Some("largest" | "latest" | "end") | None => Offset::End,
        Some(_) => Offset::Invalid,
    }
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

/// What a topic's own config says about the records the broker accepts:
/// a record outside these fails its whole partition batch, with every other
/// record in it (a shared producer's batch holds several tasks' records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicRules {
    /// `message.timestamp.type=CreateTime`: the broker checks timestamps.
    pub create_time: bool,
    /// `message.timestamp.before.max.ms`.
    pub before_max_ms: i64,
    /// `message.timestamp.after.max.ms` (Kafka 4's default: one hour).
    pub after_max_ms: i64,
    /// `max.message.bytes`.
    pub max_message_bytes: i64,
}

impl TopicRules {
    /// The broker's defaults (Kafka 4.4).
    pub const DEFAULT: Self = Self {
        create_time: true,
        before_max_ms: i64::MAX,
        after_max_ms: 3_600_000,
        max_message_bytes: 1_048_588,
    };

    /// Why the broker would refuse a record with `timestamp` (ms) at `now`
    /// (ms), if it would. The window is narrowed by a tenth (at most a
    /// minute) for the difference between this host's clock and the
    /// broker's.
    pub fn timestamp_problem(&self, timestamp: i64, now: i64) -> Option<String> {
        if !self.create_time {
            return None;
        }
        let margin = |w: i64| (w / 10).min(60_000);
        let after = self.after_max_ms.saturating_sub(margin(self.after_max_ms));
        let before = self.before_max_ms.saturating_sub(margin(self.before_max_ms));
        if timestamp.saturating_sub(now) > after {
            return Some(format!(
                "is {} ms ahead of now; the topic accepts at most {} ms (message.timestamp.after.max.ms)",
                timestamp.saturating_sub(now),
                self.after_max_ms
            ));
        }
        if now.saturating_sub(timestamp) > before {
            return Some(format!(
                "is {} ms behind now; the topic accepts at most {} ms (message.timestamp.before.max.ms)",
                now.saturating_sub(timestamp),
                self.before_max_ms
            ));
        }
        None
    }
}

/// An admin client for topic configs, used from task threads (blocking).
pub struct Admin {
    client: AdminClient<DefaultClientContext>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Admin")
    }
}

impl Admin {
    /// An admin client with the worker's `admin.*` settings.
    pub fn new(worker: &WorkerConfig) -> Result<Self, KafkaError> {
        let client = worker_client_config(worker, &worker.admin)
            .create()
            .map_err(|e| KafkaError::new("creating the admin client", e))?;
        Ok(Self { client })
    }

    /// `topic`'s [`TopicRules`]; blocking, at most `timeout`.
    pub fn topic_rules(&self, topic: &str, timeout: Duration) -> Result<TopicRules, KafkaError> {
        use rdkafka::admin::{ConfigSource, ResourceSpecifier};
        let what = || format!("reading the config of topic '{topic}'");
        let opts = AdminOptions::new().request_timeout(Some(timeout));
        let resources = [ResourceSpecifier::Topic(topic)];
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(|e| KafkaError::new(what(), rdkafka::error::KafkaError::AdminOpCreation(e.to_string())))?;
        let results = runtime
            .block_on(self.client.describe_configs(&resources, &opts))
            .map_err(|e| KafkaError::new(what(), e))?;
        let mut rules = TopicRules::DEFAULT;
        for result in results {
            let resource = result.map_err(|code| KafkaError::new(what(), rdkafka::error::KafkaError::AdminOp(code)))?;
            for entry in &resource.entries {
                let Some(value) = entry.value.as_deref() else { continue };
                if matches!(entry.source, ConfigSource::Unknown) {
                    continue;
                }
                match entry.name.as_str() {
                    "message.timestamp.type" => rules.create_time = value == "CreateTime",
                    "message.timestamp.before.max.ms" => {
                        rules.before_max_ms = value.parse().unwrap_or(rules.before_max_ms);
                    }
                    "message.timestamp.after.max.ms" => {
                        rules.after_max_ms = value.parse().unwrap_or(rules.after_max_ms);
                    }
                    "max.message.bytes" => rules.max_message_bytes = value.parse().unwrap_or(rules.max_message_bytes),
                    _ => {}
                }
            }
        }
        Ok(rules)
    }
}

/// The Kafka cluster's id (`GET /`'s `kafka_cluster_id`), from an admin
/// client; `None` if the cluster cannot be reached in 10 s. Blocking.
pub fn cluster_id(worker: &WorkerConfig) -> Option<String> {
    let admin: AdminClient<DefaultClientContext> = worker_client_config(worker, &worker.admin).create().ok()?;
    admin.inner().fetch_cluster_id(Duration::from_secs(10))
}

/// A client context that keeps the last error librdkafka reported (a
/// failed SASL handshake, a certificate that does not verify), which a
/// failed request alone reports only as a transport failure.
#[derive(Default)]
pub struct LastError(std::sync::Mutex<Option<String>>);

impl LastError {
    /// The last error's reason, if any.
    pub fn last(&self) -> Option<String> {
        crate::util::lock(&self.0).clone()
    }
}

impl ProducerContext for LastError {
    type DeliveryOpaque = ();
    fn delivery(&self, _: &rdkafka::message::DeliveryResult<'_>, _: Self::DeliveryOpaque) {}
}

impl rdkafka::ClientContext for LastError {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        // A failed connection (SASL, TLS, refused) is logged as `FAIL`.
        use rdkafka::config::RDKafkaLogLevel as L;
        if fac == "FAIL" || matches!(level, L::Emerg | L::Alert | L::Critical | L::Error) {
            *crate::util::lock(&self.0) = Some(log_message.to_owned());
        }
        DefaultClientContext.log(level, fac, log_message);
    }

    fn error(&self, error: rdkafka::error::KafkaError, reason: &str) {
        *crate::util::lock(&self.0) = Some(reason.to_owned());
        DefaultClientContext.error(error, reason);
    }
}

/// Fail fast, and say so, when the cluster cannot be reached at all: with
/// the broker's reason (authentication, TLS) when librdkafka logged one.
/// An authentication or TLS failure ends the wait at once (retrying does
/// not change a password); an unanswered address is given 10 s.
fn reachable(worker: &WorkerConfig) -> Result<(), KafkaError> {
    const PATIENCE: Duration = Duration::from_secs(10);
    let cfg = worker_client_config(worker, &worker.admin);
    let probe: rdkafka::producer::BaseProducer<LastError> = cfg
        .clone()
        // librdkafka logs nothing below the `log` crate's level unless told.
        .set_log_level(rdkafka::config::RDKafkaLogLevel::Warning)
        .create_with_context(LastError::default())
        .map_err(|e| KafkaError::new("creating a client", e))?;
    let deadline = Instant::now() + PATIENCE;
    let err = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let err = match probe.client().fetch_metadata(None, left.min(Duration::from_secs(1))) {
            Ok(_) => return Ok(()),
            Err(e) => e,
        };
        // The logs wait on the client's queue until polled.
        probe.poll(Duration::ZERO);
        let refused = probe.context().last().is_some_and(|r| {
            [
                "SSL handshake failed",
                "SASL authentication error",
                "Authentication failed",
                // The identity provider refused the client (RFC 6749's
                // error codes); one that does not answer is waited for.
                "\"invalid_client\"",
                "\"unauthorized_client\"",
                "\"invalid_grant\"",
                "\"invalid_scope\"",
            ]
            .iter()
            .any(|m| r.contains(m))
        });
        if refused || left.is_zero() {
            break err;
        }
    };
    let last = probe.context().last();
    // librdkafka says only "certificate verify failed": find out why.
    let why = last
        .as_deref()
        .filter(|r| r.contains("certificate verify failed"))
        .and_then(|_| tls_check::certificate_problem(&cfg))
        .map(|w| format!(": {w}"))
        .unwrap_or_default();
    let cause = last.map(|r| format!(" ({r})")).unwrap_or_default();
    Err(KafkaError::new(
        format!(
            "cannot reach Kafka at bootstrap.servers={}{why}{cause}",
            worker.bootstrap_servers
        ),
        err,
    ))
}

/// Create `topic` (compacted) if it does not exist yet.
pub async fn ensure_compacted_topic(
    worker: &WorkerConfig,
    topic: &str,
    partitions: i32,
    replication: i32,
) -> Result<(), KafkaError> {
    reachable(worker)?;
    let admin: AdminClient<DefaultClientContext> = worker_client_config(worker, &worker.admin)
        .create()
        .map_err(|e| KafkaError::new("creating the admin client", e))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_without_a_committed_offset_starts_where_auto_offset_reset_says() {
        let reset = |v: Option<&str>| {
            let mut cfg = ClientConfig::new();
            if let Some(v) = v {
                cfg.set("auto.offset.reset", v);
            }
            offset_reset(&cfg)
        };
        for v in ["earliest", "smallest", "beginning", " Earliest "] {
            assert_eq!(reset(Some(v)), Offset::Beginning, "{v}");
        }
        for v in ["latest", "largest", "end"] {
            assert_eq!(reset(Some(v)), Offset::End, "{v}");
        }
        // librdkafka's default.
        assert_eq!(reset(None), Offset::End);
        // Only librdkafka's own lookup fails the partition.
        assert_eq!(reset(Some("error")), Offset::Invalid);
        // What a sink task gets unless overridden.
        let props: Props = [("bootstrap.servers".to_owned(), "b:9092".to_owned())]
            .into_iter()
            .collect();
        let worker = WorkerConfig::from_props(props).unwrap();
        let cfg = sink_consumer_config(&worker, &Props::new(), "g", "c");
        assert_eq!(offset_reset(&cfg), Offset::Beginning);
    }

    #[test]
    fn timestamps_outside_the_topic_s_window_are_named() {
        let now = 1_700_000_000_000;
        let rules = TopicRules::DEFAULT;
        assert_eq!(rules.timestamp_problem(now, now), None);
        assert_eq!(rules.timestamp_problem(0, now), None, "no lower bound by default");
        assert_eq!(rules.timestamp_problem(now + 3_000_000, now), None);
        let why = rules.timestamp_problem(now + 7_200_000, now).unwrap_or_default();
        assert!(why.contains("message.timestamp.after.max.ms"), "{why}");
        // Within the broker's hour but inside the clock margin: refused too.
        assert!(rules.timestamp_problem(now + 3_590_000, now).is_some());
        let strict = TopicRules {
            before_max_ms: 60_000,
            ..rules
        };
        let why = strict.timestamp_problem(now - 120_000, now).unwrap_or_default();
        assert!(why.contains("message.timestamp.before.max.ms"), "{why}");
        let log_append = TopicRules {
            create_time: false,
            ..strict
        };
        assert_eq!(log_append.timestamp_problem(0, now), None, "LogAppendTime ignores them");
    }
}
