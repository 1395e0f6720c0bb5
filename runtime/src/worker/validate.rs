//! Validating a connector config: the host's keys, then the component's
//! own `validate` and the keys it declares.

use crate::config::{ConfigError, ConnectorConfig};
use crate::connector::Kind;
use crate::engine::Plugin;
use crate::engine::guest::{ConfigType, Guest, PluginInfo};
use crate::host::{TaskHost, TaskIdent};
use std::sync::Arc;

use super::core::Worker;
use super::error::WorkerError;
use super::status::*;

pub(super) fn version_problem(cfg: &ConnectorConfig, message: String) -> WorkerError {
    ConfigError::key(
        format!(" for connector '{}'", cfg.name),
        "connector.plugin.version",
        message,
    )
    .into()
}

/// Problems of `props` against the plugin's declared config definition:
/// required keys missing, values not of the declared type.
pub fn declared_key_problems(info: &PluginInfo, props: &crate::config::Props) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    for key in &info.config_def {
        match props.get(&key.name).filter(|v| !v.is_empty()) {
            None if key.required && key.default_value.is_none() => {
                problems.push((key.name.clone(), format!("missing required configuration: {}", key.doc)))
            }
            Some(v) => {
                if let Some(why) = type_problem(key.type_, v) {
                    problems.push((key.name.clone(), format!("invalid value '{v}': {why}")));
                }
            }
            None => {}
        }
    }
    problems
}

/// Problems of a transform component's settings (`own`: the keys after
/// `transforms.<alias>.`, less `plugin`/`plugin.version`) against its
/// declared definition: a setting it does not declare, then
/// [`declared_key_problems`]. Keys as in `own`.
pub fn transform_setting_problems(info: &PluginInfo, own: &crate::config::Props) -> Vec<(String, String)> {
    let declared: Vec<&str> = info.config_def.iter().map(|d| d.name.as_str()).collect();
    let mut problems: Vec<(String, String)> = own
        .keys()
        .filter(|k| !declared.contains(&k.as_str()))
        .map(|k| {
            (
                k.clone(),
                format!(
                    "transform component {} {} has no setting '{k}' (it declares: [{}])",
                    info.name,
                    info.version,
                    declared.join(", ")
                ),
            )
        })
        .collect();
    problems.extend(declared_key_problems(info, own));
    problems
}

pub(super) fn type_problem(ty: ConfigType, v: &str) -> Option<String> {
    match ty {
        ConfigType::Int => v.parse::<i32>().err().map(|e| format!("expected an int: {e}")),
        ConfigType::Long => v.parse::<i64>().err().map(|e| format!("expected a long: {e}")),
        ConfigType::Double => v.parse::<f64>().err().map(|e| format!("expected a double: {e}")),
        ConfigType::Boolean => match v.to_ascii_lowercase().as_str() {
            "true" | "false" => None,
            _ => Some("expected true or false".into()),
        },
        ConfigType::String | ConfigType::List | ConfigType::Password => None,
    }
}

impl Worker {
    pub(super) fn connector_guest(&self, cfg: &ConnectorConfig, plugin: &Plugin) -> Result<Guest, WorkerError> {
        let host = TaskHost::new(
            TaskIdent::connector(&cfg.name),
            &cfg.limits,
            Arc::default(),
            &Default::default(), // connector-level calls get no capabilities
        )
        .map_err(|e| ConfigError::key(format!(" for connector '{}'", cfg.name), e.key, e.message))?;
        Guest::instantiate(&self.engine, plugin, host, &cfg.limits).map_err(|source| WorkerError::Guest {
            connector: cfg.name.clone(),
            call: "instantiation",
            source,
        })
    }

    /// Load the connector's component and check its config: host-level keys,
    /// the plugin's config definition (required keys, types), then the
    /// connector's own `validate`. Every problem is reported, by key.
    pub fn validate(&self, cfg: &ConnectorConfig) -> Result<Validated, WorkerError> {
        crate::util::off_async(|| self.validate_here(cfg))
    }

