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
/// Connector by connector (in name order), every worker gets room for
/// `floor(n/W)` of its `n` tasks, and the `n mod W` extra places go to the
/// workers with the least load so far (ties broken by hash), which keeps
/// the totals within one. Each task then takes its best-ranked worker that
/// still has room for that connector.
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
    for (connector, tasks) in by_connector {
        let floor = tasks.len() / workers.len();
        let extra = tasks.len() % workers.len();
        // Who gets the extra places: the least loaded, then by hash.
        let mut order: Vec<&String> = workers.clone();
        let key: TaskId = (connector.to_owned(), u32::MAX);
        order.sort_by_key(|w| {
            (
                out.get(w.as_str()).map_or(0, Vec::len),
                std::cmp::Reverse(score(&key, w)),
            )
        });
        let mut room: BTreeMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(i, w)| (w.as_str(), floor + usize::from(i < extra)))
            .collect();
        for task in tasks {
            let mut prefs = workers.clone();
            prefs.sort_by_key(|w| std::cmp::Reverse(score(task, w)));
            for w in prefs {
                if let Some(r) = room.get_mut(w.as_str())
                    && *r > 0
                {
                    *r -= 1;
                    if let Some(load) = out.get_mut(w.as_str()) {
                        load.push(task.clone());
                    }
                    break;
                }
            }
        }
    }
    out
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
}
