//! Build script: tells `copycat new` where this checkout is (the default for
//! `--copycat-home`) and rebuilds when the project templates change (they
//! are compiled into the binary).

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let root = std::path::Path::new(&manifest).join("..");
    let root = root.canonicalize().unwrap_or(root);
    println!("cargo:rustc-env=COPYCAT_HOME_DEFAULT={}", root.display());
    println!("cargo:rerun-if-changed=../templates");
    println!("cargo:rerun-if-changed=build.rs");
}
