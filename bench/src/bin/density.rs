//! Density: how many tasks one worker carries. An embedded worker runs one
//! datagen connector with `--tasks` rate-limited tasks (one stream each);
//! the benchmark reports the process's RSS before and after the tasks
//! started, RSS per task, the time to start them all, and the CPU the
//! process burns while the tasks are idle between records (an idle task
//! must cost no CPU: no busy polling). The goal: ≤ 1 GiB for 1,000
//! tasks.
//!
//! `just bench` runs it; alone: `cargo run -p copycat-bench --bin density -- --tasks 1000`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use copycat_runtime::config::Props;
use copycat_runtime::{ConnectorConfig, Worker, WorkerConfig};

#[derive(Parser)]
#[command(about = "RSS and idle CPU of one worker running many rate-limited datagen tasks")]
struct Args {
    /// Tasks to run.
    #[arg(long, default_value_t = 1000)]
    tasks: usize,
    /// Records per second of the whole connector (spread over the tasks:
    /// datagen's `rate` is per task, so each task gets `rate / tasks`).
    #[arg(long, default_value_t = 100.0)]
    rate: f64,
    /// How long to measure CPU once every task runs.
    #[arg(long, default_value_t = 10)]
    idle_secs: u64,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding datagen.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

fn props(pairs: &[(&str, &str)]) -> Props {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// The process's resident set, in bytes.
fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .unwrap_or(0)
        * 1024
}

/// CPU time (user + system) the process used so far.
fn cpu() -> Duration {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name (which may hold spaces).
            let rest = s.rsplit_once(')')?.1.to_owned();
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .unwrap_or(0);
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

/// Records Kafka acknowledged to the worker's source tasks so far (the
/// sum of `copycat_source_records_produced_total`).
fn produced(worker: &Worker) -> f64 {
    worker
        .metrics_text()
        .lines()
        .filter(|l| l.starts_with("copycat_source_records_produced_total{"))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn main() -> Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error")),
        )
        .with_writer(std::io::stderr)
        .init();
    let rt = tokio::runtime::Runtime::new()?;
    let run_id = format!("{:x}", rand::random::<u32>());
    let plugin_dir = std::fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let wcfg = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &args.bootstrap),
        ("plugin.path", &plugin_dir.to_string_lossy()),
        ("offset.storage.topic", &format!("bench-density-offsets-{run_id}")),
        ("offset.storage.partitions", "3"),
        (
            "state.dir",
            &std::env::temp_dir()
                .join(format!("copycat-bench-density-{run_id}"))
                .to_string_lossy(),
        ),
    ]))
    .context("worker config")?;
    let worker = rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
    let base_rss = rss();
    let tasks = args.tasks.to_string();
    // datagen's `rate` is per task.
    let task_rate = (args.rate / args.tasks.max(1) as f64).to_string();
    let cfg = ConnectorConfig::from_props(
        props(&[
            ("name", "density"),
            ("connector.class", "datagen"),
            ("topic", &format!("bench-density-{run_id}")),
            ("streams", &tasks),
            ("tasks.max", &tasks),
            ("rate", &task_rate),
        ]),
        worker.config(),
    )?;
    let t0 = Instant::now();
    worker.start_connector(cfg)?;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let status = worker.status("density")?;
        let running = status
            .tasks
            .iter()
            .filter(|t| t.state == copycat_runtime::task::TaskState::Running)
            .count();
        if running == args.tasks {
            break;
        }
        if let Some(f) = status
            .tasks
            .iter()
            .find(|t| t.state == copycat_runtime::task::TaskState::Failed)
        {
            bail!("task {} failed: {:?}", f.id, f.trace);
        }
        if Instant::now() > deadline {
            bail!("{running} of {} tasks running after 600 s", args.tasks);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let started = t0.elapsed();
    // Let start-up settle, then measure.
    std::thread::sleep(Duration::from_secs(2));
    let (cpu0, at0, produced0) = (cpu(), Instant::now(), produced(&worker));
    std::thread::sleep(Duration::from_secs(args.idle_secs));
    let window = at0.elapsed().as_secs_f64();
    let idle_cpu = (cpu() - cpu0).as_secs_f64() / window;
    let delivered = (produced(&worker) - produced0) / window;
    let total = rss();
    let per_task = total.saturating_sub(base_rss) / args.tasks.max(1) as u64;
    println!(
        "density: {} datagen tasks ({} records/s in all) in one worker",
        args.tasks, args.rate
    );
    println!(
        "| tasks | start all | RSS before | RSS with tasks | RSS per task | threads | CPU while idle | delivered | goal |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    println!(
        "| {} | {:.1} s | {:.0} MiB | {:.0} MiB | {:.2} MiB | {} | {:.1} % of a core | {:.0} records/s | <= 1 GiB for 1,000 |",
        args.tasks,
        started.as_secs_f64(),
        mib(base_rss),
        mib(total),
        mib(per_task),
        threads(),
        idle_cpu * 100.0,
        delivered,
    );
    worker.shutdown();
    Ok(())
}
