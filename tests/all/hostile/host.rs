//! Attacks on the host itself, by `raw-hostile-source` (written against the
//! WIT and WASI without the SDK): waits in host calls, where epoch
//! interruption cannot fire; host resources created outside the guest's
//! memory cap; source positions the SDK would never hand over; records
//! aimed at the worker's internal topics. Each asserts that only the hostile
//! task fails, with a reason naming the limit, within a stated time, and
//! that a neighbour in the same worker delivers every record exactly once.

use std::time::{Duration, Instant};

use copycat_runtime::TargetState;

use super::*;

fn raw() -> PathBuf {
    fixture("raw-hostile-source")
}

/// Start a `raw-hostile-source` connector (accepted: the attack is in a task).
fn raw_source(attack: &str, extra: &[(&str, &str)]) -> Attack {
    let topic = unique(attack);
    start(&raw(), attack, ("topic", &topic), extra)
        .unwrap_or_else(|e| panic!("raw hostile source {attack} was refused: {e}"))
}

/// The config of a `raw-hostile-source` connector named `name` attacking
/// with `attack` and a 4 s call deadline.
fn raw_config(attack: &str, name: &str, topic: &str) -> copycat_runtime::ConnectorConfig {
    let pairs = attack_pairs(
        &raw(),
        attack,
        name,
        ("topic", topic),
        &[("task.call.timeout.ms", "4000")],
    );
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    connector(worker(), &refs)
}

/// Pause and resume `neighbour` while a hostile connector call (started
/// just before) blocks; how long the two management calls took.
fn pause_and_resume(neighbour: &Neighbour) -> Duration {
    std::thread::sleep(Duration::from_millis(300));
    let managed = Instant::now();
    worker().set_target_state(&neighbour.name, TargetState::Paused).unwrap();
    worker()
        .set_target_state(&neighbour.name, TargetState::Running)
        .unwrap();
    managed.elapsed()
}

/// Resident memory of this process (the worker runs in it), in bytes.
fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Open file descriptors of this process.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// A guest that sleeps (`wasi:io/poll`) in a connector call is interrupted
/// at its deadline like one that loops: the request is refused in about
/// `task.call.timeout.ms`, naming the call and the limit, and meanwhile the
/// worker's management calls (pause and resume of the neighbour) do not
/// wait for it.
#[test]
fn connector_calls_that_block_in_the_host_are_interrupted() {
    let neighbour = Neighbour::start("blocking-connector-calls");
    for (attack, call) in [("sleep-validate", "validate"), ("sleep-task-configs", "task-configs")] {
        let name = unique(attack);
        let cfg = raw_config(attack, &name, &unique(attack));
        let started = Instant::now();
        let create = std::thread::spawn(move || worker().create_connector(cfg, TargetState::Running));
        // While the hostile call blocks, the management plane answers.
        let manage_took = pause_and_resume(&neighbour);
        let err = match create.join().unwrap() {
            Ok(()) => panic!("{attack}: should have been refused"),
            Err(e) => e.to_string(),
        };
        let took = started.elapsed();
        assert_mentions(attack, &err, &[call, "task.call.timeout.ms", "wasi:io/poll"]);
        // The connector's calls run outside the management lock.
        assert!(
            manage_took < Duration::from_secs(2),
            "{attack}: pause/resume took {manage_took:?} while {call} blocked"
        );
        assert!(took < Duration::from_secs(15), "{attack}: refused after {took:?}");
        assert!(worker().status(&name).is_err(), "{attack}: not registered");
    }
    // The same through `PUT …/config` of a running connector (a
    // reconfiguration): its new task configs are asked outside the lock too.
    let name = unique("reconfigured");
    let topic = unique("reconfigured");
    worker().start_connector(raw_config("none", &name, &topic)).unwrap();
    let cfg = raw_config("sleep-task-configs", &name, &topic);
    let put = std::thread::spawn(move || worker().put_connector(cfg));
    let manage_took = pause_and_resume(&neighbour);
    let err = match put.join().unwrap() {
        Ok(_) => panic!("the reconfiguration should have been refused"),
        Err(e) => e.to_string(),
    };
    assert_mentions(
        "put sleep-task-configs",
        &err,
        &["task-configs", "task.call.timeout.ms"],
    );
    assert!(
        manage_took < Duration::from_secs(2),
        "pause/resume took {manage_took:?} while a reconfiguration's task-configs blocked"
    );
    worker().delete_connector(&name).unwrap();
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}

