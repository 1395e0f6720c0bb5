//! A connector config (`connector.properties`, or a REST body later).

use std::path::Path;
use std::time::Duration;

use super::clients::{MAX_POLL_RECORDS, override_settings};
use super::limits::{RestartPolicy, read_limits, read_restart};
use super::reader::{ConfigError, Reader, load_properties};
use super::worker::WorkerConfig;
use crate::connector::Kind;
use crate::connector::Props;
use crate::host::{Grants, TaskLimits};

/// What a source connector's records are guaranteed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryGuarantee {
    /// Offsets are committed before the records are sent: after a crash,
    /// records may be lost but are never repeated.
    AtMostOnce,
    /// Offsets are committed after Kafka acknowledged the records: after a
    /// crash, records may be repeated but are never lost.
    AtLeastOnce,
    /// Records and their offsets are written in one Kafka transaction.
    ExactlyOnce,
}

/// When a source task's transaction commits (`transaction.boundary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionBoundary {
    /// One transaction per non-empty `poll`.
    Poll,
    /// One transaction per `transaction.boundary.interval.ms`.
    Interval(Duration),
    /// The connector commits or aborts through the `transactions` import.
    Connector,
}

/// The host's view of one connector's config. The whole map (`props`) is
/// also what the connector itself receives.
#[derive(Debug, Clone)]
pub struct ConnectorConfig {
    /// `name`: unique per worker/cluster.
    pub name: String,
    /// `connector.class`: a component file, or a plugin name looked up as
    /// `<name>.wasm` in the worker's `plugin.path`.
    pub connector_class: String,
    /// `tasks.max`.
    pub tasks_max: u32,
    /// `topic`: default topic for source records that name none.
    pub topic: Option<String>,
    /// `topics`: the topics a sink consumes.
    pub topics: Vec<String>,
    /// `topics.regex`: alternatively, a pattern of topics a sink consumes.
    /// As in Kafka Connect it must match a topic's whole name:
    /// [`crate::util::whole_name`] anchors it for the consumer's subscription.
    pub topics_regex: Option<String>,
    /// `grants.*`: the WASI capabilities of the connector's tasks
    /// (deny-by-default).
    pub grants: Grants,
    /// Limits: the worker's defaults, overridden by the same keys here.
    pub limits: TaskLimits,
    /// What happens when a task fails (`task.restart.*`, worker defaults).
    pub restart: RestartPolicy,
    /// `poll.max.records`: most records asked of a source task per poll;
    /// `consumer.override.max.poll.records` for sinks (records per put).
    pub batch_max_records: u32,
    /// `poll.idle.backoff.ms`: pause after an empty poll.
    pub idle_backoff: Duration,
    /// `poll.idle.backoff.max.ms`: the longest pause after consecutive
    /// empty polls (the pause doubles from `poll.idle.backoff.ms`).
    pub idle_backoff_max: Duration,
    /// `connector.monitor.interval.ms`: how often a dynamic connector's
    /// instance is asked to look at its source (`instance.monitor`).
    pub monitor_interval: Duration,
    /// Sources: `delivery.guarantee` (at-most-once, at-least-once,
    /// exactly-once); defaults to exactly-once when the worker has
    /// `exactly.once.source.support=enabled`, else at-least-once.
    pub delivery: DeliveryGuarantee,
    /// Sources with exactly-once: `transaction.boundary`.
    pub transaction_boundary: TransactionBoundary,
    /// What `producer.override.*` changes in the worker's `producer.*`
    /// settings (librdkafka's names; read merged with the worker's keys, as
    /// Kafka Connect does).
    pub producer_overrides: Props,
    /// What `consumer.override.*` changes in the worker's `consumer.*`.
    pub consumer_overrides: Props,
    /// What `admin.override.*` changes in the connector's admin client (its
    /// offsets operations; [`WorkerConfig::connector_admin`]).
    pub admin_overrides: Props,
    /// The converters of its typed records: its own `key.converter`,
    /// `value.converter`, `header.converter`, else the worker's.
    pub converters: super::converters::Converters,
    /// `errors.*`: what a record that fails conversion, a transform or a
    /// check does to the task, and where it goes.
    pub errors: super::errors::ErrorsConfig,
    /// `topic.creation.*` (sources): how topics a task's records go to are
    /// created; `None`: they are not.
    pub topic_creation: Option<super::topic_creation::TopicCreation>,
    /// Every key as given.
    pub props: Props,
}

