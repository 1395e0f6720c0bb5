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
        Command::Standalone { worker, connectors } => {
            copycat_runtime::standalone::run(worker, connectors, shutdown).await
        }
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
