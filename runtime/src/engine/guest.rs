//! Typed calls into one guest instance, with the limits applied and every
//! failure turned into a [`GuestError`] that names the call and the reason.

use std::sync::Arc;
use std::time::Instant;

use wasmtime::{Store, Trap};

use super::batch::SchemaCache;
pub use super::batch::{
    Contract, ConvertError, Decoded, HeaderViews, RecordConverters, RecordView, SinkBatch, SinkRecordRef, SourceBatch,
    TypedError, transform_sink,
};
use super::{EPOCH_TICK, InstanceSlot, Plugin, WasmEngine};
use crate::bindings::{dynamic, sink, source, transform, v0_2, v0_3};
use crate::connector::Kind;
use crate::host::{StderrTail, TaskHost, TaskLimits};
use crate::metrics::{Call, Limit, TaskInstruments};

pub use crate::bindings::types::{
    ConfigKey, ConfigProblem, ConfigType, ConnectorKind, Header, Importance, PluginInfo, SinkRecord, SourcePosition,
    SourceRecord, TopicPartition, TopicPartitionOffset,
};

use crate::bindings::types::ConnectorError;

pub use crate::bindings::transform::transformer::{
    RecordBatch as TransformBatch, TransformError as TransformFailure, TransformInfo,
};

/// A config as it crosses the boundary: key/value pairs.
pub type WitConfig = Vec<(String, String)>;

/// Why a guest call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuestError {
    /// The connector reported a configuration error.
    #[error("configuration error reported by the connector: {0}")]
    Config(String),
    /// The connector reported a transient error; the call may be retried.
    #[error("retriable error reported by the connector: {0}")]
    Retriable(String),
    /// The connector reported an unrecoverable error.
    #[error("fatal error reported by the connector: {0}")]
    Fatal(String),
    /// The guest trapped or exceeded a limit. The instance is unusable.
    #[error("{0}")]
    Trap(String),
    /// A converter refused a record the guest returned (named in the
    /// message).
    #[error("{}", .0.message)]
    Convert(ConvertError),
}

impl GuestError {
    /// Whether retrying the same call may succeed.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }
}

impl From<ConnectorKind> for Kind {
    fn from(k: ConnectorKind) -> Self {
        match k {
            ConnectorKind::Source => Kind::Source,
            ConnectorKind::Sink => Kind::Sink,
        }
    }
}

impl From<ConnectorError> for GuestError {
    fn from(e: ConnectorError) -> Self {
        match e {
            ConnectorError::Config(m) => Self::Config(m),
            ConnectorError::Retriable(m) => Self::Retriable(m),
            ConnectorError::Fatal(m) => Self::Fatal(m),
        }
    }
}

enum Bindings {
    Source(source::Source),
    Sink(sink::Sink),
    SourceV0_2(v0_2::source::Source),
    SinkV0_2(v0_2::sink::Sink),
    SourceV0_3(v0_3::source::Source),
    SinkV0_3(v0_3::sink::Sink),
    Transform(transform::Transform),
}

/// One instance of a connector component, in its own store.
pub struct Guest {
    store: Store<TaskHost>,
    bindings: Bindings,
    /// A dynamic connector's instance export (`copycat:dynamic`).
    dynamic: Option<Arc<dynamic::Dynamic>>,
    /// `task.call.timeout.ms`: also bounds the call's waits in the host.
    call_timeout: std::time::Duration,
    deadline_ticks: u64,
    fuel_per_call: Option<u64>,
    limits: LimitNames,
    stderr: StderrTail,
    poisoned: Option<String>,
    /// A task's Prometheus series: call durations, memory, interruptions.
    instruments: Option<Arc<TaskInstruments>>,
    /// A 0.3.0 source's converters and its connector's topic.
    converters: Option<(Arc<dyn RecordConverters>, String)>,
    /// A source's transform chain (`transforms=`), run between `poll` and
    /// the converters.
    transforms: Option<copycat_transforms::Chain>,
    /// A 0.3.0 source's last schema table.
    schemas: SchemaCache,
    _slot: InstanceSlot,
}

