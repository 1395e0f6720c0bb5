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

/// Assign `tasks` to `workers`: every task to exactly one worker, loads
/// within one of each other. Deterministic: the same inputs (in any order)
/// give the same answer. No workers: nothing is assigned.
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
    let floor = tasks.len() / workers.len();
    let mut extra = tasks.len() % workers.len();
    // Tasks place in (connector, task) order, each with the workers ranked
    // by its own hash.
    let ranked: Vec<(&TaskId, Vec<&String>)> = tasks
        .into_iter()
        .map(|t| {
            let mut prefs = workers.clone();
            prefs.sort_by_key(|w| std::cmp::Reverse(score(t, w)));
            (t, prefs)
        })
        .collect();
    for (task, prefs) in ranked {
        for w in prefs {
            let Some(load) = out.get_mut(w.as_str()) else { continue };
            let room = if load.len() < floor {
                true
            } else if load.len() == floor && extra > 0 {
                extra -= 1;
                true
            } else {
                false
            };
            if room {
                load.push(task.clone());
                break;
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
