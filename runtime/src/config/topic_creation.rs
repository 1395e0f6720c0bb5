//! Topic creation by source connectors (Kafka Connect's KIP-158): with
//! `topic.creation.default.replication.factor` and `.partitions` set, a
//! source task creates a topic its records go to that does not exist yet,
//! with the settings of the first group in `topic.creation.groups` whose
//! `include` patterns match the topic's whole name and whose `exclude`
//! patterns do not, else the `default` group's. A group's unset
//! `replication.factor` and `partitions` are the default group's; any
//! other `topic.creation.<group>.<key>` is a topic config (`cleanup.policy`,
//! `retention.ms`, ...) of the topics it creates. Same keys and meaning as
//! Kafka Connect 4.4; the worker's `topic.creation.enable=false` turns it
//! off for every connector.

use std::collections::BTreeMap;

use regex::Regex;

use super::reader::Reader;

/// One group of `topic.creation.groups` (or `default`).
#[derive(Debug, Clone)]
pub struct TopicGroup {
    /// Its name.
    pub name: String,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
    /// -1: the broker's default.
    pub partitions: i32,
    /// -1: the broker's default.
    pub replication_factor: i16,
    /// Topic configs.
    pub configs: BTreeMap<String, String>,
}

impl TopicGroup {
    fn matches(&self, topic: &str) -> bool {
        self.include.iter().any(|r| r.is_match(topic)) && !self.exclude.iter().any(|r| r.is_match(topic))
    }
}

/// A source connector's topic creation settings.
#[derive(Debug, Clone)]
pub struct TopicCreation {
    /// `topic.creation.groups`, in order.
    groups: Vec<TopicGroup>,
    default: TopicGroup,
}

impl PartialEq for TopicCreation {
    fn eq(&self, other: &Self) -> bool {
        let key = |g: &TopicGroup| {
            (
                g.name.clone(),
                g.include.iter().map(|r| r.as_str().to_owned()).collect::<Vec<_>>(),
                g.exclude.iter().map(|r| r.as_str().to_owned()).collect::<Vec<_>>(),
                g.partitions,
                g.replication_factor,
                g.configs.clone(),
            )
        };
        self.groups.iter().map(key).eq(other.groups.iter().map(key)) && key(&self.default) == key(&other.default)
    }
}

/// A size key: -1 (the broker's default) or at least 1.
fn size(r: &mut Reader<'_>, key: &str) -> Option<i64> {
    let v = r.str(key)?.trim().to_owned();
    match v.parse::<i64>() {
        Ok(n) if n == -1 || n >= 1 => Some(n),
        _ => {
            r.problems.push((
                key.to_owned(),
                format!("invalid value '{v}': must be -1 (the broker's default) or at least 1"),
            ));
            None
        }
    }
}

/// Whole-name patterns of a list key.
fn patterns(r: &mut Reader<'_>, key: &str) -> Vec<Regex> {
    let mut out = Vec::new();
    for p in r.list(key) {
        match Regex::new(&crate::util::whole_name(&p)) {
            Ok(re) => out.push(re),
            Err(e) => r
                .problems
                .push((key.to_owned(), format!("'{p}' is not a valid pattern: {e}"))),
        }
    }
    out
}

const GROUP_KEYS: &[&str] = &["include", "exclude", "replication.factor", "partitions"];

