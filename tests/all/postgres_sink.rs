//! postgres-sink against a real PostgreSQL 15: upserts, updates and
//! deletes by key, typed columns, `auto.create` / `auto.evolve`,
//! exactly-once (it resumes from the offsets committed with its rows,
//! whatever the consumer group says), refused rows to the dead letter
//! queue, per-key validation and the sandbox.

use std::time::Duration;

use copycat_runtime::worker::offsets as offsets_admin;
use copycat_tests::*;
use serde_json::{Value, json};

use crate::postgres_source::{PASSWORD, USER, address, db, failure, jdbc_url, problems, schema};

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";

/// A JsonConverter envelope of a struct `{id: int64, name: string (optional), ...extra}`.
fn envelope(fields: &[(&str, &str, bool)], payload: Value) -> String {
    let fields: Vec<Value> = fields
        .iter()
        .map(|(name, ty, optional)| json!({"field": name, "type": ty, "optional": optional}))
        .collect();
    json!({"schema": {"type": "struct", "name": "row", "fields": fields, "optional": false}, "payload": payload})
        .to_string()
}

fn key(id: i64) -> String {
    json!({"schema": {"type": "int64", "optional": false}, "payload": id}).to_string()
}

fn sink(name: &str, topic: &str, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = [
        ("name", name),
        ("connector.class", "postgres-sink"),
        ("topics", topic),
        ("connection.url", &jdbc_url()),
        ("connection.user", USER),
        ("connection.password", PASSWORD),
        ("grants.net.connect", address()),
        ("key.converter", JSON),
        ("value.converter", JSON),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    keys.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    keys
}

fn start(worker: &copycat_runtime::Worker, keys: &[(String, String)]) {
    let refs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    worker.start_connector(connector(worker, &refs)).unwrap();
}

/// `sql`'s rows, each as its columns' text.
fn rows(sql: &str) -> Vec<Vec<Option<String>>> {
    try_rows(sql).unwrap()
}

/// `sql`'s rows, or the error (a table or column not there yet).
fn try_rows(sql: &str) -> Result<Vec<Vec<Option<String>>>, ::postgres::Error> {
    Ok(db()
        .simple_query(sql)?
        .into_iter()
        .filter_map(|m| match m {
            ::postgres::SimpleQueryMessage::Row(r) => Some((0..r.len()).map(|i| r.get(i).map(str::to_owned)).collect()),
            _ => None,
        })
        .collect())
}

/// The table's row count; -1 while it does not exist.
fn count(table: &str) -> i64 {
    match db().query_one(&format!("SELECT count(*) FROM {table}"), &[]) {
        Ok(row) => row.get(0),
        Err(e) if e.code() == Some(&::postgres::error::SqlState::UNDEFINED_TABLE) => -1,
        Err(e) => panic!("{e}"),
    }
}

const ROW: [(&str, &str, bool); 2] = [("id", "int64", false), ("name", "string", true)];

#[test]
fn upserts_and_deletes_by_key_into_a_table_it_creates() {
    let s = schema("pgsinkup");
    let topic = unique("pg-up");
    block_on(create_topic(&topic, 1));
    let table = format!("{s}.people");
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-up");
    start(
        &worker,
        &sink(
            &name,
            &topic,
            &[
                ("insert.mode", "upsert"),
                ("pk.mode", "record_key"),
                ("pk.fields", "id"),
                ("delete.enabled", "true"),
                ("auto.create", "true"),
                ("table.name.format", &table),
            ],
        ),
    );
    let mut records = Vec::new();
    for id in 0..50 {
        records.push((key(id), envelope(&ROW[1..], json!({"name": format!("p{id}")}))));
    }
    records.push((key(3), envelope(&ROW[1..], json!({"name": "changed"}))));
    produce(&topic, Some(0), &records);
    produce_tombstone(&topic, &key(4));
    eventually("49 rows, 3 changed", Duration::from_secs(60), || {
        (count(&table) == 49
            && try_rows(&format!("SELECT name FROM {table} WHERE id = 3")).ok()?[0][0].as_deref() == Some("changed"))
        .then_some(())
    });
    worker.shutdown();
    assert!(
        rows(&format!("SELECT * FROM {table} WHERE id = 4")).is_empty(),
        "the tombstone deleted id 4"
    );
    // auto.create: the key column is the primary key, NOT NULL.
    let pk = rows(&format!(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) \
         WHERE i.indrelid = '{table}'::regclass AND i.indisprimary"
    ));
    assert_eq!(pk, vec![vec![Some("id".to_owned())]]);
}

