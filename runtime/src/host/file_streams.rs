//! File output streams that write on the task's own thread.
//!
//! wasmtime-wasi 48 runs every `output-stream.write` of a file stream
//! (`write-via-stream`, `append-via-stream`) on tokio's blocking pool and
//! waits for it, whatever `allow_blocking_current_thread` says; every other
//! file call already runs inline for Copycat's tasks ([`super::wasi`]). Most
//! guests write files through these streams: Rust's `std` and C through
//! wasi-libc (`check-write`, `write`, `blocking-flush`), and the other
//! languages' runtimes on top of it. For a sink writing a file per partition
//! that is a thread hand-over and a wake-up per write.
//!
//! [`add_to_linker`] shadows the two functions of `wasi:filesystem/types`
//! with streams that do the same writes inline: the same permission check
//! (a read-only preopen answers `not-permitted`), the same descriptor
//! errors, the same loop until every byte is written, and an I/O error
//! reported by the next `check-write` or `flush`, as wasmtime-wasi's stream
//! does. A guest's thread is its task's own, never a tokio worker, so
//! blocking it is what `allow_blocking_current_thread` already allows.

use std::io;
use std::sync::Arc;

use bytes::Bytes;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime_wasi::async_trait;
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::ErrorCode;
use wasmtime_wasi::p2::{DynOutputStream, OutputStream, Pollable, StreamError, StreamResult};

/// The interface whose functions are shadowed, at the version
/// wasmtime-wasi 48 links (guests importing any 0.2.x resolve to it).
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// What `check-write` allows at once: wasmtime-wasi's figure for files.
const WRITE_CAPACITY: usize = 64 * 1024;

/// Replace `write-via-stream` and `append-via-stream` in `linker` (which
/// already holds WASI) with the inline streams.
pub(crate) fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    table: fn(&mut T) -> &mut ResourceTable,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let result = (|| {
        let mut types = linker.instance(FILESYSTEM_TYPES)?;
        types.func_wrap(
            "[method]descriptor.write-via-stream",
            move |mut store: StoreContextMut<'_, T>, (fd, offset): (Resource<Descriptor>, u64)| {
                Ok((open(table(store.data_mut()), &fd, Mode::At(offset))?,))
            },
        )?;
        types.func_wrap(
            "[method]descriptor.append-via-stream",
            move |mut store: StoreContextMut<'_, T>, (fd,): (Resource<Descriptor>,)| {
                Ok((open(table(store.data_mut()), &fd, Mode::Append)?,))
            },
        )
    })();
    linker.allow_shadowing(false);
    result
}

/// A stream on `fd`; an unknown descriptor traps, as in wasmtime-wasi.
fn open(
    table: &mut ResourceTable,
    fd: &Resource<Descriptor>,
    mode: Mode,
) -> wasmtime::Result<Result<Resource<DynOutputStream>, ErrorCode>> {
    let file = match table.get(fd)? {
        Descriptor::File(f) => f,
        Descriptor::Dir(_) => return Ok(Err(ErrorCode::BadDescriptor)),
    };
    if file.perms.write_not_permitted() {
        return Ok(Err(ErrorCode::NotPermitted));
    }
    let stream: DynOutputStream = Box::new(InlineFileStream {
        file: file.file.clone(),
        mode,
        state: State::Ready,
    });
    Ok(Ok(table.push(stream)?))
}

/// Where a stream writes.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// At this position, advancing.
    At(u64),
    /// At the end of the file, whatever else writes to it.
    Append,
}

#[derive(Debug)]
enum State {
    Ready,
    /// A write failed; the next `check-write` or `flush` says so.
    Failed(io::Error),
    Closed,
}

struct InlineFileStream {
    file: Arc<std::fs::File>,
    mode: Mode,
    state: State,
}

impl InlineFileStream {
    /// Write all of `bytes`, advancing the position.
    fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let n = match self.mode {
                Mode::At(position) => write_at(&self.file, bytes, position)?,
                Mode::Append => append(&self.file, bytes)?,
            };
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            if let Mode::At(position) = &mut self.mode {
                *position += n as u64;
            }
            bytes = bytes.get(n..).unwrap_or_default();
        }
        Ok(())
    }

    /// The stream's error, once: it is closed afterwards.
    fn take_failure(&mut self) -> StreamError {
        match std::mem::replace(&mut self.state, State::Closed) {
            State::Failed(e) => StreamError::LastOperationFailed(e.into()),
            _ => StreamError::Closed,
        }
    }
}

