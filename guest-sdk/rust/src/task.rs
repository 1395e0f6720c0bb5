//! The traits a connector implements.

use std::collections::HashMap;

use crate::{
    Config, ConfigProblem, Error, PluginInfo, SinkBatch, SinkRecord, SourceBatch, SourcePosition, SourceRecord,
    TopicPartition, TopicPartitionOffset,
};

/// The connector-level contract, shared by sources and sinks.
///
/// The host calls these on a dedicated instance that never runs tasks, so the
/// functions are associated functions (no `self`): keep no state here that
/// tasks rely on. Usually implemented on a unit struct.
pub trait Connector {
    /// Describe the plugin: name, version and configuration definition. Must
    /// not fail and must not depend on any config.
    fn describe() -> PluginInfo;

    /// Check a connector configuration beyond what the config definition
    /// already checks (the host checks required keys and value types first).
    /// Return one problem per key at fault; an empty list means valid (the
    /// default).
    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let _ = config;
        Vec::new()
    }

    /// Split the connector's work into at most `max_tasks` task configs
    /// (`tasks.max`, at least 1). For a source, spread the input streams
    /// (source partitions) over the tasks; for a sink, tasks usually share the
    /// same config, since Kafka's consumer group spreads the topic partitions.
    /// Each returned config is passed to one task's `start`.
    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error>;
}

/// A source task: reads its share of the input streams and returns records.
///
/// Each task runs in its own WebAssembly instance, created with
/// [`start`](Self::start) and kept by the SDK until [`stop`](Self::stop).
/// The host calls `start`, then [`poll`](Self::poll) repeatedly (with
/// [`commit`](Self::commit) notifications in between), then `stop`.
pub trait SourceTask: Sized + 'static {
    /// Start with one of the configs returned by
    /// [`Connector::task_configs`]. Read the committed offsets here (with
    /// [`read_offsets`](Self::read_offsets)) to resume where the last run
    /// stopped.
    fn start(config: Config) -> Result<Self, Error>;

    /// Return the next batch of at most `max_records` records. Return
    /// quickly: when nothing is ready, return an empty batch and the host
    /// calls again after a short back-off. Never block or sleep; the host
    /// enforces a time limit per call.
    ///
    /// Implement this or [`poll_batch`](Self::poll_batch) (the faster
    /// path); the default fails the task.
    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>, Error> {
        let _ = max_records;
        Err(Error::fatal("the connector implements neither `poll` nor `poll_batch`"))
    }

    /// Fill `batch` with at most `max_records` records and the offsets they
    /// advance (what the host calls). Pushing borrowed records
    /// ([`SourceBatch::push_ref`]) allocates nothing per record; a batch
    /// may advance offsets without records (input read and skipped). The
    /// default calls [`poll`](Self::poll) and pushes its records.
    fn poll_batch(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        for record in self.poll(max_records)? {
            batch.push(record);
        }
        Ok(())
    }

    /// Notification: these offsets (the latest per source partition) are now
    /// durable in Kafka and in the offset store. Use it to acknowledge
    /// upstream, if the source needs that. Errors are logged by the host. The
    /// default does nothing.
    fn commit(&mut self, offsets: Vec<SourcePosition>) -> Result<(), Error> {
        let _ = offsets;
        Ok(())
    }

    /// Stop: release resources. The task is dropped right after. The default
    /// does nothing.
    fn stop(&mut self) {}

    /// The last committed offset of each of `partitions` that has one (map
    /// from source partition to offset). Partitions never committed are
    /// absent. Resume *after* each returned offset.
    ///
    /// Only source tasks can read offsets (the sink world does not import the
    /// offsets interface), which is why this lives on `SourceTask`: call it as
    /// `Self::read_offsets(&partitions)` from [`start`](Self::start).
    ///
    /// On non-WebAssembly targets (unit tests), it returns an empty map.
    fn read_offsets<P: AsRef<str>>(partitions: &[P]) -> HashMap<String, String> {
        crate::host::read_offsets(partitions)
    }

    /// Exactly-once with `transaction.boundary=connector`: commit the open
    /// transaction right after the batch the current [`poll`](Self::poll)
    /// returns. Ignored under any other boundary or guarantee.
    fn commit_transaction() {
        crate::host::transaction(true);
    }

    /// Exactly-once with `transaction.boundary=connector`: abort the open
    /// transaction, including the batch the current [`poll`](Self::poll)
    /// returns; none of it reaches read_committed consumers and its offsets
    /// are not committed. Ignored under any other boundary or guarantee.
    fn abort_transaction() {
        crate::host::transaction(false);
    }
}

/// A sink task: receives batches of Kafka records and writes them out.
///
/// Each task runs in its own WebAssembly instance. The host calls
/// [`start`](Self::start), then for each partition assignment
/// [`open`](Self::open), [`put`](Self::put) and [`flush`](Self::flush) as
/// records arrive, [`close`](Self::close) when partitions are revoked, and
/// finally [`stop`](Self::stop).
pub trait SinkTask: Sized + 'static {
    /// Start with one of the configs returned by
    /// [`Connector::task_configs`].
    fn start(config: Config) -> Result<Self, Error>;

    /// These partitions are now assigned to this task. A task that keeps its
    /// own record of progress in the destination (for exactly-once writes)
    /// returns the next offset to read for each such partition, and the host
    /// seeks there. The default returns an empty list: use the consumer
    /// group's committed offsets.
    fn open(&mut self, partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        let _ = partitions;
        Ok(Vec::new())
    }

    /// Write a batch of records. The task may buffer; records only count as
    /// delivered after a successful [`flush`](Self::flush).
    /// [`Error::Retriable`] makes the host redeliver the same batch later.
    ///
    /// Implement this or [`put_batch`](Self::put_batch) (the faster path);
    /// the default fails the task.
    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        let _ = records;
        Err(Error::fatal("the connector implements neither `put` nor `put_batch`"))
    }

    /// Write a batch of records, read through borrowed views
    /// ([`SinkBatch::iter`]): nothing is allocated per record (what the
    /// host calls). Same rules as [`put`](Self::put), which the default
    /// calls with owned copies.
    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        self.put(batch.to_records())
    }

    /// Make everything `put` so far durable. `offsets` are the next offsets to
    /// read per partition; the host commits them to Kafka only if this returns
    /// `Ok`, so on failure the records are delivered again.
    fn flush(&mut self, offsets: Vec<TopicPartitionOffset>) -> Result<(), Error>;

    /// These partitions are revoked (a rebalance or shutdown); the host has
    /// already called `flush` for them. Drop any per-partition state. The
    /// default does nothing.
    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        let _ = partitions;
        Ok(())
    }

    /// Stop: release resources. The task is dropped right after. The default
    /// does nothing.
    fn stop(&mut self) {}
}
