//! Distributed-mode groundwork: membership comes from Kafka's group
//! coordinator, and every member computes the same task assignment from it.

use std::time::Duration;

use copycat_runtime::cluster::assign::assign;
use copycat_runtime::cluster::membership::Membership;
use copycat_runtime::kafka::ensure_compacted_topic;
use copycat_tests::*;

#[test]
fn workers_see_each_other_join_and_leave_through_the_group_coordinator() {
    let worker = worker_config(&unique("offsets"));
    let topic = unique("members");
    block_on(ensure_compacted_topic(&worker, &topic, 1, 1)).unwrap();
    let group = unique("cluster");
    let session = Duration::from_secs(6);
    let a = Membership::join(&worker, &group, &topic, "worker-a", session, session / 3).unwrap();
    let b = Membership::join(&worker, &group, &topic, "worker-b", session, session / 3).unwrap();
    let both = vec!["worker-a".to_owned(), "worker-b".to_owned()];
    // Listed while the group still rebalances; stable once both joined.
    eventually("both members, seen by both", Duration::from_secs(60), || {
        (a.members().ok()? == both && b.members().ok()? == both).then_some(())
    });
    eventually("a stable group both took part in", Duration::from_secs(60), || {
        let stable = a.roster().ok()?.stable && b.roster().ok()?.stable;
        (stable && a.generation() >= 1 && b.generation() >= 1).then_some(())
    });
    // Both compute the same assignment from what they see.
    let tasks: Vec<(String, u32)> = (0..5).map(|i| ("c".to_owned(), i)).collect();
    let plan = assign(&tasks, &a.members().unwrap());
    assert_eq!(plan, assign(&tasks, &b.members().unwrap()));
    let mut loads: Vec<usize> = plan.values().map(Vec::len).collect();
    loads.sort();
    assert_eq!(loads, [2, 3]);

    let before = a.generation();
    drop(b);
    // Gone from the list at once (b sent LeaveGroup), before a rejoined.
    eventually("b has left", Duration::from_secs(60), || {
        (a.members().ok()? == ["worker-a"]).then_some(())
    });
    eventually(
        "the departure was a rebalance a took part in",
        Duration::from_secs(60),
        || (a.generation() > before && a.roster().ok()?.stable).then_some(()),
    );
    assert_eq!(a.members().unwrap(), ["worker-a"]);
    assert_eq!(assign(&tasks, &a.members().unwrap())["worker-a"].len(), 5);
}
