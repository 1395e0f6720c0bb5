//! Per-task resource limits: a memory cap enforced by a `ResourceLimiter`,
//! and a CPU-time deadline per guest call enforced with epochs.

use std::time::Duration;

use wasmtime::ResourceLimiter;

/// Limits applied to every store (task or connector instance).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLimits {
    /// Cap on the total size of the instance's linear memories, in bytes
    /// (`task.memory.max.bytes`).
    pub memory_bytes: usize,
    /// Longest a single guest call may run (`task.call.timeout.ms`).
    pub call_timeout: Duration,
}

impl Default for TaskLimits {
    fn default() -> Self {
        Self {
            memory_bytes: 256 * 1024 * 1024,
            call_timeout: Duration::from_secs(10),
        }
    }
}

/// Enforces [`TaskLimits::memory_bytes`] and remembers a violation so the
/// task's failure names the limit.
pub struct MemoryLimiter {
    max: usize,
    exceeded: Option<String>,
}

impl MemoryLimiter {
    pub(crate) fn new(max: usize) -> Self {
        Self { max, exceeded: None }
    }

    /// Why the last trap happened, if it was this limit.
    pub(crate) fn take_violation(&mut self) -> Option<String> {
        self.exceeded.take()
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.max {
            let msg = format!(
                "memory limit exceeded: the component asked to grow its memory from {current} to {desired} bytes, over the cap of {} bytes (task.memory.max.bytes)",
                self.max
            );
            self.exceeded = Some(msg.clone());
            return Err(wasmtime::Error::msg(msg));
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        const MAX_TABLE_ELEMENTS: usize = 1_000_000;
        if desired > MAX_TABLE_ELEMENTS {
            let msg = format!("table limit exceeded: {desired} elements requested, cap is {MAX_TABLE_ELEMENTS}");
            self.exceeded = Some(msg.clone());
            return Err(wasmtime::Error::msg(msg));
        }
        Ok(true)
    }
}
