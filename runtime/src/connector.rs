//! The runtime's shared vocabulary, the bottom layer: what kind a connector
//! is, the states operators ask for and tasks report, and a config as
//! key/value properties. It imports nothing of the runtime; every other
//! module may import it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A config as `.properties` key/value pairs, as Kafka Connect reads them.
pub type Props = BTreeMap<String, String>;

/// Whether a connector (and the world its component implements) is a source
/// or a sink, or a component is a transform (`copycat:transform`, which a
/// connector's `transforms=` chain runs; never a connector). Serialised,
/// and shown in the REST API, as `source` / `sink` / `transformation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `copycat:connector/source`: the host writes its records to Kafka.
    Source,
    /// `copycat:connector/sink`: the host hands it records from Kafka.
    Sink,
    /// `copycat:transform/transform`: records in, records out.
    #[serde(rename = "transformation")]
    Transform,
}

impl Kind {
    /// `source` or `sink`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::Sink => "sink",
            Kind::Transform => "transformation",
        }
    }

    /// The kind a stored record names: `sink`, else `source` (records
    /// written before the kind was stored name none).
    pub fn from_stored(name: &str) -> Self {
        if name == "sink" { Kind::Sink } else { Kind::Source }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What an operator asked a connector to be doing (Kafka Connect's target
/// state). PAUSED: its tasks are stopped gracefully (flush, commit) and kept,
/// ready to resume. STOPPED: likewise, but its tasks are dropped too, and its
/// offsets may be altered (KIP-875).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TargetState {
    /// Tasks run.
    #[default]
    Running,
    /// Tasks are stopped, kept for a resume.
    Paused,
    /// The connector and its tasks are stopped.
    Stopped,
}

/// A task's state, with Kafka Connect's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TaskState {
    /// Created, not started yet.
    Unassigned,
    /// Moving records.
    Running,
    /// Failed; waiting to be restarted automatically (see `attempts` and
    /// `next_restart_ms`).
    Restarting,
    /// Failed; see the trace. Final until restarted by hand.
    Failed,
    /// Stopped on request.
    Stopped,
}

/// The canonical text of a source partition or offset that is Kafka
/// Connect's map (a JSON object): compact, keys sorted, so equal maps have
/// equal text whoever wrote them. `None` for any other text: contracts
/// 0.1.0 and 0.2.0 take any string, kept as given.
pub fn canonical_map(text: &str) -> Option<String> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        // Sorted explicitly: with serde_json's `preserve_order` (which any
        // crate in a build may switch on) objects keep their input order.
        Ok(mut v @ serde_json::Value::Object(_)) => {
            v.sort_all_objects();
            serde_json::to_string(&v).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_have_one_text() {
        assert_eq!(
            canonical_map(r#"{ "b": 1, "a": "x" }"#).as_deref(),
            Some(r#"{"a":"x","b":1}"#)
        );
        assert_eq!(canonical_map("a.txt"), None);
        assert_eq!(canonical_map("[1]"), None);
        assert_eq!(canonical_map("{oops"), None);
    }

    #[test]
    fn kinds_serialise_as_kafka_connect_names_them() {
        assert_eq!(serde_json::to_string(&Kind::Sink).ok().as_deref(), Some("\"sink\""));
        assert_eq!(Kind::from_stored("sink"), Kind::Sink);
        assert_eq!(Kind::from_stored("source"), Kind::Source);
        assert_eq!(Kind::from_stored(""), Kind::Source);
        assert_eq!(Kind::Source.to_string(), "source");
    }
}
