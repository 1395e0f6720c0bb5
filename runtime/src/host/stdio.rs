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
use std::time::{Duration, Instant};

use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};

use super::logging::{TaskIdent, emit};
use crate::bindings::logging::Level;

/// Last lines a guest wrote to stderr, quoted when it traps (a Rust panic
/// message, an uncaught exception).
pub(crate) type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// Longest partial line buffered before it is logged anyway.
const MAX_PENDING: usize = 8 * 1024;

/// Default of `task.log.max.lines.per.second`.
pub const DEFAULT_LOG_LINES_PER_SECOND: u32 = 100;

/// A WASI output stream that logs each line at info (stdout) or warn (stderr).
pub(crate) struct LogStream {
    ident: Arc<TaskIdent>,
    name: &'static str,
    tail: Option<StderrTail>,
    rate: Arc<Mutex<RateWindow>>,
}

/// Lines logged in the current one-second window, and lines dropped.
#[derive(Debug)]
pub(crate) struct RateWindow {
    per_second: u32,
    started: Instant,
    logged: u32,
    dropped: u64,
}

impl RateWindow {
    /// A window admitting `per_second` lines per second.
    pub(crate) fn new(per_second: u32) -> Self {
        Self {
            per_second,
            started: Instant::now(),
            logged: 0,
            dropped: 0,
        }
    }

    /// The limit (`task.log.max.lines.per.second`).
    pub(crate) fn per_second(&self) -> u32 {
        self.per_second
    }

    /// Whether a line may be logged now; when a new window starts, the
    /// number of lines dropped in the last one.
    pub(crate) fn admit(&mut self, now: Instant) -> (bool, u64) {
        let mut dropped = 0;
        if now.duration_since(self.started) >= Duration::from_secs(1) {
            dropped = std::mem::take(&mut self.dropped);
            self.started = now;
            self.logged = 0;
        }
        if self.logged < self.per_second {
            self.logged += 1;
            (true, dropped)
        } else {
            self.dropped += 1;
            (false, dropped)
        }
    }
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
            w.per_second = per_second;
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
                (a, d, w.per_second)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_over_the_rate_are_dropped_and_counted() {
        let t0 = Instant::now();
        let mut w = RateWindow {
            per_second: 2,
            started: t0,
            logged: 0,
            dropped: 0,
        };
        assert_eq!(w.admit(t0), (true, 0));
        assert_eq!(w.admit(t0), (true, 0));
        assert_eq!(w.admit(t0), (false, 0));
        assert_eq!(w.admit(t0), (false, 0));
        // The next window reports the two dropped lines and admits again.
        assert_eq!(w.admit(t0 + Duration::from_secs(1)), (true, 2));
    }
}
