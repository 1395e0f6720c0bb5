//! Build script: tells `copycat new` where this checkout is (the default for
//! `--copycat-home`), and compiles the example projects into the binary (the
//! projects `copycat new` starts from): `$OUT_DIR/examples.rs` lists every
//! file of every `examples/<lang>/<example>/` that the example's own
//! `.gitignore` does not name (build output never lands in the binary; the
//! `ignore` crate reads the `.gitignore` as git does).

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
            collect(&example, &mut files);
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

/// Add the files of `example` that its `.gitignore` does not name to
/// `files` as (`<lang>/<example>`, relative path, absolute path).
fn collect(example: &Path, files: &mut Vec<(String, String, String)>) {
    let (Some(lang), Some(name)) = (example.parent().and_then(Path::file_name), example.file_name()) else {
        return;
    };
    let id = format!("{}/{}", lang.to_string_lossy(), name.to_string_lossy());
    let walk = ignore::WalkBuilder::new(example)
        .hidden(false)
        .parents(false)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .build();
    for entry in walk.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(example) {
            files.push((
                id.clone(),
                rel.to_string_lossy().replace('\\', "/"),
                entry.path().to_string_lossy().into_owned(),
            ));
        }
    }
}
