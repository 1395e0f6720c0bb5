//! `copycat:connector/logging`: guest log lines into `tracing`, tagged with
//! the connector and task.

use std::fmt;
use std::sync::Arc;

use wasmtime::component::Linker;

use super::view::Ctx;
use crate::bindings::logging::{self, Level};
use crate::bindings::v0_2::logging as v0_2;
use crate::bindings::v0_3::logging as v0_3;

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
    /// `task.log.max.lines.per.second`, as for stdout and stderr.
    rate: super::rate::RateWindow,
}

impl LoggingCtx {
    pub(crate) fn new(ident: Arc<TaskIdent>, per_second: u32) -> Self {
        Self {
            ident,
            rate: super::rate::RateWindow::new(per_second),
        }
    }

    /// Log `message` if the rate allows; report what the last window dropped.
    fn log_limited(&mut self, level: Level, message: &str) {
        let (admitted, dropped) = self.rate.admit(std::time::Instant::now());
        if dropped > 0 {
            emit(
                &self.ident,
                Level::Warn,
                "log",
                &format!(
                    "{dropped} records of the logging import dropped in the last second (task.log.max.lines.per.second={})",
                    self.rate.per_second()
                ),
            );
        }
        if admitted {
            emit(&self.ident, level, "log", message);
        }
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
        self.log_limited(level, &message);
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
        self.log_limited(level, &message);
    }
}

impl v0_3::Host for LoggingCtx {
    fn log(&mut self, level: v0_3::Level, message: String) {
        let level = match level {
            v0_3::Level::Trace => Level::Trace,
            v0_3::Level::Debug => Level::Debug,
            v0_3::Level::Info => Level::Info,
            v0_3::Level::Warn => Level::Warn,
            v0_3::Level::Error => Level::Error,
        };
        self.log_limited(level, &message);
    }
}

/// Link every contract version's `logging`.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut LoggingCtx,
) -> wasmtime::Result<()> {
    logging::add_to_linker::<T, Ctx<LoggingCtx>>(linker, get)?;
    v0_2::add_to_linker::<T, Ctx<LoggingCtx>>(linker, get)?;
    v0_3::add_to_linker::<T, Ctx<LoggingCtx>>(linker, get)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The logging import gets the stdio streams' budget: a guest calling
    /// it in a loop logs `task.log.max.lines.per.second` records a second.
    #[test]
    fn the_logging_import_is_rate_limited() {
        let mut ctx = LoggingCtx::new(Arc::new(TaskIdent::task("flood", 0)), 5);
        for i in 0..1000 {
            logging::Host::log(&mut ctx, Level::Info, format!("line {i}"));
        }
        // 5 admitted, the other 995 counted as dropped in this window.
        let (admitted, dropped) = ctx.rate.admit(std::time::Instant::now());
        assert!(!admitted, "the window's budget is spent");
        assert_eq!(dropped, 0, "drops are reported when the next window starts");
        let later = std::time::Instant::now() + std::time::Duration::from_secs(2);
        let (admitted, dropped) = ctx.rate.admit(later);
        assert!(admitted);
        assert_eq!(dropped, 996, "995 records and the probe above");
    }
}
