//! Delivery guarantees for sources, proven with `kill -9`: exactly-once
//! (records and offsets in one transaction) repeats and loses nothing;
//! at-most-once never repeats; a duplicated task instance is fenced.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use copycat_runtime::kafka::offset_store::read_connector;
use copycat_tests::*;

fn spawn(worker: &Path, connector: &Path) -> Child {
    Command::new(copycat_bin())
        .args(["standalone", worker.to_str().unwrap(), connector.to_str().unwrap()])
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn kill(child: &mut Child, signal: &str) {
    let ok = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    eventually("copycat exits", Duration::from_secs(60), || child.try_wait().unwrap());
}

/// The smallest committed sequence number over `streams` streams.
fn committed_min(offsets: &str, name: &str, streams: u32) -> Option<u64> {
    let committed = read_connector(&worker_config(offsets), name).ok()?;
    (0..streams)
        .map(|i| committed_seq(&committed, i))
        .collect::<Option<Vec<u64>>>()?
        .into_iter()
        .min()
}

/// Sequence numbers per stream, as read with read_committed.
fn seqs(topic: &str) -> BTreeMap<String, Vec<u64>> {
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in read_topic(topic) {
        let key = r.key.unwrap();
        let (stream, seq) = key.split_once(':').unwrap();
        out.entry(stream.to_owned()).or_default().push(seq.parse().unwrap());
    }
    out
}

/// Run datagen under `guarantee`, kill -9 the worker twice mid-stream,
/// let a third run finish, and return what a read_committed consumer sees.
fn crash_twice(guarantee: &str, extra_worker: &str) -> BTreeMap<String, Vec<u64>> {
    let dir = tempfile::tempdir().unwrap();
    let topic = unique(&format!("crash-{guarantee}"));
    let name = unique(guarantee);
    let offsets = unique("offsets");
    block_on(create_topic(&topic, 2));
    let worker = dir.path().join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={offsets}\noffset.storage.partitions=3\noffset.flush.interval.ms=100\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n{extra_worker}",
            bootstrap(),
            plugin_dir().display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let conn = dir.path().join("datagen.properties");
    std::fs::write(
        &conn,
        format!(
            "name={name}\nconnector.class=datagen\ntasks.max=2\ntopic={topic}\nstreams=2\ncount=3000\nrate=1500\nbatch.size=50\ndelivery.guarantee={guarantee}\n"
        ),
    )
    .unwrap();
    for until in [600, 1800] {
        let mut child = spawn(&worker, &conn);
        eventually(
            &format!("committed offsets past {until}"),
            Duration::from_secs(60),
            || committed_min(&offsets, &name, 2).filter(|c| *c >= until),
        );
        kill(&mut child, "-KILL");
    }
    let mut child = spawn(&worker, &conn);
    eventually("every record committed", Duration::from_secs(60), || {
        committed_min(&offsets, &name, 2).filter(|c| *c == 2999)
    });
    kill(&mut child, "-TERM");
    seqs(&topic)
}

#[test]
fn exactly_once_survives_kill_9_without_loss_or_duplicates() {
    let seen = crash_twice("exactly-once", "exactly.once.source.support=enabled\n");
    assert_eq!(seen.len(), 2);
    for (stream, mut s) in seen {
        // A stream's records spread over both partitions by key hash.
        s.sort_unstable();
        assert_eq!(s, (0..3000).collect::<Vec<u64>>(), "{stream}: each record exactly once");
    }
}

#[test]
fn at_least_once_survives_kill_9_without_loss() {
    let seen = crash_twice("at-least-once", "");
    assert_eq!(seen.len(), 2);
    for (stream, mut s) in seen {
        let produced = s.len();
        s.sort_unstable();
        s.dedup();
        // Repeats are allowed (records sent after the last offset commit
        // before each kill); losses are not.
        assert_eq!(
            s,
            (0..3000).collect::<Vec<u64>>(),
            "{stream}: every record at least once"
        );
        assert!(produced >= 3000, "{stream}");
    }
}

#[test]
fn at_most_once_survives_kill_9_without_duplicates() {
    let seen = crash_twice("at-most-once", "");
    for (stream, mut s) in seen {
        let n = s.len();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), n, "{stream}: no record twice");
        assert!(s.iter().all(|x| *x < 3000), "{stream}");
    }
}

