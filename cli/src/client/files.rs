//! Connector config files for the client: `.properties` (as `copycat
//! standalone` reads them) or JSON, either Kafka Connect's
//! `{"name": .., "config": {..}}` or a flat map of keys. JSON numbers and
//! booleans become strings (Kafka Connect configs are string maps).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::ClientError;

/// A connector config read from a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConnectorFile {
    /// The `name` of a `{"name", "config"}` document, else the config's `name` key.
    pub name: Option<String>,
    /// The config.
    pub config: BTreeMap<String, String>,
}

/// Read `path`: JSON if it ends in `.json` or starts with `{`, else
/// `.properties`.
pub fn read_connector_file(path: &Path) -> Result<ConnectorFile, ClientError> {
    let text = std::fs::read_to_string(path).map_err(|e| ClientError::file(path, e))?;
    let is_json =
        path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) || text.trim_start().starts_with('{');
    if is_json {
        let doc: Value =
            serde_json::from_str(&text).map_err(|e| ClientError::file(path, format!("not valid JSON: {e}")))?;
        from_json(doc).map_err(|e| ClientError::file(path, e))
    } else {
        let config = copycat_runtime::config::load_properties(path).map_err(|e| ClientError::Invalid(e.to_string()))?;
        Ok(ConnectorFile {
            name: config.get("name").cloned(),
            config,
        })
    }
}

fn from_json(doc: Value) -> Result<ConnectorFile, String> {
    let Value::Object(mut top) = doc else {
        return Err("expected a JSON object".into());
    };
    let wrapped = matches!(top.get("config"), Some(Value::Object(_)));
    let (name, map) = if wrapped {
        let name = match top.remove("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => return Err(format!("\"name\" must be a string, not {other}")),
        };
        match top.remove("config") {
            Some(Value::Object(m)) => (name, m),
            _ => (name, serde_json::Map::new()),
        }
    } else {
        (None, top)
    };
    let mut config = BTreeMap::new();
    for (k, v) in map {
        let v = match v {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => return Err(format!("key \"{k}\": expected a string, not {other}")),
        };
        config.insert(k, v);
    }
    let name = name.or_else(|| config.get("name").cloned());
    Ok(ConnectorFile { name, config })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn json_shapes() {
        let f = from_json(json!({"name": "a", "config": {"tasks.max": 2, "topic": "t"}})).unwrap();
        assert_eq!(f.name.as_deref(), Some("a"));
        assert_eq!(f.config["tasks.max"], "2");
        let f = from_json(json!({"name": "b", "connector.class": "datagen", "exactly.once": true})).unwrap();
        assert_eq!(f.name.as_deref(), Some("b"));
        assert_eq!(f.config["exactly.once"], "true");
        assert!(from_json(json!({"a": {"b": 1}})).unwrap_err().contains("\"a\""));
        assert!(from_json(json!([1])).is_err());
    }

    #[test]
    fn properties_and_json_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.properties");
        std::fs::write(&p, "name=c\nconnector.class=datagen\n").unwrap();
        let f = read_connector_file(&p).unwrap();
        assert_eq!(f.name.as_deref(), Some("c"));
        assert_eq!(f.config["connector.class"], "datagen");
        let j = dir.path().join("c.conf");
        std::fs::write(&j, r#" {"name": "j", "config": {"topic": "t"}}"#).unwrap();
        assert_eq!(read_connector_file(&j).unwrap().name.as_deref(), Some("j"));
        std::fs::write(&j, "{").unwrap();
        let err = read_connector_file(&j).unwrap_err().to_string();
        assert!(err.contains("c.conf") && err.contains("JSON"), "{err}");
    }
}
