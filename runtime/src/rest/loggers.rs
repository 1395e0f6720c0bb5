//! The worker's log levels, changed live through a reloadable `tracing`
//! filter (`/admin/loggers`), with Kafka Connect's semantics (KIP-495,
//! KIP-976): a logger is a `tracing` target (`copycat_runtime::task`); the
//! loggers that exist are the root, those given a level, and the targets
//! this process has logged from ([`Targets`], as log4j's loggers exist once
//! code creates them); setting a level answers the loggers whose level
//! changed and stamps their `last_modified`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use tracing::Metadata;
use tracing::subscriber::Interest;

use super::error::RestError;

/// Applies a filter (an `EnvFilter` directive string such as
/// `info,copycat_runtime::task=debug`); `Err` says why it was refused.
pub type ApplyFilter = dyn Fn(&str) -> Result<(), String> + Send + Sync;

/// The `tracing` targets this process has logged from: a layer that notes
/// every callsite's target as it registers. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Targets(Arc<Mutex<BTreeSet<String>>>);

impl Targets {
    /// Notes `target` as existing.
    pub fn note(&self, target: &str) {
        let mut set = crate::util::lock(&self.0);
        if !set.contains(target) {
            set.insert(target.to_owned());
        }
    }

    fn all(&self) -> BTreeSet<String> {
        crate::util::lock(&self.0).clone()
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Targets {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        self.note(metadata.target());
        Interest::always()
    }
}

/// The root logger's name.
const ROOT: &str = "root";

const LEVELS: [&str; 6] = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF"];

/// A logger's level and when it was last set through the API (Kafka
/// Connect's `LoggerLevel`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoggerLevel {
    /// TRACE, DEBUG, INFO, WARN, ERROR or OFF.
    pub level: String,
    /// Milliseconds since the epoch; `None` if never set through the API.
    pub last_modified: Option<u64>,
}

#[derive(Clone)]
struct State {
    root: String,
    /// Loggers given a level (at start or through the API).
    levels: BTreeMap<String, String>,
    /// When each logger's level last changed through the API.
    modified: BTreeMap<String, u64>,
}

impl State {
    /// A logger's effective level: its own, that of its nearest ancestor
    /// given one (`a::b` inherits from `a`), or the root's.
    fn effective(&self, name: &str) -> String {
        if name == ROOT {
            return self.root.clone();
        }
        let mut cur = name;
        loop {
            if let Some(l) = self.levels.get(cur) {
                return l.clone();
            }
            match cur.rsplit_once("::") {
                Some((parent, _)) => cur = parent,
                None => return self.root.clone(),
            }
        }
    }

