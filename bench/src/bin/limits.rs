//! What the sandbox's limits cost: the datagen connector's `poll` driven in
//! a loop inside one instance (no Kafka, so only the guest and the
//! boundary are measured), under each limit alone and all together, as
//! ratios to the same loop with every limit off. Medians of `--runs`.
//!
//! `just bench` runs it after the Kafka benchmark; alone:
//! `cargo run -p copycat-bench --bin limits -- --records 2000000`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use copycat_bench::median;
use copycat_bench::results::{self, Record};
use copycat_runtime::engine::guest::Guest;
use copycat_runtime::engine::{EngineConfig, WasmEngine};
use copycat_runtime::host::{Grants, TaskHost, TaskIdent, TaskLimits};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(about = "Overhead of Copycat's per-task limits (epoch deadline, fuel, memory cap)")]
struct Args {
    /// Records polled per run.
    #[arg(long, default_value_t = 2_000_000)]
    records: u64,
    /// Records asked per `poll`.
    #[arg(long, default_value_t = 2_000)]
    batch_size: u32,
    /// Value size of each record, bytes.
    #[arg(long, default_value_t = 100)]
    value_size: usize,
    /// Runs per configuration (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Directory holding datagen.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

/// One configuration of the limits.
struct Setup {
    name: &'static str,
    epoch: bool,
    fuel: bool,
    memory_cap: bool,
}

const SETUPS: &[Setup] = &[
    Setup {
        name: "all limits off",
        epoch: false,
        fuel: false,
        memory_cap: false,
    },
    Setup {
        name: "epoch deadline (task.call.timeout.ms)",
        epoch: true,
        fuel: false,
        memory_cap: false,
    },
    Setup {
        name: "memory cap (task.memory.max.bytes)",
        epoch: false,
        fuel: false,
        memory_cap: true,
    },
    Setup {
        name: "fuel (task.fuel.per.call)",
        epoch: false,
        fuel: true,
        memory_cap: false,
    },
    Setup {
        name: "worker default: epoch + memory cap",
        epoch: true,
        fuel: false,
        memory_cap: true,
    },
    Setup {
        name: "everything: epoch + memory cap + fuel",
        epoch: true,
        fuel: true,
        memory_cap: true,
    },
];

/// One configuration's engine and started instance.
struct Prepared {
    name: &'static str,
    // The engine must outlive the instance.
    _engine: WasmEngine,
    guest: Guest,
    rates: Vec<f64>,
}

fn prepare(args: &Args, setup: &Setup) -> Result<Prepared> {
    let engine = WasmEngine::new(&EngineConfig {
        interruptible: setup.epoch,
        fuel: setup.fuel,
        ..EngineConfig::default()
    })
    .map_err(|e| anyhow!("creating the engine: {e:#}"))?;
    let plugin = engine
        .load(&args.plugin_dir.join("datagen.wasm"))
        .map_err(|e| anyhow!("{e}"))?;
    let defaults = TaskLimits::default();
    let limits = TaskLimits {
        memory_bytes: if setup.memory_cap {
            defaults.memory_bytes
        } else {
            usize::MAX
        },
        call_timeout: Duration::from_secs(10),
        fuel_per_call: setup.fuel.then_some(u64::MAX / 2),
        ..defaults
    };
    let host = TaskHost::new(
        TaskIdent::task("bench-limits", 0),
        &limits,
        Arc::default(),
        &Grants::default(),
    )
    .map_err(|e| anyhow!("{e}"))?;
    let mut guest = Guest::instantiate(&engine, &plugin, host, &limits).map_err(|e| anyhow!("{e}"))?;
    let config: Vec<(String, String)> = [
        ("topic", "unused".to_owned()),
        ("value.size", args.value_size.to_string()),
        ("batch.size", args.batch_size.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    guest.source_start(&config).map_err(|e| anyhow!("{e}"))?;
    // Warm up: the first calls fault in memory.
    for _ in 0..20 {
        guest.source_poll(args.batch_size, None).map_err(|e| anyhow!("{e}"))?;
    }
    Ok(Prepared {
        name: setup.name,
        _engine: engine,
        guest,
        rates: Vec::new(),
    })
}

/// Poll `--records` records; records per second.
fn measure(args: &Args, guest: &mut Guest, bar: &ProgressBar) -> Result<f64> {
    let started = Instant::now();
    let mut n = 0u64;
    while n < args.records {
        let batch = guest.source_poll(args.batch_size, None).map_err(|e| anyhow!("{e}"))?;
        if batch.is_empty() {
            bail!("datagen returned an empty batch");
        }
        n += batch.len() as u64;
        bar.set_position(n);
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let mut prepared = Vec::new();
    for setup in SETUPS {
        let sp = ProgressBar::new_spinner().with_message(format!("compiling datagen.wasm for: {}", setup.name));
        sp.enable_steady_tick(Duration::from_millis(100));
        prepared.push(prepare(&args, setup).with_context(|| setup.name)?);
        sp.finish_and_clear();
    }
    // Rounds interleave the configurations, so drift in the machine's state
    // (other load, allocator, frequency) spreads over all of them.
    for round in 0..args.runs {
        for p in &mut prepared {
            let bar = ProgressBar::new(args.records)
                .with_style(ProgressStyle::with_template("{msg:52} {bar:30} {pos}/{len}").context("progress style")?);
            bar.set_message(format!("{} (round {})", p.name, round + 1));
            let rate = measure(&args, &mut p.guest, &bar)?;
            p.rates.push(rate);
            bar.finish_and_clear();
        }
    }
    let rows: Vec<(&str, f64, Vec<f64>)> = prepared
        .into_iter()
        .map(|p| (p.name, median(p.rates.clone()).unwrap_or(f64::NAN), p.rates))
        .collect();
    let base = rows.first().map_or(1.0, |r| r.1);
    println!();
    println!(
        "Limits overhead: datagen poll loop in one instance, {} records x {} B, batch {}, median of {} runs",
        args.records, args.value_size, args.batch_size, args.runs
    );
    println!("{:<44} {:>14} {:>10}", "configuration", "records/s", "ratio");
    for (name, rate, _) in &rows {
        println!("{name:<44} {rate:>14.0} {:>10.3}", rate / base);
    }
    let base_name = rows.first().map_or("", |r| r.0);
    let out: Vec<Record> = rows
        .iter()
        .skip(1)
        .map(|(name, rate, samples)| {
            Record::new("limits", name, *rate, "rec/s")
                .vs(base_name, Some(base), None)
                .samples(samples.clone())
                .note(format!(
                    "datagen poll loop, no Kafka, {} records, median of {} runs",
                    args.records, args.runs
                ))
        })
        .collect();
    results::append(&out)?;
    Ok(())
}
