//! A connector's transform chain, as Kafka Connect configures it:
//! `transforms=a,b`, `transforms.<a>.type` (a class name or alias) and its
//! settings, `transforms.<a>.predicate` / `.negate`, `predicates=p`,
//! `predicates.<p>.type` and its settings. Every problem is a
//! [`ConfigIssue`] naming the full key; a key under `transforms.` or
//! `predicates.` that names no configured alias is one too.

use std::collections::{BTreeMap, HashSet};

use crate::config::{ConfigIssue, Parsed};
use crate::registry::{self, PluginKind};
use crate::{BatchError, BatchTransformation, Predicate, Record, Transformation};

/// A record one stage of the chain could not handle, or a stage that
/// failed as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("transform '{alias}' ({class}) failed: {message}")]
pub struct ChainError {
    pub alias: String,
    pub class: String,
    pub message: String,
    /// The index (in the batch given to [`Chain::apply_batch`]) of the
    /// record at fault, when one was.
    pub record: Option<usize>,
}

/// The `type` of a stage that a component carries out
/// (`transforms.<alias>.type=wasm`, `.plugin`, `.plugin.version`).
pub const COMPONENT_TYPE: &str = "wasm";

/// Makes the stages the chain cannot make itself: transform components.
pub trait External {
    /// The stage `alias` configures with `transforms.<alias>.type=wasm`:
    /// `settings` are its keys after `transforms.<alias>.` (less `type`,
    /// `predicate` and `negate`). Returns what the stage is called in
    /// errors (its class) and the transform, or every problem with the
    /// settings, keyed by the setting (`plugin`, `plugin.version`, the
    /// component's own).
    fn make(
        &self,
        alias: &str,
        settings: &BTreeMap<String, String>,
    ) -> Result<(String, Box<dyn BatchTransformation>), Vec<ConfigIssue>>;
}

/// No transform components: `type=wasm` is refused.
struct NoComponents;

impl External for NoComponents {
    fn make(
        &self,
        _alias: &str,
        _settings: &BTreeMap<String, String>,
    ) -> Result<(String, Box<dyn BatchTransformation>), Vec<ConfigIssue>> {
        Err(vec![ConfigIssue::general(
            "transform components (type=wasm) run only in a Copycat worker, which loads them from its plugins",
        )])
    }
}

enum Step {
    One(Box<dyn Transformation>),
    Batch(Box<dyn BatchTransformation>),
}

struct Stage {
    alias: String,
    class: String,
    step: Step,
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
            .entries(self.stages.iter().map(|s| (&s.alias, &s.class)))
            .finish()
    }
}

/// Whether `key` belongs to the transform chain's settings.
pub fn is_chain_key(key: &str) -> bool {
    key == "transforms" || key == "predicates" || key.starts_with("transforms.") || key.starts_with("predicates.")
}

