//! Kafka Connect's predicates (`org.apache.kafka.connect.transforms.predicates`):
//! TopicNameMatches, HasHeaderKey, RecordIsTombstone.

use regex::Regex;

use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::{PluginKind, TransformPlugin};
use crate::{Predicate, Record, util};

pub(crate) const PLUGINS: &[TransformPlugin] = &[
    TransformPlugin {
        class: "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        aliases: &["TopicNameMatches"],
        doc: "A predicate which is true for records with a topic name that matches the configured regular expression.",
        config: &[KeyDef::new(
            "pattern",
            Kind::String,
            Default::Required,
            Importance::Medium,
            "A Java regular expression for matching against the name of a record's topic.",
        )
        .valid(Valid::NonEmptyRegex)],
        kind: PluginKind::Predicate(topic_name_matches),
    },
    TransformPlugin {
        class: "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
        aliases: &["HasHeaderKey"],
        doc: "A predicate which is true for records with at least one header with the configured name.",
        config: &[KeyDef::new(
            "name",
            Kind::String,
            Default::Required,
            Importance::Medium,
            "The header name.",
        )
        .valid(Valid::NonEmptyString)],
        kind: PluginKind::Predicate(has_header_key),
    },
    TransformPlugin {
        class: "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        aliases: &["RecordIsTombstone"],
        doc: "A predicate which is true for records which are tombstones (i.e. have null value).",
        config: &[],
        kind: PluginKind::Predicate(|_| Ok(Box::new(RecordIsTombstone))),
    },
];

struct TopicNameMatches(Regex);

fn topic_name_matches(p: &Parsed) -> Result<Box<dyn Predicate>, ConfigIssue> {
    let pattern = p.string("pattern").unwrap_or_default();
    let re = util::java_full_regex(pattern).map_err(|e| {
        ConfigIssue::invalid(
            "pattern",
            pattern,
            format!("entry must be a Java-compatible regular expression: {e}"),
        )
    })?;
    Ok(Box::new(TopicNameMatches(re)))
}

impl Predicate for TopicNameMatches {
    fn test(&self, record: &Record) -> bool {
        self.0.is_match(&record.topic)
    }
}

struct HasHeaderKey(String);

fn has_header_key(p: &Parsed) -> Result<Box<dyn Predicate>, ConfigIssue> {
    Ok(Box::new(HasHeaderKey(p.string("name").unwrap_or_default().to_owned())))
}

impl Predicate for HasHeaderKey {
    fn test(&self, record: &Record) -> bool {
        record.headers.iter().any(|h| h.key == self.0)
    }
}

struct RecordIsTombstone;

impl Predicate for RecordIsTombstone {
    fn test(&self, record: &Record) -> bool {
        record.value.is_null()
    }
}
