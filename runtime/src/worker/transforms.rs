//! Transform components in a connector's chain
//! (`transforms.<alias>.type=wasm`): which component `.plugin` and
//! `.plugin.version` name (over `plugin.path` and the uploads, as
//! `connector.class` and `connector.plugin.version` do), checking a
//! stage's settings against the component's own definition and
//! `validate`, and the components a connector's tasks instantiate.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use copycat_transforms::{component_settings, component_stages};

use crate::config::{ConfigError, ConnectorConfig};
use crate::connector::Kind;
use crate::engine::Plugin;
use crate::engine::guest::Guest;
use crate::host::{TaskHost, TaskIdent};
use crate::task::TransformPlugins;
use crate::worker::registry::compare_versions;

use super::core::Worker;
use super::error::WorkerError;
use super::validate::transform_setting_problems;

/// A problem with a stage: the full key at fault and what is wrong.
type Problem = (String, String);

impl Worker {
    /// The component of each `type=wasm` stage of `cfg`'s chain.
    pub(super) fn transform_plugins(&self, cfg: &ConnectorConfig) -> Result<TransformPlugins, WorkerError> {
        let mut out = BTreeMap::new();
        for (alias, settings) in component_stages(&cfg.props) {
            let plugin = self.transform_plugin(&alias, &settings).map_err(|(key, message)| {
                WorkerError::from(ConfigError::key(
                    format!(" for connector '{}'", cfg.name),
                    &key,
                    message,
                ))
            })?;
            out.insert(alias, plugin);
        }
        Ok(Arc::new(out))
    }

    /// The component `transforms.<alias>.plugin` and `.plugin.version`
    /// name: an exact version, or the latest of `plugin.path` and the
    /// uploads; or a component file by path.
    fn transform_plugin(&self, alias: &str, settings: &BTreeMap<String, String>) -> Result<Arc<Plugin>, Problem> {
        let key = format!("transforms.{alias}.plugin");
        let version_key = format!("{key}.version");
        let Some(name) = settings.get("plugin").map(|s| s.trim()).filter(|s| !s.is_empty()) else {
            return Err((
                key.clone(),
                format!("Missing required configuration \"{key}\" which has no default value."),
            ));
        };
        let wanted = settings
            .get("plugin.version")
            .map(|v| v.trim())
            .filter(|v| !v.is_empty());
        let load = |path: &Path| -> Result<(Arc<Plugin>, String), Problem> {
            let (plugin, info) = self
                .describe_plugin(path)
                .map_err(|e| (key.clone(), format!("{}: {e}", path.display())))?;
            if plugin.kind != Kind::Transform {
                return Err((
                    key.clone(),
                    format!(
                        "{} is a {} connector, not a transform component (copycat:transform)",
                        path.display(),
                        plugin.kind
                    ),
                ));
            }
            Ok((plugin, info.version))
        };
        let direct = Path::new(name);
        let mut versions: Vec<(String, Arc<Plugin>)> = Vec::new();
        if (name.ends_with(".wasm") || name.contains('/')) && direct.is_file() {
            let (plugin, version) = load(direct)?;
            versions.push((version, plugin));
        } else {
            let base = name.strip_suffix(".wasm").unwrap_or(name);
            for (n, _, path) in self.registry.uploaded() {
                if n == base {
                    let (plugin, version) = load(&path)?;
                    versions.push((version, plugin));
                }
            }
            if let Some(path) = self.plugin_path_file(base) {
                let (plugin, version) = load(&path)?;
                versions.push((version, plugin));
            }
        }
        if versions.is_empty() {
            let mut searched: Vec<String> = self
                .config
                .plugin_path
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            searched.push(format!("{} (uploads)", self.registry.dir().display()));
            return Err((
                key,
                format!(
                    "no transform component '{name}': no such file, and no '{name}.wasm' in plugin.path [{}]",
                    searched.join(", ")
                ),
            ));
        }
        versions.sort_by(|a, b| compare_versions(&a.0, &b.0));
        match wanted {
            None => versions.pop().map(|(_, p)| p).ok_or((key, "no version".into())),
            Some(v) => match versions.iter().find(|(u, _)| u == v) {
                Some((_, p)) => Ok(p.clone()),
                None => {
                    let available: Vec<&str> = versions.iter().map(|(u, _)| u.as_str()).collect();
                    Err((
                        version_key,
                        format!(
                            "transform component {name} has no version {v}; available: [{}]",
                            available.join(", ")
                        ),
                    ))
                }
            },
        }
    }

    /// Every problem with `cfg`'s `type=wasm` stages: the component they
    /// name, settings it does not declare, required ones missing, values
    /// not of the declared type, then what the component's `validate`
    /// says; each keyed by the full key.
    pub(super) fn transform_problems(&self, cfg: &ConnectorConfig) -> Vec<Problem> {
        let mut problems = Vec::new();
        for (alias, settings) in component_stages(&cfg.props) {
            let prefix = format!("transforms.{alias}.");
            let plugin = match self.transform_plugin(&alias, &settings) {
                Ok(p) => p,
                Err(p) => {
                    problems.push(p);
                    continue;
                }
            };
            let info = match self.describe_loaded(&plugin) {
                Ok(i) => i,
                Err(e) => {
                    problems.push((format!("{prefix}plugin"), e.to_string()));
                    continue;
                }
            };
            let own: crate::config::Props = component_settings(&settings).into_iter().collect();
            let mut found: Vec<Problem> = transform_setting_problems(&info, &own)
                .into_iter()
                .map(|(k, m)| (format!("{prefix}{k}"), m))
                .collect();
            if found.is_empty() {
                let checked = TaskHost::new(
                    TaskIdent::connector(&format!("{} transform {alias}", cfg.name)),
                    &cfg.limits,
                    Arc::default(),
                    &Default::default(),
                )
                .map_err(|e| format!("{}: {}", e.key, e.message))
                .and_then(|host| {
                    Guest::instantiate(&self.engine, &plugin, host, &cfg.limits).map_err(|e| e.to_string())
                })
                .and_then(|mut g| {
                    g.transform_validate(&component_settings(&settings))
                        .map_err(|e| e.to_string())
                });
                match checked {
                    Ok(list) => found.extend(list.into_iter().map(|p| {
                        let key = if p.key.is_empty() {
                            format!("{prefix}type")
                        } else {
                            format!("{prefix}{}", p.key)
                        };
                        (key, p.message)
                    })),
                    Err(e) => found.push((format!("{prefix}plugin"), format!("validate: {e}"))),
                }
            }
            problems.extend(found);
        }
        problems
    }
}
