//! The web console's cost: what an open console tab costs the worker it
//! polls, and how fast its pages come up, with `--connectors` datagen
//! connectors on one `copycat standalone` worker, in Debian's Chromium
//! (headless, through chromedriver).
//!
//! Figures: the worker's CPU with the connectors list open vs closed (the
//! ceiling is the worker alone: an open console should add next to
//! nothing); the requests and bytes per minute the open list causes (from
//! the browser's Resource Timing); the time until the list shows every
//! connector, first load and reloads (p50); the bundle's size. Kafka
//! Connect ships no console: there is nothing of it to compare.
//!
//! `just bench` runs it; alone: `just bench --bin console --connectors 100`.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use copycat_bench::process::Proc;
use copycat_bench::results::{self, Record};
use copycat_bench::{cpu_time_of, free_port, median, unique, workspace};
use fantoccini::{Client, ClientBuilder, Locator};

#[derive(Parser)]
#[command(about = "What an open web console costs its worker, and how fast its pages come up")]
struct Args {
    /// Connectors on the worker (datagen, 1 record/s each).
    #[arg(long, default_value_t = 100)]
    connectors: usize,
    /// Seconds of each CPU measurement (console closed, then open).
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Reloads of the connectors list timed after the first load.
    #[arg(long, default_value_t = 5)]
    reloads: usize,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding the connector components (datagen.wasm).
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
}

/// Cores the process used over `secs` seconds from now.
fn cores_over(pid: u32, secs: u64) -> f64 {
    let pid = pid.to_string();
    let (c0, t0) = (cpu_time_of(&pid), Instant::now());
    std::thread::sleep(Duration::from_secs(secs));
    (cpu_time_of(&pid) - c0).as_secs_f64() / t0.elapsed().as_secs_f64()
}

fn bundle_bytes() -> Result<(u64, u64)> {
    let dist = workspace().join("runtime/console/dist");
    let (mut raw, mut gz) = (0, 0);
    for e in
        std::fs::read_dir(dist.join("assets")).with_context(|| format!("{} (run `just console`)", dist.display()))?
    {
        let p = e?.path();
        raw += std::fs::metadata(&p)?.len();
        let out = Command::new("gzip").arg("-9c").arg(&p).output().context("gzip")?;
        gz += out.stdout.len() as u64;
    }
    Ok((raw, gz))
}

