//! The plugin registry: every version of every connector component a
//! worker can run, side by side.
//!
//! Two places hold plugins:
//! - `plugin.path` directories: `<name>.wasm`, one version each (the version
//!   the component's `describe` reports);
//! - the registry directory (`plugin.registry.dir`), filled by uploads
//!   through the REST API: `<name>/<version>.wasm`, any number of versions.
//!
//! A connector picks a plugin with `connector.class` (the name) and,
//! optionally, `connector.plugin.version` (as in Kafka Connect 4.1+,
//! KIP-891): an exact version, or the latest one when unset. This module
//! owns the names, the version order and the files; checking that an upload
//! is a component the worker can run is the worker's job (it has the
//! engine).

use std::cmp::Ordering;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a plugin version comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginSource {
    /// A `<name>.wasm` file in a `plugin.path` directory.
    PluginPath,
    /// Uploaded through the REST API into `plugin.registry.dir`.
    Uploaded,
}

/// Why a registry operation failed.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The plugin name cannot be a file name.
    #[error(
        "plugin name '{0}' is not valid: use 1 to 100 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
    )]
    BadName(String),
    /// The version cannot be a file name.
    #[error(
        "plugin version '{0}' is not valid: use 1 to 64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit"
    )]
    BadVersion(String),
    /// The upload is larger than `plugin.upload.max.bytes`.
    #[error("the upload is larger than plugin.upload.max.bytes={max} bytes")]
    TooLarge { max: usize },
    /// Versions are immutable: the same version with other bytes is refused.
    #[error(
        "plugin {name} version {version} already exists with digest {existing} (this upload has {uploaded}); versions are immutable: upload it under a new version"
    )]
    Exists {
        /// Plugin name.
        name: String,
        /// Version.
        version: String,
        /// The stored component's digest.
        existing: String,
        /// The upload's digest.
        uploaded: String,
    },
    /// The component reports another version than the one it is uploaded as.
    #[error(
        "the component uploaded as {name} version {version} describes itself as version {described}; upload it under that version"
    )]
    VersionMismatch {
        /// Plugin name.
        name: String,
        version: String,
        /// The version the component reports.
        described: String,
    },
    /// No plugin of this name.
    #[error("Unknown plugin {0}")]
    UnknownPlugin(String),
    /// The plugin has no such version.
    #[error("plugin {name} has no version {version}; available: [{available}]")]
    UnknownVersion {
        /// Plugin name.
        name: String,
        version: String,
        available: String,
    },
    /// A version in `plugin.path` cannot be deleted through the API.
    #[error("plugin {name} version {version} is the file {path} in plugin.path; only uploaded versions can be deleted")]
    NotUploaded {
        /// Plugin name.
        name: String,
        /// Version.
        version: String,
        path: PathBuf,
    },
    /// Connectors run this version.
    #[error("plugin {name} version {version} is used by connector(s) {connectors}; switch or delete them first")]
    InUse {
        /// Plugin name.
        name: String,
        /// Version.
        version: String,
        connectors: String,
    },
    /// The registry directory could not be read or written.
    #[error("plugin registry: {path}: {source}")]
    Io {
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RegistryError + '_ {
    move |source| RegistryError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Check a plugin name (it becomes a directory name).
pub fn check_name(name: &str) -> Result<(), RegistryError> {
    let ok = (1..=100).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(RegistryError::BadName(name.to_owned()))
    }
}

/// Check a version (it becomes a file name).
pub fn check_version(version: &str) -> Result<(), RegistryError> {
    let ok = (1..=64).contains(&version.len())
        && version.starts_with(|c: char| c.is_ascii_alphanumeric())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'));
    if ok {
        Ok(())
    } else {
        Err(RegistryError::BadVersion(version.to_owned()))
    }
}

/// Order versions the way people read them: dot-separated parts compare
/// numerically when both are numbers (`1.10.0` > `1.9.2`), as text
/// otherwise; a pre-release (`2.0.0-rc1`) sorts before its release.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let split = |v: &str| -> (String, Option<String>) {
        let v = v.split('+').next().unwrap_or(v);
        match v.split_once('-') {
            Some((core, pre)) => (core.to_owned(), Some(pre.to_owned())),
            None => (v.to_owned(), None),
        }
    };
    let ((ca, pa), (cb, pb)) = (split(a), split(b));
    let mut xs = ca.split('.');
    let mut ys = cb.split('.');
    loop {
        let ord = match (xs.next(), ys.next()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Greater,
            (None, Some(_)) => Ordering::Less,
            (Some(x), Some(y)) => match (x.parse::<u64>(), y.parse::<u64>()) {
                (Ok(x), Ok(y)) => x.cmp(&y),
                _ => x.cmp(y),
            },
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    match (pa, pb) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(&y),
    }
}

