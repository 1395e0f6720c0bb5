//! `postgres-sink`: Kafka records into PostgreSQL tables, with Kafka
//! Connect's JDBC sink semantics and key names, and exactly-once by the
//! design's own recipe: the rows and the consumed offsets committed in one
//! database transaction, and on `open` the task resumes from the offsets in
//! the database, whatever the consumer group says. Contract
//! `copycat:connector@0.3.0`.
//!
//! * `insert.mode` insert | upsert | update; `pk.mode` none | kafka |
//!   record_key | record_value with `pk.fields`; `fields.whitelist`;
//!   `auto.create` / `auto.evolve` from the record's schema;
//!   `delete.enabled` (a tombstone deletes its key's row);
//!   `table.name.format` (`${topic}`); `batch.size` rows per transaction.
//! * Values must be structs with a schema (a converter that reads
//!   schemas: JsonConverter with `schemas.enable=true`, AvroConverter).
//!   Types: [`sql`]. A record that cannot be written is reported errant.
//! * `exactly.once=true` (the default) keeps the offsets in
//!   `offsets.table.name` (`copycat_sink_offsets`) in the target database,
//!   keyed by connector name, topic and partition (see [`task`]).
//! * The database is reached over `wasi:sockets` TCP only:
//!   `grants.net.connect` must name its `host:port`.

pub mod config;
pub mod sql;
pub mod task;

use copycat_pg_client::PgError;
use copycat_sdk::v0_3::{Config, ConfigProblem, Connector, Error, PluginInfo};

use crate::config::SinkConfig;

/// A database error as the host wants it: transient ones retriable (the
/// host redelivers the batch), a refused login a config error, others
/// fatal.
pub fn pg_error(what: &str, e: PgError) -> Error {
    let message = format!("PostgreSQL sink: {what}: {e}");
    match e {
        PgError::Login { .. } | PgError::Tls { .. } => Error::config(message),
        e if e.is_transient() => Error::retriable(message),
        _ => Error::fatal(message),
    }
}

/// The connector.
pub struct PostgresSink;

impl Connector for PostgresSink {
    fn describe() -> PluginInfo {
        config::keys().into_iter().fold(
            PluginInfo::new("postgres-sink", env!("CARGO_PKG_VERSION")).description(
                "Kafka records into PostgreSQL tables (insert, upsert, update, delete), exactly-once with the offsets in the database",
            ),
            PluginInfo::config,
        )
    }

    // Connector-level calls run without grants: the tasks reach the
    // database, and fail naming the reason when they cannot.
    fn validate(config: &Config) -> Vec<ConfigProblem> {
        match SinkConfig::parse(config) {
            Ok(_) => Vec::new(),
            Err(problems) => problems,
        }
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

copycat_sdk::v0_3::export_sink!(PostgresSink, task::PostgresSinkTask);
