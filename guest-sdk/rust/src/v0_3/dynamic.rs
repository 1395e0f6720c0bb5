//! Dynamic connectors (`copycat:dynamic@0.1.0`): Kafka Connect's
//! `Connector` object, for a connector whose work changes while it runs (a
//! new file in a watched directory, a new table). Export an instance
//! beside the connector with [`export_dynamic!`](crate::v0_3::export_dynamic);
//! the host keeps one per connector (on one worker of a cluster), with the
//! connector's grants and limits, and calls [`DynamicConnector::monitor`]
//! every `connector.monitor.interval.ms`. When the work changed, call
//! [`request_task_reconfiguration`]: the host asks
//! [`DynamicConnector::task_configs`] again and, if they differ, replaces
//! the tasks (each commits first; nothing is lost or repeated).
//!
//! ```no_run
//! use copycat_sdk::v0_3::dynamic::{self, DynamicConnector};
//! use copycat_sdk::v0_3::{Config, Error};
//!
//! struct Tables { config: Config, known: Vec<String> }
//! # fn list_tables() -> Vec<String> { Vec::new() }
//!
//! impl DynamicConnector for Tables {
//!     fn start(config: Config) -> Result<Self, Error> {
//!         Ok(Self { config, known: list_tables() })
//!     }
//!     fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>, Error> {
//!         let n = (max_tasks as usize).min(self.known.len()).max(1);
//!         Ok((0..n)
//!             .map(|i| {
//!                 let mine: Vec<&str> = self.known.iter().skip(i).step_by(n).map(String::as_str).collect();
//!                 self.config.clone().with("tables", mine.join(","))
//!             })
//!             .collect())
//!     }
//!     fn monitor(&mut self) -> Result<(), Error> {
//!         let now = list_tables();
//!         if now != self.known {
//!             self.known = now;
//!             dynamic::request_task_reconfiguration();
//!         }
//!         Ok(())
//!     }
//! }
//! copycat_sdk::v0_3::export_dynamic!(Tables);
//! ```
//!
//! On non-WebAssembly targets (unit tests) the requests are kept in the
//! calling thread, for [`take_requests`].

use crate::{Config, Error};

/// The running connector instance.
pub trait DynamicConnector: Sized + 'static {
    /// Start watching the source with the connector's config (validated,
    /// config-provider references resolved). An error fails the connector.
    fn start(config: Config) -> Result<Self, Error>;

    /// Whether this instance has anything to watch (asked once, after
    /// `start`). `false` (e.g. a fixed list of files): the host asks
    /// [`DynamicConnector::task_configs`] once and stops the instance,
    /// which then costs nothing while the connector runs.
    fn watches(&self) -> bool {
        true
    }

    /// The task configs for the work as the instance sees it now, at most
    /// `max_tasks` (`tasks.max`): asked after `start` and after each
    /// [`request_task_reconfiguration`]. An error fails the connector.
    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>, Error>;

    /// Look at the source; call [`request_task_reconfiguration`] when the
    /// work changed. A retriable error is logged and the next call comes
    /// as usual; any other fails the connector.
    fn monitor(&mut self) -> Result<(), Error> {
        Ok(())
    }

    /// The connector stops (deleted, paused, failed, its worker stops).
    fn stop(&mut self) {}
}

/// Ask the host to call [`DynamicConnector::task_configs`] again and, if
/// the configs changed, replace the connector's tasks (Kafka Connect's
/// `ConnectorContext.requestTaskReconfiguration`). Cheap: the host acts
/// once the current call returns, however often it was called.
pub fn request_task_reconfiguration() {
    imp::request_task_reconfiguration();
}

/// Put the connector in FAILED with `message` (Kafka Connect's
/// `ConnectorContext.raiseError`): the host stops the instance once the
/// current call returns; the tasks go on. The host keeps the first 4 KiB.
pub fn raise_error(message: impl AsRef<str>) {
    imp::raise_error(message.as_ref());
}

#[cfg(target_arch = "wasm32")]
mod imp {
    pub(super) fn request_task_reconfiguration() {
        crate::__bindings_dynamic::copycat::dynamic::context::request_task_reconfiguration();
    }

