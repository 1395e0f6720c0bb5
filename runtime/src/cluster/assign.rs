//! Which live worker runs which task: computed by every worker alone, from
//! the same inputs (the tasks in the config topic, the members of the
//! group Kafka reports), so all agree without a leader.
//!
//! Balanced rendezvous hashing: each task ranks the workers by a hash of
//! (task, worker) and goes to the best-ranked one that still has room. Room
//! is `floor(T/W)` per worker, and `T mod W` workers may take one more, so
//! loads differ by at most one. Ranking by hash keeps most tasks where they
//! were when a worker joins or leaves: only about `T/W` tasks move.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// A task of a connector: `(connector, task number)`.
pub type TaskId = (String, u32);

fn score(task: &TaskId, worker: &str) -> u64 {
    // FNV-1a over a stable encoding: the same on every worker and build
    // (std's SipHash keys are fixed too, but its output is not promised
    // stable across Rust versions).
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for b in bytes {
                self.0 ^= u64::from(*b);
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    task.0.as_bytes().hash(&mut h);
    task.1.to_le_bytes().hash(&mut h);
    worker.as_bytes().hash(&mut h);
    // A final mix, so similar inputs spread.
    let mut x = h.finish();
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

/// Assign `tasks` to `workers`: every task to exactly one worker; each
/// connector's tasks spread within one over the workers (so losing one
/// worker never takes most of a connector down), and the total loads within
/// one too. Deterministic: the same inputs (in any order) give the same
/// answer. No workers: nothing is assigned.
///
/// Connector by connector (in name order), every worker has room for
/// `floor(n/W)` of its `n` tasks, and `n mod W` workers for one more: the
/// least loaded so far must take one (which keeps the totals within one),
/// and where several are equally loaded, the tasks decide which. Then every
/// (task, worker) pair is taken in descending order of its hash, and a
/// task goes to the worker of the first pair whose worker still has room.
/// That is the stable matching in which tasks and workers both rank each
/// other by that hash: the result does not depend on the order of tasks,
/// and a joining worker mostly takes the tasks that rank it highest
/// instead of setting off a chain of moves in task-number order.
pub fn assign(tasks: &[TaskId], workers: &[String]) -> BTreeMap<String, Vec<TaskId>> {
    let mut workers: Vec<&String> = workers.iter().collect();
    workers.sort();
    workers.dedup();
    let mut out: BTreeMap<String, Vec<TaskId>> = workers.iter().map(|w| ((*w).clone(), Vec::new())).collect();
    if workers.is_empty() {
        return out;
    }
    let mut tasks: Vec<&TaskId> = tasks.iter().collect();
    tasks.sort();
    tasks.dedup();
    let mut by_connector: BTreeMap<&str, Vec<&TaskId>> = BTreeMap::new();
    for t in tasks {
        by_connector.entry(t.0.as_str()).or_default().push(t);
    }
    for tasks in by_connector.into_values() {
        let placed = place(&tasks, &workers, &out);
        for (task, w) in placed {
            if let Some(load) = out.get_mut(w.as_str()) {
                load.push(task.clone());
            }
        }
    }
    out
}

/// One connector's `tasks` over `workers` (sorted, distinct), given the
/// loads so far in `out`: which worker each task goes to.
fn place<'a>(
    tasks: &[&'a TaskId],
    workers: &[&'a String],
    out: &BTreeMap<String, Vec<TaskId>>,
) -> Vec<(&'a TaskId, &'a String)> {
    let floor = tasks.len() / workers.len();
    let extra = tasks.len() % workers.len();
    let load_so_far = |w: &String| out.get(w.as_str()).map_or(0, Vec::len);
    // Who may take one more than `floor`: with the loads sorted, the
    // `extra`-th smallest is the threshold; those below it must, and
    // `optional` of those at it may.
    let mut loads: Vec<usize> = workers.iter().map(|w| load_so_far(w)).collect();
    loads.sort_unstable();
    let threshold = extra.checked_sub(1).and_then(|i| loads.get(i).copied());
    let mut cap: Vec<usize> = Vec::with_capacity(workers.len());
    let mut eligible: Vec<bool> = Vec::with_capacity(workers.len());
    let mut mandatory = 0;
    for w in workers {
        let l = load_so_far(w);
        let must = threshold.is_some_and(|t| l < t);
        mandatory += usize::from(must);
        cap.push(floor + usize::from(must));
        eligible.push(threshold == Some(l));
    }
    let mut optional = extra - mandatory;

    let mut pairs: Vec<(u64, usize, usize)> = Vec::with_capacity(tasks.len() * workers.len());
    for (ti, t) in tasks.iter().enumerate() {
        for (wi, w) in workers.iter().enumerate() {
            pairs.push((score(t, w), ti, wi));
        }
    }
    // Highest score first; ties (all but impossible) by task, then worker.
    pairs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut owner: Vec<Option<usize>> = vec![None; tasks.len()];
    let mut taken = vec![0usize; workers.len()];
    for (_, ti, wi) in pairs {
        if owner[ti].is_some() {
            continue;
        }
        if taken[wi] < cap[wi] {
            taken[wi] += 1;
            owner[ti] = Some(wi);
        } else if taken[wi] == floor && eligible[wi] && optional > 0 {
            optional -= 1;
            eligible[wi] = false;
            taken[wi] += 1;
            owner[ti] = Some(wi);
        }
    }
    tasks
        .iter()
        .zip(owner)
        .filter_map(|(t, o)| o.map(|wi| (*t, workers[wi])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(n: u32) -> Vec<TaskId> {
        (0..n).map(|i| (format!("c{}", i % 4), i)).collect()
    }

    fn workers(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("http://127.0.0.1:{}", 8083 + i)).collect()
    }

    fn loads(a: &BTreeMap<String, Vec<TaskId>>) -> Vec<usize> {
        a.values().map(Vec::len).collect()
    }

    #[test]
    fn every_task_once_and_loads_within_one() {
        for t in [0, 1, 5, 12, 100] {
            for w in [1, 2, 3, 7] {
                let a = assign(&tasks(t), &workers(w));
                let l = loads(&a);
                assert_eq!(l.iter().sum::<usize>(), t as usize);
                let (min, max) = (l.iter().min().copied(), l.iter().max().copied());
                assert!(max.unwrap_or(0) - min.unwrap_or(0) <= 1, "{t} tasks on {w}: {l:?}");
                let mut all: Vec<TaskId> = a.into_values().flatten().collect();
                all.sort();
                assert_eq!(all, {
                    let mut x = tasks(t);
                    x.sort();
                    x
                });
            }
        }
        assert!(assign(&tasks(3), &[]).is_empty());
    }

    #[test]
    fn each_connector_spreads_within_one_too() {
        // Three connectors of 3, 3 and 5 tasks over 3 workers.
        let mut t: Vec<TaskId> = (0..3).map(|i| ("a".to_owned(), i)).collect();
        t.extend((0..3).map(|i| ("b".to_owned(), i)));
        t.extend((0..5).map(|i| ("c".to_owned(), i)));
        let a = assign(&t, &workers(3));
        for c in ["a", "b", "c"] {
            let per: Vec<usize> = a.values().map(|ts| ts.iter().filter(|x| x.0 == c).count()).collect();
            assert!(
                per.iter().max().unwrap() - per.iter().min().unwrap() <= 1,
                "{c}: {per:?}"
            );
        }
        let l = loads(&a);
        assert!(l.iter().max().unwrap() - l.iter().min().unwrap() <= 1, "{l:?}");
    }

    #[test]
    fn the_same_inputs_in_any_order_give_the_same_answer() {
        let mut t = tasks(20);
        let mut w = workers(3);
        let a = assign(&t, &w);
        t.reverse();
        w.reverse();
        assert_eq!(assign(&t, &w), a);
    }

    #[test]
    fn a_joining_or_leaving_worker_moves_few_tasks() {
        let t = tasks(60);
        let before = assign(&t, &workers(3));
        let after = assign(&t, &workers(4));
        let owner = |a: &BTreeMap<String, Vec<TaskId>>, task: &TaskId| {
            a.iter().find(|(_, ts)| ts.contains(task)).map(|(w, _)| w.clone())
        };
        let moved = t.iter().filter(|x| owner(&before, x) != owner(&after, x)).count();
        // The new worker takes 15; a plain round-robin would move ~45.
        assert!(moved <= 25, "{moved} of 60 tasks moved when a 4th worker joined");
        let gone = assign(&t, &workers(2));
        let moved = t.iter().filter(|x| owner(&before, x) != owner(&gone, x)).count();
        assert!(moved <= 30, "{moved} of 60 tasks moved when a worker left");
    }

    /// How many of `t` change worker between `a` and `b`.
    fn moved(t: &[TaskId], a: &BTreeMap<String, Vec<TaskId>>, b: &BTreeMap<String, Vec<TaskId>>) -> usize {
        let owner = |x: &BTreeMap<String, Vec<TaskId>>, task: &TaskId| {
            x.iter().find(|(_, ts)| ts.contains(task)).map(|(w, _)| w.clone())
        };
        t.iter().filter(|x| owner(a, x) != owner(b, x)).count()
    }

    #[test]
    fn over_many_clusters_a_joining_worker_mostly_takes_only_its_share() {
        // 7 tasks of one connector, 3 workers, then a 4th: the new worker
        // must take 1 or 2 (its share), so at least one task moves. Over
        // 500 clusters of workers named like real ones (addresses with
        // pseudo-random ports), count what else moves.
        let t: Vec<TaskId> = (0..7).map(|i| ("gen-4f1c".to_owned(), i)).collect();
        let mut port: u32 = 40_000;
        let mut next_port = || {
            port = port.wrapping_mul(1_103_515_245).wrapping_add(12_345) % 25_000 + 40_000;
            format!("127.0.0.1:{port}")
        };
        let (mut total, mut worst, runs) = (0, 0, 500);
        for _ in 0..runs {
            let mut w: Vec<String> = (0..3).map(|_| next_port()).collect();
            let before = assign(&t, &w);
            let joined = next_port();
            w.push(joined.clone());
            let after = assign(&t, &w);
            let share = after[&joined].len();
            assert!((1..=2).contains(&share), "{after:?}");
            let m = moved(&t, &before, &after);
            assert!(m >= share, "{m} moved, the new worker took {share}");
            total += m;
            worst = worst.max(m);
        }
        let mean = total as f64 / f64::from(runs);
        // Measured with this hash: mean 2.39, worst 4. The earlier greedy
        // in task-number order gave 2.52 on the same clusters. (A sticky
        // assignment that knew the previous one could move just the new
        // worker's share, 1.4 on average; see docs/architecture.md.)
        assert!(mean < 2.45, "mean {mean:.2} tasks moved, worst {worst}");
        assert!(worst <= 5, "worst {worst}");
    }
}