/// The limit values quoted when a call breaks one.
#[derive(Debug, Clone, Copy)]
struct LimitNames {
    timeout_ms: u128,
    fuel_per_call: Option<u64>,
    stack_bytes: usize,
}

impl Guest {
    /// Instantiate `plugin` in a fresh store holding `host`, with `limits`.
    pub fn instantiate(
        engine: &WasmEngine,
        plugin: &Plugin,
        host: TaskHost,
        limits: &TaskLimits,
    ) -> Result<Self, GuestError> {
        Self::instantiate_instrumented(engine, plugin, host, limits, None)
    }

    /// [`Guest::instantiate`] for a task: its calls report their duration,
    /// the instance's memory and the limits that interrupt them to
    /// `instruments`.
    pub fn instantiate_instrumented(
        engine: &WasmEngine,
        plugin: &Plugin,
        host: TaskHost,
        limits: &TaskLimits,
        instruments: Option<Arc<TaskInstruments>>,
    ) -> Result<Self, GuestError> {
        let slot = engine.instances.acquire().map_err(GuestError::Trap)?;
        let stderr = host.stderr_tail();
        let mut store = Store::new(engine.engine(), host);
        store.limiter(|h| &mut h.limiter);
        store.epoch_deadline_trap();
        let tick = EPOCH_TICK.as_millis().max(1);
        let deadline_ticks = u64::try_from(limits.call_timeout.as_millis().div_ceil(tick))
            .unwrap_or(u64::MAX)
            .max(1);
        let names = LimitNames {
            timeout_ms: limits.call_timeout.as_millis(),
            fuel_per_call: limits.fuel_per_call.filter(|_| engine.fuel),
            stack_bytes: engine.max_stack_bytes,
        };
        store.set_epoch_deadline(deadline_ticks);
        store.data_mut().start_call(limits.call_timeout);
        if engine.fuel {
            // Metering is engine-wide: a connector without its own budget
            // gets the worker's (the config check guarantees one exists).
            store
                .set_fuel(names.fuel_per_call.unwrap_or(u64::MAX))
                .map_err(|e| GuestError::Trap(format!("setting the fuel budget: {e:#}")))?;
        }
        let result = plugin.pre.instantiate(&mut store).and_then(|instance| {
            let s = &mut store;
            let world = match (plugin.kind, plugin.contract) {
                (Kind::Source, Contract::V0_1) => source::Source::new(s, &instance).map(Bindings::Source),
                (Kind::Sink, Contract::V0_1) => sink::Sink::new(s, &instance).map(Bindings::Sink),
                (Kind::Source, Contract::V0_2) => v0_2::source::Source::new(s, &instance).map(Bindings::SourceV0_2),
                (Kind::Sink, Contract::V0_2) => v0_2::sink::Sink::new(s, &instance).map(Bindings::SinkV0_2),
                (Kind::Source, Contract::V0_3) => v0_3::source::Source::new(s, &instance).map(Bindings::SourceV0_3),
                (Kind::Sink, Contract::V0_3) => v0_3::sink::Sink::new(s, &instance).map(Bindings::SinkV0_3),
                (Kind::Transform, _) => transform::Transform::new(s, &instance).map(Bindings::Transform),
            }?;
            let dynamic = match plugin.dynamic {
                true => Some(Arc::new(dynamic::Dynamic::new(&mut store, &instance)?)),
                false => None,
            };
            Ok((world, dynamic))
        });
        let call_timeout = limits.call_timeout;
        let (bindings, dynamic) = result.map_err(|e| {
            let (err, limit) = trap_error(&mut store, &stderr, names, "instantiation", e);
            if let (Some(i), Some(limit)) = (&instruments, limit) {
                i.interrupted(limit);
            }
            err
        })?;
        if let Some(i) = &instruments {
            i.memory_bytes(store.data().limiter.memory_used());
        }
        Ok(Self {
            store,
            bindings,
            dynamic,
            call_timeout,
            deadline_ticks,
            fuel_per_call: names.fuel_per_call,
            limits: names,
            stderr,
            poisoned: None,
            instruments,
            converters: None,
            transforms: None,
            schemas: SchemaCache::default(),
            _slot: slot,
        })
    }

