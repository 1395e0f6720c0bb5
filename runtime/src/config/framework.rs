//! Kafka Connect 4.4 connector keys that Copycat accepts only in part,
//! checked so that none is accepted and ignored: each value Copycat does
//! not carry out is refused naming the key (the full list of Kafka
//! Connect's keys and what Copycat does with each is in
//! docs/operators.md).

use crate::connector::Props;

/// The problems of `props`' framework keys: `(key, message)`.
pub(crate) fn problems(props: &Props) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut refuse = |k: &str, m: &str| out.push((k.to_owned(), m.to_owned()));
    if let Some(v) = props.get("tasks.max.enforce")
        && !v.trim().eq_ignore_ascii_case("true")
    {
        refuse(
            "tasks.max.enforce",
            "Copycat always enforces tasks.max (a connector returning more task configs fails); only true is accepted",
        );
    }
    if let Some(v) = props.get("config.action.reload")
        && !matches!(v.trim().to_ascii_lowercase().as_str(), "restart" | "none")
    {
        refuse("config.action.reload", "must be restart or none");
    }
    if props.contains_key("offsets.storage.topic") {
        refuse(
            "offsets.storage.topic",
            "a connector's own offsets topic (KIP-618) is not implemented: Copycat keeps every connector's source offsets in the worker's offset.storage.topic; remove the key",
        );
    }
    for k in [
        "key.converter.plugin.version",
        "value.converter.plugin.version",
        "header.converter.plugin.version",
    ] {
        if props.contains_key(k) {
            refuse(
                k,
                "Copycat's converters are built in, in one version: there is no version to choose; remove the key",
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_copycat_does_not_carry_out_are_refused_by_key() {
        let props = |pairs: &[(&str, &str)]| -> Props {
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
        };
        assert!(
            problems(&props(&[
                ("tasks.max.enforce", "true"),
                ("config.action.reload", "none")
            ]))
            .is_empty()
        );
        let keys: Vec<String> = problems(&props(&[
            ("tasks.max.enforce", "false"),
            ("config.action.reload", "sometimes"),
            ("offsets.storage.topic", "mine"),
            ("value.converter.plugin.version", "4.4.0"),
        ]))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
        assert_eq!(
            keys,
            [
                "tasks.max.enforce",
                "config.action.reload",
                "offsets.storage.topic",
                "value.converter.plugin.version"
            ]
        );
    }
}
