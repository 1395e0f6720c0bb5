//! Glue between the generated bindings and the author-facing traits, used by
//! [`export_source!`](crate::export_source) and
//! [`export_sink!`](crate::export_sink). Not a public API.

use core::cell::RefCell;
use std::thread::LocalKey;

pub use crate::__bindings::copycat::connector::types as wit;
pub use crate::__bindings::source::copycat::connector::batch as packed;
use crate::{
    Config, ConfigKey, ConfigProblem, ConfigType, Connector, Error, Importance, PluginInfo, SinkBatch, SinkTask,
    SourceBatch, SourcePosition, SourceTask, TopicPartition, TopicPartitionOffset,
};

/// Where the export macros keep the task: one instance runs one task, so the
/// task lives in a module-global slot.
pub type Slot<T> = LocalKey<RefCell<Option<T>>>;

/// The result type of the generated `Guest` functions.
pub type WitResult<T> = Result<T, wit::ConnectorError>;

// ---------------------------------------------------------------- conversions

pub(crate) fn error(e: Error) -> wit::ConnectorError {
    match e {
        Error::Config(m) => wit::ConnectorError::Config(m),
        Error::Retriable(m) => wit::ConnectorError::Retriable(m),
        Error::Fatal(m) => wit::ConnectorError::Fatal(m),
    }
}

fn config_type(t: ConfigType) -> wit::ConfigType {
    match t {
        ConfigType::String => wit::ConfigType::String,
        ConfigType::Int => wit::ConfigType::Int,
        ConfigType::Long => wit::ConfigType::Long,
        ConfigType::Double => wit::ConfigType::Double,
        ConfigType::Boolean => wit::ConfigType::Boolean,
        ConfigType::List => wit::ConfigType::List,
        ConfigType::Password => wit::ConfigType::Password,
    }
}

fn importance(i: Importance) -> wit::Importance {
    match i {
        Importance::High => wit::Importance::High,
        Importance::Medium => wit::Importance::Medium,
        Importance::Low => wit::Importance::Low,
    }
}

fn config_key(k: ConfigKey) -> wit::ConfigKey {
    wit::ConfigKey {
        name: k.name,
        type_: config_type(k.ty),
        default_value: k.default_value,
        required: k.required,
        doc: k.doc,
        importance: importance(k.importance),
    }
}

pub(crate) fn topic_partition(tp: wit::TopicPartition) -> TopicPartition {
    TopicPartition {
        topic: tp.topic,
        partition: tp.partition,
    }
}

pub(crate) fn tpo_in(o: wit::TopicPartitionOffset) -> TopicPartitionOffset {
    TopicPartitionOffset {
        topic: o.topic,
        partition: o.partition,
        offset: o.offset,
    }
}

pub(crate) fn tpo_out(o: TopicPartitionOffset) -> wit::TopicPartitionOffset {
    wit::TopicPartitionOffset {
        topic: o.topic,
        partition: o.partition,
        offset: o.offset,
    }
}

// ------------------------------------------------------------------ connector

/// `connector.describe`, with the kind taken from the exported world.
pub fn describe<C: Connector>(kind: wit::ConnectorKind) -> wit::PluginInfo {
    describe_info(C::describe(), kind)
}

/// `info` as the WIT declares it.
pub fn describe_info(info: PluginInfo, kind: wit::ConnectorKind) -> wit::PluginInfo {
    wit::PluginInfo {
        name: info.name,
        version: info.version,
        kind,
        description: info.description,
        config_def: info.config_def.into_iter().map(config_key).collect(),
    }
}

/// `connector.validate`.
pub fn validate<C: Connector>(config: wit::Config) -> Vec<wit::ConfigProblem> {
    C::validate(&Config::from(config))
        .into_iter()
        .map(|p: ConfigProblem| wit::ConfigProblem {
            key: p.key,
            message: p.message,
        })
        .collect()
}

/// `connector.task-configs`.
pub fn task_configs<C: Connector>(config: wit::Config, max_tasks: u32) -> WitResult<Vec<wit::Config>> {
    C::task_configs(&Config::from(config), max_tasks.max(1))
        .map(|configs| configs.into_iter().map(Config::into_pairs).collect())
        .map_err(error)
}

// ---------------------------------------------------------------- task slots

pub(crate) fn start<T: 'static>(slot: &'static Slot<T>, make: impl FnOnce() -> Result<T, Error>) -> WitResult<()> {
    slot.try_with(|cell| {
        let Ok(mut guard) = cell.try_borrow_mut() else {
            return Err(Error::fatal("task re-entered during start"));
        };
        if guard.is_some() {
            return Err(Error::fatal("task already started"));
        }
        *guard = Some(make()?);
        Ok(())
    })
    .unwrap_or_else(|_| Err(Error::fatal("task state is unavailable")))
    .map_err(error)
}

pub(crate) fn with_task<T: 'static, R>(
    slot: &'static Slot<T>,
    f: impl FnOnce(&mut T) -> Result<R, Error>,
) -> WitResult<R> {
    slot.try_with(|cell| {
        let Ok(mut guard) = cell.try_borrow_mut() else {
            return Err(Error::fatal("task re-entered"));
        };
        match guard.as_mut() {
            Some(task) => f(task),
            None => Err(Error::fatal("task not started")),
        }
    })
    .unwrap_or_else(|_| Err(Error::fatal("task state is unavailable")))
    .map_err(error)
}

pub(crate) fn stop<T: 'static>(slot: &'static Slot<T>, f: impl FnOnce(&mut T)) {
    let task = slot
        .try_with(|cell| cell.try_borrow_mut().ok().and_then(|mut guard| guard.take()))
        .ok()
        .flatten();
    if let Some(mut task) = task {
        f(&mut task);
    }
}

// ---------------------------------------------------------------- source task

/// `source-task.start`.
pub fn source_start<T: SourceTask>(slot: &'static Slot<T>, config: wit::Config) -> WitResult<()> {
    start(slot, || T::start(Config::from(config)))
}

/// `source-task.poll`.
pub fn source_poll<T: SourceTask>(slot: &'static Slot<T>, max_records: u32) -> WitResult<packed::SourceBatch> {
    with_task(slot, |task| {
        let mut batch = SourceBatch::new();
        task.poll_batch(max_records, &mut batch)?;
        batch.into_wit()
    })
}

/// `source-task.commit`.
pub fn source_commit<T: SourceTask>(slot: &'static Slot<T>, offsets: Vec<wit::SourcePosition>) -> WitResult<()> {
    let offsets = offsets
        .into_iter()
        .map(|p| SourcePosition {
            partition: p.partition,
            offset: p.offset,
        })
        .collect();
    with_task(slot, |task| task.commit(offsets))
}

/// `source-task.stop`.
pub fn source_stop<T: SourceTask>(slot: &'static Slot<T>) {
    stop(slot, T::stop);
}

// ------------------------------------------------------------------ sink task

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
