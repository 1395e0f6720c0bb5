//! Density: at-least-once source tasks of a worker share one producer per
//! producer config (`producer.shared`, default true); each task still gets
//! its own delivery reports, failures and stops. An idle task backs off
//! (`poll.idle.backoff.max.ms`) instead of polling its guest every
//! `poll.idle.backoff.ms`, and wakes at once when stopped.

use std::time::{Duration, Instant};

use copycat_runtime::kafka::offset_store::read_connector;
use copycat_runtime::{TargetState, Worker};
use copycat_tests::*;

/// The value of the sample `series` (name and labels) in `text`.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// `poll` calls of task 0 of `name` so far.
fn polls(worker: &Worker, name: &str) -> f64 {
    sample(
        &worker.metrics_text(),
        &format!(r#"copycat_task_call_duration_seconds_count{{connector="{name}",task="0",call="poll"}}"#),
    )
    .unwrap_or(0.0)
}

/// Records task 0 of `name` had acknowledged by Kafka.
fn produced(worker: &Worker, name: &str) -> f64 {
    sample(
        &worker.metrics_text(),
        &format!(r#"copycat_source_records_produced_total{{connector="{name}",task="0"}}"#),
    )
    .unwrap_or(0.0)
}

/// Whether every stream of `name` has `last` as its committed offset.
fn committed(offsets: &str, name: &str, streams: u32, last: u64) -> bool {
    let Ok(c) = read_connector(&worker_config(offsets), name) else {
        return false;
    };
    (0..streams).all(|i| committed_seq(&c, i) == Some(last))
}

fn datagen<'a>(name: &'a str, topic: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut p = vec![
        ("name", name),
        ("connector.class", "datagen"),
        ("tasks.max", "1"),
        ("topic", topic),
        ("streams", "2"),
    ];
    p.extend_from_slice(extra);
    p
}

#[test]
fn two_connectors_share_one_producer_and_both_deliver_everything() {
    let offsets = unique("offsets");
    let (a, b) = (unique("shared-a"), unique("shared-b"));
    let (ta, tb) = (unique("shared-a"), unique("shared-b"));
    block_on(create_topic(&ta, 2));
    block_on(create_topic(&tb, 2));
    let worker = start_worker(&offsets);
    for (name, topic) in [(&a, &ta), (&b, &tb)] {
        let pairs = datagen(name, topic, &[("count", "500"), ("poll.max.records", "50")]);
        worker.start_connector(connector(&worker, &pairs)).unwrap();
    }
    eventually(
        "both connectors' 1,000 records in Kafka",
        Duration::from_secs(60),
        || (topic_size(&ta) >= 1000 && topic_size(&tb) >= 1000).then_some(()),
    );
    assert_eq!(worker.shared_producers(), 1, "same producer settings: one producer");
    for (name, topic) in [(&a, &ta), (&b, &tb)] {
        eventually(
            &format!("{name}'s offsets committed up to 499"),
            Duration::from_secs(30),
            || committed(&offsets, name, 2, 499).then_some(()),
        );
        assert_eq!(
            read_topic(topic).len(),
            1000,
            "{name}: nothing missing, nothing repeated"
        );
        assert_eq!(produced(&worker, name), 1000.0, "{name}: its own acknowledgements only");
    }
    // Other producer settings: a producer of their own.
    let (c, tc) = (unique("shared-c"), unique("shared-c"));
    let pairs = datagen(&c, &tc, &[("count", "10"), ("producer.override.linger.ms", "1")]);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("c's records in Kafka", Duration::from_secs(60), || {
        (topic_size(&tc) >= 20).then_some(())
    });
    assert_eq!(worker.shared_producers(), 2);
    // The last task using a shared producer closes it.
    worker.delete_connector(&c).unwrap();
    assert_eq!(worker.shared_producers(), 1);
    worker.delete_connector(&a).unwrap();
    worker.delete_connector(&b).unwrap();
    assert_eq!(worker.shared_producers(), 0);
    worker.shutdown();
}

#[test]
fn a_rejected_record_fails_only_its_own_task() {
    let offsets = unique("offsets");
    let (good, bad) = (unique("good"), unique("bad"));
    let (tgood, tbad) = (unique("good"), unique("small"));
    block_on(create_topic(&tgood, 1));
    // The broker refuses batches over 1,000 bytes on this topic; the
    // producer's own limit (1 MB) lets the records through to the broker.
    block_on(create_topic_with(&tbad, 1, &[("max.message.bytes", "1000")]));
    let worker = start_worker(&offsets);
    let pairs = datagen(&good, &tgood, &[("rate", "200")]);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("the good connector delivers", Duration::from_secs(30), || {
        (produced(&worker, &good) > 0.0).then_some(())
    });
    let pairs = datagen(
        &bad,
        &tbad,
        &[
            ("value.size", "5000"),
            ("count", "3"),
            ("task.restart.max.attempts", "0"),
        ],
    );
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let trace = eventually(
        "the bad connector's task fails",
        Duration::from_secs(60),
        || match task_states(&worker, &bad).first() {
            Some((s, trace)) if s == "FAILED" => Some(trace.clone().unwrap_or_default()),
            _ => None,
        },
    );
    assert!(
        trace.contains(&tbad) && trace.to_lowercase().contains("too large"),
        "the reason names the topic and the broker's error: {trace}"
    );
    assert_eq!(worker.shared_producers(), 1, "both ran on the shared producer");
    // The other connector is untouched and keeps delivering.
    let before = produced(&worker, &good);
    eventually("the good connector keeps delivering", Duration::from_secs(30), || {
        (produced(&worker, &good) >= before + 100.0).then_some(())
    });
    assert!(
        task_states(&worker, &good).iter().all(|(s, _)| s == "RUNNING"),
        "{:?}",
        task_states(&worker, &good)
    );
    worker.shutdown();
}

#[test]
fn restarting_one_task_does_not_disturb_another_on_the_shared_producer() {
    let offsets = unique("offsets");
    let (a, b) = (unique("steady"), unique("restarted"));
    let (ta, tb) = (unique("steady"), unique("restarted"));
    block_on(create_topic(&ta, 1));
    block_on(create_topic(&tb, 1));
    let worker = start_worker(&offsets);
    for (name, topic) in [(&a, &ta), (&b, &tb)] {
        let pairs = datagen(name, topic, &[("rate", "200")]);
        worker.start_connector(connector(&worker, &pairs)).unwrap();
    }
    eventually("both deliver", Duration::from_secs(30), || {
        (produced(&worker, &a) > 0.0 && produced(&worker, &b) > 0.0).then_some(())
    });
    for round in 0..3 {
        let before = produced(&worker, &a);
        worker.restart_task(&b, 0).unwrap();
        worker.stop_task(&b, 0).unwrap();
        worker.restart_task(&b, 0).unwrap();
        assert_eq!(worker.shared_producers(), 1, "round {round}");
        eventually("the restarted task delivers again", Duration::from_secs(30), || {
            (task_states(&worker, &b).first().is_some_and(|(s, _)| s == "RUNNING") && produced(&worker, &b) > 0.0)
                .then_some(())
        });
        eventually("the steady task keeps delivering", Duration::from_secs(30), || {
            (produced(&worker, &a) >= before + 50.0).then_some(())
        });
        assert!(task_states(&worker, &a).iter().all(|(s, _)| s == "RUNNING"));
    }
    // Pausing all of one connector leaves the other's producer in place.
    worker.set_target_state(&b, TargetState::Paused).unwrap();
    let before = produced(&worker, &a);
    eventually("the steady task keeps delivering", Duration::from_secs(30), || {
        (produced(&worker, &a) >= before + 50.0).then_some(())
    });
    assert_eq!(worker.shared_producers(), 1);
    worker.shutdown();
    // Stopped with its offsets committed: both topics hold every record
    // up to the committed offsets.
    let committed_b = read_connector(&worker_config(&offsets), &b).unwrap();
    assert_eq!(committed_b.len(), 2, "{committed_b:?}");
}

#[test]
fn an_idle_task_backs_off_and_wakes_at_once_when_stopped() {
    let offsets = unique("offsets");
    let name = unique("idle");
    let topic = unique("idle");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&offsets);
    // Two records, then nothing: the task idles.
    let pairs = datagen(&name, &topic, &[("count", "1"), ("poll.idle.backoff.max.ms", "60000")]);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("both records in Kafka", Duration::from_secs(30), || {
        (topic_size(&topic) >= 2).then_some(())
    });
    // With a fixed 50 ms pause an idle task would poll ~60 times in 3 s;
    // backing off (50, 100, 200, ... ms) it polls a handful of times.
    let first = polls(&worker, &name);
    let window = Instant::now();
    eventually("3 s of idling observed", Duration::from_secs(10), || {
        (window.elapsed() >= Duration::from_secs(3)).then_some(())
    });
    let idle_polls = polls(&worker, &name) - first;
    assert!(idle_polls <= 8.0, "an idle task polled {idle_polls} times in 3 s");
    // Its pause is now seconds long, but a stop wakes it at once.
    let stop = Instant::now();
    worker.set_target_state(&name, TargetState::Paused).unwrap();
    assert!(
        stop.elapsed() < Duration::from_secs(10),
        "pausing took {:?}: the idle pause did not wake",
        stop.elapsed()
    );
    assert!(committed(&offsets, &name, 2, 0));
    worker.shutdown();
}

#[test]
fn producer_shared_false_gives_every_task_its_own_producer() {
    init_logging();
    let offsets = unique("offsets");
    let name = unique("own");
    let topic = unique("own");
    block_on(create_topic(&topic, 2));
    let worker = block_on(Worker::start(worker_config_with(
        &offsets,
        &[("producer.shared", "false")],
    )))
    .unwrap();
    let pairs = datagen(&name, &topic, &[("count", "100"), ("tasks.max", "2")]);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("200 records in Kafka", Duration::from_secs(60), || {
        (topic_size(&topic) >= 200).then_some(())
    });
    assert_eq!(worker.shared_producers(), 0);
    eventually("offsets committed", Duration::from_secs(30), || {
        committed(&offsets, &name, 2, 99).then_some(())
    });
    assert_eq!(read_topic(&topic).len(), 200);
    worker.shutdown();
}
