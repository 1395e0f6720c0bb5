//! `file-source`: a source connector that turns the lines of files into
//! records, like Kafka's `FileStreamSourceConnector`, following each file as
//! it grows (`tail -f`). Contract `copycat:connector@0.3.0`.
//!
//! * Configs: `file` (one path, as in Kafka's connector) and/or `files`
//!   (comma-separated paths), `topic` (required), `batch.size` (default
//!   2000 lines per poll), `value.format` and `value.schema` (below). Paths
//!   are absolute; their directories must be granted to the connector with
//!   `grants.fs.read` (WASI preopens, read with plain `std::fs`).
//! * Each file is the source partition `{"filename": <path>}`; a record's
//!   source offset is `{"position": <byte position just after its line>}`:
//!   Kafka Connect's FileStreamSource's own shapes. No key. Offsets
//!   committed by file-source before 0.3.0 (`"<byte>"` under the plain
//!   path) are read where no map offset exists, so an upgrade resumes.
//! * The value is the line without its `\n` (and without a `\r` before it),
//!   as `value.format` says:
//!   - `bytes` (the default): raw bytes, which reach Kafka as they are.
//!   - `string`: a STRING schema value (the line as UTF-8, invalid bytes
//!     replaced), as FileStreamSource emits it.
//!   - `line`: a struct `copycat.file.Line` of one string field `line`
//!     ([`line_schema`]).
//!   - `json`: the line parsed as JSON. With `value.schema` (a schema in
//!     Kafka Connect JsonConverter's JSON form, e.g.
//!     `{"type":"struct","fields":[{"field":"id","type":"int64"}]}`) each
//!     line is read as JsonConverter reads a payload of that schema;
//!     without it the schema is inferred from each line ([`infer`]):
//!     integers int64, other numbers float64, strings, booleans, objects
//!     structs (fields in the line's order), arrays of one element type,
//!     nulls optional. Blank lines are skipped. A line that is not JSON,
//!     or does not fit the schema, fails the task naming the file, the line
//!     number and the byte position; the lines before it are delivered.
//!
//!   Typed values are written to Kafka by the connector's `value.converter`
//!   (the default ByteArrayConverter takes bytes only).
//! * A trailing partial line is held back until its `\n` arrives. A file that
//!   does not exist yet is waited for (one warning, then silent retries).
//! * `directory` (an absolute path, granted with `grants.fs.read`): every
//!   regular file in it (names starting with `.` skipped) is read too. The
//!   connector is dynamic (`copycat:dynamic@0.1.0`): its instance lists the
//!   directory every `connector.monitor.interval.ms` and, when files came
//!   or went, asks the host for new task configs; the tasks are replaced
//!   after committing, and each file resumes from its committed position.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use copycat_data::json::{JsonConverter, Node, as_connect_schema};
use copycat_sdk::v0_3::dynamic::{self, DynamicConnector};
use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Error, Importance, OffsetMap, PayloadRef, PluginInfo, RecordRef,
    Schema, SchemaBuilder, SourceBatch, SourceTask, Struct, Type, Value, grants, log,
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

/// `directory`, if set.
fn directory(config: &Config) -> Option<&str> {
    config.get("directory").map(str::trim).filter(|s| !s.is_empty())
}

/// The regular files of `dir` (names starting with `.` skipped), sorted.
fn list_directory(dir: &str) -> io::Result<Vec<String>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.file_type()?.is_file() {
            continue;
        }
        files.push(format!("{}/{name}", dir.trim_end_matches('/')));
    }
    files.sort();
    Ok(files)
}

/// `paths` spread over at most `max_tasks` task configs (none when there
/// are no paths). A config reading one `file` (FileStreamSource's) is its
/// own task config, as in Kafka Connect.
fn spread(config: &Config, paths: &[String], max_tasks: u32) -> Vec<Config> {
    let single = config.get("file").is_some_and(|f| paths == [f.trim()]);
    if single && config.get("files").is_none() && directory(config).is_none() {
        return vec![config.clone()];
    }
    let tasks = (max_tasks.max(1) as usize).min(paths.len());
    (0..tasks)
        .map(|t| {
            let mine: Vec<&str> = paths.iter().skip(t).step_by(tasks).map(String::as_str).collect();
            let mut task = config.clone();
            task.remove("file");
            task.remove("directory");
            task.with("files", mine.join(","))
        })
        .collect()
}

fn batch_size(config: &Config) -> Result<u32, Error> {
    match config.get_parsed::<i64>("batch.size", 2000)? {
        n if n >= 1 => u32::try_from(n).map_err(|_| Error::config(format!("config 'batch.size' is too large: {n}"))),
        n => Err(Error::config(format!(
            "config 'batch.size' must be at least 1, got {n}"
        ))),
    }
}

