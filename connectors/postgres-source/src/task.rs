//! A task: its tables (or the one query) read in turn, each run one
//! REPEATABLE READ snapshot read through a portal `batch.max.rows` at a
//! time, so a large table never sits in memory and a poll returns quickly.
//!
//! Offsets: `{"incrementing": id}` and/or `{"timestamp": ms,
//! "timestamp_nanos": ns}` (Kafka Connect's JDBC source names), the
//! position of the last row returned; a restart reads after it. Source
//! partitions: `{"table": "schema.name"}` or `{"query": "…"}`.

use copycat_pg_client::types::{self as oid, PG_EPOCH_UNIX_MICROS};
use copycat_pg_client::{Client, Param, PgError, Statement};
use copycat_sdk::v0_3::{Config, Error, OffsetMap, PayloadRef, RecordRef, SourceBatch, SourceTask, Value, clock, log};
use postgres_protocol::escape::escape_identifier;
use postgres_protocol::types as pg;

use crate::columns::RowShape;
use crate::config::{Mode, SourceConfig};
use crate::tables::{self, TableName};

const PORTAL: &str = "copycat";

/// What a stream reads.
#[derive(Debug, Clone)]
enum Target {
    Table(TableName),
    Query(String),
}

impl Target {
    fn describe(&self) -> String {
        match self {
            Self::Table(t) => format!("table {}", t.qualified()),
            Self::Query(_) => "the query".to_owned(),
        }
    }

    /// `SELECT * FROM …` of this target.
    fn relation(&self) -> String {
        match self {
            Self::Table(t) => t.sql(),
            Self::Query(q) => format!("({q}) AS copycat_query"),
        }
    }
}

/// The last row returned: what the next query reads after.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Position {
    incrementing: Option<i64>,
    /// Microseconds since the Unix epoch.
    timestamp_micros: Option<i64>,
}

impl Position {
    fn from_offset(o: &OffsetMap) -> Self {
        let timestamp_micros = o.get_i64("timestamp").map(|ms| {
            let nanos = o.get_i64("timestamp_nanos").unwrap_or(ms.rem_euclid(1000) * 1_000_000);
            ms.div_euclid(1000) * 1_000_000 + nanos / 1000
        });
        Self {
            incrementing: o.get_i64("incrementing"),
            timestamp_micros,
        }
    }

    fn to_offset(self, run_ms: i64) -> OffsetMap {
        let mut o = OffsetMap::new();
        if let Some(i) = self.incrementing {
            o.insert("incrementing", i);
        }
        if let Some(us) = self.timestamp_micros {
            o.insert("timestamp", us.div_euclid(1000));
            o.insert("timestamp_nanos", us.rem_euclid(1_000_000) * 1000);
        }
        if o.is_empty() {
            // Bulk mode keeps no position; the offset notes the run.
            o.insert("run", run_ms);
        }
        o
    }
}

/// A prepared read of one stream on the current connection.
#[derive(Debug)]
struct Prepared {
    statement: Statement,
    shape: RowShape,
    incrementing: Option<usize>,
    timestamps: Vec<usize>,
}

#[derive(Debug)]
struct Stream {
    target: Target,
    partition: OffsetMap,
    topic: String,
    position: Position,
    next_run_ms: i64,
    run_ms: i64,
    prepared: Option<Prepared>,
}

/// A postgres-source task.
pub struct PostgresSourceTask {
    config: SourceConfig,
    client: Option<Client>,
    streams: Vec<Stream>,
    /// The stream whose portal is open.
    current: Option<usize>,
    /// Where the round-robin looks next.
    next: usize,
}

impl std::fmt::Debug for PostgresSourceTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresSourceTask")
            .field("streams", &self.streams.len())
            .finish()
    }
}

/// A database error as the host wants it: transient ones retriable,
/// others fatal, both naming what was being done.
fn failed(what: &str, e: PgError) -> Error {
    crate::pg_error(what, e)
}

impl PostgresSourceTask {
    fn connection(&mut self) -> Result<&mut Client, Error> {
        if self.client.as_ref().is_some_and(Client::is_broken) {
            self.drop_connection();
        }
        if self.client.is_none() {
            let client = Client::connect(&self.config.connect).map_err(|e| failed("connect", e))?;
            self.client = Some(client);
        }
        self.client
            .as_mut()
            .ok_or_else(|| Error::retriable("no connection to PostgreSQL"))
    }

