//! Write [Copycat](https://github.com/copycat-connect/copycat) connectors in
//! Rust.
//!
//! Copycat is a Kafka connector runtime in the spirit of Kafka Connect
//! (KIP-26) where every connector is a WebAssembly component. Kafka is always
//! one end of a job: a **source** connector reads input streams and returns
//! records that Copycat writes to Kafka; a **sink** connector receives records
//! that Copycat reads from Kafka and writes them elsewhere. Everything hard
//! (Kafka I/O, offset storage, delivery guarantees, retries, scheduling) lives
//! in the host.
//!
//! A connector is two types:
//!
//! * a [`Connector`], called on a dedicated instance to [describe] the plugin,
//!   [validate] a configuration and split the work into [task configs];
//! * a task, [`SourceTask`] or [`SinkTask`], of which the host runs one per
//!   task config, each in its own WebAssembly instance (so the task owns its
//!   state; nothing is shared between tasks).
//!
//! [`export_source!`] or [`export_sink!`] turns the pair into the component's
//! exports. Build with `cargo build --target wasm32-wasip2` and a
//! `crate-type = ["cdylib"]` library; the `.wasm` file is the plugin.
//!
//! Errors are values: return [`Error::Config`], [`Error::Retriable`] or
//! [`Error::Fatal`]. A panic traps the instance, which the host treats as a
//! bug and fails the task without retrying.
//!
//! Host functions: [`log`], [`clock`], for source tasks only
//! [`SourceTask::read_offsets`], and for sink tasks [`errant::report`]. On non-WebAssembly targets they fall back to
//! `std` so that connector logic can be unit-tested natively.
//!
//! Everything else is plain WASI 0.2 through `std` (or any WASI library),
//! deny-by-default: the operator grants each connector its capabilities in
//! its config. Files: `std::fs` under the directories of `grants.fs.read`
//! (read-only) and `grants.fs.write` (read-write), addressed by their host
//! paths. TCP: `std::net::TcpStream` to the addresses of
//! `grants.net.connect`. HTTP: `wasi:http/outgoing-handler` (e.g. through the
//! `wasip2` crate) to the hosts of `grants.http.hosts`. Environment:
//! `std::env::var` for the names in `grants.env`. Anything not granted fails
//! like any I/O error (`PermissionDenied`, `NotFound`, `HTTP-request-denied`);
//! [`grants::fs_granted`] tells a path outside the file grants from a
//! missing file.
//!
//! This is contract `copycat:connector@0.2.0`. Contract 0.3.0 (typed
//! records: keys, values and headers with Kafka Connect schemas; source
//! partitions and offsets as Kafka Connect's maps) is the module `v0_3`,
//! behind the cargo feature `v0_3`, which adds it and changes nothing here.
//!
//! [describe]: Connector::describe
//! [validate]: Connector::validate
//! [task configs]: Connector::task_configs
//!
//! # Example
//!
//! A source that counts from the last committed number upwards:
//!
//! ```no_run
//! use copycat_sdk::{Config, ConfigKey, Connector, Error, PluginInfo, SourceRecord, SourceTask};
//!
//! struct Counter;
//!
//! impl Connector for Counter {
//!     fn describe() -> PluginInfo {
//!         PluginInfo::new("counter", "0.1.0")
//!             .description("Counts upwards into a Kafka topic")
//!             .config(ConfigKey::string("topic").required().doc("Topic to write to"))
//!     }
//!
//!     fn task_configs(config: &Config, _max_tasks: u32) -> Result<Vec<Config>, Error> {
//!         Ok(vec![config.clone()]) // a single stream: a single task
//!     }
//! }
//!
//! struct CounterTask {
//!     next: u64,
//! }
//!
//! impl SourceTask for CounterTask {
//!     fn start(config: Config) -> Result<Self, Error> {
//!         config.require("topic")?;
//!         let committed = Self::read_offsets(&["counter"]);
//!         let next = match committed.get("counter") {
//!             Some(last) => last.parse::<u64>().map_err(|e| Error::fatal(e.to_string()))? + 1,
//!             None => 0,
//!         };
//!         Ok(CounterTask { next })
//!     }
//!
//!     fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>, Error> {
//!         let batch = (0..max_records.min(100))
//!             .map(|_| {
//!                 let n = self.next;
//!                 self.next += 1;
//!                 SourceRecord::new("counter", n.to_string()).value(n.to_string())
//!             })
//!             .collect();
//!         Ok(batch)
//!     }
//! }
//!
//! copycat_sdk::export_source!(Counter, CounterTask);
//! # fn main() {}
//! ```

#![deny(missing_docs)]

pub use wit_bindgen;

