//! The worker's log levels, changed live through a reloadable `tracing`
//! filter (`/admin/loggers`).

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::error::RestError;

/// Applies a filter (an `EnvFilter` directive string such as
/// `info,copycat_runtime::task=debug`); `Err` says why it was refused.
pub type ApplyFilter = dyn Fn(&str) -> Result<(), String> + Send + Sync;

/// The log levels: a root level plus one level per logger (a `tracing`
/// target prefix such as `copycat_runtime::task`), applied live.
pub struct Loggers {
    levels: Mutex<(String, BTreeMap<String, String>)>,
    apply: Box<ApplyFilter>,
}

const LEVELS: [&str; 6] = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF"];

impl Loggers {
    /// Levels starting from `directives` (e.g. `RUST_LOG`'s value, or
    /// `info`): its bare level is the root level, its `target=level` parts
    /// the loggers. `apply` installs a new filter.
    pub fn new(directives: &str, apply: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static) -> Self {
        let mut root = "INFO".to_owned();
        let mut loggers = BTreeMap::new();
        for d in directives.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            match d.split_once('=') {
                Some((target, level)) => {
                    loggers.insert(target.to_owned(), level.to_ascii_uppercase());
                }
                None if LEVELS.contains(&d.to_ascii_uppercase().as_str()) => root = d.to_ascii_uppercase(),
                None => {
                    loggers.insert(d.to_owned(), "TRACE".to_owned());
                }
            }
        }
        Self {
            levels: Mutex::new((root, loggers)),
            apply: Box::new(apply),
        }
    }

    /// Control of a `tracing_subscriber` reload handle over an `EnvFilter`.
    pub fn for_reload_handle<S: 'static>(
        directives: &str,
        handle: tracing_subscriber::reload::Handle<tracing_subscriber::EnvFilter, S>,
    ) -> Self {
        Self::new(directives, move |d| {
            let filter = tracing_subscriber::EnvFilter::try_new(d).map_err(|e| e.to_string())?;
            handle.reload(filter).map_err(|e| e.to_string())
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (String, BTreeMap<String, String>)> {
        crate::util::lock(&self.levels)
    }

    /// `{"root": {"level": ..}, "<logger>": {"level": ..}}`.
    pub fn all(&self) -> BTreeMap<String, String> {
        let g = self.lock();
        let mut out = g.1.clone();
        out.insert("root".into(), g.0.clone());
        out
    }

    /// One logger's level: its own, or that of its nearest configured
    /// ancestor (`a::b` inherits from `a`), or the root's.
    pub fn get(&self, name: &str) -> String {
        let g = self.lock();
        if name == "root" {
            return g.0.clone();
        }
        let mut cur = name;
        loop {
            if let Some(l) = g.1.get(cur) {
                return l.clone();
            }
            match cur.rsplit_once("::") {
                Some((parent, _)) => cur = parent,
                None => return g.0.clone(),
            }
        }
    }

    /// Set a logger's level (`root` for the root) and apply the filter;
    /// returns the loggers affected (the named one and its configured
    /// descendants, whose own settings are replaced, as Kafka Connect does).
    pub fn set(&self, name: &str, level: &str) -> Result<Vec<String>, RestError> {
        let level = level.to_ascii_uppercase();
        if !LEVELS.contains(&level.as_str()) {
            return Err(RestError::bad_request(format!(
                "Invalid log level '{level}': one of {}",
                LEVELS.join(", ")
            )));
        }
        let mut g = self.lock();
        let mut next = g.clone();
        let mut affected = vec![name.to_owned()];
        if name == "root" {
            next.0 = level.clone();
        } else {
            let prefix = format!("{name}::");
            for (k, v) in next.1.iter_mut() {
                if k.starts_with(&prefix) {
                    *v = level.clone();
                    affected.push(k.clone());
                }
            }
            next.1.insert(name.to_owned(), level);
        }
        let directives = std::iter::once(next.0.to_ascii_lowercase())
            .chain(next.1.iter().map(|(k, v)| format!("{k}={}", v.to_ascii_lowercase())))
            .collect::<Vec<_>>()
            .join(",");
        (self.apply)(&directives).map_err(|e| RestError::bad_request(format!("cannot apply '{directives}': {e}")))?;
        *g = next;
        Ok(affected)
    }
}