/// The uploaded components under `plugin.registry.dir`.
#[derive(Debug, Clone)]
pub struct Registry {
    dir: PathBuf,
}

impl Registry {
    /// The registry kept in `dir` (created on the first upload).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The registry directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of an uploaded version (which may not exist).
    pub fn file(&self, name: &str, version: &str) -> PathBuf {
        self.dir.join(name).join(format!("{version}.wasm"))
    }

    /// Every uploaded `(name, version, file)`; a missing registry is empty.
    pub fn uploaded(&self) -> Vec<(String, String, PathBuf)> {
        let mut out = Vec::new();
        let Ok(names) = std::fs::read_dir(&self.dir) else {
            return out;
        };
        for n in names.flatten() {
            let name = n.file_name().to_string_lossy().into_owned();
            if check_name(&name).is_err() {
                continue;
            }
            let Ok(files) = std::fs::read_dir(n.path()) else {
                continue;
            };
            for f in files.flatten() {
                let p = f.path();
                if p.extension().is_some_and(|x| x == "wasm")
                    && let Some(version) = p.file_stem().map(|s| s.to_string_lossy().into_owned())
                    && check_version(&version).is_ok()
                {
                    out.push((name.clone(), version, p));
                }
            }
        }
        out
    }

    /// A temporary file in the registry holding `bytes`, to be checked and
    /// then [`Registry::commit`]ted (or dropped, which deletes it).
    pub fn stage(&self, name: &str, bytes: &[u8]) -> Result<tempfile::NamedTempFile, RegistryError> {
        let dir = self.dir.join(name);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".upload-")
            .suffix(".wasm.tmp")
            .tempfile_in(&dir)
            .map_err(io(&dir))?;
        tmp.write_all(bytes).map_err(io(tmp.path()))?;
        tmp.as_file().sync_all().map_err(io(tmp.path()))?;
        Ok(tmp)
    }

    /// Move a staged upload to its final name, atomically.
    pub fn commit(&self, staged: tempfile::NamedTempFile, name: &str, version: &str) -> Result<PathBuf, RegistryError> {
        let dest = self.file(name, version);
        staged.persist(&dest).map_err(|e| RegistryError::Io {
            path: dest.clone(),
            source: e.error,
        })?;
        Ok(dest)
    }

    /// Delete an uploaded version.
    pub fn remove(&self, name: &str, version: &str) -> Result<(), RegistryError> {
        let p = self.file(name, version);
        std::fs::remove_file(&p).map_err(io(&p))?;
        // An empty plugin directory goes too; a non-empty one stays.
        let _ = std::fs::remove_dir(self.dir.join(name));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_and_versions() {
        check_name("datagen").unwrap();
        check_name("my-sink.v2").unwrap();
        for bad in ["", "../x", "A", "-x", "a/b", "a b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        check_version("1.0.0").unwrap();
        check_version("2.0.0-rc.1+build5").unwrap();
        for bad in ["", "..", ".1", "1/2", "1 0"] {
            assert!(check_version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn version_order() {
        let mut v = vec!["1.10.0", "1.9.2", "2.0.0-rc1", "2.0.0", "1.9", "0.1.0"];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(v, ["0.1.0", "1.9", "1.9.2", "1.10.0", "2.0.0-rc1", "2.0.0"]);
        assert_eq!(compare_versions("1.0.0+a", "1.0.0+b"), Ordering::Equal);
    }

    #[test]
    fn stage_commit_list_remove() {
        let dir = tempfile::tempdir().unwrap();
        let r = Registry::new(dir.path().join("plugins"));
        assert!(r.uploaded().is_empty());
        let staged = r.stage("p", b"bytes").unwrap();
        let path = r.commit(staged, "p", "1.0.0").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"bytes");
        // A dropped stage leaves nothing behind.
        drop(r.stage("p", b"other").unwrap());
        assert_eq!(r.uploaded(), vec![("p".to_owned(), "1.0.0".to_owned(), path)]);
        r.remove("p", "1.0.0").unwrap();
        assert!(r.uploaded().is_empty());
        assert!(!dir.path().join("plugins/p").exists());
    }
}