#[doc(hidden)]
#[path = "export.rs"]
pub mod __private;
mod batch;
pub mod clock;
mod config;
pub mod errant;
mod error;
pub mod grants;
mod host;
pub mod log;
mod plugin;
mod record;
mod task;
#[cfg(feature = "transform")]
pub mod transform;
#[cfg(feature = "v0_3")]
pub mod v0_3;

pub use batch::{
    HeaderRefs, PartitionRun, PartitionRuns, RecordRef, SinkBatch, SinkRecordRef, SinkRecords, SourceBatch,
    SourceRecordView,
};
pub use config::Config;
pub use error::{Error, Result};
pub use plugin::{ConfigKey, ConfigProblem, ConfigType, Importance, PluginInfo};
pub use record::{Header, SinkRecord, SourcePosition, SourceRecord, TopicPartition, TopicPartitionOffset};
pub use task::{Connector, SinkTask, SourceTask};

/// Bindings generated from `wit/connector@0.2.0` (package
/// `copycat:connector@0.2.0`; `poll` and `put` move packed batches).
///
/// The `source` and `sink` worlds both export the `connector` interface, and
/// wit-bindgen's exported export macros live at the crate root, so the
/// bindings are generated from three slices of the worlds that never export
/// the same interface twice: `connector-part` (the shared `connector` export
/// and the `types`), `source-part` (imports of the source world plus the
/// `source-task` export) and `sink-part` (likewise for sinks). A source
/// component exports `connector-part` + `source-part`, a sink
/// `connector-part` + `sink-part`; wit-component unions the per-part type
/// sections into exactly the `source` (or `sink`) world.
#[doc(hidden)]
#[allow(missing_docs, unsafe_code, clippy::all)]
pub mod __bindings {
    wit_bindgen::generate!({
        path: "../../wit/connector@0.2.0",
        inline: r#"
            package copycat:sdk;

            world connector-part {
                export copycat:connector/connector@0.2.0;
            }
        "#,
        world: "copycat:sdk/connector-part",
        generate_all,
        pub_export_macro: true,
        default_bindings_module: "copycat_sdk::__bindings",
    });

    pub mod source {
        wit_bindgen::generate!({
            path: "../../wit/connector@0.2.0",
            inline: r#"
                package copycat:sdk;

                world source-part {
                    import copycat:connector/logging@0.2.0;
                    import copycat:connector/clock@0.2.0;
                    import copycat:connector/offsets@0.2.0;
                    import copycat:connector/transactions@0.2.0;
                    export copycat:connector/source-task@0.2.0;
                }
            "#,
            world: "copycat:sdk/source-part",
            with: {
                "copycat:connector/types@0.2.0": crate::__bindings::copycat::connector::types,
            },
            generate_all,
            pub_export_macro: true,
            default_bindings_module: "copycat_sdk::__bindings::source",
        });
    }

    pub mod sink {
        wit_bindgen::generate!({
            path: "../../wit/connector@0.2.0",
            inline: r#"
                package copycat:sdk;

                world sink-part {
                    import copycat:connector/logging@0.2.0;
                    import copycat:connector/clock@0.2.0;
                    export copycat:connector/sink-task@0.2.0;
                }
            "#,
            world: "copycat:sdk/sink-part",
            with: {
                "copycat:connector/types@0.2.0": crate::__bindings::copycat::connector::types,
                "copycat:connector/batch@0.2.0": crate::__bindings::source::copycat::connector::batch,
                "copycat:connector/logging@0.2.0": crate::__bindings::source::copycat::connector::logging,
                "copycat:connector/clock@0.2.0": crate::__bindings::source::copycat::connector::clock,
            },
            pub_export_macro: true,
            default_bindings_module: "copycat_sdk::__bindings::sink",
        });
    }
}

/// Bindings generated from `wit/connector@0.3.0` (the `v0_3` feature).
#[cfg(feature = "v0_3")]
#[doc(hidden)]
#[allow(missing_docs, unsafe_code, clippy::all)]
#[path = "v0_3/bindings.rs"]
pub mod __bindings_v0_3;

/// Bindings generated from `wit/dynamic@0.1.0` (the `v0_3` feature).
#[cfg(feature = "v0_3")]
#[doc(hidden)]
#[allow(missing_docs, unsafe_code, clippy::all)]
#[path = "v0_3/dynamic_bindings.rs"]
pub mod __bindings_dynamic;

