//! The hdfs-sink against a real HDFS (Hadoop's MiniDFSCluster with
//! WebHDFS, `scripts/hdfs.sh start`, started once here if it is not
//! running): records read back from the final files (JSON lines; Avro
//! container files decoded with apache-avro), files rolled by `flush.size`,
//! per-key validation problems and the `config` variant at `start`, resume
//! from the names after the consumer group's offsets are reset (nothing
//! written twice), a leftover temporary file removed at `open`, errant
//! records to the dead letter queue, and the sandbox: without the grant of
//! both the namenode and the datanode the task fails naming
//! `grants.http.hosts` and HDFS holds no file.
//!
//! `chaos_hdfs_sink_sigkill` (ignored in the parallel run; `just test` runs
//! `--ignored chaos` afterwards) SIGKILLs a `copycat standalone` worker
//! five times while records flow: every record ends in exactly one final
//! file and no temporary file is left.
//!
//! Each test writes under a `topics.dir` of its own.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use copycat_runtime::engine::guest::GuestError;
use copycat_runtime::worker::offsets as offsets_admin;
use copycat_tests::*;
use rand::Rng;
use serde_json::Value as Json;

/// The WebHDFS base URL, starting HDFS first (a no-op when it runs).
fn hdfs_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/hdfs.sh");
        let out = Command::new(&script).arg("start").output().unwrap();
        assert!(
            out.status.success(),
            "scripts/hdfs.sh start failed (it needs Java 17 and Maven Central): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&script).arg("url").output().unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    })
}

/// The datanode's HTTP address (WebHDFS redirects writes there).
fn datanode() -> String {
    format!(
        "127.0.0.1:{}",
        std::env::var("HDFS_DATANODE_HTTP_PORT").unwrap_or_else(|_| "9864".to_owned())
    )
}

/// `grants.http.hosts` for the namenode and the datanode.
fn grant() -> String {
    format!("{},{}", hdfs_url().trim_start_matches("http://"), datanode())
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn op_url(path: &str, op: &str) -> String {
    format!("{}/webhdfs/v1{path}?op={op}&user.name=copycat", hdfs_url())
}

/// The entries of an HDFS directory: (name, is directory); none if missing.
fn list(dir: &str) -> Vec<(String, bool)> {
    let mut resp = agent().get(&op_url(dir, "LISTSTATUS")).call().unwrap();
    if resp.status() == 404 {
        return Vec::new();
    }
    assert_eq!(resp.status(), 200, "LISTSTATUS {dir}");
    let json: Json = serde_json::from_slice(&resp.body_mut().read_to_vec().unwrap()).unwrap();
    json["FileStatuses"]["FileStatus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["pathSuffix"].as_str().unwrap().to_owned(),
                s["type"].as_str() == Some("DIRECTORY"),
            )
        })
        .collect()
}

