//! The pause of a source task after an empty poll: it starts at
//! `poll.idle.backoff.ms`, doubles with every further empty poll up to
//! `poll.idle.backoff.max.ms`, and starts over after the first poll that
//! returns records. An idle task thus wakes about once per
//! `poll.idle.backoff.max.ms` instead of once per `poll.idle.backoff.ms`,
//! while a busy one never waits.

use std::time::Duration;

/// The smallest step the pause grows by when `poll.idle.backoff.ms` is 0.
const MIN_STEP: Duration = Duration::from_millis(1);

/// The growing pause after consecutive empty polls.
#[derive(Debug, Clone)]
pub(crate) struct IdleBackoff {
    initial: Duration,
    max: Duration,
    /// The last pause handed out, `None` after a non-empty poll.
    current: Option<Duration>,
}

impl IdleBackoff {
    /// From `poll.idle.backoff.ms` (`initial`) and `poll.idle.backoff.max.ms`
    /// (`max`; a `max` below `initial` is raised to it).
    pub(crate) fn new(initial: Duration, max: Duration) -> Self {
        Self {
            initial,
            max: max.max(initial),
            current: None,
        }
    }

    /// The pause after one more empty poll.
    pub(crate) fn next(&mut self) -> Duration {
        let next = match self.current {
            None => self.initial,
            Some(d) => d.saturating_mul(2).max(MIN_STEP).min(self.max),
        };
        self.current = Some(next);
        next
    }

    /// A poll returned records: the next empty poll pauses `initial` again.
    pub(crate) fn reset(&mut self) {
        self.current = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn doubles_up_to_the_cap_and_resets() {
        let mut b = IdleBackoff::new(ms(50), ms(1000));
        let got: Vec<u64> = (0..8).map(|_| b.next().as_millis() as u64).collect();
        assert_eq!(got, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
        b.reset();
        assert_eq!(b.next(), ms(50));
        assert_eq!(b.next(), ms(100));
    }

    #[test]
    fn zero_initial_still_grows() {
        let mut b = IdleBackoff::new(ms(0), ms(8));
        let got: Vec<u64> = (0..6).map(|_| b.next().as_millis() as u64).collect();
        assert_eq!(got, [0, 1, 2, 4, 8, 8]);
    }

    #[test]
    fn cap_below_initial_means_fixed() {
        let mut b = IdleBackoff::new(ms(50), ms(10));
        assert_eq!(b.next(), ms(50));
        assert_eq!(b.next(), ms(50));
        let mut fixed = IdleBackoff::new(ms(50), ms(50));
        assert!((0..5).all(|_| fixed.next() == ms(50)));
    }

    #[test]
    fn zero_cap_never_pauses() {
        let mut b = IdleBackoff::new(ms(0), ms(0));
        assert!((0..5).all(|_| b.next() == Duration::ZERO));
    }
}
