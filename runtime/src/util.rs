//! Small mechanisms every layer uses, each in one place: poison-tolerant
//! locking, the wall clock in milliseconds, and getting blocking work off an
//! async runtime. Imports nothing of the runtime.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Lock `m`, taking the data even if a thread panicked while holding it: the
/// runtime's shared state stays usable after a task thread's panic (which is
/// reported as the task's failure, not the worker's).
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// [`lock`] `m`, unless `stop` is set first: for a thread that must give
/// up waiting when asked to stop (whoever stops it may hold `m`).
pub fn lock_unless<'a, T: ?Sized>(m: &'a Mutex<T>, stop: &std::sync::atomic::AtomicBool) -> Option<MutexGuard<'a, T>> {
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        match m.try_lock() {
            Ok(g) => return Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    }
}

/// Wait on `cv` with [`lock`]'s poison tolerance.
pub fn wait<'a, T>(cv: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    match cv.wait(guard) {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The wall clock as Unix time in milliseconds (0 before 1970).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Run `f`, which calls into a guest, where WASI may block: WASI's sync
/// bindings drive their I/O with `block_on`, which panics on a thread that
/// drives a tokio runtime. Called from such a thread (standalone start-up,
/// an embedding application's async code), `f` runs on a scoped thread of
/// its own; elsewhere it runs inline.
pub fn off_async<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| match s.spawn(f).join() {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// Run blocking `f` (a worker call: guest calls, Kafka requests, file I/O)
/// from async code, on tokio's blocking pool. `None` if `f` panicked.
pub async fn blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
    tokio::task::spawn_blocking(f).await.ok()
}

/// Kafka's longest topic name.
const MAX_TOPIC_NAME: usize = 249;

/// Kafka's rule for topic names, or `None` when `name` follows it.
pub fn invalid_topic_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name == "." || name == ".." {
        return Some("'.' and '..' are not allowed".into());
    }
    if name.len() > MAX_TOPIC_NAME {
        return Some(format!(
            "it is {} characters long, the limit is {MAX_TOPIC_NAME}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Some(format!(
            "'{}' is not allowed (only ASCII letters, digits, '.', '_' and '-')",
            c.escape_default()
        ));
    }
    None
}

/// `A topic pattern (`topics.regex`, `topic.creation.<group>.include`)` anchored at both ends, as Kafka Connect (Java's
/// `Matcher::matches`) applies it: `orders` subscribes to `orders` only,
/// not to `orders-archive`, and `a|b` to `a` and `b`. The group keeps the
/// pattern whole, so it works in librdkafka's POSIX regular expressions
/// (which do not know `(?:`) as well as in Rust's.
pub fn whole_name(pattern: &str) -> String {
    format!("^({pattern})$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_follow_kafkas_rule() {
        assert_eq!(invalid_topic_name("orders.v1_x-y"), None);
        assert!(invalid_topic_name("").is_some());
        assert!(invalid_topic_name("..").is_some());
        assert!(invalid_topic_name(&"a".repeat(250)).is_some());
        let why = invalid_topic_name("no spaces allowed!").unwrap_or_default();
        assert!(why.contains("' '"), "{why}");
    }
}
