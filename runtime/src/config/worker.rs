//! The worker config (`worker.properties`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::clients::{OVERRIDE_POLICY, OverridePolicy, client_settings};
use super::limits::{LIMIT_KEYS, RestartPolicy, read_limits, read_restart};
use super::reader::{ConfigError, Reader, load_properties};
use super::rest::{REST_KEYS, RestListener, STRICT_PREFIXES, read_rest};
use super::security;
use crate::connector::Props;
use crate::engine::{DEFAULT_MAX_INSTANCES, DEFAULT_STACK_BYTES, EngineConfig};
use crate::host::TaskLimits;

/// Settings of one worker process.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// `config.providers`: what resolves `${provider:path:key}` references
    /// in connector configs (and in this config's own values).
    pub config_providers: super::providers::ConfigProviders,
    /// `bootstrap.servers`.
    pub bootstrap_servers: String,
    /// `plugin.path`: directories searched for `<connector.class>.wasm`.
    pub plugin_path: Vec<PathBuf>,
    /// `topic.tracking.enable`: serve connectors' active topics (default
    /// true).
    pub topic_tracking: bool,
    /// `topic.creation.enable`: source connectors' `topic.creation.*` are
    /// carried out (default true, as in Kafka Connect).
    pub topic_creation: bool,
    /// `topic.tracking.allow.reset`: allow resetting them (default true).
    pub topic_tracking_reset: bool,
    /// `plugin.registry.dir`: where components uploaded through the REST
    /// API are kept, as `<name>/<version>.wasm` (default
    /// `<state.dir>/plugins`).
    pub plugin_registry_dir: PathBuf,
    /// `plugin.upload.max.bytes`: the largest component an upload may carry
    /// (default 64 MiB).
    pub plugin_upload_max_bytes: usize,
    /// `plugin.swap.timeout.ms`: how long the tasks of a connector switched
    /// to another plugin version (or config) may take to start before the
    /// worker rolls it back to the previous one (default 60 s).
    pub plugin_swap_timeout: Duration,
    /// `offset.storage.topic`: compacted topic holding source offsets.
    pub offset_storage_topic: String,
    /// `offset.storage.partitions`.
    pub offset_storage_partitions: i32,
    /// `offset.storage.replication.factor` (-1: the broker's default).
    pub offset_storage_replication_factor: i32,
    /// `offset.flush.interval.ms`: how often source offsets are committed and
    /// sink tasks flushed.
    pub offset_flush_interval: Duration,
    /// `offset.flush.timeout.ms`: how long a commit may wait for Kafka.
    pub offset_flush_timeout: Duration,
    /// `task.shutdown.graceful.timeout.ms`.
    pub task_shutdown_timeout: Duration,
    /// `exactly.once.source.support`: `enabled` makes exactly-once the
    /// default guarantee of source connectors on this worker.
    pub exactly_once_source: bool,
    /// `component.cache.dir` (`none` disables the compiled-code cache).
    pub component_cache_dir: Option<PathBuf>,
    /// Default per-task limits (`task.memory.max.bytes`,
    /// `task.call.timeout.ms`, `task.fuel.per.call`, `task.record.max.bytes`,
    /// `task.batch.max.bytes`); connectors may override each.
    pub limits: TaskLimits,
    /// Default restart policy of failed tasks (`task.restart.*`).
    pub restart: RestartPolicy,
    /// `task.stack.max.bytes`: native stack a guest call may use (worker-wide).
    pub stack_max_bytes: usize,
    /// `worker.instances.max`: component instances alive at once.
    pub instances_max: usize,
    /// `plugin.compile.timeout.ms` and `plugin.compile.memory.max.bytes`:
    /// bounds of compiling a component (in a child process of the `copycat`
    /// binary).
    pub compile: crate::engine::CompileLimits,
    /// Topics no connector's records may be written to: the worker's own
    /// (`offset.storage.topic`, and in distributed mode
    /// `config.storage.topic` and `status.storage.topic`), Kafka's
    /// (`__consumer_offsets`, `__transaction_state`) and those the operator
    /// lists in `worker.protected.topics`.
    pub protected_topics: Vec<String>,
    /// `producer.shared` (default true): at-least-once and at-most-once
    /// source tasks with the same producer settings share one producer per
    /// worker; `false` gives every source task its own. Copycat's key, not
    /// passed to the client.
    pub producer_shared: bool,
    /// `producer.*` client settings (without `producer.shared`).
    pub producer: Props,
    /// `consumer.*` client settings.
    pub consumer: Props,
    /// `admin.*` client settings.
    pub admin: Props,
    /// `connector.client.config.override.policy` (default All).
    pub override_policy: OverridePolicy,
    /// The worker's own clients' security settings (top-level
    /// `security.protocol`, `ssl.*`, `sasl.*`), in librdkafka's names.
    pub security: Props,
    /// `listeners`: where the REST API listens, as `host:port` (from the
    /// first `http://host:port` or `https://host:port` of the list; default
    /// `127.0.0.1:8083`; port 0 picks a free port).
    pub listen_addr: String,
    /// The REST listener in full: address, TLS files (`listeners.https.ssl.*`)
    /// and authentication (`rest.auth.*`).
    pub rest: RestListener,
    /// `state.dir`: where standalone mode persists connector configs and
    /// target states (default `~/.cache/copycat/state/<offset.storage.topic>`).
    pub state_dir: PathBuf,
    /// `key.converter`, `value.converter`, `header.converter` and their
    /// settings: the defaults of every connector.
    pub converters: super::converters::Converters,
    /// Every key as given.
    pub raw: Props,
}

