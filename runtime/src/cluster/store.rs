//! What distributed mode keeps in its two compacted topics, and how the
//! records read back into views. Keys name what a record is about (so
//! compaction keeps the latest of each); values are JSON.
//!
//! `config.storage.topic`:
//! - `connector-<c>`: the connector's config;
//! - `target-state-<c>`: RUNNING, PAUSED or STOPPED;
//! - `tasks-<c>`: its task configs, the component they run (digest) and a
//!   generation that changes whenever they do;
//! - `restart-<c>-<n>`: a request to restart task `n`, a sequence number;
//! - `topics-reset-<c>`: a request to forget its active topics;
//! - `logger-cluster-<namespace>`: a log level for every worker
//!   (KIP-976's cluster scope), applied by the workers that read it after
//!   they joined;
//! - `plugin-<name>-<version>`: an uploaded component's manifest, and
//!   `plugin-chunk-<name>-<version>-<i>` its bytes in chunks of at most
//!   512 KiB (under Kafka's default 1 MB message limit): every worker
//!   installs it into its own registry.
//!
//! `status.storage.topic`:
//! - `status-task-<c>-<n>`: the task's state, trace and worker, written by
//!   the worker running it (a zombie's write is overwritten by the owner);
//! - `fenced-<c>-<n>`: the last instance of the task that was fenced;
//! - `topic:<c>:<topic>`: an active topic of the connector (KIP-558).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::Props;
use crate::connector::{TargetState, TaskState};

/// `connector-<c>`.
pub fn connector_key(c: &str) -> String {
    format!("connector-{c}")
}
/// `target-state-<c>`.
pub fn target_key(c: &str) -> String {
    format!("target-state-{c}")
}
/// `tasks-<c>`.
pub fn tasks_key(c: &str) -> String {
    format!("tasks-{c}")
}
/// `restart-<c>-<n>`.
pub fn restart_key(c: &str, task: u32) -> String {
    format!("restart-{c}-{task}")
}
/// `topics-reset-<c>`.
pub fn topics_reset_key(c: &str) -> String {
    format!("topics-reset-{c}")
}
/// `status-task-<c>-<n>`.
pub fn status_key(c: &str, task: u32) -> String {
    format!("status-task-{c}-{task}")
}
/// `status-connector-<c>`: a dynamic connector's state, published by the
/// worker that runs its instance.
pub fn connector_status_key(c: &str) -> String {
    format!("status-connector-{c}")
}
/// `fenced-<c>-<n>`.
pub fn fenced_key(c: &str, task: u32) -> String {
    format!("fenced-{c}-{task}")
}
/// `topic:<c>:<topic>` (topic names hold no `:`).
pub fn topic_key(c: &str, topic: &str) -> String {
    format!("topic:{c}:{topic}")
}

/// `logger-cluster-<namespace>` (Kafka Connect's key).
pub fn logger_key(namespace: &str) -> String {
    format!("logger-cluster-{namespace}")
}

/// Bytes per `plugin-chunk-...` record.
pub const PLUGIN_CHUNK_BYTES: usize = 512 * 1024;

/// `plugin-<name>-<version>`.
pub fn plugin_key(name: &str, version: &str) -> String {
    format!("plugin-{name}-{version}")
}
/// `plugin-chunk-<name>-<version>-<i>`.
pub fn plugin_chunk_key(name: &str, version: &str, i: usize) -> String {
    format!("plugin-chunk-{name}-{version}-{i}")
}

/// `plugin-<name>-<version>`: written after its chunks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginRecord {
    /// Plugin name.
    pub name: String,
    /// Version.
    pub version: String,
    /// `sha256:` of the whole component.
    pub digest: String,
    pub size: usize,
    /// How many chunks hold it.
    pub chunks: usize,
}

/// Every plugin manifest of the config topic's view.
pub fn plugins(view: &BTreeMap<String, Vec<u8>>) -> Vec<PluginRecord> {
    view.range("plugin-".to_owned().."plugin.".to_owned())
        .filter(|(k, _)| !k.starts_with("plugin-chunk-"))
        .filter_map(|(k, v)| decode::<PluginRecord>(k, v))
        .collect()
}

/// A plugin's bytes, put back together from its chunks; `None` if one is
/// missing or the digest does not match.
pub fn plugin_bytes(view: &BTreeMap<String, Vec<u8>>, p: &PluginRecord) -> Option<Vec<u8>> {
    use sha2::Digest as _;
    let mut bytes = Vec::with_capacity(p.size);
    for i in 0..p.chunks {
        bytes.extend_from_slice(view.get(&plugin_chunk_key(&p.name, &p.version, i))?);
    }
    let digest = format!("sha256:{:x}", sha2::Sha256::digest(&bytes));
    (digest == p.digest).then_some(bytes)
}

/// `connector-<c>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectorRecord {
    /// The connector's name.
    pub name: String,
    /// Its config, as given.
    pub config: Props,
}

/// `target-state-<c>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRecord {
    pub state: TargetState,
}

/// `tasks-<c>`: written by the worker that validated the config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TasksRecord {
    /// Changes whenever the config or task configs change.
    pub generation: String,
    /// `source` or `sink`.
    pub kind: String,
    /// The plugin's name.
    pub plugin: String,
    /// The component's version.
    pub version: String,
    /// The component's digest: every worker runs exactly this one.
    pub digest: String,
    /// Task `i`'s config at index `i` (empty when STOPPED).
    pub tasks: Vec<BTreeMap<String, String>>,
    /// The connector config they were made from: tasks run with this one,
    /// so a worker that read the new task configs but not yet the new
    /// connector record still runs a consistent pair.
    #[serde(default)]
    pub config: Props,
    /// The component runs a connector instance (`copycat:dynamic`): one
    /// worker runs it and writes new task configs when it asks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dynamic: bool,
}