    /// The converters that turn a 0.3.0 source's typed records into bytes
    /// (and a 0.3.0 sink's records into typed ones),
    /// and the topic of records that name none (a converter may use it).
    pub fn set_record_converters(&mut self, converters: Arc<dyn RecordConverters>, default_topic: String) {
        self.converters = Some((converters, default_topic));
    }

    /// The transform chain a source's records go through before the
    /// converters (which must be set too, [`Self::set_record_converters`]).
    pub fn set_transforms(&mut self, chain: copycat_transforms::Chain) {
        self.transforms = (!chain.is_empty()).then_some(chain);
    }

    /// Bytes of linear memory the instance holds now.
    pub fn memory_bytes(&self) -> usize {
        self.store.data().limiter.memory_used()
    }

    /// Source or sink.
    pub fn kind(&self) -> Kind {
        match self.bindings {
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) => Kind::Source,
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) => Kind::Sink,
            Bindings::Transform(_) => Kind::Transform,
        }
    }

    /// The contract version the component implements.
    pub fn contract(&self) -> Contract {
        match self.bindings {
            Bindings::Source(_) | Bindings::Sink(_) => Contract::V0_1,
            Bindings::SourceV0_2(_) | Bindings::SinkV0_2(_) => Contract::V0_2,
            Bindings::SourceV0_3(_) | Bindings::SinkV0_3(_) | Bindings::Transform(_) => Contract::V0_3,
        }
    }

    /// An empty batch for [`Guest::sink_put`], in this component's shape
    /// (a 0.3.0 sink's decoded by its converters).
    pub fn sink_batch(&self) -> SinkBatch {
        match (self.contract(), &self.converters) {
            (Contract::V0_3, Some((c, _))) => SinkBatch::typed(Some(c.clone())),
            (contract, _) => SinkBatch::new(contract),
        }
    }

    /// Run one export call with a fresh deadline. A trap poisons the
    /// instance: every later call fails with the same reason.
    fn call<R>(
        &mut self,
        what: &str,
        f: impl FnOnce(&Bindings, &mut Store<TaskHost>) -> wasmtime::Result<Result<R, ConnectorError>>,
    ) -> Result<R, GuestError> {
        self.call_infallible(what, f)?.map_err(GuestError::from)
    }

    fn call_infallible<R>(
        &mut self,
        what: &str,
        f: impl FnOnce(&Bindings, &mut Store<TaskHost>) -> wasmtime::Result<R>,
    ) -> Result<R, GuestError> {
        if let Some(reason) = &self.poisoned {
            return Err(GuestError::Trap(reason.clone()));
        }
        self.store.set_epoch_deadline(self.deadline_ticks);
        self.store.data_mut().start_call(self.call_timeout);
        if let Some(fuel) = self.fuel_per_call
            && let Err(e) = self.store.set_fuel(fuel)
        {
            return Err(GuestError::Trap(format!("setting the fuel budget: {e:#}")));
        }
        // Measured calls only (per batch, not per record): two clock reads.
        let timed = self
            .instruments
            .as_ref()
            .and_then(|i| Call::from_export(what).map(|c| (i, c, Instant::now())));
        let result = f(&self.bindings, &mut self.store);
        if let Some((i, call, started)) = timed {
            i.call_finished(call, started.elapsed(), self.store.data().limiter.memory_used());
        }
        match result {
            Ok(r) => Ok(r),
            Err(e) => {
                let (err, limit) = trap_error(&mut self.store, &self.stderr, self.limits, what, e);
                if let (Some(i), Some(limit)) = (&self.instruments, limit) {
                    i.interrupted(limit);
                }
                self.poisoned = Some(err.to_string());
                Err(err)
            }
        }
    }

    fn wrong_world(&self, what: &str) -> GuestError {
        GuestError::Trap(format!(
            "host invariant: `{what}` called on a {:?} component",
            self.kind()
        ))
    }

    // ---- connector interface ----

    fn connector(&self, what: &str) -> Result<(), GuestError> {
        match &self.bindings {
            Bindings::Transform(_) => Err(self.wrong_world(what)),
            _ => Ok(()),
        }
    }

    /// `connector.describe`.
    pub fn describe(&mut self) -> Result<PluginInfo, GuestError> {
        self.connector("describe")?;
        self.call_infallible("describe", |b, s| match b {
            Bindings::Source(b) => b.copycat_connector_connector().call_describe(s),
            Bindings::Sink(b) => b.copycat_connector_connector().call_describe(s),
            Bindings::SourceV0_2(b) => b.copycat_connector_connector().call_describe(s),
            Bindings::SourceV0_3(b) => b.copycat_connector_connector().call_describe(s),
            Bindings::SinkV0_2(b) => b.copycat_connector_connector().call_describe(s),
            Bindings::SinkV0_3(b) => b.copycat_connector_connector().call_describe(s),
            Bindings::Transform(_) => Err(wasmtime::format_err!(
                "host invariant: a connector call on a transform component"
            )),
        })
    }

    /// `connector.validate`.
    pub fn validate(&mut self, config: &WitConfig) -> Result<Vec<ConfigProblem>, GuestError> {
        self.connector("validate")?;
        self.call_infallible("validate", |b, s| match b {
            Bindings::Source(b) => b.copycat_connector_connector().call_validate(s, config),
            Bindings::Sink(b) => b.copycat_connector_connector().call_validate(s, config),
            Bindings::SourceV0_2(b) => b.copycat_connector_connector().call_validate(s, config),
            Bindings::SourceV0_3(b) => b.copycat_connector_connector().call_validate(s, config),
            Bindings::SinkV0_2(b) => b.copycat_connector_connector().call_validate(s, config),
            Bindings::SinkV0_3(b) => b.copycat_connector_connector().call_validate(s, config),
            Bindings::Transform(_) => Err(wasmtime::format_err!(
                "host invariant: a connector call on a transform component"
            )),
        })
    }

    /// `connector.task-configs`.
    pub fn task_configs(&mut self, config: &WitConfig, max_tasks: u32) -> Result<Vec<WitConfig>, GuestError> {
        self.connector("task-configs")?;
        self.call("task-configs", |b, s| match b {
            Bindings::Source(b) => b.copycat_connector_connector().call_task_configs(s, config, max_tasks),
            Bindings::Sink(b) => b.copycat_connector_connector().call_task_configs(s, config, max_tasks),
            Bindings::SourceV0_2(b) => b.copycat_connector_connector().call_task_configs(s, config, max_tasks),
            Bindings::SourceV0_3(b) => b.copycat_connector_connector().call_task_configs(s, config, max_tasks),
            Bindings::SinkV0_2(b) => b.copycat_connector_connector().call_task_configs(s, config, max_tasks),
            Bindings::SinkV0_3(b) => b.copycat_connector_connector().call_task_configs(s, config, max_tasks),
            Bindings::Transform(_) => Err(wasmtime::format_err!(
                "host invariant: a connector call on a transform component"
            )),
        })
    }

    // ---- source-task interface ----

    fn source(&self, what: &str) -> Result<(), GuestError> {
        match &self.bindings {
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) => Ok(()),
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) | Bindings::Transform(_) => {
                Err(self.wrong_world(what))
            }
        }
    }

    /// `source-task.start`.
    pub fn source_start(&mut self, config: &WitConfig) -> Result<(), GuestError> {
        self.source("start")?;
        self.call("start", |b, s| match b {
            Bindings::Source(b) => b.copycat_connector_source_task().call_start(s, config),
            Bindings::SourceV0_2(b) => b.copycat_connector_source_task().call_start(s, config),
            Bindings::SourceV0_3(b) => b.copycat_connector_source_task().call_start(s, config),
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) | Bindings::Transform(_) => Ok(Ok(())),
        })
    }

    /// `source-task.poll`.
    ///
    /// A packed batch (0.2.0) that breaks the batch layout's rules fails
    /// the call like a fatal connector error, naming the record.
    ///
    /// `tolerate`: the task's error handling, asked about each record the
    /// transforms or converters refuse (the task gave the guest a chain,
    /// maybe empty, when it has one).
    pub fn source_poll(
        &mut self,
        max_records: u32,
        mut tolerate: Option<&mut dyn crate::engine::batch::Tolerate>,
    ) -> Result<SourceBatch, GuestError> {
        self.source("poll")?;
        let typed = self.converters.clone();
        let mut schemas = std::mem::take(&mut self.schemas);
        let mut chain = self.transforms.take();
        let batch = self.call("poll", |b, s| match b {
            Bindings::Source(b) => Ok(b
                .copycat_connector_source_task()
                .call_poll(s, max_records)?
                .map(|records| Ok(SourceBatch::Records(records)))),
            Bindings::SourceV0_2(b) => Ok(b
                .copycat_connector_source_task()
                .call_poll(s, max_records)?
                .map(|batch| SourceBatch::packed(batch).map_err(TypedError::Malformed))),
            Bindings::SourceV0_3(b) => Ok(b
                .copycat_connector_source_task()
                .call_poll(s, max_records)?
                .map(|batch| match &typed {
                    Some((converters, topic)) => SourceBatch::typed(
                        batch,
                        converters.as_ref(),
                        topic,
                        &mut schemas,
                        chain.as_mut(),
                        tolerate
                            .as_mut()
                            .map(|t| &mut **t as &mut dyn crate::engine::batch::Tolerate),
                    ),
                    None => Err(TypedError::Malformed(
                        "host invariant: a 0.3.0 source polled without converters".to_owned(),
                    )),
                })),
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) | Bindings::Transform(_) => {
                Ok(Ok(Ok(SourceBatch::default())))
            }
        });
        self.schemas = schemas;
        // 0.1.0 and 0.2.0 batches are bytes: through the chain here.
        let batch = match (batch, &mut chain, &typed) {
            (Ok(Ok(b)), Some(c), Some((converters, topic))) if self.contract() != Contract::V0_3 => Ok(
                crate::engine::batch::transform_bytes(&b, c, converters.as_ref(), topic, tolerate),
            ),
            (other, _, _) => other,
        };
        self.transforms = chain;
        batch?.map_err(|e| match e {
            TypedError::Malformed(e) => GuestError::Fatal(format!("`poll` returned a malformed batch: {e}")),
            TypedError::Convert(e) => GuestError::Convert(e),
        })
    }

    /// How the sink's errant record reports are taken (its `errors.*`).
    pub fn set_errant_reporting(&mut self, reporting: crate::host::errant::Reporting) {
        self.store.data_mut().errant.set_reporting(reporting);
    }

    /// The records the last `put` reported errant: (index in its batch,
    /// reason), in the order reported.
    pub fn take_errant_reports(&mut self) -> Vec<(u32, String)> {
        self.store.data_mut().errant.end()
    }

    /// The transaction request (`copycat:connector/transactions`) the guest
    /// made during its last call, if any.
    pub fn take_transaction_request(&mut self) -> Option<crate::host::transactions::TransactionRequest> {
        self.store.data_mut().transactions.take()
    }

    /// `source-task.commit`.
    pub fn source_commit(&mut self, offsets: &[SourcePosition]) -> Result<(), GuestError> {
        self.source("commit")?;
        self.call("commit", |b, s| match b {
            Bindings::Source(b) => b.copycat_connector_source_task().call_commit(s, offsets),
            Bindings::SourceV0_2(b) => b.copycat_connector_source_task().call_commit(s, offsets),
            Bindings::SourceV0_3(b) => b.copycat_connector_source_task().call_commit(s, offsets),
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) | Bindings::Transform(_) => Ok(Ok(())),
        })
    }

    /// `source-task.stop`.
    pub fn source_stop(&mut self) -> Result<(), GuestError> {
        self.source("stop")?;
        self.call_infallible("stop", |b, s| match b {
            Bindings::Source(b) => b.copycat_connector_source_task().call_stop(s),
            Bindings::SourceV0_2(b) => b.copycat_connector_source_task().call_stop(s),
            Bindings::SourceV0_3(b) => b.copycat_connector_source_task().call_stop(s),
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) | Bindings::Transform(_) => Ok(()),
        })
    }

    // ---- sink-task interface ----

    fn sink(&self, what: &str) -> Result<(), GuestError> {
        match &self.bindings {
            Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_) => Ok(()),
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_) => {
                Err(self.wrong_world(what))
            }
        }
    }

    /// `sink-task.start`.
    pub fn sink_start(&mut self, config: &WitConfig) -> Result<(), GuestError> {
        self.sink("start")?;
        self.call("start", |b, s| match b {
            Bindings::Sink(b) => b.copycat_connector_sink_task().call_start(s, config),
            Bindings::SinkV0_2(b) => b.copycat_connector_sink_task().call_start(s, config),
            Bindings::SinkV0_3(b) => b.copycat_connector_sink_task().call_start(s, config),
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_) => {
                Ok(Ok(()))
            }
        })
    }

    /// `sink-task.open`.
    pub fn sink_open(&mut self, partitions: &[TopicPartition]) -> Result<Vec<TopicPartitionOffset>, GuestError> {
        self.sink("open")?;
        self.call("open", |b, s| match b {
            Bindings::Sink(b) => b.copycat_connector_sink_task().call_open(s, partitions),
            Bindings::SinkV0_2(b) => b.copycat_connector_sink_task().call_open(s, partitions),
            Bindings::SinkV0_3(b) => b.copycat_connector_sink_task().call_open(s, partitions),
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_) => {
                Ok(Ok(Vec::new()))
            }
        })
    }

    /// `sink-task.put`.
    ///
    /// `batch` must be in this component's shape ([`Guest::sink_batch`]).
    ///
    /// The records the guest reports errant during the call
    /// (`copycat:errant/reporter`) wait in [`Guest::take_errant_reports`].
    pub fn sink_put(&mut self, batch: &SinkBatch) -> Result<(), GuestError> {
        self.sink("put")?;
        self.store.data_mut().errant.begin(batch.len());
        let contract = self.contract();
        self.call("put", |b, s| match (b, batch) {
            (Bindings::Sink(b), SinkBatch::Records(records)) => b.copycat_connector_sink_task().call_put(s, records),
            (Bindings::SinkV0_2(b), SinkBatch::Packed(batch)) => b.copycat_connector_sink_task().call_put(s, batch),
            (Bindings::SinkV0_3(b), SinkBatch::Typed(batch)) => b.copycat_connector_sink_task().call_put(s, &batch.wit),
            (Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_), _) => {
                Ok(Ok(()))
            }
            (Bindings::Sink(_) | Bindings::SinkV0_2(_) | Bindings::SinkV0_3(_), _) => Err(wasmtime::Error::msg(
                format!("host invariant: a put batch of the wrong shape for a {contract} component"),
            )),
        })
    }

    /// `sink-task.flush`.
    pub fn sink_flush(&mut self, offsets: &[TopicPartitionOffset]) -> Result<(), GuestError> {
        self.sink("flush")?;
        self.call("flush", |b, s| match b {
            Bindings::Sink(b) => b.copycat_connector_sink_task().call_flush(s, offsets),
            Bindings::SinkV0_2(b) => b.copycat_connector_sink_task().call_flush(s, offsets),
            Bindings::SinkV0_3(b) => b.copycat_connector_sink_task().call_flush(s, offsets),
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_) => {
                Ok(Ok(()))
            }
        })
    }

    /// `sink-task.close`.
    pub fn sink_close(&mut self, partitions: &[TopicPartition]) -> Result<(), GuestError> {
        self.sink("close")?;
        self.call("close", |b, s| match b {
            Bindings::Sink(b) => b.copycat_connector_sink_task().call_close(s, partitions),
            Bindings::SinkV0_2(b) => b.copycat_connector_sink_task().call_close(s, partitions),
            Bindings::SinkV0_3(b) => b.copycat_connector_sink_task().call_close(s, partitions),
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_) => {
                Ok(Ok(()))
            }
        })
    }

    /// `sink-task.stop`.
    pub fn sink_stop(&mut self) -> Result<(), GuestError> {
        self.sink("stop")?;
        self.call_infallible("stop", |b, s| match b {
            Bindings::Sink(b) => b.copycat_connector_sink_task().call_stop(s),
            Bindings::SinkV0_2(b) => b.copycat_connector_sink_task().call_stop(s),
            Bindings::SinkV0_3(b) => b.copycat_connector_sink_task().call_stop(s),
            Bindings::Source(_) | Bindings::SourceV0_2(_) | Bindings::SourceV0_3(_) | Bindings::Transform(_) => Ok(()),
        })
    }

    // ---- a dynamic connector's instance (copycat:dynamic) ----

    fn instance(&self, what: &str) -> Result<Arc<dynamic::Dynamic>, GuestError> {
        self.dynamic.clone().ok_or_else(|| {
            GuestError::Trap(format!(
                "host invariant: `instance.{what}` called on a component that exports no copycat:dynamic instance"
            ))
        })
    }

    /// `instance.start`: whether the instance watches its source (else it
    /// is asked its task configs once and stopped).
    pub fn instance_start(&mut self, config: &WitConfig) -> Result<bool, GuestError> {
        let d = self.instance("start")?;
        self.call("instance.start", |_, s| {
            d.copycat_dynamic_instance().call_start(s, config)
        })
    }

    /// `instance.task-configs`.
    pub fn instance_task_configs(&mut self, max_tasks: u32) -> Result<Vec<WitConfig>, GuestError> {
        let d = self.instance("task-configs")?;
        self.call("instance.task-configs", |_, s| {
            d.copycat_dynamic_instance().call_task_configs(s, max_tasks)
        })
    }

    /// `instance.monitor`.
    pub fn instance_monitor(&mut self) -> Result<(), GuestError> {
        let d = self.instance("monitor")?;
        self.call("instance.monitor", |_, s| d.copycat_dynamic_instance().call_monitor(s))
    }

    /// `instance.stop`.
    pub fn instance_stop(&mut self) -> Result<(), GuestError> {
        let d = self.instance("stop")?;
        self.call_infallible("instance.stop", |_, s| d.copycat_dynamic_instance().call_stop(s))
    }

    /// What the instance asked of its context (`copycat:dynamic/context`)
    /// since the last take.
    pub fn take_instance_requests(&mut self) -> crate::host::dynamic::Requests {
        self.store.data_mut().dynamic.take()
    }

    // ---- transformer interface (copycat:transform) ----

    fn transformer(&self, what: &str) -> Result<&transform::Transform, GuestError> {
        match &self.bindings {
            Bindings::Transform(b) => Ok(b),
            _ => Err(self.wrong_world(what)),
        }
    }

    /// `transformer.describe`.
    pub fn transform_describe(&mut self) -> Result<TransformInfo, GuestError> {
        self.transformer("describe")?;
        self.call_infallible("describe", |b, s| match b {
            Bindings::Transform(b) => b.copycat_transform_transformer().call_describe(s),
            _ => Err(wasmtime::format_err!("host invariant: not a transform")),
        })
    }

    /// What the component says about itself, connector or transform: a
    /// transform's description in the shape plugin listings take (its
    /// `kind` means nothing for a transform; [`Guest::kind`] does).
    pub fn describe_any(&mut self) -> Result<PluginInfo, GuestError> {
        if self.kind() != Kind::Transform {
            return self.describe();
        }
        self.transform_describe().map(|t| PluginInfo {
            name: t.name,
            version: t.version,
            kind: ConnectorKind::Source,
            description: t.description,
            config_def: t.config_def,
        })
    }

    /// `transformer.validate`.
    pub fn transform_validate(&mut self, config: &WitConfig) -> Result<Vec<ConfigProblem>, GuestError> {
        self.transformer("validate")?;
        self.call_infallible("validate", |b, s| match b {
            Bindings::Transform(b) => b.copycat_transform_transformer().call_validate(s, config),
            _ => Err(wasmtime::format_err!("host invariant: not a transform")),
        })
    }

    /// `transformer.configure`: a refusal is a [`GuestError::Config`].
    pub fn transform_configure(&mut self, config: &WitConfig) -> Result<(), GuestError> {
        self.transformer("configure")?;
        self.call_infallible("configure", |b, s| match b {
            Bindings::Transform(b) => b.copycat_transform_transformer().call_configure(s, config),
            _ => Err(wasmtime::format_err!("host invariant: not a transform")),
        })?
        .map_err(|e| match e {
            TransformFailure::Config(m) | TransformFailure::Fatal(m) => GuestError::Config(m),
            TransformFailure::Record((i, m)) => GuestError::Config(format!("record {i}: {m}")),
        })
    }

    /// `transformer.apply`: the batch it returned, or the error it
    /// reported (a trap or a broken limit is the `Err`).
    pub fn transform_apply(
        &mut self,
        batch: &TransformBatch,
    ) -> Result<Result<TransformBatch, TransformFailure>, GuestError> {
        self.transformer("apply")?;
        self.call_infallible("apply", |b, s| match b {
            Bindings::Transform(b) => b.copycat_transform_transformer().call_apply(s, batch),
            _ => Err(wasmtime::format_err!("host invariant: not a transform")),
        })
    }
}

