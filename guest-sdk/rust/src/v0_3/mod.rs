//! Contract `copycat:connector@0.3.0`: typed records, and source partitions and
//! offsets that are Kafka Connect's maps. Behind the `v0_3` feature.
//!
//! A 0.3.0 connector is written as a 0.2.0 one, with this module's types
//! in place of the crate-level ones where they differ:
//!
//! | 0.2.0 (crate level) | 0.3.0 (here) |
//! |---|---|
//! | [`crate::export_source!`] / [`crate::export_sink!`] | [`export_source!`] / [`export_sink!`] |
//! | [`crate::SourceTask`] / [`crate::SinkTask`] | [`SourceTask`] / [`SinkTask`] |
//! | [`crate::SourceBatch`], [`crate::RecordRef`], [`crate::SourceRecord`] | [`SourceBatch`], [`RecordRef`], [`SourceRecord`]: keys, values and headers are a [`Payload`] |
//! | [`crate::SinkBatch`], [`crate::SinkRecordRef`], [`crate::SinkRecord`] | [`SinkBatch`], [`SinkRecordRef`] (with [`PayloadView`]s), [`SinkRecord`] |
//! | partitions and offsets: strings | [`OffsetMap`]s, compact JSON on the wire |
//! | [`crate::log`], [`crate::clock`] | [`log`], [`clock`] (the 0.3.0 imports) |
//!
//! [`Connector`], [`Config`],
//! [`Error`], [`PluginInfo`] and
//! [`grants`] are shared, and re-exported here.
//!
//! A key, a value or a header value is a [`Payload`]: raw bytes (as in
//! 0.2.0: the host hands them to Kafka as they are), a schemaless
//! [`Value`], or a [`Value`] with its [`Schema`] (Kafka Connect's data
//! model, from `copycat-data`, re-exported here with [`SchemaBuilder`],
//! [`Struct`] and [`logical`]). The host turns typed ones into bytes with
//! the connector's `key.converter` / `value.converter` /
//! `header.converter`. A Rust struct gets a schema with [`to_connect!`]
//! ([`ToConnect`]).
//!
//! ```no_run
//! use copycat_sdk::v0_3::{
//!     Config, ConfigKey, Connector, Error, OffsetMap, Payload, PluginInfo, SourceRecord, SourceTask, Timestamp,
//!     to_connect,
//! };
//!
//! struct Reading {
//!     sensor: String,
//!     celsius: f64,
//!     at: Timestamp,
//! }
//! to_connect!(Reading, name = "com.example.Reading" { sensor, celsius, at });
//!
//! struct Sensors;
//!
//! impl Connector for Sensors {
//!     fn describe() -> PluginInfo {
//!         PluginInfo::new("sensors", "0.1.0").config(ConfigKey::string("topic").required())
//!     }
//!     fn task_configs(config: &Config, _max_tasks: u32) -> Result<Vec<Config>, Error> {
//!         Ok(vec![config.clone()])
//!     }
//! }
//!
//! struct SensorsTask {
//!     partition: OffsetMap,
//!     next: i64,
//! }
//!
//! impl SourceTask for SensorsTask {
//!     fn start(_config: Config) -> Result<Self, Error> {
//!         let partition = OffsetMap::new().with("sensor", "s1"); // {"sensor":"s1"}
//!         let committed = Self::read_offsets(&[&partition])?;
//!         let next = committed.get(&partition).and_then(|o| o.get_i64("seq")).map_or(0, |s| s + 1);
//!         Ok(Self { partition, next })
//!     }
//!
//!     fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>, Error> {
//!         let mut records = Vec::new();
//!         for _ in 0..max_records.min(100) {
//!             let reading = Reading { sensor: "s1".into(), celsius: 21.5, at: Timestamp(self.next * 1000) };
//!             let offset = OffsetMap::new().with("seq", self.next); // {"seq":41}
//!             records.push(
//!                 SourceRecord::new(self.partition.clone(), offset)
//!                     .key("s1") // raw bytes
//!                     .value(Payload::of(&reading)), // a struct with its schema
//!             );
//!             self.next += 1;
//!         }
//!         Ok(records)
//!     }
//! }
//!
//! copycat_sdk::v0_3::export_source!(Sensors, SensorsTask);
//! # fn main() {}
//! ```

