//! HTTP sink: records of a topic through Copycat's http-sink to a local
//! HTTP server (axum, in this process, counting what arrives), against a
//! plain HTTP client loop (ureq) posting the same bodies to the same server
//! (the ceiling), one value a request and batched as JSON arrays. The rate
//! runs from the first request the server sees to the last, so the consumer
//! group's start is not counted. The ceiling keeps its connection alive;
//! the second ceiling opens one per request, as the worker's `wasi:http`
//! client (wasmtime-wasi-http's) does.
//!
//! `just bench` runs it; alone:
//! `cargo run -p copycat-bench --bin http_sink -- --records 20000`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::State;
use clap::Parser;
use copycat_bench::results::{self, Record};
use copycat_bench::{create_topics, init_tracing, median, props};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use rdkafka::ClientConfig;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer as _};

#[derive(Parser)]
#[command(about = "Copycat's http-sink to a local HTTP server against a plain HTTP client loop")]
struct Args {
    /// Records per run.
    #[arg(long, default_value_t = 20_000)]
    records: usize,
    /// Bytes of each value (a JSON object).
    #[arg(long, default_value_t = 200)]
    value_bytes: usize,
    /// batch.max.size values to measure.
    #[arg(long, value_delimiter = ',', default_value = "1,100")]
    batches: Vec<usize>,
    /// Runs of each measurement (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding http-sink.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

/// What the server saw.
#[derive(Default)]
struct Counts {
    requests: u64,
    values: u64,
    bytes: u64,
    first: Option<Instant>,
    last: Option<Instant>,
}

type Shared = Arc<Mutex<Counts>>;

/// Values in a body: one per `{"i":`.
fn values_in(body: &[u8]) -> u64 {
    body.windows(5).filter(|w| w == b"{\"i\":").count() as u64
}

async fn count(State(counts): State<Shared>, body: Bytes) -> &'static str {
    let now = Instant::now();
    let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
    c.requests += 1;
    c.values += values_in(&body);
    c.bytes += body.len() as u64;
    c.first.get_or_insert(now);
    c.last = Some(now);
    "ok"
}

fn value(i: usize, bytes: usize) -> String {
    let head = format!("{{\"i\":{i},\"pad\":\"");
    let pad = bytes.saturating_sub(head.len() + 2);
    format!("{head}{}\"}}", "x".repeat(pad))
}

/// One measurement: records/s and MB/s (of bodies) between the first and
/// the last request.
#[derive(Clone, Copy)]
struct Rate {
    records_per_s: f64,
    mb_per_s: f64,
}

fn rate(counts: &Shared) -> Result<Rate> {
    let c = counts.lock().unwrap_or_else(|e| e.into_inner());
    let (Some(first), Some(last)) = (c.first, c.last) else {
        anyhow::bail!("no request arrived");
    };
    let secs = last.duration_since(first).as_secs_f64().max(1e-6);
    Ok(Rate {
        records_per_s: c.values as f64 / secs,
        mb_per_s: c.bytes as f64 / secs / 1e6,
    })
}

fn reset(counts: &Shared) {
    *counts.lock().unwrap_or_else(|e| e.into_inner()) = Counts::default();
}

/// The bodies http-sink sends for `values` with `batch.max.size=batch`.
fn bodies(values: &[String], batch: usize) -> Vec<String> {
    if batch == 1 {
        return values.to_vec();
    }
    values.chunks(batch).map(|c| format!("[{}]", c.join(","))).collect()
}

/// The ceiling: `bodies` posted in a loop, on one connection or a new one
/// each time.
fn client_loop(url: &str, bodies: &[String], keep_alive: bool, counts: &Shared) -> Result<Rate> {
    reset(counts);
    let config = ureq::Agent::config_builder()
        .max_idle_connections(if keep_alive { 10 } else { 0 })
        .max_idle_connections_per_host(if keep_alive { 10 } else { 0 })
        .build();
    let agent = ureq::Agent::new_with_config(config);
    for body in bodies {
        agent
            .post(url)
            .header("content-type", "application/json")
            .send(body.as_str())
            .context("the ceiling's POST")?;
    }
    rate(counts)
}

