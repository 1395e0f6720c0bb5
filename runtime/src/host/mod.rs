//! The host side of the WIT contract: one small module per imported
//! interface, each with its own context type and `add_to_linker`, plus the
//! per-task store data ([`TaskHost`]) that ties them together.
//!
//! WASI 0.2 and `wasi:http` are linked too, deny-by-default: a task reaches
//! only the directories, addresses, HTTP hosts and environment variables its
//! connector config grants (`grants.*`, see [`grants`] and [`wasi`]); never
//! arguments. stdout and stderr go to the task's log.

pub mod clock;
mod file_streams;
pub mod grants;
pub mod limits;
pub mod logging;
pub mod offsets;
mod stdio;
pub mod transactions;
pub mod wasi;

use std::sync::Arc;

use wasmtime::component::{HasData, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::engine::guest::StderrTail;

pub use grants::{GrantError, Grants};
pub use limits::{MemoryLimiter, TaskLimits};
pub use logging::TaskIdent;
pub use offsets::OffsetSnapshot;

/// Everything a task's `Store` holds.
pub struct TaskHost {
    wasi: WasiCtx,
    http: wasi::HttpState,
    table: ResourceTable,
    stderr_tail: StderrTail,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) logging: logging::LoggingCtx,
    pub(crate) clock: clock::ClockCtx,
    pub(crate) offsets: offsets::OffsetsCtx,
    pub(crate) transactions: transactions::TransactionsCtx,
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
        Ok(Self {
            wasi,
            http: wasi::HttpState::new(&grants.http),
            stderr_tail,
            table: ResourceTable::new(),
            limiter: MemoryLimiter::new(limits.memory_bytes),
            logging: logging::LoggingCtx::new(ident),
            clock: clock::ClockCtx::new(),
            offsets: offsets::OffsetsCtx::new(offsets),
            transactions: transactions::TransactionsCtx::default(),
        })
    }
}

impl TaskHost {
    pub(crate) fn stderr_tail(&self) -> StderrTail {
        self.stderr_tail.clone()
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

/// [`HasData`] marker for host interfaces whose context is `&mut C`.
pub(crate) struct Ctx<C: 'static>(std::marker::PhantomData<C>);

impl<C: 'static> HasData for Ctx<C> {
    type Data<'a> = &'a mut C;
}

/// Which world a linker is for: sinks do not get the `offsets` import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldKind {
    /// `copycat:connector/source`.
    Source,
    /// `copycat:connector/sink`.
    Sink,
}

/// A linker with WASI, `wasi:http` (types and outgoing-handler; every
/// component may import them, as componentize-js output does) and the
/// Copycat host interfaces. What WASI reaches is decided per task by its
/// grants.
pub fn linker(engine: &wasmtime::Engine, world: WorldKind) -> wasmtime::Result<Linker<TaskHost>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    file_streams::add_to_linker(&mut linker)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
    logging::add_to_linker(&mut linker, |h| &mut h.logging)?;
    clock::add_to_linker(&mut linker, |h| &mut h.clock)?;
    if world == WorldKind::Source {
        offsets::add_to_linker(&mut linker, |h| &mut h.offsets)?;
        transactions::add_to_linker(&mut linker, |h| &mut h.transactions)?;
    }
    Ok(linker)
}
