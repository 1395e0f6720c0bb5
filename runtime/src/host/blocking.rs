//! Host calls that wait, bounded by the guest call that made them.
//!
//! Epoch interruption stops a guest only while it runs wasm; a guest that
//! waits inside the host (`wasi:io/poll`'s `poll` and `pollable.block` — a
//! `sleep`, a read on a silent socket — or a `blocking-*` method of
//! `wasi:io/streams`) would otherwise hold its thread, and any lock its
//! caller holds, for as long as it likes. [`add_to_linker`] shadows those
//! functions with the same implementations (wasmtime-wasi-io's, on the
//! task's resource table) run under the call's [`CallBound`]: the wait ends
//! when the guest call's deadline (`task.call.timeout.ms`) passes, and the
//! call traps with a reason that names the limit, so a task stuck in a wait
//! fails (and its thread ends, releasing its resources) within its deadline.
//! Nothing else changes: a wait that ends in time returns what wasmtime-wasi
//! would have returned. A stop request does not cut a wait short: a task
//! stopping gracefully may still wait (for a flush, say) within its
//! deadline.

use std::future::Future;
use std::task::Poll;
use std::time::{Duration, Instant};

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime_wasi::p2::bindings::io::poll::{Host as _, HostPollable as _};
use wasmtime_wasi::p2::bindings::io::streams::{
    Host as _, HostInputStream as _, HostOutputStream as _, StreamError as WitStreamError,
};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, DynPollable, StreamError};

/// The interfaces whose functions are shadowed, at the version
/// wasmtime-wasi 48 links (guests importing any 0.2.x resolve to it).
const POLL: &str = "wasi:io/poll@0.2.12";
const STREAMS: &str = "wasi:io/streams@0.2.12";

/// What bounds the host waits of the current guest call.
#[derive(Debug, Default)]
pub(crate) struct CallBound {
    /// When the current call's time is up (`None` before the first call).
    deadline: Option<Instant>,
    /// `task.call.timeout.ms`, quoted in the failure.
    timeout: Duration,
    /// Why the last wait was cut short, for the call's failure.
    violation: Option<String>,
}

impl CallBound {
    /// A guest call starts now and may take `timeout`.
    pub(crate) fn start_call(&mut self, timeout: Duration) {
        self.timeout = timeout;
        self.deadline = Some(Instant::now() + timeout);
    }

    /// Why the last trap happened, if a wait was cut short.
    pub(crate) fn take_violation(&mut self) -> Option<String> {
        self.violation.take()
    }

    /// Run `fut` (a wait on the task's resources) until it completes or
    /// the call's deadline passes.
    fn wait<T>(&mut self, what: &str, fut: impl Future<Output = T>) -> wasmtime::Result<T> {
        let deadline = self.deadline;
        let outcome = wasmtime_wasi::runtime::in_tokio(async move {
            let mut fut = std::pin::pin!(fut);
            // Most waits are over at once (a file stream's flush, a ready
            // socket): they need no timer.
            let first = std::future::poll_fn(|cx| Poll::Ready(fut.as_mut().poll(cx))).await;
            match (first, deadline) {
                (Poll::Ready(out), _) => Some(out),
                (Poll::Pending, Some(d)) => tokio::time::timeout_at(d.into(), fut).await.ok(),
                (Poll::Pending, None) => Some(fut.await),
            }
        });
        outcome.ok_or_else(|| {
            let msg = format!(
                "blocked in the host call `{what}` past the call's deadline of {} ms (task.call.timeout.ms) and was interrupted",
                self.timeout.as_millis()
            );
            self.violation = Some(msg.clone());
            wasmtime::Error::msg(msg)
        })
    }
}

/// Store data that holds the task's resource table and its [`CallBound`].
pub(crate) trait BlockingView: Send + 'static {
    /// The table and the bound, borrowed apart.
    fn table_and_bound(&mut self) -> (&mut ResourceTable, &mut CallBound);
}

/// The task's table and bound, borrowed apart.
fn parts<'a, T: BlockingView>(store: &'a mut StoreContextMut<'_, T>) -> (&'a mut ResourceTable, &'a mut CallBound) {
    store.data_mut().table_and_bound()
}

/// A stream result as the guest sees it: a stream error becomes the WIT
/// variant (or a trap), as wasmtime-wasi's bindings convert it.
fn lower<T>(table: &mut ResourceTable, r: Result<T, StreamError>) -> wasmtime::Result<Result<T, WitStreamError>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) => Ok(Err(table.convert_stream_error(e)?)),
    }
}

