//! Build script: tells `copycat new` where this checkout is (the default for
//! `--copycat-home`) and rebuilds when the project templates change (they
//! are compiled into the binary).

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
    println!("cargo:rerun-if-changed=../templates");
    println!("cargo:rerun-if-changed=build.rs");
}
