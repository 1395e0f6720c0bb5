//! Configuration: Java-style `.properties` files (as Kafka Connect reads
//! them), the worker config and connector configs, with Kafka Connect's key
//! names where they exist.

mod clients;
mod compat;
mod connector;
pub mod converters;
pub mod distributed;
pub mod errors;
pub(crate) mod limits;
pub mod providers;
mod reader;
pub(crate) mod rest;
pub mod security;
mod worker;

pub use clients::{MAX_POLL_RECORDS, OVERRIDE_POLICY, OverridePolicy, client_setting_problems};
pub use connector::{ConnectorConfig, DeliveryGuarantee, TransactionBoundary, whole_name};
pub use distributed::DistributedConfig;
pub use errors::{DeadLetterQueue, ErrorsConfig, Tolerance};
pub use limits::RestartPolicy;
pub use providers::{ConfigProviders, Resolved};
pub use reader::{ConfigError, load_properties};
pub use rest::{RestAuthConfig, RestListener, TlsFiles};
pub use worker::WorkerConfig;

pub use crate::connector::Props;
