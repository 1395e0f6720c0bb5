//! Connector and task configurations.

use core::fmt;
use core::str::FromStr;

use crate::Error;

/// A configuration: the connector's (or one task's) key/value settings,
/// exactly as the operator wrote them (Kafka Connect style: `topic`,
/// `tasks.max`, `file`, ...).
///
/// Keys are unique; order carries no meaning. Values are text; the helpers
/// parse them and produce [`Error::Config`] messages that name the key.
///
/// ```
/// use copycat_sdk::Config;
///
/// let config = Config::new()
///     .with("topic", "events")
///     .with("batch.size", "500")
///     .with("files", "/a.log, /b.log");
/// assert_eq!(config.require("topic").unwrap(), "events");
/// assert_eq!(config.get_parsed("batch.size", 1000u32).unwrap(), 500);
/// assert_eq!(config.get_parsed("rate", 0.0f64).unwrap(), 0.0);
/// assert_eq!(config.get_list("files"), ["/a.log", "/b.log"]);
/// assert!(config.require("missing").is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Config {
    entries: Vec<(String, String)>,
}

impl Config {
    /// An empty configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether `key` is set (possibly to the empty string).
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The value of `key`, which must be set and not blank; otherwise an
    /// [`Error::Config`] naming the key.
    pub fn require(&self, key: &str) -> Result<&str, Error> {
        match self.get(key) {
            Some(v) if !v.trim().is_empty() => Ok(v),
            Some(_) => Err(Error::config(format!("config '{key}' is required but is empty"))),
            None => Err(Error::config(format!("config '{key}' is required but is not set"))),
        }
    }

    /// The value of `key` parsed as `T` (surrounding whitespace ignored), or
    /// `default` when the key is absent or blank. A value that does not parse
    /// is an [`Error::Config`] naming the key and the value.
    pub fn get_parsed<T>(&self, key: &str, default: T) -> Result<T, Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        Ok(self.get_parsed_opt(key)?.unwrap_or(default))
    }

    /// Like [`get_parsed`](Self::get_parsed), for keys without a default:
    /// `None` when the key is absent or blank.
    pub fn get_parsed_opt<T>(&self, key: &str) -> Result<Option<T>, Error>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        match self.get(key).map(str::trim) {
            None | Some("") => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|e| Error::config(format!("config '{key}': invalid value '{v}': {e}"))),
        }
    }

    /// The value of `key` as a comma-separated list: items trimmed, empty
    /// items dropped. Absent key: empty list.
    pub fn get_list(&self, key: &str) -> Vec<String> {
        self.get(key)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Set `key` to `value`, replacing any previous value.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        let (key, value) = (key.into(), value.into());
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
        self
    }

    /// Builder form of [`set`](Self::set).
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.set(key, value);
        self
    }

    /// Remove `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    /// Iterate over `(key, value)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `(key, value)` pairs, as exchanged with the host.
    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.entries
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Build from pairs; a later duplicate key replaces an earlier one.
impl From<Vec<(String, String)>> for Config {
    fn from(pairs: Vec<(String, String)>) -> Self {
        pairs.into_iter().collect()
    }
}

impl From<Config> for Vec<(String, String)> {
    fn from(config: Config) -> Self {
        config.entries
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Config {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut config = Config::new();
        config.extend(iter);
        config
    }
}

impl<K: Into<String>, V: Into<String>> Extend<(K, V)> for Config {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.set(k, v);
        }
    }
}

impl<'a> IntoIterator for &'a Config {
    type Item = (&'a str, &'a str);
    type IntoIter = Box<dyn Iterator<Item = (&'a str, &'a str)> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_key() {
        let c = Config::new().with("batch.size", "lots");
        let e = c.get_parsed("batch.size", 1u32).unwrap_err();
        assert!(matches!(e, Error::Config(_)));
        assert!(e.message().contains("batch.size"), "{e}");
        assert!(e.message().contains("lots"), "{e}");
    }

    #[test]
    fn defaults_and_blank_values() {
        let c = Config::new().with("a", " 7 ").with("b", "");
        assert_eq!(c.get_parsed("a", 0i64).unwrap(), 7);
        assert_eq!(c.get_parsed("b", 3i64).unwrap(), 3);
        assert_eq!(c.get_parsed("c", 4i64).unwrap(), 4);
        assert_eq!(c.get_parsed_opt::<i32>("c").unwrap(), None);
        assert!(c.require("b").unwrap_err().message().contains("'b'"));
    }

    #[test]
    fn set_replaces_and_lists_split() {
        let mut c: Config = [("k", "1"), ("k", "2")].into_iter().collect();
        assert_eq!(c.len(), 1);
        assert_eq!(c.get("k"), Some("2"));
        c.set("l", " x,, y ,z,");
        assert_eq!(c.get_list("l"), ["x", "y", "z"]);
        assert!(c.get_list("nope").is_empty());
        assert_eq!(c.remove("k").as_deref(), Some("2"));
        assert!(!c.contains_key("k"));
    }
}
