//! `copycat:connector/logging`: guest log lines into `tracing`, tagged with
//! the connector and task.

use std::fmt;
use std::sync::Arc;

use wasmtime::component::Linker;

use super::{Ctx, TaskHost};
use crate::engine::bindings::logging::{self, Level};
use crate::engine::bindings::v0_2::logging as v0_2;

/// Who is running in a store: the connector name and, for tasks, the task id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TaskIdent {
    /// Connector name (`name` in its config).
    pub connector: String,
    /// Task number, or `None` for the connector-level instance.
    pub task: Option<u32>,
}

impl TaskIdent {
    /// The connector-level instance of `connector`.
    pub fn connector(connector: &str) -> Self {
        Self {
            connector: connector.to_owned(),
            task: None,
        }
    }

    /// Task `task` of `connector`.
    pub fn task(connector: &str, task: u32) -> Self {
        Self {
            connector: connector.to_owned(),
            task: Some(task),
        }
    }
}

impl fmt::Display for TaskIdent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.task {
            Some(t) => write!(f, "{}-{}", self.connector, t),
            None => write!(f, "{}", self.connector),
        }
    }
}

/// Context of the logging interface.
pub struct LoggingCtx {
    ident: Arc<TaskIdent>,
}

impl LoggingCtx {
    pub(crate) fn new(ident: Arc<TaskIdent>) -> Self {
        Self { ident }
    }
}

/// Longest guest log line kept; the rest is cut so a guest cannot flood logs
/// with one giant line.
const MAX_LINE: usize = 8 * 1024;

pub(crate) fn emit(ident: &TaskIdent, level: Level, source: &str, message: &str) {
    let message = match message.char_indices().nth(MAX_LINE) {
        Some((cut, _)) => &message[..cut],
        None => message,
    };
    let task = ident.task.map(i64::from).unwrap_or(-1);
    let connector = ident.connector.as_str();
    match level {
        Level::Trace => tracing::trace!(target: "copycat::guest", connector, task, source, "{message}"),
        Level::Debug => tracing::debug!(target: "copycat::guest", connector, task, source, "{message}"),
        Level::Info => tracing::info!(target: "copycat::guest", connector, task, source, "{message}"),
        Level::Warn => tracing::warn!(target: "copycat::guest", connector, task, source, "{message}"),
        Level::Error => tracing::error!(target: "copycat::guest", connector, task, source, "{message}"),
    }
}

impl logging::Host for LoggingCtx {
    fn log(&mut self, level: Level, message: String) {
        emit(&self.ident, level, "log", &message);
    }
}

impl v0_2::Host for LoggingCtx {
    fn log(&mut self, level: v0_2::Level, message: String) {
        let level = match level {
            v0_2::Level::Trace => Level::Trace,
            v0_2::Level::Debug => Level::Debug,
            v0_2::Level::Info => Level::Info,
            v0_2::Level::Warn => Level::Warn,
            v0_2::Level::Error => Level::Error,
        };
        emit(&self.ident, level, "log", &message);
    }
}

/// Link both contract versions' `logging`.
pub(crate) fn add_to_linker(
    linker: &mut Linker<TaskHost>,
    get: fn(&mut TaskHost) -> &mut LoggingCtx,
) -> wasmtime::Result<()> {
    logging::add_to_linker::<TaskHost, Ctx<LoggingCtx>>(linker, get)?;
    v0_2::add_to_linker::<TaskHost, Ctx<LoggingCtx>>(linker, get)
}
