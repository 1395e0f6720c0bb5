//! `copycat new <name> --lang <lang> --kind source|sink`: a working
//! connector project from the templates in `templates/<lang>/<kind>/`
//! (compiled into the binary). In file names and contents, `{{name}}`
//! becomes the project name, `{{name_snake}}` the name with `_` for `-`,
//! and `{{copycat_home}}` the Copycat checkout the project builds against
//! (its `wit/` contract and SDKs).

use std::path::{Path, PathBuf};

use include_dir::{Dir, DirEntry, include_dir};

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../templates");

/// Languages with templates, in the order `--help` lists them.
pub const LANGUAGES: &[&str] = &["rust", "python", "js", "c", "go", "zig"];

/// Why a project could not be created.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// The name is not usable as a project, package and file name.
    #[error(
        "project name '{0}': use 2 to 64 lowercase ASCII letters, digits and '-', starting with a letter (it becomes a file, package and plugin name)"
    )]
    BadName(String),
    /// No template for this language and kind.
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
    /// `source` or `sink`.
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

/// The templates there are, as `lang/kind`.
pub fn available() -> Vec<String> {
    let mut v = Vec::new();
    for lang in TEMPLATES.dirs() {
        for kind in lang.dirs() {
            v.push(kind.path().display().to_string());
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
    let template = TEMPLATES
        .get_dir(format!("{}/{}", p.lang, p.kind))
        .ok_or_else(|| ScaffoldError::NoTemplate {
            lang: p.lang.clone(),
            kind: p.kind.clone(),
            available: available().join(", "),
        })?;
    let dest = p.parent.join(&p.name);
    if dest.exists() {
        return Err(ScaffoldError::Exists(dest));
    }
    let home = p.copycat_home.display().to_string();
    let snake = p.name.replace('-', "_");
    let fill = |s: &str| {
        s.replace("{{name_snake}}", &snake)
            .replace("{{name}}", &p.name)
            .replace("{{copycat_home}}", &home)
    };
    write_dir(template, template.path(), &dest, &fill)?;
    Ok(dest)
}

fn write_dir(dir: &Dir<'_>, root: &Path, dest: &Path, fill: &dyn Fn(&str) -> String) -> Result<(), ScaffoldError> {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(d) => write_dir(d, root, dest, fill)?,
            DirEntry::File(f) => {
                let rel = f.path().strip_prefix(root).unwrap_or(f.path());
                let path = dest.join(fill(&rel.display().to_string()));
                let io = |source| ScaffoldError::Write {
                    path: path.clone(),
                    source,
                };
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(io)?;
                }
                match f.contents_utf8() {
                    Some(text) => std::fs::write(&path, fill(text)).map_err(io)?,
                    None => std::fs::write(&path, f.contents()).map_err(io)?,
                }
                if path.extension().is_some_and(|e| e == "sh") {
                    set_executable(&path).map_err(io)?;
                }
            }
        }
    }
    Ok(())
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
    fn the_rust_templates_are_compiled_in() {
        let all = available();
        assert!(all.contains(&"rust/source".to_owned()), "{all:?}");
        assert!(all.contains(&"rust/sink".to_owned()), "{all:?}");
    }
}