/// Replace the waiting functions of `wasi:io/poll` and `wasi:io/streams`
/// in `linker` (which already holds WASI) with bounded ones.
pub(crate) fn add_to_linker<T: BlockingView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let result = add(linker);
    linker.allow_shadowing(false);
    result
}

fn add<T: BlockingView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    let mut poll = linker.instance(POLL)?;
    poll.func_wrap(
        "poll",
        |mut store: StoreContextMut<'_, T>, (list,): (Vec<Resource<DynPollable>>,)| {
            let (table, bound) = parts(&mut store);
            Ok((bound.wait("wasi:io/poll.poll", table.poll(list))??,))
        },
    )?;
    poll.func_wrap(
        "[method]pollable.block",
        |mut store: StoreContextMut<'_, T>, (p,): (Resource<DynPollable>,)| {
            let (table, bound) = parts(&mut store);
            bound.wait("wasi:io/poll.pollable.block", table.block(p))??;
            Ok(())
        },
    )?;
    let mut streams = linker.instance(STREAMS)?;
    streams.func_wrap(
        "[method]input-stream.blocking-read",
        |mut store: StoreContextMut<'_, T>, (s, len): (Resource<DynInputStream>, u64)| {
            let (table, bound) = parts(&mut store);
            let r = bound.wait(
                "wasi:io/streams.input-stream.blocking-read",
                table.blocking_read(s, len),
            )?;
            Ok((lower(table, r)?,))
        },
    )?;
    streams.func_wrap(
        "[method]input-stream.blocking-skip",
        |mut store: StoreContextMut<'_, T>, (s, len): (Resource<DynInputStream>, u64)| {
            let (table, bound) = parts(&mut store);
            let r = bound.wait(
                "wasi:io/streams.input-stream.blocking-skip",
                table.blocking_skip(s, len),
            )?;
            Ok((lower(table, r)?,))
        },
    )?;
    streams.func_wrap(
        "[method]output-stream.blocking-write-and-flush",
        |mut store: StoreContextMut<'_, T>, (s, bytes): (Resource<DynOutputStream>, Vec<u8>)| {
            let (table, bound) = parts(&mut store);
            let r = bound.wait(
                "wasi:io/streams.output-stream.blocking-write-and-flush",
                table.blocking_write_and_flush(s, bytes),
            )?;
            Ok((lower(table, r)?,))
        },
    )?;
    streams.func_wrap(
        "[method]output-stream.blocking-write-zeroes-and-flush",
        |mut store: StoreContextMut<'_, T>, (s, len): (Resource<DynOutputStream>, u64)| {
            let (table, bound) = parts(&mut store);
            let r = bound.wait(
                "wasi:io/streams.output-stream.blocking-write-zeroes-and-flush",
                table.blocking_write_zeroes_and_flush(s, len),
            )?;
            Ok((lower(table, r)?,))
        },
    )?;
    streams.func_wrap(
        "[method]output-stream.blocking-flush",
        |mut store: StoreContextMut<'_, T>, (s,): (Resource<DynOutputStream>,)| {
            let (table, bound) = parts(&mut store);
            let r = bound.wait("wasi:io/streams.output-stream.blocking-flush", table.blocking_flush(s))?;
            Ok((lower(table, r)?,))
        },
    )?;
    streams.func_wrap(
        "[method]output-stream.blocking-splice",
        |mut store: StoreContextMut<'_, T>,
         (dst, src, len): (Resource<DynOutputStream>, Resource<DynInputStream>, u64)| {
            let (table, bound) = parts(&mut store);
            let r = bound.wait(
                "wasi:io/streams.output-stream.blocking-splice",
                table.blocking_splice(dst, src, len),
            )?;
            Ok((lower(table, r)?,))
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_ends_at_the_deadline_and_names_the_limit() {
        let mut b = CallBound::default();
        b.start_call(Duration::from_millis(50));
        let started = Instant::now();
        let r = b.wait("test.wait", std::future::pending::<()>());
        assert!(started.elapsed() < Duration::from_secs(5));
        let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            msg.contains("task.call.timeout.ms") && msg.contains("test.wait"),
            "{msg}"
        );
        assert!(b.take_violation().is_some());
    }

    #[test]
    fn a_wait_that_completes_in_time_returns_its_value() {
        let mut b = CallBound::default();
        b.start_call(Duration::from_secs(5));
        assert_eq!(b.wait("test.wait", async { 7 }).ok(), Some(7));
    }
}
