//! `copycat new <name> --lang <lang> --kind source|sink|transform`: a
//! working project, copied from the example of that language and kind
//! (`examples/<lang>/counter-source` for a source, `file-sink` for a sink,
//! `uppercase-transform` for a transform component; `examples/SPEC.md`), which is compiled into the binary by `build.rs`.
//!
//! The copy is renamed, in file names and contents: the example's name
//! (`counter-source`, and `counter_source` where an identifier or module
//! needs one) becomes the project name (and its `_` form), and the
//! example's path to the checkout, `../../..`, becomes the Copycat checkout
//! the project builds against (its `wit/` contract and SDKs). So a project
//! is the example the conformance suite checks, under another name.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// Languages with examples, in the order `--help` lists them.
pub const LANGUAGES: &[&str] = &["rust", "python", "js", "c", "go", "zig"];

/// How an example refers to the Copycat checkout: it sits in
/// `examples/<lang>/<example>/`.
const CHECKOUT: &str = "../../..";

/// The example a project of `kind` in `lang` starts from.
fn example_of(kind: &str, lang: &str) -> Option<&'static str> {
    match (kind, lang) {
        ("source", _) => Some("counter-source"),
        ("sink", _) => Some("file-sink"),
        ("transform", _) => Some("uppercase-transform"),
        _ => None,
    }
}

/// Why a project could not be created.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// The name is not usable as a project, package and file name.
    #[error(
        "project name '{0}': use 2 to 64 lowercase ASCII letters, digits and '-', starting with a letter (it becomes a file, package and plugin name)"
    )]
    BadName(String),
    /// No example for this language and kind (the message keeps the
    /// word "template", which users and scripts know).
    #[error("no {kind} template for language '{lang}' (templates: {available})")]
    NoTemplate {
        /// Requested language.
        lang: String,
        /// `source` or `sink`.
        kind: String,
        /// What exists.
        available: String,
    },
    /// The target exists already.
    #[error("{0} already exists; choose another name or directory")]
    Exists(PathBuf),
    /// Writing failed.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What to create.
#[derive(Debug, Clone)]
pub struct NewProject {
    /// Project (and plugin) name.
    pub name: String,
    /// One of [`LANGUAGES`].
    pub lang: String,
    /// `source`, `sink` or `transform`.
    pub kind: String,
    /// The directory to create the project in (it becomes `<parent>/<name>`).
    pub parent: PathBuf,
    /// The Copycat checkout (for `wit/` and the SDKs).
    pub copycat_home: PathBuf,
}

fn valid_name(name: &str) -> bool {
    (2..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-')
}

/// The files of `examples/<lang>/<example>`: (path in the example, contents).
fn example_files(lang: &str, example: &str) -> impl Iterator<Item = (&'static str, &'static [u8])> {
    let dir = format!("{lang}/{example}");
    EXAMPLE_FILES
        .iter()
        .filter(move |(d, _, _)| *d == dir)
        .map(|(_, path, contents)| (*path, *contents))
}

/// The projects there are, as `lang/kind`.
pub fn available() -> Vec<String> {
    let mut v = Vec::new();
    for lang in LANGUAGES {
        for kind in ["source", "sink", "transform"] {
            if example_of(kind, lang).is_some_and(|e| example_files(lang, e).next().is_some()) {
                v.push(format!("{lang}/{kind}"));
            }
        }
    }
    v.sort();
    v
}

/// Create the project; returns its directory.
pub fn create(p: &NewProject) -> Result<PathBuf, ScaffoldError> {
    if !valid_name(&p.name) {
        return Err(ScaffoldError::BadName(p.name.clone()));
    }
    let no_template = || ScaffoldError::NoTemplate {
        lang: p.lang.clone(),
        kind: p.kind.clone(),
        available: available().join(", "),
    };
    let example = example_of(&p.kind, &p.lang).ok_or_else(no_template)?;
    let files: Vec<_> = example_files(&p.lang, example).collect();
    if files.is_empty() {
        return Err(no_template());
    }
    let dest = p.parent.join(&p.name);
    if dest.exists() {
        return Err(ScaffoldError::Exists(dest));
    }
    let rename = Rename::new(example, &p.name, &p.copycat_home);
    for (rel, contents) in files {
        let path = dest.join(rename.apply(rel));
        let io = |source| ScaffoldError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        match std::str::from_utf8(contents) {
            Ok(text) => std::fs::write(&path, rename.apply(text)).map_err(io)?,
            Err(_) => std::fs::write(&path, contents).map_err(io)?,
        }
        if path.extension().is_some_and(|e| e == "sh") {
            set_executable(&path).map_err(io)?;
        }
    }
    Ok(dest)
}

/// An example's names, and its path to the checkout, replaced by a
/// project's.
struct Rename {
    /// (from, to), applied in order.
    pairs: [(String, String); 3],
}

impl Rename {
    fn new(example: &str, name: &str, copycat_home: &Path) -> Self {
        Self {
            pairs: [
                (example.to_owned(), name.to_owned()),
                (example.replace('-', "_"), name.replace('-', "_")),
                // Last: the checkout's path is not renamed.
                (CHECKOUT.to_owned(), copycat_home.display().to_string()),
            ],
        }
    }

    fn apply(&self, text: &str) -> String {
        self.pairs
            .iter()
            .fold(text.to_owned(), |text, (from, to)| text.replace(from.as_str(), to))
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(valid_name("my-source2"));
        for bad in ["", "a", "My", "1x", "x_y", "x-", "a b"] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn every_language_has_all_three_examples_compiled_in() {
        let all = available();
        for lang in LANGUAGES {
            for kind in ["source", "sink", "transform"] {
                assert!(all.contains(&format!("{lang}/{kind}")), "{lang}/{kind}: {all:?}");
            }
        }
        assert_eq!(all.len(), 3 * LANGUAGES.len(), "{all:?}");
    }

    #[test]
    fn build_output_is_not_compiled_in() {
        for (dir, path, _) in EXAMPLE_FILES {
            assert!(
                !path.ends_with(".wasm") && !path.starts_with("build/") && !path.starts_with("target/"),
                "{dir}/{path}"
            );
        }
    }

    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }

    #[test]
    fn a_project_is_the_example_renamed() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("no temporary directory");
        };
        let home = Path::new("/opt/copycat");
        for lang in LANGUAGES {
            for (kind, example) in [
                ("source", "counter-source"),
                ("sink", "file-sink"),
                ("transform", "uppercase-transform"),
            ] {
                let project = NewProject {
                    name: format!("my-{lang}-{kind}"),
                    lang: (*lang).to_owned(),
                    kind: kind.to_owned(),
                    parent: dir.path().to_owned(),
                    copycat_home: home.to_owned(),
                };
                let created = match create(&project) {
                    Ok(created) => created,
                    Err(e) => panic!("{lang}/{kind}: {e}"),
                };
                let mut paths = Vec::new();
                walk(&created, &mut paths);
                for path in &paths {
                    let rel = path.strip_prefix(&created).unwrap_or(path).display().to_string();
                    assert!(
                        !rel.contains(example) && !rel.contains(&example.replace('-', "_")),
                        "{lang}/{kind}: {rel} is not renamed"
                    );
                }
                let build = std::fs::read_to_string(created.join("build.sh")).unwrap_or_default();
                assert!(
                    build.contains(&format!("{}.wasm", project.name)),
                    "{lang}/{kind}: build.sh does not build {}.wasm",
                    project.name
                );
                assert!(paths.len() >= 3, "{lang}/{kind}: {paths:?}");
            }
        }
    }
}
