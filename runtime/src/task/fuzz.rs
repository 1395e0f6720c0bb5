//! A fuzz harness for the host's checks of what a guest hands it, run by
//! `cargo test` for a bounded time: arbitrary packed batches (valid ones
//! mutated, so most inputs get deep into the checks), their source
//! positions, and arbitrary config maps go through the batch layout check
//! (`SourceBatch::packed`), the position checks (`check_positions`) and the
//! worker and connector config readers. None may panic; a batch the layout
//! check accepts must read back within its own bytes, and a check must stay
//! linear (a generous time bound per input).
//!
//! `COPYCAT_FUZZ_SECS` sets the time per target (default 3 s);
//! `COPYCAT_FUZZ_SEED` replays a run (the seed is printed on failure).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::bindings::types::SourcePosition;
use crate::bindings::v0_2::batch as packed;
use crate::config::limits::LIMIT_KEYS;
use crate::config::{ConnectorConfig, Props, WorkerConfig};
use crate::engine::guest::SourceBatch;
use crate::host::TaskLimits;

/// xorshift64*: enough randomness for a fuzz loop, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    /// A short string: usually ASCII, sometimes any UTF-8, sometimes long.
    fn text(&mut self) -> String {
        let len = if self.chance(20) {
            self.below(5000)
        } else {
            self.below(12)
        } as usize;
        if self.chance(4) {
            String::from_utf8_lossy(&self.bytes(len)).into_owned()
        } else {
            (0..len).map(|_| char::from(b'a' + self.below(26) as u8)).collect()
        }
    }

    fn int(&mut self) -> i32 {
        match self.below(4) {
            0 => -1,
            1 => self.below(8) as i32,
            2 => self.next() as i32,
            _ => i32::MAX - self.below(3) as i32,
        }
    }
}

