//! A crate's module tree read from its files, and the module paths each
//! module names.
//!
//! Invariant: `#[cfg(test)]` items and modules are left out (tests may reach
//! anywhere); a module declared with `#[path]` is refused rather than guessed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

/// One module: a file, or an inline `mod x { ... }` inside one.
struct Module {
    path: Vec<String>,
    file: PathBuf,
    /// Where the files of its `mod x;` children live.
    child_dir: PathBuf,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Modules brought into scope by `use` (`use crate::kafka;`).
    aliases: BTreeMap<String, usize>,
}

/// A path a module names: `segments` as written, from `line` of its file.
struct Ref {
    module: usize,
    segments: Vec<String>,
    line: usize,
    /// For a `use`: the name it binds.
    binds: Option<String>,
}

/// The crate: its modules (the root first) and the paths they name.
pub struct Crate {
    base: PathBuf,
    mods: Vec<Module>,
    refs: Vec<Ref>,
}

impl Crate {
    /// Reads the crate whose root file is `root` (`src/lib.rs`).
    pub fn load(root: &Path) -> Result<Self> {
        let base = root.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut krate = Crate {
            base: base.clone(),
            mods: Vec::new(),
            refs: Vec::new(),
        };
        krate.load_file(root, Vec::new(), None, base)?;
        krate.bind_aliases();
        Ok(krate)
    }

    fn load_file(
        &mut self,
        file: &Path,
        path: Vec<String>,
        parent: Option<usize>,
        child_dir: PathBuf,
    ) -> Result<usize> {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let ast = syn::parse_file(&text).with_context(|| format!("parsing {}", file.display()))?;
        let id = self.add(path, file.to_path_buf(), child_dir, parent);
        self.items(&ast.items, id)?;
        Ok(id)
    }

    fn add(&mut self, path: Vec<String>, file: PathBuf, child_dir: PathBuf, parent: Option<usize>) -> usize {
        let id = self.mods.len();
        if let (Some(p), Some(name)) = (parent, path.last()) {
            self.mods[p].children.insert(name.clone(), id);
        }
        self.mods.push(Module {
            path,
            file,
            child_dir,
            parent,
            children: BTreeMap::new(),
            aliases: BTreeMap::new(),
        });
        id
    }

    fn items(&mut self, items: &[syn::Item], id: usize) -> Result<()> {
        let mut collector = Collector::default();
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            if let syn::Item::Mod(m) = item {
                self.module(m, id)?;
            } else {
                collector.visit_item(item);
            }
        }
        for (segments, line, binds) in collector.refs {
            self.refs.push(Ref {
                module: id,
                segments,
                line,
                binds,
            });
        }
        Ok(())
    }

    fn module(&mut self, m: &syn::ItemMod, parent: usize) -> Result<()> {
        let name = m.ident.to_string();
        let mut path = self.mods[parent].path.clone();
        path.push(name.clone());
        let dir = self.mods[parent].child_dir.clone();
        if m.attrs.iter().any(|a| a.path().is_ident("path")) {
            bail!(
                "{}: `mod {name}` has a #[path] attribute, which this checker does not follow",
                self.mods[parent].file.display()
            );
        }
        match &m.content {
            Some((_, items)) => {
                let file = self.mods[parent].file.clone();
                let id = self.add(path, file, dir.join(&name), Some(parent));
                self.items(items, id)
            }
            None => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let file = if flat.exists() {
                    flat
                } else if nested.exists() {
                    nested
                } else {
                    bail!(
                        "`mod {name}` in {}: neither {} nor {} exists",
                        self.mods[parent].file.display(),
                        flat.display(),
                        nested.display()
                    );
                };
                self.load_file(&file, path, Some(parent), dir.join(&name)).map(|_| ())
            }
        }
    }

    /// Records what each `use` of a whole module binds, so `kafka::x` after
    /// `use crate::kafka;` resolves.
    fn bind_aliases(&mut self) {
        let mut binds = Vec::new();
        for r in &self.refs {
            let Some(name) = &r.binds else { continue };
            if let Some((target, used)) = self.resolve(r.module, &r.segments)
                && used == r.segments.len()
            {
                binds.push((r.module, name.clone(), target));
            }
        }
        for (module, name, target) in binds {
            self.mods[module].aliases.insert(name, target);
        }
    }

    /// The module a path names and how many of its segments name modules;
    /// `None` for a path that starts outside the crate.
    fn resolve(&self, from: usize, segments: &[String]) -> Option<(usize, usize)> {
        let first = segments.first()?;
        let (mut at, mut used) = match first.as_str() {
            "crate" => (0, 1),
            "self" => (from, 1),
            "super" => (self.mods[from].parent?, 1),
            name => {
                let m = &self.mods[from];
                (*m.children.get(name).or_else(|| m.aliases.get(name))?, 1)
            }
        };
        for seg in &segments[used..] {
            match seg.as_str() {
                "super" if used == 1 || segments[used - 1] == "super" => at = self.mods[at].parent?,
                "self" => {}
                name => match self.mods[at].children.get(name) {
                    Some(&c) => at = c,
                    None => break,
                },
            }
            used += 1;
        }
        Some((at, used))
    }

    /// For each file, the files it imports from, each with the first path
    /// that does (`line 12: crate::a::b`).
    pub fn file_edges(&self) -> BTreeMap<PathBuf, BTreeMap<PathBuf, String>> {
        let mut edges: BTreeMap<PathBuf, BTreeMap<PathBuf, String>> = BTreeMap::new();
        for r in &self.refs {
            let Some((target, _)) = self.resolve(r.module, &r.segments) else {
                continue;
            };
            let from = &self.mods[r.module].file;
            let to = &self.mods[target].file;
            if from == to {
                continue;
            }
            edges
                .entry(from.clone())
                .or_default()
                .entry(to.clone())
                .or_insert_with(|| format!("line {}: {}", r.line, r.segments.join("::")));
        }
        edges
    }

    /// Every file of the crate.
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.mods.iter().map(|m| &m.file)
    }

    /// The crate's top-level modules.
    pub fn top_level(&self) -> impl Iterator<Item = String> + '_ {
        self.mods
            .first()
            .into_iter()
            .flat_map(|root| root.children.keys().cloned())
    }

    /// The top-level module a file belongs to (`None` for the crate root).
    pub fn top_of_file(&self, file: &Path) -> Option<String> {
        self.mods
            .iter()
            .find(|m| m.file == file)
            .and_then(|m| m.path.first().cloned())
    }

    /// `file` relative to the crate's source directory.
    pub fn rel(&self, file: &Path) -> String {
        file.strip_prefix(&self.base).unwrap_or(file).display().to_string()
    }
}