/// A task that sleeps in `poll`, or blocks reading a granted peer that
/// never answers, fails at its call deadline (1 s here) naming the wait and
/// the limit, instead of staying RUNNING; deleting it returns at once.
#[test]
fn task_calls_that_block_in_the_host_fail_at_their_deadline() {
    let neighbour = Neighbour::start("blocking-task-calls");
    // A peer that accepts connections (the kernel's backlog) and never writes.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = silent.local_addr().unwrap().to_string();
    for (attack, extra, wait) in [
        ("sleep-poll", vec![], "wasi:io/poll"),
        (
            "block-read",
            vec![
                ("grants.net.connect", address.as_str()),
                ("attack.address", address.as_str()),
            ],
            "wasi:io/",
        ),
    ] {
        let started = Instant::now();
        let a = raw_source(attack, &extra);
        let trace = a.assert_failed(&["`poll`", "task.call.timeout.ms", wait]);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{attack}: failed after {:?}: {trace}",
            started.elapsed()
        );
        let deleted = Instant::now();
        a.stop();
        assert!(
            deleted.elapsed() < Duration::from_secs(5),
            "{attack}: DELETE took {:?}",
            deleted.elapsed()
        );
    }
    drop(silent);
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}

/// Host resources a guest creates without any grant (`wasi:http` fields
/// with big values, outgoing bodies with full streams) or with one (a
/// granted file opened again and again) are capped per task
/// (`task.host.handles.max`, `task.http.fields.max.bytes`): the task fails
/// naming the limit, the worker's RSS stays within a bound, and the file
/// descriptors are released.
#[test]
fn host_resources_are_capped_per_task() {
    let neighbour = Neighbour::start("host-resources");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("granted.txt");
    std::fs::write(&file, "x").unwrap();
    let dir_s = dir.path().to_str().unwrap().to_owned();
    let file_s = file.to_str().unwrap().to_owned();
    let fds_before = open_fds();
    let rss_before = rss_bytes();
    for (attack, extra) in [
        ("http-fields", vec![]),
        ("body-streams", vec![]),
        (
            "open-files",
            vec![("grants.fs.read", dir_s.as_str()), ("attack.path", file_s.as_str())],
        ),
    ] {
        let a = raw_source(attack, &extra);
        a.assert_failed(&["task.host.handles.max"]);
        a.stop();
        let rss = rss_bytes();
        // Caps: 1,024 handles × at most 32 KiB (fields) or 32 KiB (a body's
        // two 16 KiB chunks). Without them one task reached gigabytes.
        assert!(
            rss < rss_before + 512 * 1024 * 1024,
            "{attack}: RSS grew from {rss_before} to {rss} bytes"
        );
    }
    // The files the task held are closed with its instance.
    let fds = eventually("the hostile task's descriptors are closed", DEADLINE, || {
        let n = open_fds();
        (n < fds_before + 200).then_some(n)
    });
    assert!(fds < fds_before + 200, "{fds_before} -> {fds} descriptors");
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}