fn budget() -> Duration {
    let secs = std::env::var("COPYCAT_FUZZ_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn seed() -> u64 {
    std::env::var("COPYCAT_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        })
}

/// Run `case` on fresh inputs until the budget is spent; a panic names the
/// seed and the case number.
fn fuzz(target: &str, mut case: impl FnMut(&mut Rng)) {
    let seed = seed();
    let mut rng = Rng(seed);
    let until = Instant::now() + budget();
    let mut n = 0u64;
    while Instant::now() < until {
        let started = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(&mut rng)));
        if let Err(panic) = result {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            panic!("fuzz target {target}: case {n} panicked (COPYCAT_FUZZ_SEED={seed}): {msg}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "fuzz target {target}: case {n} took {:?} (COPYCAT_FUZZ_SEED={seed})",
            started.elapsed()
        );
        n += 1;
    }
    assert!(n > 0, "fuzz target {target} ran no case");
}

/// A batch that follows the layout rules, to be mutated.
fn valid_batch(rng: &mut Rng) -> packed::SourceBatch {
    let n = rng.below(8) as usize;
    let mut b = packed::SourceBatch {
        data: Vec::new(),
        key_lengths: Vec::new(),
        value_lengths: Vec::new(),
        topics: (0..rng.below(3)).map(|_| rng.text()).collect(),
        topic_indices: Vec::new(),
        partitions: Vec::new(),
        timestamps: Vec::new(),
        header_counts: Vec::new(),
        header_key_lengths: Vec::new(),
        header_value_lengths: Vec::new(),
        positions: Vec::new(),
    };
    for _ in 0..n {
        for lengths in [&mut b.key_lengths, &mut b.value_lengths] {
            if rng.chance(3) {
                lengths.push(-1);
            } else {
                let len = rng.below(40) as usize;
                b.data.extend(rng.bytes(len));
                lengths.push(len as i32);
            }
        }
        let topics = b.topics.len() as u64;
        b.topic_indices.push(if topics == 0 {
            -1
        } else {
            rng.below(topics + 1) as i32 - 1
        });
        b.partitions.push(rng.below(4) as i32 - 1);
        b.timestamps.push(rng.below(1 << 40) as i64 - 1);
        let headers = rng.below(3) as u32;
        b.header_counts.push(headers);
        for _ in 0..headers {
            let key = format!("h{}", rng.below(100));
            b.header_key_lengths.push(key.len() as u32);
            b.data.extend(key.bytes());
            let len = rng.below(20) as usize;
            b.data.extend(rng.bytes(len));
            b.header_value_lengths.push(len as i32);
        }
    }
    for _ in 0..rng.below(6) {
        b.positions.push(SourcePosition {
            partition: rng.text(),
            offset: rng.text(),
        });
    }
    b
}

/// One random change that may break a rule.
fn mutate(rng: &mut Rng, b: &mut packed::SourceBatch) {
    match rng.below(14) {
        0 => b.key_lengths.push(rng.int()),
        1 => {
            b.value_lengths.pop();
        }
        2 => {
            if let Some(l) = b.value_lengths.first_mut() {
                *l = rng.int();
            }
        }
        3 => b.data.push(rng.next() as u8),
        4 => {
            b.data.pop();
        }
        5 => b.topic_indices.push(rng.int()),
        6 => {
            if let Some(t) = b.topic_indices.first_mut() {
                *t = rng.int();
            }
        }
        7 => {
            if let Some(c) = b.header_counts.first_mut() {
                *c = rng.next() as u32 % 5;
            }
        }
        8 => b.header_key_lengths.push(rng.next() as u32 % 50),
        9 => {
            if let Some(l) = b.header_value_lengths.first_mut() {
                *l = rng.int();
            }
        }
        10 => {
            if let Some(p) = b.positions.first().cloned() {
                b.positions.push(p);
            }
        }
        11 => b.timestamps.push(rng.next() as i64),
        12 => {
            // Header key bytes that are not UTF-8.
            b.data.iter_mut().for_each(|x| *x |= 0x80);
        }
        _ => {
            let count = rng.below(5000) as usize;
            b.positions.extend((0..count).map(|i| SourcePosition {
                partition: format!("p{i}"),
                offset: String::new(),
            }));
        }
    }
}

#[test]
fn arbitrary_batches_and_positions_never_panic_and_read_back_in_bounds() {
    let limits = TaskLimits {
        offset_max_bytes: 64,
        offset_partitions_max: 100,
        ..TaskLimits::default()
    };
    fuzz("source batches", |rng| {
        let mut b = valid_batch(rng);
        for _ in 0..rng.below(4) {
            mutate(rng, &mut b);
        }
        let data_len = b.data.len();
        let Ok(batch) = SourceBatch::packed(b) else { return };
        let mut bytes = 0usize;
        for r in batch.iter() {
            bytes += r.size();
            let _ = r.origin();
        }
        assert!(bytes <= data_len, "records read {bytes} bytes of {data_len}");
        let latest = batch.latest_offsets();
        let distinct: HashSet<&String> = latest.iter().map(|(p, _)| p).collect();
        assert_eq!(distinct.len(), latest.len(), "one position per partition");
        let mut partitions = HashSet::new();
        let max = rng.below(3000) as u32;
        if let Ok(n) = super::records::check_positions(&batch, &limits, max, &mut partitions) {
            assert!(partitions.len() <= limits.offset_partitions_max);
            assert!(n <= latest.len() * limits.offset_max_bytes);
        }
    });
}

/// Keys the readers know besides the limit keys, so that random values
/// reach their checks.
const KEYS: &[&str] = &[
    "name",
    "connector.class",
    "tasks.max",
    "topic",
    "topics",
    "topics.regex",
    "poll.max.records",
    "exactly.once.support",
    "transaction.boundary",
    "transaction.boundary.interval.ms",
    "offset.flush.interval.ms",
    "grants.fs.read",
    "grants.fs.write",
    "grants.net.connect",
    "grants.http.hosts",
    "grants.env",
    "producer.override.linger.ms",
    "consumer.override.max.poll.records",
    "connector.digest",
    "bootstrap.servers",
    "offset.storage.topic",
    "worker.protected.topics",
    "worker.instances.max",
    "plugin.compile.timeout.ms",
    "plugin.compile.memory.max.bytes",
    "listeners",
    "rest.auth.type",
];

fn value(rng: &mut Rng) -> String {
    match rng.below(7) {
        0 => rng.int().to_string(),
        1 => (rng.next() as i64).to_string(),
        2 => String::new(),
        3 => "true".into(),
        4 => format!("{}:{}", rng.text(), rng.below(70000)),
        5 => "/nonexistent/dir,/tmp".into(),
        _ => rng.text(),
    }
}

#[test]
fn arbitrary_config_maps_never_panic() {
    let worker = match WorkerConfig::from_props(Props::new()) {
        Ok(w) => w,
        Err(e) => panic!("the empty worker config: {e}"),
    };
    fuzz("config maps", |rng| {
        let mut props = Props::new();
        for _ in 0..rng.below(10) {
            let known: Vec<&str> = KEYS.iter().chain(LIMIT_KEYS).copied().collect();
            let key = if rng.chance(5) {
                rng.text()
            } else {
                known[rng.below(known.len() as u64) as usize].to_owned()
            };
            props.insert(key, value(rng));
        }
        let _ = WorkerConfig::from_props(props.clone());
        let _ = ConnectorConfig::from_props(props, &worker);
    });
}
