//! `GET /cluster`: the workers of this worker's cluster (a Copycat
//! extension; Kafka Connect has no such endpoint). A standalone worker is
//! its own one-worker cluster. Which worker runs which task is in each
//! connector's status (`worker_id`).

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use super::error::RestError;
use super::extract::blocking;
use super::state::RestState;

/// `{mode, worker_id, group_id, stable, workers: [{id, self}]}`: `mode` is
/// `standalone` or `distributed`; `workers` the group's members as this
/// worker last read them (every `worker.sync.interval.ms`), `stable` false
/// while the group rebalances.
#[utoipa::path(get, path = "/cluster", tag = "worker",
    responses((status = 200, description = "{mode, worker_id, group_id, stable, workers: [{id, self}]}")))]
pub async fn cluster(State(st): State<RestState>) -> Result<Json<Value>, RestError> {
    let herder = st.herder.clone();
    let members = blocking(move || herder.members()).await?;
    let me = st.worker_id.as_str();
    let worker = |id: &str| json!({"id": id, "self": id == me});
    Ok(Json(match members {
        None => json!({
            "mode": "standalone",
            "worker_id": me,
            "group_id": null,
            "stable": true,
            "workers": [worker(me)],
        }),
        Some(m) => json!({
            "mode": "distributed",
            "worker_id": me,
            "group_id": m.group_id,
            "stable": m.stable,
            "workers": m.ids.iter().map(|id| worker(id)).collect::<Vec<_>>(),
        }),
    }))
}
