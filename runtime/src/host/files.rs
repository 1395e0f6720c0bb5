//! `copycat:connector/files`: narrow file access, scoped by operator grants.
//!
//! A connector config grants paths with `grants.fs.read` and
//! `grants.fs.write` (comma-separated files or directories). Every other path
//! is denied. The grants are shaped like WASI preopens so that they can
//! become exactly that.

use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use wasmtime::component::Linker;

use super::{Ctx, TaskHost};
use crate::engine::bindings::files::{self, FileError};

/// Largest single read a guest may ask for.
const MAX_READ: u32 = 4 * 1024 * 1024;

/// Paths an operator granted to one connector.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileGrants {
    /// Files or directories the connector may read.
    pub read: Vec<PathBuf>,
    /// Files or directories the connector may write (and read).
    pub write: Vec<PathBuf>,
}

#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
}

impl FileGrants {
    /// Parse comma-separated path lists; every path must be absolute.
    pub fn parse(read: Option<&str>, write: Option<&str>) -> Result<Self, String> {
        fn list(key: &str, v: Option<&str>) -> Result<Vec<PathBuf>, String> {
            v.unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| {
                    let p = PathBuf::from(s);
                    if !p.is_absolute() {
                        return Err(format!("{key}: '{s}' is not an absolute path"));
                    }
                    if p.components().any(|c| matches!(c, Component::ParentDir)) {
                        return Err(format!("{key}: '{s}' must not contain '..'"));
                    }
                    Ok(p)
                })
                .collect()
        }
        Ok(Self {
            read: list("grants.fs.read", read)?,
            write: list("grants.fs.write", write)?,
        })
    }

    fn check(&self, path: &str, access: Access) -> Result<PathBuf, FileError> {
        let p = PathBuf::from(path);
        let denied = |why: &str| {
            FileError::Denied(format!(
                "{path}: {why} (grant it in {})",
                match access {
                    Access::Read => "grants.fs.read",
                    Access::Write => "grants.fs.write",
                }
            ))
        };
        if !p.is_absolute() {
            return Err(denied("not an absolute path"));
        }
        if p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(denied("'..' is not allowed"));
        }
        let grants: Box<dyn Iterator<Item = &PathBuf>> = match access {
            Access::Read => Box::new(self.read.iter().chain(self.write.iter())),
            Access::Write => Box::new(self.write.iter()),
        };
        for g in grants {
            if p.starts_with(g) && resolves_inside(&p, g) {
                return Ok(p);
            }
        }
        Err(denied("not covered by the connector's grants"))
    }
}

/// Symlinks must not lead out of a grant: the deepest existing ancestor of
/// `path`, resolved, must still lie inside the resolved grant.
fn resolves_inside(path: &Path, grant: &Path) -> bool {
    let Ok(grant) = fs::canonicalize(grant) else {
        // A grant that does not exist yet: nothing below it can be a symlink.
        return true;
    };
    let mut probe = path;
    loop {
        if let Ok(real) = fs::canonicalize(probe) {
            return real.starts_with(&grant) || grant.starts_with(&real);
        }
        match probe.parent() {
            Some(parent) => probe = parent,
            None => return false,
        }
    }
}

fn io_error(path: &Path, e: std::io::Error) -> FileError {
    if e.kind() == std::io::ErrorKind::NotFound {
        FileError::NotFound(path.display().to_string())
    } else {
        FileError::Io(format!("{}: {e}", path.display()))
    }
}

/// Context of the files interface.
pub struct FilesCtx {
    grants: FileGrants,
}

impl FilesCtx {
    pub(crate) fn new(grants: FileGrants) -> Self {
        Self { grants }
    }
}

impl files::Host for FilesCtx {
    fn read_at(&mut self, path: String, offset: u64, max_bytes: u32) -> Result<Vec<u8>, FileError> {
        let p = self.grants.check(&path, Access::Read)?;
        let mut f = fs::File::open(&p).map_err(|e| io_error(&p, e))?;
        f.seek(SeekFrom::Start(offset)).map_err(|e| io_error(&p, e))?;
        let mut buf = Vec::new();
        f.take(u64::from(max_bytes.min(MAX_READ)))
            .read_to_end(&mut buf)
            .map_err(|e| io_error(&p, e))?;
        Ok(buf)
    }

    fn size(&mut self, path: String) -> Result<u64, FileError> {
        let p = self.grants.check(&path, Access::Read)?;
        fs::metadata(&p).map(|m| m.len()).map_err(|e| io_error(&p, e))
    }

