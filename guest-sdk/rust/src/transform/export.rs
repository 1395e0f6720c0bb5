//! Glue between the `copycat:transform` bindings and [`Transform`], used
//! by [`export_transform!`](crate::transform::export_transform). Not a
//! public API.

use copycat_transforms::{BatchBuilder, RecordBatch};

use super::__bindings::exports::copycat::transform::transformer as wit;
use super::{Output, Transform};
use crate::__private::wit as types;
use crate::v0_3::wit::packed;
use crate::{Config, ConfigProblem, Error, PluginInfo};

pub use wit::{RecordBatch as WitBatch, TransformError, TransformInfo};

/// The configured transform of this instance.
pub type Slot<T> = std::thread::LocalKey<std::cell::RefCell<Option<T>>>;

fn to_batch(b: WitBatch) -> RecordBatch {
    RecordBatch {
        data: b.data,
        key_lengths: b.key_lengths,
        value_lengths: b.value_lengths,
        topics: b.topics,
        topic_indices: b.topic_indices,
        partitions: b.partitions,
        timestamps: b.timestamps,
        offsets: b.offsets,
        header_counts: b.header_counts,
        header_key_lengths: b.header_key_lengths,
        header_value_lengths: b.header_value_lengths,
        schemas: b.schemas.into_iter().map(crate::v0_3::wit::schema_node_in).collect(),
        key_schemas: b.key_schemas,
        value_schemas: b.value_schemas,
        header_schemas: b.header_schemas,
        origins: b.origins,
    }
}

fn to_wit(b: RecordBatch) -> WitBatch {
    WitBatch {
        data: b.data,
        key_lengths: b.key_lengths,
        value_lengths: b.value_lengths,
        topics: b.topics,
        topic_indices: b.topic_indices,
        partitions: b.partitions,
        timestamps: b.timestamps,
        offsets: b.offsets,
        header_counts: b.header_counts,
        header_key_lengths: b.header_key_lengths,
        header_value_lengths: b.header_value_lengths,
        schemas: b
            .schemas
            .into_iter()
            .map(crate::v0_3::wit::schema_node_out)
            .collect::<Vec<packed::SchemaNode>>(),
        key_schemas: b.key_schemas,
        value_schemas: b.value_schemas,
        header_schemas: b.header_schemas,
        origins: b.origins,
    }
}

/// `transformer.describe`.
pub fn describe<T: Transform>() -> TransformInfo {
    let info: PluginInfo = T::describe();
    let connector = crate::__private::describe_info(info, types::ConnectorKind::Source);
    TransformInfo {
        name: connector.name,
        version: connector.version,
        description: connector.description,
        config_def: connector.config_def,
    }
}

/// `transformer.validate`.
pub fn validate<T: Transform>(config: types::Config) -> Vec<types::ConfigProblem> {
    T::validate(&Config::from(config))
        .into_iter()
        .map(|p: ConfigProblem| types::ConfigProblem {
            key: p.key,
            message: p.message,
        })
        .collect()
}

/// `transformer.configure`.
pub fn configure<T: Transform>(slot: &'static Slot<T>, config: types::Config) -> Result<(), TransformError> {
    let made = T::configure(Config::from(config)).map_err(|e| TransformError::Config(e.message().to_owned()))?;
    slot.try_with(|cell| match cell.try_borrow_mut() {
        Ok(mut guard) => {
            *guard = Some(made);
            Ok(())
        }
        Err(_) => Err(TransformError::Fatal("transform re-entered during configure".into())),
    })
    .unwrap_or_else(|_| Err(TransformError::Fatal("transform state is unavailable".into())))
}

/// `transformer.apply`: each record through [`Transform::apply`].
pub fn apply<T: Transform>(slot: &'static Slot<T>, batch: WitBatch) -> Result<WitBatch, TransformError> {
    let records = to_batch(batch)
        .records()
        .map_err(|e| TransformError::Fatal(e.to_string()))?;
    slot.try_with(|cell| {
        let Ok(mut guard) = cell.try_borrow_mut() else {
            return Err(TransformError::Fatal("transform re-entered".into()));
        };
        let Some(t) = guard.as_mut() else {
            return Err(TransformError::Fatal("apply before configure".into()));
        };
        let mut out = BatchBuilder::new();
        let mut emitted = Output::default();
        for (i, record) in records.into_iter().enumerate() {
            let index =
                u32::try_from(i).map_err(|_| TransformError::Fatal("a batch of over 4 billion records".into()))?;
            emitted.records.clear();
            t.apply(record, &mut emitted).map_err(|e| match e {
                Error::Fatal(m) => TransformError::Fatal(m),
                other => TransformError::Record((index, other.message().to_owned())),
            })?;
            for r in &emitted.records {
                out.push(r, Some(index))
                    .map_err(|e| TransformError::Record((index, e.to_string())))?;
            }
        }
        Ok(to_wit(out.finish()))
    })
    .unwrap_or_else(|_| Err(TransformError::Fatal("transform state is unavailable".into())))
}
