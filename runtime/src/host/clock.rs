//! `copycat:connector/clock`: wall-clock and monotonic time.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use wasmtime::component::Linker;

use super::view::Ctx;
use crate::bindings::clock;
use crate::bindings::v0_2::clock as v0_2;
use crate::bindings::v0_3::clock as v0_3;

/// Context of the clock interface: the monotonic origin of this store.
pub struct ClockCtx {
    origin: Instant,
}

impl ClockCtx {
    pub(crate) fn new() -> Self {
        Self { origin: Instant::now() }
    }
}

impl clock::Host for ClockCtx {
    fn now_ms(&mut self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }

    fn monotonic_ns(&mut self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl v0_2::Host for ClockCtx {
    fn now_ms(&mut self) -> i64 {
        clock::Host::now_ms(self)
    }

    fn monotonic_ns(&mut self) -> u64 {
        clock::Host::monotonic_ns(self)
    }
}

impl v0_3::Host for ClockCtx {
    fn now_ms(&mut self) -> i64 {
        clock::Host::now_ms(self)
    }

    fn monotonic_ns(&mut self) -> u64 {
        clock::Host::monotonic_ns(self)
    }
}

/// Link every contract version's `clock`.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut ClockCtx,
) -> wasmtime::Result<()> {
    clock::add_to_linker::<T, Ctx<ClockCtx>>(linker, get)?;
    v0_2::add_to_linker::<T, Ctx<ClockCtx>>(linker, get)?;
    v0_3::add_to_linker::<T, Ctx<ClockCtx>>(linker, get)
}