    /// Forgets the connection and everything prepared on it; an open run
    /// starts again from the last row returned.
    fn drop_connection(&mut self) {
        self.client = None;
        self.current = None;
        for s in &mut self.streams {
            s.prepared = None;
        }
    }

    /// The column of `name` in `shape`, checked to be of the right kind.
    fn column(
        shape_columns: &[copycat_pg_client::Column],
        name: &str,
        key: &str,
        allowed: &[u32],
        what: &str,
        target: &Target,
    ) -> Result<usize, Error> {
        let i = shape_columns
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| Error::config(format!("{key}: {} has no column '{name}'", target.describe())))?;
        if !allowed.contains(&shape_columns[i].type_oid) {
            return Err(Error::config(format!(
                "{key}: column '{name}' of {} is not {what} (type oid {})",
                target.describe(),
                shape_columns[i].type_oid
            )));
        }
        Ok(i)
    }

    fn prepare(client: &mut Client, config: &SourceConfig, target: &Target) -> Result<Prepared, Error> {
        let from = target.relation();
        let probe = client
            .prepare(&format!("SELECT * FROM {from}"), &[])
            .map_err(|e| failed(&format!("read {}", target.describe()), e))?;
        let columns = probe.columns.clone();
        let not_null = not_null(client, &columns).map_err(|e| failed("read column nullability", e))?;
        let incrementing = match &config.incrementing_column {
            Some(c) if config.mode.incrementing() => Some(Self::column(
                &columns,
                c,
                "incrementing.column.name",
                &[oid::INT2, oid::INT4, oid::INT8],
                "an integer (smallint, integer, bigint)",
                target,
            )?),
            _ => None,
        };
        let mut timestamps = Vec::new();
        if config.mode.timestamp() {
            for c in &config.timestamp_columns {
                timestamps.push(Self::column(
                    &columns,
                    c,
                    "timestamp.column.name",
                    &[oid::TIMESTAMP, oid::TIMESTAMPTZ],
                    "a timestamp",
                    target,
                )?);
            }
        }
        let ts_type = timestamps.first().map_or(oid::TIMESTAMP, |&i| columns[i].type_oid);
        let ts_expr = match config.timestamp_columns.as_slice() {
            [one] => escape_identifier(one),
            many => format!(
                "COALESCE({})",
                many.iter().map(|c| escape_identifier(c)).collect::<Vec<_>>().join(", ")
            ),
        };
        let inc = config
            .incrementing_column
            .as_deref()
            .map(escape_identifier)
            .unwrap_or_default();
        let upper = format!("{ts_expr} < now() - ($2 * interval '1 millisecond')");
        let (sql, types): (String, Vec<u32>) = match config.mode {
            Mode::Bulk => (format!("SELECT * FROM {from}"), vec![]),
            Mode::Incrementing => (
                format!("SELECT * FROM {from} WHERE {inc} > $1 ORDER BY {inc} ASC"),
                vec![oid::INT8],
            ),
            Mode::Timestamp => (
                format!("SELECT * FROM {from} WHERE {ts_expr} > $1 AND {upper} ORDER BY {ts_expr} ASC"),
                vec![ts_type, oid::INT8],
            ),
            Mode::TimestampIncrementing => (
                format!(
                    "SELECT * FROM {from} WHERE {upper} AND (({ts_expr} = $1 AND {inc} > $3) OR {ts_expr} > $1) \
                     ORDER BY {ts_expr} ASC, {inc} ASC"
                ),
                vec![ts_type, oid::INT8, oid::INT8],
            ),
        };
        let statement = client
            .prepare(&sql, &types)
            .map_err(|e| failed(&format!("prepare the read of {}", target.describe()), e))?;
        let name = match target {
            Target::Table(t) => t.name.clone(),
            Target::Query(_) => "QueryResult".to_owned(),
        };
        let shape = RowShape::new(&name, &statement.columns, &not_null, config.numeric_mapping)
            .map_err(|e| Error::fatal(format!("{}: {e}", target.describe())))?;
        Ok(Prepared {
            statement,
            shape,
            incrementing,
            timestamps,
        })
    }

    /// Starts a run of stream `i`: a snapshot, the statement bound to the
    /// portal with the stream's position.
    fn begin(&mut self, i: usize) -> Result<(), Error> {
        let config = self.config.clone();
        self.connection()?;
        let (client, stream) = match (self.client.as_mut(), self.streams.get_mut(i)) {
            (Some(c), Some(s)) => (c, s),
            _ => return Err(Error::retriable("no connection to PostgreSQL")),
        };
        if stream.prepared.is_none() {
            stream.prepared = Some(Self::prepare(client, &config, &stream.target)?);
        }
        let Some(prepared) = stream.prepared.as_ref() else {
            return Err(Error::fatal("statement not prepared"));
        };
        client
            .batch_execute("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .map_err(|e| failed("begin a snapshot", e))?;
        let mut params = Vec::new();
        if config.mode.timestamp() {
            let since = stream
                .position
                .timestamp_micros
                .map_or(i64::MIN, |us| us - PG_EPOCH_UNIX_MICROS);
            params.push(binary(|b| pg::timestamp_to_sql(since, b)));
            params.push(binary(|b| pg::int8_to_sql(config.timestamp_delay_ms, b)));
        }
        if config.mode.incrementing() {
            let after = stream.position.incrementing.unwrap_or(i64::MIN);
            let p = binary(|b| pg::int8_to_sql(after, b));
            if config.mode == Mode::TimestampIncrementing {
                params.push(p);
            } else {
                params.insert(0, p);
            }
        }
        let formats = prepared.shape.formats();
        if let Err(e) = client.open_portal(PORTAL, &prepared.statement, &params, &formats) {
            let _ = client.batch_execute("ROLLBACK");
            // A statement prepared before a table changed is prepared again.
            stream.prepared = None;
            return Err(failed(&format!("read {}", stream.target.describe()), e));
        }
        stream.run_ms = clock::now_ms();
        self.current = Some(i);
        Ok(())
    }

    /// The stream due next (round-robin), if any is.
    fn due(&mut self) -> Option<usize> {
        let now = clock::now_ms();
        let n = self.streams.len();
        (0..n)
            .map(|k| (self.next + k) % n)
            .find(|&i| self.streams[i].next_run_ms <= now)
    }

    fn fill(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        if self.current.is_none() {
            let Some(i) = self.due() else { return Ok(()) };
            self.next = (i + 1) % self.streams.len().max(1);
            self.begin(i)?;
        }
        let Some(i) = self.current else { return Ok(()) };
        let max = max_records.min(self.config.batch_max_rows).max(1);
        let client = self.client.as_mut().ok_or_else(|| Error::retriable("no connection"))?;
        let (rows, more) = client
            .fetch(PORTAL, i32::try_from(max).unwrap_or(i32::MAX))
            .map_err(|e| failed("read rows", e))?;
        let Some(stream) = self.streams.get_mut(i) else {
            return Ok(());
        };
        let Some(prepared) = stream.prepared.as_ref() else {
            return Err(Error::fatal("statement not prepared"));
        };
        let mut position = stream.position;
        for row in &rows {
            let value = prepared
                .shape
                .value(row)
                .map_err(|e| Error::fatal(format!("{} row after {:?}: {e}", stream.target.describe(), position)))?;
            if let (Some(k), Value::Struct(s)) = (prepared.incrementing, &value)
                && let Some(v) = s.values().get(k)
            {
                position.incrementing = match v {
                    Value::Int16(n) => Some(i64::from(*n)),
                    Value::Int32(n) => Some(i64::from(*n)),
                    Value::Int64(n) => Some(*n),
                    _ => position.incrementing,
                };
            }
            if !prepared.timestamps.is_empty() {
                // COALESCE: the first non-null of the columns, in microseconds.
                if let Some(us) = prepared
                    .timestamps
                    .iter()
                    .find_map(|&k| row.get(k))
                    .and_then(|raw| pg::timestamp_from_sql(raw).ok())
                {
                    position.timestamp_micros = Some(us.saturating_add(PG_EPOCH_UNIX_MICROS));
                }
            }
            batch.push_ref(RecordRef {
                topic: Some(&stream.topic),
                value: PayloadRef::Typed(&prepared.shape.schema, &value),
                ..RecordRef::default()
            })?;
        }
        if !rows.is_empty() {
            batch.advance(&stream.partition, &position.to_offset(stream.run_ms))?;
            stream.position = position;
        }
        if !more {
            client
                .batch_execute("COMMIT")
                .map_err(|e| failed("end the snapshot", e))?;
            stream.next_run_ms = clock::now_ms() + self.config.poll_interval_ms;
            self.current = None;
        }
        Ok(())
    }
}

