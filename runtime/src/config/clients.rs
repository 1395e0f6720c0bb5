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
    problems.extend(refused_settings(prefix, &t.settings));
    t.settings
}

/// [`client_setting_problems`], without quoting librdkafka on a secret
/// (its message may hold the value).
fn refused_settings(prefix: &str, settings: &Props) -> Vec<(String, String)> {
    client_setting_problems(prefix, settings)
        .into_iter()
        .map(|(k, why)| {
            if security::is_password(&k) {
                (k, "librdkafka refused the value".to_owned())
            } else {
                (k, why)
            }
        })
        .collect()
}

/// The librdkafka settings a connector's overrides (`raw`, the keys after
/// `prefix`, e.g. `producer.override.`) change in one of its clients, whose
/// settings without them are `worker` (translated from `base`, the worker's
/// keys as given). As Kafka Connect, the keys are merged before they are
/// read: the overrides over `base`, translated together, so an override of
/// `ssl.truststore.location` alone keeps the worker's
/// `ssl.truststore.type=PEM`. What the worker's settings already hold is left
/// out. Problems, named with `prefix`, go to `problems`.
pub fn override_settings(
    prefix: &str,
    base: &Props,
    worker: &Props,
    raw: &Props,
    problems: &mut Vec<(String, String)>,
) -> Props {
    if raw.is_empty() {
        return Props::new();
    }
    let mut merged = base.clone();
    merged.extend(raw.iter().map(|(k, v)| (k.clone(), v.clone())));
    let t = security::translate("", &merged);
    // The worker's keys alone were read without a problem (or its config
    // was refused): every problem comes with an override.
    for (k, why) in t.problems {
        let why = if raw.contains_key(&k) {
            why
        } else {
            format!("{why} (the worker's value, read with this connector's {prefix}* keys)")
        };
        problems.push((format!("{prefix}{k}"), why));
    }
    for (key, note) in t.notes.iter().filter(|(k, _)| raw.contains_key(k)) {
        tracing::warn!(key = format!("{prefix}{key}"), "{note}");
    }
    let changed: Props = t
        .settings
        .into_iter()
        .filter(|(k, v)| worker.get(k) != Some(v))
        .collect();
    problems.extend(refused_settings(prefix, &changed));
    changed
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