    pub(super) fn raise_error(message: &str) {
        crate::__bindings_dynamic::copycat::dynamic::context::raise_error(message);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::cell::RefCell;

    thread_local! {
        pub(super) static REQUESTS: RefCell<super::Requests> = RefCell::new(super::Requests::default());
    }

    pub(super) fn request_task_reconfiguration() {
        REQUESTS.with(|r| r.borrow_mut().reconfigure = true);
    }

    pub(super) fn raise_error(message: &str) {
        REQUESTS.with(|r| r.borrow_mut().errors.push(message.to_owned()));
    }
}

/// Unit tests: what the instance asked of the host.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Requests {
    /// [`request_task_reconfiguration`] was called.
    pub reconfigure: bool,
    /// [`raise_error`]'s messages.
    pub errors: Vec<String>,
}

/// Unit tests (non-WebAssembly targets): the requests made on this thread
/// since the last call.
#[cfg(not(target_arch = "wasm32"))]
pub fn take_requests() -> Requests {
    imp::REQUESTS.with(|r| std::mem::take(&mut *r.borrow_mut()))
}

/// Glue used by [`export_dynamic!`](crate::v0_3::export_dynamic). Not a
/// public API.
#[doc(hidden)]
pub mod __private {
    use super::DynamicConnector;
    use crate::__private::{Slot, WitResult, error, wit};
    use crate::{Config, Error};

    /// `instance.start`.
    pub fn start<T: DynamicConnector>(slot: &'static Slot<T>, config: wit::Config) -> WitResult<bool> {
        let instance = T::start(Config::from(config)).map_err(error)?;
        let watches = instance.watches();
        slot.with(|s| *s.borrow_mut() = Some(instance));
        Ok(watches)
    }

    fn with<T: DynamicConnector, R>(
        slot: &'static Slot<T>,
        f: impl FnOnce(&mut T) -> Result<R, Error>,
    ) -> WitResult<R> {
        slot.with(|s| match s.borrow_mut().as_mut() {
            Some(i) => f(i).map_err(error),
            None => Err(error(Error::fatal("the connector instance is not started"))),
        })
    }

    /// `instance.task-configs`.
    pub fn task_configs<T: DynamicConnector>(slot: &'static Slot<T>, max_tasks: u32) -> WitResult<Vec<wit::Config>> {
        with(slot, |i| i.task_configs(max_tasks.max(1))).map(|c| c.into_iter().map(Config::into_pairs).collect())
    }

    /// `instance.monitor`.
    pub fn monitor<T: DynamicConnector>(slot: &'static Slot<T>) -> WitResult<()> {
        with(slot, T::monitor)
    }

    /// `instance.stop`.
    pub fn stop<T: DynamicConnector>(slot: &'static Slot<T>) {
        if let Some(mut i) = slot.with(|s| s.borrow_mut().take()) {
            i.stop();
        }
    }
}

/// [`export_dynamic!`](crate::v0_3::export_dynamic).
#[doc(hidden)]
#[macro_export]
macro_rules! __copycat_export_dynamic {
    ($instance:ty $(,)?) => {
        const _: () = {
            struct __CopycatDynamic;

            ::std::thread_local! {
                static __COPYCAT_INSTANCE: ::core::cell::RefCell<::core::option::Option<$instance>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            impl $crate::__bindings_dynamic::exports::copycat::dynamic::instance::Guest for __CopycatDynamic {
                fn start(config: $crate::__private::wit::Config) -> $crate::__private::WitResult<bool> {
                    $crate::v0_3::dynamic::__private::start::<$instance>(&__COPYCAT_INSTANCE, config)
                }

                fn task_configs(
                    max_tasks: u32,
                ) -> $crate::__private::WitResult<::std::vec::Vec<$crate::__private::wit::Config>> {
                    $crate::v0_3::dynamic::__private::task_configs::<$instance>(&__COPYCAT_INSTANCE, max_tasks)
                }

                fn monitor() -> $crate::__private::WitResult<()> {
                    $crate::v0_3::dynamic::__private::monitor::<$instance>(&__COPYCAT_INSTANCE)
                }

                fn stop() {
                    $crate::v0_3::dynamic::__private::stop::<$instance>(&__COPYCAT_INSTANCE)
                }
            }

            #[cfg(target_arch = "wasm32")]
    $crate::__export_dynamic_impl!(__CopycatDynamic with_types_in $crate::__bindings_dynamic);
        };
    };
}
