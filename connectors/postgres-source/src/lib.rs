//! `postgres-source`: PostgreSQL tables as Kafka topics, the design's own
//! example ("each table would have a corresponding stream"), with Kafka
//! Connect's JDBC source semantics and key names. Contract
//! `copycat:connector@0.3.0` with a dynamic instance
//! (`copycat:dynamic@0.1.0`).
//!
//! * Each table is a source partition (`{"table": "schema.name"}`); tables
//!   are dealt over `tasks.max` tasks. The connector's instance lists the
//!   tables every `table.poll.interval.ms` (checked at each
//!   `connector.monitor.interval.ms`) and asks for new task configs when
//!   tables come or go. With `query`, one task reads that query's result
//!   (`{"query": "…"}`).
//! * `mode`: `bulk` (the whole table each `poll.interval.ms`),
//!   `incrementing`, `timestamp` or `timestamp+incrementing`, with offsets
//!   the host commits as for any source, so a restart resumes after the
//!   last row delivered (see [`task`]).
//! * Records: no key; the value a struct named after the table, with a
//!   field per column (types: [`columns`]); topic `<topic.prefix><table>`.
//! * The database is reached over `wasi:sockets` TCP only:
//!   `grants.net.connect` must name its `host:port`. The client is
//!   `copycat-pg-client` (rust-postgres's `postgres-protocol` codec).

pub mod columns;
pub mod config;
pub mod tables;
pub mod task;

use copycat_pg_client::PgError;
use copycat_sdk::v0_3::dynamic::{self, DynamicConnector};
use copycat_sdk::v0_3::{Config, ConfigProblem, Connector, Error, PluginInfo, clock, log};

use crate::config::SourceConfig;
use crate::tables::TableName;

/// A database error as the host wants it: transient ones (the connection,
/// a restart, a serialization failure) retriable, others fatal.
pub fn pg_error(what: &str, e: PgError) -> Error {
    let message = format!("PostgreSQL source: {what}: {e}");
    match e {
        PgError::Login { .. } | PgError::Tls { .. } => Error::config(message),
        e if e.is_transient() => Error::retriable(message),
        _ => Error::fatal(message),
    }
}

fn parse(config: &Config) -> Result<SourceConfig, Error> {
    SourceConfig::parse(config).map_err(|p| Error::config(config::joined(&p)))
}

/// The connector.
pub struct PostgresSource;

impl Connector for PostgresSource {
    fn describe() -> PluginInfo {
        config::keys().into_iter().fold(
            PluginInfo::new("postgres-source", env!("CARGO_PKG_VERSION"))
                .description("PostgreSQL tables (or a query) to Kafka topics, one stream per table, typed records"),
            PluginInfo::config,
        )
    }

    // Connector-level calls run without the connector's grants, so the
    // database is first reached by the running instance (below): a login
    // or grant problem fails the connector with the reason.
    fn validate(config: &Config) -> Vec<ConfigProblem> {
        SourceConfig::problems(config)
    }

    // The host asks the running instance, which can reach the database;
    // this answers where no instance runs (a query needs no listing).
    fn task_configs(config: &Config, _max_tasks: u32) -> Result<Vec<Config>, Error> {
        match parse(config)?.query {
            Some(_) => Ok(vec![config.clone()]),
            None => Err(Error::config(
                "postgres-source lists its tables from its running connector instance (copycat:dynamic), which this host did not start",
            )),
        }
    }
}

/// The running connector: watches the table list.
pub struct PostgresSourceInstance {
    raw: Config,
    config: SourceConfig,
    tables: Vec<TableName>,
    listed_at: i64,
}

impl DynamicConnector for PostgresSourceInstance {
    fn start(raw: Config) -> Result<Self, Error> {
        let config = parse(&raw)?;
        let tables = if config.query.is_some() {
            Vec::new()
        } else {
            tables::list_now(&config)?
        };
        if config.query.is_none() && tables.is_empty() {
            log::warn("no table to read yet (check table.whitelist, table.types and the user's SELECT privileges)");
        }
        Ok(Self {
            raw,
            config,
            tables,
            listed_at: clock::now_ms(),
        })
    }

    fn watches(&self) -> bool {
        self.config.query.is_none()
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>, Error> {
        if self.config.query.is_some() {
            return Ok(vec![self.raw.clone()]);
        }
        tables::spread(&self.raw, &self.tables, max_tasks)
    }

    fn monitor(&mut self) -> Result<(), Error> {
        let now = clock::now_ms();
        if now - self.listed_at < self.config.table_poll_interval_ms {
            return Ok(());
        }
        self.listed_at = now;
        let tables = tables::list_now(&self.config)?;
        if tables != self.tables {
            log::info(format!(
                "tables changed: {} now (were {}); asking for new task configs",
                tables.len(),
                self.tables.len()
            ));
            self.tables = tables;
            dynamic::request_task_reconfiguration();
        }
        Ok(())
    }
}

copycat_sdk::v0_3::export_source!(PostgresSource, task::PostgresSourceTask);
copycat_sdk::v0_3::export_dynamic!(PostgresSourceInstance);
