//! A connector's transform chain, as Kafka Connect configures it:
//! `transforms=a,b`, `transforms.<a>.type` (a class name or alias) and its
//! settings, `transforms.<a>.predicate` / `.negate`, `predicates=p`,
//! `predicates.<p>.type` and its settings. Every problem is a
//! [`ConfigIssue`] naming the full key; a key under `transforms.` or
//! `predicates.` that names no configured alias is one too.

use std::collections::{BTreeMap, HashSet};

use crate::config::{ConfigIssue, Parsed};
use crate::registry::{self, PluginKind};
use crate::{Predicate, Record, Transformation};

/// A record one stage of the chain could not handle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("transform '{alias}' ({class}) failed: {message}")]
pub struct ChainError {
    pub alias: String,
    pub class: String,
    pub message: String,
}

struct Stage {
    alias: String,
    class: &'static str,
    transform: Box<dyn Transformation>,
    predicate: Option<Box<dyn Predicate>>,
    negate: bool,
}

/// The configured transforms, applied in order.
#[derive(Default)]
pub struct Chain {
    stages: Vec<Stage>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.stages.iter().map(|s| (&s.alias, s.class)))
            .finish()
    }
}

/// Whether `key` belongs to the transform chain's settings.
pub fn is_chain_key(key: &str) -> bool {
    key == "transforms" || key == "predicates" || key.starts_with("transforms.") || key.starts_with("predicates.")
}

/// A LIST setting's entries, as `ConfigDef` parses them.
fn aliases(props: &BTreeMap<String, String>, key: &str, issues: &mut Vec<ConfigIssue>) -> Vec<String> {
    let raw = props.get(key).map(|s| s.trim()).unwrap_or("");
    if raw.is_empty() {
        return Vec::new();
    }
    let list: Vec<String> = raw.split(',').map(|s| s.trim().to_owned()).collect();
    let unique: HashSet<&String> = list.iter().collect();
    if unique.len() < list.len() {
        issues.push(ConfigIssue::invalid(key, raw, "Duplicate alias provided."));
    }
    if let Some(empty) = list.iter().position(String::is_empty) {
        issues.push(ConfigIssue::invalid(key, raw, format!("alias {} is empty", empty + 1)));
    }
    let mut seen = HashSet::new();
    list.into_iter()
        .filter(|a| !a.is_empty() && seen.insert(a.clone()))
        .collect()
}

/// The settings under `prefix` (the prefix removed), less `skip`.
fn settings(props: &BTreeMap<String, String>, prefix: &str, skip: &[&str]) -> BTreeMap<String, String> {
    props
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(prefix).map(|rest| (rest.to_owned(), v.clone())))
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .collect()
}

/// An issue of a plugin's own settings, its key made full.
fn prefixed(prefix: &str, type_key: &str, issue: ConfigIssue) -> ConfigIssue {
    match issue.key {
        Some(k) => {
            let full = format!("{prefix}{k}");
            ConfigIssue::key(
                full.clone(),
                issue
                    .message
                    .replace(&format!("configuration {k}"), &format!("configuration {full}")),
            )
        }
        None => ConfigIssue::key(type_key, issue.message),
    }
}

impl Chain {
    /// The chain `props` (a connector's whole configuration) configures,
    /// or every problem with it.
    pub fn from_config(props: &BTreeMap<String, String>) -> Result<Self, Vec<ConfigIssue>> {
        let mut issues = Vec::new();
        let transforms = aliases(props, "transforms", &mut issues);
        let predicates = aliases(props, "predicates", &mut issues);
        // Keys that name no configured alias.
        for k in props.keys() {
            let orphan = |section: &str, known: &[String]| {
                k.strip_prefix(section)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|rest| !known.iter().any(|a| rest.starts_with(&format!("{a}."))))
            };
            if orphan("transforms", &transforms) {
                issues.push(ConfigIssue::key(
                    k.clone(),
                    format!("{k} names no transform in 'transforms' ({})", transforms.join(",")),
                ));
            }
            if orphan("predicates", &predicates) {
                issues.push(ConfigIssue::key(
                    k.clone(),
                    format!("{k} names no predicate in 'predicates' ({})", predicates.join(",")),
                ));
            }
        }
        let mut stages = Vec::new();
        for alias in &transforms {
            match stage(props, alias, &predicates) {
                Ok(s) => stages.push(s),
                Err(mut e) => issues.append(&mut e),
            }
        }
        // Predicates no transform uses are still checked.
        for p in &predicates {
            if let Err(e) = predicate(props, p) {
                issues.push(e);
            }
        }
        let mut seen = HashSet::new();
        issues.retain(|i| seen.insert((i.key.clone(), i.message.clone())));
        if issues.is_empty() {
            Ok(Self { stages })
        } else {
            Err(issues)
        }
    }

    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// The aliases of the stages, in order.
    pub fn aliases(&self) -> impl Iterator<Item = &str> {
        self.stages.iter().map(|s| s.alias.as_str())
    }

    /// `record` through every stage whose predicate (if any) says so;
    /// `None` when a stage dropped it.
    pub fn apply(&mut self, mut record: Record) -> Result<Option<Record>, ChainError> {
        for s in &mut self.stages {
            if let Some(p) = &s.predicate
                && p.test(&record) == s.negate
            {
                continue;
            }
            match s.transform.apply(record) {
                Ok(Some(r)) => record = r,
                Ok(None) => return Ok(None),
                Err(e) => {
                    return Err(ChainError {
                        alias: s.alias.clone(),
                        class: s.class.to_owned(),
                        message: e.0,
                    });
                }
            }
        }
        Ok(Some(record))
    }
}

