//! The task traits of contract 0.3.0. The connector-level trait is 0.2.0's
//! [`Connector`](crate::Connector), unchanged.

use std::borrow::Borrow;
use std::collections::HashMap;

use super::offsets::{SourceOffset, SourcePartition, SourcePosition};
use super::{SinkBatch, SinkRecord, SourceBatch, SourceRecord};
use crate::{Config, Error, TopicPartition, TopicPartitionOffset};

/// A 0.3.0 source task: as 0.2.0's [`SourceTask`](crate::SourceTask),
/// with records whose keys, values and headers may be typed, and source
/// partitions and offsets that are Kafka Connect's maps
/// ([`OffsetMap`](super::OffsetMap)).
pub trait SourceTask: Sized + 'static {
    /// Start with one of the configs returned by
    /// [`Connector::task_configs`](crate::Connector::task_configs). Read
    /// the committed offsets here ([`read_offsets`](Self::read_offsets)).
    fn start(config: Config) -> Result<Self, Error>;

    /// Return the next batch of at most `max_records` records, quickly;
    /// an empty batch when nothing is ready. Implement this or
    /// [`poll_batch`](Self::poll_batch); the default fails the task.
    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>, Error> {
        let _ = max_records;
        Err(Error::fatal("the connector implements neither `poll` nor `poll_batch`"))
    }

    /// Fill `batch` with at most `max_records` records and the offsets
    /// they advance (what the host calls). The default pushes what
    /// [`poll`](Self::poll) returns.
    fn poll_batch(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        for record in self.poll(max_records)? {
            batch.push(record)?;
        }
        Ok(())
    }

    /// Notification: these offsets (the latest per source partition) are
    /// durable. The default does nothing.
    fn commit(&mut self, offsets: Vec<SourcePosition>) -> Result<(), Error> {
        let _ = offsets;
        Ok(())
    }

    /// Stop: release resources. The default does nothing.
    fn stop(&mut self) {}

    /// The last committed offset of each of `partitions` that has one.
    /// Partitions never committed are absent; resume *after* each offset.
    /// An error only if the host hands back something that is not a map
    /// of primitives.
    ///
    /// On non-WebAssembly targets (unit tests), it returns an empty map.
    fn read_offsets<P: Borrow<SourcePartition>>(
        partitions: &[P],
    ) -> Result<HashMap<SourcePartition, SourceOffset>, Error> {
        super::host::read_offsets(partitions)
    }

    /// The offsets an earlier version of this connector, built against
    /// contract 0.1.0 or 0.2.0, committed under plain-string source
    /// partitions (`copycat offsets` shows them as
    /// `{"source_partition": "<p>"}` / `{"source_offset": "<o>"}`): each of
    /// `partitions` that has one, with its offset text. A connector that
    /// moved to maps reads these for the partitions [`read_offsets`]
    /// (Self::read_offsets) has no offset for, so an upgrade neither
    /// repeats nor skips records; the next commit stores the map form.
    ///
    /// On non-WebAssembly targets (unit tests), it returns an empty map.
    fn read_legacy_offsets(partitions: &[&str]) -> HashMap<String, String> {
        super::host::read_legacy_offsets(partitions)
    }

    /// Exactly-once with `transaction.boundary=connector`: commit the open
    /// transaction right after this `poll`'s batch.
    fn commit_transaction() {
        super::host::transaction(true);
    }

    /// Exactly-once with `transaction.boundary=connector`: abort the open
    /// transaction, including this `poll`'s batch.
    fn abort_transaction() {
        super::host::transaction(false);
    }
}

/// A 0.3.0 sink task: as 0.2.0's [`SinkTask`](crate::SinkTask), with
/// records whose keys, values and headers may be typed (decoded on
/// request through [`SinkBatch`]'s views).
pub trait SinkTask: Sized + 'static {
    /// Start with one of the configs returned by
    /// [`Connector::task_configs`](crate::Connector::task_configs).
    fn start(config: Config) -> Result<Self, Error>;

    /// These partitions are now assigned; return the next offset to read
    /// for those whose progress the task keeps itself. The default returns
    /// none (the consumer group's committed offsets).
    fn open(&mut self, partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        let _ = partitions;
        Ok(Vec::new())
    }

    /// Write records, owned and decoded. Implement this or
    /// [`put_batch`](Self::put_batch); the default fails the task.
    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        let _ = records;
        Err(Error::fatal("the connector implements neither `put` nor `put_batch`"))
    }

    /// Write a batch through borrowed views (what the host calls); nothing
    /// is decoded unless asked. The default decodes every record and calls
    /// [`put`](Self::put).
    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        self.put(batch.to_records()?)
    }

    /// Make everything `put` so far durable.
    fn flush(&mut self, offsets: Vec<TopicPartitionOffset>) -> Result<(), Error>;

    /// These partitions are revoked. The default does nothing.
    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        let _ = partitions;
        Ok(())
    }

    /// Stop: release resources. The default does nothing.
    fn stop(&mut self) {}
}