/// Explain a failed call: a limit (memory, time) by name, or the trap with
/// the guest's last stderr lines; and which per-call limit interrupted it,
/// if one did.
fn trap_error(
    store: &mut Store<TaskHost>,
    stderr: &StderrTail,
    limits: LimitNames,
    what: &str,
    e: wasmtime::Error,
) -> (GuestError, Option<Limit>) {
    if let Some(violation) = store.data_mut().limiter.take_violation() {
        // The limiter also caps table elements, which is not a config key.
        let limit = violation.contains("(task.memory.max.bytes)").then_some(Limit::Memory);
        return (GuestError::Trap(format!("`{what}` failed: {violation}")), limit);
    }
    if let Some(violation) = store.data_mut().take_host_violation(&e) {
        let limit = violation
            .contains("(task.call.timeout.ms)")
            .then_some(Limit::CallTimeout);
        return (GuestError::Trap(format!("`{what}` failed: {violation}")), limit);
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => {
            return (
                GuestError::Trap(format!(
                    "`{what}` exceeded the CPU time limit of {} ms per call (task.call.timeout.ms) and was interrupted",
                    limits.timeout_ms
                )),
                Some(Limit::CallTimeout),
            );
        }
        Some(Trap::OutOfFuel) => {
            return (
                GuestError::Trap(format!(
                    "`{what}` used up its fuel budget of {} per call (task.fuel.per.call) and was interrupted",
                    limits.fuel_per_call.unwrap_or(0)
                )),
                Some(Limit::Fuel),
            );
        }
        Some(Trap::StackOverflow) => {
            return (
                GuestError::Trap(format!(
                    "`{what}` exhausted its call stack of {} bytes (task.stack.max.bytes): runaway recursion?",
                    limits.stack_bytes
                )),
                Some(Limit::Stack),
            );
        }
        _ => {}
    }
    let mut msg = format!("`{what}` trapped: {e:#}");
    if let Ok(tail) = stderr.lock()
        && !tail.is_empty()
    {
        msg.push_str("; guest stderr: ");
        msg.push_str(&tail.iter().cloned().collect::<Vec<_>>().join(" | "));
    }
    (GuestError::Trap(msg), None)
}