    fn append(&mut self, path: String, data: Vec<u8>) -> Result<u64, FileError> {
        let p = self.grants.check(&path, Access::Write)?;
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|e| io_error(&p, e))?;
        f.write_all(&data).map_err(|e| io_error(&p, e))?;
        f.metadata().map(|m| m.len()).map_err(|e| io_error(&p, e))
    }

    fn sync(&mut self, path: String) -> Result<(), FileError> {
        let p = self.grants.check(&path, Access::Write)?;
        let f = OpenOptions::new().append(true).open(&p).map_err(|e| io_error(&p, e))?;
        f.sync_all().map_err(|e| io_error(&p, e))
    }

    fn rename(&mut self, from: String, to: String) -> Result<(), FileError> {
        let src = self.grants.check(&from, Access::Write)?;
        let dst = self.grants.check(&to, Access::Write)?;
        if fs::metadata(&src).map_err(|e| io_error(&src, e))?.is_dir() {
            return Err(FileError::Io(format!("{from}: is a directory")));
        }
        if let Some(parent) = dst.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        fs::rename(&src, &dst).map_err(|e| io_error(&src, e))?;
        // Make the rename itself durable.
        if let Some(parent) = dst.parent()
            && let Ok(d) = fs::File::open(parent)
        {
            d.sync_all().map_err(|e| io_error(parent, e))?;
        }
        Ok(())
    }

    fn list(&mut self, dir: String) -> Result<Vec<String>, FileError> {
        let p = self.grants.check(&dir, Access::Read)?;
        let mut names = Vec::new();
        for entry in fs::read_dir(&p).map_err(|e| io_error(&p, e))? {
            let entry = entry.map_err(|e| io_error(&p, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn remove(&mut self, path: String) -> Result<(), FileError> {
        let p = self.grants.check(&path, Access::Write)?;
        fs::remove_file(&p).map_err(|e| io_error(&p, e))
    }
}

pub(crate) fn add_to_linker(
    linker: &mut Linker<TaskHost>,
    get: fn(&mut TaskHost) -> &mut FilesCtx,
) -> wasmtime::Result<()> {
    files::add_to_linker::<TaskHost, Ctx<FilesCtx>>(linker, get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bindings::files::Host;

    #[test]
    fn paths_outside_grants_are_denied() {
        let dir = std::env::temp_dir().join(format!("copycat-grants-{}", std::process::id()));
        let grants = FileGrants::parse(Some(dir.to_str().unwrap_or("/nonexistent")), None);
        let mut ctx = FilesCtx::new(grants.unwrap_or_default());
        for bad in ["/etc/passwd", "relative.txt", "/tmp/../etc/passwd"] {
            match ctx.read_at(bad.into(), 0, 10) {
                Err(FileError::Denied(msg)) => assert!(msg.contains("grants.fs.read"), "{msg}"),
                other => panic!("{bad}: expected denial, got {other:?}"),
            }
        }
        match ctx.append(dir.join("x").display().to_string(), b"x".to_vec()) {
            Err(FileError::Denied(msg)) => assert!(msg.contains("grants.fs.write"), "{msg}"),
            other => panic!("write without a write grant: {other:?}"),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("copycat-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap_or_default();
        dir
    }

    fn s(p: &Path) -> String {
        p.display().to_string()
    }

    #[test]
    fn rename_list_and_remove_inside_a_write_grant() {
        let dir = scratch("rw");
        let mut ctx = FilesCtx::new(FileGrants::parse(None, Some(&s(&dir))).unwrap_or_default());
        let tmp = dir.join(".t-0.tmp");
        assert_eq!(ctx.append(s(&tmp), b"abc".to_vec()).ok(), Some(3));
        ctx.append(s(&dir.join("b.txt")), b"x".to_vec()).ok();
        assert_eq!(
            ctx.list(s(&dir)).ok(),
            Some(vec![".t-0.tmp".to_owned(), "b.txt".to_owned()])
        );
        let fin = dir.join("a.txt");
        assert!(ctx.rename(s(&tmp), s(&fin)).is_ok());
        assert_eq!(fs::read(&fin).ok().as_deref(), Some(&b"abc"[..]));
        assert!(!tmp.exists());
        // Renaming over an existing file replaces it.
        ctx.append(s(&tmp), b"new".to_vec()).ok();
        assert!(ctx.rename(s(&tmp), s(&dir.join("b.txt"))).is_ok());
        assert_eq!(fs::read(dir.join("b.txt")).ok().as_deref(), Some(&b"new"[..]));
        assert_eq!(
            ctx.list(s(&dir)).ok(),
            Some(vec!["a.txt".to_owned(), "b.txt".to_owned()])
        );
        assert!(ctx.remove(s(&fin)).is_ok());
        assert!(matches!(ctx.remove(s(&fin)), Err(FileError::NotFound(_))));
        assert!(matches!(ctx.list(s(&dir.join("missing"))), Err(FileError::NotFound(_))));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn rename_list_and_remove_check_grants() {
        let dir = scratch("deny");
        let inside = dir.join("in");
        let outside = dir.join("out");
        fs::create_dir_all(&outside).unwrap_or_default();
        fs::write(outside.join("f"), b"x").unwrap_or_default();
        // Read-only grant on `outside`, write grant on `inside`.
        let mut ctx = FilesCtx::new(FileGrants::parse(Some(&s(&outside)), Some(&s(&inside))).unwrap_or_default());
        ctx.append(s(&inside.join("f")), b"y".to_vec()).ok();
        let denied_write =
            |r: Result<(), FileError>| matches!(r, Err(FileError::Denied(m)) if m.contains("grants.fs.write"));
        // Moving a file out of the write grant, or into it from a read-only
        // path, is refused; so is removing a read-only file.
        assert!(denied_write(ctx.rename(s(&inside.join("f")), s(&outside.join("g")))));
        assert!(denied_write(ctx.rename(s(&outside.join("f")), s(&inside.join("g")))));
        assert!(denied_write(ctx.remove(s(&outside.join("f")))));
        assert!(denied_write(ctx.remove("/etc/passwd".into())));
        assert!(outside.join("f").exists() && inside.join("f").exists());
        // Listing needs a read grant (a write grant implies one).
        assert_eq!(ctx.list(s(&outside)).ok(), Some(vec!["f".to_owned()]));
        assert_eq!(ctx.list(s(&inside)).ok(), Some(vec!["f".to_owned()]));
        match ctx.list("/etc".into()) {
            Err(FileError::Denied(m)) => assert!(m.contains("grants.fs.read"), "{m}"),
            other => panic!("listing /etc: {other:?}"),
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn relative_grants_are_refused() {
        let err = FileGrants::parse(Some("data/in"), None).err().unwrap_or_default();
        assert!(err.contains("grants.fs.read") && err.contains("absolute"), "{err}");
    }
}
