//! postgres-source against a real PostgreSQL 15 (`scripts/postgres.sh`,
//! started here if it is not running): typed records from every mapped
//! column type, each mode's resume after a restart, new tables picked up
//! by the dynamic instance, per-key validation, and the sandbox (no grant,
//! or a grant for another port, reaches nothing). Each test works in its
//! own schema.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use copycat_tests::*;
use serde_json::{Value, json};

pub(crate) const USER: &str = "copycat";
pub(crate) const PASSWORD: &str = "copycat-secret";

/// `host:port` of the test cluster, starting it first (a no-op when it
/// runs already, as in CI).
pub(crate) fn address() -> &'static str {
    static ADDRESS: OnceLock<String> = OnceLock::new();
    ADDRESS.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/postgres.sh");
        let out = Command::new(&script).arg("start").output().unwrap();
        assert!(
            out.status.success(),
            "scripts/postgres.sh start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&script).arg("url").output().unwrap();
        let url = String::from_utf8(out.stdout).unwrap();
        // postgresql://user:password@host:port/db
        let after_at = url.trim().rsplit_once('@').unwrap().1;
        after_at.split('/').next().unwrap().to_owned()
    })
}

/// The JDBC URL connectors are given.
pub(crate) fn jdbc_url() -> String {
    format!("jdbc:postgresql://{}/copycat", address())
}

/// A native client (rust-postgres) for setting up and checking.
pub(crate) fn db() -> ::postgres::Client {
    let (host, port) = address().split_once(':').unwrap();
    ::postgres::Config::new()
        .host(host)
        .port(port.parse().unwrap())
        .user(USER)
        .password(PASSWORD)
        .dbname("copycat")
        .connect(::postgres::NoTls)
        .unwrap()
}

/// A fresh schema for one test.
pub(crate) fn schema(prefix: &str) -> String {
    let s = unique(prefix).replace(['-', '.'], "_").to_lowercase();
    db().batch_execute(&format!("CREATE SCHEMA {s}")).unwrap();
    s
}

