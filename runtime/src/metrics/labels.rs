//! The label sets and label values of every family, and the histogram
//! buckets.

use std::fmt;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::histogram::Histogram;

use crate::connector::TaskState;

/// Upper bounds (seconds) of the guest call duration buckets: 100 µs to 30 s
/// (`task.call.timeout.ms` defaults to seconds, not minutes).
pub(super) const CALL_BUCKETS: [f64; 17] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Upper bounds (seconds) of the hot-swap pause buckets (target p99 250 ms).
pub(super) const SWAP_BUCKETS: [f64; 12] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// A label value from user input (a connector name), escaped as the text
/// format requires (`\\`, `\"`, `\n`); the encoder does not escape.
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
pub struct Name(pub String);

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl EncodeLabelValue for Name {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        use fmt::Write;
        let s = self.0.as_str();
        if !s.contains(['\\', '"', '\n']) {
            return encoder.write_str(s);
        }
        for c in s.chars() {
            match c {
                '\\' => encoder.write_str("\\\\")?,
                '"' => encoder.write_str("\\\"")?,
                '\n' => encoder.write_str("\\n")?,
                c => encoder.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// The labels of every per-task series.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TaskLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
}

/// A task's labels plus the guest call.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CallLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
    /// Which guest call.
    pub call: Call,
}

/// A task's labels plus the limit that interrupted a call.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LimitLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
    /// Which limit, by its config key.
    pub limit: Limit,
}

/// A task's labels plus a state.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
    /// The state, with the status API's names (`RUNNING`, ...).
    pub state: TaskState,
}

/// The labels of per-connector series.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ConnectorLabels {
    /// Connector name.
    pub connector: Name,
}

/// How a hot swap ended (label `outcome`).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum SwapOutcome {
    /// The new version runs.
    Swapped,
    /// The new version failed to start; the previous one runs again.
    RolledBack,
}

impl SwapOutcome {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            SwapOutcome::Swapped => "swapped",
            SwapOutcome::RolledBack => "rolled_back",
        }
    }
}

impl EncodeLabelValue for SwapOutcome {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        use fmt::Write;
        encoder.write_str(self.as_str())
    }
}

/// The labels of `copycat_connector_swaps_total`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SwapLabels {
    /// Connector name.
    pub connector: Name,
    /// How the swap ended.
    pub outcome: SwapOutcome,
}

/// The guest calls whose duration is measured (label `call`).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum Call {
    /// `source-task.poll`.
    Poll,
    /// `sink-task.put`.
    Put,
    /// `sink-task.flush`.
    Flush,
    /// `source-task.commit`.
    Commit,
}

impl Call {
    /// Every call, in label order.
    pub const ALL: [Call; 4] = [Call::Poll, Call::Put, Call::Flush, Call::Commit];

    /// The label value (the WIT function name).
    pub fn as_str(self) -> &'static str {
        match self {
            Call::Poll => "poll",
            Call::Put => "put",
            Call::Flush => "flush",
            Call::Commit => "commit",
        }
    }

    /// The measured call a guest export name stands for, if it is one.
    pub fn from_export(name: &str) -> Option<Call> {
        match name {
            "poll" => Some(Call::Poll),
            "put" => Some(Call::Put),
            "flush" => Some(Call::Flush),
            "commit" => Some(Call::Commit),
            _ => None,
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

impl EncodeLabelValue for Call {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&self.as_str(), encoder)
    }
}

/// The per-call limits that interrupt a guest (label `limit`, the config key).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum Limit {
    /// The epoch deadline: `task.call.timeout.ms`.
    CallTimeout,
    /// Fuel metering: `task.fuel.per.call`.
    Fuel,
    /// The memory cap: `task.memory.max.bytes`.
    Memory,
    /// The stack cap: `task.stack.max.bytes`.
    Stack,
}

impl Limit {
    /// Every limit, in label order.
    pub const ALL: [Limit; 4] = [Limit::CallTimeout, Limit::Fuel, Limit::Memory, Limit::Stack];

    /// The label value: the limit's config key.
    pub fn key(self) -> &'static str {
        match self {
            Limit::CallTimeout => "task.call.timeout.ms",
            Limit::Fuel => "task.fuel.per.call",
            Limit::Memory => "task.memory.max.bytes",
            Limit::Stack => "task.stack.max.bytes",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

impl EncodeLabelValue for Limit {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&self.key(), encoder)
    }
}

pub(super) const STATES: [TaskState; 5] = [
    TaskState::Unassigned,
    TaskState::Running,
    TaskState::Restarting,
    TaskState::Failed,
    TaskState::Stopped,
];

pub(super) fn state_index(s: TaskState) -> usize {
    match s {
        TaskState::Unassigned => 0,
        TaskState::Running => 1,
        TaskState::Restarting => 2,
        TaskState::Failed => 3,
        TaskState::Stopped => 4,
    }
}

pub(super) fn state_name(s: TaskState) -> &'static str {
    match s {
        TaskState::Unassigned => "UNASSIGNED",
        TaskState::Running => "RUNNING",
        TaskState::Restarting => "RESTARTING",
        TaskState::Failed => "FAILED",
        TaskState::Stopped => "STOPPED",
    }
}

impl EncodeLabelValue for TaskState {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&state_name(*self), encoder)
    }
}

pub(super) fn call_histogram() -> Histogram {
    Histogram::new(CALL_BUCKETS)
}

pub(super) fn swap_histogram() -> Histogram {
    Histogram::new(SWAP_BUCKETS)
}
