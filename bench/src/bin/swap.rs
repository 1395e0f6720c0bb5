//! Hot-swap pause: a source connector producing at a steady rate is switched
//! between two versions of its component (`tagged` 1.0.0 and 2.0.0, from
//! build/fixtures) again and again through the worker's swap API, for each
//! delivery guarantee. The pause of one swap runs from the drain of the old
//! tasks until every new task has started; the p50/p90/p99 of `--swaps`
//! swaps are printed (the target: p99 <= 250 ms). No record is lost
//! or repeated across a swap; `tests/all/swap.rs` checks that.
//!
//! `just bench` runs it; alone:
//! `cargo run -p copycat-bench --bin swap -- --swaps 30`.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::{create_topics, init_tracing, percentile, props};
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(about = "Pause of a hot swap between two versions of a running source connector")]
struct Args {
    /// Swaps per delivery guarantee.
    #[arg(long, default_value_t = 30)]
    swaps: usize,
    /// Records per second the connector produces.
    #[arg(long, default_value_t = 5_000.0)]
    rate: f64,
    /// Time between swaps, for records of the new version to flow.
    #[arg(long, default_value_t = 300)]
    interval_ms: u64,
    /// Delivery guarantees to measure.
    #[arg(long, value_delimiter = ',', default_value = "exactly-once,at-least-once")]
    delivery: Vec<String>,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding tagged-v1.wasm and tagged-v2.wasm.
    #[arg(long, env = "COPYCAT_FIXTURE_DIR", default_value = "build/fixtures")]
    fixture_dir: PathBuf,
}

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let wcfg = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &args.bootstrap),
        ("offset.storage.topic", &format!("bench-swap-offsets-{run_id}")),
        ("offset.storage.partitions", "3"),
        ("offset.flush.interval.ms", "200"),
        (
            "state.dir",
            &std::env::temp_dir()
                .join(format!("copycat-bench-swap-{run_id}"))
                .to_string_lossy(),
        ),
    ]))
    .context("worker config")?;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    for (file, version) in [("tagged-v1.wasm", "1.0.0"), ("tagged-v2.wasm", "2.0.0")] {
        let path = args.fixture_dir.join(file);
        let bytes =
            std::fs::read(&path).with_context(|| format!("{} (run `just build-connectors`)", path.display()))?;
        worker.install_plugin("tagged", version, &bytes)?;
    }
    println!(
        "Hot swap: tagged 1.0.0 <-> 2.0.0 at {} records/s, {} swaps per guarantee, {} ms apart",
        args.rate, args.swaps, args.interval_ms
    );
    println!(
        "{:<15} {:>8} {:>8} {:>8} {:>8}   (pause, ms)",
        "guarantee", "p50", "p90", "p99", "max"
    );
    let mut out = Vec::new();
    for delivery in &args.delivery {
        let topic = format!("bench-swap-{delivery}-{run_id}");
        rt.block_on(create_topics(&args.bootstrap, &[&topic], 2))?;
        let name = format!("swap-{delivery}-{run_id}");
        let cfg = ConnectorConfig::from_props(
            props(&[
                ("name", &name),
                ("connector.class", "tagged"),
                ("connector.plugin.version", "1.0.0"),
                ("topic", &topic),
                ("streams", "2"),
                ("rate", &args.rate.to_string()),
                ("delivery.guarantee", delivery),
            ]),
            worker.config(),
        )?;
        worker.start_connector(cfg)?;
        // Swaps of a running connector: the first only once its records
        // flow. (An exactly-once task's first start — the transaction
        // coordinator's producer id — took up to 0.5 s here; a swap during
        // it measured that start-up, not a swap.)
        let deadline = Instant::now() + Duration::from_secs(60);
        while !worker
            .task_metrics(&name)?
            .iter()
            .all(|m| m.offset_commits.load(Ordering::Relaxed) > 0)
        {
            anyhow::ensure!(Instant::now() < deadline, "{name}: no offsets committed within 60 s");
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(args.interval_ms));
        let bar = ProgressBar::new(args.swaps as u64).with_style(
            ProgressStyle::with_template("{msg:>15} [{bar:30}] {pos}/{len} swaps")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(delivery.clone());
        let mut pauses = Vec::with_capacity(args.swaps);
        for i in 0..args.swaps {
            let version = if i % 2 == 0 { "2.0.0" } else { "1.0.0" };
            let report = worker.swap_version(&name, version)?;
            pauses.push(report.pause_ms);
            bar.inc(1);
            std::thread::sleep(Duration::from_millis(args.interval_ms));
        }
        bar.finish_and_clear();
        worker.delete_connector(&name)?;
        pauses.sort_by(f64::total_cmp);
        println!(
            "{:<15} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
            delivery,
            percentile(&pauses, 0.5),
            percentile(&pauses, 0.9),
            percentile(&pauses, 0.99),
            pauses.last().copied().unwrap_or(f64::NAN)
        );
        let scenario = format!("swap-{delivery}");
        let rec = |metric: &str, value: f64| {
            Record::new(&scenario, metric, value, "ms")
                .param("rate", args.rate)
                .note(format!("pause over {} swaps", pauses.len()))
        };
        out.push(rec("p50", percentile(&pauses, 0.5)));
        out.push(rec("p99", percentile(&pauses, 0.99)).goal(Goal::value_at_most(250.0)));
    }
    worker.shutdown();
    results::append(&out)?;
    Ok(())
}
