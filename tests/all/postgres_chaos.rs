//! Chaos: a PostgreSQL table → postgres-source → Kafka → postgres-sink →
//! another table, exactly-once end to end (an exactly-once source, the
//! sink's offsets committed with its rows), while 200,000 rows are inserted
//! and the worker is SIGKILLed five times at random moments. At the end the
//! target table equals the source table, row for row.
//!
//! `#[ignore]`d in the parallel run; `just test` runs it with the other
//! chaos tests afterwards (`--ignored chaos`).

use std::time::{Duration, Instant};

use copycat_tests::*;
use rand::Rng;

use crate::chaos::{LogsOnFailure, copycat};
use crate::postgres_source::{PASSWORD, USER, address, db, jdbc_url, schema};

const ROWS: i64 = 200_000;
/// The rows are inserted over this long, in `STEPS` transactions.
const FEED: Duration = Duration::from_secs(60);
const STEPS: i64 = 250;

fn count(table: &str) -> i64 {
    match db().query_one(&format!("SELECT count(*) FROM {table}"), &[]) {
        Ok(row) => row.get(0),
        Err(_) => 0,
    }
}

#[test]
#[ignore = "long: `just test` runs it alone after the other tests"]
fn chaos_postgres_to_postgres_exactly_once_through_sigkills() {
    let _broker = broker_stays_up();
    let started = Instant::now();
    let s = schema("pgchaos");
    let (src, dst) = (format!("{s}.src"), format!("{s}.dst"));
    db().batch_execute(&format!(
        "CREATE TABLE {src} (id bigint PRIMARY KEY, note text NOT NULL, amount numeric(12,2), at timestamptz NOT NULL)"
    ))
    .unwrap();
    let feeder_table = src.clone();
    let feeder = std::thread::spawn(move || {
        let mut client = db();
        let per_step = ROWS / STEPS;
        for step in 0..STEPS {
            let (from, to) = (step * per_step, (step + 1) * per_step);
            client
                .batch_execute(&format!(
                    "INSERT INTO {feeder_table} SELECT g, 'row ' || g || repeat('x', (g % 40)::int), g / 100.0, \
                     timestamptz '2024-01-01 00:00:00+00' + g * interval '1 ms' FROM generate_series({from}, {to} - 1) g"
                ))
                .unwrap();
            std::thread::sleep(FEED / STEPS as u32);
        }
    });

    let dir = tempfile::tempdir().unwrap();
    let prefix = format!("{s}-");
    let topic = format!("{prefix}src");
    block_on(create_topic(&topic, 4));
    let worker = dir.path().join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={}\noffset.storage.partitions=3\n\
             offset.flush.interval.ms=200\nexactly.once.source.support=enabled\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            plugin_dir().display(),
            unique("offsets"),
            dir.path().display()
        ),
    )
    .unwrap();
    let common = format!(
        "connection.url={}\nconnection.user={USER}\nconnection.password={PASSWORD}\ngrants.net.connect={}\n\
         key.converter=org.apache.kafka.connect.json.JsonConverter\nvalue.converter=org.apache.kafka.connect.json.JsonConverter\n",
        jdbc_url(),
        address()
    );
    let source = dir.path().join("source.properties");
    std::fs::write(
        &source,
        format!(
            "name={}\nconnector.class=postgres-source\n{common}mode=incrementing\nincrementing.column.name=id\n\
             table.whitelist={src}\ntopic.prefix={prefix}\npoll.interval.ms=100\nbatch.max.rows=2000\n",
            unique("pg-chaos-source")
        ),
    )
    .unwrap();
    let sink = dir.path().join("sink.properties");
    std::fs::write(
        &sink,
        format!(
            "name={}\nconnector.class=postgres-sink\n{common}tasks.max=2\ntopics={topic}\ntable.name.format={dst}\n\
             auto.create=true\ninsert.mode=insert\nexactly.once=true\nconsumer.override.session.timeout.ms=6000\n",
            unique("pg-chaos-sink")
        ),
    )
    .unwrap();
    let connectors = [source, sink];

    let mut rng = rand::rng();
    let mut logs = LogsOnFailure(Vec::new());
    let mut at_kills = Vec::new();
    for round in 0..5 {
        logs.0.push(dir.path().join(format!("worker-{round}.log")));
        let mut child = copycat(&worker, &connectors, logs.0.last().unwrap());
        let before = count(&dst);
        eventually("the sink writes again", Duration::from_secs(120), || {
            let n = count(&dst);
            (n > before || n >= ROWS).then_some(())
        });
        let progress = rng.random_range(1_000..15_000);
        let deadline = Instant::now() + Duration::from_millis(rng.random_range(0..3_000));
        eventually("some progress before the kill", Duration::from_secs(120), || {
            (count(&dst) > before + progress || Instant::now() >= deadline).then_some(())
        });
        child.kill().unwrap();
        child.wait().unwrap();
        let n = count(&dst);
        eprintln!(
            "postgres chaos: SIGKILL {} with {n} of {ROWS} rows in the target",
            round + 1
        );
        at_kills.push(n);
    }
    let mid_stream = at_kills
        .iter()
        .scan(0, |before, &n| {
            let mid = n > *before && n < ROWS;
            *before = n;
            Some(mid)
        })
        .filter(|m| *m)
        .count();
    assert!(
        mid_stream >= 3,
        "at least 3 of the 5 kills hit mid-stream: {at_kills:?}"
    );
    feeder.join().unwrap();

    logs.0.push(dir.path().join("worker-last.log"));
    let mut child = copycat(&worker, &connectors, logs.0.last().unwrap());
    eventually("every row in the target", Duration::from_secs(240), || {
        (count(&dst) >= ROWS).then_some(())
    });
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    eventually("copycat exits", Duration::from_secs(60), || child.try_wait().unwrap());

    let mut client = db();
    // The source's timestamptz arrives as a Connect Timestamp (UTC), which
    // auto.create makes a timestamp column.
    let src_rows = format!("SELECT id, note, amount, at AT TIME ZONE 'UTC' FROM {src}");
    let dst_rows = format!("SELECT id, note, amount, at FROM {dst}");
    let mut diff = |a: &str, b: &str| -> i64 {
        client
            .query_one(&format!("SELECT count(*) FROM ({a} EXCEPT ALL {b}) d"), &[])
            .unwrap()
            .get(0)
    };
    let (missing, extra) = (diff(&src_rows, &dst_rows), diff(&dst_rows, &src_rows));
    assert_eq!(count(&dst), ROWS, "as many rows as the source");
    assert_eq!((missing, extra), (0, 0), "the target equals the source, row for row");
    eprintln!(
        "postgres chaos: {ROWS} rows, 5 SIGKILLs ({at_kills:?}), target = source in {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(600), "bounded in time");
}