#[async_trait]
impl OutputStream for InlineFileStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        match self.state {
            State::Ready => {}
            State::Closed => return Err(StreamError::Closed),
            // As wasmtime-wasi: after a failure, `check-write` reports it
            // (and closes the stream) before another write is allowed.
            State::Failed(_) => return Err(StreamError::trap("write not permitted: check_write not called first")),
        }
        if let Err(e) = self.write_all(&bytes) {
            self.state = State::Failed(e);
        }
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        match self.state {
            State::Ready => Ok(()),
            State::Closed => Err(StreamError::Closed),
            State::Failed(_) => Err(self.take_failure()),
        }
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        match self.state {
            State::Ready => Ok(WRITE_CAPACITY),
            State::Closed => Err(StreamError::Closed),
            State::Failed(_) => Err(self.take_failure()),
        }
    }
}

#[async_trait]
impl Pollable for InlineFileStream {
    /// Always ready: writes complete before `write` returns.
    async fn ready(&mut self) {}
}

fn write_at(file: &std::fs::File, bytes: &[u8], position: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt as _;
    loop {
        match file.write_at(bytes, position) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Append atomically with respect to other writers: `pwritev2` with
/// `RWF_APPEND` (Linux 4.16+) where the kernel has it, as wasmtime-wasi
/// does; elsewhere at the file's current end.
fn append(file: &std::fs::File, bytes: &[u8]) -> io::Result<usize> {
    #[cfg(target_os = "linux")]
    {
        use rustix::io::{Errno, ReadWriteFlags, pwritev2};
        loop {
            match pwritev2(file, &[io::IoSlice::new(bytes)], 0, ReadWriteFlags::APPEND) {
                Ok(n) => return Ok(n),
                Err(Errno::INTR) => {}
                Err(Errno::NOSYS | Errno::NOTSUP) => break,
                Err(e) => return Err(e.into()),
            }
        }
    }
    let end = file.metadata()?.len();
    write_at(file, bytes, end)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn stream(file: std::fs::File, mode: Mode) -> InlineFileStream {
        InlineFileStream {
            file: Arc::new(file),
            mode,
            state: State::Ready,
        }
    }

    #[test]
    fn appends_land_at_the_end_and_positioned_writes_advance() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"abc\n")?;
        let open = || std::fs::OpenOptions::new().read(true).write(true).open(&path);

        let mut appender = stream(open()?, Mode::Append);
        assert_eq!(appender.check_write().ok(), Some(WRITE_CAPACITY));
        appender.write(Bytes::from_static(b"de"))?;
        // Another writer appends in between: nothing is overwritten.
        std::fs::OpenOptions::new().append(true).open(&path)?.write_all(b"X")?;
        appender.write(Bytes::from_static(b"f\n"))?;
        appender.flush()?;
        assert_eq!(std::fs::read(&path)?, b"abc\ndeXf\n");

        let mut positioned = stream(open()?, Mode::At(1));
        positioned.write(Bytes::from_static(b"12"))?;
        positioned.write(Bytes::from_static(b"3"))?;
        assert_eq!(std::fs::read(&path)?, b"a123deXf\n");
        Ok(())
    }

    #[test]
    fn a_failed_write_is_reported_once_by_the_next_check_and_closes_the_stream() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("ro.txt");
        std::fs::write(&path, b"")?;
        // Opened read-only: the write itself fails (EBADF).
        let mut s = stream(std::fs::File::open(&path)?, Mode::Append);
        s.write(Bytes::from_static(b"x"))?;
        assert!(matches!(s.check_write(), Err(StreamError::LastOperationFailed(_))));
        assert!(matches!(s.check_write(), Err(StreamError::Closed)));
        assert!(matches!(s.write(Bytes::from_static(b"y")), Err(StreamError::Closed)));
        assert_eq!(std::fs::read(&path)?, b"");
        Ok(())
    }
}