#[test]
fn a_duplicate_task_instance_is_fenced() {
    let offsets = unique("offsets");
    let topic = unique("fencing");
    let name = unique("fenced");
    block_on(create_topic(&topic, 1));
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "datagen"),
        ("topic", topic.as_str()),
        ("rate", "500"),
        ("batch.size", "20"),
        ("delivery.guarantee", "exactly-once"),
    ];
    let first = start_worker(&offsets);
    first.start_connector(connector(&first, &pairs)).unwrap();
    eventually("the first instance commits", Duration::from_secs(60), || {
        committed_min(&offsets, &name, 1).filter(|c| *c > 50)
    });
    // A second worker runs the same task: same transactional id. The second
    // instance's InitProducerId fences the first. (Rarely, the first
    // instance's EndTxn fails as UNKNOWN while the second initialises; the
    // first then restarts under its restart policy and fences the second in
    // turn. Either way exactly one instance is fenced and one carries on.)
    let second = start_worker(&offsets);
    second.start_connector(connector(&second, &pairs)).unwrap();
    let workers = [&first, &second];
    let (fenced, trace) = eventually("one instance is fenced", Duration::from_secs(60), || {
        workers
            .iter()
            .enumerate()
            .find_map(|(i, w)| match task_states(w, &name).pop()? {
                (s, Some(trace)) if s == "FAILED" => Some((i, trace)),
                _ => None,
            })
    });
    assert!(trace.contains("fenced: another instance of task"), "{trace}");
    let survivor = workers[1 - fenced];
    let before = committed_min(&offsets, &name, 1).unwrap_or(0);
    eventually("the other instance carries on", Duration::from_secs(60), || {
        committed_min(&offsets, &name, 1).filter(|c| *c > before + 50)
    });
    assert_eq!(task_states(survivor, &name)[0].0, "RUNNING");
    second.shutdown();
    first.shutdown();
    let s = seqs(&topic).remove("stream-0").unwrap();
    assert_eq!(
        s,
        (0..s.len() as u64).collect::<Vec<u64>>(),
        "no gap, no duplicate across the takeover"
    );
}

#[test]
fn exactly_once_required_needs_it_enabled() {
    let worker = start_worker(&unique("offsets"));
    let err = copycat_runtime::ConnectorConfig::from_props(
        props(&[
            ("name", "x"),
            ("connector.class", "datagen"),
            ("topic", "t"),
            ("exactly.once.support", "required"),
        ]),
        worker.config(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("exactly.once.support") && err.contains("exactly.once.source.support=enabled"),
        "{err}"
    );
}

/// `transaction.boundary=connector`: the connector commits and aborts
/// through the `transactions` import; an aborted transaction never reaches
/// read_committed consumers.
#[test]
fn connector_defined_transactions_commit_and_abort() {
    let offsets = unique("offsets");
    let topic = unique("txn");
    let name = unique("txn");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&offsets);
    let path = fixture("txn-source");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &topic),
                ("delivery.guarantee", "exactly-once"),
                ("transaction.boundary", "connector"),
            ],
        ))
        .unwrap();
    eventually("the last transaction commits", Duration::from_secs(60), || {
        let committed = read_connector(&worker_config(&offsets), &name).ok()?;
        (committed.get("txn").map(String::as_str) == Some("119")).then_some(())
    });
    worker.shutdown();
    let values: Vec<u64> = read_topic(&topic)
        .into_iter()
        .map(|r| r.value.unwrap().parse().unwrap())
        .collect();
    // The transaction open when the connector aborted held 30..60.
    let expected: Vec<u64> = (0..30).chain(60..120).collect();
    assert_eq!(
        values, expected,
        "the aborted transaction is invisible, the rest visible once"
    );
}