fn stage(props: &BTreeMap<String, String>, alias: &str, predicates: &[String]) -> Result<Stage, Vec<ConfigIssue>> {
    let prefix = format!("transforms.{alias}.");
    let type_key = format!("{prefix}type");
    let mut issues = Vec::new();
    let (pred_key, negate_key) = (format!("{prefix}predicate"), format!("{prefix}negate"));
    let predicate_alias = props
        .get(&pred_key)
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    let negate = match props.get(&negate_key).map(|s| s.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) if v == "true" => true,
        Some(v) if v == "false" => false,
        Some(v) => {
            issues.push(ConfigIssue::invalid(
                &negate_key,
                &v,
                "Expected value to be either true or false",
            ));
            false
        }
    };
    if props.contains_key(&negate_key) && !props.contains_key(&pred_key) {
        issues.push(ConfigIssue::key(
            negate_key.clone(),
            format!("Config '{negate_key}' was provided but there is no config '{pred_key}' defining a predicate to be negated."),
        ));
    }
    let predicate = match &predicate_alias {
        None => None,
        Some(p) if !predicates.contains(p) => {
            issues.push(ConfigIssue::invalid(
                &pred_key,
                p,
                format!(
                    "no predicate '{p}' is defined in 'predicates' ({})",
                    predicates.join(",")
                ),
            ));
            None
        }
        // An error is reported once, for the predicate's own keys.
        Some(p) => predicate(props, p).ok(),
    };
    let Some(class) = props.get(&type_key).map(|s| s.trim()) else {
        issues.push(ConfigIssue::key(
            type_key.clone(),
            format!("Missing required configuration \"{type_key}\" which has no default value."),
        ));
        return Err(issues);
    };
    let plugin = match registry::find(class) {
        Some(p) if !p.is_predicate() => p,
        Some(_) => {
            issues.push(ConfigIssue::invalid(&type_key, class, "Not a Transformation"));
            return Err(issues);
        }
        None => {
            issues.push(ConfigIssue::invalid(
                &type_key,
                class,
                format!("Class {class} could not be found."),
            ));
            return Err(issues);
        }
    };
    let own = settings(props, &prefix, &["type", "predicate", "negate"]);
    let made = Parsed::parse(plugin.config, &own).and_then(|parsed| match plugin.kind {
        PluginKind::Transformation(make) => make(&parsed),
        PluginKind::Predicate(_) => Err(ConfigIssue::general("Not a Transformation")),
    });
    let transform = match made {
        Ok(t) => t,
        Err(e) => {
            issues.push(prefixed(&prefix, &type_key, e));
            return Err(issues);
        }
    };
    if !issues.is_empty() {
        return Err(issues);
    }
    Ok(Stage {
        alias: alias.to_owned(),
        class: plugin.class,
        transform,
        predicate,
        negate,
    })
}

fn predicate(props: &BTreeMap<String, String>, alias: &str) -> Result<Box<dyn Predicate>, ConfigIssue> {
    let prefix = format!("predicates.{alias}.");
    let type_key = format!("{prefix}type");
    let Some(class) = props.get(&type_key).map(|s| s.trim()) else {
        return Err(ConfigIssue::key(
            type_key.clone(),
            format!("Missing required configuration \"{type_key}\" which has no default value."),
        ));
    };
    let plugin = match registry::find(class) {
        Some(p) if p.is_predicate() => p,
        Some(_) => return Err(ConfigIssue::invalid(&type_key, class, "Not a Predicate")),
        None => {
            return Err(ConfigIssue::invalid(
                &type_key,
                class,
                format!("Class {class} could not be found."),
            ));
        }
    };
    let own = settings(props, &prefix, &["type"]);
    Parsed::parse(plugin.config, &own)
        .and_then(|parsed| match plugin.kind {
            PluginKind::Predicate(make) => make(&parsed),
            PluginKind::Transformation(_) => Err(ConfigIssue::general("Not a Predicate")),
        })
        .map_err(|e| prefixed(&prefix, &type_key, e))
}
