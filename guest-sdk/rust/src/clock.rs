//! Wall-clock and monotonic time, from the host.
//!
//! On non-WebAssembly targets (unit tests) these use `std::time`.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    imp::now_ms()
}

/// Nanoseconds on a monotonic clock with an arbitrary origin, for measuring
/// intervals (rates, timeouts).
pub fn monotonic_ns() -> u64 {
    imp::monotonic_ns()
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::__bindings::source::copycat::connector::clock;

    pub(super) fn now_ms() -> i64 {
        clock::now_ms()
    }

    pub(super) fn monotonic_ns() -> u64 {
        clock::monotonic_ns()
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::sync::OnceLock;
    use std::time::{Instant, SystemTime, UNIX_EPOCH};

    pub(super) fn now_ms() -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }

    pub(super) fn monotonic_ns() -> u64 {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        let elapsed = ORIGIN.get_or_init(Instant::now).elapsed();
        u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
    }
}