/// The settings a transform component takes itself: its keys less the
/// host's (`plugin`, `plugin.version`), as `(key, value)` pairs.
pub fn component_settings(settings: &BTreeMap<String, String>) -> Vec<(String, String)> {
    settings
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "plugin" | "plugin.version"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The `type=wasm` stages of `props`'s chain: each alias with its
/// settings (the keys after `transforms.<alias>.`, less `type`,
/// `predicate` and `negate`), in chain order.
pub fn component_stages(props: &BTreeMap<String, String>) -> Vec<(String, BTreeMap<String, String>)> {
    let mut ignored = Vec::new();
    aliases(props, "transforms", &mut ignored)
        .into_iter()
        .filter(|a| props.get(&format!("transforms.{a}.type")).map(|t| t.trim()) == Some(COMPONENT_TYPE))
        .map(|a| {
            let own = settings(props, &format!("transforms.{a}."), &["type", "predicate", "negate"]);
            (a, own)
        })
        .collect()
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
    /// or every problem with it; `type=wasm` stages are refused.
    pub fn from_config(props: &BTreeMap<String, String>) -> Result<Self, Vec<ConfigIssue>> {
        Self::from_config_with(props, &NoComponents)
    }

    /// [`Chain::from_config`], with `external` making the `type=wasm`
    /// stages.
    pub fn from_config_with(
        props: &BTreeMap<String, String>,
        external: &dyn External,
    ) -> Result<Self, Vec<ConfigIssue>> {
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
            match stage(props, alias, &predicates, external) {
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
    /// `None` when a stage dropped it. A stage that splits records
    /// ([`BatchTransformation`]) gives only the first.
    pub fn apply(&mut self, record: Record) -> Result<Option<Record>, ChainError> {
        Ok(self.apply_batch(vec![record])?.into_iter().next().map(|(_, r)| r))
    }

    /// `records` through every stage in turn, each record through a stage
    /// whose predicate (if any) says so: what comes out, each with the
    /// index in `records` of the record it came from (never decreasing).
    pub fn apply_batch(&mut self, records: Vec<Record>) -> Result<Vec<(usize, Record)>, ChainError> {
        self.apply_batch_tolerant(records, None)
    }

    /// [`Chain::apply_batch`], where a record a stage refuses is left out
    /// (and the chain goes on) when `skip` says so for its error (Kafka
    /// Connect's `errors.tolerance=all`). A batch stage that refused one
    /// record of its batch runs again on the others (its output for a
    /// batch it refused is nothing, so nothing is applied twice). A stage
    /// that failed as a whole (no record named) always fails the chain.
    pub fn apply_batch_tolerant(
        &mut self,
        records: Vec<Record>,
        mut skip: Option<&mut dyn FnMut(&ChainError) -> bool>,
    ) -> Result<Vec<(usize, Record)>, ChainError> {
        let mut current: Vec<(usize, Record)> = records.into_iter().enumerate().collect();
        for s in &mut self.stages {
            let fail = |record: Option<usize>, message: String| ChainError {
                alias: s.alias.clone(),
                class: s.class.clone(),
                message,
                record,
            };
            let applies = |r: &Record| s.predicate.as_ref().is_none_or(|p| p.test(r) != s.negate);
            match &mut s.step {
                Step::One(t) => {
                    let mut next = Vec::with_capacity(current.len());
                    for (origin, r) in current {
                        if !applies(&r) {
                            next.push((origin, r));
                            continue;
                        }
                        match t.apply(r) {
                            Ok(Some(r)) => next.push((origin, r)),
                            Ok(None) => {}
                            Err(e) => {
                                let e = fail(Some(origin), e.0);
                                if !skip.as_mut().is_some_and(|skip| skip(&e)) {
                                    return Err(e);
                                }
                            }
                        }
                    }
                    current = next;
                }
                Step::Batch(t) => {
                    // Records the predicate passes over keep their place
                    // between those the transform returns.
                    let mut given = Vec::new();
                    let mut slots = Vec::with_capacity(current.len());
                    for (origin, r) in current {
                        if applies(&r) {
                            slots.push((origin, None));
                            given.push(r);
                        } else {
                            slots.push((origin, Some(r)));
                        }
                    }
                    let out = loop {
                        if given.is_empty() {
                            break Vec::new();
                        }
                        let given_origins: Vec<usize> =
                            slots.iter().filter(|(_, r)| r.is_none()).map(|(o, _)| *o).collect();
                        // Kept to run again without a refused record.
                        let again = skip.is_some().then(|| given.clone());
                        match t.apply_batch(std::mem::take(&mut given)) {
                            Ok(out) => break out,
                            Err(BatchError::Failed(message)) => return Err(fail(None, message)),
                            Err(BatchError::Record { index, message }) => {
                                let e = fail(given_origins.get(index).copied(), message);
                                let skipped = e.record.is_some() && skip.as_mut().is_some_and(|skip| skip(&e));
                                let Some(mut again) = again.filter(|_| skipped) else {
                                    return Err(e);
                                };
                                again.remove(index);
                                // The refused record's slot: the index-th
                                // of those given to the stage.
                                if let Some(at) = slots
                                    .iter()
                                    .enumerate()
                                    .filter(|(_, (_, r))| r.is_none())
                                    .nth(index)
                                    .map(|(at, _)| at)
                                {
                                    slots.remove(at);
                                }
                                given = again;
                            }
                        }
                    };
                    let mut out = out.into_iter().peekable();
                    let mut next = Vec::with_capacity(slots.len());
                    let mut given_index = 0usize;
                    for (origin, kept) in slots {
                        if let Some(r) = kept {
                            next.push((origin, r));
                            continue;
                        }
                        while let Some((_, r)) = out.next_if(|(i, _)| *i == given_index) {
                            next.push((origin, r));
                        }
                        given_index += 1;
                    }
                    if let Some((i, _)) = out.next() {
                        return Err(fail(
                            None,
                            format!("it returned a record from input record {i}, out of order or past the end"),
                        ));
                    }
                    current = next;
                }
            }
        }
        Ok(current)
    }
}

fn stage(
    props: &BTreeMap<String, String>,
    alias: &str,
    predicates: &[String],
    external: &dyn External,
) -> Result<Stage, Vec<ConfigIssue>> {
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
    if class == COMPONENT_TYPE {
        let own = settings(props, &prefix, &["type", "predicate", "negate"]);
        return match external.make(alias, &own) {
            Ok((class, transform)) if issues.is_empty() => Ok(Stage {
                alias: alias.to_owned(),
                class,
                step: Step::Batch(transform),
                predicate,
                negate,
            }),
            Ok(_) => Err(issues),
            Err(e) => {
                issues.extend(e.into_iter().map(|i| prefixed(&prefix, &type_key, i)));
                Err(issues)
            }
        };
    }
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
        class: plugin.class.to_owned(),
        step: Step::One(transform),
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

#[cfg(test)]
mod tests {
    use super::*;
    use copycat_data::Value;

    /// A component stand-in: every record twice, records of topic `drop`
    /// none.
    struct Twice;

    impl BatchTransformation for Twice {
        fn apply_batch(&mut self, records: Vec<Record>) -> Result<Vec<(usize, Record)>, BatchError> {
            let mut out = Vec::new();
            for (i, r) in records.into_iter().enumerate() {
                if r.topic == "fail" {
                    return Err(BatchError::Record {
                        index: i,
                        message: "refused".into(),
                    });
                }
                if r.topic != "drop" {
                    out.push((i, r.clone()));
                    out.push((i, r));
                }
            }
            Ok(out)
        }
    }

    struct Components;

    impl External for Components {
        fn make(
            &self,
            _alias: &str,
            settings: &BTreeMap<String, String>,
        ) -> Result<(String, Box<dyn BatchTransformation>), Vec<ConfigIssue>> {
            match settings.get("plugin").map(String::as_str) {
                Some("twice") => Ok(("wasm:twice".into(), Box::new(Twice))),
                Some(other) => Err(vec![ConfigIssue::key("plugin", format!("no transform plugin {other}"))]),
                None => Err(vec![ConfigIssue::key("plugin", "required")]),
            }
        }
    }

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn record(topic: &str, n: i32) -> Record {
        Record {
            topic: topic.into(),
            value: Value::Int32(n),
            ..Record::default()
        }
    }

    #[test]
    fn a_batch_stage_splits_drops_and_keeps_order_around_its_predicate() {
        let p = props(&[
            ("transforms", "twice,route"),
            ("transforms.twice.type", "wasm"),
            ("transforms.twice.plugin", "twice"),
            ("transforms.twice.predicate", "skipped"),
            ("transforms.twice.negate", "true"),
            ("transforms.route.type", "RegexRouter"),
            ("transforms.route.regex", "(.*)"),
            ("transforms.route.replacement", "out-$1"),
            ("predicates", "skipped"),
            ("predicates.skipped.type", "TopicNameMatches"),
            ("predicates.skipped.pattern", "keep"),
        ]);
        let Ok(mut chain) = Chain::from_config_with(&p, &Components) else {
            panic!("chain refused")
        };
        let Ok(out) = chain.apply_batch(vec![
            record("a", 0),
            record("keep", 1),
            record("drop", 2),
            record("b", 3),
        ]) else {
            panic!("chain failed")
        };
        let got: Vec<(usize, String, Value)> = out.into_iter().map(|(o, r)| (o, r.topic, r.value)).collect();
        let want = [
            (0, "out-a", 0),
            (0, "out-a", 0),
            (1, "out-keep", 1),
            (3, "out-b", 3),
            (3, "out-b", 3),
        ];
        let want: Vec<(usize, String, Value)> = want
            .iter()
            .map(|(o, t, v)| (*o, (*t).to_owned(), Value::Int32(*v)))
            .collect();
        assert_eq!(got, want);
        let Err(e) = chain.apply_batch(vec![record("keep", 0), record("fail", 1)]) else {
            panic!("no error")
        };
        assert_eq!(
            (e.alias.as_str(), e.class.as_str(), e.record),
            ("twice", "wasm:twice", Some(1))
        );
    }

    #[test]
    fn a_tolerant_chain_leaves_out_refused_records_and_runs_a_batch_stage_again_without_them() {
        let p = props(&[
            ("transforms", "twice,cast"),
            ("transforms.twice.type", "wasm"),
            ("transforms.twice.plugin", "twice"),
            ("transforms.cast.type", "Cast$Value"),
            ("transforms.cast.spec", "int8"),
        ]);
        let Ok(mut chain) = Chain::from_config_with(&p, &Components) else {
            panic!("chain refused")
        };
        let mut refused = Vec::new();
        let mut skip = |e: &ChainError| {
            refused.push((e.alias.clone(), e.record));
            true
        };
        let Ok(out) = chain.apply_batch_tolerant(
            vec![
                record("a", 0),
                record("fail", 1),
                Record {
                    topic: "b".into(),
                    value: Value::String("not a number".into()),
                    ..Record::default()
                },
                record("c", 3),
            ],
            Some(&mut skip),
        ) else {
            panic!("chain failed")
        };
        let got: Vec<(usize, Value)> = out.into_iter().map(|(o, r)| (o, r.value)).collect();
        assert_eq!(
            got,
            [
                (0, Value::Int8(0)),
                (0, Value::Int8(0)),
                (3, Value::Int8(3)),
                (3, Value::Int8(3))
            ]
        );
        // Both copies of record 2 refused by Cast.
        assert_eq!(
            refused,
            [
                ("twice".to_owned(), Some(1)),
                ("cast".to_owned(), Some(2)),
                ("cast".to_owned(), Some(2))
            ]
        );
        // Without tolerance, the first refusal fails the chain.
        let Err(e) = chain.apply_batch_tolerant(vec![record("fail", 0)], None) else {
            panic!("no error")
        };
        assert_eq!(e.record, Some(0));
    }

    #[test]
    fn a_component_stage_names_its_keys_and_is_refused_without_a_worker() {
        let p = props(&[
            ("transforms", "x"),
            ("transforms.x.type", "wasm"),
            ("transforms.x.plugin", "nope"),
        ]);
        let Err(issues) = Chain::from_config_with(&p, &Components) else {
            panic!("accepted")
        };
        assert_eq!(issues[0].key.as_deref(), Some("transforms.x.plugin"));
        let Err(issues) = Chain::from_config(&p) else {
            panic!("accepted")
        };
        assert_eq!(issues[0].key.as_deref(), Some("transforms.x.type"));
        assert!(issues[0].message.contains("worker"), "{}", issues[0].message);
    }
}
