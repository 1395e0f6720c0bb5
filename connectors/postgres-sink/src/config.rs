//! postgres-sink's configuration: Kafka Connect's JDBC sink key names,
//! each checked with an error naming the key.

use copycat_pg_client::{ConnectSettings, from_keys};
use copycat_sdk::v0_3::{Config, ConfigKey, ConfigProblem, Importance};

/// `insert.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertMode {
    Insert,
    Upsert,
    Update,
}

/// `pk.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PkMode {
    None,
    Kafka,
    RecordKey,
    RecordValue,
}

/// The default `pk.fields` of `pk.mode=kafka`.
pub const KAFKA_PK: [&str; 3] = ["__connect_topic", "__connect_partition", "__connect_offset"];
/// The default column of a primitive key with `pk.mode=record_key`.
pub const KEY_COLUMN: &str = "__connect_key";

/// Keys whose only supported value is what this connector always does.
const FIXED: [(&str, &str); 3] = [
    ("db.timezone", "UTC"),
    ("dialect.name", "PostgreSqlDatabaseDialect"),
    ("quote.sql.identifiers", "always"),
];

/// Kafka Connect JDBC sink keys this connector does not implement.
const UNSUPPORTED: [(&str, &str); 3] = [
    ("table.types", "postgres-sink writes tables only"),
    (
        "connection.attempts",
        "the host retries a failed put (a retriable error)",
    ),
    (
        "connection.backoff.ms",
        "the host retries a failed put (a retriable error)",
    ),
];

/// Keys read for compatibility that the host's retries replace: a warning
/// at start, not an error.
pub const HOST_RETRIES: [&str; 2] = ["max.retries", "retry.backoff.ms"];

/// The configuration definition (`describe`).
pub fn keys() -> Vec<ConfigKey> {
    let mut keys = copycat_pg_client::connection_keys();
    keys.extend([
        ConfigKey::string("insert.mode")
            .default_value("insert")
            .doc("insert | upsert (INSERT … ON CONFLICT DO UPDATE) | update")
            .importance(Importance::High),
        ConfigKey::string("pk.mode")
            .default_value("none")
            .doc("none | kafka (topic, partition, offset) | record_key | record_value")
            .importance(Importance::High),
        ConfigKey::list("pk.fields").doc("The primary key's columns (see pk.mode)"),
        ConfigKey::list("fields.whitelist").doc("Value fields to write (default: all)"),
        ConfigKey::boolean("auto.create")
            .default_value("false")
            .doc("CREATE TABLE from the record's schema when the table is missing"),
        ConfigKey::boolean("auto.evolve")
            .default_value("false")
            .doc("ALTER TABLE … ADD COLUMN for optional fields the table lacks"),
        ConfigKey::boolean("delete.enabled")
            .default_value("false")
            .doc("A tombstone (null value) deletes the row of its key (needs pk.mode=record_key)"),
        ConfigKey::string("table.name.format")
            .default_value("${topic}")
            .doc("The table of a record; ${topic} is its topic. May be schema.table"),
        ConfigKey::int("batch.size")
            .default_value("3000")
            .doc("Rows per database transaction at most"),
        ConfigKey::boolean("exactly.once").default_value("true").doc(
            "Commit each batch's rows with the consumed offsets in one transaction (offsets.table.name), and resume from those",
        ),
        ConfigKey::string("offsets.table.name")
            .default_value("copycat_sink_offsets")
            .doc("Where exactly.once keeps the consumed offsets, in the target database"),
        ConfigKey::int("max.retries").doc("Read for compatibility: the host retries (errors.retry.timeout)"),
        ConfigKey::int("retry.backoff.ms").doc("Read for compatibility: the host retries (errors.retry.timeout)"),
    ]);
    keys
}

/// A checked configuration.
#[derive(Debug, Clone)]
pub struct SinkConfig {
    pub connect: ConnectSettings,
    pub insert_mode: InsertMode,
    pub pk_mode: PkMode,
    pub pk_fields: Vec<String>,
    pub fields_whitelist: Vec<String>,
    pub auto_create: bool,
    pub auto_evolve: bool,
    pub delete_enabled: bool,
    pub table_format: String,
    pub batch_size: usize,
    pub exactly_once: bool,
    pub offsets_table: String,
    /// The connector's name: the offsets table's key.
    pub connector: String,
}

