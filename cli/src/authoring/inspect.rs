//! `copycat inspect <component>`: the world a component implements, what it
//! says about itself (`describe`), its config definition, its imports and
//! exports, its size and digest.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use copycat_runtime::engine::guest::{ConfigType, Guest, GuestError, Importance};
use copycat_runtime::engine::{LoadError, WasmEngine};
use copycat_runtime::host::{Grants, TaskHost, TaskIdent, TaskLimits};

/// Why a component cannot be inspected.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The worker's engine could not start.
    #[error("creating the WebAssembly engine: {0}")]
    Engine(String),
    /// Loading failed (the error names the file).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The component's own `describe` failed.
    #[error("{path}: `describe` failed: {source}")]
    Describe {
        /// The file.
        path: String,
        /// What happened.
        source: GuestError,
    },
}

/// One declared config key.
#[derive(Debug, Serialize)]
pub struct KeyInfo {
    /// Name.
    pub name: String,
    /// Type (`string`, `int`, ...).
    #[serde(rename = "type")]
    pub type_: &'static str,
    /// Required without a default.
    pub required: bool,
    /// Default value.
    pub default: Option<String>,
    /// `high`, `medium`, `low`.
    pub importance: &'static str,
    /// Documentation.
    pub doc: String,
}

/// What `inspect` reports.
#[derive(Debug, Serialize)]
pub struct Inspection {
    /// The file.
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// `sha256:<hex>` (for `connector.digest`).
    pub digest: String,
    /// `source` or `sink`.
    pub world: &'static str,
    /// The contract it implements, e.g. `copycat:connector@0.2.0`.
    pub contract: String,
    /// The plugin's own name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its description.
    pub description: String,
    /// Its config definition.
    pub config: Vec<KeyInfo>,
    /// Interfaces it imports.
    pub imports: Vec<String>,
    /// Interfaces it exports.
    pub exports: Vec<String>,
}

fn type_name(t: ConfigType) -> &'static str {
    match t {
        ConfigType::String => "string",
        ConfigType::Int => "int",
        ConfigType::Long => "long",
        ConfigType::Double => "double",
        ConfigType::Boolean => "boolean",
        ConfigType::List => "list",
        ConfigType::Password => "password",
    }
}

fn importance(i: Importance) -> &'static str {
    match i {
        Importance::High => "high",
        Importance::Medium => "medium",
        Importance::Low => "low",
    }
}

/// Load `path` and describe it.
pub fn inspect(path: &Path) -> Result<Inspection, InspectError> {
    copycat_runtime::util::off_async(|| inspect_here(path))
}

fn inspect_here(path: &Path) -> Result<Inspection, InspectError> {
    // The worker's engine settings, including its compiled-code cache.
    let engine_config = copycat_runtime::config::WorkerConfig::for_bootstrap("unused:9092")
        .map(|w| w.engine_config())
        .unwrap_or_default();
    let engine = WasmEngine::new(&engine_config).map_err(|e| InspectError::Engine(format!("{e:#}")))?;
    let plugin = engine.load(path)?;
    let limits = TaskLimits::default();
    let display = path.display().to_string();
    let host = TaskHost::new(
        TaskIdent::connector("inspect"),
        &limits,
        Arc::default(),
        &Grants::default(),
    )
    .map_err(|e| InspectError::Describe {
        path: display.clone(),
        source: GuestError::Trap(e.to_string()),
    })?;
    let mut guest = Guest::instantiate(&engine, &plugin, host, &limits).map_err(|source| InspectError::Describe {
        path: display.clone(),
        source,
    })?;
    let transform = plugin.kind == copycat_runtime::connector::Kind::Transform;
    let info = guest.describe_any().map_err(|source| InspectError::Describe {
        path: display.clone(),
        source,
    })?;
    let (imports, exports) = plugin.interfaces(&engine);
    Ok(Inspection {
        size: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        path: display,
        digest: plugin.digest.clone(),
        world: plugin.kind.as_str(),
        contract: if transform {
            "copycat:transform@0.1.0".to_owned()
        } else if plugin.dynamic {
            format!("{} + copycat:dynamic@0.1.0 (a dynamic connector)", plugin.contract)
        } else {
            plugin.contract.to_string()
        },
        name: info.name,
        version: info.version,
        description: info.description,
        config: info
            .config_def
            .into_iter()
            .map(|k| KeyInfo {
                name: k.name,
                type_: type_name(k.type_),
                required: k.required && k.default_value.is_none(),
                default: k.default_value,
                importance: importance(k.importance),
                doc: k.doc,
            })
            .collect(),
        imports,
        exports,
    })
}

impl std::fmt::Display for Inspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.path)?;
        let what = if self.world == "transformation" {
            "transform component".to_owned()
        } else {
            format!("{} connector", self.world)
        };
        writeln!(f, "  plugin   {} {} ({what})", self.name, self.version)?;
        if !self.description.is_empty() {
            writeln!(f, "  about    {}", self.description)?;
        }
        writeln!(f, "  contract {}", self.contract)?;
        writeln!(f, "  size     {} bytes", self.size)?;
        writeln!(f, "  digest   {}", self.digest)?;
        writeln!(f, "  config")?;
        let width = self.config.iter().map(|k| k.name.len()).max().unwrap_or(0);
        for k in &self.config {
            let default = match (&k.default, k.required) {
                (Some(d), _) => format!("default {d}"),
                (None, true) => "required".to_owned(),
                (None, false) => "optional".to_owned(),
            };
            writeln!(
                f,
                "    {:width$}  {:8} {:16} {}",
                k.name,
                k.type_,
                default,
                k.doc,
                width = width
            )?;
        }
        writeln!(f, "  imports")?;
        for i in &self.imports {
            writeln!(f, "    {i}")?;
        }
        writeln!(f, "  exports")?;
        for e in &self.exports {
            writeln!(f, "    {e}")?;
        }
        Ok(())
    }
}
