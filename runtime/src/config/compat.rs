//! Kafka Connect's framework keys that Copycat does not carry out yet
//! (topic creation): refused, naming the key, rather
//! than handed to the connector as if they were honoured.

const TOPIC_CREATION: &str = "topic creation by source connectors (KIP-158) is not implemented in this Copycat version: create the topics beforehand and remove the topic.creation.* keys";

/// The problems of a connector config's keys that Copycat does not carry
/// out: `(key, message)`.
pub(crate) fn connector_problems<'a>(props: impl Iterator<Item = (&'a String, &'a String)>) -> Vec<(String, String)> {
    props
        .filter(|(k, _)| k.starts_with("topic.creation."))
        .map(|(k, _)| (k.clone(), TOPIC_CREATION.to_owned()))
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
    fn keys_not_carried_out_are_refused_by_key() {
        let ok = props(&[("errors.tolerance", "all"), ("topic", "t")]);
        assert!(connector_problems(ok.iter()).is_empty());
        let bad = props(&[("topic.creation.default.partitions", "3"), ("topic", "t")]);
        let keys: Vec<String> = connector_problems(bad.iter()).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["topic.creation.default.partitions"]);
    }
}
