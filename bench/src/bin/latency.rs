//! End-to-end latency at a fixed rate below saturation: datagen (one
//! stream, `--rate` records/s) → Kafka → file-sink in one embedded worker.
//! A record's start is its Kafka timestamp (CreateTime: set when the
//! source task hands the polled record to the producer, right after the
//! guest created it); its end is when its line appears in the sink's file,
//! which file-sink writes during `put` (watched every 0.5 ms). Both clocks
//! are this machine's wall clock; the timestamp has millisecond resolution.
//! Prints p50/p90/p99/max over the records after a warm-up.
//!
//! `just bench` runs it; alone: `cargo run -p copycat-bench --bin latency -- --rate 1000 --secs 10`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use clap::Parser;
use copycat_bench::results::{self, Record};
use copycat_bench::{init_tracing, percentile, props};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

#[derive(Parser)]
#[command(about = "End-to-end latency from a source record's creation to the sink's put")]
struct Args {
    /// Records per second.
    #[arg(long, default_value_t = 1000.0)]
    rate: f64,
    /// Seconds measured (after the warm-up).
    #[arg(long, default_value_t = 10)]
    secs: u64,
    /// Seconds of warm-up (not measured).
    #[arg(long, default_value_t = 3)]
    warmup_secs: u64,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding datagen.wasm and file-sink.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// `stream-0:<seq>....` → seq.
fn seq_of(line: &str) -> Option<u64> {
    line.split('.').next()?.rsplit_once(':')?.1.parse().ok()
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("error");
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let plugin_dir = std::fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let out_dir = std::env::temp_dir().join(format!("copycat-bench-latency-{run_id}"));
    std::fs::create_dir_all(&out_dir)?;
    let wcfg = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &args.bootstrap),
        ("plugin.path", &plugin_dir.to_string_lossy()),
        ("offset.storage.topic", &format!("bench-latency-offsets-{run_id}")),
        ("offset.storage.partitions", "3"),
        ("state.dir", &out_dir.join("state").to_string_lossy()),
    ]))
    .context("worker config")?;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    let topic = format!("bench-latency-{run_id}");
    let out = out_dir.join("out");
    std::fs::create_dir_all(&out)?;
    // The source first (it creates the topic), then the sink, which reads
    // from the beginning; the warm-up covers its group join.
    worker.start_connector(ConnectorConfig::from_props(
        props(&[
            ("name", "latency-source"),
            ("connector.class", "datagen"),
            ("topic", &topic),
            ("streams", "1"),
            ("topic.partitions", "1"),
            ("rate", &args.rate.to_string()),
        ]),
        worker.config(),
    )?)?;
    worker.start_connector(ConnectorConfig::from_props(
        props(&[
            ("name", "latency-sink"),
            ("connector.class", "file-sink"),
            ("topics", &topic),
            ("directory", &out.to_string_lossy()),
            ("grants.fs.write", &out.to_string_lossy()),
        ]),
        worker.config(),
    )?)?;
    // Watch the sink's file: when each line appears.
    let file = out.join(format!("{topic}-0.txt"));
    let mut seen: HashMap<u64, f64> = HashMap::new();
    let start = Instant::now();
    let total = Duration::from_secs(args.warmup_secs + args.secs);
    let mut pos = 0u64;
    let mut partial = String::new();
    while start.elapsed() < total {
        if let Ok(f) = std::fs::File::open(&file) {
            let mut r = BufReader::new(f);
            r.seek(SeekFrom::Start(pos))?;
            let mut line = String::new();
            loop {
                line.clear();
                let n = r.read_line(&mut line)?;
                if n == 0 {
                    break;
                }
                pos += n as u64;
                if !line.ends_with('\n') {
                    partial.push_str(&line);
                    continue;
                }
                let full = std::mem::take(&mut partial) + &line;
                if let Some(seq) = seq_of(full.trim_end()) {
                    seen.entry(seq).or_insert_with(now_ms);
                }
            }
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    worker.shutdown();
    // Each record's Kafka timestamp.
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &args.bootstrap)
        .set("group.id", format!("bench-latency-reader-{run_id}"))
        .set("enable.auto.commit", "false")
        .create()?;
    let (_, end) = consumer.fetch_watermarks(&topic, 0, Duration::from_secs(10))?;
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(&topic, 0, Offset::Beginning)?;
    consumer.assign(&tpl)?;
    let mut created: HashMap<u64, f64> = HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut read = 0i64;
    while read < end && Instant::now() < deadline {
        let Some(m) = consumer.poll(Duration::from_millis(200)) else {
            continue;
        };
        let m = m?;
        read = m.offset() + 1;
        let (Some(key), Some(ts)) = (m.key(), m.timestamp().to_millis()) else {
            continue;
        };
        if let Some(seq) = seq_of(&String::from_utf8_lossy(key)) {
            created.insert(seq, ts as f64);
        }
    }
    let warm_ms = args.warmup_secs as f64 * 1000.0;
    let first_ts = created.values().copied().fold(f64::INFINITY, f64::min);
    let mut lat: Vec<f64> = seen
        .iter()
        .filter_map(|(seq, at)| {
            let ts = created.get(seq)?;
            (*ts >= first_ts + warm_ms).then_some(at - ts)
        })
        .collect();
    if lat.is_empty() {
        bail!(
            "no record reached the sink after the warm-up ({} seen, {} produced)",
            seen.len(),
            created.len()
        );
    }
    lat.sort_by(f64::total_cmp);
    println!(
        "latency: datagen -> Kafka -> file-sink, {} records/s, {} records measured (after {} s warm-up)",
        args.rate,
        lat.len(),
        args.warmup_secs
    );
    println!("| rate | records | p50 | p90 | p99 | max |");
    println!("|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} /s | {} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms |",
        args.rate,
        lat.len(),
        percentile(&lat, 0.5),
        percentile(&lat, 0.9),
        percentile(&lat, 0.99),
        lat.last().copied().unwrap_or(f64::NAN)
    );
    let _ = std::fs::remove_dir_all(&out_dir);
    let n = lat.len();
    let rec = |metric: &str, value: f64| {
        Record::new("latency", metric, value, "ms")
            .param("rate", args.rate)
            .note(format!("{n} records over {} s at {} records/s", args.secs, args.rate))
    };
    results::append(&[
        rec("p50", percentile(&lat, 0.5)),
        rec("p90", percentile(&lat, 0.9)),
        rec("p99", percentile(&lat, 0.99)),
        rec("max", lat.last().copied().unwrap_or(f64::NAN)),
    ])?;
    Ok(())
}
