//! postgres-source's configuration: Kafka Connect's JDBC source key names
//! where they fit, each checked with an error naming the key.

use copycat_pg_client::{ConnectSettings, from_keys};
use copycat_sdk::v0_3::{Config, ConfigKey, ConfigProblem, Importance};

/// `mode`: how a table is read again at each poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The whole table every `poll.interval.ms`.
    Bulk,
    /// Rows with an `incrementing.column.name` above the last one seen.
    Incrementing,
    /// Rows with a `timestamp.column.name` after the last one seen.
    Timestamp,
    /// Both: rows after the last (timestamp, id) pair.
    TimestampIncrementing,
}

impl Mode {
    fn parse(s: &str) -> Result<Self, String> {
        Ok(match s.trim() {
            "bulk" => Self::Bulk,
            "incrementing" => Self::Incrementing,
            "timestamp" => Self::Timestamp,
            "timestamp+incrementing" => Self::TimestampIncrementing,
            other => {
                return Err(format!(
                    "'{other}' is not one of bulk, incrementing, timestamp, timestamp+incrementing"
                ));
            }
        })
    }

    pub fn incrementing(self) -> bool {
        matches!(self, Self::Incrementing | Self::TimestampIncrementing)
    }

    pub fn timestamp(self) -> bool {
        matches!(self, Self::Timestamp | Self::TimestampIncrementing)
    }
}

/// `numeric.mapping`, as Kafka Connect's JDBC source has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericMapping {
    /// `numeric(p,s)` as a Connect Decimal of scale `s`.
    None,
    /// `numeric(p,s)` as a Decimal too (there is no precision-only
    /// narrowing to do in PostgreSQL's types).
    PrecisionOnly,
    /// `numeric(p,0)` as INT8/16/32/64 when `p` fits, others FLOAT64.
    BestFit,
}

/// The table types `table.types` may name, with their `pg_class.relkind`.
const TABLE_TYPES: [(&str, char); 5] = [
    ("TABLE", 'r'),
    ("PARTITIONED TABLE", 'p'),
    ("VIEW", 'v'),
    ("MATERIALIZED VIEW", 'm'),
    ("FOREIGN TABLE", 'f'),
];

/// Kafka Connect JDBC source keys this connector does not implement,
/// with what to do instead: set, they are refused, not ignored.
const UNSUPPORTED: [(&str, &str); 8] = [
    ("schema.pattern", "name tables as schema.table in table.whitelist"),
    (
        "catalog.pattern",
        "a connection reads one database: set it in connection.url",
    ),
    ("query.suffix", "put the whole statement in query"),
    (
        "transaction.isolation.mode",
        "each poll reads one REPEATABLE READ snapshot",
    ),
    (
        "connection.attempts",
        "the host retries a failed poll (a retriable error)",
    ),
    (
        "connection.backoff.ms",
        "the host retries a failed poll (a retriable error)",
    ),
    (
        "validate.non.null",
        "nullability comes from the table's NOT NULL constraints",
    ),
    ("table.whitelist.regex", "list the tables in table.whitelist"),
];

/// Keys whose only supported value is what this connector always does.
const FIXED: [(&str, &str); 3] = [
    ("db.timezone", "UTC"),
    ("dialect.name", "PostgreSqlDatabaseDialect"),
    ("quote.sql.identifiers", "always"),
];

