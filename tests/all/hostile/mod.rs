//! The hostile-module suite: real components (`tests/fixtures/hostile-source`,
//! `tests/fixtures/hostile-sink`, built like any connector; and
//! `tests/fixtures/raw-hostile-source`, written against the WIT and WASI
//! without the SDK, whose attacks on the host are in [`host`]), each instance
//! attempting one attack on the worker. For every attack the suite asserts
//! the exact refusal (`Worker::start_connector` errors) or FAILED reason
//! (the task's trace), that the worker is still healthy (the status of other
//! connectors works, a new connector starts and delivers), and that a
//! neighbour connector in the same worker delivers every one of its records.
//! docs/hostile-suite.md lists every attack and what is asserted.
//!
//! One worker is shared by the whole module (tests run in parallel threads;
//! every name and topic is unique); each test starts its own neighbour.
//! Every hostile connector runs with `task.restart.max.attempts=0`, so a
//! failure is final, and short limits (`task.call.timeout.ms=1000`,
//! `task.memory.max.bytes=64 MiB`) to keep the suite fast.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::Duration;

use copycat_runtime::Worker;
use copycat_tests::*;

/// Limits every hostile connector runs with.
const LIMITS: &[(&str, &str)] = &[
    ("task.restart.max.attempts", "0"),
    ("task.call.timeout.ms", "1000"),
    ("task.memory.max.bytes", "67108864"),
];

/// Records the hostile source emits before the attacks that let records flow
/// first (`RECORDS_BEFORE_ATTACK` in the fixture).
const RECORDS_BEFORE_ATTACK: i64 = 3;

/// Records the neighbour emits: 2 streams × `NEIGHBOUR_COUNT`, at
/// `NEIGHBOUR_RATE` per second, so it is still running while the attacks are.
const NEIGHBOUR_COUNT: i64 = 750;
const NEIGHBOUR_STREAMS: i64 = 2;
const NEIGHBOUR_RATE: &str = "500";

/// Records in each sink test's input topic.
const SINK_INPUT: usize = 10;

const DEADLINE: Duration = Duration::from_secs(60);

mod host;
mod typed;

/// The offsets topic of the shared worker.
fn offsets_topic() -> &'static str {
    static TOPIC: OnceLock<String> = OnceLock::new();
    TOPIC.get_or_init(|| unique("hostile-offsets"))
}

/// The worker shared by every test of this module.
fn worker() -> &'static Worker {
    static WORKER: OnceLock<std::sync::Arc<Worker>> = OnceLock::new();
    WORKER.get_or_init(|| start_worker(offsets_topic()))
}

fn hostile_source() -> PathBuf {
    fixture("hostile-source")
}

fn hostile_sink() -> PathBuf {
    fixture("hostile-sink")
}

fn panic_message(component: &str, callback: &str) -> String {
    format!("{component}: deliberate panic in {callback}")
}

/// A well-behaved datagen connector in the same worker as the attacks.
struct Neighbour {
    name: String,
    topic: String,
}

impl Neighbour {
    fn start(family: &str) -> Self {
        let name = unique(&format!("neighbour-{family}"));
        let topic = unique(&format!("neighbour-{family}"));
        let count = NEIGHBOUR_COUNT.to_string();
        let streams = NEIGHBOUR_STREAMS.to_string();
        worker()
            .start_connector(connector(
                worker(),
                &[
                    ("name", &name),
                    ("connector.class", "datagen"),
                    ("topic", &topic),
                    ("streams", &streams),
                    ("count", &count),
                    ("rate", NEIGHBOUR_RATE),
                    ("batch.size", "50"),
                ],
            ))
            .unwrap();
        Self { name, topic }
    }

