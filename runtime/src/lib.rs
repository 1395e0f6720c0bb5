//! Copycat: a Kafka connector runtime in which every connector is a
//! WebAssembly component.
//!
//! The shape follows Kafka Connect (KIP-26): a [`Worker`] loads connector
//! components, validates their configs, splits them into tasks and runs each
//! task in its own sandboxed instance, while the host does all Kafka I/O and
//! offset management. To embed one: build a [`WorkerConfig`], start a
//! [`Worker`], drive it directly or through a [`herder::Herder`], serve
//! [`rest::app`], or run one of the modes ([`standalone`], [`distributed`]).
//!
//! The layers, bottom first (each imports only those below it;
//! `scripts/check-layers.sh` keeps it so): [`connector`] / `bindings` /
//! `util` → `metrics` → `host` → `engine` → [`config`] → `kafka` → `task` →
//! [`worker`] → [`herder`] / [`cluster`] → [`rest`] → the modes. The modules
//! without docs here are internals, public only for the integration tests,
//! the benchmarks and the `copycat` command; they are not a stable API.

#[doc(hidden)]
pub mod active_topics;
pub(crate) mod bindings;
pub mod cluster;
pub mod config;
pub mod connector;
pub mod distributed;
#[doc(hidden)]
pub mod engine;
pub mod herder;
#[doc(hidden)]
pub mod host;
#[doc(hidden)]
pub mod kafka;
#[doc(hidden)]
pub mod metrics;
pub mod rest;
pub mod standalone;
#[doc(hidden)]
pub mod task;
#[doc(hidden)]
pub mod util;
pub mod worker;

pub use config::{ConnectorConfig, WorkerConfig};
pub use connector::{Kind, TargetState, TaskState};
pub use worker::{ConnectorStatus, Worker, WorkerError};
