//! The engine compiles each component once: a second load reuses the
//! pre-linked component, and compiled code lands in the on-disk cache so a
//! worker restart does not recompile.

use std::sync::Arc;

use copycat_runtime::connector::Kind;
use copycat_runtime::engine::{EngineConfig, WasmEngine};
use copycat_tests::*;

/// Compiled-code entries (under `modules/`, without wasmtime's `.stats` files) with their modification times.
fn files_in(dir: &std::path::Path) -> Vec<(std::path::PathBuf, std::time::SystemTime)> {
    let mut n = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            let name = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_none_or(|x| x != "stats")
                // wasmtime writes each file (entries and their usage
                // statistics) through a `*.wip-atomic-write*` temporary
                // that it renames; one may come and go while we list.
                && !name.contains(".wip-")
                && path.to_string_lossy().contains("/modules/")
            {
                // A file renamed away between listing and reading is not
                // an entry either.
                if let Ok(modified) = e.metadata().and_then(|m| m.modified()) {
                    n.push((path, modified));
                }
            }
        }
    }
    n.sort();
    n
}

#[test]
fn components_are_compiled_once_and_cached_on_disk() {
    let cache = tempfile::tempdir().unwrap();
    let cfg = EngineConfig {
        cache_dir: Some(cache.path().to_owned()),
        ..EngineConfig::default()
    };
    let engine = WasmEngine::new(&cfg).unwrap();
    let first = engine.load(&plugin("datagen")).unwrap();
    assert_eq!(first.kind, Kind::Source);
    assert!(
        first.digest.starts_with("sha256:") && first.digest.len() == 7 + 64,
        "{}",
        first.digest
    );
    let again = engine.load(&plugin("datagen")).unwrap();
    assert!(
        Arc::ptr_eq(&first, &again),
        "a second load reuses the compiled component"
    );
    assert_eq!(engine.load(&plugin("file-sink")).unwrap().kind, Kind::Sink);
    let cached = eventually(
        "compiled code in the cache directory",
        std::time::Duration::from_secs(30),
        || {
            let n = files_in(cache.path());
            (n.len() >= 2).then_some(n)
        },
    );
    // A new engine (a restarted worker) hits the same entries: nothing is
    // compiled or written again.
    drop(engine);
    let engine = WasmEngine::new(&cfg).unwrap();
    engine.load(&plugin("datagen")).unwrap();
    engine.load(&plugin("file-sink")).unwrap();
    assert_eq!(
        files_in(cache.path()),
        cached,
        "the restarted engine reused the cached code"
    );
    assert_eq!(cached.len(), 2, "one entry per component: {cached:?}");
}
