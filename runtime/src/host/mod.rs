//! The host side of the WIT contract: one small module per imported
//! interface, each with its own context type and `add_to_linker`, plus the
//! per-task store data ([`TaskHost`]) that ties them together.
//!
//! WASI 0.2 and `wasi:http` are linked too, deny-by-default: a task reaches
//! only the directories, addresses, HTTP hosts and environment variables its
//! connector config grants (`grants.*`, see [`grants`] and [`wasi`]); never
//! arguments. stdout and stderr go to the task's log.

mod blocking;
pub mod clock;
pub mod dynamic;
pub mod errant;
mod file_streams;
pub mod grants;
pub mod limits;
pub mod logging;
pub mod offsets;
mod rate;
mod stdio;
mod task_host;
pub mod transactions;
mod view;
pub mod wasi;

pub(crate) use stdio::StderrTail;

pub use grants::{GrantError, Grants};
pub use limits::{MemoryLimiter, TaskLimits};
pub use logging::TaskIdent;
pub use offsets::OffsetSnapshot;
pub use task_host::{TaskHost, linker};
