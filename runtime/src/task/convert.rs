//! A task's converters: the connector's `key.converter`, `value.converter`
//! and `header.converter` ([`crate::config::converters`]) made into Kafka
//! Connect's converters (`copycat-data`), for the engine to turn a 0.3.0
//! source's typed records into bytes.

use copycat_data::{Role, Schema, Value};

use crate::config::converters::{BoxedConverter, BoxedHeaderConverter, Converters};
use crate::engine::batch::RecordConverters;

/// The three converters of a task.
pub(crate) struct TaskConverters {
    key: BoxedConverter,
    value: BoxedConverter,
    header: BoxedHeaderConverter,
}

impl TaskConverters {
    /// The converters `c` names (checked when the config was read; an
    /// error here names the role).
    pub(crate) fn new(c: &Converters) -> Result<Self, String> {
        Ok(Self {
            key: c.key.converter(Role::Key).map_err(|e| refused("key", e))?,
            value: c.value.converter(Role::Value).map_err(|e| refused("value", e))?,
            header: c.header.header_converter().map_err(|e| refused("header", e))?,
        })
    }
}

fn refused(role: &str, (key, message): (String, String)) -> String {
    if key.is_empty() {
        format!("{role}.converter: {message}")
    } else {
        format!("{role}.converter.{key}: {message}")
    }
}

impl RecordConverters for TaskConverters {
    fn key(&self, topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, String> {
        self.key.from_connect(topic, schema, value).map_err(|e| e.to_string())
    }

    fn value(&self, topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, String> {
        self.value.from_connect(topic, schema, value).map_err(|e| e.to_string())
    }

    fn header(
        &self,
        topic: &str,
        key: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, String> {
        self.header
            .from_connect_header(topic, key, schema, value)
            .map_err(|e| e.to_string())
    }
}