/// Keys Kafka Connect workers accept that Copycat ignores in standalone mode.
const IGNORED: &[&str] = &[
    "offset.storage.file.filename",
    "plugin.discovery",
    "rest.port",
    "rest.host.name",
];

/// Keys this module reads.
const KNOWN: &[&str] = &[
    "topic.creation.enable",
    "bootstrap.servers",
    "plugin.path",
    "plugin.registry.dir",
    "plugin.upload.max.bytes",
    "plugin.swap.timeout.ms",
    "plugin.compile.timeout.ms",
    "plugin.compile.memory.max.bytes",
    "topic.tracking.enable",
    "topic.tracking.allow.reset",
    "offset.storage.topic",
    "offset.storage.partitions",
    "offset.storage.replication.factor",
    "offset.flush.interval.ms",
    "offset.flush.timeout.ms",
    "task.shutdown.graceful.timeout.ms",
    "component.cache.dir",
    "exactly.once.source.support",
    "task.stack.max.bytes",
    "worker.instances.max",
    "worker.protected.topics",
    "state.dir",
    PRODUCER_SHARED,
    OVERRIDE_POLICY,
];

/// `producer.shared`: whether source tasks share a producer (a Copycat key
/// under the `producer.` prefix, kept out of the client's settings).
const PRODUCER_SHARED: &str = "producer.shared";

