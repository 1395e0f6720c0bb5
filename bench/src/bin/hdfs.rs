//! hdfs-sink throughput against its ceiling, a raw WebHDFS writer, in one
//! run: the same records (pre-produced to a one-partition topic) go through
//! an embedded worker's hdfs-sink (JSON lines, files of `--flush-size`
//! records, rolled by count only), and the same bytes in the same file
//! sizes go straight to WebHDFS from here (ureq: CREATE on the namenode,
//! the body to the datanode, RENAME from a temporary name: the sink's three
//! requests per file). Each side's MB/s counts the files after the first,
//! from the first file's commit to the last's (the sink's group join and
//! first fetch left out); the sink's commits are seen by listing the
//! partition's directory every 20 ms. Prints both and their ratio.
//!
//! Needs HDFS (`scripts/hdfs.sh start`; `--hdfs-url`/`HDFS_URL`, else
//! `http://127.0.0.1:9870`, its datanode at `--datanode`).
//! `just bench` runs it (`COPYCAT_BENCH_HDFS=0` skips it); alone:
//! `cargo run -p copycat-bench --bin hdfs -- --records 500000`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use copycat_bench::results::{self, Record};
use copycat_bench::{init_tracing, median, props};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use rdkafka::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

#[derive(Parser)]
#[command(about = "hdfs-sink MB/s beside a raw WebHDFS writer")]
struct Args {
    /// Records per run.
    #[arg(long, default_value_t = 400_000)]
    records: usize,
    /// Bytes per record value.
    #[arg(long, default_value_t = 100)]
    value_bytes: usize,
    /// Records per file (the sink's flush.size).
    #[arg(long, default_value_t = 40_000)]
    flush_size: usize,
    /// Runs (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding hdfs-sink.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
    /// The namenode's WebHDFS URL.
    #[arg(long, env = "HDFS_URL", default_value = "http://127.0.0.1:9870")]
    hdfs_url: String,
    /// The datanode's HTTP address (granted to the sink).
    #[arg(long, default_value = "127.0.0.1:9864")]
    datanode: String,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

fn op_url(base: &str, path: &str, op: &str) -> String {
    format!("{base}/webhdfs/v1{path}?op={op}&user.name=copycat")
}

/// The files of `dir`: (name, length).
fn list(agent: &ureq::Agent, base: &str, dir: &str) -> Result<Vec<(String, u64)>> {
    let mut resp = agent.get(&op_url(base, dir, "LISTSTATUS")).call()?;
    if resp.status() == 404 {
        return Ok(Vec::new());
    }
    let json: serde_json::Value = serde_json::from_slice(&resp.body_mut().read_to_vec()?)?;
    Ok(json["FileStatuses"]["FileStatus"]
        .as_array()
        .context("LISTSTATUS answer")?
        .iter()
        .filter_map(|s| Some((s["pathSuffix"].as_str()?.to_owned(), s["length"].as_u64()?)))
        .collect())
}

/// The raw writer: one file as the sink writes it (temporary name, then rename).
fn raw_file(agent: &ureq::Agent, base: &str, temp: &str, target: &str, data: &[u8]) -> Result<()> {
    let mut resp = agent
        .put(&format!(
            "{}&overwrite=true&noredirect=true",
            op_url(base, temp, "CREATE")
        ))
        .send_empty()?;
    let json: serde_json::Value = serde_json::from_slice(&resp.body_mut().read_to_vec()?)?;
    let location = json["Location"].as_str().context("CREATE: no Location")?;
    let resp = agent.put(location).send(data)?;
    if resp.status() != 201 {
        bail!("CREATE {temp}: HTTP {}", resp.status());
    }
    let mut resp = agent
        .put(&format!("{}&destination={target}", op_url(base, temp, "RENAME")))
        .send_empty()?;
    let body = resp.body_mut().read_to_string()?;
    if !body.contains("true") {
        bail!("RENAME {temp}: {body}");
    }
    Ok(())
}

fn value(i: usize, bytes: usize) -> String {
    let mut v = format!("v{i:010}-");
    while v.len() < bytes {
        v.push('x');
    }
    v
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("error");
    if args.records / args.flush_size < 3 {
        bail!("--records must be at least 3 files of --flush-size");
    }
    let base = args.hdfs_url.trim_end_matches('/').to_owned();
    let agent = agent();
    list(&agent, &base, "/").with_context(|| format!("no WebHDFS at {base} (scripts/hdfs.sh start)"))?;
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let plugin_dir = std::fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let state = std::env::temp_dir().join(format!("copycat-bench-hdfs-{run_id}"));
    let wcfg = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &args.bootstrap),
        ("plugin.path", &plugin_dir.to_string_lossy()),
        ("offset.storage.topic", &format!("bench-hdfs-offsets-{run_id}")),
        ("offset.storage.partitions", "3"),
        // Files rolled by flush.size only.
        ("offset.flush.interval.ms", "600000"),
        ("state.dir", &state.join("state").to_string_lossy()),
    ]))
    .context("worker config")?;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    let file_bytes: Vec<u8> = (0..args.flush_size)
        .flat_map(|i| {
            let mut line = value(i, args.value_bytes).into_bytes();
            line.push(b'\n');
            line
        })
        .collect();
    let files = args.records / args.flush_size;
    let records = files * args.flush_size;
    let mib = |bytes: u64, secs: f64| bytes as f64 / (1024.0 * 1024.0) / secs;
    let (mut sink_rates, mut raw_rates, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..args.runs {
        // The records, produced before the sink starts.
        let topic = format!("bench-hdfs-{run_id}-{run}");
        let producer: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", &args.bootstrap)
            .set("linger.ms", "20")
            .set("batch.size", "1000000")
            .create()?;
        for i in 0..records {
            let v = value(i, args.value_bytes);
            loop {
                match producer.send(BaseRecord::<(), _>::to(&topic).payload(&v)) {
                    Ok(()) => break,
                    Err((e, _)) if e.to_string().contains("Queue full") => {
                        producer.poll(Duration::from_millis(10));
                    }
                    Err((e, _)) => return Err(e.into()),
                }
            }
            producer.poll(Duration::ZERO);
        }
        producer.flush(Duration::from_secs(60))?;

        // hdfs-sink.
        let dir = format!("/copycat-bench/{run_id}-{run}/sink");
        let part_dir = format!("{dir}/{topic}/partition=0");
        let name = format!("bench-hdfs-{run_id}-{run}");
        worker.start_connector(ConnectorConfig::from_props(
            props(&[
                ("name", &name),
                ("connector.class", "hdfs-sink"),
                ("topics", &topic),
                ("hdfs.url", &base),
                ("hdfs.user", "copycat"),
                ("topics.dir", &dir),
                ("flush.size", &args.flush_size.to_string()),
                (
                    "grants.http.hosts",
                    &format!("{},{}", base.trim_start_matches("http://"), args.datanode),
                ),
            ]),
            worker.config(),
        )?)?;
        let started = Instant::now();
        let mut seen: Vec<(String, u64, Instant)> = Vec::new();
        while seen.len() < files {
            if started.elapsed() > Duration::from_secs(600) {
                bail!("the sink committed {} of {files} files in 600 s", seen.len());
            }
            for (n, len) in list(&agent, &base, &part_dir)? {
                if !seen.iter().any(|(s, _, _)| *s == n) {
                    seen.push((n, len, Instant::now()));
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        worker.delete_connector(&name)?;
        let secs = seen[files - 1].2.duration_since(seen[0].2).as_secs_f64();
        let bytes: u64 = seen[1..].iter().map(|(_, l, _)| l).sum();
        if bytes != (files as u64 - 1) * file_bytes.len() as u64 {
            bail!("the sink's files hold {bytes} bytes, not the raw writer's");
        }
        let sink = mib(bytes, secs);

        // The raw writer: the same bytes in the same files.
        let raw_dir = format!("/copycat-bench/{run_id}-{run}/raw");
        let mut first_done = None;
        for f in 0..files {
            let temp = format!("{raw_dir}/tmp/{f}_tmp.json");
            let target = format!(
                "{raw_dir}/{topic}+0+{:010}+{:010}.json",
                f * args.flush_size,
                (f + 1) * args.flush_size - 1
            );
            if f == 0 {
                agent
                    .put(&op_url(&base, &raw_dir, "MKDIRS"))
                    .send_empty()
                    .context("MKDIRS")?;
            }
            raw_file(&agent, &base, &temp, &target, &file_bytes)?;
            if f == 0 {
                first_done = Some(Instant::now());
            }
        }
        let raw_secs = first_done.map_or(f64::NAN, |t| t.elapsed().as_secs_f64());
        let raw = mib((files as u64 - 1) * file_bytes.len() as u64, raw_secs);
        println!(
            "run {}: hdfs-sink {sink:.1} MiB/s, raw WebHDFS writer {raw:.1} MiB/s, ratio {:.2} ({files} files of {} records, {} bytes each)",
            run + 1,
            sink / raw,
            args.flush_size,
            file_bytes.len()
        );
        sink_rates.push(sink);
        raw_rates.push(raw);
        ratios.push(sink / raw);
        let _ = agent
            .delete(&format!(
                "{}&recursive=true",
                op_url(&base, &format!("/copycat-bench/{run_id}-{run}"), "DELETE")
            ))
            .call();
    }
    worker.shutdown();
    let _ = std::fs::remove_dir_all(&state);
    let (sink, raw, ratio) = (
        median(sink_rates.clone()).unwrap_or(f64::NAN),
        median(raw_rates).unwrap_or(f64::NAN),
        median(ratios).unwrap_or(f64::NAN),
    );
    println!("| | MiB/s |\n|---|---:|");
    println!("| hdfs-sink (JSON lines, flush.size={}) | {sink:.1} |", args.flush_size);
    println!("| raw WebHDFS writer (same files) | {raw:.1} |");
    println!("| ratio | {ratio:.2} |");
    results::append(&[Record::new("hdfs-sink", "throughput", sink, "MiB/s")
        .vs("raw WebHDFS writer", Some(raw), Some(ratio))
        .param("records", records as f64)
        .param("value_bytes", args.value_bytes as f64)
        .param("flush_size", args.flush_size as f64)
        .runs(args.runs)
        .samples(sink_rates)
        .note(format!(
            "median of {} runs; {files} files of {} records per run; ratio: median of per-run ratios",
            args.runs, args.flush_size
        ))])?;
    Ok(())
}
