//! Narrow file access, scoped by the operator.
//!
//! The host answers only for paths the operator granted in the connector's
//! config (`grants.fs.read` for reading, `grants.fs.write` for writing: a
//! comma-separated list of files or directories); every other path is
//! [`FileError::Denied`]. Paths are absolute.
//!
//! On non-WebAssembly targets (unit tests) these use `std::fs` directly,
//! **without** any grant checks.

use crate::FileError;

/// Read at most `max_bytes` bytes starting at byte `offset`. An empty result
/// means end of file.
pub fn read_at(path: &str, offset: u64, max_bytes: u32) -> Result<Vec<u8>, FileError> {
    imp::read_at(path, offset, max_bytes)
}

/// The file's current size in bytes.
pub fn size(path: &str) -> Result<u64, FileError> {
    imp::size(path)
}

/// Append `data` to the file, creating it (and missing parent directories
/// inside the grant) if needed. Returns the new size. Call [`sync`] to make it
/// durable.
pub fn append(path: &str, data: &[u8]) -> Result<u64, FileError> {
    imp::append(path, data)
}

/// Flush the file's contents to stable storage (fsync).
pub fn sync(path: &str) -> Result<(), FileError> {
    imp::sync(path)
}

/// Rename `from` to `to`, replacing `to` if it exists. Atomic when both are
/// on one file system: readers see the old `to` or the complete `from`,
/// never a partial file, which makes "write a temporary file, sync it,
/// rename it" a commit. Both paths need a write grant; the host also syncs
/// the directory so the rename survives a crash.
pub fn rename(from: &str, to: &str) -> Result<(), FileError> {
    imp::rename(from, to)
}

/// The names (not paths) of the entries of directory `dir`, sorted. Needs a
/// read (or write) grant covering `dir`.
pub fn list(dir: &str) -> Result<Vec<String>, FileError> {
    imp::list(dir)
}

/// Delete the file at `path`. Needs a write grant.
pub fn remove(path: &str) -> Result<(), FileError> {
    imp::remove(path)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::__bindings::source::copycat::connector::files::{self, FileError as E};
    use crate::FileError;

    fn convert(e: E) -> FileError {
        match e {
            E::Denied(m) => FileError::Denied(m),
            E::NotFound(m) => FileError::NotFound(m),
            E::Io(m) => FileError::Io(m),
        }
    }

    pub(super) fn read_at(path: &str, offset: u64, max_bytes: u32) -> Result<Vec<u8>, FileError> {
        files::read_at(path, offset, max_bytes).map_err(convert)
    }

    pub(super) fn size(path: &str) -> Result<u64, FileError> {
        files::size(path).map_err(convert)
    }

    pub(super) fn append(path: &str, data: &[u8]) -> Result<u64, FileError> {
        files::append(path, data).map_err(convert)
    }

    pub(super) fn sync(path: &str) -> Result<(), FileError> {
        files::sync(path).map_err(convert)
    }

    pub(super) fn rename(from: &str, to: &str) -> Result<(), FileError> {
        files::rename(from, to).map_err(convert)
    }

    pub(super) fn list(dir: &str) -> Result<Vec<String>, FileError> {
        files::list(dir).map_err(convert)
    }

    pub(super) fn remove(path: &str) -> Result<(), FileError> {
        files::remove(path).map_err(convert)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::fs::{self, File, OpenOptions};
    use std::io::{self, Read, Seek, SeekFrom, Write};
    use std::path::Path;

    use crate::FileError;

    fn convert(path: &str, e: io::Error) -> FileError {
        match e.kind() {
            io::ErrorKind::NotFound => FileError::NotFound(path.to_string()),
            io::ErrorKind::PermissionDenied => FileError::Denied(format!("{path}: {e}")),
            _ => FileError::Io(format!("{path}: {e}")),
        }
    }

    pub(super) fn read_at(path: &str, offset: u64, max_bytes: u32) -> Result<Vec<u8>, FileError> {
        let read = || -> io::Result<Vec<u8>> {
            let mut file = File::open(path)?;
            file.seek(SeekFrom::Start(offset))?;
            let mut buf = Vec::new();
            file.take(u64::from(max_bytes)).read_to_end(&mut buf)?;
            Ok(buf)
        };
        read().map_err(|e| convert(path, e))
    }

    pub(super) fn size(path: &str) -> Result<u64, FileError> {
        fs::metadata(path).map(|m| m.len()).map_err(|e| convert(path, e))
    }

    pub(super) fn append(path: &str, data: &[u8]) -> Result<u64, FileError> {
        let write = || -> io::Result<u64> {
            if let Some(parent) = Path::new(path).parent() {
                fs::create_dir_all(parent)?;
            }
            let mut file = OpenOptions::new().create(true).append(true).open(path)?;
            file.write_all(data)?;
            Ok(file.metadata()?.len())
        };
        write().map_err(|e| convert(path, e))
    }

    pub(super) fn sync(path: &str) -> Result<(), FileError> {
        File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(|e| convert(path, e))
    }

    pub(super) fn rename(from: &str, to: &str) -> Result<(), FileError> {
        if let Some(parent) = Path::new(to).parent() {
            fs::create_dir_all(parent).map_err(|e| convert(to, e))?;
        }
        fs::rename(from, to).map_err(|e| convert(from, e))
    }

    pub(super) fn list(dir: &str) -> Result<Vec<String>, FileError> {
        let read = || -> io::Result<Vec<String>> {
            let mut names = Vec::new();
            for entry in fs::read_dir(dir)? {
                names.push(entry?.file_name().to_string_lossy().into_owned());
            }
            names.sort();
            Ok(names)
        };
        read().map_err(|e| convert(dir, e))
    }

    pub(super) fn remove(path: &str) -> Result<(), FileError> {
        fs::remove_file(path).map_err(|e| convert(path, e))
    }
}