impl WorkerConfig {
    /// Read and check `path`.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let props = load_properties(path)?;
        Self::from_props(props).map_err(|e| match e {
            ConfigError::Invalid { problems, .. } => ConfigError::Invalid {
                context: format!(" in worker config {}", path.display()),
                problems,
            },
            other => other,
        })
    }

    /// Check a worker config given as key/value pairs.
    pub fn from_props(props: Props) -> Result<Self, ConfigError> {
        // References in the worker's own values are resolved first.
        let mut provider_problems = Vec::new();
        let config_providers = super::providers::ConfigProviders::read(&props, &mut provider_problems);
        let props = match config_providers.resolve(&props) {
            Ok(resolved) => resolved.props,
            Err(problems) => {
                provider_problems.extend(problems);
                props
            }
        };
        let mut r = Reader::new(&props);
        r.problems.extend(provider_problems);
        let cache = match r.str("component.cache.dir") {
            Some("none") => None,
            Some(dir) => Some(PathBuf::from(dir)),
            None => default_cache_dir(),
        };
        let offsets_topic = r.str("offset.storage.topic").unwrap_or("copycat-offsets").to_owned();
        let state_dir = match r.str("state.dir") {
            Some(dir) => PathBuf::from(dir),
            None => default_state_dir(&offsets_topic),
        };
        let rest = read_rest(&mut r);
        for key in props.keys() {
            if STRICT_PREFIXES.iter().any(|p| key.starts_with(p)) && !REST_KEYS.contains(&key.as_str()) {
                r.problems.push((
                    key.clone(),
                    "unknown key (a misspelt security setting is refused, not ignored)".into(),
                ));
            }
        }
        let cfg = Self {
            config_providers,
            bootstrap_servers: r.str("bootstrap.servers").unwrap_or("localhost:9092").to_owned(),
            plugin_path: r.list("plugin.path").into_iter().map(PathBuf::from).collect(),
            plugin_registry_dir: r
                .str("plugin.registry.dir")
                .map_or_else(|| state_dir.join("plugins"), PathBuf::from),
            plugin_upload_max_bytes: r.parse("plugin.upload.max.bytes", 64 << 20),
            plugin_swap_timeout: Duration::from_millis(r.parse("plugin.swap.timeout.ms", 60_000)),
            topic_tracking: r.parse("topic.tracking.enable", true),
            topic_creation: r.parse("topic.creation.enable", true),
            topic_tracking_reset: r.parse("topic.tracking.allow.reset", true),
            offset_storage_topic: offsets_topic.clone(),
            offset_storage_partitions: r.parse("offset.storage.partitions", 25),
            offset_storage_replication_factor: r.parse("offset.storage.replication.factor", -1),
            offset_flush_interval: Duration::from_millis(r.parse("offset.flush.interval.ms", 5_000)),
            offset_flush_timeout: Duration::from_millis(r.parse("offset.flush.timeout.ms", 5_000)),
            task_shutdown_timeout: Duration::from_millis(r.parse("task.shutdown.graceful.timeout.ms", 5_000)),
            exactly_once_source: false,
            component_cache_dir: cache,
            limits: read_limits(&mut r, &TaskLimits::default()),
            restart: read_restart(&mut r, &RestartPolicy::default()),
            stack_max_bytes: r.parse("task.stack.max.bytes", DEFAULT_STACK_BYTES),
            instances_max: r.parse("worker.instances.max", DEFAULT_MAX_INSTANCES),
            compile: {
                let d = crate::engine::CompileLimits::default();
                crate::engine::CompileLimits {
                    timeout: Duration::from_millis(r.parse(
                        "plugin.compile.timeout.ms",
                        u64::try_from(d.timeout.as_millis()).unwrap_or(u64::MAX),
                    )),
                    memory_bytes: r.parse("plugin.compile.memory.max.bytes", d.memory_bytes),
                }
            },
            protected_topics: {
                let mut t = vec![
                    offsets_topic.clone(),
                    "__consumer_offsets".to_owned(),
                    "__transaction_state".to_owned(),
                ];
                for key in ["config.storage.topic", "status.storage.topic"] {
                    t.extend(props.get(key).filter(|v| !v.is_empty()).cloned());
                }
                t.extend(r.list("worker.protected.topics"));
                t.sort();
                t.dedup();
                t
            },
            producer_shared: r.parse(PRODUCER_SHARED, true),
            producer: {
                let mut p = r.prefixed("producer.");
                p.remove("shared");
                client_settings("producer.", &p, &mut r.problems)
            },
            consumer: client_settings("consumer.", &r.prefixed("consumer."), &mut r.problems),
            admin: client_settings("admin.", &r.prefixed("admin."), &mut r.problems),
            override_policy: match r.str(OVERRIDE_POLICY) {
                None => OverridePolicy::All,
                Some(v) => OverridePolicy::parse(v).unwrap_or_else(|| {
                    r.problems.push((
                        OVERRIDE_POLICY.into(),
                        format!("'{v}' is not one of None, Principal, All"),
                    ));
                    OverridePolicy::All
                }),
            },
            security: {
                let own: Props = props
                    .iter()
                    .filter(|(k, _)| security::is_security_key(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                client_settings("", &own, &mut r.problems)
            },
            listen_addr: rest.addr.clone(),
            rest,
            state_dir,
            converters: super::converters::Converters::read(
                &props,
                &super::converters::Converters::default(),
                &mut r.problems,
            ),
            raw: props.clone(),
        };
        let mut cfg = cfg;
        match r.str("exactly.once.source.support").unwrap_or("disabled") {
            "enabled" => cfg.exactly_once_source = true,
            "disabled" | "preparing" => {}
            other => r.problems.push((
                "exactly.once.source.support".into(),
                format!("'{other}' is not one of enabled, preparing, disabled"),
            )),
        }
        if cfg.offset_storage_partitions < 1 {
            r.problems
                .push(("offset.storage.partitions".into(), "must be at least 1".into()));
        }
        if cfg.stack_max_bytes < 64 * 1024 {
            r.problems
                .push(("task.stack.max.bytes".into(), "must be at least 65536 (64 KiB)".into()));
        }
        if cfg.compile.timeout.is_zero() {
            r.problems
                .push(("plugin.compile.timeout.ms".into(), "must be positive".into()));
        }
        if cfg.compile.memory_bytes < 256 << 20 {
            r.problems.push((
                "plugin.compile.memory.max.bytes".into(),
                "must be at least 268435456 (256 MiB)".into(),
            ));
        }
        if cfg.instances_max == 0 {
            r.problems
                .push(("worker.instances.max".into(), "must be positive".into()));
        }
        r.finish(String::new())?;
        for key in props.keys() {
            let known = KNOWN.contains(&key.as_str())
                || DISTRIBUTED_KEYS.contains(&key.as_str())
                || REST_KEYS.contains(&key.as_str())
                || LIMIT_KEYS.contains(&key.as_str())
                || security::is_security_key(key)
                || super::converters::is_converter_key(key)
                || key == "config.providers"
                || key.starts_with("config.providers.")
                || ["producer.", "consumer.", "admin."].iter().any(|p| key.starts_with(p));
            if DISTRIBUTED_IGNORED.contains(&key.as_str()) {
                tracing::info!(
                    key,
                    "worker config key is ignored by Copycat (its workers need no leader)"
                );
            } else if IGNORED.contains(&key.as_str()) {
                tracing::info!(key, "worker config key is ignored by Copycat's standalone mode");
            } else if !known {
                tracing::warn!(key, "unknown worker config key (ignored)");
            }
        }
        Ok(cfg)
    }

    /// `transaction.timeout.ms` of exactly-once source producers: six
    /// offset-flush timeouts, at least 60 s. The coordinator aborts a
    /// transaction left open longer (a crashed task's), so this also bounds
    /// how long a read_committed reader can be held up by one.
    pub fn transaction_timeout(&self) -> Duration {
        (self.offset_flush_timeout * 6).max(Duration::from_secs(60))
    }

    /// The engine settings this config asks for.
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            cache_dir: self.component_cache_dir.clone(),
            max_stack_bytes: self.stack_max_bytes,
            fuel: self.limits.fuel_per_call.is_some(),
            max_instances: self.instances_max,
            interruptible: true,
            compile: self.compile,
        }
    }

    /// The settings of a connector's admin client before its
    /// `admin.override.*`: the top-level `security.protocol`, `ssl.*`,
    /// `sasl.*` with `admin.*` over them. Kafka Connect's task admin clients
    /// inherit the worker's top-level keys (its producers and consumers do
    /// not); of those, Copycat's are the security keys.
    pub fn connector_admin(&self) -> Props {
        let mut settings = self.security.clone();
        settings.extend(self.admin.iter().map(|(k, v)| (k.clone(), v.clone())));
        settings
    }

    /// The keys as given (Kafka Connect's names) behind a task client's
    /// settings: `producer.*` (without `producer.shared`), `consumer.*`, or
    /// for `admin.` those of [`Self::connector_admin`].
    pub(crate) fn raw_client_keys(&self, prefix: &str) -> Props {
        let mut keys: Props = if prefix == "admin." {
            self.raw
                .iter()
                .filter(|(k, _)| security::is_security_key(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        } else {
            Props::new()
        };
        keys.extend(
            self.raw
                .iter()
                .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?.to_owned(), v.clone()))),
        );
        if prefix == "producer." {
            keys.remove("shared");
        }
        keys
    }

    /// A worker config for `bootstrap` with defaults for everything else.
    pub fn for_bootstrap(bootstrap: &str) -> Result<Self, ConfigError> {
        let mut props = Props::new();
        props.insert("bootstrap.servers".into(), bootstrap.into());
        Self::from_props(props)
    }
}

