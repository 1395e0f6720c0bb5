//! A task's transform components: each `transforms.<alias>.type=wasm`
//! stage of its connector's chain gets its own instance of the component
//! the worker resolved for it, in a store of its own with the connector's
//! limits and grants, configured with the stage's own settings.

use std::collections::BTreeMap;
use std::sync::Arc;

use copycat_transforms::{BatchTransformation, ConfigIssue, External, component_settings};

use crate::config::ConnectorConfig;
use crate::engine::guest::Guest;
use crate::engine::transformer::WasmTransform;
use crate::engine::{Plugin, WasmEngine};
use crate::host::{TaskHost, TaskIdent};

/// The component of each `type=wasm` stage, by alias (resolved by the
/// worker when it starts the task).
pub(crate) type TransformPlugins = Arc<BTreeMap<String, Arc<Plugin>>>;

/// Makes a task's `type=wasm` stages.
pub(super) struct TaskTransforms<'a> {
    pub(super) engine: &'a Arc<WasmEngine>,
    pub(super) plugins: &'a TransformPlugins,
    pub(super) connector: &'a ConnectorConfig,
    pub(super) ident: &'a TaskIdent,
}

impl External for TaskTransforms<'_> {
    fn make(
        &self,
        alias: &str,
        settings: &BTreeMap<String, String>,
    ) -> Result<(String, Box<dyn BatchTransformation>), Vec<ConfigIssue>> {
        let issue = |m: String| vec![ConfigIssue::key("plugin", m)];
        let plugin = self.plugins.get(alias).ok_or_else(|| {
            issue(format!(
                "host invariant: no component was resolved for transform '{alias}' when the task started"
            ))
        })?;
        let limits = &self.connector.limits;
        let mut ident: TaskIdent = self.ident.clone();
        ident.connector = format!("{} transform {alias}", ident.connector);
        let host = TaskHost::new(ident, limits, Arc::default(), &self.connector.grants)
            .map_err(|e| vec![ConfigIssue::general(format!("{}: {}", e.key, e.message))])?;
        let mut guest = Guest::instantiate(self.engine, plugin, host, limits)
            .map_err(|e| issue(format!("{}: {e}", plugin.path.display())))?;
        let info = guest
            .transform_describe()
            .map_err(|e| issue(format!("{}: describe: {e}", plugin.path.display())))?;
        guest.transform_configure(&component_settings(settings)).map_err(|e| {
            let why = match e {
                crate::engine::guest::GuestError::Config(m) => m,
                other => other.to_string(),
            };
            vec![ConfigIssue::general(format!(
                "transform '{alias}' ({} {}) refused its settings: {why}",
                info.name, info.version
            ))]
        })?;
        let class = format!("wasm:{}@{}", info.name, info.version);
        Ok((class, Box::new(WasmTransform::new(guest, limits))))
    }
}
