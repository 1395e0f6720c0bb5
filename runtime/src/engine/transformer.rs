//! A transform component (`copycat:transform@0.1.0`) as a stage of a
//! connector's chain: [`WasmTransform`] hands its guest a batch of records
//! and checks what comes back, under the connector's limits.
//!
//! Invariants: the guest runs in its own store (memory cap, call deadline,
//! fuel) like a connector's task; what it returns is untrusted: at most
//! `task.transform.records.max` records and `task.batch.max.bytes` bytes
//! per call, every column and encoding checked
//! (`copycat_transforms::RecordBatch::records_with_origins`) before the
//! host uses a record. An input record's Kafka offset is restored on what
//! comes out of it, whatever the guest says.

use copycat_transforms::{BatchError, BatchTransformation, Record, RecordBatch};

use super::batch::{schema_node, schema_node_to_wit};
use super::guest::{Guest, TransformBatch, TransformFailure};
use crate::host::TaskLimits;

/// A transform component's instance, configured.
pub struct WasmTransform {
    guest: Guest,
    records_max: usize,
    bytes_max: usize,
}

impl WasmTransform {
    /// A stage around `guest` (already configured), with `limits`' output
    /// caps.
    pub fn new(guest: Guest, limits: &TaskLimits) -> Self {
        Self {
            guest,
            records_max: limits.transform_records_max,
            bytes_max: limits.batch_max_bytes,
        }
    }
}

fn to_wit(b: RecordBatch) -> TransformBatch {
    TransformBatch {
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
        schemas: b.schemas.iter().map(schema_node_to_wit).collect(),
        key_schemas: b.key_schemas,
        value_schemas: b.value_schemas,
        header_schemas: b.header_schemas,
        origins: b.origins,
    }
}

fn from_wit(b: TransformBatch) -> RecordBatch {
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
        schemas: b.schemas.iter().map(schema_node).collect(),
        key_schemas: b.key_schemas,
        value_schemas: b.value_schemas,
        header_schemas: b.header_schemas,
        origins: b.origins,
    }
}

impl BatchTransformation for WasmTransform {
    fn apply_batch(&mut self, records: Vec<Record>) -> Result<Vec<(usize, Record)>, BatchError> {
        let n = records.len();
        let offsets: Vec<Option<i64>> = records.iter().map(|r| r.kafka_offset).collect();
        let given = RecordBatch::of(&records).map_err(|e| BatchError::Failed(format!("encoding its input: {e}")))?;
        drop(records);
        let out = match self.guest.transform_apply(&to_wit(given)) {
            Err(e) => return Err(BatchError::Failed(e.to_string())),
            Ok(Err(TransformFailure::Record((index, message)))) => {
                let index = index as usize;
                if index >= n {
                    return Err(BatchError::Failed(format!(
                        "it reported an error for record {index} of a batch of {n}: {message}"
                    )));
                }
                return Err(BatchError::Record { index, message });
            }
            Ok(Err(TransformFailure::Config(m))) => return Err(BatchError::Failed(format!("configuration: {m}"))),
            Ok(Err(TransformFailure::Fatal(m))) => return Err(BatchError::Failed(m)),
            Ok(Ok(out)) => out,
        };
        let count = out.value_lengths.len();
        if count > self.records_max {
            return Err(BatchError::Failed(format!(
                "it returned {count} records from a batch of {n}, more than task.transform.records.max ({})",
                self.records_max
            )));
        }
        if out.data.len() > self.bytes_max {
            return Err(BatchError::Failed(format!(
                "it returned {} bytes of records, more than task.batch.max.bytes ({})",
                out.data.len(),
                self.bytes_max
            )));
        }
        let mut out = from_wit(out)
            .records_with_origins(n)
            .map_err(|e| BatchError::Failed(format!("what it returned: {e}")))?;
        for (origin, r) in &mut out {
            r.kafka_offset = offsets[*origin];
        }
        Ok(out)
    }
}