/// Export a source connector: `export_source!(MyConnector, MyTask);`
///
/// `MyConnector` implements [`Connector`], `MyTask` implements
/// [`SourceTask`]. Invoke once, at the root of a `cdylib` crate. The macro
/// implements the component's `connector` and `source-task` exports and keeps
/// the started task in a thread-local slot (an instance runs exactly one
/// task). Calls before `start` (or after `stop`) return
/// `Error::Fatal("task not started")`; they never panic.
#[macro_export]
macro_rules! export_source {
    ($connector:ty, $task:ty $(,)?) => {
        const _: () = {
            struct __CopycatSource;

            ::std::thread_local! {
                static __COPYCAT_TASK: ::core::cell::RefCell<::core::option::Option<$task>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            $crate::__export_connector_guest!(
                __CopycatSource,
                $connector,
                $crate::__private::wit::ConnectorKind::Source
            );

            impl $crate::__bindings::source::exports::copycat::connector::source_task::Guest for __CopycatSource {
                fn start(config: $crate::__private::wit::Config) -> $crate::__private::WitResult<()> {
                    $crate::__private::source_start::<$task>(&__COPYCAT_TASK, config)
                }

                fn poll(max_records: u32) -> $crate::__private::WitResult<$crate::__private::packed::SourceBatch> {
                    $crate::__private::source_poll::<$task>(&__COPYCAT_TASK, max_records)
                }

                fn commit(
                    offsets: ::std::vec::Vec<$crate::__private::wit::SourcePosition>,
                ) -> $crate::__private::WitResult<()> {
                    $crate::__private::source_commit::<$task>(&__COPYCAT_TASK, offsets)
                }

                fn stop() {
                    $crate::__private::source_stop::<$task>(&__COPYCAT_TASK)
                }
            }

            // Core exports only on WebAssembly: their names (`ns:pkg/iface@ver#fn`)
            // are not valid in native linkers' version scripts.
            #[cfg(target_arch = "wasm32")]
            $crate::__export_source_part_impl!(
                __CopycatSource with_types_in $crate::__bindings::source
            );
        };
    };
}

/// Export a sink connector: `export_sink!(MyConnector, MyTask);`
///
/// `MyConnector` implements [`Connector`], `MyTask` implements [`SinkTask`].
/// Invoke once, at the root of a `cdylib` crate. The macro implements the
/// component's `connector` and `sink-task` exports and keeps the started task
/// in a thread-local slot (an instance runs exactly one task). Calls before
/// `start` (or after `stop`) return `Error::Fatal("task not started")`; they
/// never panic.
#[macro_export]
macro_rules! export_sink {
    ($connector:ty, $task:ty $(,)?) => {
        const _: () = {
            struct __CopycatSink;

            ::std::thread_local! {
                static __COPYCAT_TASK: ::core::cell::RefCell<::core::option::Option<$task>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            $crate::__export_connector_guest!(
                __CopycatSink,
                $connector,
                $crate::__private::wit::ConnectorKind::Sink
            );

            impl $crate::__bindings::sink::exports::copycat::connector::sink_task::Guest for __CopycatSink {
                fn start(config: $crate::__private::wit::Config) -> $crate::__private::WitResult<()> {
                    $crate::__private::sink_start::<$task>(&__COPYCAT_TASK, config)
                }

                fn open(
                    partitions: ::std::vec::Vec<$crate::__private::wit::TopicPartition>,
                ) -> $crate::__private::WitResult<::std::vec::Vec<$crate::__private::wit::TopicPartitionOffset>>
                {
                    $crate::__private::sink_open::<$task>(&__COPYCAT_TASK, partitions)
                }

                fn put(batch: $crate::__private::packed::SinkBatch) -> $crate::__private::WitResult<()> {
                    $crate::__private::sink_put::<$task>(&__COPYCAT_TASK, batch)
                }

                fn flush(
                    offsets: ::std::vec::Vec<$crate::__private::wit::TopicPartitionOffset>,
                ) -> $crate::__private::WitResult<()> {
                    $crate::__private::sink_flush::<$task>(&__COPYCAT_TASK, offsets)
                }

                fn close(
                    partitions: ::std::vec::Vec<$crate::__private::wit::TopicPartition>,
                ) -> $crate::__private::WitResult<()> {
                    $crate::__private::sink_close::<$task>(&__COPYCAT_TASK, partitions)
                }

                fn stop() {
                    $crate::__private::sink_stop::<$task>(&__COPYCAT_TASK)
                }
            }

            // Core exports only on WebAssembly: their names (`ns:pkg/iface@ver#fn`)
            // are not valid in native linkers' version scripts.
            #[cfg(target_arch = "wasm32")]
            $crate::__export_sink_part_impl!(
                __CopycatSink with_types_in $crate::__bindings::sink
            );
        };
    };
}

/// The `connector` export, shared by both export macros.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_connector_guest {
    ($component:ident, $connector:ty, $kind:expr) => {
        impl $crate::__bindings::exports::copycat::connector::connector::Guest for $component {
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
        $crate::__export_connector_part_impl!($component with_types_in $crate::__bindings);
    };
}