/// The configuration definition (`describe`).
pub fn keys() -> Vec<ConfigKey> {
    let mut keys = copycat_pg_client::connection_keys();
    keys.extend([
        ConfigKey::string("topic.prefix")
            .required()
            .doc("Records of table T go to <topic.prefix>T; with query, to topic.prefix itself")
            .importance(Importance::High),
        ConfigKey::string("mode")
            .required()
            .doc("bulk | incrementing | timestamp | timestamp+incrementing")
            .importance(Importance::High),
        ConfigKey::string("incrementing.column.name")
            .doc("A strictly increasing integer column (incrementing modes)"),
        ConfigKey::list("timestamp.column.name")
            .doc("Timestamp column(s) (timestamp modes); several are read as COALESCE(a, b, …)"),
        ConfigKey::long("timestamp.delay.interval.ms")
            .default_value("0")
            .doc("Rows newer than now minus this are left for a later poll, so transactions that commit late are not skipped"),
        ConfigKey::long("timestamp.initial")
            .doc("Timestamp (ms since the epoch) to start from when no offset is stored; -1: now. Default: the beginning"),
        ConfigKey::list("table.whitelist").doc("Tables to read (table or schema.table); default: all"),
        ConfigKey::list("table.blacklist").doc("Tables not to read"),
        ConfigKey::list("table.types")
            .default_value("TABLE")
            .doc("TABLE, PARTITIONED TABLE, VIEW, MATERIALIZED VIEW, FOREIGN TABLE"),
        ConfigKey::string("query").doc("Read the result of this SELECT instead of tables (one task)"),
        ConfigKey::long("poll.interval.ms")
            .default_value("5000")
            .doc("How often each table is queried for new rows"),
        ConfigKey::int("batch.max.rows")
            .default_value("100")
            .doc("Rows per poll at most"),
        ConfigKey::long("table.poll.interval.ms")
            .default_value("60000")
            .doc("How often the connector looks for new or dropped tables"),
        ConfigKey::string("numeric.mapping")
            .default_value("none")
            .doc("none | precision_only | best_fit: how NUMERIC columns map"),
    ]);
    keys
}

/// A checked configuration.
#[derive(Debug, Clone)]
pub struct SourceConfig {
    pub connect: ConnectSettings,
    pub topic_prefix: String,
    pub mode: Mode,
    pub incrementing_column: Option<String>,
    pub timestamp_columns: Vec<String>,
    pub timestamp_delay_ms: i64,
    /// `timestamp.initial`: `None` = from the beginning, `Some(-1)` = now.
    pub timestamp_initial: Option<i64>,
    pub whitelist: Vec<String>,
    pub blacklist: Vec<String>,
    pub relkinds: Vec<char>,
    pub query: Option<String>,
    pub poll_interval_ms: i64,
    pub batch_max_rows: u32,
    pub table_poll_interval_ms: i64,
    pub numeric_mapping: NumericMapping,
}

fn number(config: &Config, key: &str, default: i64, min: i64) -> Result<i64, ConfigProblem> {
    match config.get(key).map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => match v.parse::<i64>() {
            Ok(n) if n >= min => Ok(n),
            Ok(n) => Err(ConfigProblem::new(key, format!("must be at least {min}, got {n}"))),
            Err(_) => Err(ConfigProblem::new(key, format!("'{v}' is not a whole number"))),
        },
    }
}

impl SourceConfig {
    /// Every problem, one per key at fault.
    pub fn problems(config: &Config) -> Vec<ConfigProblem> {
        match Self::parse(config) {
            Ok(_) => Vec::new(),
            Err(problems) => problems,
        }
    }