fn flag(config: &Config, key: &str, default: bool, problems: &mut Vec<ConfigProblem>) -> bool {
    match config.get(key).map(|v| v.trim().to_ascii_lowercase()) {
        None => default,
        Some(v) if v.is_empty() => default,
        Some(v) if v == "true" => true,
        Some(v) if v == "false" => false,
        Some(v) => {
            problems.push(ConfigProblem::new(key, format!("'{v}' is not true or false")));
            default
        }
    }
}

impl SinkConfig {
    /// The checked configuration, or every problem found.
    pub fn parse(config: &Config) -> Result<Self, Vec<ConfigProblem>> {
        let mut problems = Vec::new();
        let connect = match from_keys(|k| config.get(k)) {
            Ok(c) => Some(c),
            Err((key, message)) => {
                problems.push(ConfigProblem::new(key, message));
                None
            }
        };
        let insert_mode = match config.get("insert.mode").map(str::trim) {
            None | Some("") | Some("insert") => InsertMode::Insert,
            Some("upsert") => InsertMode::Upsert,
            Some("update") => InsertMode::Update,
            Some(other) => {
                problems.push(ConfigProblem::new(
                    "insert.mode",
                    format!("'{other}' is not one of insert, upsert, update"),
                ));
                InsertMode::Insert
            }
        };
        let pk_mode = match config.get("pk.mode").map(str::trim) {
            None | Some("") | Some("none") => PkMode::None,
            Some("kafka") => PkMode::Kafka,
            Some("record_key") => PkMode::RecordKey,
            Some("record_value") => PkMode::RecordValue,
            Some(other) => {
                problems.push(ConfigProblem::new(
                    "pk.mode",
                    format!("'{other}' is not one of none, kafka, record_key, record_value"),
                ));
                PkMode::None
            }
        };
        let pk_fields = config.get_list("pk.fields");
        if pk_mode == PkMode::None && !pk_fields.is_empty() {
            problems.push(ConfigProblem::new("pk.fields", "pk.mode=none takes no pk.fields"));
        }
        if pk_mode == PkMode::Kafka && !pk_fields.is_empty() && pk_fields.len() != 3 {
            problems.push(ConfigProblem::new(
                "pk.fields",
                "pk.mode=kafka takes three names (topic, partition, offset columns) or none for the defaults",
            ));
        }
        if insert_mode != InsertMode::Insert && pk_mode == PkMode::None {
            problems.push(ConfigProblem::new(
                "pk.mode",
                "insert.mode=upsert and update need a primary key: set pk.mode",
            ));
        }
        let delete_enabled = flag(config, "delete.enabled", false, &mut problems);
        if delete_enabled && pk_mode != PkMode::RecordKey {
            problems.push(ConfigProblem::new(
                "delete.enabled",
                "deletes need the record key as the primary key: set pk.mode=record_key",
            ));
        }
        let auto_create = flag(config, "auto.create", false, &mut problems);
        let auto_evolve = flag(config, "auto.evolve", false, &mut problems);
        let exactly_once = flag(config, "exactly.once", true, &mut problems);
        let table_format = config
            .get("table.name.format")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("${topic}")
            .to_owned();
        let batch_size = match config.get("batch.size").map(str::trim) {
            None | Some("") => 3000,
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    problems.push(ConfigProblem::new(
                        "batch.size",
                        format!("'{v}' is not a number of rows (1 or more)"),
                    ));
                    3000
                }
            },
        };
        let offsets_table = config
            .get("offsets.table.name")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("copycat_sink_offsets")
            .to_owned();
        for (key, instead) in UNSUPPORTED {
            if config.get(key).is_some() {
                problems.push(ConfigProblem::new(
                    key,
                    format!("is not supported by postgres-sink: {instead}"),
                ));
            }
        }
        for (key, only) in FIXED {
            if let Some(v) = config.get(key)
                && v.trim() != only
            {
                problems.push(ConfigProblem::new(
                    key,
                    format!("postgres-sink supports only {key}={only}, got '{v}'"),
                ));
            }
        }
        let connector = config.get("name").unwrap_or_default().to_owned();
        match (problems.is_empty(), connect) {
            (true, Some(connect)) => Ok(Self {
                connect,
                insert_mode,
                pk_mode,
                pk_fields,
                fields_whitelist: config.get_list("fields.whitelist"),
                auto_create,
                auto_evolve,
                delete_enabled,
                table_format,
                batch_size,
                exactly_once,
                offsets_table,
                connector,
            }),
            _ => Err(problems),
        }
    }

    /// The table of a record read from `topic`.
    pub fn table(&self, topic: &str) -> String {
        self.table_format.replace("${topic}", topic)
    }
}
