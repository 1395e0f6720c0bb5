//! Standalone mode: one worker process running the connectors given on the
//! command line and those persisted in its `state.dir`, serving the REST
//! API on `listeners`, until asked to shut down (SIGINT or SIGTERM in the
//! CLI).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::watch;

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::connector::{TargetState, TaskState};
use crate::rest::listener::RestFiles;
use crate::rest::{Loggers, RestState};
use crate::worker::persist::StateStore;
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
/// The connectors persisted in the worker's `state.dir` come back in their
/// target states; those given on the command line are added (a persisted
/// connector of the same name takes the file's config and keeps its target
/// state). Every command-line config is validated before any connector
/// starts, so a bad file stops the command before a single record moves. A
/// shutdown request during start-up is honoured as soon as the current step
/// ends. The REST API is served on `listeners` (`loggers` lets it change
/// log levels).
pub async fn run(
    worker_config: PathBuf,
    connectors: Vec<PathBuf>,
    loggers: Option<Arc<Loggers>>,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), WorkerError> {
    let wcfg = WorkerConfig::load(&worker_config)?;
    // The REST listener's files first: a bad certificate or credentials
    // file stops the command before anything starts.
    let rest_files = RestFiles::load(&wcfg, &worker_config)?;
    let configs = connectors
        .iter()
        .map(|p| ConnectorConfig::load(p, &wcfg))
        .collect::<Result<Vec<_>, _>>()?;
    let store = StateStore::new(&wcfg.state_dir);
    let saved = store
        .load()
        .map_err(|e| WorkerError::Start(format!("reading the persisted connectors (state.dir): {e}")))?;
    let listen = wcfg.listen_addr.clone();
    let worker = Worker::start(wcfg).await?;
    let mut validated = Vec::with_capacity(configs.len());
    for (cfg, path) in configs.into_iter().zip(&connectors) {
        let v = worker.validate(&cfg).map_err(in_file(path))?;
        validated.push((cfg, v, path));
    }
    let listener = rest_files.bind(&listen).await?;
    let bound = listener.bound().to_owned();
    let from_files: Vec<String> = validated.iter().map(|(c, _, _)| c.name.clone()).collect();
    if !*shutdown.borrow() {
        worker.restore(&saved, &from_files);
    }
    for (cfg, v, path) in validated {
        if *shutdown.borrow() {
            break;
        }
        let target = saved.get(&cfg.name).map_or(TargetState::Running, |s| s.state);
        if let Err(e) = worker.start_validated_in(cfg, v, target) {
            worker.shutdown();
            return Err(in_file(path)(e));
        }
    }
    // Serve only now: requests that came in meanwhile wait in the
    // listener's backlog and see every connector restored.
    let mut state = RestState::new(worker.clone(), bound.clone());
    if let Some(l) = loggers {
        state = state.with_loggers(l);
    }
    let server = listener.serve(state, shutdown.clone());
    worker.persist_to(store);
    let _ = shutdown.wait_for(|stop| *stop).await;
    let _ = server.await;
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
