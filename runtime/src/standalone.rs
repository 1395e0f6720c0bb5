//! Standalone mode: one worker process running the connectors given on the
//! command line, until SIGINT or SIGTERM.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::worker::{Worker, WorkerError};

/// Start a worker with `connectors`, run until `shutdown` resolves, then stop
/// every task gracefully (stop polling, flush, commit) and print a summary.
pub async fn run(
    worker_config: PathBuf,
    connectors: Vec<PathBuf>,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), WorkerError> {
    let wcfg = WorkerConfig::load(&worker_config)?;
    let configs = connectors
        .iter()
        .map(|p| ConnectorConfig::load(p, &wcfg))
        .collect::<Result<Vec<_>, _>>()?;
    let worker = Worker::start(wcfg).await?;
    for cfg in configs {
        if let Err(e) = worker.start_connector(cfg) {
            worker.shutdown();
            return Err(e);
        }
    }
    shutdown.await;
    tracing::info!("shutting down: stopping tasks, flushing and committing offsets");
    let names = worker.connectors();
    let summary: Vec<_> = names
        .iter()
        .filter_map(|n| Some((worker.status(n).ok()?, worker.task_metrics(n).ok()?)))
        .collect();
    worker.shutdown();
    for (status, metrics) in summary {
        for (t, m) in status.tasks.iter().zip(metrics) {
            let after = match t.state {
                crate::task::TaskState::Failed => "FAILED",
                _ => "STOPPED",
            };
            tracing::info!(
                connector = %status.name,
                task = t.id,
                state = after,
                records_in = m.records_in.load(Ordering::Relaxed),
                records_out = m.records_out.load(Ordering::Relaxed),
                offset_commits = m.offset_commits.load(Ordering::Relaxed),
                trace = t.trace.as_deref().unwrap_or(""),
                "task summary"
            );
        }
    }
    Ok(())
}