/// `restart-<c>-<n>` and `topics-reset-<c>`: a request, told apart from
/// the previous one by its sequence number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    pub connector: String,
    /// The task (restarts).
    #[serde(default)]
    pub task: u32,
    /// Unique per request.
    pub seq: u64,
}

/// `logger-cluster-<namespace>`: a level for every worker, told apart from
/// the previous one by its sequence number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggerRecord {
    pub level: String,
    /// Unique per request.
    pub seq: u64,
}

/// The cluster-wide log levels of the config topic's view, by namespace.
pub fn loggers(view: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, LoggerRecord> {
    let prefix = "logger-cluster-";
    let mut end = prefix.to_owned();
    end.push('\u{10ffff}');
    view.range(prefix.to_owned()..end)
        .filter_map(|(k, v)| {
            let ns = k.strip_prefix(prefix)?;
            decode::<LoggerRecord>(k, v).map(|r| (ns.to_owned(), r))
        })
        .collect()
}

/// `status-task-<c>-<n>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusRecord {
    pub connector: String,
    pub task: u32,
    pub state: TaskState,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    pub worker_id: String,
    /// The `tasks-<c>` generation it runs.
    pub generation: String,
}

/// `status-connector-<c>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectorStatusRecord {
    pub connector: String,
    /// `RUNNING` or `FAILED`.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    pub worker_id: String,
}

/// `fenced-<c>-<n>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FencedRecord {
    /// The worker whose instance was fenced.
    pub worker_id: String,
    pub trace: String,
    /// When (Unix time, ms).
    pub at_ms: u64,
}

/// `topic:<c>:<topic>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopicRecord {
    pub connector: String,
    pub topic: String,
}

/// A connector as the config topic has it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorEntry {
    pub config: Props,
    /// Its target state (RUNNING when none was written).
    pub target: TargetState,
    /// Its task configs, once written.
    pub tasks: Option<TasksRecord>,
}

/// Decode a JSON value, `None` (with a warning) when it is not one.
pub fn decode<T: for<'de> Deserialize<'de>>(key: &str, value: &[u8]) -> Option<T> {
    match serde_json::from_slice(value) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::warn!(key, error = %e, "skipping an unreadable record of an internal topic");
            None
        }
    }
}

/// Encode a record.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// Every connector of the config topic's view.
pub fn connectors(view: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, ConnectorEntry> {
    let mut out = BTreeMap::new();
    for (key, value) in view.range("connector-".to_owned().."connector.".to_owned()) {
        if let Some(r) = decode::<ConnectorRecord>(key, value) {
            let target = view
                .get(&target_key(&r.name))
                .and_then(|v| decode::<TargetRecord>(&target_key(&r.name), v))
                .map_or(TargetState::Running, |t| t.state);
            let tasks = view
                .get(&tasks_key(&r.name))
                .and_then(|v| decode::<TasksRecord>(&tasks_key(&r.name), v));
            out.insert(
                r.name.clone(),
                ConnectorEntry {
                    config: r.config,
                    target,
                    tasks,
                },
            );
        }
    }
    out
}

/// The requests (restarts or topic resets) of the config topic's view, by key.
pub fn requests(view: &BTreeMap<String, Vec<u8>>, prefix: &str) -> BTreeMap<String, RequestRecord> {
    let mut end = prefix.to_owned();
    end.push('\u{10ffff}');
    view.range(prefix.to_owned()..end)
        .filter_map(|(k, v)| decode::<RequestRecord>(k, v).map(|r| (k.clone(), r)))
        .collect()
}

/// A connector's active topics in the status topic's view.
pub fn topics(view: &BTreeMap<String, Vec<u8>>, connector: &str) -> Vec<String> {
    let prefix = format!("topic:{connector}:");
    let mut end = prefix.clone();
    end.push('\u{10ffff}');
    view.range(prefix..end)
        .filter_map(|(k, v)| decode::<TopicRecord>(k, v))
        .filter(|t| t.connector == connector)
        .map(|t| t.topic)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connectors_join_their_records() {
        let mut view = BTreeMap::new();
        let cfg: Props = [("connector.class".to_owned(), "datagen".to_owned())].into();
        view.insert(
            connector_key("a-b"),
            encode(&ConnectorRecord {
                name: "a-b".into(),
                config: cfg.clone(),
            }),
        );
        view.insert(
            target_key("a-b"),
            encode(&TargetRecord {
                state: TargetState::Paused,
            }),
        );
        view.insert(connector_key("z"), b"not json".to_vec());
        let all = connectors(&view);
        assert_eq!(all.len(), 1, "the unreadable record is skipped");
        assert_eq!(all["a-b"].target, TargetState::Paused);
        assert_eq!(all["a-b"].config, cfg);
        assert!(all["a-b"].tasks.is_none());
    }

    #[test]
    fn topics_are_per_connector() {
        let mut view = BTreeMap::new();
        for (c, t) in [("a", "t1"), ("a", "t2"), ("ab", "t3")] {
            view.insert(
                topic_key(c, t),
                encode(&TopicRecord {
                    connector: c.into(),
                    topic: t.into(),
                }),
            );
        }
        assert_eq!(topics(&view, "a"), vec!["t1", "t2"]);
    }
}