fn wait_for(counts: &Shared, values: u64) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if counts.lock().unwrap_or_else(|e| e.into_inner()).values >= values {
            return Ok(());
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "the sink did not deliver {values} values in 300 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let plugin_dir = std::fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;

    // The server.
    let counts = Shared::default();
    let app = axum::Router::new().fallback(count).with_state(counts.clone());
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let addr = listener.local_addr()?;
    rt.spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/in");

    // The input, once.
    let topic = format!("bench-http-{run_id}");
    rt.block_on(create_topics(&args.bootstrap, &[&topic], 1))?;
    let values: Vec<String> = (0..args.records).map(|i| value(i, args.value_bytes)).collect();
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &args.bootstrap)
        .set("linger.ms", "20")
        .create()?;
    for v in &values {
        let mut record = BaseRecord::<(), _>::to(&topic).payload(v.as_str());
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    record = back;
                    producer.poll(Duration::from_millis(10));
                }
                Err((e, _)) => return Err(e).context("producing the input"),
            }
        }
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(60))?;

    let wcfg = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &args.bootstrap),
        ("plugin.path", &plugin_dir.to_string_lossy()),
        ("offset.storage.topic", &format!("bench-http-offsets-{run_id}")),
        ("offset.storage.partitions", "1"),
    ]))
    .context("worker config")?;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    println!(
        "HTTP sink: {} records of {} bytes, one partition, one task, to a local server; median of {} runs",
        args.records, args.value_bytes, args.runs
    );
    println!(
        "{:<18} {:>12} {:>9} {:>14} {:>9} {:>16} {:>7}",
        "batch.max.size", "http-sink/s", "MB/s", "keep-alive/s", "ratio", "new-conn each/s", "ratio"
    );
    let mut out = Vec::new();
    for &batch in &args.batches {
        let bodies = bodies(&values, batch);
        let (mut sink, mut sink_mb, mut ceiling, mut fresh) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for run in 0..args.runs {
            reset(&counts);
            let name = format!("http-{run_id}-{batch}-{run}");
            worker.start_connector(ConnectorConfig::from_props(
                props(&[
                    ("name", &name),
                    ("connector.class", "http-sink"),
                    ("topics", &topic),
                    ("grants.http.hosts", &addr.to_string()),
                    ("http.url", &url),
                    ("batch.max.size", &batch.to_string()),
                ]),
                worker.config(),
            )?)?;
            wait_for(&counts, args.records as u64)?;
            let r = rate(&counts)?;
            worker.delete_connector(&name)?;
            sink.push(r.records_per_s);
            sink_mb.push(r.mb_per_s);
            ceiling.push(client_loop(&url, &bodies, true, &counts)?.records_per_s);
            fresh.push(client_loop(&url, &bodies, false, &counts)?.records_per_s);
        }
        let m = |v: Vec<f64>| median(v).unwrap_or(f64::NAN);
        let (sink, sink_mb, ceiling, fresh) = (m(sink), m(sink_mb), m(ceiling), m(fresh));
        println!(
            "{batch:<18} {sink:>12.0} {sink_mb:>9.1} {ceiling:>14.0} {:>9.2} {fresh:>16.0} {:>7.2}",
            sink / ceiling,
            sink / fresh
        );
        out.push(
            Record::new("http-sink", "throughput", sink, "rec/s")
                .vs("plain HTTP client loop (keep-alive)", Some(ceiling), None)
                .runs(args.runs)
                .param("batch_max_size", batch as f64)
                .param("value_bytes", args.value_bytes as f64)
                .note(format!(
                    "{} records, median of {} runs; {sink_mb:.1} MB/s of bodies; a new connection per request: {fresh:.0} rec/s",
                    args.records, args.runs
                )),
        );
    }
    worker.shutdown();
    results::append(&out)?;
    Ok(())
}
