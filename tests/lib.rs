//! Helpers for Copycat's integration tests: a real Kafka broker (address from
//! `KAFKA_BOOTSTRAP`), random topic and connector names, the built connector
//! components, and polling with deadlines instead of sleeps.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
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

/// The committed sequence number of stream `stream` of a counter source,
/// in a connector's offsets (source partition → offset, as
/// `read_connector` returns them): datagen's (contract 0.3.0, Kafka
/// Connect's maps) `{"stream":"stream-<i>"}` → `{"seq":<n>}`, or the
/// examples' (0.1.0, 0.2.0) `stream-<i>` → `"<n>"`.
pub fn committed_seq(committed: &std::collections::HashMap<String, String>, stream: u32) -> Option<u64> {
    if let Some(offset) = committed.get(&format!(r#"{{"stream":"stream-{stream}"}}"#)) {
        let offset: serde_json::Value = serde_json::from_str(offset).ok()?;
        return offset["seq"].as_u64();
    }
    committed.get(&format!("stream-{stream}"))?.parse().ok()
}

/// A child process (a `copycat standalone` worker) killed and reaped when
/// dropped, so a test that panics leaves no worker running (one left by a
/// failed HDFS chaos test ran for over an hour beside later runs).
pub struct Reaped(pub std::process::Child);

impl std::ops::Deref for Reaped {
    type Target = std::process::Child;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Reaped {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The chaos tests run at once after the others; the one that restarts
/// the broker holds this for writing, the others for reading, so no test
/// produces while the broker is down (CI47: the HDFS chaos test's producer
/// timed out during the broker's restart).
pub static BROKER_RESTARTS: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// For a chaos test that needs the broker up throughout.
pub fn broker_stays_up() -> std::sync::RwLockReadGuard<'static, ()> {
    BROKER_RESTARTS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// For a chaos test that restarts the broker.
pub fn broker_may_restart() -> std::sync::RwLockWriteGuard<'static, ()> {
    BROKER_RESTARTS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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
pub async fn worker(offsets_topic: &str) -> Arc<Worker> {
    init_logging();
    Worker::start(worker_config(offsets_topic)).await.unwrap()
}

/// A connector config checked against `worker`.
pub fn connector(worker: &Worker, pairs: &[(&str, &str)]) -> ConnectorConfig {
    ConnectorConfig::from_props(props(pairs), worker.config()).unwrap()
}

/// Create `topic` with `partitions` partitions.
pub async fn create_topic(topic: &str, partitions: i32) {
    create_topic_with(topic, partitions, &[]).await;
}

/// Create `topic` with `partitions` partitions and the topic configs
/// `configs` (e.g. `max.message.bytes`).
pub async fn create_topic_with(topic: &str, partitions: i32, configs: &[(&str, &str)]) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let new = configs.iter().fold(
        NewTopic::new(topic, partitions, TopicReplication::Fixed(1)),
        |t, (k, v)| t.set(k, v),
    );
    let res = admin
        .create_topics(
            [&new],
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
    read_messages(topic, |m| Read {
        partition: m.partition(),
        offset: m.offset(),
        key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
        value: m.payload().map(|v| String::from_utf8_lossy(v).into_owned()),
    })
}

/// `read` of every record of `topic` up to its current end, read_committed.
pub fn read_messages<T>(topic: &str, mut read: impl FnMut(&rdkafka::message::BorrowedMessage<'_>) -> T) -> Vec<T> {
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
        out.push(read(&m));
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
pub fn start_worker(offsets_topic: &str) -> Arc<Worker> {
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

/// One HTTP/1.1 request to `addr`; the status and the body (JSON, or a
/// string; `Null` when empty).
pub fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: Option<&serde_json::Value>,
) -> (u16, serde_json::Value) {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    http_bytes(addr, method, path, "application/json", body.as_bytes())
}

/// [`http`] with a raw body of `content_type`.
pub fn http_bytes(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> (u16, serde_json::Value) {
    use std::io::{Read as _, Write as _};
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(90))).unwrap();
    // A server may answer (413) before reading a large body.
    let _ = s.write_all(&req);
    let mut resp = Vec::new();
    let _ = s.read_to_end(&mut resp);
    let resp = String::from_utf8_lossy(&resp).into_owned();
    let status: u16 = resp.split(' ').nth(1).unwrap().parse().unwrap();
    let body = resp.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    let value = if body.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(body).unwrap_or_else(|_| serde_json::Value::String(body.to_owned()))
    };
    (status, value)
}

/// A free TCP port on 127.0.0.1 (free when asked; bound again by the caller).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `copycat worker` process (distributed mode) on a fixed port, so a
/// restarted worker keeps its id; its log goes to `<dir>/<name>.log`;
/// killed when dropped.
pub struct ClusterWorker {
    child: Option<std::process::Child>,
    /// The worker's config file.
    pub config: PathBuf,
    /// The REST API's address (also the worker's id).
    pub addr: std::net::SocketAddr,
    log: PathBuf,
    /// `RUST_LOG` of the process (else the test's, else `info`).
    rust_log: Option<String>,
}

impl ClusterWorker {
    /// Write `<dir>/<name>.properties` for the cluster `group` (topics named
    /// after it) with `extra` lines, and start the worker.
    pub fn start(dir: &std::path::Path, name: &str, group: &str, extra: &str) -> Self {
        Self::start_on(dir, name, group, &bootstrap(), extra)
    }

    /// [`ClusterWorker::start`] with the cluster at `bootstrap` (e.g. one
    /// of the broker's secure listeners).
    pub fn start_on(dir: &std::path::Path, name: &str, group: &str, bootstrap: &str, extra: &str) -> Self {
        Self::start_logging(dir, name, group, bootstrap, extra, None)
    }

    /// [`ClusterWorker::start_on`] with the process's `RUST_LOG`.
    pub fn start_logging(
        dir: &std::path::Path,
        name: &str,
        group: &str,
        bootstrap: &str,
        extra: &str,
        rust_log: Option<&str>,
    ) -> Self {
        let port = free_port();
        let fixtures = fixture("tagged-v1").parent().unwrap().to_owned();
        let config = dir.join(format!("{name}.properties"));
        std::fs::write(
            &config,
            format!(
                "bootstrap.servers={}\nplugin.path={},{}\ngroup.id={group}\nconfig.storage.topic={group}-configs\n\
                 status.storage.topic={group}-status\noffset.storage.topic={group}-offsets\noffset.storage.partitions=3\n\
                 offset.flush.interval.ms=200\nlisteners=http://127.0.0.1:{port}\nstate.dir={}/{name}\n{extra}\n",
                bootstrap,
                plugin_dir().display(),
                fixtures.display(),
                dir.display(),
            ),
        )
        .unwrap();
        let mut w = Self {
            child: None,
            config,
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
            log: dir.join(format!("{name}.log")),
            rust_log: rust_log.map(str::to_owned),
        };
        w.restart();
        w
    }

    /// The worker's id in status bodies.
    pub fn id(&self) -> String {
        self.addr.to_string()
    }

    /// Start the process again (after [`ClusterWorker::kill`] or
    /// [`ClusterWorker::terminate`]); wait until its REST API answers.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "the worker still runs");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = std::process::Command::new(copycat_bin())
            .arg("worker")
            .arg(&self.config)
            .env(
                "RUST_LOG",
                self.rust_log
                    .clone()
                    .or_else(|| std::env::var("RUST_LOG").ok())
                    .unwrap_or_else(|| "info".into()),
            )
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let addr = self.addr;
        let log = self.log.clone();
        eventually(
            &format!("worker {addr} answers (log: {})", log.display()),
            Duration::from_secs(60),
            || {
                if let Some(c) = self.child.as_mut()
                    && let Some(exit) = c.try_wait().unwrap()
                {
                    panic!(
                        "worker {addr} exited with {exit}: {}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    );
                }
                std::net::TcpStream::connect(addr).ok().map(|_| ())
            },
        );
    }

    /// SIGKILL: the worker dies without a word.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, then the process must exit 0 (a graceful stop) in time.
    pub fn terminate(&mut self) {
        let mut child = self.child.take().unwrap();
        self.signal_pid(child.id(), "TERM");
        let exit = eventually("copycat worker exits", Duration::from_secs(60), || {
            child.try_wait().unwrap()
        });
        assert!(exit.success(), "exit 0 after SIGTERM, got {exit:?}");
    }

    /// Send `signal` (`STOP`, `CONT`, ...) to the process.
    pub fn signal(&self, signal: &str) {
        self.signal_pid(self.child.as_ref().unwrap().id(), signal);
    }

    fn signal_pid(&self, pid: u32, signal: &str) {
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{signal} {pid}");
    }

    /// `GET path` on this worker.
    pub fn get(&self, path: &str) -> (u16, serde_json::Value) {
        http(self.addr, "GET", path, None)
    }

    /// A request with a JSON body on this worker.
    pub fn send(&self, method: &str, path: &str, body: &serde_json::Value) -> (u16, serde_json::Value) {
        http(self.addr, method, path, Some(body))
    }

    /// The worker's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for ClusterWorker {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
            if std::thread::panicking() {
                let log = self.log();
                let lines: Vec<&str> = log.lines().collect();
                let tail = lines[lines.len().saturating_sub(60)..].join("\n");
                eprintln!("--- last lines of worker {}'s log ---\n{tail}", self.addr);
            }
        }
    }
}