async fn rows_shown(driver: &Client, n: usize, deadline: Instant) -> Result<()> {
    loop {
        let rows = driver
            .find_all(Locator::Css("[data-testid^='connector-row-']"))
            .await?
            .len();
        if rows >= n {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the connectors list showed {rows} of {n} connectors");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let worker_props = dir.path().join("worker.properties");
    std::fs::write(
        &worker_props,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={}\nlisteners=http://127.0.0.1:{port}\nstate.dir={}\n",
            args.bootstrap,
            args.plugin_dir.canonicalize().context("plugin dir")?.display(),
            unique("bench-console-offsets"),
            dir.path().join("state").display(),
        ),
    )?;
    let target = std::env::var("CARGO_TARGET_DIR").map_or_else(|_| workspace().join("target"), PathBuf::from);
    let mut cmd = Command::new(target.join("debug/copycat"));
    cmd.arg("standalone").arg(&worker_props).env("RUST_LOG", "warn");
    let worker = Proc::spawn("copycat standalone", cmd, &dir.path().join("worker.log"))?;
    let base = format!("http://127.0.0.1:{port}");
    let agent = ureq::Agent::new_with_defaults();
    let deadline = Instant::now() + Duration::from_secs(60);
    while agent.get(format!("{base}/health")).call().is_err() {
        if Instant::now() > deadline {
            bail!(
                "the worker did not answer: {}",
                copycat_bench::process::tail(&worker.log, 20)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let topic = unique("bench-console");
    for i in 0..args.connectors {
        let body = serde_json::json!({"name": format!("gen-{i:03}"), "config": {
            "connector.class": "datagen", "topic": topic, "rate": "1",
        }});
        agent
            .post(format!("{base}/connectors"))
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .with_context(|| format!("creating connector {i}"))?;
    }
    // Every connector running before anything is measured.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let text = agent
            .get(format!("{base}/connectors?expand=status"))
            .call()?
            .body_mut()
            .read_to_string()?;
        let all: serde_json::Value = serde_json::from_str(&text)?;
        let running = all.as_object().map_or(0, |m| {
            m.values()
                .filter(|c| c["status"]["connector"]["state"] == "RUNNING")
                .count()
        });
        if running == args.connectors {
            break;
        }
        if Instant::now() > deadline {
            bail!("{running} of {} connectors running", args.connectors);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    println!(
        "Web console: {} datagen connectors on one worker, Chromium headless",
        args.connectors
    );
    let idle = cores_over(worker.pid(), args.seconds);

    let cd_port = free_port()?;
    let mut cd = Command::new(std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into()));
    cd.arg(format!("--port={cd_port}"));
    let _chromedriver = Proc::spawn("chromedriver", cd, &dir.path().join("chromedriver.log"))
        .context("chromedriver (apt-get install chromium chromium-driver)")?;
    let rt = tokio::runtime::Runtime::new()?;
    let (first_ms, reload_ms, open, requests_per_min, kib_per_min) = rt.block_on(async {
        let mut chrome = serde_json::json!({"args": [
            "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1366,768",
        ]});
        if std::path::Path::new("/usr/bin/chromium").exists() {
            chrome["binary"] = serde_json::json!("/usr/bin/chromium");
        }
        let mut caps = serde_json::Map::new();
        caps.insert("goog:chromeOptions".into(), chrome);
        let deadline = Instant::now() + Duration::from_secs(30);
        let driver = loop {
            match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{cd_port}"))
                .await
            {
                Ok(d) => break d,
                Err(e) if Instant::now() > deadline => return Err(anyhow::anyhow!("chromedriver: {e}")),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        let url = format!("{base}/ui/connectors");
        let t0 = Instant::now();
        driver.goto(&url).await?;
        rows_shown(&driver, args.connectors, Instant::now() + Duration::from_secs(60)).await?;
        let first = t0.elapsed().as_secs_f64() * 1000.0;
        let mut reloads = Vec::new();
        for _ in 0..args.reloads {
            let t0 = Instant::now();
            driver.goto(&url).await?;
            rows_shown(&driver, args.connectors, Instant::now() + Duration::from_secs(60)).await?;
            reloads.push(t0.elapsed().as_secs_f64() * 1000.0);
        }
        // The list left open: what it asks of the worker.
        driver
            .execute(
                "performance.clearResourceTimings(); performance.setResourceTimingBufferSize(100000);",
                vec![],
            )
            .await?;
        let t0 = Instant::now();
        let pid = worker.pid();
        let secs = args.seconds;
        let open = tokio::task::spawn_blocking(move || cores_over(pid, secs)).await?;
        let ret = driver
            .execute(
                "const e = performance.getEntriesByType('resource'); \
                 return [e.length, e.reduce((s, r) => s + (r.transferSize || r.encodedBodySize || 0), 0)];",
                vec![],
            )
            .await?;
        let n = ret[0].as_f64().unwrap_or(0.0);
        let bytes = ret[1].as_f64().unwrap_or(0.0);
        let minutes = t0.elapsed().as_secs_f64() / 60.0;
        driver.close().await?;
        Ok::<_, anyhow::Error>((
            first,
            median(reloads).unwrap_or(f64::NAN),
            open,
            n / minutes,
            bytes / 1024.0 / minutes,
        ))
    })?;
    let (raw, gz) = bundle_bytes()?;
    let added = open - idle;
    println!("{:<44} {:>10}", "figure", "value");
    println!(
        "{:<44} {:>9.1}%",
        "worker CPU, console closed (% of a core)",
        idle * 100.0
    );
    println!("{:<44} {:>9.1}%", "worker CPU, connectors list open", open * 100.0);
    println!("{:<44} {:>9.1}%", "added by the open console", added * 100.0);
    println!("{:<44} {:>10.0}", "requests per minute (open list)", requests_per_min);
    println!("{:<44} {:>10.0}", "KiB per minute (open list)", kib_per_min);
    println!("{:<44} {:>8.0}ms", "list shown, first load", first_ms);
    println!("{:<44} {:>8.0}ms", "list shown, reload (p50)", reload_ms);
    println!("{:<44} {:>7.0}KiB", "bundle (JS + CSS), gzip -9", gz as f64 / 1024.0);
    println!("{:<44} {:>7.0}KiB", "bundle (JS + CSS), raw", raw as f64 / 1024.0);
    let n = args.connectors as f64;
    let rec = |metric: &str, v: f64, unit: &str| {
        let mut r = Record::new("console", metric, v, unit);
        r.params.insert("connectors".into(), n);
        r
    };
    results::append(&[
        rec("worker-cpu-added", added * 100.0, "% core").vs(
            "worker alone",
            Some(idle * 100.0),
            Some(if idle > 0.0 { open / idle } else { f64::NAN }),
        ),
        rec("requests-per-minute", requests_per_min, "req/min"),
        rec("list-first-load", first_ms, "ms"),
        rec("list-reload-p50", reload_ms, "ms"),
        rec("bundle-gzip", gz as f64 / 1024.0, "KiB"),
    ])?;
    Ok(())
}