/// The connector keys every postgres-source test shares.
fn source(name: &str, schema: &str, tables: &str, mode: &[(&'static str, &'static str)]) -> Vec<(String, String)> {
    let mut keys = vec![
        ("name".to_owned(), name.to_owned()),
        ("connector.class".to_owned(), "postgres-source".to_owned()),
        ("connection.url".to_owned(), jdbc_url()),
        ("connection.user".to_owned(), USER.to_owned()),
        ("connection.password".to_owned(), PASSWORD.to_owned()),
        ("grants.net.connect".to_owned(), address().to_owned()),
        ("topic.prefix".to_owned(), format!("{schema}-")),
        (
            "table.whitelist".to_owned(),
            tables
                .split(',')
                .map(|t| format!("{schema}.{t}"))
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("poll.interval.ms".to_owned(), "200".to_owned()),
        // One topic per table, created as the tables are found (KIP-158).
        ("topic.creation.default.replication.factor".to_owned(), "1".to_owned()),
        ("topic.creation.default.partitions".to_owned(), "1".to_owned()),
        (
            "value.converter".to_owned(),
            "org.apache.kafka.connect.json.JsonConverter".to_owned(),
        ),
        ("value.converter.schemas.enable".to_owned(), "true".to_owned()),
    ];
    keys.extend(mode.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    keys
}

fn start(worker: &copycat_runtime::Worker, keys: &[(String, String)]) {
    let refs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    worker.start_connector(connector(worker, &refs)).unwrap();
}

/// The JSON envelopes (`{"schema":…,"payload":…}`) in `topic`.
fn envelopes(topic: &str) -> Vec<Value> {
    read_topic(topic)
        .into_iter()
        .filter_map(|r| r.value)
        .map(|v| serde_json::from_str(&v).unwrap())
        .collect()
}

fn wait_for(topic: &str, n: usize) -> Vec<Value> {
    eventually(&format!("{n} records in {topic}"), Duration::from_secs(60), || {
        let e = envelopes(topic);
        (e.len() >= n).then_some(e)
    })
}

#[test]
fn every_mapped_type_arrives_typed_with_the_tables_schema() {
    let s = schema("pgtypes");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.kinds (
            id bigserial PRIMARY KEY,
            flag boolean NOT NULL,
            small smallint, medium integer, big bigint,
            r real, d double precision,
            price numeric(10,2), loose numeric,
            name text NOT NULL, code varchar(8), letter char(2),
            data bytea, day date, at_time time, at timestamp, at_tz timestamptz,
            doc jsonb, u uuid, tags text[], counts int4[]
        );
        INSERT INTO {s}.kinds (flag, small, medium, big, r, d, price, loose, name, code, letter, data, day, at_time, at, at_tz, doc, u, tags, counts)
        VALUES (true, -2, 40000, 9000000000, 1.5, -2.25, 1234.50, 3.14159, 'grüße', 'ab', 'x', '\\x00ff10',
                '2024-02-29', '13:14:15.678', '2024-02-29 13:14:15.678', '2024-02-29 13:14:15.678+02',
                '{{\"a\": [1, 2]}}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', ARRAY['p', NULL, 'q r'], ARRAY[1, 2]),
               (false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'nulls', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);"
    ))
    .unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-types");
    start(
        &worker,
        &source(
            &name,
            &s,
            "kinds",
            &[("mode", "incrementing"), ("incrementing.column.name", "id")],
        ),
    );
    let topic = format!("{s}-kinds");
    let records = wait_for(&topic, 2);
    worker.shutdown();
    assert_eq!(records.len(), 2, "{records:#?}");

    let schema = &records[0]["schema"];
    assert_eq!(schema["name"], "kinds");
    let field = |n: &str| {
        schema["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["field"] == n)
            .unwrap_or_else(|| panic!("no field {n} in {schema}"))
            .clone()
    };
    assert_eq!(field("id")["type"], "int64");
    assert_eq!(field("id")["optional"], false, "NOT NULL columns are required");
    assert_eq!(field("flag")["optional"], false);
    assert_eq!(field("small")["type"], "int16");
    assert_eq!(field("small")["optional"], true);
    assert_eq!(field("medium")["type"], "int32");
    assert_eq!(field("r")["type"], "float");
    assert_eq!(field("d")["type"], "double");
    assert_eq!(field("price")["name"], "org.apache.kafka.connect.data.Decimal");
    assert_eq!(field("price")["parameters"]["scale"], "2");
    assert_eq!(
        field("loose")["type"],
        "string",
        "numeric without a scale is kept as text"
    );
    assert_eq!(field("data")["type"], "bytes");
    assert_eq!(field("day")["name"], "org.apache.kafka.connect.data.Date");
    assert_eq!(field("at_time")["name"], "org.apache.kafka.connect.data.Time");
    assert_eq!(field("at")["name"], "org.apache.kafka.connect.data.Timestamp");
    assert_eq!(field("at_tz")["name"], "org.apache.kafka.connect.data.Timestamp");
    assert_eq!(field("tags")["type"], "array");
    assert_eq!(field("tags")["items"]["type"], "string");
    assert_eq!(field("counts")["items"]["type"], "int32");

    let p = &records[0]["payload"];
    assert_eq!(p["id"], 1);
    assert_eq!(p["flag"], true);
    assert_eq!(
        (p["small"].clone(), p["medium"].clone(), p["big"].clone()),
        (json!(-2), json!(40000), json!(9000000000i64))
    );
    assert_eq!((p["r"].clone(), p["d"].clone()), (json!(1.5), json!(-2.25)));
    // JsonConverter writes a Decimal as base64 of its unscaled bytes: 123450 = 0x01E23A.
    assert_eq!(p["price"], "AeI6");
    assert_eq!(p["loose"], "3.14159");
    assert_eq!(
        (p["name"].clone(), p["code"].clone(), p["letter"].clone()),
        (json!("grüße"), json!("ab"), json!("x "))
    );
    assert_eq!(p["data"], "AP8Q", "bytea 00ff10, base64");
    assert_eq!(p["day"], 19782, "2024-02-29 in days since the epoch");
    assert_eq!(p["at_time"], 47_655_678, "13:14:15.678 in ms");
    assert_eq!(p["at"], 1_709_212_455_678i64, "a timestamp without a zone reads as UTC");
    assert_eq!(p["at_tz"], 1_709_205_255_678i64, "+02 is two hours earlier in UTC");
    assert_eq!(
        serde_json::from_str::<Value>(p["doc"].as_str().unwrap()).unwrap(),
        json!({"a": [1, 2]})
    );
    assert_eq!(p["u"], "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    assert_eq!(p["tags"], json!(["p", null, "q r"]));
    assert_eq!(p["counts"], json!([1, 2]));

    let n = &records[1]["payload"];
    assert_eq!(n["name"], "nulls");
    for k in ["small", "price", "data", "day", "at", "doc", "u", "tags"] {
        assert!(n[k].is_null(), "{k} is null: {n}");
    }
}

/// Inserts rows `from..to` into `table` (id, updated timestamp, note).
fn insert(table: &str, from: i64, to: i64) {
    db().batch_execute(&format!(
        "INSERT INTO {table} (id, updated, note)
         SELECT g, timestamp '2024-01-01' + g * interval '1 second', 'row ' || g FROM generate_series({from}, {to} - 1) g"
    ))
    .unwrap();
}

fn ids(records: &[Value]) -> Vec<i64> {
    records.iter().map(|r| r["payload"]["id"].as_i64().unwrap()).collect()
}

fn resumes_after_a_restart(mode: &'static str, keys: &[(&'static str, &'static str)]) {
    let s = schema(&format!("pg{}", mode.replace('+', "")));
    db().batch_execute(&format!(
        "CREATE TABLE {s}.events (id bigint PRIMARY KEY, updated timestamp NOT NULL, note text)"
    ))
    .unwrap();
    let table = format!("{s}.events");
    insert(&table, 0, 500);
    let offsets = unique("offsets");
    let name = unique("pg-resume");
    let mut all: Vec<(&'static str, &'static str)> = vec![("mode", mode), ("batch.max.rows", "64")];
    all.extend_from_slice(keys);
    let topic = format!("{s}-events");

    let worker = start_worker(&offsets);
    start(&worker, &source(&name, &s, "events", &all));
    wait_for(&topic, 500);
    worker.shutdown();

    insert(&table, 500, 800);
    let worker = start_worker(&offsets);
    start(&worker, &source(&name, &s, "events", &all));
    wait_for(&topic, 800);
    // Stopped, nothing is in flight: a row read twice is in the topic now
    // (and, rows being read in order, before the last new one).
    worker.shutdown();
    assert_eq!(
        ids(&envelopes(&topic)),
        (0..800).collect::<Vec<_>>(),
        "every row once, in order ({mode})"
    );
}

#[test]
fn incrementing_mode_resumes_after_the_last_row_delivered() {
    resumes_after_a_restart("incrementing", &[("incrementing.column.name", "id")]);
}

#[test]
fn timestamp_incrementing_mode_resumes_after_the_last_row_delivered() {
    resumes_after_a_restart(
        "timestamp+incrementing",
        &[("incrementing.column.name", "id"), ("timestamp.column.name", "updated")],
    );
}

#[test]
fn timestamp_mode_reads_updated_rows_again() {
    let s = schema("pgts");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.events (id bigint PRIMARY KEY, updated timestamp NOT NULL, note text)"
    ))
    .unwrap();
    insert(&format!("{s}.events"), 0, 10);
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-ts");
    start(
        &worker,
        &source(
            &name,
            &s,
            "events",
            &[("mode", "timestamp"), ("timestamp.column.name", "updated")],
        ),
    );
    let topic = format!("{s}-events");
    wait_for(&topic, 10);
    db().batch_execute(&format!(
        "UPDATE {s}.events SET note = 'changed', updated = timestamp '2025-01-01' WHERE id = 3"
    ))
    .unwrap();
    let records = wait_for(&topic, 11);
    worker.shutdown();
    assert_eq!(records[10]["payload"]["id"], 3);
    assert_eq!(records[10]["payload"]["note"], "changed");
}

