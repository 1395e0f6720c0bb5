//! `file-source`: a source connector that turns the lines of files into
//! records, like Kafka's `FileStreamSourceConnector`, following each file as
//! it grows (`tail -f`).
//!
//! * Configs: `file` (one path, as in Kafka's connector) and/or `files`
//!   (comma-separated paths), `topic` (required), `batch.size` (default
//!   2000 lines per poll). Paths are absolute; their directories must be
//!   granted to the connector with `grants.fs.read` (WASI preopens, read
//!   with plain `std::fs`).
//! * Each file is a source partition named by its path; a record's source
//!   offset is the byte position just after its line, in decimal. The value
//!   is the line without its `\n` (and without a `\r` before it); no key.
//! * A trailing partial line is held back until its `\n` arrives. A file that
//!   does not exist yet is waited for (one warning, then silent retries).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use copycat_sdk::{
    Config, ConfigKey, ConfigProblem, Connector, Error, Importance, PluginInfo, RecordRef, SourceBatch, SourceTask,
    grants, log,
};

/// Bytes read per file per step.
const CHUNK: u64 = 64 * 1024;

/// At most `CHUNK` bytes of `path` from byte `offset`; empty at end of file.
/// The file is opened afresh each time, so a replaced file is followed by
/// name, as before.
fn read_at(path: &str, offset: u64) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    file.take(CHUNK).read_to_end(&mut buf)?;
    Ok(buf)
}

/// The file-source connector.
pub struct FileSource;