/// A task whose connector has nothing more to send still commits when its
/// commit falls due: the pause after an empty poll (here two minutes) ends
/// early for it. Before, the records' offsets (and, exactly-once, the
/// records themselves for read_committed consumers) waited for the pause to
/// end.
fn commits_on_time_while_the_task_idles(guarantee: &[(&str, &str)]) {
    let offsets = unique("offsets");
    let topic = unique("idle-commit");
    let name = unique("idle-commit");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&offsets);
    let mut pairs = vec![
        ("name", name.as_str()),
        ("connector.class", "datagen"),
        ("topic", topic.as_str()),
        ("count", "100"),
        ("poll.idle.backoff.ms", "120000"),
        ("poll.idle.backoff.max.ms", "120000"),
    ];
    pairs.extend_from_slice(guarantee);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    // Well inside the first two-minute pause.
    eventually("the last offset is committed", Duration::from_secs(45), || {
        committed_min(&offsets, &name, 1).filter(|c| *c == 99)
    });
    // Read while the task still runs: stopping it would commit anyway.
    let s = seqs(&topic).remove("stream-0").unwrap_or_default();
    assert_eq!(s, (0..100).collect::<Vec<u64>>(), "all 100 records, once");
    assert_eq!(task_states(&worker, &name)[0].0, "RUNNING");
    worker.shutdown();
}

/// `transaction.boundary=interval`: the open transaction commits when the
/// interval is up, not when the idle pause ends.
#[test]
fn an_interval_transaction_commits_on_time_while_the_task_idles() {
    commits_on_time_while_the_task_idles(&[
        ("delivery.guarantee", "exactly-once"),
        ("transaction.boundary", "interval"),
        ("transaction.boundary.interval.ms", "1000"),
    ]);
}

/// At-least-once: offsets are committed every `offset.flush.interval.ms`
/// (200 ms in the tests' worker), not when the idle pause ends.
#[test]
fn at_least_once_offsets_commit_on_time_while_the_task_idles() {
    commits_on_time_while_the_task_idles(&[("delivery.guarantee", "at-least-once")]);
}

/// Another task's open transaction holds a read_committed consumer's "end"
/// (the last stable offset) *before* offsets this task committed later. A
/// restarted task must not take that as the end: it would resume from older
/// offsets and deliver a committed batch twice. The reader waits for the
/// open transaction instead, and never returns a view that misses them.
#[test]
fn offsets_behind_another_open_transaction_are_not_missed() {
    use copycat_runtime::kafka::offset_store::{offset_key, offset_value, read_all_within};
    use rdkafka::ClientConfig;
    use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};

    let offsets = unique("offsets");
    block_on(create_topic(&offsets, 1));
    let txn_producer = |id: &str| -> ThreadedProducer<DefaultProducerContext> {
        let p: ThreadedProducer<DefaultProducerContext> = ClientConfig::new()
            .set("bootstrap.servers", bootstrap())
            .set("transactional.id", unique(id))
            .create()
            .unwrap();
        p.init_transactions(Duration::from_secs(30)).unwrap();
        p.begin_transaction().unwrap();
        p
    };
    let write = |p: &ThreadedProducer<DefaultProducerContext>, connector: &str, offset: &str| {
        let (key, value) = (offset_key(connector, "p"), offset_value(offset));
        p.send(BaseRecord::<[u8], [u8]>::to(&offsets).key(&key).payload(&value))
            .map_err(|(e, _)| e)
            .unwrap();
        p.flush(Duration::from_secs(30)).unwrap();
    };
    // The other task's transaction begins first and stays open ...
    let other = txn_producer("other");
    write(&other, "other", "1");
    // ... while this task commits its offsets after it.
    let mine = txn_producer("mine");
    write(&mine, "mine", "7");
    mine.commit_transaction(Duration::from_secs(30)).unwrap();

    let cfg = worker_config(&offsets);
    let err = read_all_within(&cfg, Duration::from_secs(3)).unwrap_err().to_string();
    assert!(err.contains("an open transaction holds back"), "{err}");

    other.abort_transaction(Duration::from_secs(30)).unwrap();
    let all = read_all_within(&cfg, Duration::from_secs(60)).unwrap();
    assert_eq!(all.get("mine").and_then(|m| m.get("p")).map(String::as_str), Some("7"));
    assert!(!all.contains_key("other"), "aborted offsets are invisible: {all:?}");
}

