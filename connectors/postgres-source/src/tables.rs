//! Which tables the connector reads, and how they are spread over tasks.

use copycat_pg_client::{Client, PgError};
use copycat_sdk::v0_3::{Config, Error};
use postgres_protocol::escape::{escape_identifier, escape_literal};

use crate::config::SourceConfig;

/// A table, by schema and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct TableName {
    pub schema: String,
    pub name: String,
}

impl TableName {
    /// `schema.name`, as written in `table.whitelist` and offsets.
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }

    /// Quoted for SQL.
    pub fn sql(&self) -> String {
        format!("{}.{}", escape_identifier(&self.schema), escape_identifier(&self.name))
    }

    /// Whether a `table.whitelist` / `table.blacklist` entry names this
    /// table (`name` or `schema.name`).
    fn matches(&self, entry: &str) -> bool {
        entry == self.name || entry == self.qualified()
    }
}

/// The tables to read, sorted: every table of the configured types outside
/// PostgreSQL's own schemas, filtered by `table.whitelist` /
/// `table.blacklist`.
pub fn list(client: &mut Client, config: &SourceConfig) -> Result<Vec<TableName>, PgError> {
    let kinds: Vec<String> = config.relkinds.iter().map(|k| k.to_string()).collect();
    let sql = format!(
        "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c \
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
         WHERE c.relkind::text = ANY({}::text[]) \
         AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
         AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' \
         AND has_table_privilege(c.oid, 'SELECT') \
         ORDER BY 1, 2",
        escape_literal(&format!("{{{}}}", kinds.join(",")))
    );
    let rows = client.simple_query(&sql)?;
    let mut tables: Vec<TableName> = rows
        .into_iter()
        .filter_map(|r| match (r.first().cloned().flatten(), r.get(1).cloned().flatten()) {
            (Some(schema), Some(name)) => Some(TableName { schema, name }),
            _ => None,
        })
        .filter(|t| config.whitelist.is_empty() || config.whitelist.iter().any(|w| t.matches(w)))
        .filter(|t| !config.blacklist.iter().any(|b| t.matches(b)))
        .collect();
    tables.sort();
    Ok(tables)
}

/// Connects, lists, disconnects; errors as the host wants them (a broken
/// connection is retriable).
pub fn list_now(config: &SourceConfig) -> Result<Vec<TableName>, Error> {
    let mut client = Client::connect(&config.connect).map_err(|e| crate::pg_error("connect", e))?;
    let tables = list(&mut client, config).map_err(|e| crate::pg_error("list tables", e))?;
    client.close();
    Ok(tables)
}

/// The key a task config holds its tables in (a JSON array of
/// `{"schema":…,"name":…}`).
pub const TASK_TABLES: &str = "tables";

/// At most `max_tasks` task configs, tables dealt round-robin; one task
/// config with no tables when there are none (it idles until the
/// connector sees a table and asks for new task configs).
pub fn spread(config: &Config, tables: &[TableName], max_tasks: u32) -> Result<Vec<Config>, Error> {
    let tasks = (max_tasks.max(1) as usize).min(tables.len()).max(1);
    (0..tasks)
        .map(|t| {
            let mine: Vec<&TableName> = tables.iter().skip(t).step_by(tasks).collect();
            let json = serde_json::to_string(&mine).map_err(|e| Error::fatal(e.to_string()))?;
            Ok(config.clone().with(TASK_TABLES, json))
        })
        .collect()
}

/// The tables of a task config.
pub fn of_task(config: &Config) -> Result<Vec<TableName>, Error> {
    match config.get(TASK_TABLES) {
        None => Ok(Vec::new()),
        Some(json) => serde_json::from_str(json)
            .map_err(|e| Error::config(format!("task config '{TASK_TABLES}' is not a list of tables: {e}"))),
    }
}
