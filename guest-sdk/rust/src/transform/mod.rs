//! Transform components (`copycat:transform@0.1.0`): records in, records
//! out, run in a connector's `transforms=` chain by the host. Behind the
//! `transform` feature.
//!
//! A transform sees each record as Kafka Connect's `ConnectRecord`: a
//! [`Record`] with its topic, partition, key and value with their
//! [`Schema`]s, timestamp and headers (a connector's raw bytes arrive as an
//! optional `bytes` value). [`Transform::apply`] pushes what comes out of
//! a record to an [`Output`]: nothing drops it, one changes or routes it,
//! several split it. The host keeps each output's source offset, and the
//! order of records.
//!
//! ```no_run
//! use copycat_sdk::transform::{Config, ConfigKey, Error, Output, PluginInfo, Record, Transform, Value};
//!
//! /// Upper-cases string values.
//! struct Upper;
//!
//! impl Transform for Upper {
//!     fn describe() -> PluginInfo {
//!         PluginInfo::new("upper", "0.1.0").description("Upper-cases string values")
//!     }
//!     fn configure(_config: Config) -> Result<Self, Error> {
//!         Ok(Upper)
//!     }
//!     fn apply(&mut self, mut record: Record, out: &mut Output) -> Result<(), Error> {
//!         if let Value::String(s) = &record.value {
//!             record.value = Value::String(s.to_uppercase());
//!         }
//!         out.push(record);
//!         Ok(())
//!     }
//! }
//!
//! copycat_sdk::transform::export_transform!(Upper);
//! # fn main() {}
//! ```
//!
//! Test one off WebAssembly with [`run`]: it takes records and gives
//! what the transform makes of them, as the host would.

#[doc(hidden)]
#[allow(missing_docs, unsafe_code, clippy::all)]
#[path = "bindings.rs"]
pub mod __bindings;
#[doc(hidden)]
#[path = "export.rs"]
pub mod __private;

pub use copycat_data::{Field, Schema, SchemaBuilder, Struct, Type, Value, logical};
pub use copycat_transforms::{Header, Record};

pub use crate::{Config, ConfigKey, ConfigProblem, ConfigType, Error, Importance, PluginInfo};

/// What comes out of one record.
#[derive(Debug, Default)]
pub struct Output {
    pub(crate) records: Vec<Record>,
}

impl Output {
    /// Emit `record`.
    pub fn push(&mut self, record: Record) {
        self.records.push(record);
    }

    /// How many records were emitted.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether none were.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// A transform component.
pub trait Transform: Sized + 'static {
    /// Its name, version, description and settings (what follows
    /// `transforms.<alias>.` in a connector's config). The host refuses
    /// settings not declared here.
    fn describe() -> PluginInfo;

    /// Check settings beyond their declared types.
    fn validate(_config: &Config) -> Vec<ConfigProblem> {
        Vec::new()
    }

    /// Start with these settings. An error here fails the task with the
    /// transform's alias in the reason.
    fn configure(config: Config) -> Result<Self, Error>;

    /// Transform one record: push what comes out of it to `out`. An
    /// [`Error::fatal`] fails the task; any other error is this record's
    /// (Kafka Connect's `DataException`).
    fn apply(&mut self, record: Record, out: &mut Output) -> Result<(), Error>;
}

/// `records` through `transform` as the host runs it (off WebAssembly,
/// for tests): each output with the index of the record it came from.
pub fn run<T: Transform>(transform: &mut T, records: Vec<Record>) -> Result<Vec<(usize, Record)>, Error> {
    let mut all = Vec::new();
    let mut out = Output::default();
    for (i, r) in records.into_iter().enumerate() {
        out.records.clear();
        transform.apply(r, &mut out)?;
        all.extend(out.records.drain(..).map(|r| (i, r)));
    }
    Ok(all)
}

/// Export `$t` (a [`Transform`]) as this component's `copycat:transform`
/// world.
#[doc(hidden)]
#[macro_export]
macro_rules! __copycat_export_transform {
    ($t:ty $(,)?) => {
        const _: () = {
            struct __CopycatTransform;

            ::std::thread_local! {
                static __COPYCAT_TRANSFORM: ::core::cell::RefCell<::core::option::Option<$t>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            impl $crate::transform::__bindings::exports::copycat::transform::transformer::Guest for __CopycatTransform {
                fn describe() -> $crate::transform::__private::TransformInfo {
                    $crate::transform::__private::describe::<$t>()
                }

                fn validate(
                    config: $crate::__private::wit::Config,
                ) -> ::std::vec::Vec<$crate::__private::wit::ConfigProblem> {
                    $crate::transform::__private::validate::<$t>(config)
                }

                fn configure(
                    config: $crate::__private::wit::Config,
                ) -> ::core::result::Result<(), $crate::transform::__private::TransformError> {
                    $crate::transform::__private::configure::<$t>(&__COPYCAT_TRANSFORM, config)
                }

                fn apply(
                    batch: $crate::transform::__private::WitBatch,
                ) -> ::core::result::Result<
                    $crate::transform::__private::WitBatch,
                    $crate::transform::__private::TransformError,
                > {
                    $crate::transform::__private::apply::<$t>(&__COPYCAT_TRANSFORM, batch)
                }
            }

            #[cfg(target_arch = "wasm32")]
            $crate::__export_transform_impl!(
                __CopycatTransform with_types_in $crate::transform::__bindings
            );
        };
    };
}

pub use crate::__copycat_export_transform as export_transform;
