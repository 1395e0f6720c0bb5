//! Kafka Connect's framework keys that Copycat does not carry out yet
//! (error tolerance and dead letter queues, topic creation, config
//! providers): refused, naming the key, rather than handed to the
//! connector as if they were honoured. A key set to Kafka Connect's
//! default is accepted, since the default is what Copycat does.

/// Connector keys: `(key, Kafka Connect's default, what is missing)`.
const CONNECTOR_NOT_YET: &[(&str, &str, &str)] = &[
    ("errors.tolerance", "none", ERRORS),
    ("errors.retry.timeout", "0", ERRORS),
    ("errors.retry.delay.max.ms", "60000", ERRORS),
    ("errors.log.enable", "false", ERRORS),
    ("errors.log.include.messages", "false", ERRORS),
    ("errors.deadletterqueue.topic.name", "", ERRORS),
    ("errors.deadletterqueue.topic.replication.factor", "3", ERRORS),
    ("errors.deadletterqueue.context.headers.enable", "false", ERRORS),
];

const ERRORS: &str = "error tolerance, error logging and dead letter queues (KIP-298) are not implemented in this Copycat version: a record that fails conversion, a transform or a check fails the task (errors.tolerance=none); remove the key or set Kafka Connect's default";

const TOPIC_CREATION: &str = "topic creation by source connectors (KIP-158) is not implemented in this Copycat version: create the topics beforehand and remove the topic.creation.* keys";

const CONFIG_PROVIDERS: &str = "config providers (${provider:path:key} references) are not implemented in this Copycat version: a reference would reach the connector unresolved; put the value in the config, or remove the key";

/// The problems of a connector config's keys that Copycat does not carry
/// out: `(key, message)`.
pub(crate) fn connector_problems<'a>(props: impl Iterator<Item = (&'a String, &'a String)>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (k, v) in props {
        if let Some((_, default, why)) = CONNECTOR_NOT_YET.iter().find(|(key, _, _)| key == k) {
            if !v.trim().eq_ignore_ascii_case(default) {
                out.push((
                    k.clone(),
                    format!("'{v}' (Kafka Connect's default: '{default}'): {why}"),
                ));
            }
        } else if k.starts_with("topic.creation.") {
            out.push((k.clone(), TOPIC_CREATION.to_owned()));
        }
    }
    out
}

/// The problems of a worker config's keys that Copycat does not carry
/// out: `(key, message)`.
pub(crate) fn worker_problems<'a>(props: impl Iterator<Item = &'a String>) -> Vec<(String, String)> {
    props
        .filter(|k| *k == "config.providers" || k.starts_with("config.providers."))
        .map(|k| (k.clone(), CONFIG_PROVIDERS.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn kafka_connects_defaults_pass_and_anything_else_is_refused_by_key() {
        let ok = props(&[
            ("errors.tolerance", "NONE"),
            ("errors.retry.timeout", "0"),
            ("errors.deadletterqueue.topic.name", ""),
            ("topic", "t"),
        ]);
        assert!(connector_problems(ok.iter()).is_empty());
        let bad = props(&[
            ("errors.tolerance", "all"),
            ("errors.deadletterqueue.topic.name", "dlq"),
            ("topic.creation.default.partitions", "3"),
        ]);
        let keys: Vec<String> = connector_problems(bad.iter()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "errors.deadletterqueue.topic.name",
                "errors.tolerance",
                "topic.creation.default.partitions"
            ]
        );
        let worker = props(&[
            ("config.providers", "file"),
            ("config.providers.file.class", "x"),
            ("group.id", "g"),
        ]);
        let keys: Vec<String> = worker_problems(worker.keys()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["config.providers", "config.providers.file.class"]);
    }
}
