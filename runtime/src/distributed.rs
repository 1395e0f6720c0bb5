//! Distributed mode: `copycat worker worker.properties` runs one worker of
//! the cluster named by `group.id`. Connectors are created through the REST
//! API of any worker; their configs, target states and task configs live
//! in `config.storage.topic`, task states in `status.storage.topic`, source
//! offsets in `offset.storage.topic`; Kafka's group coordinator says which
//! workers are alive, and every worker computes the same assignment from
//! that ([`crate::cluster`]).

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::watch;

use crate::cluster::Cluster;
use crate::config::{DistributedConfig, WorkerConfig};
use crate::kafka::ensure_compacted_topic;
use crate::rest::listener::RestFiles;
use crate::rest::{Loggers, RestState};
use crate::worker::{Worker, WorkerError};

/// Run a distributed worker until `shutdown` turns true, then hand its
/// tasks back to the cluster (stop them gracefully, mark them free, leave
/// the group).
pub async fn run(
    worker_config: PathBuf,
    loggers: Option<Arc<Loggers>>,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), WorkerError> {
    let wcfg = WorkerConfig::load(&worker_config)?;
    let dcfg = DistributedConfig::from_worker(&wcfg).map_err(|e| WorkerError::InFile {
        path: worker_config.clone(),
        source: Box::new(e.into()),
    })?;
    let rest_files = RestFiles::load(&wcfg, &worker_config)?;
    let listen = wcfg.listen_addr.clone();
    let worker = Worker::start_distributed(wcfg).await?;
    ensure_compacted_topic(worker.config(), &dcfg.config_topic, 1, dcfg.config_replication).await?;
    ensure_compacted_topic(
        worker.config(),
        &dcfg.status_topic,
        dcfg.status_partitions,
        dcfg.status_replication,
    )
    .await?;
    let listener = rest_files.bind(&listen).await?;
    let id = dcfg.worker_id(listener.bound());
    let joining = {
        let worker = worker.clone();
        let id = id.clone();
        tokio::task::spawn_blocking(move || Cluster::join(worker, dcfg, id))
    };
    let cluster = joining
        .await
        .map_err(|e| WorkerError::Start(format!("joining the cluster: {e}")))??;
    let mut state = RestState::new(cluster.clone(), id.clone());
    if let Some(l) = loggers {
        let local = l.clone();
        cluster.apply_log_levels_with(Box::new(move |namespace, level| {
            if let Err(e) = local.set(namespace, level) {
                tracing::warn!(%namespace, %level, error = %e.message, "could not apply a cluster-wide log level");
            }
        }));
        state = state.with_loggers(l);
    }
    let server = listener.serve(state, shutdown.clone());
    let _ = shutdown.wait_for(|stop| *stop).await;
    let _ = server.await;
    tracing::info!("shutting down: handing this worker's tasks back to the cluster");
    let leaving = cluster.clone();
    let _ = tokio::task::spawn_blocking(move || leaving.shutdown()).await;
    worker.shutdown();
    Ok(())
}
