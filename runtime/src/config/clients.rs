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
