//! Every built-in transform and predicate: its Kafka Connect class name,
//! the short aliases it is also found under, its overview, its setting
//! definitions and how it is made from parsed settings.

use crate::config::{ConfigIssue, KeyDef, Parsed};
use crate::{Predicate, Transformation, builtin, predicates};

/// Makes a transform from its parsed settings.
pub type MakeTransform = fn(&Parsed) -> Result<Box<dyn Transformation>, ConfigIssue>;
/// Makes a predicate from its parsed settings.
pub type MakePredicate = fn(&Parsed) -> Result<Box<dyn Predicate>, ConfigIssue>;

/// What a plugin is and how it is made.
#[derive(Clone, Copy)]
pub enum PluginKind {
    Transformation(MakeTransform),
    Predicate(MakePredicate),
}

/// A built-in transform or predicate.
#[derive(Clone, Copy)]
pub struct TransformPlugin {
    /// Kafka Connect's class name (`$Key` / `$Value` for nested classes).
    pub class: &'static str,
    /// Other names it is found under: the class's simple name, and for a
    /// nested class `Outer$Inner`.
    pub aliases: &'static [&'static str],
    /// Kafka Connect's overview of it.
    pub doc: &'static str,
    /// Its settings.
    pub config: &'static [KeyDef],
    pub kind: PluginKind,
}

impl TransformPlugin {
    /// Whether this is a predicate.
    pub fn is_predicate(&self) -> bool {
        matches!(self.kind, PluginKind::Predicate(_))
    }

    /// "transformation" or "predicate", as Kafka Connect's plugin listing
    /// types them.
    pub fn type_name(&self) -> &'static str {
        if self.is_predicate() {
            "predicate"
        } else {
            "transformation"
        }
    }
}

/// Every built-in transform and predicate, in Kafka Connect's listing
/// order (by class name).
pub fn all() -> Vec<&'static TransformPlugin> {
    let mut v: Vec<&'static TransformPlugin> = builtin::PLUGINS.iter().chain(predicates::PLUGINS.iter()).collect();
    v.sort_by_key(|p| p.class);
    v
}

/// The transform or predicate named `name` (a class name or an alias).
pub fn find(name: &str) -> Option<&'static TransformPlugin> {
    let name = name.trim();
    builtin::PLUGINS
        .iter()
        .chain(predicates::PLUGINS.iter())
        .find(|p| p.class == name || p.aliases.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = all()
            .iter()
            .flat_map(|p| std::iter::once(p.class).chain(p.aliases.iter().copied()))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a class name or alias names two plugins");
    }
}
