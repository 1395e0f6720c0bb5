//! Guest stdout/stderr: captured line by line into the task's log, at most
//! `task.log.max.lines.per.second` lines per stream per second; the excess
//! is dropped and counted in one summary line per second (a guest cannot
//! flood the worker's log). The stderr tail kept for trap messages sees
//! every line.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};

use super::logging::{TaskIdent, emit};
use super::rate::{DEFAULT_LOG_LINES_PER_SECOND, RateWindow};
use crate::bindings::logging::Level;

/// Last lines a guest wrote to stderr, quoted when it traps (a Rust panic
/// message, an uncaught exception).
pub(crate) type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// Longest partial line buffered before it is logged anyway.
const MAX_PENDING: usize = 8 * 1024;

/// A WASI output stream that logs each line at info (stdout) or warn (stderr).
pub(crate) struct LogStream {
    ident: Arc<TaskIdent>,
    name: &'static str,
    tail: Option<StderrTail>,
    rate: Arc<Mutex<RateWindow>>,
}

/// Lines of stderr kept for trap messages.
const TAIL_LINES: usize = 4;

impl LogStream {
    pub(crate) fn new(ident: Arc<TaskIdent>, name: &'static str, tail: Option<StderrTail>) -> Self {
        Self {
            ident,
            name,
            tail,
            rate: Arc::new(Mutex::new(RateWindow::new(DEFAULT_LOG_LINES_PER_SECOND))),
        }
    }

    /// Log at most `per_second` lines per second (`task.log.max.lines.per.second`).
    pub(crate) fn with_rate(self, per_second: u32) -> Self {
        if let Ok(mut w) = self.rate.lock() {
            *w = RateWindow::new(per_second);
        }
        self
    }
}

impl IsTerminal for LogStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for LogStream {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(LineWriter {
            ident: self.ident.clone(),
            name: self.name,
            tail: self.tail.clone(),
            rate: self.rate.clone(),
            pending: Vec::new(),
        })
    }
}

struct LineWriter {
    ident: Arc<TaskIdent>,
    name: &'static str,
    tail: Option<StderrTail>,
    rate: Arc<Mutex<RateWindow>>,
    pending: Vec<u8>,
}

impl LineWriter {
    fn emit(&self, line: &[u8]) {
        let level = if self.name == "stderr" {
            Level::Warn
        } else {
            Level::Info
        };
        let text = String::from_utf8_lossy(line);
        let (admitted, dropped, limit) = match self.rate.lock() {
            Ok(mut w) => {
                let (a, d) = w.admit(Instant::now());
                (a, d, w.per_second())
            }
            Err(_) => (true, 0, 0),
        };
        if dropped > 0 {
            emit(
                &self.ident,
                Level::Warn,
                self.name,
                &format!(
                    "{dropped} lines of {} dropped in the last second (task.log.max.lines.per.second={limit})",
                    self.name
                ),
            );
        }
        if admitted {
            emit(&self.ident, level, self.name, &text);
        }
        if let Some(tail) = &self.tail
            && let Ok(mut tail) = tail.lock()
            && !text.trim().is_empty()
        {
            if tail.len() == TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(text.chars().take(512).collect());
        }
    }
}

impl AsyncWrite for LineWriter {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.pending.extend_from_slice(buf);
        while let Some(nl) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=nl).collect();
            self.emit(&line[..line.len() - 1]);
        }
        if self.pending.len() > MAX_PENDING {
            let line = std::mem::take(&mut self.pending);
            self.emit(&line);
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.emit(&line);
        }
        Poll::Ready(Ok(()))
    }
}
