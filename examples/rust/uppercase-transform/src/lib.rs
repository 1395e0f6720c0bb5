//! uppercase-transform: a transform component that upper-cases text.
//!
//! A string value is upper-cased whole, and so are the ASCII letters of a
//! bytes value (a connector's raw bytes); in a struct or map value, the
//! string fields named in `fields` are (all of them when `fields` is
//! empty). Anything else passes unchanged, and the schema never changes.
//! Behaviour: examples/SPEC.md.
//! `copycat new <name> --kind transform` starts a project from this one.

use copycat_sdk::transform::{
    Config, ConfigKey, ConfigProblem, Error, Output, PluginInfo, Record, Struct, Transform, Value,
};

/// `fields`: the names in the comma-separated list (none when it is
/// empty); an empty name in a non-empty list (`a,,b`) is an error.
fn fields(config: &Config) -> Result<Vec<String>, String> {
    let list = config.get("fields").unwrap_or_default().trim();
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = list.split(',').map(|f| f.trim().to_owned()).collect();
    if names.iter().any(String::is_empty) {
        return Err(format!("an empty field name in '{list}'"));
    }
    Ok(names)
}

/// The transform, configured.
pub struct Uppercase {
    /// Field names to upper-case; empty: every string field.
    fields: Vec<String>,
}

impl Uppercase {
    fn wanted(&self, field: &str) -> bool {
        self.fields.is_empty() || self.fields.iter().any(|f| f == field)
    }

    fn upper(&self, value: Value) -> Result<Value, Error> {
        Ok(match value {
            Value::String(s) => Value::String(s.to_uppercase()),
            Value::Bytes(b) => Value::Bytes(b.to_ascii_uppercase()),
            Value::Struct(s) => {
                let schema = s.schema().clone();
                let mut out = Struct::new(&schema).map_err(|e| Error::config(e.to_string()))?;
                for field in schema.fields() {
                    let v = s.get(field.name()).cloned().unwrap_or(Value::Null);
                    let v = match v {
                        Value::String(t) if self.wanted(field.name()) => Value::String(t.to_uppercase()),
                        other => other,
                    };
                    out = out.put(field.name(), v).map_err(|e| Error::config(e.to_string()))?;
                }
                Value::Struct(out)
            }
            Value::Map(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| {
                        let wanted = matches!(&k, Value::String(name) if self.wanted(name));
                        match v {
                            Value::String(t) if wanted => (k, Value::String(t.to_uppercase())),
                            other => (k, other),
                        }
                    })
                    .collect(),
            ),
            other => other,
        })
    }
}

impl Transform for Uppercase {
    fn describe() -> PluginInfo {
        PluginInfo::new("uppercase-transform", "0.1.0")
            .description("Upper-cases string values, or the named string fields of a struct or map value")
            .config(ConfigKey::list("fields").default_value("").doc("Fields to upper-case (empty: every string field)"))
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        match fields(config) {
            Ok(_) => Vec::new(),
            Err(message) => vec![ConfigProblem {
                key: "fields".into(),
                message,
            }],
        }
    }

    fn configure(config: Config) -> Result<Self, Error> {
        let fields = fields(&config).map_err(|e| Error::config(format!("setting 'fields': {e}")))?;
        Ok(Self { fields })
    }

    fn apply(&mut self, mut record: Record, out: &mut Output) -> Result<(), Error> {
        record.value = self.upper(std::mem::replace(&mut record.value, Value::Null))?;
        out.push(record);
        Ok(())
    }
}

copycat_sdk::transform::export_transform!(Uppercase);

#[cfg(test)]
mod tests {
    use super::*;
    use copycat_sdk::transform::{Schema, SchemaBuilder, run};

    fn configured(fields: &str) -> Uppercase {
        match Uppercase::configure(Config::new().with("fields", fields)) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_string_value_is_upper_cased() {
        let record = Record {
            topic: "t".into(),
            value_schema: Some(Schema::string()),
            value: Value::String("ada".into()),
            ..Record::default()
        };
        let out = run(&mut configured(""), vec![record]).map_err(|e| e.to_string());
        assert_eq!(
            out.map(|o| o.into_iter().map(|(_, r)| r.value).collect::<Vec<_>>()),
            Ok(vec![Value::String("ADA".into())])
        );
    }

    #[test]
    fn an_empty_field_name_is_refused() {
        let bad = Config::new().with("fields", "a,,b");
        assert_eq!(Uppercase::validate(&bad).len(), 1);
        assert!(matches!(Uppercase::configure(bad), Err(Error::Config(m)) if m.contains("fields")));
        assert!(Uppercase::validate(&Config::new().with("fields", "")).is_empty());
    }

    #[test]
    fn raw_bytes_are_upper_cased_and_stay_bytes() {
        let record = Record {
            topic: "t".into(),
            value_schema: Some(Schema::optional_bytes()),
            value: Value::Bytes(b"hello-1".to_vec()),
            ..Record::default()
        };
        let out = run(&mut configured(""), vec![record]).map_err(|e| e.to_string());
        assert_eq!(
            out.map(|o| o.into_iter().map(|(_, r)| r.value).collect::<Vec<_>>()),
            Ok(vec![Value::Bytes(b"HELLO-1".to_vec())])
        );
    }

    #[test]
    fn only_the_named_fields_of_a_struct() {
        let schema = SchemaBuilder::structure()
            .field("name", Schema::string())
            .and_then(|b| b.field("city", Schema::string()))
            .map(|b| b.build())
            .map_err(|e| e.to_string());
        let Ok(schema) = schema else { panic!("schema") };
        let value = Struct::new(&schema)
            .and_then(|s| s.put("name", Value::String("ada".into())))
            .and_then(|s| s.put("city", Value::String("london".into())));
        let Ok(value) = value else { panic!("struct") };
        let record = Record {
            topic: "t".into(),
            value_schema: Some(schema),
            value: Value::Struct(value),
            ..Record::default()
        };
        let Ok(out) = run(&mut configured("name"), vec![record]) else { panic!("apply") };
        let Value::Struct(s) = &out[0].1.value else { panic!("not a struct") };
        assert_eq!(s.get("name"), Some(&Value::String("ADA".into())));
        assert_eq!(s.get("city"), Some(&Value::String("london".into())));
    }
}
