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
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::{cpu_time as cpu, init_tracing, mib, props, rss_bytes as rss, threads};
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

fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("error");
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
            .filter(|t| t.state == copycat_runtime::TaskState::Running)
            .count();
        if running == args.tasks {
            break;
        }
        if let Some(f) = status
            .tasks
            .iter()
            .find(|t| t.state == copycat_runtime::TaskState::Failed)
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
    let tasks = args.tasks as f64;
    let rec = |metric: &str, value: f64, unit: &str| Record::new("density", metric, value, unit).param("tasks", tasks);
    results::append(&[
        rec("rss-per-task", mib(per_task), "MiB").note(format!("(RSS with tasks - RSS before) / {} tasks", args.tasks)),
        rec("rss-total", mib(total), "MiB").note(format!("RSS before the tasks: {:.0} MiB", mib(base_rss))),
        rec("rss-1000-tasks", mib(base_rss) + mib(per_task) * 1000.0, "MiB")
            .goal(Goal::value_at_most(1024.0))
            .note(format!(
                "projected: RSS before + 1,000 × RSS per task (measured with {} tasks)",
                args.tasks
            )),
        rec("idle-cpu", idle_cpu * 100.0, "% of a core").note(format!(
            "{} tasks at {} records/s in all, over {} s",
            args.tasks, args.rate, args.idle_secs
        )),
        rec("start-all", started.as_secs_f64(), "s"),
    ])?;
    Ok(())
}
