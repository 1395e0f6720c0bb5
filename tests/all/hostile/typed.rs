//! Typed batches (contract 0.3.0) the SDK would never build, from
//! `raw-hostile-typed` (written against the WIT without the SDK): schema
//! tables and values that would make the host's work or memory explode,
//! or that break the encoding. Each fails only its own task, quickly,
//! naming what is wrong; nothing of it reaches Kafka; a neighbour delivers
//! everything.

use std::time::{Duration, Instant};

use super::*;

#[test]
fn typed_batches_that_expand_or_break_the_encoding_fail_the_task() {
    let neighbour = Neighbour::start("typed");
    let cases: [(&str, &[&str]); 10] = [
        ("schema-dag", &["expands to more than 50000 nodes"]),
        ("empty-structs", &["more values than"]),
        ("huge-decimal", &["Decimal of 1048576 bytes"]),
        ("deep-schema", &["deeper than 100"]),
        ("forward-ref", &["refers to node 1"]),
        ("bad-schema-index", &["no schema node 7"]),
        ("huge-count", &["a count of 4294967295"]),
        ("not-utf8", &["not UTF-8"]),
        ("bad-tag", &["99 is not a value tag"]),
        ("deep-schemaless", &["deeper than 100"]),
    ];
    for (attack, needles) in cases {
        let started = Instant::now();
        let topic = unique(attack);
        let a = start(&fixture("raw-hostile-typed"), attack, ("topic", &topic), &[])
            .unwrap_or_else(|e| panic!("{attack} was refused: {e}"));
        let trace = a.assert_failed(needles);
        assert!(
            trace.contains("malformed"),
            "{attack}: a malformed batch, not a conversion failure: {trace}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{attack}: failed after {:?}",
            started.elapsed()
        );
        assert_eq!(topic_size(&topic), 0, "{attack}: nothing written");
        a.stop();
    }
    neighbour.assert_delivered_everything();
    assert_worker_healthy(&neighbour);
    neighbour.stop();
}
