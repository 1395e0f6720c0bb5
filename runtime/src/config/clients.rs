//! Kafka client settings in configs (`producer.*`, `consumer.*`,
//! `admin.*`, the connector's `*.override.*`), checked against librdkafka
//! when a config is read.

use rdkafka::ClientConfig;

use super::security;
use crate::connector::Props;

/// The librdkafka settings of one client's keys (those after `prefix`):
/// Kafka Connect's security keys translated ([`security::translate`]), the
/// result checked against librdkafka. Problems (named with the prefix) go
/// to `problems`; keys accepted without effect are logged.
pub fn client_settings(prefix: &str, raw: &Props, problems: &mut Vec<(String, String)>) -> Props {
    let t = security::translate(prefix, raw);
    problems.extend(t.problems);
    for (key, note) in t.notes {
        tracing::warn!(key, "{note}");
    }
    problems.extend(
        client_setting_problems(prefix, &t.settings)
            .into_iter()
            .map(|(k, why)| {
                if security::is_password(&k) {
                    (k, "librdkafka refused the value".to_owned())
                } else {
                    (k, why)
                }
            }),
    );
    t.settings
}

/// `connector.client.config.override.policy`: which client settings a
/// connector may override (`producer.override.*`, `consumer.override.*`,
/// `admin.override.*`), as Kafka Connect's policies of the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OverridePolicy {
    /// No overrides.
    None,
    /// Only the principal: `security.protocol`, `sasl.mechanism`, `sasl.jaas.config`.
    Principal,
    /// Any client setting (Kafka Connect 4.x's default).
    #[default]
    All,
}

/// The worker key naming the [`OverridePolicy`].
pub const OVERRIDE_POLICY: &str = "connector.client.config.override.policy";

impl OverridePolicy {
    /// The policy a config value names: `None`, `Principal`, `All`, or
    /// Kafka Connect's class names for them.
    pub fn parse(value: &str) -> Option<Self> {
        let v = value
            .strip_prefix("org.apache.kafka.connect.connector.policy.")
            .and_then(|c| c.strip_suffix("ConnectorClientConfigOverridePolicy"))
            .unwrap_or(value);
        match v.to_ascii_lowercase().as_str() {
            "none" => Some(Self::None),
            "principal" => Some(Self::Principal),
            "all" => Some(Self::All),
            _ => None,
        }
    }

    /// Why the override `key` (such as `producer.override.linger.ms`, whose
    /// setting is `setting`) is not allowed, if it is not.
    pub fn refuses(self, setting: &str) -> Option<String> {
        match self {
            Self::All => None,
            Self::Principal if ["security.protocol", "sasl.mechanism", "sasl.jaas.config"].contains(&setting) => None,
            Self::Principal => Some(format!(
                "{OVERRIDE_POLICY}=Principal allows only security.protocol, sasl.mechanism and sasl.jaas.config to be overridden"
            )),
            Self::None => Some(format!("{OVERRIDE_POLICY}=None allows no client overrides")),
        }
    }
}

/// `max.poll.records` (`consumer.max.poll.records`,
/// `consumer.override.max.poll.records`): how many records a sink task is
/// given per `put`, as with Kafka Connect's Java consumer.
pub const MAX_POLL_RECORDS: &str = "max.poll.records";

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
