//! The host side of the WIT contract: one small module per imported
//! interface, each with its own context type and `add_to_linker`, plus the
//! per-task store data ([`TaskHost`]) that ties them together.
//!
//! WASI 0.2 is linked too, with an *empty* context: no preopened directories,
//! no environment, no arguments, no sockets; stdout and stderr go to the
//! task's log. Components built with `std` import a few WASI interfaces, and
//! this lets them load while granting nothing.

pub mod clock;
pub mod files;
pub mod limits;
pub mod logging;
pub mod offsets;
mod stdio;
pub mod transactions;

use std::sync::Arc;

use wasmtime::component::{HasData, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::engine::guest::StderrTail;

pub use files::FileGrants;
pub use limits::{MemoryLimiter, TaskLimits};
pub use logging::TaskIdent;
pub use offsets::OffsetSnapshot;

/// Everything a task's `Store` holds.
pub struct TaskHost {
    wasi: WasiCtx,
    table: ResourceTable,
    stderr_tail: StderrTail,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) logging: logging::LoggingCtx,
    pub(crate) clock: clock::ClockCtx,
    pub(crate) offsets: offsets::OffsetsCtx,
    pub(crate) files: files::FilesCtx,
    pub(crate) transactions: transactions::TransactionsCtx,
}

impl TaskHost {
    /// Store data for one task (or for the connector-level instance).
    pub fn new(ident: TaskIdent, limits: &TaskLimits, offsets: Arc<OffsetSnapshot>, grants: FileGrants) -> Self {
        let ident = Arc::new(ident);
        let stderr_tail = StderrTail::default();
        let wasi = WasiCtx::builder()
            .stdout(stdio::LogStream::new(ident.clone(), "stdout", None))
            .stderr(stdio::LogStream::new(
                ident.clone(),
                "stderr",
                Some(stderr_tail.clone()),
            ))
            .build();
        Self {
            wasi,
            stderr_tail,
            table: ResourceTable::new(),
            limiter: MemoryLimiter::new(limits.memory_bytes),
            logging: logging::LoggingCtx::new(ident),
            clock: clock::ClockCtx::new(),
            offsets: offsets::OffsetsCtx::new(offsets),
            files: files::FilesCtx::new(grants),
            transactions: transactions::TransactionsCtx::default(),
        }
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

/// A linker with WASI (empty context) and the Copycat host interfaces.
pub fn linker(engine: &wasmtime::Engine, world: WorldKind) -> wasmtime::Result<Linker<TaskHost>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    logging::add_to_linker(&mut linker, |h| &mut h.logging)?;
    clock::add_to_linker(&mut linker, |h| &mut h.clock)?;
    files::add_to_linker(&mut linker, |h| &mut h.files)?;
    if world == WorldKind::Source {
        offsets::add_to_linker(&mut linker, |h| &mut h.offsets)?;
        transactions::add_to_linker(&mut linker, |h| &mut h.transactions)?;
    }
    Ok(linker)
}