#[test]
fn new_tables_are_picked_up_and_spread_over_the_tasks() {
    let s = schema("pgdyn");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.a (id int PRIMARY KEY); INSERT INTO {s}.a SELECT generate_series(1, 20);"
    ))
    .unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-dyn");
    let mut keys = source(
        &name,
        &s,
        "a",
        &[
            ("mode", "incrementing"),
            ("incrementing.column.name", "id"),
            ("tasks.max", "2"),
            ("table.poll.interval.ms", "200"),
            ("connector.monitor.interval.ms", "100"),
        ],
    );
    // b and c do not exist yet: the instance finds them when they do.
    keys.retain(|(k, _)| k != "table.whitelist");
    keys.push(("table.whitelist".to_owned(), format!("{s}.a,{s}.b,{s}.c")));
    start(&worker, &keys);
    wait_for(&format!("{s}-a"), 20);
    assert_eq!(worker.task_configs(&name).unwrap().len(), 1, "one table, one task");

    db().batch_execute(&format!(
        "CREATE TABLE {s}.b (id int PRIMARY KEY); INSERT INTO {s}.b SELECT generate_series(1, 30);
         CREATE TABLE {s}.c (id int PRIMARY KEY); INSERT INTO {s}.c SELECT generate_series(1, 40);
         INSERT INTO {s}.a SELECT generate_series(21, 25);"
    ))
    .unwrap();
    eventually("two tasks for three tables", Duration::from_secs(30), || {
        (worker.task_configs(&name).unwrap().len() == 2).then_some(())
    });
    wait_for(&format!("{s}-b"), 30);
    wait_for(&format!("{s}-c"), 40);
    wait_for(&format!("{s}-a"), 25);
    worker.shutdown();
    let a = ids(&envelopes(&format!("{s}-a")));
    assert_eq!(
        a,
        (1..=25).collect::<Vec<_>>(),
        "a: no row lost or repeated across the reconfiguration"
    );
    assert_eq!(ids(&envelopes(&format!("{s}-b"))), (1..=30).collect::<Vec<_>>());
    assert_eq!(ids(&envelopes(&format!("{s}-c"))), (1..=40).collect::<Vec<_>>());
}

