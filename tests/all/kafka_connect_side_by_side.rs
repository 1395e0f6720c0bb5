//! Side by side with the real Kafka Connect: Apache Kafka Connect 4.4's own
//! `FileStreamSinkConnector` with its `JsonConverter` (ConnectStandalone,
//! the jars from Maven Central through `scripts/kafka-connect.sh`) reads the
//! topic Copycat's datagen wrote with `record.mode=typed` through
//! StringConverter/JsonConverter, and writes the same lines, partition by
//! partition in the same order, as Copycat's file-sink with
//! `value.converter=JsonConverter` and `value.format=string` (Java's
//! `toString()` of each value, FileStreamSink's line).
//!
//! Kafka Connect runs where its jars and Java are: the test fetches the
//! jars (`scripts/kafka-connect.sh fetch`, which needs java, javac and mvn)
//! when `COPYCAT_LOCAL_KAFKA=1` (`just test` against its own broker, as CI
//! runs it), and fails if that fails; otherwise, without the jars, it is
//! skipped with a message.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use copycat_data::string::to_java_string;
use copycat_datagen::{typed_schema, typed_value};
use copycat_tests::*;

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";
const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";
const KAFKA_CONNECT: &str = "4.4.0";

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/kafka-connect.sh")
}

/// Whether Kafka Connect can run: its jars fetched (or fetched now, when
/// `COPYCAT_LOCAL_KAFKA=1`) and `java` on the PATH. `Err` says why not.
pub(crate) fn kafka_connect_available() -> Result<(), String> {
    let cache = std::env::var_os("COPYCAT_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/copycat")))
        .unwrap_or_default();
    let fetched = cache
        .join(format!("kafka-connect-{KAFKA_CONNECT}/libs/.complete"))
        .is_file();
    let java = Command::new("java")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if fetched && java {
        return Ok(());
    }
    if std::env::var("COPYCAT_LOCAL_KAFKA").is_ok_and(|v| v == "1") {
        let started = Instant::now();
        let out = Command::new(script()).arg("fetch").output().unwrap();
        assert!(
            out.status.success(),
            "scripts/kafka-connect.sh fetch failed (it needs java 17+, javac, mvn and Maven Central): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("scripts/kafka-connect.sh fetch: {:.1?}", started.elapsed());
        return Ok(());
    }
    Err(format!(
        "{} (set COPYCAT_LOCAL_KAFKA=1 to fetch them, or run `scripts/kafka-connect.sh fetch`)",
        if java {
            format!("Kafka Connect {KAFKA_CONNECT}'s jars are not under {}", cache.display())
        } else {
            "java is not on the PATH".to_owned()
        }
    ))
}

/// Kafka Connect's ConnectStandalone (or ConnectDistributed, through
/// [`ConnectStandalone::launch`]), in its own process group (the script
/// `exec`s java), its output in a log file; the group is killed when this
/// is dropped, even on a panic (which prints the log's end).
pub(crate) struct ConnectStandalone {
    child: Option<Child>,
    log: PathBuf,
}

impl ConnectStandalone {
    /// Run `scripts/kafka-connect.sh standalone <worker> <connector>` with
    /// the worker keys and the connector keys given, written into `dir`.
    pub(crate) fn start(dir: &Path, worker: &[(&str, &str)], connector: &[(&str, &str)]) -> Self {
        let write = |name: &str, keys: &[(&str, &str)]| {
            let path = dir.join(name);
            let text: String = keys.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
            std::fs::write(&path, text).unwrap();
            path
        };
        let (worker, connector) = (
            write("kc-worker.properties", worker),
            write("kc-connector.properties", connector),
        );
        Self::launch(dir, "standalone", &[worker, connector])
    }

    /// Run `scripts/kafka-connect.sh <command> <files>...` (`standalone
    /// WORKER [CONN...]` or `distributed WORKER`), its log in
    /// `dir/kafka-connect.log`.
    pub(crate) fn launch(dir: &Path, command: &str, files: &[PathBuf]) -> Self {
        let log = dir.join("kafka-connect.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new("bash")
            .arg(script())
            .arg(command)
            .args(files)
            // Java's Date.toString() prints in the JVM's default time zone.
            .env("KAFKA_CONNECT_OPTS", "-Duser.timezone=UTC")
            .env("KAFKA_CONNECT_HEAP_OPTS", "-Xms64m -Xmx512m")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .process_group(0)
            .spawn()
            .unwrap();
        Self {
            child: Some(child),
            log,
        }
    }

    /// Panic with the log's tail if the process has exited.
    pub(crate) fn check_running(&mut self) {
        if let Some(c) = self.child.as_mut()
            && let Some(exit) = c.try_wait().unwrap()
        {
            panic!("Kafka Connect exited with {exit}:\n{}", self.log_tail());
        }
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(60)..].join("\n")
    }