fn default_state_dir(offsets_topic: &str) -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("."))
        .join("copycat")
        .join("state")
        .join(offsets_topic)
}

fn default_cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|d| d.join("copycat").join("components"))
}

/// Keys of distributed mode (read by [`super::DistributedConfig`]), known to
/// the worker config too, so standalone mode does not warn about a shared
/// worker.properties.
pub(crate) const DISTRIBUTED_KEYS: &[&str] = &[
    "group.id",
    "config.storage.topic",
    "config.storage.replication.factor",
    "status.storage.topic",
    "status.storage.partitions",
    "status.storage.replication.factor",
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "rest.advertised.host.name",
    "rest.advertised.port",
    "rest.advertised.listener",
    "worker.sync.interval.ms",
];

/// Kafka Connect distributed-mode keys that mean nothing here: Copycat's
/// assignment is computed by every worker alone (no leader, no
/// incremental-cooperative protocol, no scheduled rebalance delay).
pub(crate) const DISTRIBUTED_IGNORED: &[&str] = &[
    "connect.protocol",
    "scheduled.rebalance.max.delay.ms",
    "rebalance.timeout.ms",
    "worker.sync.timeout.ms",
    "worker.unsync.backoff.ms",
    "config.storage.partitions",
    "inter.worker.key.generation.algorithm",
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Result<WorkerConfig, ConfigError> {
        let mut props: Props = [("bootstrap.servers", "b:9092")]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        props.extend(pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        WorkerConfig::from_props(props)
    }

    #[test]
    fn top_level_security_keys_configure_the_worker_clients_only() {
        let cfg = with(&[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "SCRAM-SHA-512"),
            (
                "sasl.jaas.config",
                r#"org.apache.kafka.common.security.scram.ScramLoginModule required username="w" password="s3cret";"#,
            ),
            ("ssl.truststore.type", "PEM"),
            ("ssl.truststore.location", "/ca.pem"),
            ("producer.security.protocol", "SSL"),
        ])
        .unwrap();
        assert_eq!(
            cfg.security.get("security.protocol").map(String::as_str),
            Some("sasl_ssl")
        );
        assert_eq!(cfg.security.get("sasl.username").map(String::as_str), Some("w"));
        assert_eq!(cfg.security.get("ssl.ca.location").map(String::as_str), Some("/ca.pem"));
        // Task clients inherit nothing: only what `producer.*` says.
        assert_eq!(cfg.producer.get("security.protocol").map(String::as_str), Some("ssl"));
        assert!(!cfg.producer.contains_key("sasl.username"));
        assert!(cfg.consumer.is_empty());
    }

    #[test]
    fn a_misspelt_or_unusable_security_key_is_an_error_naming_it() {
        let err = with(&[
            ("ssl.truststore.locaton", "/ca.pem"),
            ("consumer.ssl.keystore.location", "/k.jks"),
            ("admin.sasl.jaas.config", "nonsense password=\"hunter2\""),
        ])
        .unwrap_err()
        .to_string();
        for key in [
            "ssl.truststore.locaton",
            "consumer.ssl.keystore.location",
            "admin.sasl.jaas.config",
        ] {
            assert!(err.contains(key), "{key} not named: {err}");
        }
        assert!(!err.contains("hunter2"), "{err}");
    }

    #[test]
    fn the_override_policy_is_read_and_checked() {
        assert_eq!(with(&[]).unwrap().override_policy, OverridePolicy::All);
        assert_eq!(
            with(&[(OVERRIDE_POLICY, "None")]).unwrap().override_policy,
            OverridePolicy::None
        );
        let err = with(&[(OVERRIDE_POLICY, "Some")]).unwrap_err().to_string();
        assert!(err.contains(OVERRIDE_POLICY) && err.contains("'Some'"), "{err}");
    }

    #[test]
    fn listeners_and_state_dir() {
        let cfg = WorkerConfig::for_bootstrap("b:9092").unwrap();
        assert_eq!(cfg.listen_addr, "127.0.0.1:8083");
        assert!(
            cfg.state_dir.ends_with("copycat/state/copycat-offsets"),
            "{}",
            cfg.state_dir.display()
        );
        let mut props = Props::new();
        props.insert("listeners".into(), "ftp://x:1".into());
        assert!(
            WorkerConfig::from_props(props)
                .unwrap_err()
                .to_string()
                .contains("listeners")
        );
    }

    #[test]
    fn protected_topics_are_the_internal_ones_and_those_listed() {
        let mut props = Props::new();
        props.insert("offset.storage.topic".into(), "offs".into());
        props.insert("config.storage.topic".into(), "confs".into());
        props.insert("status.storage.topic".into(), "stats".into());
        props.insert("worker.protected.topics".into(), "audit, billing".into());
        let cfg = WorkerConfig::from_props(props).unwrap();
        for t in [
            "offs",
            "confs",
            "stats",
            "audit",
            "billing",
            "__consumer_offsets",
            "__transaction_state",
        ] {
            assert!(
                cfg.protected_topics.iter().any(|p| p == t),
                "{t}: {:?}",
                cfg.protected_topics
            );
        }
        let plain = WorkerConfig::for_bootstrap("b:9092").unwrap();
        assert!(plain.protected_topics.iter().any(|p| p == "copycat-offsets"));
        assert!(!plain.protected_topics.iter().any(|p| p == "audit"));
    }

    #[test]
    fn compilation_limits_are_read_and_checked() {
        let mut props = Props::new();
        props.insert("plugin.compile.timeout.ms".into(), "5000".into());
        let cfg = WorkerConfig::from_props(props).unwrap();
        assert_eq!(cfg.engine_config().compile.timeout, Duration::from_secs(5));
        let mut props = Props::new();
        props.insert("plugin.compile.memory.max.bytes".into(), "1000".into());
        let err = WorkerConfig::from_props(props).unwrap_err().to_string();
        assert!(err.contains("plugin.compile.memory.max.bytes"), "{err}");
    }

    #[test]
    fn producer_shared_is_copycat_s_key_not_the_client_s() {
        let cfg = WorkerConfig::for_bootstrap("b:9092").unwrap();
        assert!(cfg.producer_shared, "shared by default");
        let mut props = Props::new();
        props.insert("producer.shared".into(), "false".into());
        props.insert("producer.linger.ms".into(), "20".into());
        let cfg = WorkerConfig::from_props(props).unwrap();
        assert!(!cfg.producer_shared);
        assert_eq!(cfg.producer.get("linger.ms").map(String::as_str), Some("20"));
        assert!(!cfg.producer.contains_key("shared"), "not passed to librdkafka");
        let mut props = Props::new();
        props.insert("producer.shared".into(), "yes".into());
        let err = WorkerConfig::from_props(props).unwrap_err().to_string();
        assert!(err.contains("producer.shared"), "{err}");
    }

    #[test]
    fn client_settings_librdkafka_refuses_name_the_key() {
        let mut props = Props::new();
        props.insert("producer.compression.type".into(), "zstd".into());
        props.insert("consumer.fetch.min.bytes".into(), "1".into());
        WorkerConfig::from_props(props.clone()).unwrap();
        props.insert("producer.linger.ms".into(), "soon".into());
        props.insert("admin.no.such.setting".into(), "1".into());
        let err = WorkerConfig::from_props(props).unwrap_err().to_string();
        assert!(err.contains("producer.linger.ms") && err.contains("soon"), "{err}");
        assert!(err.contains("admin.no.such.setting"), "{err}");
    }

    #[test]
    fn misspelt_security_keys_are_refused() {
        let mut props = Props::new();
        props.insert("rest.auth.typ".into(), "bearer".into());
        props.insert("listeners.https.ssl.client.auth".into(), "required".into());
        props.insert("rest.advertised.host.name".into(), "x".into());
        let err = WorkerConfig::from_props(props).unwrap_err().to_string();
        assert!(err.contains("rest.auth.typ"), "{err}");
        assert!(err.contains("listeners.https.ssl.client.auth"), "{err}");
        assert!(
            !err.contains("rest.advertised.host.name"),
            "other rest.* keys only warn: {err}"
        );
    }
}