#[test]
fn a_query_is_read_as_one_stream() {
    let s = schema("pgquery");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.orders (id int PRIMARY KEY, amount int);
         INSERT INTO {s}.orders SELECT g, g * 10 FROM generate_series(1, 5) g;"
    ))
    .unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-query");
    let mut keys = source(
        &name,
        &s,
        "orders",
        &[("mode", "incrementing"), ("incrementing.column.name", "id")],
    );
    keys.retain(|(k, _)| k != "table.whitelist");
    let q = format!("SELECT id, amount * 2 AS doubled FROM {s}.orders");
    keys.push(("query".to_owned(), q));
    keys.retain(|(k, _)| k != "topic.prefix");
    let topic = format!("{s}-query");
    keys.push(("topic.prefix".to_owned(), topic.clone()));
    start(&worker, &keys);
    let records = wait_for(&topic, 5);
    worker.shutdown();
    assert_eq!(records[4]["payload"], json!({"id": 5, "doubled": 100}));
    assert_eq!(records[0]["schema"]["name"], "QueryResult");
}

/// The worker's refusal of `keys` (each problem as `key: message`).
pub(crate) fn problems(keys: &[(String, String)]) -> String {
    let worker = start_worker(&unique("offsets"));
    let refs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let p = worker
        .validate(&connector(&worker, &refs))
        .err()
        .unwrap_or_else(|| panic!("must be refused: {keys:?}"))
        .to_string();
    worker.shutdown();
    p
}

