//! Failover time of a distributed cluster: three `copycat worker` processes
//! on 127.0.0.1 run a datagen connector (exactly-once, one task per worker
//! pair); a worker running tasks is killed (SIGKILL: no goodbye, the group
//! coordinator notices after `session.timeout.ms`) or stopped (SIGTERM: it
//! hands its tasks back and leaves the group), and the time until every
//! task runs again on a live worker is measured through the REST API of a
//! survivor. The killed worker is restarted between runs. The issue's
//! target: under 10 s after SIGKILL (Kafka Connect's defaults can take
//! minutes: session timeout plus `scheduled.rebalance.max.delay.ms`).
//!
//! `just bench` runs it; alone (after `cargo build -p copycat-runtime --bin copycat`):
//! `cargo run -p copycat-bench --bin failover -- --runs 5`.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::Parser;
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::{free_port, percentile};
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "Time until a dead (SIGKILL) or leaving (SIGTERM) worker's tasks run elsewhere")]
struct Args {
    /// Kills (and graceful stops) to measure.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Tasks of the connector.
    #[arg(long, default_value_t = 6)]
    tasks: usize,
    /// `session.timeout.ms` of the workers.
    #[arg(long, default_value_t = 6000)]
    session_timeout_ms: u64,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Keep the workers' configs and logs (printed at the end) instead of
    /// deleting them.
    #[arg(long)]
    keep_logs: bool,
    /// The `copycat` binary.
    #[arg(long, env = "COPYCAT_BIN")]
    copycat: PathBuf,
    /// Directory holding datagen.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

/// One worker process, killed when dropped.
struct Proc {
    config: PathBuf,
    addr: SocketAddr,
    log: PathBuf,
    bin: PathBuf,
    child: Option<Child>,
}

impl Proc {
    fn start(&mut self) -> Result<()> {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&self.log)?;
        self.child = Some(
            Command::new(&self.bin)
                .arg("worker")
                .arg(&self.config)
                .stdout(log.try_clone()?)
                .stderr(log)
                .spawn()
                .with_context(|| format!("starting {}", self.bin.display()))?,
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(self.addr).is_err() {
            if Instant::now() > deadline {
                bail!(
                    "worker {} did not answer within 60 s; see {}",
                    self.addr,
                    self.log.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    fn signal(&mut self, sig: &str) -> Result<()> {
        let mut child = self
            .child
            .take()
            .ok_or_else(|| anyhow!("worker {} is not running", self.addr))?;
        Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()?;
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!("worker {} did not exit within 60 s of SIG{sig}", self.addr);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value)> {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut resp = String::new();
    s.read_to_string(&mut resp)?;
    let code = resp
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| anyhow!("no HTTP status from {addr}"))?;
    let body = resp.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Ok((code, serde_json::from_str(body).unwrap_or(Value::Null)))
}

/// Task → worker, when every task is RUNNING.
fn placement(addr: SocketAddr, name: &str) -> Option<BTreeMap<u64, String>> {
    let (code, s) = http(addr, "GET", &format!("/connectors/{name}/status"), None).ok()?;
    if code != 200 {
        return None;
    }
    let tasks = s["tasks"].as_array()?;
    if tasks.is_empty() || tasks.iter().any(|t| t["state"] != "RUNNING") {
        return None;
    }
    tasks
        .iter()
        .map(|t| Some((t["id"].as_u64()?, t["worker_id"].as_str()?.to_owned())))
        .collect()
}

/// Wait until every task runs on one of `live`; the time it took.
fn await_on(addr: SocketAddr, name: &str, live: &[String], since: Instant) -> Result<Duration> {
    let deadline = since + Duration::from_secs(120);
    loop {
        if let Some(p) = placement(addr, name)
            && p.values().all(|w| live.contains(w))
        {
            return Ok(since.elapsed());
        }
        if Instant::now() > deadline {
            bail!("the tasks of {name} did not all run on {live:?} within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn write_config(dir: &Path, i: usize, group: &str, args: &Args) -> Result<(PathBuf, SocketAddr)> {
    let port = free_port()?;
    let config = dir.join(format!("w{i}.properties"));
    std::fs::write(
        &config,
        format!(
            "bootstrap.servers={}\nplugin.path={}\ngroup.id={group}\nconfig.storage.topic={group}-configs\n\
             status.storage.topic={group}-status\noffset.storage.topic={group}-offsets\noffset.storage.partitions=3\n\
             listeners=http://127.0.0.1:{port}\nstate.dir={}/w{i}\nexactly.once.source.support=enabled\n\
             session.timeout.ms={}\n",
            args.bootstrap,
            std::fs::canonicalize(&args.plugin_dir)?.display(),
            dir.display(),
            args.session_timeout_ms,
        ),
    )?;
    Ok((config, format!("127.0.0.1:{port}").parse()?))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!("copycat-failover-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let group = format!("failover-{}", rand::random::<u32>());
    let mut procs = Vec::new();
    for i in 0..3 {
        let (config, addr) = write_config(&dir, i, &group, &args)?;
        let mut p = Proc {
            config,
            addr,
            log: dir.join(format!("w{i}.log")),
            bin: args.copycat.clone(),
            child: None,
        };
        p.start()?;
        procs.push(p);
    }
    let ids: Vec<String> = procs.iter().map(|p| p.addr.to_string()).collect();
    let name = "failover-gen";
    let topic = format!("{group}-data");
    let (code, body) = http(
        procs[0].addr,
        "POST",
        "/connectors",
        Some(&json!({"name": name, "config": {
            "connector.class": "datagen", "topic": topic, "streams": args.tasks.to_string(),
            "tasks.max": args.tasks.to_string(), "rate": "200", "delivery.guarantee": "exactly-once",
        }})),
    )?;
    if code != 201 {
        bail!("creating the connector: {code} {body}");
    }
    await_on(procs[0].addr, name, &ids, Instant::now())?;
    println!(
        "failover: 3 workers, {} exactly-once tasks, session.timeout.ms={} ({} runs each)",
        args.tasks, args.session_timeout_ms, args.runs
    );
    let mut results: Vec<(&str, Vec<f64>)> = vec![("SIGKILL", Vec::new()), ("SIGTERM", Vec::new())];
    for run in 0..args.runs {
        for (signal, times) in &mut results {
            // The victim: the worker running task 0.
            // After the previous restart the plan may still be moving a
            // task (not RUNNING yet): wait until every task runs.
            let deadline = Instant::now() + Duration::from_secs(60);
            let p = loop {
                if let Some(p) = procs.iter().find_map(|w| placement(w.addr, name)) {
                    break p;
                }
                if Instant::now() > deadline {
                    bail!("the tasks of {name} were not all RUNNING within 60 s");
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            let victim_id = p.get(&0).cloned().ok_or_else(|| anyhow!("no task 0"))?;
            let v = ids
                .iter()
                .position(|id| *id == victim_id)
                .ok_or_else(|| anyhow!("unknown worker {victim_id}"))?;
            let live: Vec<String> = ids.iter().filter(|id| **id != victim_id).cloned().collect();
            let observer = procs[(v + 1) % 3].addr;
            let t0 = Instant::now();
            procs[v].signal(if *signal == "SIGKILL" { "KILL" } else { "TERM" })?;
            let took = await_on(observer, name, &live, t0)?;
            println!(
                "  run {}: {signal} of {victim_id}: its tasks ran elsewhere after {:.2} s",
                run + 1,
                took.as_secs_f64()
            );
            times.push(took.as_secs_f64());
            procs[v].start()?;
            await_on(observer, name, &ids, Instant::now())?;
            // Let the restarted worker take its share before the next kill.
            let deadline = Instant::now() + Duration::from_secs(60);
            while placement(observer, name).is_none_or(|p| !p.values().any(|w| *w == victim_id)) {
                if Instant::now() > deadline {
                    bail!("the restarted worker {victim_id} got no task back");
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    println!("\n| stop | runs | p50 | max | target |");
    println!("|---|---:|---:|---:|---|");
    let mut out = Vec::new();
    for (signal, mut times) in results {
        times.sort_by(f64::total_cmp);
        let scenario = format!("failover-{}", signal.to_lowercase());
        let goal = (signal == "SIGKILL").then(|| Goal::value_at_most(10.0));
        for (metric, value) in [
            ("p50", percentile(&times, 0.5)),
            ("max", times.last().copied().unwrap_or(f64::NAN)),
        ] {
            let mut r = Record::new(&scenario, metric, value, "s")
                .samples(times.clone())
                .note(format!("{} runs, 3 workers, {} tasks", times.len(), args.tasks));
            if let Some(g) = goal {
                r = r.goal(g);
            }
            out.push(r);
        }
        println!(
            "| {signal} | {} | {:.2} s | {:.2} s | {} |",
            times.len(),
            percentile(&times, 0.5),
            times.last().copied().unwrap_or(f64::NAN),
            if signal == "SIGKILL" { "< 10 s" } else { "-" }
        );
    }
    drop(procs);
    if args.keep_logs {
        println!("the workers' logs: {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    results::append(&out)?;
    Ok(())
}
