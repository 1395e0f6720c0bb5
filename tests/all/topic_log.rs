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
