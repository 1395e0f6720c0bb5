//! The `copycat` command.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tokio::sync::watch;
use tracing_subscriber::EnvFilter;

/// Copycat: a Kafka connector runtime where every connector is a
/// WebAssembly component.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a standalone worker with the given connectors, as Kafka Connect's
    /// `connect-standalone worker.properties connector.properties...`.
    Standalone {
        /// The worker config (`bootstrap.servers`, `plugin.path`, ...).
        worker: PathBuf,
        /// One or more connector configs (`name`, `connector.class`, ...).
        #[arg(required = true)]
        connectors: Vec<PathBuf>,
    },
    /// Read, alter or reset a stopped connector's offsets (KIP-875), in
    /// Kafka Connect's REST JSON shape.
    Offsets {
        #[command(subcommand)]
        action: OffsetsAction,
    },
}

#[derive(Subcommand)]
enum OffsetsAction {
    /// Print the connector's offsets as JSON on stdout.
    Get {
        /// The worker config.
        worker: PathBuf,
        /// The connector's config.
        connector: PathBuf,
    },
    /// Set the offsets of the partitions listed in a JSON file
    /// (`{"offsets":[{"partition":{..},"offset":{..}}]}`; `"offset": null`
    /// resets one partition). The connector must be stopped.
    Alter {
        /// The worker config.
        worker: PathBuf,
        /// The connector's config.
        connector: PathBuf,
        /// The offsets document.
        offsets: PathBuf,
    },
    /// Reset all of the connector's offsets. The connector must be stopped.
    Reset {
        /// The worker config.
        worker: PathBuf,
        /// The connector's config.
        connector: PathBuf,
    },
}

async fn offsets(action: OffsetsAction) -> anyhow::Result<()> {
    use anyhow::Context;
    use copycat_runtime::offsets_admin::{self, ConnectorOffsets};
    use copycat_runtime::{ConnectorConfig, WorkerConfig};

    let load = |worker: &PathBuf, connector: &PathBuf| -> anyhow::Result<(WorkerConfig, ConnectorConfig)> {
        let w = WorkerConfig::load(worker)?;
        let c = ConnectorConfig::load(connector, &w)?;
        Ok((w, c))
    };
    match action {
        OffsetsAction::Get { worker, connector } => {
            let (w, c) = load(&worker, &connector)?;
            let offsets = offsets_admin::get(&w, &c)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&offsets).context("printing the offsets")?
            );
        }
        OffsetsAction::Alter {
            worker,
            connector,
            offsets,
        } => {
            let (w, c) = load(&worker, &connector)?;
            let doc = ConnectorOffsets::load(&offsets)?;
            offsets_admin::alter(&w, &c, &doc).await?;
            eprintln!("altered {} offset(s) of connector '{}'", doc.offsets.len(), c.name);
        }
        OffsetsAction::Reset { worker, connector } => {
            let (w, c) = load(&worker, &connector)?;
            offsets_admin::reset(&w, &c).await?;
            eprintln!("reset the offsets of connector '{}'", c.name);
        }
    }
    Ok(())
}

/// Install SIGINT/SIGTERM handlers *now*, before anything starts, so a
/// signal during start-up also leads to a graceful stop.
fn shutdown_signal() -> std::io::Result<watch::Receiver<bool>> {
    let (tx, rx) = watch::channel(false);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            let _ = tx.send(true);
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        let _ = tx.send(true);
    });
    Ok(rx)
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let shutdown = match shutdown_signal() {
        Ok(rx) => rx,
        Err(e) => {
            eprintln!("error: cannot install signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let result = match cli.command {
        Command::Standalone { worker, connectors } => copycat_runtime::standalone::run(worker, connectors, shutdown)
            .await
            .map_err(anyhow::Error::from),
        Command::Offsets { action } => offsets(action).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