/// Source positions are checked in linear time and capped: a duplicate
/// among 300,000 positions is found at once (the quadratic check took
/// minutes); more positions than `poll.max.records`, a position over
/// `task.offset.max.bytes`, and more source partitions than
/// `task.offset.partitions.max` fail the task naming the limit; none of
/// their offsets reach the offsets topic.
#[test]
fn source_positions_are_checked_in_linear_time_and_capped() {
    let neighbour = Neighbour::start("positions");
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a [&'a str]);
    let cases: [Case<'_>; 4] = [
        (
            "positions-dup",
            vec![("attack.count", "300000"), ("attack.bytes", "12")],
            &["more than one position"],
        ),
        (
            "positions",
            vec![
                ("attack.count", "20000"),
                ("attack.bytes", "1024"),
                ("poll.max.records", "1000"),
            ],
            &["20000 source positions", "poll.max.records"],
        ),
        (
            "positions",
            vec![("attack.count", "10"), ("attack.bytes", "8192")],
            &["task.offset.max.bytes"],
        ),
        (
            "positions",
            vec![
                ("attack.count", "500"),
                ("attack.bytes", "32"),
                ("task.offset.partitions.max", "1200"),
            ],
            &["task.offset.partitions.max"],
        ),
    ];
    let mut names = Vec::new();
    for (attack, extra, needles) in cases {
        let started = Instant::now();
        let a = raw_source(attack, &extra);
        let trace = a.assert_failed(needles);
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{attack} {extra:?}: failed after {:?}: {trace}",
            started.elapsed()
        );
        names.push(a.name.clone());
        a.stop();
    }
    // Nothing of theirs beyond what was within the limits: in particular
    // none of the refused batches' offsets.
    let offsets = read_topic(offsets_topic());
    for name in &names {
        let theirs = offsets
            .iter()
            .filter(|r| r.key.as_deref().is_some_and(|k| k.contains(name.as_str())))
            .count();
        assert!(theirs <= 1000, "{name}: {theirs} offset records");
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}

/// A source may not write records to the worker's internal topics: a
/// record forging the neighbour's offset in the offsets topic fails the
/// hostile task, naming the topic, and the offsets topic holds no such
/// record (the neighbour's committed position is untouched).
#[test]
fn sources_cannot_write_the_internal_topics() {
    let neighbour = Neighbour::start("internal-topics");
    // The neighbour (datagen) keeps {"stream":"stream-0"} -> {"seq":<n>}.
    let forged_key = format!(r#"["{}",{{"stream":"stream-0"}}]"#, neighbour.name);
    for topic in [offsets_topic(), "__consumer_offsets"] {
        let a = raw_source(
            "write-topic",
            &[
                ("attack.topic", topic),
                ("attack.key", &forged_key),
                ("attack.value", r#"{"seq":0}"#),
            ],
        );
        a.assert_failed(&[topic, "protected"]);
        a.stop();
    }
    neighbour.assert_delivered_everything();
    let forged = read_topic(offsets_topic())
        .into_iter()
        .filter(|r| r.key.as_deref() == Some(forged_key.as_str()) && r.value.as_deref() == Some(r#"{"seq":0}"#))
        .count();
    assert_eq!(forged, 0, "a forged offset reached the offsets topic");
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}

/// A record the broker would refuse for its whole partition batch (a
/// timestamp beyond the topic's `message.timestamp.after.max.ms`, Kafka 4's
/// default one hour) into a topic a neighbour writes through the same
/// shared producer: the host refuses it first, so only the hostile task
/// fails and the neighbour delivers everything.
#[test]
fn a_record_the_broker_would_refuse_fails_only_its_own_task() {
    let neighbour = Neighbour::start("future-timestamp");
    eventually("the neighbour's topic exists", DEADLINE, || {
        (topic_size(&neighbour.topic) > 0).then_some(())
    });
    let a = raw_source(
        "write-topic",
        &[
            ("attack.topic", neighbour.topic.as_str()),
            ("attack.key", "forged"),
            ("attack.value", "forged"),
            ("attack.timestamp", "future"),
        ],
    );
    a.assert_failed(&["message.timestamp.after.max.ms", neighbour.topic.as_str()]);
    a.stop();
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}
