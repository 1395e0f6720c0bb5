//! Dynamic connectors: how long a new file in a directory that file-source
//! watches takes to reach Kafka, and how long the tasks pause while the
//! connector's instance replaces them. Each round writes one line to a new
//! file and waits for the topic's end to move; the pickup runs from the
//! file's creation to the record's arrival (the ceiling is the monitor
//! interval: the file shows up at the next `monitor`, on average half an
//! interval later, then the tasks are replaced and the new one reads it).
//! The pause is the replacement's (`SwapReport::pause_ms`). That no line is
//! lost or repeated is checked by `tests/all/dynamic.rs`.
//!
//! `just bench` runs it; alone:
//! `cargo run -p copycat-bench --bin dynamic -- --rounds 20`.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::{create_topics, init_tracing, percentile, props};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};

#[derive(Parser)]
#[command(
    about = "New-file pickup and reconfiguration pause of a dynamic connector (file-source watching a directory)"
)]
struct Args {
    /// New files, one per round.
    #[arg(long, default_value_t = 20)]
    rounds: usize,
    /// connector.monitor.interval.ms.
    #[arg(long, default_value_t = 500)]
    monitor_ms: u64,
    /// Delivery guarantee of the source.
    #[arg(long, default_value = "exactly-once")]
    delivery: String,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding file-source.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let plugin_dir = std::fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let base = std::env::temp_dir().join(format!("copycat-bench-dynamic-{run_id}"));
    let watched = base.join("in");
    std::fs::create_dir_all(&watched)?;
    let wcfg = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &args.bootstrap),
        ("plugin.path", &plugin_dir.to_string_lossy()),
        ("offset.storage.topic", &format!("bench-dynamic-offsets-{run_id}")),
        ("offset.storage.partitions", "3"),
        ("offset.flush.interval.ms", "200"),
        ("state.dir", &base.join("state").to_string_lossy()),
    ]))
    .context("worker config")?;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    let topic = format!("bench-dynamic-{run_id}");
    rt.block_on(create_topics(&args.bootstrap, &[&topic], 1))?;
    let name = format!("dynamic-{run_id}");
    std::fs::write(watched.join("f000.log"), "first\n")?;
    worker.start_connector(ConnectorConfig::from_props(
        props(&[
            ("name", &name),
            ("connector.class", "file-source"),
            ("directory", &watched.to_string_lossy()),
            ("grants.fs.read", &watched.to_string_lossy()),
            ("topic", &topic),
            ("tasks.max", "4"),
            ("delivery.guarantee", &args.delivery),
            ("connector.monitor.interval.ms", &args.monitor_ms.to_string()),
        ]),
        worker.config(),
    )?)?;
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &args.bootstrap)
        .set("group.id", format!("bench-dynamic-reader-{run_id}"))
        .set("isolation.level", "read_committed")
        .create()?;
    let end = |c: &BaseConsumer| -> Result<i64> { Ok(c.fetch_watermarks(&topic, 0, Duration::from_secs(10))?.1) };
    let wait_for = |target: i64| -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        while end(&consumer)? < target {
            anyhow::ensure!(
                Instant::now() < deadline,
                "{name}: the topic did not reach {target} records in 60 s"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(())
    };
    wait_for(1)?;
    println!(
        "Dynamic connector: file-source watching a directory, connector.monitor.interval.ms={}, {} new files, {}",
        args.monitor_ms, args.rounds, args.delivery
    );
    let (mut pickups, mut pauses) = (Vec::new(), Vec::new());
    for i in 1..=args.rounds {
        // An exactly-once end moves by 2 per record (the commit marker).
        let before = end(&consumer)?;
        let started = Instant::now();
        let mut f = std::fs::File::create(watched.join(format!("f{i:03}.log")))?;
        writeln!(f, "line {i}")?;
        drop(f);
        wait_for(before + 1)?;
        pickups.push(started.elapsed().as_secs_f64() * 1000.0);
        if let Some(s) = worker.status(&name)?.last_swap {
            pauses.push(s.pause_ms);
        }
        // Start the next round at a random point of the monitor cycle.
        std::thread::sleep(Duration::from_millis(rand::random::<u64>() % args.monitor_ms.max(1)));
    }
    worker.shutdown();
    let _ = std::fs::remove_dir_all(&base);
    pickups.sort_by(f64::total_cmp);
    pauses.sort_by(f64::total_cmp);
    println!("{:<22} {:>8} {:>8} {:>8} {:>8}   (ms)", "", "p50", "p90", "p99", "max");
    for (what, v) in [("new file -> Kafka", &pickups), ("reconfiguration pause", &pauses)] {
        println!(
            "{what:<22} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
            percentile(v, 0.5),
            percentile(v, 0.9),
            percentile(v, 0.99),
            v.last().copied().unwrap_or(f64::NAN)
        );
    }
    let ceiling = args.monitor_ms as f64;
    println!(
        "pickup p50 / monitor interval: {:.2} (the file waits for the next monitor call: 0.5 on average, plus the replacement)",
        percentile(&pickups, 0.5) / ceiling
    );
    let rec = |metric: &str, value: f64| {
        Record::new("dynamic-file-source", metric, value, "ms")
            .param("monitor_ms", args.monitor_ms as f64)
            .note(format!("{} new files, {}", args.rounds, args.delivery))
    };
    let out = vec![
        rec("pickup-p50", percentile(&pickups, 0.5)),
        rec("pickup-p99", percentile(&pickups, 0.99)).goal(Goal::value_at_most(ceiling + 250.0)),
        rec("pause-p50", percentile(&pauses, 0.5)),
        rec("pause-p99", percentile(&pauses, 0.99)).goal(Goal::value_at_most(250.0)),
    ];
    results::append(&out)?;
    Ok(())
}
