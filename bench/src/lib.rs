//! What the benchmark binaries share: connector/worker property helpers,
//! tracing set-up, compiling components ahead of a run, a free port, the
//! process's RSS and CPU time, medians and percentiles; [`kafka`] (topic
//! admin, end offsets, committed counts, producing through a full queue),
//! [`files`] (a sink's output so far), [`table`] and [`progress`] (what a
//! run prints), [`throughput`] (the main benchmark's measurements), and
//! [`results`], the machine-readable results every scenario appends to and
//! the `report` binary reads ([`report`]).
//!
//! Invariant: nothing here changes what a benchmark measures; a helper
//! shared by several binaries does exactly what each of them did before.

pub mod files;
pub mod kafka;
pub mod process;
pub mod progress;
pub mod report;
pub mod results;
pub mod table;
pub mod throughput;

pub use kafka::{Watermarks, admin, create_topics, delete_topics};

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use copycat_runtime::WorkerConfig;
use copycat_runtime::config::Props;
use copycat_runtime::engine::WasmEngine;

// ------------------------------------------------------------------ set-up

/// `(key, value)` pairs as worker or connector properties.
pub fn props(pairs: &[(&str, &str)]) -> Props {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

/// Log to stderr, filtered by `RUST_LOG` or else `default` (e.g. `"warn"`).
pub fn init_tracing(default: &str) {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .with_writer(std::io::stderr)
        .init();
}

/// `prefix-<16 random hex digits>`: a topic, group or connector name no
/// earlier run used.
pub fn unique(prefix: &str) -> String {
    format!("{prefix}-{:016x}", rand::random::<u64>())
}

/// The workspace root (the bench crate's parent directory).
pub fn workspace() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

/// Compile `components` (`<plugin_dir>/<name>.wasm`) into the on-disk code
/// cache of `wcfg`'s engine, so that no measured run pays for compilation
/// (each run starts a fresh worker or process). `spin`: a spinner on stderr
/// while each one compiles.
pub fn warm_up(wcfg: &WorkerConfig, plugin_dir: &Path, components: &[&str], spin: bool) -> Result<()> {
    let engine =
        WasmEngine::new(&wcfg.engine_config()).map_err(|e| anyhow!("creating the WebAssembly engine: {e:#}"))?;
    for name in components {
        let path = plugin_dir.join(format!("{name}.wasm"));
        if !path.is_file() {
            bail!("{} is missing: run `just build-connectors`", path.display());
        }
        let sp = spin.then(|| progress::spinner(format!("compiling {} (cached on disk)", path.display())));
        engine
            .load(&path)
            .map_err(|e| anyhow!("loading {}: {e}", path.display()))?;
        if let Some(sp) = sp {
            sp.finish_and_clear();
        }
    }
    Ok(())
}

/// A free TCP port on 127.0.0.1 (bound and released; the process it is
/// meant for binds it right after).
pub fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(l.local_addr().context("finding a free port")?.port())
}

// ------------------------------------------------------------------ the process

/// A `/proc/<pid>/status` field in KiB (`"VmRSS:"`, `"VmHWM:"`), `pid`
/// `"self"` for this process.
pub fn status_kib(pid: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// This process's resident set, in bytes (0 if `/proc` cannot tell).
pub fn rss_bytes() -> u64 {
    status_kib("self", "VmRSS:").unwrap_or(0) * 1024
}

/// CPU time (user + system) this process used so far.
pub fn cpu_time() -> Duration {
    cpu_time_of("self")
}

/// CPU time (user + system) process `pid` (or `"self"`) used so far.
pub fn cpu_time_of(pid: &str) -> Duration {
    let ticks = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // Fields after the command name (which may hold spaces).
            let rest = s.rsplit_once(')')?.1.to_owned();
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0);
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

/// Threads of this process.
pub fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

/// Bytes → MiB.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// `root` and its descendants (from `/proc/*/stat`).
pub fn process_tree(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // pid (comm) state ppid ...; comm may hold spaces and parentheses.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|s| s.parse::<u32>().ok());
            if let Some(ppid) = ppid {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        if let Some(kids) = children.get(&out[i]) {
            out.extend(kids);
        }
        i += 1;
    }
    out
}

/// Samples the RSS of a process tree every 20 ms until finished.
pub struct RssSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    handle: Option<JoinHandle<()>>,
    root: u32,
}

impl RssSampler {
    /// Start sampling `root` and its descendants.
    pub fn start(root: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let handle = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let sum: u64 = process_tree(root)
                    .into_iter()
                    .filter_map(|pid| status_kib(&pid.to_string(), "VmRSS:"))
                    .sum();
                p.fetch_max(sum, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Self {
            stop,
            peak,
            handle: Some(handle),
            root,
        }
    }

    /// Peak KiB so far, or the root's `VmHWM` if larger (call while the
    /// process still runs).
    pub fn finish(mut self) -> u64 {
        let hwm = status_kib(&self.root.to_string(), "VmHWM:").unwrap_or(0);
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        self.peak.load(Ordering::Relaxed).max(hwm)
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

// ------------------------------------------------------------------ statistics

/// The median (the mean of the middle two for an even count); `None` for
/// no values.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// The nearest-rank percentile `p` (0–1) of sorted values; NaN for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted
        .get(i.min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(Vec::new()), None);
    }

    #[test]
    fn percentile_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), 51.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&v, 1.0), 100.0);
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn this_process_has_a_resident_set() {
        assert!(rss_bytes() > 0);
        assert!(threads() >= 1);
        assert!(process_tree(std::process::id()).contains(&std::process::id()));
    }
}