    /// Every record delivered, none lost, none repeated, and still RUNNING.
    fn assert_delivered_everything(&self) {
        let expected = NEIGHBOUR_STREAMS * NEIGHBOUR_COUNT;
        eventually(
            &format!("the neighbour {} delivers {expected} records", self.name),
            DEADLINE,
            || (topic_size(&self.topic) >= expected).then_some(()),
        );
        let records = read_topic(&self.topic);
        let mut keys: Vec<String> = records.iter().filter_map(|r| r.key.clone()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(records.len() as i64, expected, "the neighbour lost or repeated records");
        assert_eq!(keys.len() as i64, expected, "the neighbour repeated records");
        let states = task_states(worker(), &self.name);
        assert!(
            states.iter().all(|(s, _)| s == "RUNNING"),
            "the neighbour is untouched: {states:?}"
        );
    }

    fn stop(&self) {
        worker().delete_connector(&self.name).unwrap();
    }
}

/// The worker still serves status and starts (and runs) a new connector.
fn assert_worker_healthy(neighbour: &Neighbour) {
    let status = worker().status(&neighbour.name).unwrap();
    assert!(!status.tasks.is_empty(), "{status:?}");
    let name = unique("after-attacks");
    let topic = unique("after-attacks");
    worker()
        .start_connector(connector(
            worker(),
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "20"),
            ],
        ))
        .unwrap();
    eventually("a connector started after the attacks delivers", DEADLINE, || {
        (topic_size(&topic) == 20).then_some(())
    });
    assert_eq!(task_states(worker(), &name)[0].0, "RUNNING");
    worker().delete_connector(&name).unwrap();
}

/// One hostile connector.
struct Attack {
    attack: String,
    name: String,
    /// The connector's `topic` (sources).
    topic: String,
}

/// The config of a hostile connector: the component, the attack, the
/// limits, then `extra` (which overrides them).
fn attack_pairs(
    component: &Path,
    attack: &str,
    name: &str,
    target: (&str, &str),
    extra: &[(&str, &str)],
) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = vec![
        ("name".into(), name.into()),
        ("connector.class".into(), component.to_str().unwrap().into()),
        (target.0.into(), target.1.into()),
        ("attack".into(), attack.into()),
    ];
    pairs.extend(LIMITS.iter().chain(extra).map(|(k, v)| (k.to_string(), v.to_string())));
    pairs
}

fn start(component: &Path, attack: &str, target: (&str, &str), extra: &[(&str, &str)]) -> Result<Attack, String> {
    let name = unique(attack);
    let pairs = attack_pairs(component, attack, &name, target, extra);
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    worker()
        .start_connector(connector(worker(), &refs))
        .map_err(|e| e.to_string())?;
    Ok(Attack {
        attack: attack.to_owned(),
        name,
        topic: target.1.to_owned(),
    })
}

/// Start a hostile source: it must be accepted (the attack is in a task).
fn source(attack: &str, extra: &[(&str, &str)]) -> Attack {
    let topic = unique(attack);
    start(&hostile_source(), attack, ("topic", &topic), extra)
        .unwrap_or_else(|e| panic!("hostile source {attack} was refused: {e}"))
}

/// Start a hostile sink reading `input`: it must be accepted.
fn sink(attack: &str, input: &str) -> Attack {
    start(&hostile_sink(), attack, ("topics", input), &[])
        .unwrap_or_else(|e| panic!("hostile sink {attack} was refused: {e}"))
}

/// Start a connector that must be refused; the refusal's message. A refused
/// connector is not registered.
fn refused(component: &Path, attack: &str) -> (String, String) {
    let name = unique(attack);
    let pairs = attack_pairs(component, attack, &name, ("topic", &unique(attack)), &[]);
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let err = match worker().start_connector(connector(worker(), &refs)) {
        Ok(()) => panic!("{attack}: {} should have been refused", component.display()),
        Err(e) => e.to_string(),
    };
    assert!(
        worker().status(&name).is_err(),
        "{attack}: a refused connector is not registered"
    );
    (name, err)
}

fn assert_mentions(what: &str, message: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            message.contains(needle),
            "{what}: {message:?} should mention {needle:?}"
        );
    }
}

