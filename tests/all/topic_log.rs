//! The compacted-topic log under distributed mode's config and status
//! topics: two readers agree, read their own writes, and tail.

use copycat_runtime::kafka::{ensure_compacted_topic, log::TopicLog};
use copycat_tests::*;

#[test]
fn two_logs_on_one_topic_agree_and_read_their_own_writes() {
    let topic = unique("log");
    let worker = worker_config(&unique("offsets"));
    block_on(ensure_compacted_topic(&worker, &topic, 3, 1)).unwrap();
    let mut a = TopicLog::open(&worker, &topic).unwrap();
    let mut b = TopicLog::open(&worker, &topic).unwrap();
    assert!(a.catch_up().unwrap().is_empty(), "an empty topic reads as empty");

    a.send("connector-x", Some(b"1")).unwrap();
    a.send("connector-y", Some(b"2")).unwrap();
    a.send("connector-x", Some(b"3")).unwrap();
    a.send("connector-y", None).unwrap();
    let read = a.catch_up().unwrap();
    assert_eq!(read.len(), 4, "a reads its own writes: {read:?}");
    let seen_by_b = b.catch_up().unwrap();
    // Per key, in the order written (keys may sit in different partitions).
    let x: Vec<_> = seen_by_b.iter().filter(|(k, _)| k == "connector-x").collect();
    assert_eq!(
        x,
        [
            &("connector-x".to_owned(), Some(b"1".to_vec())),
            &("connector-x".to_owned(), Some(b"3".to_vec()))
        ]
    );
    assert_eq!(a.view(), b.view(), "both see the same latest values");
    assert_eq!(b.get("connector-x"), Some(&b"3"[..]));
    assert_eq!(b.get("connector-y"), None, "the tombstone deleted y");

    // Tailing: only what came since.
    b.send("connector-z", Some(b"4")).unwrap();
    assert_eq!(a.catch_up().unwrap(), [("connector-z".to_owned(), Some(b"4".to_vec()))]);
    assert!(a.catch_up().unwrap().is_empty());
}

/// A record the broker refuses is an error of `send`, naming the key and
/// the topic, not a write that silently did not happen.
#[test]
fn a_record_the_broker_refuses_is_an_error() {
    let topic = unique("log-small");
    let worker = worker_config(&unique("offsets"));
    // The broker takes record batches of at most 1 KiB on this topic; the
    // producer would send up to 1 MB.
    block_on(create_topic_with(
        &topic,
        1,
        &[("cleanup.policy", "compact"), ("max.message.bytes", "1024")],
    ));
    block_on(ensure_compacted_topic(&worker, &topic, 1, 1)).unwrap();
    let mut log = TopicLog::open(&worker, &topic).unwrap();
    log.send("small", Some(b"fits")).unwrap();
    let err = log.send("big", Some(&[b'x'; 4096])).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("big") && msg.contains(&topic), "{msg}");
    assert!(msg.to_lowercase().contains("too large"), "{msg}");
    // Nothing but the first record is in the topic, and the log goes on.
    log.send("after", Some(b"ok")).unwrap();
    let keys: Vec<String> = log.catch_up().unwrap().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["small", "after"]);
}