    /// The checked configuration, or every problem found.
    pub fn parse(config: &Config) -> Result<Self, Vec<ConfigProblem>> {
        let mut problems = Vec::new();
        let mut check = |r: Result<i64, ConfigProblem>| match r {
            Ok(n) => n,
            Err(p) => {
                problems.push(p);
                0
            }
        };
        let timestamp_delay_ms = check(number(config, "timestamp.delay.interval.ms", 0, 0));
        let poll_interval_ms = check(number(config, "poll.interval.ms", 5000, 1));
        let batch_max_rows = check(number(config, "batch.max.rows", 100, 1).and_then(|n| {
            if n > i64::from(i32::MAX) {
                Err(ConfigProblem::new("batch.max.rows", format!("{n} is too large")))
            } else {
                Ok(n)
            }
        }));
        let table_poll_interval_ms = check(number(config, "table.poll.interval.ms", 60_000, 1));
        let timestamp_initial = match config.get("timestamp.initial").map(str::trim) {
            None | Some("") => None,
            Some(_) => Some(check(number(config, "timestamp.initial", 0, -1))),
        };
        let connect = match from_keys(|k| config.get(k)) {
            Ok(c) => Some(c),
            Err((key, message)) => {
                problems.push(ConfigProblem::new(key, message));
                None
            }
        };
        let mode = match config.get("mode") {
            None => {
                problems.push(ConfigProblem::new(
                    "mode",
                    "set mode to bulk, incrementing, timestamp or timestamp+incrementing",
                ));
                None
            }
            Some(m) => match Mode::parse(m) {
                Ok(m) => Some(m),
                Err(e) => {
                    problems.push(ConfigProblem::new("mode", e));
                    None
                }
            },
        };
        let incrementing_column = config
            .get("incrementing.column.name")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        let timestamp_columns = config.get_list("timestamp.column.name");
        if let Some(mode) = mode {
            if mode.incrementing() && incrementing_column.is_none() {
                problems.push(ConfigProblem::new(
                    "incrementing.column.name",
                    format!(
                        "mode={} needs the name of a strictly increasing integer column",
                        mode_name(mode)
                    ),
                ));
            }
            if mode.timestamp() && timestamp_columns.is_empty() {
                problems.push(ConfigProblem::new(
                    "timestamp.column.name",
                    format!("mode={} needs the name of a timestamp column", mode_name(mode)),
                ));
            }
            if !mode.incrementing() && incrementing_column.is_some() {
                problems.push(ConfigProblem::new(
                    "incrementing.column.name",
                    format!("is only read with an incrementing mode, not mode={}", mode_name(mode)),
                ));
            }
            if !mode.timestamp() && !timestamp_columns.is_empty() {
                problems.push(ConfigProblem::new(
                    "timestamp.column.name",
                    format!("is only read with a timestamp mode, not mode={}", mode_name(mode)),
                ));
            }
        }
        let whitelist = config.get_list("table.whitelist");
        let blacklist = config.get_list("table.blacklist");
        if !whitelist.is_empty() && !blacklist.is_empty() {
            problems.push(ConfigProblem::new(
                "table.blacklist",
                "set table.whitelist or table.blacklist, not both",
            ));
        }
        let query = config
            .get("query")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        if query.is_some() && !(whitelist.is_empty() && blacklist.is_empty()) {
            problems.push(ConfigProblem::new(
                "query",
                "a query reads no tables: remove table.whitelist / table.blacklist",
            ));
        }
        let mut relkinds = Vec::new();
        let types = config.get_list("table.types");
        for t in if types.is_empty() {
            vec!["TABLE".to_owned()]
        } else {
            types
        } {
            match TABLE_TYPES.iter().find(|(name, _)| name.eq_ignore_ascii_case(&t)) {
                Some((_, kind)) => relkinds.push(*kind),
                None => problems.push(ConfigProblem::new(
                    "table.types",
                    format!("'{t}' is not one of {}", TABLE_TYPES.map(|(n, _)| n).join(", ")),
                )),
            }
        }
        let numeric_mapping = match config.get("numeric.mapping").map(str::trim) {
            None | Some("") | Some("none") => NumericMapping::None,
            Some("precision_only") => NumericMapping::PrecisionOnly,
            Some("best_fit") => NumericMapping::BestFit,
            Some(other) => {
                problems.push(ConfigProblem::new(
                    "numeric.mapping",
                    format!("'{other}' is not one of none, precision_only, best_fit"),
                ));
                NumericMapping::None
            }
        };
        if config.get("topic.prefix").is_none() {
            problems.push(ConfigProblem::new(
                "topic.prefix",
                "set topic.prefix: table T's records go to <topic.prefix>T",
            ));
        }
        for (key, instead) in UNSUPPORTED {
            if config.get(key).is_some() {
                problems.push(ConfigProblem::new(
                    key,
                    format!("is not supported by postgres-source: {instead}"),
                ));
            }
        }
        for (key, only) in FIXED {
            if let Some(v) = config.get(key)
                && v.trim() != only
            {
                problems.push(ConfigProblem::new(
                    key,
                    format!("postgres-source supports only {key}={only}, got '{v}'"),
                ));
            }
        }
        match (problems.is_empty(), connect, mode) {
            (true, Some(connect), Some(mode)) => Ok(Self {
                connect,
                topic_prefix: config.get("topic.prefix").unwrap_or_default().to_owned(),
                mode,
                incrementing_column,
                timestamp_columns,
                timestamp_delay_ms,
                timestamp_initial,
                whitelist,
                blacklist,
                relkinds,
                query,
                poll_interval_ms,
                batch_max_rows: u32::try_from(batch_max_rows).unwrap_or(100),
                table_poll_interval_ms,
                numeric_mapping,
            }),
            _ => Err(problems),
        }
    }
}

pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Bulk => "bulk",
        Mode::Incrementing => "incrementing",
        Mode::Timestamp => "timestamp",
        Mode::TimestampIncrementing => "timestamp+incrementing",
    }
}

/// The problems as one config error message.
pub fn joined(problems: &[ConfigProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("{}: {}", p.key, p.message))
        .collect::<Vec<_>>()
        .join("; ")
}
