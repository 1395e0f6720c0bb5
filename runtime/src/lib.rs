//! Copycat: a Kafka connector runtime in which every connector is a
//! WebAssembly component.
//!
//! The shape follows Kafka Connect (KIP-26): a [`worker::Worker`] loads
//! connector components ([`engine`]), validates their configs ([`config`]),
//! splits them into tasks and runs each task ([`task`]) in its own sandboxed
//! instance ([`host`]), while the host does all Kafka I/O and offset
//! management ([`kafka`]).

pub mod authoring;
pub mod client;
pub mod cluster;
pub mod config;
pub mod distributed;
pub mod engine;
pub mod herder;
pub mod host;
pub mod kafka;
pub mod metrics;
pub mod offsets_admin;
pub mod plugins;
pub mod rest;
pub mod standalone;
pub mod state;
pub mod task;
pub mod topics;
pub mod worker;

pub use config::{ConnectorConfig, WorkerConfig};
pub use worker::{ConnectorStatus, TargetState, Worker, WorkerError};
