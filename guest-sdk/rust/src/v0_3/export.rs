//! Glue between the 0.3.0 bindings and the 0.3.0 task traits, used by
//! [`v0_3::export_source!`](crate::v0_3::export_source) and
//! [`v0_3::export_sink!`](crate::v0_3::export_sink). Not a public API. The
//! connector-level glue and the task slot are 0.2.0's (`crate::__private`):
//! the `types` interface is shared.

pub use super::wit::packed;
use super::{OffsetMap, SinkBatch, SinkTask, SourceBatch, SourcePosition, SourceTask};
use crate::__private::wit;
use crate::__private::{Slot, WitResult, start, stop, topic_partition, tpo_in, tpo_out, with_task};
use crate::{Config, Error};

/// `source-task.start`.
pub fn source_start<T: SourceTask>(slot: &'static Slot<T>, config: wit::Config) -> WitResult<()> {
    start(slot, || T::start(Config::from(config)))
}

/// `source-task.poll`.
pub fn source_poll<T: SourceTask>(slot: &'static Slot<T>, max_records: u32) -> WitResult<packed::SourceBatch> {
    with_task(slot, |task| {
        let mut batch = SourceBatch::new();
        task.poll_batch(max_records, &mut batch)?;
        Ok(batch.into_wit())
    })
}

/// `source-task.commit`.
pub fn source_commit<T: SourceTask>(slot: &'static Slot<T>, offsets: Vec<wit::SourcePosition>) -> WitResult<()> {
    with_task(slot, |task| {
        let offsets = offsets
            .into_iter()
            .map(|p| {
                Ok(SourcePosition::new(
                    OffsetMap::from_json(&p.partition)?,
                    OffsetMap::from_json(&p.offset)?,
                ))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        task.commit(offsets)
    })
}

/// `source-task.stop`.
pub fn source_stop<T: SourceTask>(slot: &'static Slot<T>) {
    stop(slot, T::stop);
}

/// `sink-task.start`.
pub fn sink_start<T: SinkTask>(slot: &'static Slot<T>, config: wit::Config) -> WitResult<()> {
    start(slot, || T::start(Config::from(config)))
}

/// `sink-task.open`.
pub fn sink_open<T: SinkTask>(
    slot: &'static Slot<T>,
    partitions: Vec<wit::TopicPartition>,
) -> WitResult<Vec<wit::TopicPartitionOffset>> {
    let partitions = partitions.into_iter().map(topic_partition).collect();
    with_task(slot, |task| task.open(partitions)).map(|o| o.into_iter().map(tpo_out).collect())
}

/// `sink-task.put`.
pub fn sink_put<T: SinkTask>(slot: &'static Slot<T>, batch: packed::SinkBatch) -> WitResult<()> {
    let batch = SinkBatch::from_wit(batch);
    with_task(slot, |task| task.put_batch(&batch))
}

/// `sink-task.flush`.
pub fn sink_flush<T: SinkTask>(slot: &'static Slot<T>, offsets: Vec<wit::TopicPartitionOffset>) -> WitResult<()> {
    let offsets = offsets.into_iter().map(tpo_in).collect();
    with_task(slot, |task| task.flush(offsets))
}

/// `sink-task.close`.
pub fn sink_close<T: SinkTask>(slot: &'static Slot<T>, partitions: Vec<wit::TopicPartition>) -> WitResult<()> {
    let partitions = partitions.into_iter().map(topic_partition).collect();
    with_task(slot, |task| task.close(partitions))
}

/// `sink-task.stop`.
pub fn sink_stop<T: SinkTask>(slot: &'static Slot<T>) {
    stop(slot, T::stop);
}