/// Whether `attrs` make an item test-only (`#[cfg(test)]`, `#[cfg(all(test, ..))]`).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let tokens = a.meta.require_list().map(|l| l.tokens.to_string()).unwrap_or_default();
            let words: Vec<&str> = tokens.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
            words.contains(&"test") && !words.contains(&"not") && !words.contains(&"any")
        }
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Collects the paths an item names: `(segments, line, what a use binds)`.
#[derive(Default)]
struct Collector {
    refs: Vec<(Vec<String>, usize, Option<String>)>,
}

impl Collector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut path = prefix.clone();
                let binds = if name == "self" {
                    prefix.last().cloned()
                } else {
                    Some(name.clone())
                };
                path.push(name);
                self.refs.push((path, line, binds));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                self.refs.push((path, line, Some(r.rename.to_string())));
            }
            syn::UseTree::Glob(_) => self.refs.push((prefix.clone(), line, None)),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t, line);
                }
            }
        }
    }

    /// Paths such as `crate::a::b`, `super::x` or `child::f` in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tts.len() {
            if let TokenTree::Group(g) = &tts[i] {
                self.tokens(g.stream());
                i += 1;
                continue;
            }
            let starts = matches!(&tts[i], TokenTree::Ident(_));
            let after_colons = i >= 2 && is_colons(&tts[i - 2], &tts[i - 1]);
            if !starts || after_colons {
                i += 1;
                continue;
            }
            let line = tts[i].span().start().line;
            let mut segments = vec![tts[i].to_string()];
            let mut j = i + 1;
            while j + 2 < tts.len() && is_colons(&tts[j], &tts[j + 1]) {
                match &tts[j + 2] {
                    TokenTree::Ident(id) => segments.push(id.to_string()),
                    _ => break,
                }
                j += 3;
            }
            if segments.len() > 1 {
                self.refs.push((segments, line, None));
            }
            i = j.max(i + 1);
        }
    }
}

fn is_colons(a: &TokenTree, b: &TokenTree) -> bool {
    matches!((a, b), (TokenTree::Punct(x), TokenTree::Punct(y))
        if x.as_char() == ':' && x.spacing() == Spacing::Joint && y.as_char() == ':')
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_only(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // Modules nested in function bodies are not part of the tree; none are expected.
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs: &[syn::Attribute] = match item {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            syn::ImplItem::Type(t) => &t.attrs,
            _ => &[],
        };
        if !is_test_only(attrs) {
            syn::visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = u.use_token.span.start().line;
        self.use_tree(&mut Vec::new(), &u.tree, line);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.len() > 1 && p.leading_colon.is_none() {
            let line = p.segments[0].ident.span().start().line;
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.refs.push((segments, line, None));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}