impl ConnectorConfig {
    /// Source or sink (never [`Kind::Transform`]): a sink sets `topics`
    /// or `topics.regex`; a source does not.
    pub fn kind(&self) -> Kind {
        if self.topics.is_empty() && self.topics_regex.is_none() {
            Kind::Source
        } else {
            Kind::Sink
        }
    }

    /// Read and check `path`.
    pub fn load(path: &Path, worker: &WorkerConfig) -> Result<Self, ConfigError> {
        let props = load_properties(path)?;
        Self::from_props(props, worker).map_err(|e| match e {
            ConfigError::Invalid { context, problems } => ConfigError::Invalid {
                context: format!("{context} (file {})", path.display()),
                problems,
            },
            other => other,
        })
    }

    /// Check the host-level keys of a connector config.
    pub fn from_props(props: Props, worker: &WorkerConfig) -> Result<Self, ConfigError> {
        let mut r = Reader::new(&props);
        let name = r.required("name");
        let connector_class = r.required("connector.class");
        let tasks_max: u32 = r.parse("tasks.max", 1);
        if tasks_max == 0 {
            r.problems.push(("tasks.max".into(), "must be at least 1".into()));
        }
        if name.contains(['/', '\\']) || name.chars().any(char::is_control) {
            r.problems.push((
                "name".into(),
                format!("'{name}' must not contain '/', '\\' or control characters"),
            ));
        }
        let grants = Grants::from_props(&props).unwrap_or_else(|problems| {
            r.problems.extend(problems);
            Grants::default()
        });
        let limits = read_limits(&mut r, &worker.limits);
        if limits.fuel_per_call.is_some() && worker.limits.fuel_per_call.is_none() {
            r.problems.push((
                "task.fuel.per.call".into(),
                "fuel metering is off on this worker: set task.fuel.per.call in the worker config to turn it on".into(),
            ));
        }
        let restart = read_restart(&mut r, &worker.restart);
        if let Some(pin) = r.str("connector.digest") {
            let hex = pin.strip_prefix("sha256:").unwrap_or_default();
            if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()) {
                r.problems.push((
                    "connector.digest".into(),
                    format!("'{pin}' is not 'sha256:' followed by 64 lowercase hex digits (the output of `sha256sum <component.wasm>`, prefixed)"),
                ));
            }
        }
        let raw_consumer = r.prefixed("consumer.override.");
        let raw_producer = r.prefixed("producer.override.");
        let raw_admin = r.prefixed("admin.override.");
        for (prefix, raw) in [
            ("producer.override.", &raw_producer),
            ("consumer.override.", &raw_consumer),
            ("admin.override.", &raw_admin),
        ] {
            for k in raw.keys() {
                if let Some(why) = worker.override_policy.refuses(k) {
                    r.problems.push((format!("{prefix}{k}"), why));
                }
            }
        }
        let mut overrides = |client: &str, settings: &Props, raw: &Props| {
            override_settings(
                &format!("{client}override."),
                &worker.raw_client_keys(client),
                settings,
                raw,
                &mut r.problems,
            )
        };
        let admin_overrides = overrides("admin.", &worker.connector_admin(), &raw_admin);
        let consumer_overrides = overrides("consumer.", &worker.consumer, &raw_consumer);
        let producer_overrides = overrides("producer.", &worker.producer, &raw_producer);
        let batch_default = consumer_overrides
            .get(MAX_POLL_RECORDS)
            .or_else(|| worker.consumer.get(MAX_POLL_RECORDS))
            .and_then(|v| v.parse().ok())
            .unwrap_or(2_000);
        let delivery = match r.str("delivery.guarantee") {
            None if worker.exactly_once_source => DeliveryGuarantee::ExactlyOnce,
            None => DeliveryGuarantee::AtLeastOnce,
            Some("at-most-once") => DeliveryGuarantee::AtMostOnce,
            Some("at-least-once") => DeliveryGuarantee::AtLeastOnce,
            Some("exactly-once") => DeliveryGuarantee::ExactlyOnce,
            Some(other) => {
                r.problems.push((
                    "delivery.guarantee".into(),
                    format!("'{other}' is not one of at-most-once, at-least-once, exactly-once"),
                ));
                DeliveryGuarantee::AtLeastOnce
            }
        };
        match r.str("exactly.once.support").unwrap_or("requested") {
            "requested" => {}
            "required" if delivery == DeliveryGuarantee::ExactlyOnce => {}
            "required" => r.problems.push((
                "exactly.once.support".into(),
                "is 'required' but this connector does not run exactly-once: set exactly.once.source.support=enabled on the worker (or delivery.guarantee=exactly-once)".into(),
            )),
            other => r.problems.push((
                "exactly.once.support".into(),
                format!("'{other}' is not one of requested, required"),
            )),
        }
        let interval = Duration::from_millis(r.parse(
            "transaction.boundary.interval.ms",
            worker.offset_flush_interval.as_millis() as u64,
        ));
        let transaction_boundary = match r.str("transaction.boundary").unwrap_or("poll") {
            "poll" => TransactionBoundary::Poll,
            "interval" => TransactionBoundary::Interval(interval),
            "connector" => TransactionBoundary::Connector,
            other => {
                r.problems.push((
                    "transaction.boundary".into(),
                    format!("'{other}' is not one of poll, interval, connector"),
                ));
                TransactionBoundary::Poll
            }
        };
        let idle_backoff = Duration::from_millis(r.parse("poll.idle.backoff.ms", 50));
        let idle_backoff_max = Duration::from_millis(r.parse("poll.idle.backoff.max.ms", 1_000));
        if idle_backoff_max < idle_backoff {
            r.problems.push((
                "poll.idle.backoff.max.ms".into(),
                format!(
                    "must be at least poll.idle.backoff.ms ({} ms), got {} ms",
                    idle_backoff.as_millis(),
                    idle_backoff_max.as_millis()
                ),
            ));
        }
        let monitor_interval = Duration::from_millis(r.parse("connector.monitor.interval.ms", 5_000));
        if monitor_interval < Duration::from_millis(10) {
            r.problems.push((
                "connector.monitor.interval.ms".into(),
                format!("must be at least 10, got {}", monitor_interval.as_millis()),
            ));
        }
        let topics_regex = r.str("topics.regex").map(str::to_owned);
        let mut consumed_regex = None;
        if let Some(re) = &topics_regex {
            match regex::Regex::new(&crate::util::whole_name(re)) {
                Ok(re) => consumed_regex = Some(re),
                Err(e) => r
                    .problems
                    .push(("topics.regex".into(), format!("'{re}' is not a valid pattern: {e}"))),
            }
        }
        let converters = super::converters::Converters::read(&props, &worker.converters, &mut r.problems);
        let topics = r.list("topics");
        let errors = super::errors::ErrorsConfig::read(&mut r, &topics, consumed_regex.as_ref());
        let topic_creation = super::topic_creation::TopicCreation::read(&mut r, &props);
        r.problems.extend(super::framework::problems(&props));
        // `transforms=` / `predicates=`: checked here, made per task (a
        // source's runs after `poll`, a sink's before `put`).
        if let Err(issues) = copycat_transforms::Chain::from_config_with(&props, &ComponentsChecked) {
            for i in issues {
                r.problems
                    .push((i.key.unwrap_or_else(|| "transforms".to_owned()), i.message));
            }
        }
        let cfg = Self {
            converters,
            name: name.clone(),
            delivery,
            transaction_boundary,
            connector_class,
            tasks_max,
            topic: r.str("topic").map(str::to_owned),
            topics,
            topics_regex,
            errors,
            topic_creation,
            grants,
            limits,
            restart,
            batch_max_records: r.parse("poll.max.records", batch_default).max(1),
            idle_backoff,
            idle_backoff_max,
            monitor_interval,
            producer_overrides,
            consumer_overrides,
            admin_overrides,
            props: props.clone(),
        };
        let context = if name.is_empty() {
            String::new()
        } else {
            format!(" for connector '{name}'")
        };
        r.finish(context)?;
        Ok(cfg)
    }

    /// The config as it crosses into the guest.
    pub fn wit_config(&self) -> Vec<(String, String)> {
        self.props.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

/// `type=wasm` stages as the config alone can check them: a `plugin` is
/// named (the worker resolves it and checks the component's settings).
struct ComponentsChecked;

/// Stands for a transform component while the config is checked.
struct Unresolved;

impl copycat_transforms::BatchTransformation for Unresolved {
    fn apply_batch(
        &mut self,
        records: Vec<copycat_transforms::Record>,
    ) -> Result<Vec<(usize, copycat_transforms::Record)>, copycat_transforms::BatchError> {
        Ok(records.into_iter().enumerate().collect())
    }
}

impl copycat_transforms::External for ComponentsChecked {
    fn make(
        &self,
        _alias: &str,
        settings: &std::collections::BTreeMap<String, String>,
    ) -> Result<(String, Box<dyn copycat_transforms::BatchTransformation>), Vec<copycat_transforms::ConfigIssue>> {
        match settings.get("plugin").map(|p| p.trim()).filter(|p| !p.is_empty()) {
            Some(p) => Ok((format!("wasm:{p}"), Box::new(Unresolved))),
            None => Err(vec![copycat_transforms::ConfigIssue::key(
                "plugin",
                "a transform component (type=wasm) needs plugin: the name of an installed transform component, or a .wasm file",
            )]),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn cfg(pairs: &[(&str, &str)]) -> Result<ConnectorConfig, ConfigError> {
        let mut props: Props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        props.insert("name".into(), "c".into());
        props.insert("connector.class".into(), "datagen".into());
        ConnectorConfig::from_props(props, &WorkerConfig::for_bootstrap("b:9092").unwrap())
    }

    fn under_policy(policy: &str, pairs: &[(&str, &str)]) -> Result<ConnectorConfig, ConfigError> {
        let mut props: Props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        props.insert("name".into(), "c".into());
        props.insert("connector.class".into(), "datagen".into());
        let mut worker = WorkerConfig::for_bootstrap("b:9092").unwrap();
        worker.override_policy = crate::config::OverridePolicy::parse(policy).unwrap();
        ConnectorConfig::from_props(props, &worker)
    }

    #[test]
    fn a_misconfigured_transform_chain_names_the_key() {
        let e = cfg(&[("transforms", "route"), ("transforms.route.type", "RegexRouter")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("transforms.route.regex"), "{e}");
        let e = cfg(&[("transforms", "a"), ("transforms.a.type", "com.example.Nope")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("transforms.a.type") && e.contains("could not be found"),
            "{e}"
        );
        let e = cfg(&[
            ("transforms", "f"),
            ("transforms.f.type", "Filter"),
            ("transforms.f.predicate", "missing"),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("transforms.f.predicate"), "{e}");
        let e = cfg(&[
            ("transforms", "r"),
            ("transforms.r.type", "org.apache.kafka.connect.transforms.RegexRouter"),
            ("transforms.r.regex", "(unclosed"),
            ("transforms.r.replacement", "x"),
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("transforms.r.regex"), "{e}");
        cfg(&[
            ("transforms", "r"),
            ("transforms.r.type", "RegexRouter"),
            ("transforms.r.regex", "(.*)"),
            ("transforms.r.replacement", "x-$1"),
        ])
        .unwrap();
        // A sink's chain too (it runs before `put`).
        let sink = cfg(&[
            ("topics", "t"),
            ("transforms", "r"),
            ("transforms.r.type", "RegexRouter"),
            ("transforms.r.regex", "(.*)"),
            ("transforms.r.replacement", "x-$1"),
        ])
        .unwrap();
        assert_eq!(sink.kind(), Kind::Sink);
    }

    #[test]
    fn client_overrides_follow_the_override_policy() {
        let jaas = r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";"#;
        let all = under_policy(
            "All",
            &[
                ("producer.override.linger.ms", "7"),
                ("admin.override.sasl.jaas.config", jaas),
            ],
        )
        .unwrap();
        assert_eq!(all.producer_overrides.get("linger.ms").map(String::as_str), Some("7"));
        assert_eq!(all.admin_overrides.get("sasl.username").map(String::as_str), Some("u"));

        let principal = under_policy(
            "org.apache.kafka.connect.connector.policy.PrincipalConnectorClientConfigOverridePolicy",
            &[
                ("consumer.override.sasl.jaas.config", jaas),
                ("consumer.override.security.protocol", "SASL_SSL"),
            ],
        )
        .unwrap();
        assert_eq!(
            principal.consumer_overrides.get("sasl.password").map(String::as_str),
            Some("p")
        );
        let err = under_policy("Principal", &[("producer.override.linger.ms", "7")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("producer.override.linger.ms") && err.contains("Principal"),
            "{err}"
        );

        let err = under_policy("None", &[("consumer.override.sasl.jaas.config", jaas)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("consumer.override.sasl.jaas.config") && err.contains("None"),
            "{err}"
        );
        assert!(!err.contains("password=\"p\""), "{err}");
        assert!(under_policy("None", &[]).is_ok());
    }

    #[test]
    fn overrides_are_read_merged_with_the_worker_s_keys() {
        let mut worker = WorkerConfig::from_props(
            [
                ("producer.ssl.truststore.type", "PEM"),
                ("producer.ssl.truststore.location", "/worker/ca.pem"),
                ("producer.linger.ms", "20"),
                ("security.protocol", "SSL"),
                ("admin.ssl.truststore.type", "PEM"),
                ("admin.ssl.truststore.location", "/admin/ca.pem"),
            ]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        )
        .unwrap();
        worker.override_policy = crate::config::OverridePolicy::All;
        let read = |pairs: &[(&str, &str)]| {
            let mut props: Props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            props.insert("name".into(), "c".into());
            props.insert("connector.class".into(), "datagen".into());
            ConnectorConfig::from_props(props, &worker)
        };
        // The worker's ssl.truststore.type=PEM applies to the override's location.
        let c = read(&[
            ("producer.override.ssl.truststore.location", "/task/ca.pem"),
            ("producer.override.linger.ms", "20"),
            ("admin.override.security.protocol", "SASL_SSL"),
        ])
        .unwrap();
        assert_eq!(
            c.producer_overrides,
            [("ssl.ca.location".to_string(), "/task/ca.pem".to_string())].into(),
            "only what the override changes"
        );
        assert_eq!(
            c.admin_overrides,
            [("security.protocol".to_string(), "sasl_ssl".to_string())].into()
        );
        assert_eq!(
            worker.connector_admin().get("security.protocol").map(String::as_str),
            Some("ssl"),
            "a connector's admin client inherits the top-level security keys"
        );
        // A type the override makes unreadable names the key it refuses.
        let err = read(&[("producer.override.ssl.truststore.type", "JKS")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("producer.override.ssl.truststore.location"), "{err}");
    }

    #[test]
    fn idle_backoff_grows_to_a_cap_no_smaller_than_its_start() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.idle_backoff, Duration::from_millis(50));
        assert_eq!(c.idle_backoff_max, Duration::from_millis(1000));
        let c = cfg(&[("poll.idle.backoff.ms", "100"), ("poll.idle.backoff.max.ms", "100")]).unwrap();
        assert_eq!(c.idle_backoff_max, Duration::from_millis(100));
        let err = cfg(&[("poll.idle.backoff.ms", "500"), ("poll.idle.backoff.max.ms", "100")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("poll.idle.backoff.max.ms") && err.contains("500"), "{err}");
    }

    #[test]
    fn client_overrides_librdkafka_refuses_name_the_key() {
        // Every codec Kafka offers, zstd included, is built in.
        for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
            cfg(&[("producer.override.compression.type", codec)]).unwrap();
        }
        cfg(&[
            ("consumer.override.max.poll.records", "10"),
            ("consumer.override.fetch.min.bytes", "1"),
        ])
        .unwrap();
        let err = cfg(&[
            ("producer.override.compression.type", "brotli"),
            ("consumer.override.max.partition.fetch.byte", "1"),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("producer.override.compression.type") && err.contains("brotli"),
            "{err}"
        );
        assert!(err.contains("consumer.override.max.partition.fetch.byte"), "{err}");
    }

    #[test]
    fn topics_regex_is_checked_and_matches_whole_names() {
        let err = cfg(&[("topics.regex", "orders-(")]).unwrap_err().to_string();
        assert!(err.contains("topics.regex") && err.contains("orders-("), "{err}");
        let c = cfg(&[("topics.regex", "orders|returns-.*")]).unwrap();
        let re = regex::Regex::new(&crate::util::whole_name(c.topics_regex.as_deref().unwrap())).unwrap();
        for (topic, matches) in [
            ("orders", true),
            ("returns-eu", true),
            ("orders-archive", false),
            ("old-returns-eu", false),
        ] {
            assert_eq!(re.is_match(topic), matches, "{topic}");
        }
    }
}