/// A worker's offsets reader goes on from where its last read ended (as
/// Kafka Connect's offset store tails its topic): later offsets, new
/// partitions of the connector and tombstones all show, and what was read
/// before stays; it holds only the offsets of connectors that asked.
#[test]
fn the_worker_s_offsets_reader_reads_on_from_where_it_stopped() {
    use copycat_runtime::kafka::offset_store::{OffsetReader, offset_key, offset_value};
    use rdkafka::ClientConfig;
    use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};

    let offsets = unique("offsets");
    block_on(create_topic(&offsets, 2));
    let producer: ThreadedProducer<DefaultProducerContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let write = |partition: i32, connector: &str, source: &str, offset: Option<&str>| {
        let key = offset_key(connector, source);
        let value = offset.map(offset_value);
        let mut r = BaseRecord::<[u8], [u8]>::to(&offsets).key(&key).partition(partition);
        if let Some(v) = &value {
            r = r.payload(v);
        }
        producer.send(r).map_err(|(e, _)| e).unwrap();
        producer.flush(Duration::from_secs(30)).unwrap();
    };
    let cfg = worker_config(&offsets);
    let reader = OffsetReader::default();
    let read = |connector: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = reader.read_connector(&cfg, connector).unwrap().into_iter().collect();
        v.sort();
        v
    };
    let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
        p.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    };

    write(0, "a", "s1", Some("1"));
    write(1, "b", "s", Some("5"));
    assert_eq!(read("a"), pairs(&[("s1", "1")]));
    assert_eq!(read("b"), pairs(&[("s", "5")]));
    // Nothing new: the same answer.
    assert_eq!(read("a"), pairs(&[("s1", "1")]));

    write(0, "a", "s1", Some("2"));
    write(1, "a", "s2", Some("9"));
    write(1, "b", "s", None);
    assert_eq!(read("a"), pairs(&[("s1", "2"), ("s2", "9")]));
    assert_eq!(read("b"), Vec::new(), "the tombstone removed b's offset");
    write(0, "b", "s", Some("6"));
    assert_eq!(read("b"), pairs(&[("s", "6")]));

    // It keeps only what the connectors that asked need: another
    // connector's offsets are skipped, until it asks for them.
    for i in 0..50 {
        write(i % 2, "stranger", &format!("s{i}"), Some("1"));
    }
    assert_eq!(read("a"), pairs(&[("s1", "2"), ("s2", "9")]));
    assert_eq!(reader.held_connectors(), vec!["a".to_owned(), "b".to_owned()]);
    assert_eq!(
        read("stranger").len(),
        50,
        "a connector asking first reads from the beginning"
    );
    assert_eq!(
        reader.held_connectors(),
        vec!["a".to_owned(), "b".to_owned(), "stranger".to_owned()]
    );
    // (Not b: its test records put one key in two partitions, whose order
    // a read from the beginning does not keep; a real key has one.)
    assert_eq!(
        read("a"),
        pairs(&[("s1", "2"), ("s2", "9")]),
        "and the others stay right"
    );
}

/// One record read back with everything the host sets.
#[derive(Debug)]
struct Shaped {
    partition: i32,
    seq: u64,
    key: String,
    headers: Vec<(String, String)>,
    timestamp: Option<i64>,
}