#[doc(hidden)]
#[path = "connect.rs"]
pub mod __connect;
#[doc(hidden)]
#[path = "export.rs"]
pub mod __private;
pub mod dynamic;
mod host;
mod offsets;
mod payload;
mod sink;
mod source;
mod task;
#[cfg(test)]
mod tests;
pub(crate) mod wit;

pub use copycat_data::{DataError, Field, Schema, SchemaBuilder, Struct, Type, Value, logical, wire};
pub use num_bigint::BigInt;

pub use self::__connect::{Date, Decimal, Time, Timestamp, ToConnect};
pub use self::host::{clock, log};
pub use self::offsets::{OffsetMap, OffsetValue, SourceOffset, SourcePartition, SourcePosition};
pub use self::payload::{Payload, PayloadRef};
pub use self::sink::{
    HeaderViews, PartitionRun, PartitionRuns, PayloadKind, PayloadView, SinkBatch, SinkRecord, SinkRecordRef,
    SinkRecords,
};
pub use self::source::{Header, RecordRef, SourceBatch, SourceRecord};
pub use self::task::{SinkTask, SourceTask};
pub use crate::{
    Config, ConfigKey, ConfigProblem, ConfigType, Connector, Error, Importance, PluginInfo, Result, TopicPartition,
    TopicPartitionOffset, grants,
};

/// A schema or value that does not fit (a [`DataError`] from building a
/// schema or a struct) is a fatal error of the connector, so `?` works in
/// a task:
///
/// ```
/// use copycat_sdk::v0_3::{Error, Schema, SchemaBuilder, Struct, Value, logical};
///
/// fn order() -> Result<(Schema, Value), Error> {
///     let schema = SchemaBuilder::structure()
///         .name("com.example.Order")
///         .field("id", Schema::int64())?
///         .field("placed_at", logical::timestamp().build())?
///         .field("note", Schema::optional_string())?
///         .build();
///     let order = Struct::new(&schema)?
///         .put("id", 7i64)?
///         .put("placed_at", Value::Int64(1_700_000_000_000))?
///         .put("note", Value::Null)?;
///     Ok((schema, Value::Struct(order)))
/// }
/// assert!(order().is_ok());
/// let e = Struct::new(&Schema::int64()).map_err(Error::from).unwrap_err();
/// assert_eq!(e.to_string(), "fatal error: Not a struct schema: INT64");
/// ```
impl From<DataError> for Error {
    fn from(e: DataError) -> Self {
        Error::fatal(e.0)
    }
}

/// Export a 0.3.0 source connector: `v0_3::export_source!(MyConnector,
/// MyTask);` (`MyConnector`: [`Connector`], `MyTask`: [`SourceTask`]).
/// Invoke once, at the root of a `cdylib` crate, as the 0.2.0
/// [`crate::export_source!`].
pub use crate::__copycat_export_source_v0_3 as export_source;

/// Export a 0.3.0 sink connector: `v0_3::export_sink!(MyConnector,
/// MyTask);` (`MyConnector`: [`Connector`], `MyTask`: [`SinkTask`]).
pub use crate::__copycat_export_sink_v0_3 as export_sink;

pub use crate::__copycat_to_connect as to_connect;

/// Export a dynamic connector's instance beside the connector:
/// `v0_3::export_dynamic!(MyInstance);` (`MyInstance`:
/// [`dynamic::DynamicConnector`]), once, next to
/// [`export_source!`] or [`export_sink!`].
pub use crate::__copycat_export_dynamic as export_dynamic;

