//! Standalone mode: one worker process running the connectors given on the
//! command line, until asked to shut down (SIGINT or SIGTERM in the CLI).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use tokio::sync::watch;

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::task::TaskState;
use crate::worker::{Worker, WorkerError};

fn in_file(path: &std::path::Path) -> impl Fn(WorkerError) -> WorkerError + '_ {
    move |e| match e {
        // Config-file errors already name their file.
        WorkerError::Config(crate::config::ConfigError::File { .. }) => e,
        other => WorkerError::InFile {
            path: path.to_owned(),
            source: Box::new(other),
        },
    }
}

/// Run a worker with `connectors` until `shutdown` turns true, then stop
/// every task gracefully (stop polling, flush, commit) and log a summary.
///
/// Every connector config is validated before any connector starts, so a
/// bad file stops the command before a single record moves. A shutdown
/// request during start-up is honoured as soon as the current step ends.
pub async fn run(
    worker_config: PathBuf,
    connectors: Vec<PathBuf>,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), WorkerError> {
    let wcfg = WorkerConfig::load(&worker_config)?;
    let configs = connectors
        .iter()
        .map(|p| ConnectorConfig::load(p, &wcfg))
        .collect::<Result<Vec<_>, _>>()?;
    let worker = Worker::start(wcfg).await?;
    let mut validated = Vec::with_capacity(configs.len());
    for (cfg, path) in configs.into_iter().zip(&connectors) {
        let v = worker.validate(&cfg).map_err(in_file(path))?;
        validated.push((cfg, v, path));
    }
    for (cfg, v, path) in validated {
        if *shutdown.borrow() {
            break;
        }
        if let Err(e) = worker.start_validated(cfg, v) {
            worker.shutdown();
            return Err(in_file(path)(e));
        }
    }
    let _ = shutdown.wait_for(|stop| *stop).await;
    tracing::info!("shutting down: stopping tasks, flushing and committing offsets");
    let summary: Vec<_> = worker
        .connectors()
        .iter()
        .filter_map(|n| Some((worker.status(n).ok()?, worker.task_metrics(n).ok()?)))
        .collect();
    worker.shutdown();
    for (status, metrics) in summary {
        let final_states = worker_final_states(&status);
        for ((t, m), state) in status.tasks.iter().zip(metrics).zip(final_states) {
            tracing::info!(
                connector = %status.name,
                task = t.id,
                state,
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

/// A task that was not failed before the shutdown ends STOPPED.
fn worker_final_states(status: &crate::worker::ConnectorStatus) -> Vec<&'static str> {
    status
        .tasks
        .iter()
        .map(|t| match t.state {
            TaskState::Failed => "FAILED",
            _ => "STOPPED",
        })
        .collect()
}
