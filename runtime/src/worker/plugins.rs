//! Which component a connector runs: resolving `connector.class` and
//! `connector.plugin.version` over `plugin.path` and the upload registry,
//! describing components (once per digest), installing and deleting
//! uploaded versions.

use crate::config::ConnectorConfig;
use crate::engine::Plugin;
use crate::engine::guest::{Guest, GuestError, PluginInfo};
use crate::host::{TaskHost, TaskIdent};
use crate::worker::registry::{PluginSource, RegistryError, compare_versions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::core::Worker;
use super::error::WorkerError;
use super::status::*;
use super::validate::version_problem;

/// Kafka Connect class names that map onto the connectors Copycat ships.
pub(super) const CLASS_ALIASES: &[(&str, &str)] = &[
    ("org.apache.kafka.connect.file.FileStreamSourceConnector", "file-source"),
    ("FileStreamSource", "file-source"),
    ("FileStreamSourceConnector", "file-source"),
    ("org.apache.kafka.connect.file.FileStreamSinkConnector", "file-sink"),
    ("FileStreamSink", "file-sink"),
    ("FileStreamSinkConnector", "file-sink"),
];

/// The plugin name `connector.class` stands for: a Kafka Connect class
/// alias mapped to the connector Copycat ships, without a `.wasm` suffix.
pub fn plugin_name(class: &str) -> String {
    let name = CLASS_ALIASES
        .iter()
        .find(|(alias, _)| *alias == class)
        .map_or(class, |(_, n)| n);
    name.strip_suffix(".wasm").unwrap_or(name).to_owned()
}

impl Worker {
    /// Find the component file `connector.class` names (no version rules:
    /// the `plugin.path` file, or the file itself).
    pub fn resolve_class(&self, connector: &str, class: &str) -> Result<PathBuf, WorkerError> {
        let direct = Path::new(class);
        if (class.ends_with(".wasm") || class.contains('/')) && direct.is_file() {
            return Ok(direct.to_owned());
        }
        let name = plugin_name(class);
        self.plugin_path_file(&name)
            .ok_or_else(|| self.unknown_class(connector, class))
    }

    pub(super) fn unknown_class(&self, connector: &str, class: &str) -> WorkerError {
        let mut searched: Vec<String> = self
            .config
            .plugin_path
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        searched.push(format!("{} (uploads)", self.registry.dir().display()));
        WorkerError::UnknownClass {
            connector: connector.to_owned(),
            class: class.to_owned(),
            searched: searched.join(", "),
        }
    }

    /// `<name>.wasm` in the first `plugin.path` directory holding it.
    pub(super) fn plugin_path_file(&self, name: &str) -> Option<PathBuf> {
        self.config
            .plugin_path
            .iter()
            .map(|dir| dir.join(format!("{name}.wasm")))
            .find(|p| p.is_file())
    }

    /// Find the component a connector config asks for: `connector.class`
    /// (a plugin name, a Kafka Connect class alias, or a file) and
    /// `connector.plugin.version` (an exact version; unset: the latest of
    /// `plugin.path` and the uploads).
    pub fn resolve_plugin(&self, cfg: &ConnectorConfig) -> Result<PathBuf, WorkerError> {
        let class = cfg.connector_class.as_str();
        let wanted = cfg
            .props
            .get("connector.plugin.version")
            .map(|v| v.trim())
            .filter(|v| !v.is_empty());
        let direct = Path::new(class);
        if (class.ends_with(".wasm") || class.contains('/')) && direct.is_file() {
            if let Some(v) = wanted {
                let (_, info) = self.describe_plugin(direct)?;
                if info.version != v {
                    return Err(version_problem(
                        cfg,
                        format!("{class} is version {}, not {v}", info.version),
                    ));
                }
            }
            return Ok(direct.to_owned());
        }
        let name = plugin_name(class);
        let uploaded: Vec<(String, PathBuf)> = self
            .registry
            .uploaded()
            .into_iter()
            .filter(|(n, _, _)| *n == name)
            .map(|(_, v, p)| (v, p))
            .collect();
        let local = self.plugin_path_file(&name);
        if uploaded.is_empty() && wanted.is_none() {
            return local.ok_or_else(|| self.unknown_class(&cfg.name, class));
        }
        if let Some(v) = wanted
            && let Some((_, p)) = uploaded.iter().find(|(u, _)| u == v)
        {
            return Ok(p.clone());
        }
        let mut versions = uploaded;
        if let Some(p) = local {
            let (_, info) = self.describe_plugin(&p)?;
            versions.push((info.version, p));
        }
        if versions.is_empty() {
            return Err(self.unknown_class(&cfg.name, class));
        }
        versions.sort_by(|a, b| compare_versions(&a.0, &b.0));
        match wanted {
            None => versions
                .pop()
                .map(|(_, p)| p)
                .ok_or_else(|| self.unknown_class(&cfg.name, class)),
            Some(v) => versions
                .iter()
                .find(|(u, _)| u == v)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| {
                    let available: Vec<&str> = versions.iter().map(|(u, _)| u.as_str()).collect();
                    version_problem(
                        cfg,
                        format!(
                            "plugin {name} has no version {v}; available: [{}]",
                            available.join(", ")
                        ),
                    )
                }),
        }
    }

    /// Describe a component file: load (compile) it and ask it what it is,
    /// in a connector-level instance with no capabilities (once per
    /// component: the answer is kept by digest).
    pub fn describe_plugin(&self, path: &Path) -> Result<(Arc<Plugin>, PluginInfo), WorkerError> {
        crate::util::off_async(|| {
            let plugin = self.engine.load(path)?;
            let info = self.describe_loaded(&plugin)?;
            Ok((plugin, info))
        })
    }

    /// `describe` a component once: the answer (or its failure) is kept by
    /// digest, and concurrent requests for a component being described
    /// wait for that one call (bounded by its deadline) instead of each
    /// instantiating it.
    pub(super) fn describe_loaded(&self, plugin: &Arc<Plugin>) -> Result<PluginInfo, WorkerError> {
        let _flight = self.describing.enter(&plugin.digest);
        self.describe_cached(plugin)
    }

    pub(super) fn describe_cached(&self, plugin: &Arc<Plugin>) -> Result<PluginInfo, WorkerError> {
        if let Ok(known) = self.described.lock()
            && let Some(info) = known.get(&plugin.digest)
        {
            return Ok(info.clone());
        }
        if let Ok(bad) = self.undescribable.lock()
            && let Some(reason) = bad.get(&plugin.digest)
        {
            return Err(WorkerError::Guest {
                connector: plugin.path.display().to_string(),
                call: "describe",
                source: GuestError::Fatal(reason.clone()),
            });
        }
        let name = plugin
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let guest_err = |call, source| WorkerError::Guest {
            connector: name.clone(),
            call,
            source,
        };
        let host = TaskHost::new(
            TaskIdent::connector(&name),
            &self.config.limits,
            Arc::default(),
            &Default::default(),
        )
        .map_err(|e| WorkerError::Start(format!("plugin '{name}': {}: {}", e.key, e.message)))?;
        let mut guest = Guest::instantiate(&self.engine, plugin, host, &self.config.limits)
            .map_err(|e| guest_err("instantiation", e))?;
        let described = guest.describe_any();
        let info = match described {
            Ok(info) => info,
            Err(e) => {
                // A component whose `describe` traps or times out does so
                // every time: remember it, so listings stay fast.
                if let Ok(mut bad) = self.undescribable.lock() {
                    bad.insert(plugin.digest.clone(), e.to_string());
                }
                return Err(guest_err("describe", e));
            }
        };
        if let Ok(mut known) = self.described.lock() {
            known.insert(plugin.digest.clone(), info.clone());
        }
        Ok(info)
    }

    /// Every `*.wasm` file in `plugin.path`, by plugin name (the first
    /// directory holding a name wins).
    pub fn plugin_path_files(&self) -> BTreeMap<String, PathBuf> {
        let mut out = BTreeMap::new();
        for dir in &self.config.plugin_path {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "wasm")
                    && let Some(stem) = p.file_stem().map(|s| s.to_string_lossy().into_owned())
                {
                    out.entry(stem).or_insert(p);
                }
            }
        }
        out
    }

    /// Every plugin version this worker can run: one per `plugin.path`
    /// file and every upload, by name and then version. Components that
    /// cannot be loaded or described are left out (and logged).
    pub fn plugin_versions(&self) -> Vec<PluginVersion> {
        let mut out = Vec::new();
        for (name, path) in self.plugin_path_files() {
            match self.describe_plugin(&path) {
                Ok((plugin, info)) => out.push(PluginVersion {
                    name,
                    version: info.version,
                    kind: plugin.kind,
                    digest: plugin.digest.clone(),
                    source: PluginSource::PluginPath,
                    path,
                }),
                Err(e) => {
                    tracing::warn!(plugin = %path.display(), error = %e, "skipping a plugin that cannot be described")
                }
            }
        }
        for (name, version, path) in self.registry.uploaded() {
            match crate::util::off_async(|| self.engine.load(&path)) {
                Ok(plugin) => out.push(PluginVersion {
                    name,
                    version,
                    kind: plugin.kind,
                    digest: plugin.digest.clone(),
                    source: PluginSource::Uploaded,
                    path,
                }),
                Err(e) => {
                    tracing::warn!(plugin = %path.display(), error = %e, "skipping an uploaded plugin that cannot be loaded")
                }
            }
        }
        out.sort_by(|a, b| {
            a.name
                .cmp(&b.name)
                .then_with(|| compare_versions(&a.version, &b.version))
        });
        out
    }

    /// Add a version of a plugin (`PUT /connector-plugins/{name}/versions/
    /// {version}`): the bytes must be a component implementing a Copycat
    /// world whose imports this worker provides; it is compiled, asked to
    /// describe itself (its version must be `version`) and stored with its
    /// digest. Versions are immutable: uploading the same bytes again is a
    /// no-op, other bytes are refused. Returns the version and whether it
    /// is new.
    pub fn install_plugin(
        &self,
        name: &str,
        version: &str,
        bytes: &[u8],
    ) -> Result<(PluginVersion, bool), WorkerError> {
        crate::worker::registry::check_name(name)?;
        crate::worker::registry::check_version(version)?;
        let max = self.config.plugin_upload_max_bytes;
        if bytes.len() > max {
            return Err(RegistryError::TooLarge { max }.into());
        }
        let digest = format!("sha256:{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes));
        if let Some(found) = self.existing_version(name, version, &digest)? {
            return Ok((found, false));
        }
        // Compile and describe outside the management lock: a component
        // that is slow to compile or to describe holds up only this request.
        let dest = self.registry.file(name, version);
        let (plugin, info) = crate::util::off_async(|| -> Result<_, WorkerError> {
            let plugin = self.engine.load_bytes(&dest, bytes)?;
            let info = self.describe_loaded(&plugin)?;
            Ok((plugin, info))
        })?;
        if info.version != version {
            return Err(RegistryError::VersionMismatch {
                name: name.to_owned(),
                version: version.to_owned(),
                described: info.version,
            }
            .into());
        }
        let _m = self.manage();
        // Another upload of this version may have landed meanwhile.
        if let Some(found) = self.existing_version(name, version, &digest)? {
            return Ok((found, false));
        }
        let staged = self.registry.stage(name, bytes)?;
        let path = self.registry.commit(staged, name, version)?;
        tracing::info!(plugin = name, version, digest = %plugin.digest, "plugin version installed");
        Ok((
            PluginVersion {
                name: name.to_owned(),
                version: version.to_owned(),
                kind: plugin.kind,
                digest: plugin.digest.clone(),
                source: PluginSource::Uploaded,
                path,
            },
            true,
        ))
    }

    /// What already is `version` of plugin `name` (an upload, or the
    /// plugin.path file): the same bytes (`digest`) as found, other bytes
    /// refused, or nothing yet.
    pub(super) fn existing_version(
        &self,
        name: &str,
        version: &str,
        digest: &str,
    ) -> Result<Option<PluginVersion>, WorkerError> {
        let dest = self.registry.file(name, version);
        let existing = if dest.is_file() {
            Some((self.describe_plugin(&dest)?.0, PluginSource::Uploaded, dest.clone()))
        } else {
            match self.plugin_path_file(name) {
                Some(p) => {
                    let (plugin, info) = self.describe_plugin(&p)?;
                    (info.version == version).then_some((plugin, PluginSource::PluginPath, p))
                }
                None => None,
            }
        };
        let Some((plugin, source, path)) = existing else {
            return Ok(None);
        };
        if plugin.digest != digest {
            return Err(RegistryError::Exists {
                name: name.to_owned(),
                version: version.to_owned(),
                existing: plugin.digest.clone(),
                uploaded: digest.to_owned(),
            }
            .into());
        }
        Ok(Some(PluginVersion {
            name: name.to_owned(),
            version: version.to_owned(),
            kind: plugin.kind,
            digest: digest.to_owned(),
            source,
            path,
        }))
    }

    /// Delete an uploaded plugin version that no connector runs.
    pub fn delete_plugin_version(&self, name: &str, version: &str) -> Result<(), WorkerError> {
        crate::worker::registry::check_name(name)?;
        crate::worker::registry::check_version(version)?;
        let _m = self.manage();
        let versions: Vec<PluginVersion> = self.plugin_versions().into_iter().filter(|v| v.name == name).collect();
        let Some(v) = versions.iter().find(|v| v.version == version) else {
            if versions.is_empty() {
                return Err(RegistryError::UnknownPlugin(name.to_owned()).into());
            }
            return Err(RegistryError::UnknownVersion {
                name: name.to_owned(),
                version: version.to_owned(),
                available: versions
                    .iter()
                    .map(|v| v.version.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
            .into());
        };
        if v.source == PluginSource::PluginPath {
            return Err(RegistryError::NotUploaded {
                name: name.to_owned(),
                version: version.to_owned(),
                path: v.path.clone(),
            }
            .into());
        }
        let users: Vec<String> = self
            .lock()
            .iter()
            .filter(|(_, c)| c.plugin.digest == v.digest)
            .map(|(n, _)| n.clone())
            .collect();
        if !users.is_empty() {
            return Err(RegistryError::InUse {
                name: name.to_owned(),
                version: version.to_owned(),
                connectors: users.join(", "),
            }
            .into());
        }
        self.registry.remove(name, version)?;
        tracing::info!(plugin = name, version, "plugin version deleted");
        Ok(())
    }
}