    /// Send `signal` to the process group.
    fn signal(&self, signal: &str) {
        if let Some(c) = &self.child {
            let _ = Command::new("kill")
                .args([&format!("-{signal}"), "--", &format!("-{}", c.id())])
                .stderr(Stdio::null())
                .status();
        }
    }

    /// SIGTERM (ConnectStandalone's shutdown hook stops the connector and
    /// the worker), then wait for the exit.
    pub(crate) fn stop(mut self) -> Duration {
        let started = Instant::now();
        self.signal("TERM");
        // The child stays in `self` meanwhile: a timeout kills the group.
        let exit = eventually("Kafka Connect exits after SIGTERM", Duration::from_secs(60), || {
            self.child.as_mut().unwrap().try_wait().unwrap()
        });
        self.child = None;
        // 143: the JVM's exit after its shutdown hooks ran on SIGTERM.
        assert!(
            exit.success() || exit.code() == Some(143),
            "Kafka Connect's exit after SIGTERM: {exit}\n{}",
            self.log_tail()
        );
        started.elapsed()
    }
}

impl Drop for ConnectStandalone {
    fn drop(&mut self) {
        if self.child.is_some() {
            if std::thread::panicking() {
                eprintln!(
                    "Kafka Connect's log ({}), its end:\n{}",
                    self.log.display(),
                    self.log_tail()
                );
            }
            self.signal("KILL");
            if let Some(mut c) = self.child.take() {
                let _ = c.wait();
            }
        }
    }
}