impl Attack {
    /// Wait for the (only) task to be FAILED; its trace.
    fn failed_trace(&self) -> String {
        eventually(&format!("attack {} fails its task", self.attack), DEADLINE, || {
            let (state, trace) = task_states(worker(), &self.name).pop()?;
            match state.as_str() {
                "FAILED" => Some(trace.unwrap_or_default()),
                "STOPPED" => panic!("attack {}: the task STOPPED instead of failing", self.attack),
                _ => None,
            }
        })
    }

    /// The task is FAILED with a trace mentioning every needle.
    fn assert_failed(&self, needles: &[&str]) -> String {
        let trace = self.failed_trace();
        assert_mentions(&format!("attack {}", self.attack), &trace, needles);
        trace
    }

    fn wait_running(&self) {
        eventually(&format!("attack {} runs", self.attack), DEADLINE, || {
            let (state, trace) = task_states(worker(), &self.name).pop()?;
            assert_ne!(state, "FAILED", "attack {}: failed too early: {trace:?}", self.attack);
            (state == "RUNNING").then_some(())
        });
    }

    /// Records the sink task flushed so far.
    fn flushed(&self) -> u64 {
        worker().task_metrics(&self.name).unwrap()[0]
            .records_out
            .load(Ordering::Relaxed)
    }

    fn stop(&self) {
        worker().delete_connector(&self.name).unwrap();
    }
}

/// A topic holding `SINK_INPUT` records for the hostile sinks.
fn sink_input(family: &str) -> String {
    let topic = unique(&format!("hostile-input-{family}"));
    block_on(create_topic(&topic, 1));
    let records: Vec<(String, String)> = (0..SINK_INPUT).map(|i| (format!("k{i}"), format!("v{i}"))).collect();
    produce(&topic, None, &records);
    topic
}