impl TopicCreation {
    /// The connector's `topic.creation.*` keys: `None` when it does not
    /// ask for topic creation (neither default size key set). Problems
    /// name the key.
    pub(crate) fn read(r: &mut Reader<'_>, props: &BTreeMap<String, String>) -> Option<Self> {
        let keys: Vec<&String> = props.keys().filter(|k| k.starts_with("topic.creation.")).collect();
        if keys.is_empty() {
            return None;
        }
        let rf = size(r, "topic.creation.default.replication.factor");
        let partitions = size(r, "topic.creation.default.partitions");
        let set = |k: &str| props.contains_key(k);
        for (key, other) in [
            (
                "topic.creation.default.replication.factor",
                "topic.creation.default.partitions",
            ),
            (
                "topic.creation.default.partitions",
                "topic.creation.default.replication.factor",
            ),
        ] {
            if !set(key) {
                r.problems
                    .push((key.to_owned(), format!("topic creation needs both {key} and {other}")));
            }
        }
        for k in ["topic.creation.default.include", "topic.creation.default.exclude"] {
            if set(k) {
                r.problems.push((
                    k.to_owned(),
                    "the default group matches every topic the other groups do not: name a group in topic.creation.groups instead".to_owned(),
                ));
            }
        }
        let names: Vec<String> = r.list("topic.creation.groups");
        if names.iter().any(|n| n == "default") {
            r.problems.push((
                "topic.creation.groups".to_owned(),
                "'default' is the implicit group; do not list it".to_owned(),
            ));
        }
        // Keys that name no group.
        for k in &keys {
            let rest = &k["topic.creation.".len()..];
            if rest == "groups" || rest.starts_with("default.") {
                continue;
            }
            if !names.iter().any(|n| rest.starts_with(&format!("{n}."))) {
                r.problems.push((
                    (*k).clone(),
                    format!("names no group in topic.creation.groups ({})", names.join(",")),
                ));
            }
        }
        let configs_of = |name: &str| -> BTreeMap<String, String> {
            let prefix = format!("topic.creation.{name}.");
            props
                .iter()
                .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?, v)))
                .filter(|(k, _)| !GROUP_KEYS.contains(k))
                .map(|(k, v)| (k.to_owned(), v.trim().to_owned()))
                .collect()
        };
        let (rf, partitions) = (rf.unwrap_or(-1) as i16, partitions.unwrap_or(-1) as i32);
        let default = TopicGroup {
            name: "default".to_owned(),
            include: vec![Regex::new(".*").unwrap_or_else(|_| unreachable!())],
            exclude: Vec::new(),
            partitions,
            replication_factor: rf,
            configs: configs_of("default"),
        };
        let mut groups = Vec::new();
        for name in names.iter().filter(|n| *n != "default") {
            let key = |k: &str| format!("topic.creation.{name}.{k}");
            if !set(&key("include")) {
                r.problems
                    .push((key("include"), format!("group '{name}' needs the topics it includes")));
            }
            let include = patterns(r, &key("include"));
            let exclude = patterns(r, &key("exclude"));
            let group_rf = size(r, &key("replication.factor")).map_or(rf, |n| n as i16);
            let group_partitions = size(r, &key("partitions")).map_or(partitions, |n| n as i32);
            groups.push(TopicGroup {
                name: name.clone(),
                include,
                exclude,
                partitions: group_partitions,
                replication_factor: group_rf,
                configs: configs_of(name),
            });
        }
        Some(Self { groups, default })
    }

    /// The group whose settings `topic` is created with.
    pub fn group_for(&self, topic: &str) -> &TopicGroup {
        self.groups.iter().find(|g| g.matches(topic)).unwrap_or(&self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> (Option<TopicCreation>, Vec<String>) {
        let props: BTreeMap<String, String> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let mut r = Reader::new(&props);
        let t = TopicCreation::read(&mut r, &props);
        (t, r.problems.into_iter().map(|(k, _)| k).collect())
    }

    #[test]
    fn the_first_matching_group_wins_and_inherits_the_default_sizes() {
        let (t, problems) = read(&[
            ("topic.creation.groups", "compacted,logs"),
            ("topic.creation.default.replication.factor", "1"),
            ("topic.creation.default.partitions", "2"),
            ("topic.creation.default.compression.type", "lz4"),
            ("topic.creation.compacted.include", "orders-.*,users"),
            ("topic.creation.compacted.exclude", "orders-tmp"),
            ("topic.creation.compacted.partitions", "3"),
            ("topic.creation.compacted.cleanup.policy", "compact"),
            ("topic.creation.logs.include", ".*"),
            ("topic.creation.logs.replication.factor", "-1"),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        let t = t.unwrap();
        let g = t.group_for("orders-eu");
        assert_eq!(
            (g.name.as_str(), g.partitions, g.replication_factor),
            ("compacted", 3, 1)
        );
        assert_eq!(
            g.configs,
            BTreeMap::from([("cleanup.policy".to_owned(), "compact".to_owned())])
        );
        assert_eq!(t.group_for("users").name, "compacted");
        assert_eq!(t.group_for("users-archive").name, "logs", "whole names only");
        let g = t.group_for("orders-tmp");
        assert_eq!((g.name.as_str(), g.partitions, g.replication_factor), ("logs", 2, -1));
        let (t, _) = read(&[
            ("topic.creation.default.replication.factor", "1"),
            ("topic.creation.default.partitions", "2"),
            ("topic.creation.default.compression.type", "lz4"),
        ]);
        let g = t.unwrap().group_for("anything").clone();
        assert_eq!(g.configs["compression.type"], "lz4");
        assert!(
            read(&[("topic", "t")]).0.is_none(),
            "no topic.creation keys: no creation"
        );
    }

    #[test]
    fn mistakes_name_the_key() {
        let (_, problems) = read(&[
            ("topic.creation.groups", "g,default"),
            ("topic.creation.default.replication.factor", "0"),
            ("topic.creation.default.include", "x"),
            ("topic.creation.g.exclude", "("),
            ("topic.creation.h.partitions", "3"),
        ]);
        assert_eq!(
            problems,
            [
                "topic.creation.default.replication.factor",
                "topic.creation.default.partitions",
                "topic.creation.default.include",
                "topic.creation.groups",
                "topic.creation.h.partitions",
                "topic.creation.g.include",
                "topic.creation.g.exclude",
            ]
        );
    }
}