/// Every configured path, `file` first then `files`, without duplicates.
fn paths(config: &Config) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let single = config.get("file").map(str::trim).filter(|s| !s.is_empty());
    for path in single.map(String::from).into_iter().chain(config.get_list("files")) {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

fn batch_size(config: &Config) -> Result<u32, Error> {
    match config.get_parsed::<i64>("batch.size", 2000)? {
        n if n >= 1 => u32::try_from(n).map_err(|_| Error::config(format!("config 'batch.size' is too large: {n}"))),
        n => Err(Error::config(format!(
            "config 'batch.size' must be at least 1, got {n}"
        ))),
    }
}

impl Connector for FileSource {
    fn describe() -> PluginInfo {
        PluginInfo::new("file-source", env!("CARGO_PKG_VERSION"))
            .description("Reads lines of files (following them as they grow) into a Kafka topic")
            .config(ConfigKey::string("file").importance(Importance::High).doc(
                "Absolute path of a file to read (Kafka FileStreamSource compatible); \
                         grant its directory with grants.fs.read",
            ))
            .config(ConfigKey::list("files").importance(Importance::High).doc(
                "Comma-separated absolute paths of files to read, spread over the tasks; \
                         grant their directories with grants.fs.read",
            ))
            .config(
                ConfigKey::string("topic")
                    .required()
                    .doc("Kafka topic to write the lines to"),
            )
            .config(
                ConfigKey::int("batch.size")
                    .default_value("2000")
                    .importance(Importance::Low)
                    .doc("Most lines returned by one poll"),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        if paths(config).is_empty() {
            problems.push(ConfigProblem::new(
                "file",
                "set 'file' or 'files' to the absolute path(s) to read",
            ));
        }
        let single = config.get("file").map(str::trim).filter(|s| !s.is_empty());
        for (key, path) in single
            .map(|p| ("file", p.to_string()))
            .into_iter()
            .chain(config.get_list("files").into_iter().map(|p| ("files", p)))
        {
            if !path.starts_with('/') {
                problems.push(ConfigProblem::new(key, format!("'{path}' is not an absolute path")));
            }
        }
        if let Err(e) = batch_size(config) {
            problems.push(ConfigProblem::new("batch.size", e.message()));
        }
        problems
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        let paths = paths(config);
        if paths.is_empty() {
            return Err(Error::config("set 'file' or 'files' to the absolute path(s) to read"));
        }
        let tasks = (max_tasks.max(1) as usize).min(paths.len());
        Ok((0..tasks)
            .map(|t| {
                let mine: Vec<&str> = paths.iter().skip(t).step_by(tasks).map(String::as_str).collect();
                let mut task = config.clone();
                task.remove("file");
                task.with("files", mine.join(","))
            })
            .collect())
    }
}

/// One followed file.
#[derive(Debug)]
struct Tail {
    path: String,
    /// Byte position just after the last emitted line.
    position: u64,
    /// Bytes read after `position` that do not yet end in a newline.
    pending: Vec<u8>,
    /// Warned that the file is missing (cleared when it shows up).
    missing: bool,
}

impl Tail {
    fn read_pos(&self) -> u64 {
        self.position + self.pending.len() as u64
    }

    /// Move complete lines from `pending` into `batch` until it holds
    /// `limit` records, and advance this file's offset past them once: each
    /// line is copied once, and nothing is allocated or compared per line.
    fn drain_lines(&mut self, batch: &mut SourceBatch, limit: usize) {
        let mut consumed = 0;
        while batch.len() < limit {
            let rest = &self.pending[consumed..];
            let Some(newline) = rest.iter().position(|b| *b == b'\n') else {
                break;
            };
            let mut line = &rest[..newline];
            if let Some(stripped) = line.strip_suffix(b"\r") {
                line = stripped;
            }
            batch.push_ref(RecordRef {
                value: Some(line),
                ..RecordRef::default()
            });
            consumed += newline + 1;
        }
        if consumed > 0 {
            self.pending.drain(..consumed);
            self.position += consumed as u64;
            batch.advance(&self.path, self.position.to_string());
        }
    }

    /// Read and emit lines until `limit` records, end of file or an error.
    fn poll(&mut self, batch: &mut SourceBatch, limit: usize) -> Result<(), Error> {
        loop {
            self.drain_lines(batch, limit);
            if batch.len() >= limit {
                return Ok(());
            }
            match read_at(&self.path, self.read_pos()) {
                Ok(data) if data.is_empty() => return Ok(()),
                Ok(data) => {
                    if self.missing {
                        self.missing = false;
                        log::info(format!("{} now exists; reading it", self.path));
                    }
                    self.pending.extend_from_slice(&data);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound && !grants::fs_granted(&self.path) => {
                    return Err(Error::config(format!(
                        "cannot read {}: it lies outside every directory granted to the connector; \
                         add its directory to grants.fs.read in the connector config",
                        self.path
                    )));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if !self.missing {
                        self.missing = true;
                        log::warn(format!("{} does not exist (yet); will keep checking", self.path));
                    }
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                    return Err(Error::config(format!(
                        "cannot read {}: {e}; add its directory to grants.fs.read in the connector config",
                        self.path
                    )));
                }
                Err(e) => {
                    return Err(Error::retriable(format!("reading {} failed: {e}", self.path)));
                }
            }
        }
    }
}

/// A file-source task: follows its share of the files.
#[derive(Debug)]
pub struct FileSourceTask {
    files: Vec<Tail>,
    batch_size: u32,
    /// The file read first by the next poll (rotates, for fairness).
    cursor: usize,
}

impl SourceTask for FileSourceTask {
    fn start(config: Config) -> Result<Self, Error> {
        config.require("topic")?;
        let batch_size = batch_size(&config)?;
        let paths = paths(&config);
        if paths.is_empty() {
            return Err(Error::config("set 'file' or 'files' to the absolute path(s) to read"));
        }
        let committed = Self::read_offsets(&paths);
        let files = paths
            .into_iter()
            .map(|path| {
                let position = match committed.get(&path) {
                    None => 0,
                    Some(offset) => offset.trim().parse::<u64>().map_err(|e| {
                        Error::fatal(format!(
                            "committed offset '{offset}' of {path} is not a byte position: {e}"
                        ))
                    })?,
                };
                if position > 0 {
                    log::info(format!("resuming {path} at byte {position}"));
                }
                Ok(Tail {
                    path,
                    position,
                    pending: Vec::new(),
                    missing: false,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Self {
            files,
            batch_size,
            cursor: 0,
        })
    }

    fn poll_batch(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        let limit = max_records.min(self.batch_size).max(1) as usize;
        let n = self.files.len();
        for k in 0..n {
            if batch.len() >= limit {
                break;
            }
            let tail = &mut self.files[(self.cursor + k) % n];
            if let Err(e) = tail.poll(batch, limit) {
                // Lines already taken from other files must not be lost: they
                // advanced their positions. Return them; the error recurs on
                // the next poll.
                if batch.is_empty() || matches!(e, Error::Config(_)) {
                    return Err(e);
                }
                log::warn(e.message());
                break;
            }
        }
        self.cursor = (self.cursor + 1) % n.max(1);
        Ok(())
    }
}

copycat_sdk::export_source!(FileSource, FileSourceTask);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_path(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("copycat-file-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name).to_string_lossy().into_owned()
    }

    fn append(path: &str, data: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(data.as_bytes()).unwrap();
    }

    fn values(batch: &SourceBatch) -> Vec<String> {
        batch
            .iter()
            .map(|r| String::from_utf8(r.value.unwrap().to_vec()).unwrap())
            .collect()
    }

    fn poll(task: &mut FileSourceTask, max_records: u32) -> SourceBatch {
        let mut batch = SourceBatch::new();
        task.poll_batch(max_records, &mut batch).unwrap();
        batch
    }

    #[test]
    fn tails_lines_and_holds_partial_ones() {
        let path = temp_path("tail.txt");
        let _ = std::fs::remove_file(&path);
        let config = Config::new().with("topic", "t").with("file", path.as_str());
        let mut task = FileSourceTask::start(config).unwrap();
        assert!(poll(&mut task, 10).is_empty()); // missing: waits
        append(&path, "one\r\ntwo\nthr");
        let batch = poll(&mut task, 10);
        assert_eq!(values(&batch), ["one", "two"]);
        // One offset per file per batch: the byte after its last line.
        assert_eq!(batch.offset(&path), Some("9"));
        assert!(poll(&mut task, 10).is_empty());
        append(&path, "ee\nfour\n");
        let batch = poll(&mut task, 1);
        assert_eq!(values(&batch), ["three"]);
        assert_eq!(batch.offset(&path), Some("15"));
        let batch = poll(&mut task, 10);
        assert_eq!(values(&batch), ["four"]);
        assert_eq!(batch.offset(&path), Some("20"));
    }

    #[test]
    fn a_batch_takes_lines_from_every_file_and_advances_each_once() {
        let (a, b) = (temp_path("multi-a.txt"), temp_path("multi-b.txt"));
        for p in [&a, &b] {
            let _ = std::fs::remove_file(p);
        }
        append(&a, "a1\na2\n");
        append(&b, "b1\n");
        let config = Config::new().with("topic", "t").with("files", format!("{a},{b}"));
        let mut task = FileSourceTask::start(config).unwrap();
        let batch = poll(&mut task, 10);
        assert_eq!(values(&batch), ["a1", "a2", "b1"]);
        assert_eq!(batch.offset(&a), Some("6"));
        assert_eq!(batch.offset(&b), Some("3"));
    }

    #[test]
    fn spreads_files_over_tasks() {
        let config = Config::new()
            .with("topic", "t")
            .with("file", "/a")
            .with("files", "/b, /c,/a");
        let tasks = FileSource::task_configs(&config, 2).unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].get("files"), Some("/a,/c"));
        assert_eq!(tasks[1].get("files"), Some("/b"));
        assert!(tasks[0].get("file").is_none());
    }

    #[test]
    fn validate_names_keys() {
        let config = Config::new()
            .with("topic", "t")
            .with("files", "rel.txt")
            .with("batch.size", "0");
        let keys: Vec<_> = FileSource::validate(&config).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["files", "batch.size"]);
        let keys: Vec<_> = FileSource::validate(&Config::new().with("topic", "t"))
            .into_iter()
            .map(|p| p.key)
            .collect();
        assert_eq!(keys, ["file"]);
    }
}