/// Fail at once, with its trace, if a task of `name` failed.
pub(crate) fn no_failed_task(worker: &copycat_runtime::Worker, name: &str) {
    if let Some((_, trace)) = task_states(worker, name).into_iter().find(|(s, _)| s == "FAILED") {
        panic!("a task of {name} failed: {}", trace.unwrap_or_default());
    }
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The stream of a FileStreamSink line of datagen's record:
/// `Struct{stream=<i>,...`.
fn stream_of(line: &str) -> u32 {
    let rest = line
        .strip_prefix("Struct{stream=")
        .unwrap_or_else(|| panic!("not a datagen struct: {line}"));
    rest[..rest.find(',').unwrap()].parse().unwrap()
}

#[test]
fn kafka_connect_file_stream_sink_writes_the_same_lines_as_the_file_sink() {
    if let Err(why) = kafka_connect_available() {
        eprintln!("skipped: {why}");
        return;
    }
    init_logging();
    let started = Instant::now();
    let (streams, count) = (3u32, 300u64);
    let total = u64::from(streams) * count;
    let topic = unique("side-by-side");
    block_on(create_topic(&topic, streams as i32));
    let dir = tempfile::tempdir().unwrap();

    // Kafka Connect first: its JVM starts while Copycat writes the topic.
    let kc_file = dir.path().join("kafka-connect.txt");
    let kc_name = unique("kc-file-sink");
    let rest_port = free_port().to_string();
    let mut kc = ConnectStandalone::start(
        dir.path(),
        &[
            ("bootstrap.servers", &bootstrap()),
            ("key.converter", STRING),
            ("value.converter", JSON),
            (
                "offset.storage.file.filename",
                dir.path().join("kc-offsets").to_str().unwrap(),
            ),
            ("offset.flush.interval.ms", "1000"),
            ("listeners", &format!("http://127.0.0.1:{rest_port}")),
        ],
        &[
            // The sink's consumer group is connect-<name>: unique too.
            ("name", &kc_name),
            (
                "connector.class",
                "org.apache.kafka.connect.file.FileStreamSinkConnector",
            ),
            ("tasks.max", "1"),
            ("topics", &topic),
            ("file", kc_file.to_str().unwrap()),
            ("key.converter", STRING),
            ("value.converter", JSON),
        ],
    );

    // Copycat: datagen's typed records (stream i to partition i) and a
    // file-sink writing FileStreamSink's lines, a file per partition.
    let worker = start_worker(&unique("offsets"));
    let source = unique("dg-side-by-side");
    let (streams_s, count_s) = (streams.to_string(), count.to_string());
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("streams", &streams_s),
                ("count", &count_s),
                ("topic.partitions", &streams_s),
                ("record.mode", "typed"),
                ("key.converter", STRING),
                ("value.converter", JSON),
            ],
        ))
        .unwrap();
    let out = dir.path().join("copycat");
    std::fs::create_dir_all(&out).unwrap();
    let sink = unique("fs-side-by-side");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &sink),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", out.to_str().unwrap()),
                ("grants.fs.write", out.to_str().unwrap()),
                ("key.converter", STRING),
                ("value.converter", JSON),
                ("value.format", "string"),
            ],
        ))
        .unwrap();

    let partition_file = |p: u32| out.join(format!("{topic}-{p}.txt"));
    let (copycat, kafka_connect) = eventually(
        "Copycat's file-sink and Kafka Connect's FileStreamSink write every record",
        Duration::from_secs(240),
        || {
            no_failed_task(&worker, &source);
            no_failed_task(&worker, &sink);
            kc.check_running();
            let copycat: Vec<Vec<String>> = (0..streams).map(|p| lines_of(&partition_file(p))).collect();
            let kafka_connect = lines_of(&kc_file);
            let written = copycat.iter().map(Vec::len).sum::<usize>() as u64;
            (written >= total && kafka_connect.len() as u64 >= total).then_some((copycat, kafka_connect))
        },
    );
    let written = started.elapsed();
    worker.shutdown();
    let stopped = kc.stop();

    // Every record once on each side.
    assert_eq!(
        copycat.iter().map(Vec::len).sum::<usize>() as u64,
        total,
        "Copycat's lines"
    );
    assert_eq!(kafka_connect.len() as u64, total, "Kafka Connect's lines");
    // The same multiset of lines ...
    let mut multiset: BTreeMap<&str, i64> = BTreeMap::new();
    for line in copycat.iter().flatten() {
        *multiset.entry(line).or_default() += 1;
    }
    for line in &kafka_connect {
        *multiset.entry(line).or_default() -= 1;
    }
    let differ: Vec<_> = multiset.iter().filter(|(_, n)| **n != 0).take(10).collect();
    assert!(
        differ.is_empty(),
        "lines only Copycat (+n) or only Kafka Connect (-n) wrote: {differ:#?}"
    );
    // ... and within a partition (stream i is partition i) in the same
    // order: Kafka Connect's one file interleaves the partitions only.
    for p in 0..streams {
        let kc_partition: Vec<&String> = kafka_connect.iter().filter(|l| stream_of(l) == p).collect();
        let copycat_partition: Vec<&String> = copycat[p as usize].iter().collect();
        assert_eq!(kc_partition, copycat_partition, "the lines of partition {p}, in order");
    }

    // The lines are datagen's records as Java prints them: the first of
    // stream 0, and (Kafka Connect's own text) record 3 of stream 1, whose
    // note is null and left out.
    let first = to_java_string(Some(&typed_schema()), &typed_value(0, 0));
    assert_eq!(copycat[0][0], first);
    assert_eq!(
        first,
        "Struct{stream=0,seq=0,id=stream-0:0,amount=-1000.00,ts=Tue Nov 14 22:13:20 UTC 2023,\
         day=Sat Jan 08 00:00:00 UTC 2022,even=true,score=0.0,tags=[]}"
    );
    let kc_stream_1: Vec<&String> = kafka_connect.iter().filter(|l| stream_of(l) == 1).collect();
    assert_eq!(
        kc_stream_1[3],
        "Struct{stream=1,seq=3,id=stream-1:3,amount=-762.12,ts=Tue Nov 14 22:13:23 UTC 2023,\
         day=Tue Jan 11 00:00:00 UTC 2022,even=false,score=1.375,tags=[t0, t1, t2]}"
    );
    eprintln!(
        "side by side: {total} records, both sinks done in {written:.1?}, Kafka Connect stopped in {stopped:.1?}"
    );
}