/// The source partition of the file at `path`: `{"filename": <path>}`.
pub fn partition(path: &str) -> OffsetMap {
    OffsetMap::new().with("filename", path)
}

/// The source offset of the byte `position` after a line:
/// `{"position": <position>}`.
pub fn offset(position: u64) -> OffsetMap {
    OffsetMap::new().with("position", i64::try_from(position).unwrap_or(i64::MAX))
}

/// The schema of `value.format=line` values: a struct `copycat.file.Line`
/// of one required string field, `line`.
pub fn line_schema() -> Schema {
    SchemaBuilder::structure()
        .name("copycat.file.Line")
        .field("line", Schema::string())
        .map(SchemaBuilder::build)
        .unwrap_or_else(|_| Schema::string())
}

/// What `value.format` makes of a line.
#[derive(Debug)]
enum Format {
    Bytes,
    /// A STRING schema value.
    String(Schema),
    /// A [`line_schema`] struct.
    Line(Schema),
    /// JSON, read by `converter` under `value.schema`, or under the schema
    /// inferred from each line (the last one kept, so that equal lines
    /// share one schema).
    Json {
        schema: Option<Schema>,
        converter: JsonConverter,
        last: Option<(Shape, Schema)>,
    },
}

/// The JsonConverter that reads a line as a payload of `schema`.
fn reader(schema: Schema) -> JsonConverter {
    JsonConverter {
        schemas_enable: true,
        schema_content: Some(schema),
        ..JsonConverter::default()
    }
}

impl Format {
    fn parse(config: &Config) -> Result<Self, ConfigProblem> {
        let schema_text = config.get("value.schema").map(str::trim).filter(|s| !s.is_empty());
        let format = match config.get("value.format").map(str::trim) {
            None | Some("") => "bytes".to_owned(),
            Some(f) => f.to_ascii_lowercase(),
        };
        if schema_text.is_some() && format != "json" {
            return Err(ConfigProblem::new(
                "value.schema",
                format!("value.schema is read with value.format=json only, not {format}"),
            ));
        }
        Ok(match format.as_str() {
            "bytes" => Self::Bytes,
            "string" => Self::String(Schema::string()),
            "line" => Self::Line(line_schema()),
            "json" => {
                let schema = match schema_text {
                    None => None,
                    Some(text) => Some(parse_schema(text).map_err(|e| ConfigProblem::new("value.schema", e))?),
                };
                Self::Json {
                    converter: reader(schema.clone().unwrap_or_else(Schema::optional_string)),
                    schema,
                    last: None,
                }
            }
            other => {
                return Err(ConfigProblem::new(
                    "value.format",
                    format!("'{other}' is not one of bytes, string, line, json"),
                ));
            }
        })
    }
}

/// A schema in Kafka Connect JsonConverter's JSON form.
fn parse_schema(text: &str) -> Result<Schema, String> {
    let node = Node::parse(text.as_bytes()).map_err(|e| format!("not JSON: {e}"))?;
    match as_connect_schema(&node) {
        Ok(Some(schema)) => Ok(schema),
        Ok(None) => Err("null is not a schema".to_owned()),
        Err(e) => Err(format!("not a Kafka Connect JSON schema: {e}")),
    }
}

/// The shape of a JSON value, from which a schema is inferred.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// `null` (or an empty array's elements): an optional string.
    Null,
    Bool(bool),
    Int(bool),
    Float(bool),
    Str(bool),
    /// Elements' shape; optional.
    Array(Box<Shape>, bool),
    /// Fields in order; optional.
    Struct(Vec<(String, Shape)>, bool),
}