/// [`v0_3::export_source!`](crate::v0_3::export_source).
#[doc(hidden)]
#[macro_export]
macro_rules! __copycat_export_source_v0_3 {
    ($connector:ty, $task:ty $(,)?) => {
        const _: () = {
            struct __CopycatSource;

            ::std::thread_local! {
                static __COPYCAT_TASK: ::core::cell::RefCell<::core::option::Option<$task>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            $crate::__copycat_export_connector_v0_3!(
                __CopycatSource,
                $connector,
                $crate::__private::wit::ConnectorKind::Source
            );

            impl $crate::__bindings_v0_3::source::exports::copycat::connector::source_task::Guest for __CopycatSource {
                fn start(config: $crate::__private::wit::Config) -> $crate::__private::WitResult<()> {
                    $crate::v0_3::__private::source_start::<$task>(&__COPYCAT_TASK, config)
                }

                fn poll(
                    max_records: u32,
                ) -> $crate::__private::WitResult<$crate::v0_3::__private::packed::SourceBatch> {
                    $crate::v0_3::__private::source_poll::<$task>(&__COPYCAT_TASK, max_records)
                }

                fn commit(
                    offsets: ::std::vec::Vec<$crate::__private::wit::SourcePosition>,
                ) -> $crate::__private::WitResult<()> {
                    $crate::v0_3::__private::source_commit::<$task>(&__COPYCAT_TASK, offsets)
                }

                fn stop() {
                    $crate::v0_3::__private::source_stop::<$task>(&__COPYCAT_TASK)
                }
            }

            #[cfg(target_arch = "wasm32")]
            $crate::__export_source_part_v0_3_impl!(
                __CopycatSource with_types_in $crate::__bindings_v0_3::source
            );
        };
    };
}

/// [`v0_3::export_sink!`](crate::v0_3::export_sink).
#[doc(hidden)]
#[macro_export]
macro_rules! __copycat_export_sink_v0_3 {
    ($connector:ty, $task:ty $(,)?) => {
        const _: () = {
            struct __CopycatSink;

            ::std::thread_local! {
                static __COPYCAT_TASK: ::core::cell::RefCell<::core::option::Option<$task>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            $crate::__copycat_export_connector_v0_3!(
                __CopycatSink,
                $connector,
                $crate::__private::wit::ConnectorKind::Sink
            );

            impl $crate::__bindings_v0_3::sink::exports::copycat::connector::sink_task::Guest for __CopycatSink {
                fn start(config: $crate::__private::wit::Config) -> $crate::__private::WitResult<()> {
                    $crate::v0_3::__private::sink_start::<$task>(&__COPYCAT_TASK, config)
                }

                fn open(
                    partitions: ::std::vec::Vec<$crate::__private::wit::TopicPartition>,
                ) -> $crate::__private::WitResult<::std::vec::Vec<$crate::__private::wit::TopicPartitionOffset>>
                {
                    $crate::v0_3::__private::sink_open::<$task>(&__COPYCAT_TASK, partitions)
                }

                fn put(batch: $crate::v0_3::__private::packed::SinkBatch) -> $crate::__private::WitResult<()> {
                    $crate::v0_3::__private::sink_put::<$task>(&__COPYCAT_TASK, batch)
                }

                fn flush(
                    offsets: ::std::vec::Vec<$crate::__private::wit::TopicPartitionOffset>,
                ) -> $crate::__private::WitResult<()> {
                    $crate::v0_3::__private::sink_flush::<$task>(&__COPYCAT_TASK, offsets)
                }

                fn close(
                    partitions: ::std::vec::Vec<$crate::__private::wit::TopicPartition>,
                ) -> $crate::__private::WitResult<()> {
                    $crate::v0_3::__private::sink_close::<$task>(&__COPYCAT_TASK, partitions)
                }

                fn stop() {
                    $crate::v0_3::__private::sink_stop::<$task>(&__COPYCAT_TASK)
                }
            }

            #[cfg(target_arch = "wasm32")]
            $crate::__export_sink_part_v0_3_impl!(
                __CopycatSink with_types_in $crate::__bindings_v0_3::sink
            );
        };
    };
}

/// The 0.3.0 `connector` export, shared by both 0.3.0 export macros; the
/// glue is 0.2.0's (same types).
#[doc(hidden)]
#[macro_export]
macro_rules! __copycat_export_connector_v0_3 {
    ($component:ident, $connector:ty, $kind:expr) => {
        impl $crate::__bindings_v0_3::exports::copycat::connector::connector::Guest for $component {
            fn describe() -> $crate::__private::wit::PluginInfo {
                $crate::__private::describe::<$connector>($kind)
            }

            fn validate(
                config: $crate::__private::wit::Config,
            ) -> ::std::vec::Vec<$crate::__private::wit::ConfigProblem> {
                $crate::__private::validate::<$connector>(config)
            }

            fn task_configs(
                config: $crate::__private::wit::Config,
                max_tasks: u32,
            ) -> $crate::__private::WitResult<::std::vec::Vec<$crate::__private::wit::Config>> {
                $crate::__private::task_configs::<$connector>(config, max_tasks)
            }
        }

        #[cfg(target_arch = "wasm32")]
        $crate::__export_connector_part_v0_3_impl!($component with_types_in $crate::__bindings_v0_3);
    };
}
