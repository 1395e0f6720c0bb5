//! A task: each `put` becomes database transactions of at most
//! `batch.size` rows, and with `exactly.once` each transaction also moves
//! the consumed offsets in the offsets table, so rows and offsets commit
//! together (the design's recipe for exactly-once sinks).
//!
//! Invariants:
//! * A transaction first locks the offsets rows of its partitions
//!   (`FOR UPDATE`; `open` makes sure they exist) and drops any record
//!   below the stored next offset, so two tasks that briefly own the same
//!   partition (a rebalance, a zombie) cannot both write a record.
//! * Insert-mode rows go in with `COPY … FROM STDIN`; if the database
//!   refuses the copy, the transaction runs again with one pipelined
//!   `INSERT` per row, which names the refused row.
//! * A record the database refuses (a constraint, a type) is rolled back
//!   with its transaction, reported errant (the dead letter queue), and
//!   the transaction is run again without it; its offset still advances.
//! * A lost connection or a transient server error rolls back and answers
//!   `retriable`: the host redelivers the batch, and the offsets decide
//!   what is written again.

use std::collections::{BTreeMap, HashMap, HashSet};

use copycat_pg_client::{Client, Param, PgError, Statement};
use copycat_sdk::v0_3::{
    Config, Error, PayloadView, Schema, SinkBatch, SinkRecordRef, SinkTask, TopicPartition, TopicPartitionOffset, Type,
    Value, log,
};
use postgres_protocol::escape::escape_literal;

use crate::config::{HOST_RETRIES, InsertMode, KAFKA_PK, KEY_COLUMN, PkMode, SinkConfig};
use crate::sql;

/// What a row does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    Write,
    Delete,
}

/// One record as a statement and its parameters.
#[derive(Debug)]
struct RowOp {
    /// The record's index in the batch (for errant reports).
    index: usize,
    tp: (String, i32),
    offset: i64,
    table: String,
    op: Op,
    /// Column names in parameter order, and the key columns.
    columns: Vec<String>,
    pk: Vec<String>,
    /// Column schemas, for `auto.create` / `auto.evolve`.
    schemas: Vec<Schema>,
    params: Vec<Param>,
}

impl RowOp {
    fn sql(&self, mode: InsertMode) -> String {
        match (self.op, mode) {
            (Op::Delete, _) => sql::delete(&self.table, &self.pk),
            (Op::Write, InsertMode::Insert) => sql::insert(&self.table, &self.columns),
            (Op::Write, InsertMode::Upsert) => sql::upsert(&self.table, &self.columns, &self.pk),
            (Op::Write, InsertMode::Update) => {
                let non_pk: Vec<String> = self.columns.iter().filter(|c| !self.pk.contains(c)).cloned().collect();
                sql::update(&self.table, &non_pk, &self.pk)
            }
        }
    }
}

/// A postgres-sink task.
pub struct PostgresSinkTask {
    config: SinkConfig,
    client: Option<Client>,
    statements: HashMap<String, Statement>,
    /// Columns of the tables written so far (lower case not applied: names
    /// are quoted, so exact).
    tables: HashMap<String, HashSet<String>>,
    /// The next offset to write per partition, as committed.
    next: HashMap<(String, i32), i64>,
}

impl std::fmt::Debug for PostgresSinkTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresSinkTask").field("next", &self.next).finish()
    }
}

fn failed(what: &str, e: PgError) -> Error {
    crate::pg_error(what, e)
}

/// The fields of a struct payload, filtered by `fields.whitelist`.
fn struct_fields(
    view: &PayloadView<'_>,
    what: &str,
    whitelist: &[String],
) -> Result<Vec<(String, Schema, Value)>, String> {
    let schema = view
        .schema()
        .map_err(|e| e.message().to_owned())?
        .ok_or_else(|| format!("the {what} has no schema (postgres-sink needs a struct with a schema: use a converter that reads schemas, e.g. JsonConverter with schemas.enable=true, or AvroConverter)"))?
        .clone();
    if schema.ty() != Type::Struct {
        return Err(format!("the {what} is a {:?}, not a struct", schema.ty()));
    }
    let Value::Struct(s) = view.value().map_err(|e| e.message().to_owned())? else {
        return Err(format!("the {what} is null"));
    };
    Ok(schema
        .fields()
        .iter()
        .zip(s.values())
        .filter(|(f, _)| whitelist.is_empty() || whitelist.iter().any(|w| w == f.name()))
        .map(|(f, v)| (f.name().to_owned(), f.schema().clone(), v.clone()))
        .collect())
}