fn with(mut keys: Vec<(String, String)>, k: &str, v: Option<&str>) -> Vec<(String, String)> {
    keys.retain(|(key, _)| key != k);
    if let Some(v) = v {
        keys.push((k.to_owned(), v.to_owned()));
    }
    keys
}

#[test]
fn bad_configs_name_their_keys() {
    let s = schema("pgbad");
    let base = source(
        &unique("pg-bad"),
        &s,
        "t",
        &[("mode", "incrementing"), ("incrementing.column.name", "id")],
    );
    let cases = [
        (with(base.clone(), "mode", Some("sometimes")), "mode", "is not one of"),
        (
            with(base.clone(), "incrementing.column.name", None),
            "incrementing.column.name",
            "needs",
        ),
        (
            with(base.clone(), "connection.url", Some("mysql://h/d")),
            "connection.url",
            "not a PostgreSQL URL",
        ),
        (
            with(base.clone(), "table.blacklist", Some("x")),
            "table.blacklist",
            "not both",
        ),
        (
            with(base.clone(), "schema.pattern", Some("public")),
            "schema.pattern",
            "not supported",
        ),
        (
            with(base.clone(), "numeric.mapping", Some("exact")),
            "numeric.mapping",
            "is not one of",
        ),
        (
            with(base.clone(), "connection.port", Some("5432")),
            "connection.host",
            "not both",
        ),
    ];
    for (keys, key, says) in cases {
        let p = problems(&keys);
        assert!(
            p.lines().any(|l| l.contains(key) && l.contains(says)) || (p.contains(key) && p.contains(says)),
            "expected a problem on {key} saying '{says}', got {p}"
        );
        assert!(
            !p.contains("=wrong") && !p.contains("'wrong'"),
            "the password is never echoed: {p}"
        );
    }
}

/// Starts `keys` and answers why the connector failed: the start's error,
/// or the FAILED connector's trace (its instance reaches the database
/// first, with the connector's grants).
pub(crate) fn failure(keys: &[(String, String)]) -> String {
    let worker = start_worker(&unique("offsets"));
    let refs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let name = keys.iter().find(|(k, _)| k == "name").unwrap().1.clone();
    let why = match worker.start_connector(connector(&worker, &refs)) {
        Err(e) => e.to_string(),
        Ok(()) => eventually("the connector FAILED", Duration::from_secs(30), || {
            worker.status(&name).unwrap().failure
        }),
    };
    worker.shutdown();
    why
}

#[test]
fn a_refused_login_fails_the_connector_without_echoing_the_password() {
    let s = schema("pglogin");
    let keys = with(
        source(&unique("pg-login"), &s, "t", &[("mode", "bulk")]),
        "connection.password",
        Some("not-the-password"),
    );
    let why = failure(&keys);
    assert!(why.contains("refused the login of user 'copycat'"), "{why}");
    assert!(!why.contains("not-the-password"), "{why}");
}

/// The CA that signed the test server's certificate (`scripts/postgres.sh ca`).
fn server_ca() -> String {
    address();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/postgres.sh");
    let out = Command::new(&script).arg("ca").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn tls_verify_full_with_the_servers_ca_and_refusals_otherwise() {
    let s = schema("pgtls");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t SELECT generate_series(1, 10);
         GRANT USAGE ON SCHEMA {s} TO copycat_tls; GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO copycat_tls;"
    ))
    .unwrap();
    let ca = server_ca();
    let ca_dir = Path::new(&ca).parent().unwrap().display().to_string();
    // copycat_tls is refused without TLS (pg_hba.conf): rows prove TLS.
    let tls = |name: &str, extra: &[(&str, &str)]| {
        let mut keys = source(
            name,
            &s,
            "t",
            &[("mode", "incrementing"), ("incrementing.column.name", "id")],
        );
        keys = with(keys, "connection.user", Some("copycat_tls"));
        for (k, v) in extra {
            keys = with(keys, k, Some(v));
        }
        keys
    };
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-tls");
    let keys = tls(
        &name,
        &[
            ("sslmode", "verify-full"),
            ("sslrootcert", &ca),
            ("grants.fs.read", &ca_dir),
        ],
    );
    start(&worker, &keys);
    let records = wait_for(&format!("{s}-t"), 10);
    worker.shutdown();
    assert_eq!(ids(&records), (1..=10).collect::<Vec<_>>());

    let why = failure(&tls(&unique("pg-tls-plain"), &[("sslmode", "disable")]));
    assert!(
        why.contains("no encryption"),
        "without TLS the server refuses copycat_tls: {why}"
    );
    let why = failure(&tls(&unique("pg-tls-roots"), &[("sslmode", "verify-full")]));
    assert!(
        why.contains("TLS to PostgreSQL at") && why.contains("UnknownIssuer"),
        "a private CA is not among the Mozilla roots: {why}"
    );
    let why = failure(&tls(
        &unique("pg-tls-nogrant"),
        &[("sslmode", "verify-ca"), ("sslrootcert", &ca)],
    ));
    assert!(why.contains("is its directory granted with grants.fs.read"), "{why}");
}

