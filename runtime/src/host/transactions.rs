//! `copycat:connector/transactions`: an exactly-once source with
//! `transaction.boundary=connector` asks to commit or abort the open
//! transaction; the task loop acts on the request after the `poll` call.

use wasmtime::component::Linker;

use super::view::Ctx;
use crate::bindings::transactions;
use crate::bindings::v0_2::transactions as v0_2;
use crate::bindings::v0_3::transactions as v0_3;

/// What the connector asked for during the current call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionRequest {
    /// Commit after this batch.
    Commit,
    /// Abort, including this batch.
    Abort,
}

/// Context of the transactions interface.
#[derive(Default)]
pub struct TransactionsCtx {
    request: Option<TransactionRequest>,
}

impl TransactionsCtx {
    /// Take the request made since the last call, if any.
    pub(crate) fn take(&mut self) -> Option<TransactionRequest> {
        self.request.take()
    }
}

impl transactions::Host for TransactionsCtx {
    fn commit(&mut self) {
        // An abort wins over a commit asked for in the same call.
        if self.request != Some(TransactionRequest::Abort) {
            self.request = Some(TransactionRequest::Commit);
        }
    }

    fn abort(&mut self) {
        self.request = Some(TransactionRequest::Abort);
    }
}

impl v0_2::Host for TransactionsCtx {
    fn commit(&mut self) {
        transactions::Host::commit(self);
    }

    fn abort(&mut self) {
        transactions::Host::abort(self);
    }
}

impl v0_3::Host for TransactionsCtx {
    fn commit(&mut self) {
        transactions::Host::commit(self);
    }

    fn abort(&mut self) {
        transactions::Host::abort(self);
    }
}

/// Link every contract version's `transactions`.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut TransactionsCtx,
) -> wasmtime::Result<()> {
    transactions::add_to_linker::<T, Ctx<TransactionsCtx>>(linker, get)?;
    v0_2::add_to_linker::<T, Ctx<TransactionsCtx>>(linker, get)?;
    v0_3::add_to_linker::<T, Ctx<TransactionsCtx>>(linker, get)
}