/// Every file under `dir`, recursively (absolute paths).
fn files_under(dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (name, is_dir) in list(dir) {
        let path = format!("{dir}/{name}");
        if is_dir {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A file's bytes (OPEN follows the redirect to the datanode).
fn read(path: &str) -> Vec<u8> {
    let mut resp = agent().get(&op_url(path, "OPEN")).call().unwrap();
    assert_eq!(resp.status(), 200, "OPEN {path}");
    resp.body_mut().with_config().limit(1 << 30).read_to_vec().unwrap()
}

/// Write a file through WebHDFS (as a crashed task would have left it).
fn write(path: &str, data: &[u8]) {
    let mut resp = agent()
        .put(&format!("{}&overwrite=true&noredirect=true", op_url(path, "CREATE")))
        .send_empty()
        .unwrap();
    let json: Json = serde_json::from_slice(&resp.body_mut().read_to_vec().unwrap()).unwrap();
    let location = json["Location"].as_str().unwrap().to_owned();
    let resp = agent().put(&location).send(data).unwrap();
    assert_eq!(resp.status(), 201, "CREATE {path}");
}

/// The committed files of a partition: `(first, last, path)`, in offset order.
fn committed(topics_dir: &str, topic: &str, partition: i32) -> Vec<(i64, i64, String)> {
    let dir = format!("{topics_dir}/{topic}/partition={partition}");
    let mut files: Vec<(i64, i64, String)> = list(&dir)
        .into_iter()
        .filter(|(_, d)| !d)
        .map(|(name, _)| {
            let stem = name.rsplit_once('.').unwrap().0;
            let parts: Vec<&str> = stem.rsplitn(3, '+').collect();
            assert_eq!(parts.len(), 3, "a final name: {name}");
            assert_eq!(parts[2], format!("{topic}+{partition}"), "{name}");
            assert_eq!(parts[1].len(), 10, "zero-padded to 10 digits: {name}");
            (
                parts[1].parse().unwrap(),
                parts[0].parse().unwrap(),
                format!("{dir}/{name}"),
            )
        })
        .collect();
    files.sort();
    files
}

/// The lines of a partition's JSON files, in order, checking that the
/// files' offset ranges do not overlap.
fn partition_lines(topics_dir: &str, topic: &str, partition: i32) -> Vec<String> {
    let files = committed(topics_dir, topic, partition);
    for pair in files.windows(2) {
        assert!(pair[0].1 < pair[1].0, "overlapping files: {pair:?}");
    }
    files
        .iter()
        .flat_map(|(_, _, path)| {
            String::from_utf8(read(path))
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn sink_config(name: &str, topic: &str, topics_dir: &str, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let class = plugin("hdfs-sink");
    let mut pairs: Vec<(String, String)> = [
        ("name", name),
        ("connector.class", class.to_str().unwrap()),
        ("topics", topic),
        ("hdfs.url", hdfs_url()),
        ("hdfs.user", "copycat"),
        ("topics.dir", topics_dir),
        ("grants.http.hosts", &grant()),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in extra {
        pairs.retain(|(key, _)| key != k);
        if !v.is_empty() {
            pairs.push((k.to_string(), v.to_string()));
        }
    }
    pairs
}

fn config(worker: &copycat_runtime::Worker, pairs: &[(String, String)]) -> copycat_runtime::ConnectorConfig {
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    connector(worker, &refs)
}

/// Produce `values[from..to]`, value `i` to partition `i % partitions`.
fn produce_range(topic: &str, partitions: usize, from: usize, to: usize, value: impl Fn(usize) -> String) {
    for p in 0..partitions {
        let records: Vec<(String, String)> = (from..to)
            .filter(|i| i % partitions == p)
            .map(|i| (format!("k{i}"), value(i)))
            .collect();
        produce(topic, Some(p as i32), &records);
    }
}

#[test]
fn json_files_rolled_by_flush_size_and_resumed_from_their_names() {
    let worker = block_on(async {
        init_logging();
        copycat_runtime::Worker::start(worker_config_with(
            &unique("offsets"),
            // Files are committed by flush.size, not by the offset flush.
            &[("offset.flush.interval.ms", "600000")],
        ))
        .await
        .unwrap()
    });
    let topic = unique("hdfs-json");
    let dir = format!("/copycat-tests/{}", unique("json"));
    let name = unique("hdfs-json");
    block_on(create_topic(&topic, 2));
    let pairs = sink_config(&name, &topic, &dir, &[("flush.size", "10")]);

    // Validation: per-key problems.
    let bad = sink_config(&name, &topic, &dir, &[("hdfs.url", ""), ("format", "parquet")]);
    let err = worker.validate(&config(&worker, &bad)).err().unwrap().to_string();
    for key in ["hdfs.url", "format"] {
        assert!(err.contains(&format!("{key}: ")), "a problem on {key}: {err}");
    }

    let value = |i: usize| format!("v{i:04}");
    produce_range(&topic, 2, 0, 100, value);
    worker.start_connector(config(&worker, &pairs)).unwrap();
    let all = |n: usize| -> Vec<String> {
        let mut lines: Vec<String> = (0..2).flat_map(|p| partition_lines(&dir, &topic, p)).collect();
        lines.sort();
        assert!(lines.len() <= n, "more lines than records: {}", lines.len());
        lines
    };
    eventually("100 lines in HDFS", Duration::from_secs(120), || {
        (all(100).len() == 100).then_some(())
    });
    assert_eq!(all(100), (0..100).map(value).collect::<Vec<_>>());
    for p in 0..2 {
        let files = committed(&dir, &topic, p);
        assert_eq!(files.len(), 5, "50 records in files of flush.size=10: {files:?}");
        for (i, (first, last, _)) in files.iter().enumerate() {
            assert_eq!((*first, *last), (i as i64 * 10, i as i64 * 10 + 9));
        }
    }
    assert!(files_under(&format!("{dir}/+tmp")).is_empty(), "no temporary file left");
    worker.delete_connector(&name).unwrap();

    // Lose the group's offsets: the sink resumes from its file names.
    let cfg = config(&worker, &pairs);
    block_on(offsets_admin::reset(worker.config(), &cfg)).unwrap();
    produce_range(&topic, 2, 100, 140, value);
    worker.start_connector(cfg).unwrap();
    eventually("140 lines in HDFS", Duration::from_secs(120), || {
        (all(140).len() == 140).then_some(())
    });
    worker.shutdown();
    assert_eq!(
        all(140),
        (0..140).map(value).collect::<Vec<_>>(),
        "every record once: the sink reopened after the offsets in the names"
    );

    // A bad config at start is the config variant.
    let engine = copycat_runtime::engine::WasmEngine::new(&Default::default()).unwrap();
    let component = engine.load(&plugin("hdfs-sink")).unwrap();
    let limits = copycat_runtime::host::TaskLimits::default();
    let host = copycat_runtime::host::TaskHost::new(
        copycat_runtime::host::TaskIdent::task("hdfs", 0),
        &limits,
        std::sync::Arc::default(),
        &copycat_runtime::host::Grants::default(),
    )
    .unwrap();
    let mut guest = copycat_runtime::engine::guest::Guest::instantiate(&engine, &component, host, &limits).unwrap();
    match guest.sink_start(&vec![
        ("topics".to_owned(), "t".to_owned()),
        ("flush.size".to_owned(), "x".to_owned()),
    ]) {
        Err(GuestError::Config(msg)) => assert!(
            msg.contains("hdfs.url") && msg.contains("flush.size"),
            "the message names the keys: {msg}"
        ),
        other => panic!("expected the config error variant, got {other:?}"),
    }
}

#[test]
fn avro_files_decode_with_apache_avro_and_errant_records_go_to_the_dead_letter_queue() {
    use apache_avro::types::Value as Av;
    let worker = start_worker(&unique("offsets"));
    let topic = unique("hdfs-avro");
    let dlq = unique("hdfs-dlq");
    let dir = format!("/copycat-tests/{}", unique("avro"));
    let name = unique("hdfs-avro");
    block_on(create_topic(&topic, 1));
    let schema = r#"{"type":"struct","name":"com.example.Order","optional":false,"fields":[
        {"field":"id","type":"int64","optional":false},
        {"field":"name","type":"string","optional":false},
        {"field":"amount","type":"double","optional":true}]}"#;
    // Every 7th record has no schema: errant in Avro format.
    let errant = |i: usize| i % 7 == 3;
    let value = |i: usize| {
        if errant(i) {
            format!(r#"{{"schema":null,"payload":{{"id":{i}}}}}"#)
        } else {
            let amount = if i.is_multiple_of(2) {
                format!("{i}.5")
            } else {
                "null".to_owned()
            };
            format!(r#"{{"schema":{schema},"payload":{{"id":{i},"name":"n{i}","amount":{amount}}}}}"#)
        }
    };
    produce_range(&topic, 1, 0, 40, value);
    let pairs = sink_config(
        &name,
        &topic,
        &dir,
        &[
            ("format", "avro"),
            ("flush.size", "8"),
            ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
            ("value.converter.schemas.enable", "true"),
            ("errors.tolerance", "all"),
            ("errors.deadletterqueue.topic.name", &dlq),
            ("errors.deadletterqueue.topic.replication.factor", "1"),
        ],
    );
    worker.start_connector(config(&worker, &pairs)).unwrap();
    let expected: Vec<usize> = (0..40).filter(|i| !errant(*i)).collect();
    let decode = || -> Vec<Vec<(String, Av)>> {
        let files = committed(&dir, &topic, 0);
        let mut records = Vec::new();
        for (_, _, path) in files {
            assert!(path.ends_with(".avro"), "{path}");
            let bytes = read(&path);
            let reader = apache_avro::Reader::new(&bytes[..]).unwrap();
            match reader.writer_schema() {
                apache_avro::Schema::Record(r) => assert_eq!(r.name.fullname(None), "com.example.Order"),
                other => panic!("a record schema, got {other:?}"),
            }
            for v in reader {
                match v.unwrap() {
                    Av::Record(fields) => records.push(fields),
                    other => panic!("a record, got {other:?}"),
                }
            }
        }
        records
    };
    let records = eventually("the typed records in Avro files", Duration::from_secs(120), || {
        let r = decode();
        (r.len() >= expected.len()).then_some(r)
    });
    assert_eq!(records.len(), expected.len());
    for (fields, i) in records.iter().zip(&expected) {
        let amount = if i % 2 == 0 {
            Av::Union(1, Box::new(Av::Double(*i as f64 + 0.5)))
        } else {
            Av::Union(0, Box::new(Av::Null))
        };
        assert_eq!(
            fields,
            &vec![
                ("id".to_owned(), Av::Long(*i as i64)),
                ("name".to_owned(), Av::String(format!("n{i}"))),
                ("amount".to_owned(), amount),
            ]
        );
    }
    let letters = eventually(
        "the errant records in the dead letter queue",
        Duration::from_secs(60),
        || {
            let letters = read_topic(&dlq);
            (letters.len() >= 6).then_some(letters)
        },
    );
    assert_eq!(
        letters.len(),
        (0..40).filter(|i| errant(*i)).count(),
        "each errant record once"
    );
    assert_eq!(task_states(&worker, &name)[0].0, "RUNNING");
    worker.shutdown();
}

#[test]
fn a_leftover_temporary_file_is_removed_at_open() {
    let worker = start_worker(&unique("offsets"));
    let topic = unique("hdfs-tmp");
    let dir = format!("/copycat-tests/{}", unique("tmp"));
    let name = unique("hdfs-tmp");
    block_on(create_topic(&topic, 1));
    let leftover = format!("{dir}/+tmp/{topic}/partition=0/0000000000-dead-1_tmp.json");
    write(&leftover, b"half a file\n");
    assert_eq!(files_under(&format!("{dir}/+tmp")), std::slice::from_ref(&leftover));
    produce_range(&topic, 1, 0, 20, |i| format!("v{i:04}"));
    worker
        .start_connector(config(&worker, &sink_config(&name, &topic, &dir, &[])))
        .unwrap();
    eventually("20 lines in HDFS", Duration::from_secs(120), || {
        (partition_lines(&dir, &topic, 0).len() == 20).then_some(())
    });
    worker.shutdown();
    assert_eq!(
        files_under(&format!("{dir}/+tmp")),
        Vec::<String>::new(),
        "the leftover is gone"
    );
    assert!(!partition_lines(&dir, &topic, 0).contains(&"half a file".to_owned()));
}

#[test]
fn without_its_grant_the_task_fails_naming_it_and_writes_nothing() {
    let worker = start_worker(&unique("offsets"));
    let topic = unique("hdfs-denied");
    block_on(create_topic(&topic, 1));
    produce_range(&topic, 1, 0, 5, |i| format!("v{i}"));
    let namenode_only = hdfs_url().trim_start_matches("http://").to_owned();
    for (case, grant) in [
        ("no grant", ""),
        ("another host", "127.0.0.1:1"),
        ("namenode only", &namenode_only),
    ] {
        let dir = format!("/copycat-tests/{}", unique("denied"));
        let name = unique("hdfs-denied");
        let pairs = sink_config(
            &name,
            &topic,
            &dir,
            &[("grants.http.hosts", grant), ("task.restart.max.attempts", "0")],
        );
        worker.start_connector(config(&worker, &pairs)).unwrap();
        let trace = eventually(&format!("{case}: the task failed"), Duration::from_secs(120), || {
            task_states(&worker, &name)
                .into_iter()
                .find(|(s, _)| s == "FAILED")
                .and_then(|(_, t)| t)
        });
        assert!(
            trace.contains("grants.http.hosts"),
            "{case}: the reason names the grant: {trace}"
        );
        assert!(trace.contains("denied"), "{case}: {trace}");
        assert_eq!(files_under(&dir), Vec::<String>::new(), "{case}: HDFS holds no file");
        worker.delete_connector(&name).unwrap();
    }
    worker.shutdown();
}

/// A `copycat standalone` worker with `connector`, its stderr to `log`.
fn standalone(worker: &Path, connector: &Path, log: &Path) -> Reaped {
    let file = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
    Reaped(
        Command::new(copycat_bin())
            .arg("standalone")
            .arg(worker)
            .arg(connector)
            .stderr(Stdio::from(file))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Records in final files, from the names alone (no file read).
fn committed_count(dir: &str, topic: &str, partitions: i32) -> i64 {
    (0..partitions)
        .flat_map(|p| committed(dir, topic, p))
        .map(|(first, last, _)| last - first + 1)
        .sum()
}

#[test]
#[ignore = "chaos: SIGKILLs a worker for about a minute; `just test` runs it afterwards"]
fn chaos_hdfs_sink_sigkill() {
    let _broker = broker_stays_up();
    const PARTITIONS: i32 = 4;
    const RECORDS: usize = 20_000;
    const FEED: Duration = Duration::from_secs(40);
    const STEPS: usize = 100;
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let topic = unique("hdfs-chaos");
    let dir = format!("/copycat-tests/{}", unique("chaos"));
    block_on(create_topic(&topic, PARTITIONS));
    let value = |i: usize| format!("r{i:06}-{}", "x".repeat(i % 50));
    let feeder = {
        let topic = topic.clone();
        std::thread::spawn(move || {
            let per = RECORDS / STEPS;
            for s in 0..STEPS {
                produce_range(&topic, PARTITIONS as usize, s * per, (s + 1) * per, value);
                std::thread::sleep(FEED / STEPS as u32);
            }
        })
    };
    let worker = tmp.path().join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={}\noffset.storage.partitions=3\n\
             offset.flush.interval.ms=1000\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            plugin_dir().display(),
            unique("offsets"),
            tmp.path().display()
        ),
    )
    .unwrap();
    let connector = tmp.path().join("hdfs-sink.properties");
    std::fs::write(
        &connector,
        format!(
            "name={}\nconnector.class=hdfs-sink\ntasks.max=2\ntopics={topic}\nhdfs.url={}\nhdfs.user=copycat\n\
             topics.dir={dir}\nflush.size=300\ngrants.http.hosts={}\nconsumer.override.session.timeout.ms=6000\n",
            unique("hdfs-chaos"),
            hdfs_url(),
            grant()
        ),
    )
    .unwrap();
    let mut rng = rand::rng();
    let mut at_kills = Vec::new();
    let mut logs: Vec<PathBuf> = Vec::new();
    for round in 0..5 {
        logs.push(tmp.path().join(format!("worker-{round}.log")));
        let mut child = standalone(&worker, &connector, logs.last().unwrap());
        let before = committed_count(&dir, &topic, PARTITIONS);
        eventually("the sink commits again", Duration::from_secs(120), || {
            let n = committed_count(&dir, &topic, PARTITIONS);
            (n > before || n >= RECORDS as i64).then_some(())
        });
        std::thread::sleep(Duration::from_millis(rng.random_range(0..2_500)));
        child.kill().unwrap();
        child.wait().unwrap();
        let n = committed_count(&dir, &topic, PARTITIONS);
        eprintln!(
            "hdfs chaos: SIGKILL {} with {n} of {RECORDS} records committed",
            round + 1
        );
        at_kills.push(n);
    }
    feeder.join().unwrap();
    assert!(
        at_kills.iter().filter(|n| **n < RECORDS as i64).count() >= 3,
        "at least 3 kills while records were still flowing: {at_kills:?}"
    );
    logs.push(tmp.path().join("worker-last.log"));
    let mut child = standalone(&worker, &connector, logs.last().unwrap());
    eventually("every record committed", Duration::from_secs(120), || {
        (committed_count(&dir, &topic, PARTITIONS) >= RECORDS as i64).then_some(())
    });
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    eventually("copycat exits", Duration::from_secs(60), || child.try_wait().unwrap());

    // Every record in exactly one final file, files in offset order without
    // overlap, per partition; no temporary file.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for p in 0..PARTITIONS {
        let lines = partition_lines(&dir, &topic, p);
        let expected: Vec<String> = (0..RECORDS)
            .filter(|i| i % PARTITIONS as usize == p as usize)
            .map(value)
            .collect();
        assert_eq!(lines, expected, "partition {p}: each record once, in order");
        for l in lines {
            *seen.entry(l).or_default() += 1;
        }
    }
    assert_eq!(seen.len(), RECORDS);
    assert!(seen.values().all(|n| *n == 1));
    let temps = files_under(&format!("{dir}/+tmp"));
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
    let mut log = std::io::stderr();
    let _ = writeln!(
        log,
        "hdfs chaos: {RECORDS} records in {} files, each once, after 5 SIGKILLs at {at_kills:?}, in {:?}",
        (0..PARTITIONS).map(|p| committed(&dir, &topic, p).len()).sum::<usize>(),
        started.elapsed()
    );
}
