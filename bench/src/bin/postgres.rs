//! PostgreSQL connectors: postgres-source rows/s (a table of `--rows` rows
//! to Kafka) and postgres-sink rows/s (a topic of as many records into a
//! table, exactly-once), each beside a plain native client doing the same
//! database work in the same run (the ceiling) and beside `COPY`.
//!
//! * Source ceiling: rust-postgres reading the same table (`SELECT *`,
//!   binary rows, streamed); `COPY … TO STDOUT` beside it.
//! * Sink ceiling: rust-postgres inserting the same rows with a prepared
//!   `INSERT` in transactions of `batch.size` rows, as the sink does;
//!   `COPY … FROM STDIN` beside it.
//!
//! Kafka Connect's own JDBC connector (Confluent's) is not on Maven
//! Central (io.confluent is not served here), so it is not run beside.
//!
//! `just bench` runs it (after `scripts/postgres.sh start`); alone:
//! `cargo run -p copycat-bench --bin postgres -- --rows 200000`.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use copycat_bench::results::{self, Record};
use copycat_bench::{create_topics, init_tracing, props, warm_up};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

#[derive(Parser)]
#[command(about = "postgres-source and postgres-sink rows/s against a native client loop and COPY")]
struct Args {
    /// Rows per run.
    #[arg(long, default_value_t = 200_000)]
    rows: i64,
    /// Runs of each; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Rows per sink transaction (batch.size) and per source fetch (batch.max.rows).
    #[arg(long, default_value_t = 3000)]
    batch: i64,
    /// The test cluster (scripts/postgres.sh): host:port.
    #[arg(long, env = "COPYCAT_POSTGRES_ADDRESS", default_value = "127.0.0.1:55432")]
    postgres: String,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding postgres-source.wasm and postgres-sink.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

const USER: &str = "copycat";
const PASSWORD: &str = "copycat-secret";

fn client(address: &str) -> Result<postgres::Client> {
    let (host, port) = address.split_once(':').context("--postgres is host:port")?;
    postgres::Config::new()
        .host(host)
        .port(port.parse()?)
        .user(USER)
        .password(PASSWORD)
        .dbname("copycat")
        .connect(postgres::NoTls)
        .with_context(|| format!("connecting to PostgreSQL at {address} (scripts/postgres.sh start)"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn rate(rows: i64, d: Duration) -> f64 {
    rows as f64 / d.as_secs_f64()
}

/// The rows both sides write: (id, note, amount as text, ts as ms).
fn row(i: i64) -> (i64, String, String, i64) {
    (
        i,
        format!("row {i} {}", "x".repeat((i % 40) as usize)),
        format!("{}.{:02}", i / 100, i % 100),
        1_704_067_200_000 + i,
    )
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let plugin_dir = std::fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let mut db = client(&args.postgres)?;
    let schema = format!("bench_{run_id}");
    db.batch_execute(&format!("CREATE SCHEMA {schema}"))?;
    let src = format!("{schema}.src");
    db.batch_execute(&format!(
        "CREATE TABLE {src} (id bigint PRIMARY KEY, note text NOT NULL, amount numeric(12,2), at timestamptz NOT NULL);
         INSERT INTO {src} SELECT g, 'row ' || g || ' ' || repeat('x', (g % 40)::int), (g / 100) + (g % 100) / 100.0,
             timestamptz 'epoch' + (1704067200000 + g) * interval '1 ms' FROM generate_series(0, {} - 1) g;
         ANALYZE {src};",
        args.rows
    ))?;
    let base = std::env::temp_dir().join(format!("copycat-bench-postgres-{run_id}"));
    let wcfg = |n: usize| {
        WorkerConfig::from_props(props(&[
            ("bootstrap.servers", &args.bootstrap),
            ("plugin.path", &plugin_dir.to_string_lossy()),
            ("offset.storage.topic", &format!("bench-postgres-offsets-{run_id}-{n}")),
            ("offset.storage.partitions", "3"),
            ("offset.flush.interval.ms", "1000"),
            ("state.dir", &base.join(format!("state-{n}")).to_string_lossy()),
        ]))
        .context("worker config")
    };
    warm_up(&wcfg(0)?, &plugin_dir, &["postgres-source", "postgres-sink"], true)?;
    let common = [
        ("connection.url", format!("jdbc:postgresql://{}/copycat", args.postgres)),
        ("connection.user", USER.to_owned()),
        ("connection.password", PASSWORD.to_owned()),
        ("grants.net.connect", args.postgres.clone()),
        (
            "key.converter",
            "org.apache.kafka.connect.json.JsonConverter".to_owned(),
        ),
        (
            "value.converter",
            "org.apache.kafka.connect.json.JsonConverter".to_owned(),
        ),
    ];
    let connector = |worker: &Worker, extra: &[(&str, String)]| -> Result<ConnectorConfig> {
        let mut all: Vec<(&str, &str)> = common.iter().map(|(k, v)| (*k, v.as_str())).collect();
        all.extend(extra.iter().map(|(k, v)| (*k, v.as_str())));
        Ok(ConnectorConfig::from_props(props(&all), worker.config())?)
    };
    println!(
        "PostgreSQL connectors: {} rows per run (id bigint, note text, amount numeric(12,2), at timestamptz), {} runs, JsonConverter, batch {}",
        args.rows, args.runs, args.batch
    );

    // ---------------------------------------------------------------- source
    let (mut copycat_src, mut select_src, mut copy_src) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..args.runs {
        let t = Instant::now();
        let mut n = 0i64;
        let mut it = db.query_raw(&format!("SELECT * FROM {src}"), std::iter::empty::<i32>())?;
        while let Some(r) = fallible_next(&mut it)? {
            let _: i64 = r.get(0);
            n += 1;
        }
        drop(it);
        anyhow::ensure!(n == args.rows, "the native SELECT read {n} rows");
        select_src.push(rate(n, t.elapsed()));
        let t = Instant::now();
        let mut out = Vec::new();
        let mut reader = db.copy_out(&format!("COPY {src} TO STDOUT"))?;
        std::io::copy(&mut reader, &mut out)?;
        drop(reader);
        copy_src.push(rate(args.rows, t.elapsed()));

        let worker = rt.block_on(Worker::start(wcfg(run + 1)?))?;
        let prefix = format!("bench-pg-{run_id}-{run}-");
        let topic = format!("{prefix}src");
        rt.block_on(create_topics(&args.bootstrap, &[&topic], 4))?;
        let t = Instant::now();
        worker.start_connector(connector(
            &worker,
            &[
                ("name", format!("pg-source-{run_id}-{run}")),
                ("connector.class", "postgres-source".to_owned()),
                ("mode", "incrementing".to_owned()),
                ("incrementing.column.name", "id".to_owned()),
                ("table.whitelist", src.clone()),
                ("topic.prefix", prefix.clone()),
                ("batch.max.rows", args.batch.to_string()),
            ],
        )?)?;
        wait_for_topic(&args.bootstrap, &topic, args.rows)?;
        copycat_src.push(rate(args.rows, t.elapsed()));
        worker.shutdown();
    }

    // ---------------------------------------------------------------- sink
    let topic = format!("bench-pg-{run_id}-sink");
    rt.block_on(create_topics(&args.bootstrap, &[&topic], 4))?;
    produce(&args.bootstrap, &topic, args.rows)?;
    let (mut copycat_sink, mut insert_sink, mut copy_sink) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..args.runs {
        let dst = format!("{schema}.native_{run}");
        db.batch_execute(&format!(
            "CREATE TABLE {dst} (id bigint NOT NULL, note text NOT NULL, amount numeric, at timestamp NOT NULL)"
        ))?;
        let t = Instant::now();
        let stmt = db.prepare(&format!(
            "INSERT INTO {dst} (id, note, amount, at) VALUES ($1, $2, $3::text::numeric, to_timestamp($4::bigint / 1000.0) AT TIME ZONE 'UTC')"
        ))?;
        let mut i = 0;
        while i < args.rows {
            let mut tx = db.transaction()?;
            for k in i..(i + args.batch).min(args.rows) {
                let (id, note, amount, at) = row(k);
                tx.execute(&stmt, &[&id, &note, &amount, &at])?;
            }
            tx.commit()?;
            i += args.batch;
        }
        insert_sink.push(rate(args.rows, t.elapsed()));
        db.batch_execute(&format!("TRUNCATE {dst}"))?;
        let t = Instant::now();
        let mut w = db.copy_in(&format!("COPY {dst} (id, note, amount, at) FROM STDIN"))?;
        for k in 0..args.rows {
            let (id, note, amount, at) = row(k);
            // 2024-01-01 plus `id` ms (rows stay within the day).
            let ms = at - 1_704_067_200_000;
            let (secs, milli) = (ms / 1000, ms % 1000);
            writeln!(
                w,
                "{id}\t{note}\t{amount}\t2024-01-01 {:02}:{:02}:{:02}.{milli:03}",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            )?;
        }
        w.finish()?;
        copy_sink.push(rate(args.rows, t.elapsed()));

        let worker = rt.block_on(Worker::start(wcfg(100 + run)?))?;
        let table = format!("{schema}.copycat_{run}");
        let name = format!("pg-sink-{run_id}-{run}");
        let t = Instant::now();
        worker.start_connector(connector(
            &worker,
            &[
                ("name", name.clone()),
                ("connector.class", "postgres-sink".to_owned()),
                ("topics", topic.clone()),
                ("table.name.format", table.clone()),
                ("auto.create", "true".to_owned()),
                ("batch.size", args.batch.to_string()),
                ("tasks.max", "1".to_owned()),
            ],
        )?)?;
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let done: Option<i64> = db
                .query_opt(
                    "SELECT sum(next_offset)::bigint FROM copycat_sink_offsets WHERE connector = $1 AND next_offset >= 0",
                    &[&name],
                )?
                .and_then(|r| r.get(0));
            if done.unwrap_or(0) >= args.rows {
                break;
            }
            if Instant::now() > deadline {
                bail!("postgres-sink did not write {} rows in 600 s", args.rows);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        copycat_sink.push(rate(args.rows, t.elapsed()));
        worker.shutdown();
        let written: i64 = db.query_one(&format!("SELECT count(*) FROM {table}"), &[])?.get(0);
        anyhow::ensure!(
            written == args.rows,
            "postgres-sink wrote {written} rows, not {}",
            args.rows
        );
    }
    db.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))?;
    let _ = std::fs::remove_dir_all(&base);

    let (cs, ss, ps) = (median(copycat_src), median(select_src), median(copy_src));
    let (ck, ik, pk) = (median(copycat_sink), median(insert_sink), median(copy_sink));
    println!("{:<44} {:>12} {:>10} {:>10}", "", "rows/s", "vs client", "vs COPY");
    println!("{:<44} {:>12.0}", "source ceiling: native SELECT (binary)", ss);
    println!("{:<44} {:>12.0}", "source: native COPY TO STDOUT", ps);
    println!(
        "{:<44} {:>12.0} {:>10.2} {:>10.2}",
        "postgres-source -> Kafka (JsonConverter)",
        cs,
        cs / ss,
        cs / ps
    );
    println!("{:<44} {:>12.0}", "sink ceiling: native INSERT, txn per batch", ik);
    println!("{:<44} {:>12.0}", "sink: native COPY FROM STDIN", pk);
    println!(
        "{:<44} {:>12.0} {:>10.2} {:>10.2}",
        "Kafka -> postgres-sink (exactly-once)",
        ck,
        ck / ik,
        ck / pk
    );
    let note = format!("{} rows, median of {}, batch {}", args.rows, args.runs, args.batch);
    results::append(&[
        Record::new("postgres-source", "throughput", cs, "rows/s")
            .vs("native SELECT", Some(ss), None)
            .note(note.clone()),
        Record::new("postgres-sink", "throughput", ck, "rows/s")
            .vs("native INSERT loop", Some(ik), None)
            .note(note),
    ])?;
    Ok(())
}

fn fallible_next(it: &mut postgres::RowIter<'_>) -> Result<Option<postgres::Row>> {
    use postgres::fallible_iterator::FallibleIterator;
    Ok(it.next()?)
}

/// The rows as JsonConverter envelopes (schema and payload), keyed by id.
fn produce(bootstrap: &str, topic: &str, rows: i64) -> Result<()> {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("linger.ms", "20")
        .set("compression.type", "lz4")
        .create()?;
    let schema = r#"{"type":"struct","name":"src","optional":false,"fields":[{"field":"id","type":"int64","optional":false},{"field":"note","type":"string","optional":false},{"field":"amount","type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"optional":true},{"field":"at","type":"int64","name":"org.apache.kafka.connect.data.Timestamp","version":1,"optional":false}]}"#;
    for i in 0..rows {
        let (id, note, _, at) = row(i);
        // Decimal as JsonConverter's base64 of the unscaled big-endian bytes.
        let unscaled = (i / 100) * 100 + i % 100;
        let bytes = minimal_be(unscaled);
        let amount = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &bytes);
        let value =
            format!(r#"{{"schema":{schema},"payload":{{"id":{id},"note":"{note}","amount":"{amount}","at":{at}}}}}"#);
        let key = format!(r#"{{"schema":{{"type":"int64","optional":false}},"payload":{id}}}"#);
        loop {
            match producer.send(BaseRecord::to(topic).key(&key).payload(&value)) {
                Ok(()) => break,
                Err((e, _)) if e.rdkafka_error_code() == Some(rdkafka::types::RDKafkaErrorCode::QueueFull) => {
                    producer.poll(Duration::from_millis(10));
                }
                Err((e, _)) => bail!("producing: {e}"),
            }
        }
    }
    producer.flush(Duration::from_secs(60))?;
    Ok(())
}

/// Two's complement big-endian bytes, no redundant sign bytes (Java's
/// `BigInteger.toByteArray`).
fn minimal_be(n: i64) -> Vec<u8> {
    let b = n.to_be_bytes();
    let mut start = 0;
    while start < 7 && ((b[start] == 0 && b[start + 1] & 0x80 == 0) || (b[start] == 0xff && b[start + 1] & 0x80 != 0)) {
        start += 1;
    }
    b[start..].to_vec()
}

fn wait_for_topic(bootstrap: &str, topic: &str, rows: i64) -> Result<()> {
    let consumer: BaseConsumer = ClientConfig::new().set("bootstrap.servers", bootstrap).create()?;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let md = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
        let mut total = 0;
        for t in md.topics() {
            for p in t.partitions() {
                total += consumer.fetch_watermarks(topic, p.id(), Duration::from_secs(10))?.1;
            }
        }
        if total >= rows {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{topic}: {total} of {rows} records after 600 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
