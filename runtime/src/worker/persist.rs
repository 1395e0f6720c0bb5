//! Persisted connector state (standalone mode): every connector's config and
//! target state in `<state.dir>/connectors.json`, rewritten atomically (a
//! temporary file renamed over the old one) after every change, and read
//! back when `copycat standalone` starts, so a restarted worker comes back
//! with the same connectors in the same states.
//!
//! ```json
//! {"version": 1, "connectors": {
//!   "orders": {"config": {"name": "orders", "connector.class": "datagen"}, "state": "PAUSED"}
//! }}
//! ```

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Props;
use crate::connector::TargetState;

/// The file inside the state directory.
pub const FILE_NAME: &str = "connectors.json";

/// Why the state file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Reading, writing or renaming failed.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not a state file.
    #[error("{}: not a Copycat state file: {source}", .path.display())]
    Parse {
        path: PathBuf,
        /// What is wrong.
        source: serde_json::Error,
    },
}

/// One connector as persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedConnector {
    /// Its config, every key as given.
    pub config: Props,
    /// Its target state.
    #[serde(default)]
    pub state: TargetState,
    /// Its active topics (KIP-558).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    version: u32,
    connectors: BTreeMap<String, SavedConnector>,
}

/// A worker's state directory (`state.dir`).
#[derive(Debug, Clone)]
pub struct StateStore {
    dir: PathBuf,
}

impl StateStore {
    /// The store in `dir` (created at the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The state file.
    pub fn file(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// The persisted connectors; none if there is no state file yet.
    pub fn load(&self) -> Result<BTreeMap<String, SavedConnector>, StateError> {
        let path = self.file();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(source) => return Err(StateError::Io { path, source }),
        };
        let file: StateFile = serde_json::from_str(&text).map_err(|source| StateError::Parse { path, source })?;
        Ok(file.connectors)
    }

    /// Replace the persisted connectors with `connectors`, atomically.
    pub fn save(&self, connectors: &BTreeMap<String, SavedConnector>) -> Result<(), StateError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| StateError::Io { path, source }
        };
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let file = StateFile {
            version: 1,
            connectors: connectors.clone(),
        };
        let text = serde_json::to_vec_pretty(&file).map_err(|source| StateError::Parse {
            path: self.file(),
            source,
        })?;
        let tmp = self.dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(&text).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        drop(f);
        std::fs::rename(&tmp, self.file()).map_err(io(&self.file()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn saves_and_loads_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::new(dir.path().join("nested"));
        assert!(store.load().unwrap().is_empty());
        let mut m = BTreeMap::new();
        m.insert(
            "a".to_owned(),
            SavedConnector {
                config: [("name".to_owned(), "a".to_owned())].into(),
                state: TargetState::Paused,
                topics: vec!["t".to_owned()],
            },
        );
        store.save(&m).unwrap();
        assert_eq!(store.load().unwrap(), m);
        let names: Vec<_> = std::fs::read_dir(dir.path().join("nested")).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left behind");
        std::fs::write(store.file(), "nope").unwrap();
        assert!(matches!(store.load(), Err(StateError::Parse { .. })));
    }
}