    fn directives(&self) -> String {
        std::iter::once(self.root.to_ascii_lowercase())
            .chain(
                self.levels
                    .iter()
                    .map(|(k, v)| format!("{k}={}", v.to_ascii_lowercase())),
            )
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The log levels: a root level plus one level per logger, applied live.
pub struct Loggers {
    state: Mutex<State>,
    targets: Targets,
    apply: Box<ApplyFilter>,
}

fn is_root(name: &str) -> bool {
    name.is_empty() || name.eq_ignore_ascii_case(ROOT)
}

fn within(name: &str, namespace: &str) -> bool {
    name == namespace || name.strip_prefix(namespace).is_some_and(|rest| rest.starts_with("::"))
}

impl Loggers {
    /// Levels starting from `directives` (e.g. `RUST_LOG`'s value, or
    /// `info`): its bare level is the root level, its `target=level` parts
    /// the loggers. `apply` installs a new filter.
    pub fn new(directives: &str, apply: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static) -> Self {
        let mut root = "INFO".to_owned();
        let mut levels = BTreeMap::new();
        for d in directives.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            match d.split_once('=') {
                Some((target, level)) => {
                    levels.insert(target.to_owned(), level.to_ascii_uppercase());
                }
                None if LEVELS.contains(&d.to_ascii_uppercase().as_str()) => root = d.to_ascii_uppercase(),
                None => {
                    levels.insert(d.to_owned(), "TRACE".to_owned());
                }
            }
        }
        Self {
            state: Mutex::new(State {
                root,
                levels,
                modified: BTreeMap::new(),
            }),
            targets: Targets::default(),
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

    /// With the targets noted by `targets` (a layer of the process's
    /// subscriber) as existing loggers.
    pub fn with_targets(mut self, targets: Targets) -> Self {
        self.targets = targets;
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        crate::util::lock(&self.state)
    }

    /// Every existing logger but the root: given a level, or logged from.
    fn existing(&self, s: &State) -> BTreeSet<String> {
        let mut all = self.targets.all();
        all.extend(s.levels.keys().cloned());
        all
    }

    fn level_of(s: &State, name: &str) -> LoggerLevel {
        LoggerLevel {
            level: s.effective(name),
            last_modified: s.modified.get(name).copied(),
        }
    }

    /// Every existing logger and the root, but those that are OFF, as
    /// Kafka Connect lists them: `{"root": {"level", "last_modified"}, ...}`.
    pub fn all(&self) -> BTreeMap<String, LoggerLevel> {
        let s = self.lock();
        self.existing(&s)
            .into_iter()
            .chain(std::iter::once(ROOT.to_owned()))
            .map(|name| {
                let level = Self::level_of(&s, &name);
                (name, level)
            })
            .filter(|(_, l)| l.level != "OFF")
            .collect()
    }

    /// One logger's effective level; `None` if no such logger exists.
    pub fn get(&self, name: &str) -> Option<LoggerLevel> {
        let s = self.lock();
        if is_root(name) {
            return Some(Self::level_of(&s, ROOT));
        }
        self.existing(&s).contains(name).then(|| Self::level_of(&s, name))
    }

    /// Checks a level name (any case); 400 naming the valid ones.
    pub fn check_level(level: &str) -> Result<String, RestError> {
        let level = level.trim().to_ascii_uppercase();
        if LEVELS.contains(&level.as_str()) {
            Ok(level)
        } else {
            Err(RestError::bad_request(format!(
                "Invalid log level '{level}': one of {}",
                LEVELS.join(", ")
            )))
        }
    }

    /// Set a logger's level (`root` for the root) and those of the loggers
    /// below it (as Kafka Connect does: their own settings are replaced;
    /// the root's reaches every logger), and apply the filter. Answers the
    /// loggers whose level changed, sorted (a logger that did not exist
    /// counts as changed), and stamps their `last_modified`.
    pub fn set(&self, name: &str, level: &str) -> Result<Vec<String>, RestError> {
        let level = Self::check_level(level)?;
        let mut s = self.lock();
        let mut next = s.clone();
        let existing = self.existing(&s);
        let root = is_root(name);
        let mut scope: Vec<String> = existing.iter().filter(|n| root || within(n, name)).cloned().collect();
        if root {
            next.root = level.clone();
            for v in next.levels.values_mut() {
                *v = level.clone();
            }
            scope.push(ROOT.to_owned());
        } else {
            for (k, v) in next.levels.iter_mut() {
                if within(k, name) {
                    *v = level.clone();
                }
            }
            next.levels.insert(name.to_owned(), level);
        }
        let directives = next.directives();
        (self.apply)(&directives).map_err(|e| RestError::bad_request(format!("cannot apply '{directives}': {e}")))?;
        let now = crate::util::unix_ms();
        let mut changed: Vec<String> = scope
            .into_iter()
            .filter(|n| s.effective(n) != next.effective(n))
            .collect();
        if !root && !existing.contains(name) {
            changed.push(name.to_owned());
        }
        changed.sort();
        changed.dedup();
        for n in &changed {
            next.modified.insert(n.clone(), now);
        }
        *s = next;
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn loggers(directives: &str) -> (Loggers, Arc<Mutex<String>>) {
        let applied = Arc::new(Mutex::new(String::new()));
        let seen = applied.clone();
        let l = Loggers::new(directives, move |d| {
            *seen.lock().unwrap() = d.to_owned();
            Ok(())
        });
        (l, applied)
    }

    #[test]
    fn only_existing_loggers_are_found() {
        let targets = Targets::default();
        let (l, _) = loggers("warn,a::b=debug");
        let l = l.with_targets(targets.clone());
        assert_eq!(l.get("root").unwrap().level, "WARN");
        assert_eq!(l.get("ROOT").unwrap().level, "WARN");
        assert_eq!(l.get("a::b").unwrap().level, "DEBUG");
        assert_eq!(l.get("a::b::c"), None, "never logged from");
        targets.note("a::b::c");
        assert_eq!(
            l.get("a::b::c"),
            Some(LoggerLevel {
                level: "DEBUG".into(),
                last_modified: None
            })
        );
        assert_eq!(l.get("x"), None);
        assert_eq!(l.all().keys().cloned().collect::<Vec<_>>(), ["a::b", "a::b::c", "root"]);
    }

    #[test]
    fn set_answers_the_loggers_that_changed_and_stamps_them() {
        let targets = Targets::default();
        targets.note("a::b::c");
        targets.note("ab");
        let (l, applied) = loggers("warn,a::b=debug");
        let l = l.with_targets(targets);
        // `a` did not exist: it counts as changed; `ab` is not below `a`.
        assert_eq!(l.set("a", "trace").unwrap(), vec!["a", "a::b", "a::b::c"]);
        assert_eq!(*applied.lock().unwrap(), "warn,a=trace,a::b=trace");
        let a = l.get("a").unwrap();
        assert_eq!(a.level, "TRACE");
        assert!(a.last_modified.is_some());
        assert_eq!(l.get("ab").unwrap().last_modified, None);
        // The same level again changes nothing.
        assert_eq!(l.set("a", "TRACE").unwrap(), Vec::<String>::new());
        // The root reaches every logger.
        assert_eq!(
            l.set("root", "error").unwrap(),
            vec!["a", "a::b", "a::b::c", "ab", "root"]
        );
        assert_eq!(*applied.lock().unwrap(), "error,a=error,a::b=error");
        assert!(l.set("root", "nope").is_err());
        // OFF loggers are not listed.
        l.set("ab", "off").unwrap();
        assert!(!l.all().contains_key("ab"));
    }

    #[test]
    fn a_refused_change_is_not_recorded() {
        let refusing = Loggers::new("info", |_| Err("no".into()));
        assert!(refusing.set("x", "debug").is_err());
        assert_eq!(refusing.get("x"), None);
        assert_eq!(refusing.get("root").unwrap().level, "INFO");
    }
}