/// A tombstone (null value) with `key`.
fn produce_tombstone(topic: &str, key: &str) {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let producer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    producer
        .send(BaseRecord::<str, str>::to(topic).key(key).partition(0))
        .unwrap();
    producer.flush(Duration::from_secs(10)).unwrap();
}

#[test]
fn typed_values_land_in_typed_columns() {
    let s = schema("pgsinktypes");
    let table = format!("{s}.kinds");
    db().batch_execute(&format!(
        "CREATE TABLE {table} (id bigint PRIMARY KEY, price numeric(10,2), day date, at timestamptz, at_time time,
            data bytea, flag boolean, ratio real, doc jsonb, note text)"
    ))
    .unwrap();
    let topic = unique("pg-types");
    block_on(create_topic(&topic, 1));
    let value = json!({
        "schema": {"type": "struct", "name": "kinds", "optional": false, "fields": [
            {"field": "id", "type": "int64", "optional": false},
            {"field": "price", "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": {"scale": "2"}, "optional": true},
            {"field": "day", "type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1, "optional": true},
            {"field": "at", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1, "optional": true},
            {"field": "at_time", "type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1, "optional": true},
            {"field": "data", "type": "bytes", "optional": true},
            {"field": "flag", "type": "boolean", "optional": true},
            {"field": "ratio", "type": "float", "optional": true},
            {"field": "doc", "type": "struct", "optional": true, "fields": [{"field": "a", "type": "array", "items": {"type": "int32"}, "optional": false}]},
            {"field": "note", "type": "string", "optional": true}
        ]},
        "payload": {"id": 1, "price": "AeI6", "day": 19782, "at": 1709212455678i64, "at_time": 47655678,
                    "data": "AP8Q", "flag": true, "ratio": 0.5, "doc": {"a": [1, 2]}, "note": "grüße"}
    });
    produce(&topic, Some(0), &[(key(1), value.to_string())]);
    let worker = start_worker(&unique("offsets"));
    start(
        &worker,
        &sink(&unique("pg-types"), &topic, &[("table.name.format", &table)]),
    );
    eventually("the row", Duration::from_secs(60), || {
        (count(&table) == 1).then_some(())
    });
    worker.shutdown();
    let row = rows(&format!(
        "SELECT price::text, day::text, at::text, at_time::text, encode(data, 'hex'), flag::text, ratio::text, doc::text, note FROM {table}"
    ));
    assert_eq!(
        row[0],
        [
            "1234.50",
            "2024-02-29",
            "2024-02-29 13:14:15.678+00",
            "13:14:15.678",
            "00ff10",
            "true",
            "0.5",
            "{\"a\": [1, 2]}",
            "grüße"
        ]
        .map(|s| Some(s.to_owned()))
    );
}

#[test]
fn exactly_once_resumes_from_the_offsets_in_the_database_whatever_the_group_says() {
    let s = schema("pgsinkeos");
    let table = format!("{s}.events");
    let topic = unique("pg-eos");
    block_on(create_topic(&topic, 2));
    let batch = |from: i64, to: i64| {
        for p in 0..2 {
            let records: Vec<(String, String)> = (from..to)
                .filter(|i| i % 2 == p)
                .map(|i| (key(i), envelope(&ROW, json!({"id": i, "name": format!("e{i}")}))))
                .collect();
            produce(&topic, Some(p as i32), &records);
        }
    };
    batch(0, 300);
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-eos");
    let keys = sink(
        &name,
        &topic,
        &[
            ("table.name.format", &table),
            ("auto.create", "true"),
            ("tasks.max", "2"),
        ],
    );
    start(&worker, &keys);
    eventually("300 rows", Duration::from_secs(60), || {
        (count(&table) == 300).then_some(())
    });
    worker.delete_connector(&name).unwrap();

    // Lose the group's offsets: the sink resumes from the database's.
    let refs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let cfg = connector(&worker, &refs);
    block_on(offsets_admin::reset(worker.config(), &cfg)).unwrap();
    batch(300, 450);
    worker.start_connector(cfg).unwrap();
    eventually("450 rows", Duration::from_secs(60), || {
        (count(&table) >= 450).then_some(())
    });
    worker.shutdown();
    let ids: Vec<i64> = rows(&format!("SELECT id FROM {table} ORDER BY id"))
        .into_iter()
        .map(|r| r[0].as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids, (0..450).collect::<Vec<_>>(), "every record once");
    let stored = rows(&format!(
        "SELECT kafka_partition, next_offset FROM copycat_sink_offsets WHERE connector = '{name}' ORDER BY 1"
    ));
    assert_eq!(
        stored,
        vec![
            vec![Some("0".to_owned()), Some("225".to_owned())],
            vec![Some("1".to_owned()), Some("225".to_owned())]
        ],
        "the offsets committed with the rows"
    );
}

#[test]
fn refused_rows_go_to_the_dead_letter_queue_and_the_rest_are_written_once() {
    let s = schema("pgsinkdlq");
    let table = format!("{s}.checked");
    db().batch_execute(&format!(
        "CREATE TABLE {table} (id bigint PRIMARY KEY CHECK (id % 10 <> 7), name text)"
    ))
    .unwrap();
    let topic = unique("pg-dlq");
    let dlq = unique("pg-dlq-dead");
    block_on(create_topic(&topic, 1));
    let records: Vec<(String, String)> = (0..40)
        .map(|i| (key(i), envelope(&ROW, json!({"id": i, "name": format!("n{i}")}))))
        .collect();
    produce(&topic, Some(0), &records);
    // And one without a schema at all.
    produce(
        &topic,
        Some(0),
        &[(key(99), r#"{"schema": null, "payload": {"id": 99}}"#.to_owned())],
    );
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-dlq");
    start(
        &worker,
        &sink(
            &name,
            &topic,
            &[
                ("table.name.format", &table),
                ("errors.tolerance", "all"),
                ("errors.deadletterqueue.topic.name", &dlq),
                ("errors.deadletterqueue.topic.replication.factor", "1"),
                ("errors.deadletterqueue.context.headers.enable", "true"),
            ],
        ),
    );
    let dead = eventually("5 records in the dead letter queue", Duration::from_secs(60), || {
        let d = read_topic(&dlq);
        (d.len() >= 5).then_some(d)
    });
    eventually("36 rows", Duration::from_secs(30), || {
        (count(&table) == 36).then_some(())
    });
    worker.shutdown();
    assert_eq!(dead.len(), 5, "7, 17, 27, 37 and the schemaless one");
    let reasons: Vec<String> = read_messages(&dlq, |m| {
        use rdkafka::message::{Headers, Message};
        m.headers()
            .and_then(|h| {
                h.iter()
                    .find(|h| h.key == "__connect.errors.exception.message")
                    .and_then(|h| h.value.map(|v| String::from_utf8_lossy(v).into_owned()))
            })
            .unwrap_or_default()
    });
    assert!(
        reasons.iter().filter(|r| r.contains("check constraint")).count() == 4,
        "{reasons:?}"
    );
    assert!(reasons.iter().any(|r| r.contains("has no schema")), "{reasons:?}");
    assert_eq!(count(&table), 36);
}

#[test]
fn auto_evolve_adds_optional_columns_and_refuses_required_ones() {
    let s = schema("pgsinkevolve");
    let table = format!("{s}.t");
    db().batch_execute(&format!("CREATE TABLE {table} (id bigint PRIMARY KEY)"))
        .unwrap();
    let topic = unique("pg-evolve");
    let dlq = unique("pg-evolve-dead");
    block_on(create_topic(&topic, 1));
    produce(
        &topic,
        Some(0),
        &[
            (key(1), envelope(&ROW, json!({"id": 1, "name": "added"}))),
            (
                key(2),
                envelope(
                    &[("id", "int64", false), ("must", "int32", false)],
                    json!({"id": 2, "must": 5}),
                ),
            ),
        ],
    );
    let worker = start_worker(&unique("offsets"));
    start(
        &worker,
        &sink(
            &unique("pg-evolve"),
            &topic,
            &[
                ("table.name.format", &table),
                ("auto.evolve", "true"),
                ("errors.tolerance", "all"),
                ("errors.deadletterqueue.topic.name", &dlq),
                ("errors.deadletterqueue.topic.replication.factor", "1"),
            ],
        ),
    );
    eventually("row 1 with its new column", Duration::from_secs(60), || {
        (try_rows(&format!("SELECT name FROM {table} WHERE id = 1")).ok()? == vec![vec![Some("added".to_owned())]])
            .then_some(())
    });
    eventually(
        "the required field's record in the dead letter queue",
        Duration::from_secs(30),
        || (read_topic(&dlq).len() == 1).then_some(()),
    );
    worker.shutdown();
    assert_eq!(count(&table), 1);
}

#[test]
fn bad_configs_name_their_keys_and_a_denied_grant_names_the_address() {
    let topic = unique("pg-bad");
    let base = sink(&unique("pg-bad"), &topic, &[]);
    let with = |k: &str, v: &str| {
        let mut keys: Vec<(String, String)> = base.iter().filter(|(key, _)| key != k).cloned().collect();
        keys.push((k.to_owned(), v.to_owned()));
        keys
    };
    for (keys, key, says) in [
        (with("insert.mode", "merge"), "insert.mode", "is not one of"),
        (with("insert.mode", "upsert"), "pk.mode", "need a primary key"),
        (with("delete.enabled", "true"), "delete.enabled", "pk.mode=record_key"),
        (with("pk.mode", "record_keys"), "pk.mode", "is not one of"),
        (with("batch.size", "0"), "batch.size", "1 or more"),
        (with("table.types", "VIEW"), "table.types", "not supported"),
        (
            with("db.timezone", "Europe/Paris"),
            "db.timezone",
            "only db.timezone=UTC",
        ),
    ] {
        let p = problems(&keys);
        assert!(p.contains(key) && p.contains(says), "expected {key}: {says}; got {p}");
    }
    block_on(create_topic(&topic, 1));
    let port: u16 = address().split_once(':').unwrap().1.parse().unwrap();
    for grant in [None, Some(format!("127.0.0.1:{}", port + 1))] {
        let mut keys: Vec<(String, String)> = sink(&unique("pg-deny"), &topic, &[])
            .into_iter()
            .filter(|(k, _)| k != "grants.net.connect")
            .collect();
        if let Some(g) = &grant {
            keys.push(("grants.net.connect".to_owned(), g.clone()));
        }
        // FAILED at once, not after the automatic restarts.
        keys.push(("task.restart.max.attempts".to_owned(), "0".to_owned()));
        let why = task_failure(&keys);
        assert!(
            why.contains(&format!("cannot connect to PostgreSQL at {}", address())),
            "grant {grant:?}: {why}"
        );
    }
    let _ = failure;
}

/// Starts `keys` and answers the first task's failure trace.
fn task_failure(keys: &[(String, String)]) -> String {
    let worker = start_worker(&unique("offsets"));
    let name = keys.iter().find(|(k, _)| k == "name").unwrap().1.clone();
    start(&worker, keys);
    let trace = eventually("the task FAILED", Duration::from_secs(60), || {
        task_states(&worker, &name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .and_then(|(_, trace)| trace)
    });
    worker.shutdown();
    trace
}
