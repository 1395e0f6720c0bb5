//! `copycat:dynamic/context`: what a dynamic connector's instance asks of
//! the host (Kafka Connect's `ConnectorContext`). The interface only notes
//! the requests — a flag, and the first error message cut to
//! [`MESSAGE_MAX_BYTES`] — so however often a guest calls, the host holds
//! a bounded amount; the connector-instance runner acts on them once the
//! guest call returns. A task's instance (same component) may call too:
//! nobody takes its notes.

use wasmtime::component::Linker;

use super::errant::cut;
use super::view::Ctx;
use crate::bindings::dynamic::context;

/// The longest error message kept, in bytes.
pub const MESSAGE_MAX_BYTES: usize = 4096;

/// Context of the dynamic connector interface.
#[derive(Debug, Default)]
pub struct DynamicCtx {
    reconfigure: bool,
    error: Option<String>,
}

/// What the instance asked for during its last calls.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// `request-task-reconfiguration` was called.
    pub reconfigure: bool,
    /// `raise-error`'s first message.
    pub error: Option<String>,
}

impl DynamicCtx {
    /// The requests noted since the last take.
    pub(crate) fn take(&mut self) -> Requests {
        Requests {
            reconfigure: std::mem::take(&mut self.reconfigure),
            error: self.error.take(),
        }
    }
}

impl context::Host for DynamicCtx {
    fn request_task_reconfiguration(&mut self) {
        self.reconfigure = true;
    }

    fn raise_error(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(cut(message, MESSAGE_MAX_BYTES));
        }
    }
}

/// Link the context.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut DynamicCtx,
) -> wasmtime::Result<()> {
    context::add_to_linker::<T, Ctx<DynamicCtx>>(linker, get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use context::Host as _;

    #[test]
    fn requests_are_a_flag_and_the_first_message_cut() {
        let mut c = DynamicCtx::default();
        assert_eq!(c.take(), Requests::default());
        for _ in 0..10_000 {
            c.request_task_reconfiguration();
        }
        c.raise_error("é".repeat(MESSAGE_MAX_BYTES));
        c.raise_error("second".into());
        let r = c.take();
        assert!(r.reconfigure);
        let msg = r.error.unwrap_or_default();
        assert!(msg.len() <= MESSAGE_MAX_BYTES && msg.starts_with('é'));
        assert_eq!(c.take(), Requests::default(), "taken once");
    }
}
