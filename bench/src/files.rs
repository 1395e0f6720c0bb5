//! Output files of the sink benchmarks: how many bytes and lines a sink has
//! written so far, counted without loading a file into memory.
//!
//! Invariant: only regular, non-hidden files count. The file sink's
//! exactly-once temporaries start with a `.` and are not output yet.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

use anyhow::{Context, Result};

/// Sum of the sizes of the regular, non-hidden files in `dir` (0 if it
/// cannot be listed, e.g. before the sink created it).
pub fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Lines (`\n`s) and bytes in the regular, non-hidden files of `dir`.
pub fn dir_lines(dir: &Path) -> Result<(u64, u64)> {
    let (mut lines, mut bytes) = (0u64, 0u64);
    for e in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let e = e.with_context(|| format!("listing {}", dir.display()))?;
        if e.file_name().to_string_lossy().starts_with('.') || !e.path().is_file() {
            continue;
        }
        let (l, b) = file_lines(&e.path())?;
        lines += l;
        bytes += b;
    }
    Ok((lines, bytes))
}

/// Lines (`\n` bytes) and bytes in the file at `path`.
pub fn file_lines(path: &Path) -> Result<(u64, u64)> {
    let (mut lines, mut bytes) = (0u64, 0u64);
    let mut buf = vec![0u8; 1 << 20];
    let mut f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
    Ok((lines, bytes))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn counts_only_visible_regular_files() {
        let dir = std::env::temp_dir().join(crate::unique("copycat-bench-files"));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.txt"), b"one\ntwo\n").unwrap();
        std::fs::write(dir.join("b.txt"), b"three\npartial").unwrap();
        std::fs::write(dir.join(".tmp"), b"hidden\n").unwrap();
        assert_eq!(dir_bytes(&dir), 8 + 13);
        assert_eq!(dir_lines(&dir).unwrap(), (3, 21));
        assert_eq!(file_lines(&dir.join("a.txt")).unwrap(), (2, 8));
        assert_eq!(dir_bytes(&dir.join("missing")), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