fn binary(write: impl FnOnce(&mut bytes::BytesMut)) -> Param {
    let mut b = bytes::BytesMut::new();
    write(&mut b);
    Param::Binary(b.to_vec())
}

/// Whether each column is NOT NULL in its table (false for computed ones).
fn not_null(client: &mut Client, columns: &[copycat_pg_client::Column]) -> Result<Vec<bool>, PgError> {
    let mut tables: Vec<u32> = columns.iter().map(|c| c.table_oid).filter(|&t| t != 0).collect();
    tables.sort_unstable();
    tables.dedup();
    let mut known = std::collections::HashSet::new();
    for t in tables {
        let rows = client.simple_query(&format!(
            "SELECT attnum FROM pg_catalog.pg_attribute WHERE attrelid = {t} AND attnum > 0 AND attnotnull"
        ))?;
        for r in rows {
            if let Some(Some(n)) = r.first()
                && let Ok(n) = n.parse::<i16>()
            {
                known.insert((t, n));
            }
        }
    }
    Ok(columns
        .iter()
        .map(|c| known.contains(&(c.table_oid, c.column_id)))
        .collect())
}

impl SourceTask for PostgresSourceTask {
    fn start(config: Config) -> Result<Self, Error> {
        let parsed = SourceConfig::parse(&config).map_err(|p| Error::config(crate::config::joined(&p)))?;
        let targets: Vec<Target> = match &parsed.query {
            Some(q) => vec![Target::Query(q.clone())],
            None => tables::of_task(&config)?.into_iter().map(Target::Table).collect(),
        };
        let initial_ts = match parsed.timestamp_initial {
            Some(-1) => Some(clock::now_ms().saturating_mul(1000)),
            Some(ms) => Some(ms.saturating_mul(1000)),
            None => None,
        };
        let mut streams: Vec<Stream> = targets
            .into_iter()
            .map(|target| {
                let (partition, topic) = match &target {
                    Target::Table(t) => (
                        OffsetMap::new().with("table", t.qualified()),
                        format!("{}{}", parsed.topic_prefix, t.name),
                    ),
                    Target::Query(q) => (OffsetMap::new().with("query", q.clone()), parsed.topic_prefix.clone()),
                };
                Stream {
                    target,
                    partition,
                    topic,
                    position: Position {
                        incrementing: None,
                        timestamp_micros: initial_ts,
                    },
                    next_run_ms: 0,
                    run_ms: 0,
                    prepared: None,
                }
            })
            .collect();
        let partitions: Vec<&OffsetMap> = streams.iter().map(|s| &s.partition).collect();
        let committed = Self::read_offsets(&partitions)?;
        for s in &mut streams {
            if let Some(o) = committed.get(&s.partition) {
                s.position = Position::from_offset(o);
            }
        }
        log::info(format!(
            "reading {} in mode {} ({} resumed from committed offsets)",
            streams
                .iter()
                .map(|s| s.target.describe())
                .collect::<Vec<_>>()
                .join(", "),
            crate::config::mode_name(parsed.mode),
            committed.len()
        ));
        Ok(Self {
            config: parsed,
            client: None,
            streams,
            current: None,
            next: 0,
        })
    }

    fn poll_batch(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        if self.streams.is_empty() {
            return Ok(());
        }
        let result = self.fill(max_records, batch);
        if let Err(e) = &result
            && e.is_retriable()
        {
            // The snapshot is gone with the connection; rows already in
            // `batch` keep their offsets, the next run reads after them.
            log::warn(format!("{}; reconnecting", e.message()));
            self.drop_connection();
            if !batch.is_empty() {
                return Ok(());
            }
        }
        result
    }

    fn stop(&mut self) {
        if let Some(c) = self.client.take() {
            c.close();
        }
    }
}
