//! Build script: tells `copycat new` where this checkout is (the default for
//! `--copycat-home`), and compiles the example projects into the binary (the
//! projects `copycat new` starts from): `$OUT_DIR/examples.rs` lists every
//! file of every `examples/<lang>/<example>/` that the example's own
//! `.gitignore` does not name (build output never lands in the binary).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let root = std::path::Path::new(&manifest).join("..");
    let root = root.canonicalize().unwrap_or(root);
    println!("cargo:rustc-env=COPYCAT_HOME_DEFAULT={}", root.display());
    // Clones that share a target directory (CI's clone and a working copy)
    // share this build script's cached output: naming a file of *this*
    // clone by its absolute path makes another clone's build (where that
    // file is missing or older) run the script again, so the path above is
    // never another checkout's.
    println!("cargo:rerun-if-changed={}", root.join("Cargo.toml").display());
    println!("cargo:rerun-if-changed=../examples");
    println!("cargo:rerun-if-changed=build.rs");

    let mut files = Vec::new();
    for lang in subdirs(&root.join("examples")) {
        for example in subdirs(&lang) {
            let ignored = ignore_patterns(&example.join(".gitignore"));
            collect(&example, &example, &ignored, &mut files);
        }
    }
    files.sort();
    let mut out = String::from("/// Every example file: (`<lang>/<example>`, path in the example, contents).\n");
    out.push_str("static EXAMPLE_FILES: &[(&str, &str, &[u8])] = &[\n");
    for (example, rel, abs) in &files {
        let _ = writeln!(out, "    ({example:?}, {rel:?}, include_bytes!({abs:?})),");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("examples.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo:warning=writing {}: {e}", dest.display());
        std::process::exit(1);
    }
}

/// The directories in `dir`, sorted.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// The patterns of a `.gitignore`, in the subset the examples use: `name`
/// and `*.ext` (at any depth), `/`-anchored at the example's top, a trailing
/// `/` for directories only; comments and blank lines skipped.
fn ignore_patterns(gitignore: &Path) -> Vec<String> {
    std::fs::read_to_string(gitignore)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

fn ignored(patterns: &[String], name: &str, top: bool, dir: bool) -> bool {
    patterns.iter().any(|p| {
        let (anchored, p) = p.strip_prefix('/').map_or((false, p.as_str()), |p| (true, p));
        let (dir_only, p) = p.strip_suffix('/').map_or((false, p), |p| (true, p));
        (!anchored || top)
            && (!dir_only || dir)
            && match p.strip_prefix('*') {
                Some(suffix) => name.ends_with(suffix),
                None => name == p,
            }
    })
}

/// Add the files under `dir` (inside `example`) to `files` as
/// (`<lang>/<example>`, relative path, absolute path).
fn collect(example: &Path, dir: &Path, patterns: &[String], files: &mut Vec<(String, String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = path.is_dir();
        if ignored(patterns, &name, dir == example, is_dir) {
            continue;
        }
        if is_dir {
            collect(example, &path, patterns, files);
        } else if let (Ok(rel), Some(parent)) = (path.strip_prefix(example), example.parent()) {
            let (Some(lang), Some(name)) = (parent.file_name(), example.file_name()) else {
                continue;
            };
            files.push((
                format!("{}/{}", lang.to_string_lossy(), name.to_string_lossy()),
                rel.to_string_lossy().replace('\\', "/"),
                path.to_string_lossy().into_owned(),
            ));
        }
    }
}
