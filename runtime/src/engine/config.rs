//! Engine settings ([`EngineConfig`]), and the wasmtime `Config` they make:
//! the worker's engine and a compiling child build theirs here, so both
//! share one compiled-code cache key.

use std::path::PathBuf;
use std::time::Duration;

use wasmtime::{Cache, CacheConfig, Config};

/// How often the engine's epoch advances; call deadlines are rounded up to it.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Engine settings from the worker config.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Directory for wasmtime's cache of compiled code; `None` disables it.
    pub cache_dir: Option<PathBuf>,
    /// Most native stack a guest call may use (`task.stack.max.bytes`).
    /// Engine-wide in wasmtime, so a worker setting only.
    pub max_stack_bytes: usize,
    /// Meter fuel (`task.fuel.per.call` set on the worker).
    pub fuel: bool,
    /// Most component instances alive at once (`worker.instances.max`).
    pub max_instances: usize,
    /// Epoch interruption, which enforces `task.call.timeout.ms`. Always on
    /// in a worker; off only to measure what the deadline costs.
    pub interruptible: bool,
    /// Bounds of a compilation in a child process ([`super::compile_child`]).
    pub compile: CompileLimits,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            cache_dir: None,
            max_stack_bytes: DEFAULT_STACK_BYTES,
            fuel: false,
            max_instances: DEFAULT_MAX_INSTANCES,
            interruptible: true,
            compile: CompileLimits::default(),
        }
    }
}

/// Default `task.stack.max.bytes`.
pub const DEFAULT_STACK_BYTES: usize = 1024 * 1024;
/// Default `worker.instances.max`.
pub const DEFAULT_MAX_INSTANCES: usize = 4096;

/// How a child compilation is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileLimits {
    /// `plugin.compile.timeout.ms`.
    pub timeout: Duration,
    /// `plugin.compile.memory.max.bytes`: the child's address space.
    pub memory_bytes: u64,
}

impl Default for CompileLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            memory_bytes: 4 << 30,
        }
    }
}

impl EngineConfig {
    /// The wasmtime configuration these settings make.
    pub(crate) fn wasmtime_config(&self) -> wasmtime::Result<Config> {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.epoch_interruption(self.interruptible);
        config.max_wasm_stack(self.max_stack_bytes);
        config.consume_fuel(self.fuel);
        // Names guests' compiled functions for `perf` (/tmp/perf-<pid>.map),
        // as `wasmtime run --profile perfmap` does; for profiling only.
        if std::env::var_os("COPYCAT_WASM_PERFMAP").is_some_and(|v| v == "1") {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        if let Some(dir) = &self.cache_dir {
            let mut cache = CacheConfig::new();
            cache.with_directory(dir);
            config.cache(Some(Cache::new(cache)?));
        }
        Ok(config)
    }
}