impl PostgresSinkTask {
    fn connection(&mut self) -> Result<&mut Client, Error> {
        if self.client.as_ref().is_some_and(Client::is_broken) {
            self.client = None;
        }
        if self.client.is_none() {
            self.statements.clear();
            let client = Client::connect(&self.config.connect).map_err(|e| failed("connect", e))?;
            self.client = Some(client);
        }
        self.client
            .as_mut()
            .ok_or_else(|| Error::retriable("no connection to PostgreSQL"))
    }

    fn offsets_table(&self) -> String {
        sql::quote_table(&self.config.offsets_table)
    }

    /// A record as a row operation; `Ok(None)` for a tombstone that is
    /// skipped (deletes not enabled).
    fn row(&self, record: &SinkRecordRef<'_>) -> Result<Option<RowOp>, String> {
        let table = self.config.table(record.topic);
        let mut columns = Vec::new();
        let mut schemas = Vec::new();
        let mut params = Vec::new();
        let mut pk = Vec::new();
        let mut push = |name: String, schema: Schema, value: &Value| -> Result<(), String> {
            params.push(sql::param(&schema, value).map_err(|e| format!("field {name}: {e}"))?);
            columns.push(name);
            schemas.push(schema);
            Ok(())
        };
        let tombstone = record.value.is_null();
        if tombstone && !self.config.delete_enabled {
            return Ok(None);
        }
        match self.config.pk_mode {
            PkMode::None => {}
            PkMode::Kafka => {
                let names: Vec<String> = if self.config.pk_fields.is_empty() {
                    KAFKA_PK.iter().map(|s| (*s).to_owned()).collect()
                } else {
                    self.config.pk_fields.clone()
                };
                push(
                    names[0].clone(),
                    Schema::string(),
                    &Value::String(record.topic.to_owned()),
                )?;
                push(names[1].clone(), Schema::int32(), &Value::Int32(record.partition))?;
                push(names[2].clone(), Schema::int64(), &Value::Int64(record.offset))?;
                pk = names;
            }
            PkMode::RecordKey => {
                if record.key.is_null() {
                    return Err("pk.mode=record_key, but the record has no key".to_owned());
                }
                let schema = record
                    .key
                    .schema()
                    .map_err(|e| e.message().to_owned())?
                    .ok_or("pk.mode=record_key, but the key has no schema")?
                    .clone();
                if schema.ty() == Type::Struct {
                    for (name, s, v) in struct_fields(&record.key, "key", &[])? {
                        if self.config.pk_fields.is_empty() || self.config.pk_fields.contains(&name) {
                            pk.push(name.clone());
                            push(name, s, &v)?;
                        }
                    }
                    if let Some(missing) = self.config.pk_fields.iter().find(|f| !pk.contains(f)) {
                        return Err(format!("pk.fields names '{missing}', which the key struct lacks"));
                    }
                } else {
                    let name = match self.config.pk_fields.as_slice() {
                        [] => KEY_COLUMN.to_owned(),
                        [one] => one.clone(),
                        _ => return Err("a primitive key fills one column: pk.fields must name one".to_owned()),
                    };
                    let value = record.key.value().map_err(|e| e.message().to_owned())?;
                    pk.push(name.clone());
                    push(name, schema, &value)?;
                }
            }
            PkMode::RecordValue => {}
        }
        if tombstone {
            return Ok(Some(RowOp {
                index: record.index(),
                tp: (record.topic.to_owned(), record.partition),
                offset: record.offset,
                table,
                op: Op::Delete,
                columns,
                pk,
                schemas,
                params,
            }));
        }
        let fields = struct_fields(&record.value, "value", &self.config.fields_whitelist)?;
        if self.config.pk_mode == PkMode::RecordValue {
            for (name, _, _) in &fields {
                if self.config.pk_fields.is_empty() || self.config.pk_fields.contains(name) {
                    pk.push(name.clone());
                }
            }
            if let Some(missing) = self.config.pk_fields.iter().find(|f| !pk.contains(f)) {
                return Err(format!("pk.fields names '{missing}', which the value struct lacks"));
            }
        }
        for (name, schema, value) in fields {
            if pk.contains(&name) && self.config.pk_mode != PkMode::RecordValue {
                continue; // the key's column wins
            }
            push(name, schema, &value)?;
        }
        if self.config.insert_mode == InsertMode::Update && columns.len() == pk.len() {
            return Err("insert.mode=update, but the record has no column besides the key".to_owned());
        }
        Ok(Some(RowOp {
            index: record.index(),
            tp: (record.topic.to_owned(), record.partition),
            offset: record.offset,
            table,
            op: Op::Write,
            columns,
            pk,
            schemas,
            params,
        }))
    }

