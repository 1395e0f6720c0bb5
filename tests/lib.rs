//! Helpers for Copycat's integration tests: a real Kafka broker (address from
//! `KAFKA_BOOTSTRAP`), random topic and connector names, the built connector
//! components, and polling with deadlines instead of sleeps.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use rand::Rng;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};

/// The broker under test.
pub fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `copycat` binary (`just test` builds it): next to the test binary's
/// `deps/` directory.
pub fn copycat_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("copycat");
    assert!(bin.is_file(), "{} is missing: build the workspace", bin.display());
    bin
}

/// A shipped connector component, e.g. `plugin("datagen")`.
pub fn plugin(name: &str) -> PathBuf {
    let dir = std::env::var_os("COPYCAT_PLUGIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("build/plugins"));
    let p = dir.join(format!("{name}.wasm"));
    assert!(p.is_file(), "{} is missing: run `just build-connectors`", p.display());
    p
}

/// The plugin directory (for `plugin.path`).
pub fn plugin_dir() -> PathBuf {
    plugin("datagen").parent().unwrap().to_owned()
}

/// A test fixture component, e.g. `fixture("trap")`.
pub fn fixture(name: &str) -> PathBuf {
    let dir = std::env::var_os("COPYCAT_FIXTURE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("build/fixtures"));
    let p = dir.join(format!("{name}.wasm"));
    assert!(p.is_file(), "{} is missing: run `just build-connectors`", p.display());
    p
}

/// A name no other test uses.
pub fn unique(prefix: &str) -> String {
    let n: u64 = rand::rng().random();
    format!("{prefix}-{n:016x}")
}

/// Install a log subscriber once (RUST_LOG controls it).
pub fn init_logging() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_test_writer()
        .try_init();
}

/// Props from `key=value` pairs.
pub fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A worker config for the test broker with its own offsets topic and a
/// short flush interval.
pub fn worker_config(offsets_topic: &str) -> WorkerConfig {
    worker_config_with(offsets_topic, &[])
}

/// [`worker_config`] plus `extra` worker keys.
pub fn worker_config_with(offsets_topic: &str, extra: &[(&str, &str)]) -> WorkerConfig {
    let dir = plugin_dir();
    let mut p = props(&[
        ("bootstrap.servers", &bootstrap()),
        ("plugin.path", dir.to_str().unwrap()),
        ("offset.storage.topic", offsets_topic),
        ("offset.storage.partitions", "3"),
        ("offset.flush.interval.ms", "200"),
        ("task.call.timeout.ms", "2000"),
    ]);
    p.extend(props(extra));
    WorkerConfig::from_props(p).unwrap()
}

/// Start a worker on the test broker.
pub async fn worker(offsets_topic: &str) -> Worker {
    init_logging();
    Worker::start(worker_config(offsets_topic)).await.unwrap()
}

/// A connector config checked against `worker`.
pub fn connector(worker: &Worker, pairs: &[(&str, &str)]) -> ConnectorConfig {
    ConnectorConfig::from_props(props(pairs), worker.config()).unwrap()
}

/// Create `topic` with `partitions` partitions.
pub async fn create_topic(topic: &str, partitions: i32) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let res = admin
        .create_topics(
            [&NewTopic::new(topic, partitions, TopicReplication::Fixed(1))],
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(30))),
        )
        .await
        .unwrap();
    for r in res {
        r.unwrap();
    }
}

/// Produce `(key, value)` records to `topic`, partition by partition.
pub fn produce(topic: &str, partition: Option<i32>, records: &[(String, String)]) {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    for (k, v) in records {
        let mut r = BaseRecord::to(topic).key(k.as_str()).payload(v.as_str());
        if let Some(p) = partition {
            r = r.partition(p);
        }
        producer.send(r).map_err(|(e, _)| e).unwrap();
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(30)).unwrap();
}

/// A record read back from Kafka.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Read {
    /// Partition.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
    /// Key as text.
    pub key: Option<String>,
    /// Value as text.
    pub value: Option<String>,
}