impl Shape {
    fn of(node: &Node) -> Result<Self, String> {
        Ok(match node {
            Node::Null => Shape::Null,
            Node::Bool(_) => Shape::Bool(false),
            Node::Number(n) if node.is_integral() && n.parse::<i64>().is_ok() => Shape::Int(false),
            Node::Number(_) => Shape::Float(false),
            Node::String(_) => Shape::Str(false),
            Node::Array(items) => {
                // No elements: an array of optional strings.
                let mut element: Option<Shape> = None;
                for (i, item) in items.iter().enumerate() {
                    let next = Shape::of(item)?;
                    element = Some(match element {
                        None => next,
                        Some(e) => e.unify(next).map_err(|(a, b)| {
                            format!("array element {i} is {b} where the elements before it are {a}; give value.schema")
                        })?,
                    });
                }
                Shape::Array(Box::new(element.unwrap_or(Shape::Null)), false)
            }
            Node::Object(fields) => Shape::Struct(
                fields
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), Shape::of(v)?)))
                    .collect::<Result<_, String>>()?,
                false,
            ),
        })
    }

    fn optional(self) -> Self {
        match self {
            Shape::Null => Shape::Null,
            Shape::Bool(_) => Shape::Bool(true),
            Shape::Int(_) => Shape::Int(true),
            Shape::Float(_) => Shape::Float(true),
            Shape::Str(_) => Shape::Str(true),
            Shape::Array(e, _) => Shape::Array(e, true),
            Shape::Struct(f, _) => Shape::Struct(f, true),
        }
    }

    fn is_optional(&self) -> bool {
        match self {
            Shape::Null => true,
            Shape::Bool(o) | Shape::Int(o) | Shape::Float(o) | Shape::Str(o) => *o,
            Shape::Array(_, o) | Shape::Struct(_, o) => *o,
        }
    }

    /// One shape for two values of an array: null makes the other optional,
    /// an integer and a float make a float, structs take every field (those
    /// in one only optional); else the two kinds' names.
    fn unify(self, other: Shape) -> Result<Shape, (&'static str, &'static str)> {
        let optional = self.is_optional() || other.is_optional();
        let shape = match (self, other) {
            (Shape::Null, s) | (s, Shape::Null) => return Ok(s.optional()),
            (Shape::Bool(_), Shape::Bool(_)) => Shape::Bool(false),
            (Shape::Int(_), Shape::Int(_)) => Shape::Int(false),
            (Shape::Int(_) | Shape::Float(_), Shape::Int(_) | Shape::Float(_)) => Shape::Float(false),
            (Shape::Str(_), Shape::Str(_)) => Shape::Str(false),
            (Shape::Array(a, _), Shape::Array(b, _)) => Shape::Array(Box::new(a.unify(*b)?), false),
            (Shape::Struct(a, _), Shape::Struct(mut b, _)) => {
                let mut fields = Vec::with_capacity(a.len().max(b.len()));
                for (name, shape) in a {
                    match b.iter().position(|(n, _)| *n == name) {
                        Some(i) => {
                            let (_, other) = b.remove(i);
                            fields.push((name, shape.unify(other)?));
                        }
                        None => fields.push((name, shape.optional())),
                    }
                }
                fields.extend(b.into_iter().map(|(n, s)| (n, s.optional())));
                Shape::Struct(fields, false)
            }
            (a, b) => return Err((a.kind(), b.kind())),
        };
        Ok(if optional { shape.optional() } else { shape })
    }

    fn kind(&self) -> &'static str {
        match self {
            Shape::Null => "null",
            Shape::Bool(_) => "a boolean",
            Shape::Int(_) | Shape::Float(_) => "a number",
            Shape::Str(_) => "a string",
            Shape::Array(..) => "an array",
            Shape::Struct(..) => "an object",
        }
    }

    fn schema(&self) -> Result<Schema, String> {
        let builder = match self {
            Shape::Null => return Ok(Schema::optional_string()),
            Shape::Bool(_) => SchemaBuilder::new(Type::Boolean),
            Shape::Int(_) => SchemaBuilder::new(Type::Int64),
            Shape::Float(_) => SchemaBuilder::new(Type::Float64),
            Shape::Str(_) => SchemaBuilder::new(Type::String),
            Shape::Array(e, _) => SchemaBuilder::array(e.schema()?),
            Shape::Struct(fields, _) => {
                let mut b = SchemaBuilder::structure();
                for (name, shape) in fields {
                    b = b.field(name.clone(), shape.schema()?).map_err(|e| e.0)?;
                }
                b
            }
        };
        let builder = if self.is_optional() {
            builder.optional()
        } else {
            builder
        };
        Ok(builder.build())
    }
}

/// The schema `value.format=json` infers from a JSON value without
/// `value.schema`: integers (that fit 64 bits) int64, other numbers
/// float64, strings, booleans, objects structs (fields in order, no name),
/// arrays of one element type (nulls among them make it optional; integers
/// and other numbers together float64; objects together a struct of every
/// field, those missing from some optional), null an optional string.
/// An array whose elements are of different kinds has no schema.
pub fn infer(json: &[u8]) -> Result<Schema, String> {
    let node = Node::parse(json).map_err(|e| e.0)?;
    Shape::of(&node)?.schema()
}

