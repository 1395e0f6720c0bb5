//! A worker: loads connector components, validates configs, splits them
//! into tasks and runs each task on its own thread. Standalone mode and
//! embedding applications drive it directly; in distributed mode the
//! cluster tells it which tasks to run ([`assigned`]).
//!
//! Split by role: [`core`] (the `Worker` and what it reports),
//! [`plugins`] (which component a connector runs), [`validate`],
//! [`lifecycle`] (start, pause, stop, restart), [`swap`] (hot replacement),
//! [`offsets`] (KIP-875 offset administration), [`persist`] (standalone
//! mode's `connectors.json`), [`registry`] (uploaded plugin versions).

pub mod assigned;
mod core;
mod dynamic;
mod error;
mod handles;
pub mod instance;
mod lifecycle;
pub mod offsets;
pub mod persist;
mod plugins;
pub mod registry;
mod status;
mod swap;
mod transforms;
mod validate;

pub use self::core::Worker;
pub use error::WorkerError;
pub use plugins::plugin_name;
pub use status::{ConnectorStatus, PluginVersion, SwapReport, Validated};
pub use validate::{declared_key_problems, transform_setting_problems};
