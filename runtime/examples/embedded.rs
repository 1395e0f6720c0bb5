//! Embedded mode: a Copycat worker inside your own application.
//!
//! The worker is a library type, [`copycat_runtime::Worker`]: build its
//! config from the same keys as `worker.properties`, start it, add
//! connectors from code (the same keys as a connector's `.properties`),
//! watch their status and counters, optionally serve the REST API on a
//! socket of your choosing, and shut it down gracefully (every task
//! flushes and commits) when your application ends.
//!
//! Run it against a broker (`just kafka-start`) once the components are
//! built (`just build-connectors`):
//!
//! ```sh
//! cargo run -p copycat-runtime --example embedded
//! ```
//!
//! `KAFKA_BOOTSTRAP` (default `127.0.0.1:9092`) and `COPYCAT_PLUGIN_DIR`
//! (default `build/plugins`) override where it looks.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use copycat_runtime::config::Props;
use copycat_runtime::rest::{self, RestState};
use copycat_runtime::{ConnectorConfig, TargetState, Worker, WorkerConfig};

const RECORDS: u64 = 1_000;

fn props(pairs: &[(&str, &str)]) -> Props {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[tokio::main]
async fn main() -> Result<()> {
    let bootstrap = std::env::var("KAFKA_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".into());
    let plugins = std::env::var("COPYCAT_PLUGIN_DIR").unwrap_or_else(|_| "build/plugins".into());
    let run = format!("{:x}", std::process::id());

    // 1. The worker: the keys of worker.properties.
    let worker_config = WorkerConfig::from_props(props(&[
        ("bootstrap.servers", &bootstrap),
        ("plugin.path", &plugins),
        ("offset.storage.topic", "copycat-embedded-offsets"),
        ("offset.flush.interval.ms", "500"),
    ]))?;
    let worker = Worker::start(worker_config).await?;

    // 2. Optional: the Kafka Connect REST API on a socket of your choosing.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?.to_string();
    let (stop_api, stopped) = tokio::sync::oneshot::channel::<()>();
    let api = tokio::spawn(rest::serve(
        listener,
        rest::app(RestState::new(worker.clone(), address.clone())),
        async {
            let _ = stopped.await;
        },
    ));
    println!("REST API on http://{address} (try GET /connectors)");

    // 3. A connector from code: the keys of a connector's .properties.
    let name = format!("embedded-{run}");
    let topic = format!("copycat-embedded-{run}");
    let connector = ConnectorConfig::from_props(
        props(&[
            ("name", &name),
            ("connector.class", "datagen"),
            ("topic", &topic),
            ("count", &RECORDS.to_string()),
        ]),
        worker.config(),
    )?;
    // Worker calls block (they load components, join task threads): keep
    // them off the async runtime's threads.
    let w = worker.clone();
    tokio::task::spawn_blocking(move || w.create_connector(connector, TargetState::Running))
        .await?
        .context("creating the connector")?;

    // 4. Watch it: task counters and status, as the REST API reports them.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let delivered: u64 = worker
            .task_metrics(&name)?
            .iter()
            .map(|m| m.records_out.load(Ordering::Relaxed))
            .sum();
        if delivered >= RECORDS {
            println!("{delivered} records delivered to Kafka topic {topic}");
            break;
        }
        if Instant::now() > deadline {
            bail!("only {delivered} of {RECORDS} records delivered within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let status = worker.status(&name)?;
    println!(
        "{} ({} {}): {:?}",
        status.name,
        status.plugin,
        status.digest,
        status.tasks.iter().map(|t| t.state).collect::<Vec<_>>()
    );

    // 5. Shut down: every task stops polling, flushes and commits.
    let _ = stop_api.send(());
    api.await??;
    let w = worker.clone();
    tokio::task::spawn_blocking(move || w.shutdown()).await?;
    println!("stopped cleanly");
    Ok(())
}