fn read_shaped(topic: &str) -> Vec<Shaped> {
    use rdkafka::message::{Headers, Message};
    read_messages(topic, |m| {
        let value = String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned();
        Shaped {
            partition: m.partition(),
            seq: value.strip_prefix("mixed record ").unwrap().parse().unwrap(),
            key: String::from_utf8_lossy(m.key().unwrap_or_default()).into_owned(),
            headers: m
                .headers()
                .map(|hs| {
                    hs.iter()
                        .map(|h| {
                            let v = String::from_utf8_lossy(h.value.unwrap_or_default()).into_owned();
                            (h.key.to_owned(), v)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            timestamp: m.timestamp().to_millis(),
        }
    })
}

/// A source batch interleaves records the host enqueues in runs (one
/// `rd_kafka_produce_batch` per run) with records it sends one by one
/// (headers, a timestamp), over two topics and with and without an explicit
/// partition. Under each delivery guarantee every record arrives once, with
/// its own key, headers, timestamp and partition, and in order within its
/// partition.
#[test]
fn records_of_every_shape_arrive_once_and_in_order() {
    // The fixture's MIXED_POLLS × MIXED_BATCH records and its timestamps
    // (tests/fixtures/hostile-source, `mixed_record`).
    const MIXED_POLLS: u64 = 3;
    const MIXED_BATCH: u64 = 60;
    const MIXED_TIMESTAMP_BASE: i64 = 1_600_000_000_000;
    let offsets = unique("offsets");
    let worker = start_worker(&offsets);
    let path = fixture("hostile-source");
    let mut runs = Vec::new();
    for guarantee in ["at-least-once", "at-most-once", "exactly-once"] {
        let (name, topic, other) = (unique("mixed"), unique("mixed"), unique("mixed-other"));
        block_on(create_topic(&topic, 3));
        block_on(create_topic(&other, 2));
        worker
            .start_connector(connector(
                &worker,
                &[
                    ("name", &name),
                    ("connector.class", path.to_str().unwrap()),
                    ("topic", &topic),
                    ("attack", "mixed-records"),
                    ("attack.topic", &other),
                    ("delivery.guarantee", guarantee),
                ],
            ))
            .unwrap();
        runs.push((guarantee, name, topic, other));
    }
    let total = MIXED_POLLS * MIXED_BATCH;
    for (guarantee, name, topic, other) in &runs {
        eventually(
            &format!("{guarantee}: all {total} records committed"),
            Duration::from_secs(60),
            || {
                let committed = read_connector(&worker_config(&offsets), name).ok()?;
                (committed.get("mixed").map(String::as_str) == Some(&(total - 1).to_string())).then_some(())
            },
        );
        let mut seen = Vec::new();
        for (t, records) in [(topic, read_shaped(topic)), (other, read_shaped(other))] {
            let mut last: BTreeMap<i32, u64> = BTreeMap::new();
            for r in records {
                let to_other = r.seq.is_multiple_of(7);
                assert_eq!(t == other, to_other, "{guarantee}: record {} went to {t}", r.seq);
                if let Some(prev) = last.insert(r.partition, r.seq) {
                    assert!(
                        prev < r.seq,
                        "{guarantee}: {t}-{} holds {} after {prev}",
                        r.partition,
                        r.seq
                    );
                }
                assert_eq!(r.key, format!("k{}", r.seq), "{guarantee}: key");
                let header = (r.seq.is_multiple_of(3)).then(|| ("seq".to_owned(), r.seq.to_string()));
                assert_eq!(
                    r.headers,
                    header.into_iter().collect::<Vec<_>>(),
                    "{guarantee}: headers"
                );
                if r.seq.is_multiple_of(5) {
                    assert_eq!(
                        r.timestamp,
                        Some(MIXED_TIMESTAMP_BASE + r.seq as i64),
                        "{guarantee}: timestamp"
                    );
                } else {
                    // Set by the producer when the record was enqueued.
                    assert!(
                        r.timestamp.is_some_and(|t| t > MIXED_TIMESTAMP_BASE + 1_000_000_000),
                        "{guarantee}: record {} has timestamp {:?}",
                        r.seq,
                        r.timestamp
                    );
                }
                if r.seq.is_multiple_of(4) {
                    assert_eq!(r.partition, 0, "{guarantee}: record {} names partition 0", r.seq);
                }
                seen.push(r.seq);
            }
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..total).collect::<Vec<_>>(), "{guarantee}: every record once");
    }
    worker.shutdown();
}
