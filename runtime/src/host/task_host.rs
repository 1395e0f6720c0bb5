//! The per-task store data, [`TaskHost`]: every interface's context in one
//! struct, and the [`linker`] that wires each interface to its part.

use std::sync::Arc;

use wasmtime::component::{Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtxView, WasiHttpView};

use crate::connector::Kind;

use super::grants::{GrantError, Grants};
use super::limits::{MemoryLimiter, TaskLimits};
use super::logging::TaskIdent;
use super::offsets::OffsetSnapshot;
use super::stdio::{self, StderrTail};
use super::{blocking, clock, dynamic, errant, file_streams, logging, offsets, transactions, wasi};

/// Everything a task's `Store` holds.
pub struct TaskHost {
    wasi: WasiCtx,
    http: wasi::HttpState,
    table: ResourceTable,
    stderr_tail: StderrTail,
    pub(crate) limiter: MemoryLimiter,
    /// The deadline of host waits in the current guest call.
    pub(crate) bound: blocking::CallBound,
    pub(crate) logging: logging::LoggingCtx,
    pub(crate) clock: clock::ClockCtx,
    pub(crate) offsets: offsets::OffsetsCtx,
    pub(crate) transactions: transactions::TransactionsCtx,
    pub(crate) errant: errant::ErrantCtx,
    pub(crate) dynamic: dynamic::DynamicCtx,
}

impl TaskHost {
    /// Store data for one task (or for the connector-level instance), with
    /// the WASI capabilities of `grants`. Fails, naming the grant key, when a
    /// granted directory cannot be opened.
    pub fn new(
        ident: TaskIdent,
        limits: &TaskLimits,
        offsets: Arc<OffsetSnapshot>,
        grants: &Grants,
    ) -> Result<Self, GrantError> {
        let ident = Arc::new(ident);
        let stderr_tail = StderrTail::default();
        let wasi = wasi::build(
            grants,
            stdio::LogStream::new(ident.clone(), "stdout", None).with_rate(limits.log_lines_per_second),
            stdio::LogStream::new(ident.clone(), "stderr", Some(stderr_tail.clone()))
                .with_rate(limits.log_lines_per_second),
        )?;
        let mut table = ResourceTable::new();
        table.set_max_capacity(limits.host_handles_max);
        Ok(Self {
            wasi,
            http: wasi::HttpState::new(&grants.http, limits.http_fields_max_bytes),
            stderr_tail,
            table,
            limiter: MemoryLimiter::new(limits.memory_bytes),
            bound: blocking::CallBound::default(),
            logging: logging::LoggingCtx::new(ident, limits.log_lines_per_second),
            clock: clock::ClockCtx::new(),
            offsets: offsets::OffsetsCtx::new(offsets),
            transactions: transactions::TransactionsCtx::default(),
            errant: errant::ErrantCtx::default(),
            dynamic: dynamic::DynamicCtx::default(),
        })
    }
}

impl TaskHost {
    pub(crate) fn stderr_tail(&self) -> StderrTail {
        self.stderr_tail.clone()
    }

    /// A guest call starts now and may take `timeout` (host waits included).
    pub(crate) fn start_call(&mut self, timeout: std::time::Duration) {
        self.bound.start_call(timeout);
    }

    /// Why the call that failed with `error` was cut short by a host-side
    /// limit (a wait past the deadline, the handle limit), if it was.
    pub(crate) fn take_host_violation(&mut self, error: &wasmtime::Error) -> Option<String> {
        if let Some(v) = self.bound.take_violation() {
            return Some(v);
        }
        // The table refuses a new handle once it holds `max`; the trap
        // says only that the table is full, not which limit that is.
        let full = error.chain().any(|c| {
            c.downcast_ref::<wasmtime::component::ResourceTableError>()
                .is_some_and(|e| matches!(e, wasmtime::component::ResourceTableError::Full))
        }) || format!("{error:#}").contains("resource table has no free keys");
        let max = self.table.max_capacity();
        full.then(|| {
            format!(
                "host resource limit exceeded: the component holds {max} host handles (files, sockets, streams, pollables, HTTP fields, ...), the cap (task.host.handles.max)"
            )
        })
    }
}

impl WasiHttpView for TaskHost {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        self.http.view(&mut self.table)
    }
}

impl blocking::BlockingView for TaskHost {
    fn table_and_bound(&mut self) -> (&mut ResourceTable, &mut blocking::CallBound) {
        (&mut self.table, &mut self.bound)
    }
}

impl WasiView for TaskHost {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// A linker with WASI, `wasi:http` (types and outgoing-handler; every
/// component may import them, as componentize-js output does) and the
/// Copycat host interfaces. What WASI reaches is decided per task by its
/// grants.
/// Sinks do not get the `offsets` and `transactions` imports; only sinks
/// get the errant record reporter; connectors (not transforms) get the
/// dynamic connector's context.
pub fn linker(engine: &wasmtime::Engine, world: Kind) -> wasmtime::Result<Linker<TaskHost>> {
    let mut linker: Linker<TaskHost> = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    blocking::add_to_linker(&mut linker)?;
    file_streams::add_to_linker(&mut linker, |h| &mut h.table)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
    wasi::add_handle_to_linker(&mut linker)?;
    wasi::add_tcp_nodelay_to_linker(&mut linker)?;
    logging::add_to_linker(&mut linker, |h| &mut h.logging)?;
    clock::add_to_linker(&mut linker, |h| &mut h.clock)?;
    if world == Kind::Source {
        offsets::add_to_linker(&mut linker, |h| &mut h.offsets)?;
        transactions::add_to_linker(&mut linker, |h| &mut h.transactions)?;
    }
    if world == Kind::Sink {
        errant::add_to_linker(&mut linker, |h| &mut h.errant)?;
    }
    if world != Kind::Transform {
        dynamic::add_to_linker(&mut linker, |h| &mut h.dynamic)?;
    }
    Ok(linker)
}
