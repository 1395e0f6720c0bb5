//! Reading configuration: `.properties` files, typed access to [`Props`]
//! that collects every problem, and the error that names the keys at fault.

use std::path::{Path, PathBuf};

use crate::connector::Props;

/// A configuration problem, naming the file or key at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read or parsed.
    #[error("cannot read config file {path}: {reason}")]
    File {
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// One or more keys are missing or invalid.
    #[error("invalid configuration{}: {}", .context, .problems.iter().map(|(k, m)| format!("{k}: {m}")).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// Where (e.g. " for connector 'x'"), possibly empty.
        context: String,
        /// `(key, message)` pairs.
        problems: Vec<(String, String)>,
    },
}

impl ConfigError {
    /// A single problem with `key`.
    pub fn key(context: impl Into<String>, key: &str, message: impl Into<String>) -> Self {
        Self::Invalid {
            context: context.into(),
            problems: vec![(key.to_owned(), message.into())],
        }
    }
}

/// Read a `.properties` file.
pub fn load_properties(path: &Path) -> Result<Props, ConfigError> {
    let file = std::fs::File::open(path).map_err(|e| ConfigError::File {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let map = java_properties::read(std::io::BufReader::new(file)).map_err(|e| ConfigError::File {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    Ok(map
        .into_iter()
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect())
}

/// Typed access to [`Props`] that collects problems instead of stopping at
/// the first.
pub(crate) struct Reader<'a> {
    props: &'a Props,
    pub(crate) problems: Vec<(String, String)>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(props: &'a Props) -> Self {
        Self {
            props,
            problems: Vec::new(),
        }
    }

    pub(crate) fn str(&self, key: &str) -> Option<&'a str> {
        self.props.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    pub(crate) fn required(&mut self, key: &str) -> String {
        match self.str(key) {
            Some(v) => v.to_owned(),
            None => {
                self.problems
                    .push((key.to_owned(), "missing required configuration".to_owned()));
                String::new()
            }
        }
    }

    pub(crate) fn parse<T: std::str::FromStr>(&mut self, key: &str, default: T) -> T
    where
        T::Err: std::fmt::Display,
    {
        match self.str(key) {
            None => default,
            Some(v) => match v.parse() {
                Ok(x) => x,
                Err(e) => {
                    self.problems
                        .push((key.to_owned(), format!("invalid value '{v}': {e}")));
                    default
                }
            },
        }
    }

    pub(crate) fn list(&self, key: &str) -> Vec<String> {
        self.str(key)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every `prefix*` key with the prefix removed (e.g. `producer.`).
    pub(crate) fn prefixed(&self, prefix: &str) -> Props {
        self.props
            .iter()
            .filter_map(|(k, v)| k.strip_prefix(prefix).map(|rest| (rest.to_owned(), v.clone())))
            .collect()
    }

    pub(crate) fn finish(self, context: String) -> Result<(), ConfigError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::Invalid {
                context,
                problems: self.problems,
            })
        }
    }
}
