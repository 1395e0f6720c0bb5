//! Standalone mode: one worker process running the connectors given on the
//! command line and those persisted in its `state.dir`, serving the REST
//! API on `listeners`, until asked to shut down (SIGINT or SIGTERM in the
//! CLI).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::watch;

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::rest::{Loggers, RestAuth, RestState};
use crate::state::StateStore;
use crate::task::TaskState;
use crate::worker::{TargetState, Worker, WorkerError};

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
    let in_worker_file = |e: String| WorkerError::Start(format!("{}: {e}", worker_config.display()));
    let tls = match &wcfg.rest.tls {
        Some(files) => Some(crate::rest::tls::server_config(files).map_err(|e| in_worker_file(e.to_string()))?),
        None => None,
    };
    let auth = RestAuth::load(&wcfg.rest.auth).map_err(|e| in_worker_file(e.to_string()))?;
    let configs = connectors
        .iter()
        .map(|p| ConnectorConfig::load(p, &wcfg))
        .collect::<Result<Vec<_>, _>>()?;
    let store = StateStore::new(&wcfg.state_dir);
    let saved = store
        .load()
        .map_err(|e| WorkerError::Start(format!("reading the persisted connectors (state.dir): {e}")))?;
    let listen = wcfg.listen_addr.clone();
    let worker = Arc::new(Worker::start(wcfg).await?);
    let mut validated = Vec::with_capacity(configs.len());
    for (cfg, path) in configs.into_iter().zip(&connectors) {
        let v = worker.validate(&cfg).map_err(in_file(path))?;
        validated.push((cfg, v, path));
    }
    let listener = tokio::net::TcpListener::bind(&listen)
        .await
        .map_err(|e| WorkerError::Start(format!("listeners: cannot listen on {listen}: {e}")))?;
    let bound = listener.local_addr().map_or_else(|_| listen.clone(), |a| a.to_string());
    let from_files: Vec<String> = validated.iter().map(|(c, _, _)| c.name.clone()).collect();
    if !*shutdown.borrow() {
        crate::state::restore(&worker, &saved, &from_files);
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
    let mut state = RestState::new(worker.clone(), bound.clone()).with_auth(auth);
    if let Some(l) = loggers {
        state = state.with_loggers(l);
    }
    let mut server_stop = shutdown.clone();
    let stopped = async move {
        let _ = server_stop.wait_for(|stop| *stop).await;
    };
    let app = crate::rest::app(state);
    let scheme = if tls.is_some() { "https" } else { "http" };
    let server = match tls {
        Some(tls) => tokio::spawn(crate::rest::tls::serve(listener, app, tls, stopped)),
        None => tokio::spawn(crate::rest::serve(listener, app, stopped)),
    };
    tracing::info!(url = %format!("{scheme}://{bound}"), address = %bound, "REST API listening");
    worker.persist_to(store);
    let _ = shutdown.wait_for(|stop| *stop).await;
    match server.await {
        Ok(Err(e)) => tracing::error!(error = %e, "the REST API server failed"),
        Err(e) => tracing::error!(error = %e, "the REST API server failed"),
        Ok(Ok(())) => {}
    }
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
