//! Distributed mode's worker keys (`copycat worker worker.properties`),
//! with Kafka Connect's names: the cluster's `group.id`, its internal
//! topics, and how fast a dead worker is noticed.

use std::time::Duration;

use super::reader::{ConfigError, Reader};
use super::worker::WorkerConfig;

/// Settings of a worker in a cluster.
#[derive(Debug, Clone)]
pub struct DistributedConfig {
    /// `group.id`: the cluster's name; every worker with the same one joins
    /// the same cluster. Required.
    pub group_id: String,
    /// `config.storage.topic`: compacted, one partition; connector configs,
    /// target states, task configs and restart requests. Required.
    pub config_topic: String,
    /// `config.storage.replication.factor` (-1: the broker's default).
    pub config_replication: i32,
    /// `status.storage.topic`: compacted; task states and active topics.
    /// Required.
    pub status_topic: String,
    /// `status.storage.partitions` (default 5).
    pub status_partitions: i32,
    /// `status.storage.replication.factor` (-1: the broker's default).
    pub status_replication: i32,
    /// `session.timeout.ms`: how long the group coordinator waits for a
    /// silent worker before its tasks move (default 6000, the broker's
    /// minimum; Kafka Connect's is 10000).
    pub session_timeout: Duration,
    /// `heartbeat.interval.ms` (default a third of the session timeout).
    pub heartbeat_interval: Duration,
    /// `worker.sync.interval.ms`: how often a worker reads the config and
    /// status topics and the group's members and acts on them (default 250).
    pub sync_interval: Duration,
    /// `rest.advertised.host.name` / `rest.advertised.port`: the address
    /// other workers and clients know this worker by, and its id in the
    /// cluster (default: the REST listener's bound address).
    pub advertised_host: Option<String>,
    /// See [`DistributedConfig::advertised_host`].
    pub advertised_port: Option<u16>,
}

impl DistributedConfig {
    /// Read the distributed keys of a worker config; a missing required key
    /// or a bad value is an error naming the key.
    pub fn from_worker(worker: &WorkerConfig) -> Result<Self, ConfigError> {
        let mut r = Reader::new(&worker.raw);
        let group_id = r.required("group.id");
        let config_topic = r.required("config.storage.topic");
        let status_topic = r.required("status.storage.topic");
        if !worker.raw.contains_key("offset.storage.topic") {
            r.problems.push((
                "offset.storage.topic".into(),
                "required in distributed mode: every worker of the cluster must name the same offsets topic".into(),
            ));
        }
        let session_ms: u64 = r.parse("session.timeout.ms", 6_000);
        let heartbeat_ms: u64 = r.parse("heartbeat.interval.ms", (session_ms / 3).max(100));
        let cfg = Self {
            group_id,
            config_topic,
            config_replication: r.parse("config.storage.replication.factor", -1),
            status_topic,
            status_partitions: r.parse("status.storage.partitions", 5),
            status_replication: r.parse("status.storage.replication.factor", -1),
            session_timeout: Duration::from_millis(session_ms),
            heartbeat_interval: Duration::from_millis(heartbeat_ms),
            sync_interval: Duration::from_millis(r.parse("worker.sync.interval.ms", 250)),
            advertised_host: r.str("rest.advertised.host.name").map(str::to_owned),
            advertised_port: r
                .str("rest.advertised.port")
                .map(|_| r.parse("rest.advertised.port", 0u16)),
        };
        if cfg.status_partitions < 1 {
            r.problems
                .push(("status.storage.partitions".into(), "must be at least 1".into()));
        }
        if heartbeat_ms >= session_ms {
            r.problems.push((
                "heartbeat.interval.ms".into(),
                format!("must be below session.timeout.ms ({session_ms})"),
            ));
        }
        if cfg.sync_interval.is_zero() {
            r.problems
                .push(("worker.sync.interval.ms".into(), "must be positive".into()));
        }
        for (key, topic) in [
            ("config.storage.topic", &cfg.config_topic),
            ("status.storage.topic", &cfg.status_topic),
        ] {
            if !topic.is_empty() && *topic == worker.offset_storage_topic {
                r.problems.push((
                    key.into(),
                    format!("'{topic}' is also offset.storage.topic; each internal topic must be its own"),
                ));
            }
        }
        if !cfg.config_topic.is_empty() && cfg.config_topic == cfg.status_topic {
            r.problems.push((
                "status.storage.topic".into(),
                format!(
                    "'{}' is also config.storage.topic; each internal topic must be its own",
                    cfg.status_topic
                ),
            ));
        }
        r.finish(" (distributed mode)".into())?;
        Ok(cfg)
    }

    /// This worker's id in the cluster and in status bodies: the advertised
    /// `host:port`, or the REST listener's bound address (with the
    /// machine's host name for a wildcard address such as `0.0.0.0`, which
    /// every worker would share).
    pub fn worker_id(&self, bound: &str) -> String {
        let (host, port) = bound.rsplit_once(':').unwrap_or((bound, ""));
        let wildcard = matches!(host, "0.0.0.0" | "[::]" | "::" | "");
        let local = wildcard.then(host_name);
        let host = self.advertised_host.as_deref().or(local.as_deref()).unwrap_or(host);
        match self.advertised_port {
            Some(p) => format!("{host}:{p}"),
            None => format!("{host}:{port}"),
        }
    }
}

/// The machine's host name (`localhost` when it cannot be read).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Props;

    fn worker(pairs: &[(&str, &str)]) -> WorkerConfig {
        let props: Props = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        WorkerConfig::from_props(props).unwrap()
    }

    #[test]
    fn required_keys_are_named() {
        let e = DistributedConfig::from_worker(&worker(&[])).unwrap_err().to_string();
        for key in [
            "group.id",
            "config.storage.topic",
            "status.storage.topic",
            "offset.storage.topic",
        ] {
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn defaults_and_worker_id() {
        let c = DistributedConfig::from_worker(&worker(&[
            ("group.id", "g"),
            ("config.storage.topic", "c"),
            ("status.storage.topic", "s"),
            ("offset.storage.topic", "o"),
        ]))
        .unwrap();
        assert_eq!(c.session_timeout, Duration::from_secs(6));
        assert_eq!(c.heartbeat_interval, Duration::from_secs(2));
        assert_eq!(c.worker_id("127.0.0.1:8083"), "127.0.0.1:8083");
        assert_eq!(c.worker_id("0.0.0.0:8083"), format!("{}:8083", host_name()));
        let c = DistributedConfig {
            advertised_host: Some("w1.example".into()),
            ..c
        };
        assert_eq!(c.worker_id("0.0.0.0:8083"), "w1.example:8083");
    }

    #[test]
    fn topics_must_differ_and_heartbeat_below_session() {
        let e = DistributedConfig::from_worker(&worker(&[
            ("group.id", "g"),
            ("config.storage.topic", "same"),
            ("status.storage.topic", "same"),
            ("offset.storage.topic", "o"),
            ("session.timeout.ms", "6000"),
            ("heartbeat.interval.ms", "7000"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("status.storage.topic") && e.contains("heartbeat.interval.ms"),
            "{e}"
        );
    }
}