/// Every record of `topic` up to its current end, read_committed.
pub fn read_topic(topic: &str) -> Vec<Read> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("reader"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .unwrap();
    let md = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).unwrap();
    let mut tpl = TopicPartitionList::new();
    let mut ends = BTreeMap::new();
    for p in md.topics()[0].partitions() {
        let (lo, hi) = consumer
            .fetch_watermarks(topic, p.id(), Duration::from_secs(10))
            .unwrap();
        if hi > lo {
            ends.insert(p.id(), hi);
            tpl.add_partition_offset(topic, p.id(), Offset::Beginning).unwrap();
        }
    }
    let mut out = Vec::new();
    if ends.is_empty() {
        return out;
    }
    consumer.assign(&tpl).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ends.is_empty() {
        assert!(
            Instant::now() < deadline,
            "reading {topic} timed out; still missing {ends:?}"
        );
        let Some(m) = consumer.poll(Duration::from_millis(200)) else {
            // The last offsets may be transaction markers, never delivered:
            // a partition is done when the consumer's position reached its end.
            for e in consumer.position().unwrap().elements() {
                if let (Offset::Offset(pos), Some(end)) = (e.offset(), ends.get(&e.partition()))
                    && pos >= *end
                {
                    ends.remove(&e.partition());
                }
            }
            continue;
        };
        let m = m.unwrap();
        out.push(Read {
            partition: m.partition(),
            offset: m.offset(),
            key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
            value: m.payload().map(|v| String::from_utf8_lossy(v).into_owned()),
        });
        if ends.get(&m.partition()).is_some_and(|end| m.offset() + 1 >= *end) {
            ends.remove(&m.partition());
        }
    }
    out
}

/// The sum of `topic`'s end offsets.
pub fn topic_size(topic: &str) -> i64 {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let Ok(md) = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)) else {
        return 0;
    };
    md.topics()[0]
        .partitions()
        .iter()
        .map(|p| {
            consumer
                .fetch_watermarks(topic, p.id(), Duration::from_secs(10))
                .map(|(lo, hi)| hi - lo)
                .unwrap_or(0)
        })
        .sum()
}

/// Poll `check` until it returns `Some`, or panic with `what` after `timeout`.
pub fn eventually<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Run a future to completion on a fresh runtime (tests are synchronous).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// Start a worker on the test broker, synchronously.
pub fn start_worker(offsets_topic: &str) -> Worker {
    block_on(worker(offsets_topic))
}

/// The states of a connector's tasks, e.g. `["RUNNING", "FAILED"]`.
pub fn task_states(worker: &Worker, name: &str) -> Vec<(String, Option<String>)> {
    worker
        .status(name)
        .unwrap()
        .tasks
        .into_iter()
        .map(|t| {
            let state = serde_json::to_value(t.state).unwrap().as_str().unwrap().to_owned();
            (state, t.trace)
        })
        .collect()
}

/// A `copycat standalone` process with a worker config written from
/// `worker.properties` lines; killed when dropped.
pub struct Standalone {
    child: Option<std::process::Child>,
    /// The REST API's base URL (`http://` or `https://`, the bound port).
    pub url: String,
    /// The address the REST API listens on.
    pub addr: std::net::SocketAddr,
}

impl Standalone {
    /// Start `copycat standalone <dir>/worker.properties` with the test
    /// broker, the built plugins, a fresh offsets topic, a free port and
    /// `extra` worker lines (which may set `listeners`); wait until the REST
    /// API listens.
    pub fn start(dir: &std::path::Path, extra: &str) -> Self {
        use std::io::BufRead;
        let worker = dir.join("worker.properties");
        std::fs::write(
            &worker,
            format!(
                "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={}\noffset.storage.partitions=3\noffset.flush.interval.ms=200\nstate.dir={}/state\n{}\n{extra}\n",
                bootstrap(),
                plugin_dir().display(),
                unique("offsets"),
                dir.display(),
                if extra.contains("listeners=") { "" } else { "listeners=http://127.0.0.1:0" },
            ),
        )
        .unwrap();
        let mut child = std::process::Command::new(copycat_bin())
            .arg("standalone")
            .arg(&worker)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("REST API listening")
                    && let Some(url) = line.split("url=").nth(1).and_then(|s| s.split_whitespace().next())
                    && let Some(addr) = line.split("address=").nth(1)
                {
                    let _ = tx.send((url.to_owned(), addr.trim().parse().unwrap()));
                }
                if line.contains("ERROR") || line.starts_with("error") {
                    eprintln!("copycat standalone: {line}");
                }
            }
        });
        let mut process = Self {
            child: Some(child),
            url: String::new(),
            addr: "127.0.0.1:0".parse().unwrap(),
        };
        let (url, addr) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("copycat standalone logs the REST API's address");
        process.url = url;
        process.addr = addr;
        process
    }
}

impl Standalone {
    /// SIGTERM, then the process must exit 0 (a graceful stop) in time.
    pub fn terminate(mut self) {
        let mut child = self.child.take().unwrap();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let exit = eventually("copycat standalone exits", Duration::from_secs(60), || {
            child.try_wait().unwrap()
        });
        assert!(exit.success(), "exit 0 after SIGTERM, got {exit:?}");
    }
}

impl Drop for Standalone {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
