//! Connect values as Avro datums for object container files, as Confluent's
//! HDFS connector writes them: the Avro schema AvroData makes of a record's
//! Connect schema, parsed for `apache-avro` (whose `Writer` writes the
//! files), and values converted to fit it. No schema registry is involved,
//! so Rust guests (the hdfs-sink component) use this too.
//!
//! Invariant: a [`ContainerSchema`]'s tree and `apache-avro` schema are
//! parsed from the one text, so a value [`ContainerSchema::to_avro`]
//! builds fits the schema the file's header carries.

use apache_avro::types::Value as Av;

use super::schema::{self, AvroData, Tree};
use crate::{DataError, Schema, Value};

/// The Avro schema of one Connect schema (or of schemaless values), in the
/// forms a container file writer needs.
pub struct ContainerSchema {
    text: String,
    tree: Tree,
    apache: apache_avro::Schema,
}

impl std::fmt::Debug for ContainerSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContainerSchema").field("text", &self.text).finish()
    }
}

impl ContainerSchema {
    /// The Avro schema AvroData makes of `schema` (`None`: schemaless
    /// values, held in AvroData's `Anything` record).
    pub fn new(data: &AvroData, schema: Option<&Schema>) -> Result<Self, DataError> {
        let text = schema::write_schema(&data.avro_schema_of(schema)?);
        let tree = schema::parse_schema(&text)?;
        let apache = apache_avro::Schema::parse_str(&text)
            .map_err(|e| DataError::new(format!("Invalid Avro schema: {e}: {text}")))?;
        Ok(Self { text, tree, apache })
    }

    /// The schema's JSON text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The schema as `apache-avro` holds it (for its `Writer` and `Reader`).
    pub fn apache(&self) -> &apache_avro::Schema {
        &self.apache
    }

    /// `value` (of the Connect `schema` this was made of) as an Avro value
    /// of this schema.
    pub fn to_avro(&self, data: &AvroData, schema: Option<&Schema>, value: &Value) -> Result<Av, DataError> {
        data.to_avro_value(schema, &self.tree, value)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::SchemaBuilder;
    use crate::avro::AvroDataConfig;

    #[test]
    fn a_struct_round_trips_through_a_container_file() {
        let data = AvroData::new(AvroDataConfig::default());
        let schema = SchemaBuilder::structure()
            .name("com.example.Order")
            .field("id", Schema::int64())
            .unwrap()
            .field("note", Schema::optional_string())
            .unwrap()
            .build();
        let value = Value::Struct(
            crate::Struct::new(&schema)
                .unwrap()
                .put("id", 7i64)
                .unwrap()
                .put("note", Value::from("x"))
                .unwrap(),
        );
        let cs = ContainerSchema::new(&data, Some(&schema)).unwrap();
        assert!(cs.text().contains("\"com.example\""), "{}", cs.text());
        let mut w = apache_avro::Writer::new(cs.apache(), Vec::new()).unwrap();
        w.append_value(cs.to_avro(&data, Some(&schema), &value).unwrap())
            .unwrap();
        let bytes = w.into_inner().unwrap();
        let read: Vec<Av> = apache_avro::Reader::new(&bytes[..])
            .unwrap()
            .map(|v| v.unwrap())
            .collect();
        assert_eq!(read.len(), 1);
        let Av::Record(fields) = &read[0] else {
            panic!("{read:?}")
        };
        assert_eq!(fields[0], ("id".to_owned(), Av::Long(7)));
    }
}
