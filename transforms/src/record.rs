//! The record transforms see: Kafka Connect's `ConnectRecord` (topic,
//! Kafka partition, key and value with their schemas, timestamp, headers)
//! and, on a sink, the Kafka offset.

use copycat_data::{Schema, Value};

/// A record between the connector and the converters.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub topic: String,
    pub kafka_partition: Option<i32>,
    pub key_schema: Option<Schema>,
    pub key: Value,
    pub value_schema: Option<Schema>,
    pub value: Value,
    pub timestamp: Option<i64>,
    pub headers: Vec<Header>,
    /// The record's offset in Kafka: set on a sink's records only
    /// (Kafka Connect's `SinkRecord.kafkaOffset`).
    pub kafka_offset: Option<i64>,
}

/// A header: a key and a value with its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub key: String,
    pub schema: Option<Schema>,
    pub value: Value,
}

/// Which part of a record a `$Key` or `$Value` transform works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Key,
    Value,
}

impl Default for Record {
    fn default() -> Self {
        Self {
            topic: String::new(),
            kafka_partition: None,
            key_schema: None,
            key: Value::Null,
            value_schema: None,
            value: Value::Null,
            timestamp: None,
            headers: Vec::new(),
            kafka_offset: None,
        }
    }
}

impl Record {
    /// The schema of `part`.
    pub fn schema_of(&self, part: Part) -> Option<&Schema> {
        match part {
            Part::Key => self.key_schema.as_ref(),
            Part::Value => self.value_schema.as_ref(),
        }
    }

    /// The value of `part`.
    pub fn value_of(&self, part: Part) -> &Value {
        match part {
            Part::Key => &self.key,
            Part::Value => &self.value,
        }
    }

    /// The value of `part`, taken out (null left in its place).
    pub fn take_value(&mut self, part: Part) -> Value {
        let slot = match part {
            Part::Key => &mut self.key,
            Part::Value => &mut self.value,
        };
        std::mem::replace(slot, Value::Null)
    }

    /// The record with `part` replaced.
    pub fn with(mut self, part: Part, schema: Option<Schema>, value: Value) -> Self {
        match part {
            Part::Key => {
                self.key_schema = schema;
                self.key = value;
            }
            Part::Value => {
                self.value_schema = schema;
                self.value = value;
            }
        }
        self
    }

    /// Whether Kafka Connect would call this record a sink record (it has
    /// a Kafka offset).
    pub fn is_sink(&self) -> bool {
        self.kafka_offset.is_some()
    }
}
