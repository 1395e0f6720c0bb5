//! The operator's grants, as a connector sees them.
//!
//! Capabilities are plain WASI: the directories of `grants.fs.read` /
//! `grants.fs.write` are preopened under their host paths, so a connector
//! uses `std::fs` with absolute paths. A path outside every granted
//! directory does not exist for the connector: `std::fs` fails with
//! `NotFound`, exactly as for a missing file under a grant. [`fs_granted`]
//! tells the two apart, so that a connector can report a missing grant as a
//! configuration problem instead of waiting for a file that it can never see.

use std::path::Path;

/// Whether `path` lies under a directory granted to the connector (it need
/// not exist). Writing also needs the grant to be `grants.fs.write`; a write
/// under a read-only grant fails with `PermissionDenied`.
///
/// Off WebAssembly (unit tests) every absolute path is granted.
pub fn fs_granted(path: impl AsRef<Path>) -> bool {
    // A granted directory is itself visible, and so is everything under it;
    // nothing above or beside the grants is. So `path` is granted exactly
    // when one of its ancestors (or itself) is visible.
    path.as_ref()
        .ancestors()
        .any(|a| !a.as_os_str().is_empty() && std::fs::metadata(a).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natively_every_absolute_path_is_granted() {
        assert!(fs_granted("/surely/not/here/file.txt"));
        assert!(fs_granted(std::env::temp_dir()));
    }
}