/// Whether each of this process's TCP sockets connected to `peer` has
/// `TCP_NODELAY` (the worker runs in this process; descriptors duplicated
/// with `pidfd_getfd`, as the runtime finds them).
fn nodelay_of_sockets_to(peer: std::net::SocketAddr) -> Vec<bool> {
    use rustix::process::{PidfdFlags, PidfdGetfdFlags, getpid, pidfd_getfd, pidfd_open};
    let me = pidfd_open(getpid(), PidfdFlags::empty()).unwrap();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .filter_map(|n| pidfd_getfd(&me, n, PidfdGetfdFlags::empty()).ok())
        .filter(|fd| {
            rustix::net::getpeername(fd)
                .ok()
                .flatten()
                .and_then(|a| std::net::SocketAddr::try_from(a).ok())
                == Some(peer)
        })
        .map(|fd| rustix::net::sockopt::tcp_nodelay(&fd).unwrap())
        .collect()
}

/// WASI 0.2 has no TCP_NODELAY: the runtime sets it on a guest's
/// connection, or a message longer than a segment waits ~40 ms for the
/// server's delayed ACK (postgres-sink's batches did).
#[test]
fn a_guests_database_connection_has_tcp_nodelay() {
    let s = schema("pgnodelay");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1);"
    ))
    .unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("pg-nodelay");
    start(
        &worker,
        &source(
            &name,
            &s,
            "t",
            &[("mode", "incrementing"), ("incrementing.column.name", "id")],
        ),
    );
    wait_for(&format!("{s}-t"), 1);
    // The task keeps its connection between polls; every other socket to
    // the server here is a native client's, which sets TCP_NODELAY itself.
    let peer: std::net::SocketAddr = address().parse().unwrap();
    let sockets = nodelay_of_sockets_to(peer);
    worker.shutdown();
    assert!(!sockets.is_empty(), "the task's connection is open");
    assert!(
        sockets.iter().all(|n| *n),
        "every connection to the server has TCP_NODELAY: {sockets:?}"
    );
}

#[test]
fn without_its_grant_it_reaches_no_database() {
    let s = schema("pgdeny");
    db().batch_execute(&format!(
        "CREATE TABLE {s}.t (id int PRIMARY KEY); INSERT INTO {s}.t VALUES (1);"
    ))
    .unwrap();
    let port: u16 = address().split_once(':').unwrap().1.parse().unwrap();
    for grant in [None, Some(format!("127.0.0.1:{}", port + 1))] {
        let base = source(
            &unique("pg-deny"),
            &s,
            "t",
            &[("mode", "incrementing"), ("incrementing.column.name", "id")],
        );
        let keys = with(base, "grants.net.connect", grant.as_deref());
        let why = failure(&keys);
        assert!(
            why.contains(&format!("cannot connect to PostgreSQL at {}", address())),
            "grant {grant:?}: {why}"
        );
    }
    assert_eq!(topic_size(&format!("{s}-t")), 0, "nothing was read");
}