/// `validate`, `task-configs` and `describe` run on the connector instance
/// inside `start_connector`: a loop or a panic there refuses the connector,
/// naming it, the call, and the limit or the panic message.
#[test]
fn connector_calls_that_loop_or_panic_refuse_the_connector() {
    let neighbour = Neighbour::start("connector-calls");
    let source = hostile_source();
    for (component, attack, call, reason) in [
        (
            source.clone(),
            "loop-validate",
            "validate",
            "task.call.timeout.ms".to_owned(),
        ),
        (
            source.clone(),
            "loop-task-configs",
            "task-configs",
            "task.call.timeout.ms".to_owned(),
        ),
        (
            source.clone(),
            "panic-validate",
            "validate",
            panic_message("hostile-source", "validate"),
        ),
        (
            source.clone(),
            "panic-task-configs",
            "task-configs",
            panic_message("hostile-source", "task-configs"),
        ),
        (
            fixture("hostile-source-panic-describe"),
            "panic-describe",
            "describe",
            panic_message("hostile-source", "describe"),
        ),
        (
            fixture("hostile-source-loop-describe"),
            "loop-describe",
            "describe",
            "task.call.timeout.ms".to_owned(),
        ),
    ] {
        let (name, err) = refused(&component, attack);
        assert_mentions(attack, &err, &[&format!("connector '{name}'"), call, &reason]);
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}

/// A task call that never returns is interrupted after
/// `task.call.timeout.ms` and fails the task: source `start`, `poll`,
/// `commit`; sink `open`, `put`, `flush`.
#[test]
fn task_calls_that_loop_are_interrupted() {
    let neighbour = Neighbour::start("loops");
    let input = sink_input("loops");
    let attacks = [
        (source("loop-start", &[]), "start"),
        (source("loop-poll", &[]), "poll"),
        (source("loop-commit", &[]), "commit"),
        (sink("loop-open", &input), "open"),
        (sink("loop-put", &input), "put"),
        (sink("loop-flush", &input), "flush"),
    ];
    for (attack, call) in &attacks {
        attack.assert_failed(&["task.call.timeout.ms", call]);
    }
    // loop-commit only loops once its first records are durable: they stay.
    assert_eq!(topic_size(&attacks[2].0.topic), RECORDS_BEFORE_ATTACK);
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
    for (attack, _) in &attacks {
        attack.stop();
    }
}

/// Growing memory past `task.memory.max.bytes` (in a source's `poll`, in a
/// sink's `put`) and recursing past `task.stack.max.bytes` fail the task.
#[test]
fn memory_and_stack_exhaustion_fail_only_the_task() {
    let neighbour = Neighbour::start("exhaustion");
    let input = sink_input("exhaustion");
    let bomb = source("memory-bomb", &[]);
    let sink_bomb = sink("memory-bomb", &input);
    let recursion = source("deep-recursion", &[]);
    bomb.assert_failed(&["task.memory.max.bytes", "67108864"]);
    sink_bomb.assert_failed(&["task.memory.max.bytes", "67108864"]);
    recursion.assert_failed(&["task.stack.max.bytes"]);
    for a in [&bomb, &recursion] {
        assert_eq!(topic_size(&a.topic), 0, "{}: nothing produced", a.attack);
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
    for a in [&bomb, &sink_bomb, &recursion] {
        a.stop();
    }
}

/// A source that returns more than it was asked for, or more bytes than
/// allowed, has the whole batch refused and its task failed.
#[test]
fn oversized_batches_and_records_are_refused() {
    let neighbour = Neighbour::start("oversized");
    let attacks = [
        (
            source("giant-batch", &[("poll.max.records", "100")]),
            "poll.max.records",
        ),
        (
            source("giant-batch-bytes", &[("task.batch.max.bytes", "1048576")]),
            "task.batch.max.bytes",
        ),
        (
            source("giant-record", &[("task.record.max.bytes", "1048576")]),
            "task.record.max.bytes",
        ),
    ];
    for (attack, key) in &attacks {
        attack.assert_failed(&[key]);
        assert_eq!(
            topic_size(&attack.topic),
            0,
            "{}: no record of a refused batch reaches Kafka",
            attack.attack
        );
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
    for (attack, _) in &attacks {
        attack.stop();
    }
}

/// Records Kafka cannot take as they are (a missing topic, a forbidden topic
/// name, partition -1, a header without a key) fail the task with a reason
/// naming the problem; none of them is produced anywhere.
#[test]
fn malformed_records_fail_the_task() {
    let neighbour = Neighbour::start("malformed");
    let missing = unique("does-not-exist");
    let bad_topic = source("bad-topic", &[("attack.topic", &missing)]);
    let bad_name = source("bad-topic-name", &[]);
    let bad_partition = source("bad-partition", &[]);
    let bad_header = source("bad-header", &[]);
    bad_topic.assert_failed(&["does not exist", &missing]);
    bad_name.assert_failed(&["invalid topic name"]);
    bad_partition.assert_failed(&["partition -1"]);
    bad_header.assert_failed(&["header", "empty key"]);
    assert_eq!(topic_size(&missing), 0, "the missing topic received nothing");
    for a in [&bad_topic, &bad_name, &bad_partition, &bad_header] {
        assert_eq!(topic_size(&a.topic), 0, "{}: nothing produced", a.attack);
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
    for a in [&bad_topic, &bad_name, &bad_partition, &bad_header] {
        a.stop();
    }
}

/// Reaching the host through plain `std` (WASI) — reading /etc/passwd,
/// writing outside any grant, opening a socket, reading the environment — is
/// denied; the component reports the denial as a fatal error, and nothing
/// it would have sent on success reaches Kafka. With grants, what lies
/// outside them stays out of reach: `..` out of a write grant, an address
/// other than the one granted.
#[test]
fn capability_attacks_are_denied() {
    let neighbour = Neighbour::start("capabilities");
    let dir = tempfile::tempdir().unwrap();
    let escape = dir.path().join("escaped.txt");
    let granted = dir.path().join("granted");
    std::fs::create_dir(&granted).unwrap();
    let traversal = granted.join("..").join("escaped-by-traversal.txt");
    let bootstrap = bootstrap();
    let attacks = [
        source("read-passwd", &[]),
        source("write-outside", &[("attack.path", escape.to_str().unwrap())]),
        source(
            "write-outside",
            &[
                ("grants.fs.write", granted.to_str().unwrap()),
                ("attack.path", traversal.to_str().unwrap()),
            ],
        ),
        source("connect", &[("attack.address", &bootstrap)]),
        source(
            "connect",
            &[("grants.net.connect", "127.0.0.1:1"), ("attack.address", &bootstrap)],
        ),
        source("read-env", &[]),
    ];
    for a in &attacks {
        let trace = a.assert_failed(&[&format!("attack {} denied: ", a.attack)]);
        assert!(!trace.contains("SUCCEEDED"), "{trace}");
        assert_eq!(topic_size(&a.topic), 0, "{}: nothing produced", a.attack);
    }
    for file in [&escape, &dir.path().join("escaped-by-traversal.txt")] {
        assert!(!file.exists(), "write-outside created {}", file.display());
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
    for a in &attacks {
        a.stop();
    }
}

/// A panic in any task call traps the instance and fails the task with the
/// panic message; records delivered before it stay delivered. `stop` and
/// `close` run when the task is stopped.
#[test]
fn panics_in_task_calls_fail_the_task() {
    let neighbour = Neighbour::start("panics");
    let input = sink_input("panics");
    let src = |attack: &str| source(attack, &[]);
    let start = src("panic-start");
    let poll = src("panic-poll");
    let commit = src("panic-commit");
    let stop = src("panic-stop");
    let open = sink("panic-open", &input);
    let put = sink("panic-put", &input);
    let flush = sink("panic-flush", &input);
    let close = sink("panic-close", &input);
    let sink_stop = sink("panic-stop", &input);

    start.assert_failed(&[&panic_message("hostile-source", "start")]);
    poll.assert_failed(&[&panic_message("hostile-source", "poll")]);
    commit.assert_failed(&[&panic_message("hostile-source", "commit")]);
    open.assert_failed(&[&panic_message("hostile-sink", "open")]);
    put.assert_failed(&[&panic_message("hostile-sink", "put")]);
    flush.assert_failed(&[&panic_message("hostile-sink", "flush")]);
    // The first batch, returned before the panic, was delivered, not lost.
    for a in [&poll, &commit] {
        assert_eq!(topic_size(&a.topic), RECORDS_BEFORE_ATTACK, "{}", a.attack);
    }

    // `stop` (and a sink's `close`) only run when the task is stopped: let
    // each work normally first, then stop it.
    stop.wait_running();
    eventually("panic-stop delivers its records", DEADLINE, || {
        (topic_size(&stop.topic) == RECORDS_BEFORE_ATTACK).then_some(())
    });
    for a in [&close, &sink_stop] {
        a.wait_running();
        eventually(&format!("{} flushes its input", a.attack), DEADLINE, || {
            (a.flushed() >= SINK_INPUT as u64).then_some(())
        });
    }
    for (a, component, call) in [
        (&stop, "hostile-source", "stop"),
        (&close, "hostile-sink", "close"),
        (&sink_stop, "hostile-sink", "stop"),
    ] {
        worker().stop_task(&a.name, 0).unwrap();
        a.assert_failed(&[&panic_message(component, call)]);
    }
    assert_eq!(topic_size(&stop.topic), RECORDS_BEFORE_ATTACK);

    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
    for a in [&start, &poll, &commit, &stop, &open, &put, &flush, &close, &sink_stop] {
        a.stop();
    }
}

/// A retriable `put` error redelivers the same batch, in order, from the
/// put thread: `retriable-put` fails every other `put` and fails fatally on
/// any gap or repeat in a partition's offsets. With 3-record batches all
/// of the input is put and flushed, and the task keeps running.
#[test]
fn a_retriable_put_error_redelivers_the_batch_in_order() {
    let input = sink_input("retriable-put");
    let a = start(
        &hostile_sink(),
        "retriable-put",
        ("topics", &input),
        &[("poll.max.records", "3")],
    )
    .unwrap_or_else(|e| panic!("retriable-put was refused: {e}"));
    a.wait_running();
    eventually(
        "every record is put and flushed despite the retriable errors",
        DEADLINE,
        || {
            let (state, trace) = task_states(worker(), &a.name).pop()?;
            assert_ne!(
                state, "FAILED",
                "redelivery lost, repeated or reordered records: {trace:?}"
            );
            (a.flushed() >= SINK_INPUT as u64).then_some(())
        },
    );
    assert_eq!(a.flushed(), SINK_INPUT as u64, "nothing put twice");
    assert_eq!(task_states(worker(), &a.name)[0].0, "RUNNING");
    a.stop();
}

/// The errant record reporter holds at most one report per record of the
/// running `put`, its reason cut to 4 KiB, and takes none outside `put` or
/// past the batch: a sink that reports every record 20 times with 256 KiB
/// reasons gets one dead letter per record, each with a short message, and
/// keeps running.
#[test]
fn errant_record_reports_are_bounded_by_the_batch() {
    let input = sink_input("errant-flood");
    let dlq = unique("hostile-dlq");
    let a = start(
        &hostile_sink(),
        "errant-flood",
        ("topics", &input),
        &[
            ("errors.tolerance", "all"),
            ("errors.deadletterqueue.topic.name", &dlq),
            ("errors.deadletterqueue.topic.replication.factor", "1"),
            ("errors.deadletterqueue.context.headers.enable", "true"),
        ],
    )
    .unwrap_or_else(|e| panic!("errant-flood was refused: {e}"));
    eventually("every record put and flushed", DEADLINE, || {
        let (state, trace) = task_states(worker(), &a.name).pop()?;
        assert_ne!(state, "FAILED", "{trace:?}");
        (a.flushed() >= SINK_INPUT as u64).then_some(())
    });
    let letters = eventually("a letter per record", DEADLINE, || {
        let l = read_messages(&dlq, |m| {
            use rdkafka::Message;
            use rdkafka::message::Headers;
            let message = m
                .headers()
                .and_then(|h| h.iter().find(|h| h.key == "__connect.errors.exception.message"))
                .and_then(|h| h.value.map(<[u8]>::len));
            (m.key().map(<[u8]>::to_vec), message)
        });
        (l.len() >= SINK_INPUT).then_some(l)
    });
    assert_eq!(letters.len(), SINK_INPUT, "one letter per record, not per report");
    for (key, message) in &letters {
        let len = message.unwrap_or_default();
        assert!(len > 0 && len < 4096 + 256, "{key:?}: a {len}-byte message");
    }
    assert_eq!(task_states(worker(), &a.name)[0].0, "RUNNING");
    a.stop();
}

/// A minimal valid core module (not a component): one function, exported as
/// `describe`, as if it were a connector.
const CORE_MODULE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1 (a core module)
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: () -> ()
    0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
    0x07, 0x0c, 0x01, 0x08, b'd', b'e', b's', b'c', b'r', b'i', b'b', b'e', 0x00, 0x00, // export "describe"
    0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code section: an empty body
];

/// Files that are not a Copycat component are refused at load, before any
/// instance or task exists, with an error naming the file: a component of
/// another world, a core module, a truncated component.
#[test]
fn broken_components_are_refused_at_load() {
    let neighbour = Neighbour::start("loading");
    let dir = tempfile::tempdir().unwrap();
    let core = dir.path().join("core-module.wasm");
    std::fs::write(&core, CORE_MODULE).unwrap();
    let truncated = dir.path().join("truncated-datagen.wasm");
    let full = std::fs::read(plugin("datagen")).unwrap();
    std::fs::write(&truncated, &full[..full.len() / 2]).unwrap();
    for (path, what) in [
        (fixture("wrong-world"), "does not implement the copycat:connector"),
        (core, "core WebAssembly module"),
        (truncated, "is not a WebAssembly component"),
    ] {
        let (_, err) = refused(&path, "none");
        assert_mentions(&path.display().to_string(), &err, &[&path.display().to_string(), what]);
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}