/// A JSON line's schema and value, as `value.format=json` reads it: under
/// `schema` if given, else under [`infer`]'s.
pub fn json_value(line: &[u8], schema: Option<&Schema>) -> Result<(Schema, Value), String> {
    let schema = match schema {
        Some(s) => s.clone(),
        None => infer(line)?,
    };
    let (_, value) = reader(schema.clone()).to_connect(Some(line)).map_err(|e| e.0)?;
    Ok((schema, value))
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
            .config(ConfigKey::string("directory").importance(Importance::High).doc(
                "Absolute path of a directory whose files are all read (names starting with '.' \
                 skipped); files that appear later are picked up within connector.monitor.interval.ms. \
                 Grant it with grants.fs.read",
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
            .config(ConfigKey::string("value.format").default_value("bytes").doc(
                "What a line's value is: bytes (raw, as read), string (a STRING schema value, as \
                 FileStreamSource emits it), line (a struct copycat.file.Line of one string field \
                 'line') or json (the line parsed as JSON: under value.schema if set, else under a \
                 schema inferred from the line; blank lines skipped; a line that is not JSON fails \
                 the task naming the file and line). Typed values are written by value.converter",
            ))
            .config(ConfigKey::string("value.schema").doc(
                "value.format=json: the schema of every line, in Kafka Connect JsonConverter's \
                 JSON form, e.g. {\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int64\"}]}; \
                 unset: inferred from each line (integers int64, other numbers float64, objects \
                 structs, nulls optional)",
            ))
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        if paths(config).is_empty() && directory(config).is_none() {
            problems.push(ConfigProblem::new(
                "file",
                "set 'file', 'files' or 'directory' to the absolute path(s) to read",
            ));
        }
        if let Some(dir) = directory(config)
            && !dir.starts_with('/')
        {
            problems.push(ConfigProblem::new(
                "directory",
                format!("'{dir}' is not an absolute path"),
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
        if let Err(p) = Format::parse(config) {
            problems.push(p);
        }
        problems
    }

    // The host asks the running instance (below); this answers for hosts
    // that run no dynamic connector instance (a `directory` needs one).
    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        let paths = paths(config);
        if paths.is_empty() {
            return Err(Error::config("set 'file' or 'files' to the absolute path(s) to read"));
        }
        Ok(spread(config, &paths, max_tasks))
    }
}

/// The running connector instance: watches `directory`, if set.
pub struct FileSourceInstance {
    config: Config,
    directory: Option<String>,
    /// The directory's files at the last look.
    listed: Vec<String>,
}

impl FileSourceInstance {
    fn list(&self) -> Result<Vec<String>, Error> {
        match &self.directory {
            None => Ok(Vec::new()),
            Some(dir) => list_directory(dir).map_err(|e| {
                Error::retriable(format!(
                    "cannot list directory {dir} (is it granted with grants.fs.read?): {e}"
                ))
            }),
        }
    }
}

impl DynamicConnector for FileSourceInstance {
    fn start(config: Config) -> Result<Self, Error> {
        let directory = directory(&config).map(str::to_owned);
        let mut instance = Self {
            config,
            directory,
            listed: Vec::new(),
        };
        instance.listed = instance.list().map_err(|e| Error::config(e.message()))?;
        Ok(instance)
    }

    fn watches(&self) -> bool {
        self.directory.is_some()
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>, Error> {
        let mut all = paths(&self.config);
        for f in &self.listed {
            if !all.contains(f) {
                all.push(f.clone());
            }
        }
        if all.is_empty() && self.directory.is_none() {
            return Err(Error::config(
                "set 'file', 'files' or 'directory' to the absolute path(s) to read",
            ));
        }
        Ok(spread(&self.config, &all, max_tasks))
    }

    fn monitor(&mut self) -> Result<(), Error> {
        let now = self.list()?;
        if now != self.listed {
            log::info(format!(
                "{}: {} files now (were {}); asking for new task configs",
                self.directory.as_deref().unwrap_or_default(),
                now.len(),
                self.listed.len()
            ));
            self.listed = now;
            dynamic::request_task_reconfiguration();
        }
        Ok(())
    }
}

/// One followed file.
#[derive(Debug)]
struct Tail {
    path: String,
    /// `{"filename": <path>}`.
    partition: OffsetMap,
    /// Byte position just after the last emitted line.
    position: u64,
    /// Bytes read after `position` that do not yet end in a newline.
    pending: Vec<u8>,
    /// Warned that the file is missing (cleared when it shows up).
    missing: bool,
}

/// The line number (from 1) of the line starting at byte `start` of
/// `path`: one more than the newlines before it (read only when a line
/// fails, so offsets need not carry it).
fn line_number(path: &str, start: u64) -> Option<u64> {
    let mut file = File::open(path).ok()?.take(start);
    let mut buf = vec![0; CHUNK as usize];
    let mut newlines = 0u64;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Some(newlines + 1),
            Ok(n) => newlines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

impl Tail {
    fn read_pos(&self) -> u64 {
        self.position + self.pending.len() as u64
    }

    /// Move complete lines from `pending` into `batch` until it holds
    /// `limit` records, and advance this file's offset past them once: in
    /// bytes mode each line is copied once, and nothing is allocated or
    /// compared per line. A line `format` cannot read stops the batch
    /// there: the lines before it are kept and their offset advanced, and
    /// the error names the file, the line number and its byte position.
    fn drain_lines(&mut self, batch: &mut SourceBatch, limit: usize, format: &mut Format) -> Result<(), Error> {
        let mut consumed = 0;
        let mut failed = None;
        while batch.len() < limit {
            let rest = &self.pending[consumed..];
            let Some(newline) = rest.iter().position(|b| *b == b'\n') else {
                break;
            };
            let mut line = &rest[..newline];
            if let Some(stripped) = line.strip_suffix(b"\r") {
                line = stripped;
            }
            if let Err(why) = push_line(batch, line, format) {
                failed = Some(why);
                break;
            }
            consumed += newline + 1;
        }
        if consumed > 0 {
            self.pending.drain(..consumed);
            self.position += consumed as u64;
            batch.advance(&self.partition, &offset(self.position))?;
        }
        match failed {
            None => Ok(()),
            Some(why) => {
                let line = line_number(&self.path, self.position).map_or_else(String::new, |n| format!("line {n}, "));
                Err(Error::fatal(format!(
                    "{}: {line}byte {}: {why}",
                    self.path, self.position
                )))
            }
        }
    }

    /// Read and emit lines until `limit` records, end of file or an error.
    fn poll(&mut self, batch: &mut SourceBatch, limit: usize, format: &mut Format) -> Result<(), Error> {
        loop {
            self.drain_lines(batch, limit, format)?;
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

/// Push one line (without its line end) as `format` makes it; why not, if
/// it cannot.
fn push_line(batch: &mut SourceBatch, line: &[u8], format: &mut Format) -> Result<(), String> {
    let pushed = match format {
        Format::Bytes => batch.push_ref(RecordRef {
            value: PayloadRef::Bytes(line),
            ..RecordRef::default()
        }),
        Format::String(schema) => {
            let value = Value::String(String::from_utf8_lossy(line).into_owned());
            batch.push_ref(RecordRef {
                value: PayloadRef::Typed(schema, &value),
                ..RecordRef::default()
            })
        }
        Format::Line(schema) => {
            let text = Value::String(String::from_utf8_lossy(line).into_owned());
            let value = Struct::with_values(schema, vec![text]).map_err(|e| e.0)?;
            batch.push_ref(RecordRef {
                value: PayloadRef::Typed(schema, &Value::Struct(value)),
                ..RecordRef::default()
            })
        }
        Format::Json {
            schema,
            converter,
            last,
        } => {
            if line.iter().all(u8::is_ascii_whitespace) {
                return Ok(());
            }
            let (schema, value) = match schema {
                Some(schema) => {
                    let (_, value) = converter
                        .to_connect(Some(line))
                        .map_err(|e| format!("does not fit value.schema: {e}"))?;
                    (schema.clone(), value)
                }
                None => {
                    let node = Node::parse(line).map_err(|e| format!("not JSON: {e}"))?;
                    let shape = Shape::of(&node)?;
                    let schema = match last {
                        Some((s, schema)) if *s == shape => schema.clone(),
                        _ => {
                            let schema = shape.schema()?;
                            *last = Some((shape, schema.clone()));
                            schema
                        }
                    };
                    let (_, value) = reader(schema.clone())
                        .to_connect(Some(line))
                        .map_err(|e| format!("not JSON: {e}"))?;
                    (schema, value)
                }
            };
            batch.push_ref(RecordRef {
                value: PayloadRef::Typed(&schema, &value),
                ..RecordRef::default()
            })
        }
    };
    pushed.map_err(|e| e.message().to_owned())
}

/// A file-source task: follows its share of the files.
#[derive(Debug)]
pub struct FileSourceTask {
    files: Vec<Tail>,
    batch_size: u32,
    format: Format,
    /// The file read first by the next poll (rotates, for fairness).
    cursor: usize,
}

impl SourceTask for FileSourceTask {
    fn start(config: Config) -> Result<Self, Error> {
        config.require("topic")?;
        let batch_size = batch_size(&config)?;
        let format = Format::parse(&config).map_err(|p| Error::config(format!("config '{}': {}", p.key, p.message)))?;
        let paths = paths(&config);
        if paths.is_empty() {
            return Err(Error::config("set 'file' or 'files' to the absolute path(s) to read"));
        }
        let partitions: Vec<OffsetMap> = paths.iter().map(|p| partition(p)).collect();
        let committed = Self::read_offsets(&partitions)?;
        // file-source before 0.3.0 committed `"<byte>"` under the path.
        let legacy = match committed.len() < partitions.len() {
            true => Self::read_legacy_offsets(&paths.iter().map(String::as_str).collect::<Vec<_>>()),
            false => Default::default(),
        };
        let files = paths
            .into_iter()
            .zip(partitions)
            .map(|(path, partition)| {
                let position = match committed.get(&partition) {
                    None => match legacy.get(&path) {
                        None => 0,
                        Some(offset) => offset.trim().parse::<u64>().map_err(|e| {
                            Error::fatal(format!(
                                "committed offset '{offset}' of {path} (file-source before 0.3.0) \
                                 is not a byte position: {e}"
                            ))
                        })?,
                    },
                    Some(offset) => offset
                        .get_i64("position")
                        .and_then(|p| u64::try_from(p).ok())
                        .ok_or_else(|| {
                            Error::fatal(format!(
                                "committed offset {} of {path} has no byte position \
                                 (expected {{\"position\": <n>}}, n >= 0)",
                                offset.to_json().unwrap_or_default()
                            ))
                        })?,
                };
                if position > 0 {
                    log::info(format!("resuming {path} at byte {position}"));
                }
                Ok(Tail {
                    path,
                    partition,
                    position,
                    pending: Vec::new(),
                    missing: false,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Self {
            files,
            batch_size,
            format,
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
            if let Err(e) = tail.poll(batch, limit, &mut self.format) {
                // Lines already taken (from other files, or before a line
                // that cannot be read) must not be lost: they advanced their
                // positions. Return them; the error recurs on the next poll.
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

copycat_sdk::v0_3::export_source!(FileSource, FileSourceTask);
copycat_sdk::v0_3::export_dynamic!(FileSourceInstance);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use copycat_sdk::v0_3::{Payload, logical};
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
            .to_sink_batch()
            .iter()
            .map(|r| String::from_utf8(r.value.as_bytes().unwrap().to_vec()).unwrap())
            .collect()
    }

    fn typed(batch: &SourceBatch) -> Vec<Payload> {
        batch
            .to_sink_batch()
            .to_records()
            .unwrap()
            .into_iter()
            .map(|r| r.value)
            .collect()
    }

    fn poll(task: &mut FileSourceTask, max_records: u32) -> SourceBatch {
        let mut batch = SourceBatch::new();
        task.poll_batch(max_records, &mut batch).unwrap();
        batch
    }

    fn task(path: &str, pairs: &[(&str, &str)]) -> FileSourceTask {
        let config: Config = pairs.iter().copied().collect();
        FileSourceTask::start(config.with("topic", "t").with("file", path)).unwrap()
    }

    fn fresh(name: &str, data: &str) -> String {
        let path = temp_path(name);
        let _ = std::fs::remove_file(&path);
        append(&path, data);
        path
    }

    #[test]
    fn tails_lines_and_holds_partial_ones() {
        let path = temp_path("tail.txt");
        let _ = std::fs::remove_file(&path);
        let mut task = task(&path, &[]);
        assert!(poll(&mut task, 10).is_empty()); // missing: waits
        append(&path, "one\r\ntwo\nthr");
        let batch = poll(&mut task, 10);
        assert_eq!(values(&batch), ["one", "two"]);
        // One offset per file per batch: the byte after its last line, in
        // FileStreamSource's shapes.
        assert_eq!(batch.offset(&partition(&path)), Some(offset(9)));
        assert_eq!(
            (partition("/a").to_json().unwrap(), offset(9).to_json().unwrap()),
            (r#"{"filename":"/a"}"#.to_owned(), r#"{"position":9}"#.to_owned())
        );
        assert!(poll(&mut task, 10).is_empty());
        append(&path, "ee\nfour\n");
        let batch = poll(&mut task, 1);
        assert_eq!(values(&batch), ["three"]);
        assert_eq!(batch.offset(&partition(&path)), Some(offset(15)));
        let batch = poll(&mut task, 10);
        assert_eq!(values(&batch), ["four"]);
        assert_eq!(batch.offset(&partition(&path)), Some(offset(20)));
    }

    #[test]
    fn a_batch_takes_lines_from_every_file_and_advances_each_once() {
        let (a, b) = (fresh("multi-a.txt", "a1\na2\n"), fresh("multi-b.txt", "b1\n"));
        let config = Config::new().with("topic", "t").with("files", format!("{a},{b}"));
        let mut task = FileSourceTask::start(config).unwrap();
        let batch = poll(&mut task, 10);
        assert_eq!(values(&batch), ["a1", "a2", "b1"]);
        assert_eq!(batch.offset(&partition(&a)), Some(offset(6)));
        assert_eq!(batch.offset(&partition(&b)), Some(offset(3)));
    }

    #[test]
    fn string_and_line_formats_type_each_line() {
        let path = fresh("string.txt", "héllo\n\nworld\r\n");
        let mut t = task(&path, &[("value.format", "string")]);
        let batch = poll(&mut t, 10);
        let s = |v: &str| Payload::Typed(Schema::string(), Value::from(v));
        assert_eq!(typed(&batch), [s("héllo"), s(""), s("world")]);
        assert_eq!(batch.offset(&partition(&path)), Some(offset(15)));

        let mut t = task(&path, &[("value.format", "LINE")]);
        let line = |v: &str| {
            let st = Struct::new(&line_schema()).unwrap().put("line", v).unwrap();
            Payload::Typed(line_schema(), Value::Struct(st))
        };
        assert_eq!(typed(&poll(&mut t, 10)), [line("héllo"), line(""), line("world")]);
        assert_eq!(line_schema().name(), Some("copycat.file.Line"));
    }

    #[test]
    fn json_lines_get_an_inferred_schema() {
        let path = fresh(
            "infer.jsonl",
            concat!(
                r#"{"id":1,"name":"a","price":2.5,"ok":true,"tags":["x","y"],"nested":{"n":-3},"none":null}"#,
                "\n\n",
                r#"[1, 2.5, null]"#,
                "\n",
                r#"[{"a":1},{"b":"x","a":2}]"#,
                "\n",
                "\"just a string\"\n"
            ),
        );
        let mut t = task(&path, &[("value.format", "json")]);
        let got = typed(&poll(&mut t, 10));
        assert_eq!(got.len(), 4, "the blank line is skipped: {got:?}");
        let nested = SchemaBuilder::structure().field("n", Schema::int64()).unwrap().build();
        let schema = SchemaBuilder::structure()
            .field("id", Schema::int64())
            .unwrap()
            .field("name", Schema::string())
            .unwrap()
            .field("price", Schema::float64())
            .unwrap()
            .field("ok", Schema::boolean())
            .unwrap()
            .field("tags", SchemaBuilder::array(Schema::string()).build())
            .unwrap()
            .field("nested", nested.clone())
            .unwrap()
            .field("none", Schema::optional_string())
            .unwrap()
            .build();
        let value = Struct::new(&schema)
            .unwrap()
            .put("id", 1i64)
            .unwrap()
            .put("name", "a")
            .unwrap()
            .put("price", 2.5)
            .unwrap()
            .put("ok", true)
            .unwrap()
            .put("tags", Value::Array(vec![Value::from("x"), Value::from("y")]))
            .unwrap()
            .put("nested", Struct::new(&nested).unwrap().put("n", -3i64).unwrap())
            .unwrap();
        assert_eq!(got[0], Payload::Typed(schema, Value::Struct(value)));
        // Integers and other numbers together: float64; a null: optional.
        assert_eq!(
            got[1],
            Payload::Typed(
                SchemaBuilder::array(Schema::optional_float64()).build(),
                Value::Array(vec![Value::Float64(1.0), Value::Float64(2.5), Value::Null])
            )
        );
        // Objects together: every field, those not in all optional.
        let element = SchemaBuilder::structure()
            .field("a", Schema::int64())
            .unwrap()
            .field("b", Schema::optional_string())
            .unwrap()
            .build();
        let Payload::Typed(s, Value::Array(items)) = &got[2] else {
            panic!("{:?}", got[2])
        };
        assert_eq!(s, &SchemaBuilder::array(element.clone()).build());
        let Value::Struct(first) = &items[0] else { panic!() };
        assert_eq!(
            (first.get("a"), first.get("b")),
            (Some(&Value::Int64(1)), Some(&Value::Null))
        );
        assert_eq!(got[3], Payload::Typed(Schema::string(), Value::from("just a string")));
        assert_eq!(
            infer(br#"[1, "a"]"#).unwrap_err(),
            "array element 1 is a string where the elements before it are a number; give value.schema"
        );
    }

    #[test]
    fn json_lines_read_under_a_given_schema() {
        let schema_json = r#"{"type":"struct","name":"com.example.Order","fields":[
            {"field":"id","type":"int64"},
            {"field":"amount","type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},
            {"field":"note","type":"string","optional":true}]}"#;
        let path = fresh(
            "schema.jsonl",
            "{\"id\":7,\"amount\":12.50}\n{\"id\":8,\"amount\":1.00,\"note\":\"n\"}\n",
        );
        let mut t = task(&path, &[("value.format", "json"), ("value.schema", schema_json)]);
        let got = typed(&poll(&mut t, 10));
        let schema = SchemaBuilder::structure()
            .name("com.example.Order")
            .field("id", Schema::int64())
            .unwrap()
            .field("amount", logical::decimal(2).build())
            .unwrap()
            .field("note", Schema::optional_string())
            .unwrap()
            .build();
        let Payload::Typed(s, Value::Struct(v)) = &got[0] else {
            panic!("{:?}", got[0])
        };
        assert_eq!(s, &schema);
        assert_eq!(v.get("id"), Some(&Value::Int64(7)));
        assert_eq!(
            v.get("amount"),
            Some(&Value::Decimal {
                unscaled: 1250.into(),
                scale: 2
            })
        );
        assert_eq!(v.get("note"), Some(&Value::Null));
        let Payload::Typed(_, Value::Struct(v)) = &got[1] else {
            panic!()
        };
        assert_eq!(v.get("note"), Some(&Value::from("n")));

        // A line without a required field does not fit: named by file and line.
        append(&path, "{\"note\":\"no id\"}\n");
        let mut batch = SourceBatch::new();
        let e = t.poll_batch(10, &mut batch).unwrap_err().to_string();
        assert!(
            e.contains(&path) && e.contains("line 3") && e.contains("value.schema"),
            "{e}"
        );
    }

    #[test]
    fn a_line_that_is_not_json_fails_naming_the_file_and_line_after_the_lines_before_it() {
        let path = fresh("bad.jsonl", "{\"a\":1}\n{\"a\":2}\n{oops\n{\"a\":4}\n");
        let mut t = task(&path, &[("value.format", "json")]);
        // The good lines first, their offset advanced up to the bad line.
        let batch = poll(&mut t, 10);
        assert_eq!(batch.len(), 2);
        assert_eq!(batch.offset(&partition(&path)), Some(offset(16)));
        let mut batch = SourceBatch::new();
        let e = t.poll_batch(10, &mut batch).unwrap_err();
        assert!(matches!(e, Error::Fatal(_)), "{e:?}");
        let e = e.to_string();
        assert!(e.contains(&format!("{path}: line 3, byte 16: not JSON")), "{e}");
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
    fn one_file_is_its_own_task_config_as_in_kafka_connect() {
        let config = Config::new()
            .with("topic", "t")
            .with("file", "/a")
            .with("batch.size", "10");
        let tasks = FileSource::task_configs(&config, 3).unwrap();
        assert_eq!(tasks, vec![config]);
    }

    #[test]
    fn the_instance_watches_a_directory_and_asks_again_when_files_come_or_go() {
        let dir = temp_path("watched");
        std::fs::create_dir_all(&dir).unwrap();
        append(&format!("{dir}/b.log"), "x\n");
        append(&format!("{dir}/.hidden"), "x\n");
        let config = Config::new()
            .with("topic", "t")
            .with("file", "/fixed")
            .with("directory", dir.as_str());
        let mut instance = FileSourceInstance::start(config).unwrap();
        assert!(instance.watches());
        let tasks = instance.task_configs(4).unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].get("files"), Some("/fixed"));
        assert_eq!(tasks[1].get("files"), Some(format!("{dir}/b.log").as_str()));
        assert!(tasks[0].get("directory").is_none());
        instance.monitor().unwrap();
        assert!(!dynamic::take_requests().reconfigure, "nothing changed");
        append(&format!("{dir}/a.log"), "y\n");
        instance.monitor().unwrap();
        assert!(dynamic::take_requests().reconfigure);
        let tasks = instance.task_configs(2).unwrap();
        assert_eq!(tasks[0].get("files"), Some(format!("/fixed,{dir}/b.log").as_str()));
        assert_eq!(tasks[1].get("files"), Some(format!("{dir}/a.log").as_str()));
        std::fs::remove_file(format!("{dir}/a.log")).unwrap();
        instance.monitor().unwrap();
        assert!(dynamic::take_requests().reconfigure, "a file went");
        let fixed = FileSourceInstance::start(Config::new().with("topic", "t").with("file", "/fixed")).unwrap();
        assert!(!fixed.watches(), "a fixed list watches nothing");
        let missing = FileSourceInstance::start(Config::new().with("topic", "t").with("directory", "/no/such/dir"));
        assert!(missing.is_err_and(|e| e.message().contains("/no/such/dir")));
    }

    #[test]
    fn validate_names_keys() {
        let config = Config::new()
            .with("topic", "t")
            .with("files", "rel.txt")
            .with("batch.size", "0")
            .with("value.format", "xml");
        let problems = FileSource::validate(&config);
        let keys: Vec<_> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["files", "batch.size", "value.format"]);
        assert!(
            problems[2]
                .message
                .contains("'xml' is not one of bytes, string, line, json")
        );
        let keys: Vec<_> = FileSource::validate(&Config::new().with("topic", "t"))
            .into_iter()
            .map(|p| p.key)
            .collect();
        assert_eq!(keys, ["file"]);
        let bad_schema = Config::new()
            .with("file", "/a")
            .with("value.format", "json")
            .with("value.schema", r#"{"type":"nope"}"#);
        let problems = FileSource::validate(&bad_schema);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "value.schema");
        assert!(
            problems[0].message.contains("Unknown schema type: nope"),
            "{}",
            problems[0].message
        );
        let misplaced = Config::new()
            .with("file", "/a")
            .with("value.schema", r#"{"type":"string"}"#);
        assert_eq!(FileSource::validate(&misplaced)[0].key, "value.schema");
        let e = FileSourceTask::start(
            Config::new()
                .with("topic", "t")
                .with("file", "/a")
                .with("value.format", "xml"),
        )
        .unwrap_err();
        assert!(e.message().contains("value.format"), "{e}");
    }
}
