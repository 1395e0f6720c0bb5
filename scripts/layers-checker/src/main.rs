//! Checks that a crate's modules import each other one way.
//!
//! Reads every file of the crate's module tree with `syn` (test-only modules,
//! `#[cfg(test)]`, are left out), resolves each `crate::`, `super::`, `self::`
//! and child-module path (in `use`, in code and in macro bodies) to the file
//! of the module it names, and fails when
//! - two or more files import each other in a circle,
//! - two or more top-level modules import each other in a circle,
//! - a top-level module imports from a layer above its own (layers are listed
//!   bottom first in a TOML file), or from the crate root's re-exports,
//! - a top-level module is in no layer, or a layer names a module that does
//!   not exist.
//!
//! Run with: `cargo run -p copycat-check-layers -- runtime/src/lib.rs runtime/layers.toml`
//! (`--graph` first prints which top-level module imports which).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use modules::Crate;
use serde::Deserialize;

mod graph;
mod modules;

/// `layers.toml`: the crate's top-level modules, bottom layer first.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Layers {
    layer: Vec<Layer>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Layer {
    name: String,
    modules: Vec<String>,
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let graph = args.first().is_some_and(|a| a == "--graph");
    if graph {
        args.remove(0);
    }
    let [root, layers] = args.as_slice() else {
        eprintln!("usage: copycat-check-layers [--graph] <crate root, e.g. runtime/src/lib.rs> <layers.toml>");
        return ExitCode::from(2);
    };
    if graph {
        return match Crate::load(Path::new(root)) {
            Ok(krate) => {
                for (from, tos) in top_level_edges(&krate) {
                    println!("{from} -> {}", tos.into_keys().collect::<Vec<_>>().join(", "));
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("check-layers: {e:#}");
                ExitCode::from(2)
            }
        };
    }
    match run(Path::new(root), Path::new(layers)) {
        Ok(problems) if problems.is_empty() => ExitCode::SUCCESS,
        Ok(problems) => {
            for p in &problems {
                eprintln!("{p}\n");
            }
            eprintln!("check-layers: {} problem(s)", problems.len());
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("check-layers: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Every problem found, each a message naming the files and the paths at fault.
fn run(root: &Path, layers: &Path) -> Result<Vec<String>> {
    let krate = Crate::load(root)?;
    let text = std::fs::read_to_string(layers).with_context(|| format!("reading {}", layers.display()))?;
    let layers: Layers = toml::from_str(&text).with_context(|| format!("parsing {}", layers.display()))?;
    check(&krate, &layers)
}

/// Which top-level module imports which (the crate root left out).
fn top_level_edges(krate: &Crate) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, tos) in krate.file_edges() {
        for (to, why) in tos {
            if let (Some(ft), Some(tt)) = (krate.top_of_file(&from), krate.top_of_file(&to))
                && ft != tt
            {
                out.entry(ft).or_default().entry(tt).or_insert(why);
            }
        }
    }
    out
}

fn check(krate: &Crate, layers: &Layers) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let edges = krate.file_edges();

    // Circles between files.
    let files: BTreeSet<&PathBuf> = krate.files().collect();
    let file_graph: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = files
        .iter()
        .map(|f| (*f, edges.get(*f).map(|m| m.keys().collect()).unwrap_or_default()))
        .collect();
    for circle in graph::circles(&file_graph) {
        let mut msg = format!("import circle between {} files:", circle.len());
        for from in &circle {
            for (to, why) in edges.get(*from).into_iter().flatten() {
                if circle.contains(&to) {
                    let _ = write!(msg, "\n  {} -> {}  ({why})", krate.rel(from), krate.rel(to));
                }
            }
        }
        problems.push(msg);
    }

    // Layers: every top-level module in exactly one layer.
    let tops: BTreeSet<String> = krate.top_level().collect();
    let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, layer) in layers.layer.iter().enumerate() {
        for m in &layer.modules {
            if !tops.contains(m) {
                bail!(
                    "layer `{}` names `{m}`, which is not a top-level module of the crate",
                    layer.name
                );
            }
            if layer_of.insert(m, i).is_some() {
                bail!("`{m}` is in more than one layer");
            }
        }
    }
    for m in &tops {
        if !layer_of.contains_key(m.as_str()) {
            problems.push(format!(
                "top-level module `{m}` is in no layer: add it to the layers file"
            ));
        }
    }

    // Circles between top-level modules, and imports that run upward.
    let mut top_edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, tos) in &edges {
        let from_top = krate.top_of_file(from);
        for (to, why) in tos {
            let to_top = krate.top_of_file(to);
            let (Some(ft), Some(tt)) = (&from_top, &to_top) else {
                if let (Some(ft), None) = (&from_top, &to_top) {
                    problems.push(format!(
                        "{} imports from the crate root ({why}): import the item from its home module (`{ft}` is below the root)",
                        krate.rel(from)
                    ));
                }
                continue;
            };
            if ft == tt {
                continue;
            }
            top_edges
                .entry(ft.clone())
                .or_default()
                .entry(tt.clone())
                .or_insert_with(|| format!("{}: {why}", krate.rel(from)));
            if let (Some(&lf), Some(&lt)) = (layer_of.get(ft.as_str()), layer_of.get(tt.as_str()))
                && lt > lf
            {
                problems.push(format!(
                    "`{ft}` (layer `{}`) imports `{tt}` (layer `{}`, above it): {} ({why})",
                    layers.layer[lf].name,
                    layers.layer[lt].name,
                    krate.rel(from)
                ));
            }
        }
    }
    let top_graph: BTreeMap<&String, BTreeSet<&String>> = tops
        .iter()
        .map(|m| (m, top_edges.get(m).map(|t| t.keys().collect()).unwrap_or_default()))
        .collect();
    for circle in graph::circles(&top_graph) {
        let mut msg = format!("import circle between {} top-level modules:", circle.len());
        for from in &circle {
            for (to, why) in top_edges.get(*from).into_iter().flatten() {
                if circle.contains(&to) {
                    let _ = write!(msg, "\n  {from} -> {to}  ({why})");
                }
            }
        }
        problems.push(msg);
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Writes `files` (path relative to src/, contents) to a fresh directory
    /// and checks them against `layers`.
    fn check_tree(files: &[(&str, &str)], layers: &str) -> Vec<String> {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "check-layers-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        let krate = Crate::load(&dir.join("lib.rs")).unwrap();
        let layers: Layers = toml::from_str(layers).unwrap();
        let problems = check(&krate, &layers).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        problems
    }

    const TWO: &str = "[[layer]]\nname = \"low\"\nmodules = [\"a\"]\n[[layer]]\nname = \"high\"\nmodules = [\"b\"]\n";

    #[test]
    fn one_way_imports_pass() {
        let p = check_tree(
            &[
                ("lib.rs", "pub mod a; pub mod b;"),
                ("a.rs", "pub struct A;"),
                ("b.rs", "use crate::a::A; pub fn f() -> A { A }"),
            ],
            TWO,
        );
        assert!(p.is_empty(), "{p:?}");
    }

    #[test]
    fn an_upward_import_is_named() {
        let p = check_tree(
            &[
                ("lib.rs", "pub mod a; pub mod b;"),
                ("a.rs", "pub fn f() { crate::b::g() }"),
                ("b.rs", "pub fn g() {}"),
            ],
            TWO,
        );
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("`a` (layer `low`) imports `b` (layer `high`"), "{}", p[0]);
        assert!(p[0].contains("a.rs"), "{}", p[0]);
    }

    #[test]
    fn a_file_circle_through_super_and_a_child_path_is_found() {
        let p = check_tree(
            &[
                ("lib.rs", "pub mod a; pub mod b;"),
                ("a/mod.rs", "mod kid; pub struct Shared; pub fn f() { kid::g() }"),
                ("a/kid.rs", "use super::Shared; pub fn g() { let _ = Shared; }"),
                ("b.rs", ""),
            ],
            TWO,
        );
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("import circle between 2 files"), "{}", p[0]);
        assert!(p[0].contains("a/kid.rs -> a/mod.rs"), "{}", p[0]);
    }

    #[test]
    fn paths_in_macros_count_and_test_modules_do_not() {
        let p = check_tree(
            &[
                ("lib.rs", "pub mod a; pub mod b;"),
                ("a.rs", "pub fn f() { println!(\"{}\", crate::b::X); }"),
                (
                    "b.rs",
                    "pub const X: u8 = 1; #[cfg(test)] mod tests { use crate::a::f; }",
                ),
            ],
            TWO,
        );
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("imports `b`"), "{}", p[0]);
    }

    #[test]
    fn a_module_in_no_layer_and_the_crate_root_are_named() {
        let p = check_tree(
            &[
                ("lib.rs", "pub mod a; pub mod b; pub mod c; pub use a::A;"),
                ("a.rs", "pub struct A;"),
                ("b.rs", "use crate::A;"),
                ("c.rs", ""),
            ],
            TWO,
        );
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p.iter().any(|m| m.contains("`c` is in no layer")), "{p:?}");
        assert!(
            p.iter().any(|m| m.contains("b.rs imports from the crate root")),
            "{p:?}"
        );
    }
}