    /// The table's columns, creating or evolving it as configured. DDL
    /// runs in its own transaction (idempotent: `IF NOT EXISTS`).
    fn ensure_table(&mut self, row: &RowOp) -> Result<(), String> {
        let auto_create = self.config.auto_create;
        let auto_evolve = self.config.auto_evolve;
        if !self.tables.contains_key(&row.table) {
            let client = self.connection().map_err(|e| e.message().to_owned())?;
            let columns = table_columns(client, &row.table).map_err(|e| e.to_string())?;
            match columns {
                Some(c) => {
                    self.tables.insert(row.table.clone(), c);
                }
                None if auto_create => {
                    let defs: Vec<String> = row
                        .columns
                        .iter()
                        .zip(&row.schemas)
                        .map(|(c, s)| {
                            let null = if s.is_optional() && !row.pk.contains(c) {
                                ""
                            } else {
                                " NOT NULL"
                            };
                            format!("{} {}{null}", sql::quote(c), sql::column_type(s))
                        })
                        .collect();
                    let pk = if row.pk.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ", PRIMARY KEY ({})",
                            row.pk.iter().map(|c| sql::quote(c)).collect::<Vec<_>>().join(", ")
                        )
                    };
                    let ddl = format!(
                        "CREATE TABLE IF NOT EXISTS {} ({}{pk})",
                        sql::quote_table(&row.table),
                        defs.join(", ")
                    );
                    log::info(format!("auto.create: {ddl}"));
                    client.batch_execute(&ddl).map_err(|e| e.to_string())?;
                    let created = table_columns(client, &row.table)
                        .map_err(|e| e.to_string())?
                        .unwrap_or_default();
                    self.tables.insert(row.table.clone(), created);
                }
                None => {
                    return Err(format!(
                        "table {} does not exist (create it, or set auto.create=true)",
                        row.table
                    ));
                }
            }
        }
        let known = self.tables.get(&row.table).cloned().unwrap_or_default();
        let missing: Vec<(&String, &Schema)> = row
            .columns
            .iter()
            .zip(&row.schemas)
            .filter(|(c, _)| !known.contains(*c))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if !auto_evolve {
            return Err(format!(
                "table {} has no column {} (add it, or set auto.evolve=true)",
                row.table,
                missing.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some((c, _)) = missing
            .iter()
            .find(|(_, s)| !s.is_optional() && s.default_value().is_none())
        {
            return Err(format!(
                "auto.evolve cannot add column {c} to {}: the field is required and has no default",
                row.table
            ));
        }
        let adds: Vec<String> = missing
            .iter()
            .map(|(c, s)| format!("ADD COLUMN IF NOT EXISTS {} {}", sql::quote(c), sql::column_type(s)))
            .collect();
        let ddl = format!("ALTER TABLE {} {}", sql::quote_table(&row.table), adds.join(", "));
        log::info(format!("auto.evolve: {ddl}"));
        let client = self.connection().map_err(|e| e.message().to_owned())?;
        client.batch_execute(&ddl).map_err(|e| e.to_string())?;
        let now = table_columns(client, &row.table)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        self.tables.insert(row.table.clone(), now);
        Ok(())
    }

    fn statement(&mut self, text: &str) -> Result<Statement, PgError> {
        if let Some(s) = self.statements.get(text) {
            return Ok(s.clone());
        }
        let client = self
            .client
            .as_mut()
            .ok_or_else(|| PgError::Protocol("no connection".to_owned()))?;
        let s = client.prepare(text, &[])?;
        self.statements.insert(text.to_owned(), s.clone());
        Ok(s)
    }

    /// One transaction: lock and read the offsets, write `rows` (those
    /// not yet written), move the offsets to `advance`. On a refused row,
    /// answers its position in `rows`.
    ///
    /// `copy`: insert-mode rows go in with `COPY … FROM STDIN` (one
    /// command per run of rows); a refused row then fails the command as a
    /// whole, without saying which row (the caller runs it again without).
    fn transaction(
        &mut self,
        rows: &[RowOp],
        advance: &BTreeMap<(String, i32), i64>,
        copy: bool,
    ) -> Result<(), TxError> {
        let connector = self.config.connector.clone();
        let exactly_once = self.config.exactly_once;
        let mode = self.config.insert_mode;
        let offsets = self.offsets_table();
        let client = self.connection().map_err(TxError::Other)?;
        // One round trip to begin (and lock), one to end: BEGIN and the
        // lock, the offsets and COMMIT, go as one simple query each.
        let mut stored: HashMap<(String, i32), i64> = HashMap::new();
        if !exactly_once || advance.is_empty() {
            client.batch_execute("BEGIN").map_err(|e| TxError::Db(None, e))?;
        } else {
            let cond: Vec<String> = advance
                .keys()
                .map(|(t, p)| format!("(topic = {} AND kafka_partition = {p})", escape_literal(t)))
                .collect();
            let rows = client
                .simple_query(&format!(
                    "BEGIN; SELECT topic, kafka_partition, next_offset FROM {offsets} WHERE connector = {} AND ({}) FOR UPDATE",
                    escape_literal(&connector),
                    cond.join(" OR ")
                ))
                .map_err(|e| TxError::Db(None, e))?;
            for r in rows {
                if let (Some(Some(t)), Some(Some(p)), Some(Some(n))) = (r.first(), r.get(1), r.get(2))
                    && let (Ok(p), Ok(n)) = (p.parse::<i32>(), n.parse::<i64>())
                {
                    stored.insert((t.clone(), p), n);
                }
            }
        }
        // Consecutive rows of one statement run as one pipeline.
        let mut i = 0;
        while i < rows.len() {
            let row = &rows[i];
            if stored.get(&row.tp).is_some_and(|&next| row.offset < next) {
                i += 1;
                continue;
            }
            let text = row.sql(mode);
            let mut j = i + 1;
            while j < rows.len()
                && rows[j].op == row.op
                && rows[j].table == row.table
                && rows[j].columns == row.columns
                && stored.get(&rows[j].tp).is_none_or(|&next| rows[j].offset >= next)
            {
                j += 1;
            }
            if copy && row.op == Op::Write && mode == InsertMode::Insert {
                let mut data = Vec::new();
                if rows[i..j].iter().all(|r| sql::copy_row(&r.params, &mut data)) {
                    let client = self
                        .client
                        .as_mut()
                        .ok_or(TxError::Other(Error::retriable("no connection")))?;
                    client
                        .copy_in(&sql::copy(&row.table, &row.columns), &data)
                        .map_err(|e| TxError::Db(None, e))?;
                    i = j;
                    continue;
                }
            }
            let statement = self.statement(&text).map_err(|e| TxError::Db(Some(i), e))?;
            let client = self
                .client
                .as_mut()
                .ok_or(TxError::Other(Error::retriable("no connection")))?;
            let affected = client
                .execute_pipeline(&statement, rows[i..j].iter().map(|r| r.params.as_slice()))
                .map_err(|e| TxError::Db(e.index.map(|k| i + k), e.error))?;
            if mode == InsertMode::Update && row.op == Op::Write && affected < (j - i) as u64 {
                log::debug(format!(
                    "insert.mode=update: {} of {} rows matched in {}",
                    affected,
                    j - i,
                    row.table
                ));
            }
            i = j;
        }
        let client = self
            .client
            .as_mut()
            .ok_or(TxError::Other(Error::retriable("no connection")))?;
        if exactly_once && !advance.is_empty() {
            let values: Vec<String> = advance
                .iter()
                .map(|((t, p), n)| format!("({}, {}, {p}, {n})", escape_literal(&connector), escape_literal(t)))
                .collect();
            client
                .batch_execute(&format!(
                    "INSERT INTO {offsets} (connector, topic, kafka_partition, next_offset) VALUES {} \
                     ON CONFLICT (connector, topic, kafka_partition) DO UPDATE SET next_offset = \
                     GREATEST({offsets}.next_offset, EXCLUDED.next_offset); COMMIT",
                    values.join(", ")
                ))
                .map_err(|e| TxError::Db(None, e))?;
        } else {
            client.batch_execute("COMMIT").map_err(|e| TxError::Db(None, e))?;
        }
        Ok(())
    }

    fn rollback(&mut self) {
        if let Some(c) = self.client.as_mut()
            && !c.is_broken()
        {
            let _ = c.batch_execute("ROLLBACK");
        }
    }
}

/// A failed transaction: a database error (with the refused row, if one
/// was), or an error already in the host's terms.
enum TxError {
    Db(Option<usize>, PgError),
    Other(Error),
}

/// A table's columns; `None` if there is no such table.
fn table_columns(client: &mut Client, table: &str) -> Result<Option<HashSet<String>>, PgError> {
    let quoted = sql::quote_table(table);
    let rows = client.simple_query(&format!(
        "SELECT to_regclass({0}) IS NOT NULL, (SELECT string_agg(attname, E'\\n') FROM pg_catalog.pg_attribute \
         WHERE attrelid = to_regclass({0}) AND attnum > 0 AND NOT attisdropped)",
        escape_literal(&quoted)
    ))?;
    let Some(row) = rows.first() else { return Ok(None) };
    if row.first().cloned().flatten().as_deref() != Some("t") {
        return Ok(None);
    }
    Ok(Some(
        row.get(1)
            .cloned()
            .flatten()
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect(),
    ))
}

fn report(record: &SinkRecordRef<'_>, why: &str) -> Result<(), Error> {
    record.report_errant(why).map_err(|e| {
        Error::fatal(format!(
            "the record at topic {} partition {} offset {}: {why}; and it could not be reported: {e}",
            record.topic, record.partition, record.offset
        ))
    })
}

impl SinkTask for PostgresSinkTask {
    fn start(config: Config) -> Result<Self, Error> {
        let parsed = SinkConfig::parse(&config).map_err(|p| {
            Error::config(
                p.iter()
                    .map(|p| format!("{}: {}", p.key, p.message))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        for key in HOST_RETRIES {
            if config.get(key).is_some() {
                log::warn(format!(
                    "{key} is not used: a failed write is retried by the host (errors.retry.timeout, errors.retry.delay.max.ms)"
                ));
            }
        }
        let mut task = Self {
            config: parsed,
            client: None,
            statements: HashMap::new(),
            tables: HashMap::new(),
            next: HashMap::new(),
        };
        if task.config.exactly_once {
            let offsets = task.offsets_table();
            task.connection()?
                .batch_execute(&format!(
                    "CREATE TABLE IF NOT EXISTS {offsets} (connector text NOT NULL, topic text NOT NULL, \
                     kafka_partition integer NOT NULL, next_offset bigint NOT NULL, \
                     PRIMARY KEY (connector, topic, kafka_partition))"
                ))
                .map_err(|e| failed("create the offsets table", e))?;
        } else {
            task.connection()?;
        }
        Ok(task)
    }

    fn open(&mut self, partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        if !self.config.exactly_once || partitions.is_empty() {
            return Ok(Vec::new());
        }
        let offsets = self.offsets_table();
        let connector = escape_literal(&self.config.connector);
        let values: Vec<String> = partitions
            .iter()
            .map(|tp| format!("({connector}, {}, {}, -1)", escape_literal(&tp.topic), tp.partition))
            .collect();
        let cond: Vec<String> = partitions
            .iter()
            .map(|tp| {
                format!(
                    "(topic = {} AND kafka_partition = {})",
                    escape_literal(&tp.topic),
                    tp.partition
                )
            })
            .collect();
        let client = self.connection()?;
        // Every partition gets its row, so a transaction always has one to lock.
        let rows = client
            .simple_query(&format!(
                "INSERT INTO {offsets} (connector, topic, kafka_partition, next_offset) VALUES {} ON CONFLICT DO NOTHING; \
                 SELECT topic, kafka_partition, next_offset FROM {offsets} WHERE connector = {connector} AND ({})",
                values.join(", "),
                cond.join(" OR ")
            ))
            .map_err(|e| failed("read the offsets table", e))?;
        let mut out = Vec::new();
        for r in rows {
            if let (Some(Some(t)), Some(Some(p)), Some(Some(n))) = (r.first(), r.get(1), r.get(2))
                && let (Ok(p), Ok(n)) = (p.parse::<i32>(), n.parse::<i64>())
                && n >= 0
            {
                self.next.insert((t.clone(), p), n);
                out.push(TopicPartitionOffset::new(t.clone(), p, n));
            }
        }
        log::info(format!(
            "resuming {} of {} partitions from the offsets in {}",
            out.len(),
            partitions.len(),
            self.config.offsets_table
        ));
        Ok(out)
    }

    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        let records: Vec<SinkRecordRef<'_>> = batch.iter().collect();
        let mut start = 0;
        while start < records.len() {
            let end = (start + self.config.batch_size).min(records.len());
            self.put_chunk(&records[start..end])?;
            start = end;
        }
        Ok(())
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        // Every put committed its own transaction.
        Ok(())
    }

    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        for tp in partitions {
            self.next.remove(&(tp.topic, tp.partition));
        }
        Ok(())
    }

    fn stop(&mut self) {
        if let Some(c) = self.client.take() {
            c.close();
        }
    }
}

impl PostgresSinkTask {
    fn put_chunk(&mut self, records: &[SinkRecordRef<'_>]) -> Result<(), Error> {
        let mut rows: Vec<RowOp> = Vec::with_capacity(records.len());
        let mut advance: BTreeMap<(String, i32), i64> = BTreeMap::new();
        let by_index: HashMap<usize, &SinkRecordRef<'_>> = records.iter().map(|r| (r.index(), r)).collect();
        for record in records {
            let tp = (record.topic.to_owned(), record.partition);
            if self.config.exactly_once && self.next.get(&tp).is_some_and(|&n| record.offset < n) {
                continue; // already written
            }
            let entry = advance.entry(tp).or_insert(record.offset + 1);
            *entry = (*entry).max(record.offset + 1);
            match self.row(record) {
                Ok(Some(row)) => rows.push(row),
                Ok(None) => {}
                Err(why) => report(record, &why)?,
            }
        }
        // Tables first (their own transactions), so a refused DDL is the
        // record's fault, not the batch's.
        let mut checked: HashSet<(String, Vec<String>)> = HashSet::new();
        let mut k = 0;
        while k < rows.len() {
            let key = (rows[k].table.clone(), rows[k].columns.clone());
            if !checked.contains(&key) {
                if let Err(why) = self.ensure_table(&rows[k]) {
                    if self.client.as_ref().is_some_and(Client::is_broken) {
                        return Err(Error::retriable(format!("PostgreSQL sink: {why}")));
                    }
                    let row = rows.remove(k);
                    match by_index.get(&row.index) {
                        Some(r) => report(r, &why)?,
                        None => return Err(Error::fatal(why)),
                    }
                    continue;
                }
                checked.insert(key);
            }
            k += 1;
        }
        if rows.is_empty() && (advance.is_empty() || !self.config.exactly_once) {
            return Ok(());
        }
        // COPY first (insert mode); when the database refuses it, the same
        // rows statement by statement, which names the refused row.
        let mut copy = self.config.insert_mode == InsertMode::Insert;
        loop {
            match self.transaction(&rows, &advance, copy) {
                Ok(()) => break,
                Err(TxError::Other(e)) => {
                    self.rollback();
                    return Err(e);
                }
                Err(TxError::Db(at, e)) => {
                    self.rollback();
                    if copy && at.is_none() && !e.is_transient() && e.code().is_some() {
                        copy = false;
                        continue;
                    }
                    let refused = at.filter(|_| !e.is_transient() && e.code().is_some());
                    match refused.and_then(|i| (i < rows.len()).then_some(i)) {
                        Some(i) => {
                            let row = rows.remove(i);
                            let why = format!("PostgreSQL refused the row for table {}: {e}", row.table);
                            match by_index.get(&row.index) {
                                Some(r) => report(r, &why)?,
                                None => return Err(Error::fatal(why)),
                            }
                            // A refused statement may have been a stale
                            // prepared one: the table is read again.
                            self.tables.remove(&row.table);
                        }
                        None => {
                            if self.client.as_ref().is_some_and(Client::is_broken) {
                                self.client = None;
                            }
                            return Err(failed("write the batch", e));
                        }
                    }
                }
            }
        }
        for (tp, n) in advance {
            self.next.insert(tp, n);
        }
        Ok(())
    }
}
