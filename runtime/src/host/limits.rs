//! Per-task resource limits: a memory cap enforced by a `ResourceLimiter`
//! (over all of an instance's linear memories and tables), a CPU-time
//! deadline per guest call enforced with epochs (and optionally fuel), and
//! size caps on what a task hands the host.

use std::time::Duration;

use wasmtime::ResourceLimiter;

/// Limits applied to every store (task or connector instance). Worker
/// config keys set the defaults; connector configs override them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLimits {
    /// Cap on the total size of the instance's linear memories, in bytes
    /// (`task.memory.max.bytes`).
    pub memory_bytes: usize,
    /// Longest a single guest call may run (`task.call.timeout.ms`).
    pub call_timeout: Duration,
    /// Fuel (roughly, wasm instructions) per guest call
    /// (`task.fuel.per.call`); `None` = not metered. Needs the worker's
    /// `task.fuel.per.call` set, which turns fuel metering on in the engine.
    pub fuel_per_call: Option<u64>,
    /// Largest record a source may emit: key + value + header keys and
    /// values, in bytes (`task.record.max.bytes`).
    pub record_max_bytes: usize,
    /// Largest `poll` batch a source may return, in bytes
    /// (`task.batch.max.bytes`).
    pub batch_max_bytes: usize,
    /// Lines of guest stdout/stderr, and records of the `logging` import,
    /// logged per stream per second (`task.log.max.lines.per.second`); the
    /// rest are dropped and counted.
    pub log_lines_per_second: u32,
    /// Most host resources (WASI and `wasi:http` handles: descriptors,
    /// sockets, streams, pollables, fields, requests, ...) the instance may
    /// hold at once (`task.host.handles.max`). With the per-resource caps
    /// below, this bounds what the host holds for a task outside its
    /// linear memory.
    pub host_handles_max: usize,
    /// Largest content of one `wasi:http` `fields` resource, in bytes of
    /// its in-memory representation (`task.http.fields.max.bytes`).
    pub http_fields_max_bytes: usize,
    /// Largest source partition or source offset a source may hand the
    /// host, in bytes (`task.offset.max.bytes`): each is a key or value of
    /// the offsets topic, kept by every reader of it.
    pub offset_max_bytes: usize,
    /// Most source partitions one source task may have offsets for
    /// (`task.offset.partitions.max`): what it found committed plus what
    /// it hands over. Bounds what one connector adds to the offsets topic.
    pub offset_partitions_max: usize,
    /// Most records a transform component may return from one call
    /// (`task.transform.records.max`), however few it was given: bounds
    /// what the host decodes out of one call.
    pub transform_records_max: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        Self {
            memory_bytes: 256 * 1024 * 1024,
            call_timeout: Duration::from_secs(10),
            fuel_per_call: None,
            record_max_bytes: 1024 * 1024,
            batch_max_bytes: 64 * 1024 * 1024,
            log_lines_per_second: super::rate::DEFAULT_LOG_LINES_PER_SECOND,
            host_handles_max: 1024,
            http_fields_max_bytes: 32 * 1024,
            offset_max_bytes: 4096,
            offset_partitions_max: 10_000,
            transform_records_max: 100_000,
        }
    }
}

/// Most table elements (summed over an instance's tables).
const MAX_TABLE_ELEMENTS: usize = 1_000_000;

/// Enforces [`TaskLimits::memory_bytes`] over the sum of an instance's
/// memories, and remembers a violation so the task's failure names the
/// limit.
pub struct MemoryLimiter {
    max: usize,
    memory_used: usize,
    table_used: usize,
    exceeded: Option<String>,
}

impl MemoryLimiter {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max,
            memory_used: 0,
            table_used: 0,
            exceeded: None,
        }
    }

    /// Bytes of linear memory the instance holds now (all memories).
    pub(crate) fn memory_used(&self) -> usize {
        self.memory_used
    }

    /// Why the last trap happened, if it was this limit.
    pub(crate) fn take_violation(&mut self) -> Option<String> {
        self.exceeded.take()
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let total = self.memory_used.saturating_sub(current).saturating_add(desired);
        if total > self.max {
            let msg = format!(
                "memory limit exceeded: the component asked to grow a memory from {current} to {desired} bytes ({total} bytes in all its memories), over the cap of {} bytes (task.memory.max.bytes)",
                self.max
            );
            self.exceeded = Some(msg.clone());
            return Err(wasmtime::Error::msg(msg));
        }
        self.memory_used = total;
        Ok(true)
    }

    fn table_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let total = self.table_used.saturating_sub(current).saturating_add(desired);
        if total > MAX_TABLE_ELEMENTS {
            let msg = format!(
                "table limit exceeded: {total} table elements requested, the cap is {MAX_TABLE_ELEMENTS} (task.memory.max.bytes covers memories; tables are capped separately)"
            );
            self.exceeded = Some(msg.clone());
            return Err(wasmtime::Error::msg(msg));
        }
        self.table_used = total;
        Ok(true)
    }

    fn memories(&self) -> usize {
        // Components built by some toolchains have more than one memory.
        100
    }

    fn tables(&self) -> usize {
        100
    }

    fn instances(&self) -> usize {
        // A component instantiates several core instances.
        1000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_covers_all_memories_together() {
        let mut l = MemoryLimiter::new(100);
        assert!(l.memory_growing(0, 60, None).is_ok());
        // A second memory: 60 + 50 > 100.
        assert!(l.memory_growing(0, 50, None).is_err());
        assert!(l.take_violation().is_some_and(|m| m.contains("task.memory.max.bytes")));
        // Growing the first one within the cap is fine.
        assert!(l.memory_growing(60, 90, None).is_ok());
    }
}
