//! Configuration: Java-style `.properties` files (as Kafka Connect reads
//! them), the worker config and connector configs, with Kafka Connect's key
//! names where they exist.

mod clients;
mod connector;
pub mod converters;
pub mod definitions;
pub mod distributed;
pub mod errors;
mod framework;
pub(crate) mod limits;
pub mod providers;
mod reader;
pub(crate) mod rest;
pub mod security;
pub mod topic_creation;
mod worker;

pub use crate::util::whole_name;
pub use clients::{MAX_POLL_RECORDS, OVERRIDE_POLICY, OverridePolicy, client_setting_problems};
pub use connector::{ConnectorConfig, DeliveryGuarantee, TransactionBoundary};
pub use distributed::DistributedConfig;
pub use errors::{DeadLetterQueue, ErrorsConfig, Tolerance};
pub use limits::RestartPolicy;
pub use providers::{ConfigProviders, Resolved};
pub use reader::{ConfigError, load_properties};
pub use rest::{RestAuthConfig, RestListener, TlsFiles};
pub use worker::WorkerConfig;

pub use crate::connector::Props;
