//! The per-second line limit of a task's log (`task.log.max.lines.per.second`),
//! shared by the `logging` import and stdout/stderr.

use std::time::{Duration, Instant};

/// Default of `task.log.max.lines.per.second`.
pub const DEFAULT_LOG_LINES_PER_SECOND: u32 = 100;

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