    pub(super) fn validate_here(&self, raw: &ConnectorConfig) -> Result<Validated, WorkerError> {
        // Config-provider references: the connector sees their values;
        // what is reported names the references, never a value.
        let providers = &self.config.config_providers;
        let (resolved, resolved_cfg) = if raw.props.values().any(|v| providers.refers(v)) {
            let r = providers.resolve(&raw.props).map_err(|problems| ConfigError::Invalid {
                context: format!(" for connector '{}'", raw.name),
                problems,
            })?;
            let cfg = ConnectorConfig::from_props(r.props.clone(), &self.config).map_err(|e| match e {
                ConfigError::Invalid { context, problems } => ConfigError::Invalid {
                    context,
                    problems: problems.into_iter().map(|(k, m)| (k, r.unresolve(&m))).collect(),
                },
                other => other,
            })?;
            (Some(r), Some(cfg))
        } else {
            (None, None)
        };
        let cfg = resolved_cfg.as_ref().unwrap_or(raw);
        let unresolve = |m: String| resolved.as_ref().map_or_else(|| m.clone(), |r| r.unresolve(&m));
        let path = self.resolve_plugin(cfg)?;
        let plugin = self.engine.load(&path)?;
        if let Some(pin) = cfg.props.get("connector.digest").filter(|v| !v.is_empty())
            && *pin != plugin.digest
        {
            return Err(ConfigError::key(
                format!(" for connector '{}'", cfg.name),
                "connector.digest",
                format!(
                    "{} has digest {}, not the pinned {pin}; refusing to run a component that is not the one pinned",
                    path.display(),
                    plugin.digest
                ),
            )
            .into());
        }
        if plugin.kind == Kind::Transform {
            return Err(ConfigError::key(
                format!(" for connector '{}'", cfg.name),
                "connector.class",
                format!(
                    "{} is a transform component, not a connector: run it in a connector's chain (transforms.<alias>.type=wasm, transforms.<alias>.plugin)",
                    path.display()
                ),
            )
            .into());
        }
        let mut guest = self.connector_guest(cfg, &plugin)?;
        let guest_err = |call, source| WorkerError::Guest {
            connector: cfg.name.clone(),
            call,
            source,
        };
        let info = guest.describe().map_err(|e| guest_err("describe", e))?;
        let mut problems = Vec::new();
        let declared = Kind::from(info.kind);
        if declared != plugin.kind {
            problems.push((
                "connector.class".to_owned(),
                format!(
                    "{} describes itself as a {declared:?} but implements the {:?} world",
                    path.display(),
                    plugin.kind
                ),
            ));
        }
        if plugin.kind == Kind::Sink {
            match (cfg.topics.is_empty(), cfg.topics_regex.is_some()) {
                // Under both keys, as Kafka Connect reports it.
                (true, false) => {
                    for key in ["topics", "topics.regex"] {
                        problems.push((key.into(), "a sink needs `topics` or `topics.regex`".into()));
                    }
                }
                (false, true) => problems.push((
                    "topics.regex".into(),
                    "set either `topics` or `topics.regex`, not both".into(),
                )),
                _ => {}
            }
        }
        if plugin.kind == Kind::Sink {
            // Kafka Connect's sinks have no topic.creation.* keys.
            for k in cfg.props.keys().filter(|k| k.starts_with("topic.creation.")) {
                problems.push((
                    k.clone(),
                    "topic creation (KIP-158) is for source connectors; a sink creates no topics".to_owned(),
                ));
            }
        } else if cfg.topic_creation.is_some() && !self.config.topic_creation {
            tracing::warn!(
                connector = %cfg.name,
                "the connector's topic.creation.* keys are ignored: this worker sets topic.creation.enable=false"
            );
        }
        problems.extend(declared_key_problems(&info, &cfg.props));
        problems.extend(self.transform_problems(cfg));
        let wit = cfg.wit_config();
        if problems.is_empty() {
            for p in guest.validate(&wit).map_err(|e| guest_err("validate", e))? {
                problems.push((p.key, p.message));
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                context: format!(" for connector '{}' ({} {})", cfg.name, info.name, info.version),
                problems: problems.into_iter().map(|(k, m)| (k, unresolve(m))).collect(),
            }
            .into());
        }
        Ok(Validated {
            plugin,
            info,
            guest,
            resolved,
        })
    }
}
