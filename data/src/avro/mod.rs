//! Confluent's `io.confluent.connect.avro.AvroConverter`: Connect values to
//! Avro in Confluent's wire format (magic byte 0, the schema id as 4 bytes
//! big-endian, the Avro binary encoding) with the schema in a schema
//! registry speaking Confluent's REST API, and back.
//!
//! Schemas translate as Confluent's AvroData translates them
//! ([`schema`]); Avro schemas are parsed and values encoded and decoded by
//! the `apache-avro` crate; the registry client ([`registry`]) is blocking
//! (ureq over rustls), with Confluent's caches, retries and fail-over.
//!
//! Settings are the ones Confluent's converter takes, without the
//! `key.converter.` / `value.converter.` prefix ([`AvroConverterConfig`]).
//! Where Copycat differs from Confluent's converter:
//! - an unknown setting, or a known one Copycat does not implement with a
//!   value other than its default, is an error naming the key (Confluent's
//!   converter ignores unknown keys);
//! - with `use.latest.version`, a value is converted with its own schema
//!   and then resolved (Avro schema resolution: defaults filled, fields
//!   matched by name) to the latest version before it is written;
//!   Confluent's writes the record it built with the latest schema's
//!   writer, which matches fields by position;
//! - the entries of an Avro map are written in the order of
//!   `apache-avro`'s hash map (Java's converter: Java's `HashMap` order),
//!   and read back sorted by key; other bytes are Java's;
//! - a recursive Avro record (one that contains itself) is refused on
//!   read: Copycat's schemas are trees.

pub mod container;
mod data;
mod encode;
pub mod registry;
pub mod schema;
pub mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::types::Value as Av;
use apache_avro::writer::datum::GenericDatumWriter;

use self::registry::RegistrySettings;
pub use self::registry::{RegistryClient, RegistryError, SubjectVersion};
use self::schema::{Avro, Prim, Tree};
pub use self::schema::{AvroData, AvroDataConfig};
use crate::{DataError, Schema, Value};

/// An error of the Avro converter. [`AvroError::is_retriable`] tells a
/// registry that could not be reached (try again later) from an error of
/// the record or of the settings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AvroError {
    /// A setting is unknown, unsupported or invalid.
    #[error("{key}: {message}")]
    Config {
        /// The setting's key.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// The value does not fit its schema, or the bytes are not a value.
    #[error("{0}")]
    Data(String),
    /// The registry refused a new version of a subject as incompatible
    /// with the earlier ones (HTTP 409).
    #[error("Schema being registered is incompatible with an earlier schema for subject \"{subject}\": {reason}")]
    Incompatible {
        /// The subject.
        subject: String,
        /// The registry's reason.
        reason: String,
    },
    /// A value names a schema id the registry does not know.
    #[error("Schema id {id} is not in the schema registry at {url}: {message}")]
    UnknownSchemaId {
        /// The id in the value.
        id: u32,
        /// The registry asked.
        url: String,
        /// The registry's answer.
        message: String,
    },
    /// The registry refused a call (other than the cases above).
    #[error("{context}: {source}")]
    Registry {
        /// What the converter was doing.
        context: String,
        /// The registry's answer.
        source: RegistryError,
    },
    /// The registry could not be reached or answered that it could not
    /// serve the call now (timeouts, 408, 429, 5xx): retriable.
    #[error("{context}: {source}")]
    Unavailable {
        /// What the converter was doing.
        context: String,
        /// Why.
        source: RegistryError,
    },
}

impl AvroError {
    /// Whether the same call may succeed later (the registry was down).
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Unavailable { .. })
    }
}

impl From<DataError> for AvroError {
    fn from(e: DataError) -> Self {
        Self::Data(e.0)
    }
}

/// A secret setting: shown as `[hidden]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// The secret.
    pub fn value(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[hidden]")
    }
}

/// How a record's subject is named (`key.subject.name.strategy`,
/// `value.subject.name.strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubjectNameStrategy {
    /// `<topic>-key` / `<topic>-value` (the default).
    #[default]
    TopicName,
    /// The record's full name.
    RecordName,
    /// `<topic>-<record full name>`.
    TopicRecordName,
}

impl SubjectNameStrategy {
    /// The strategy a setting names: Confluent's class name or its simple name.
    pub fn from_setting(s: &str) -> Option<Self> {
        let simple = s
            .trim()
            .strip_prefix("io.confluent.kafka.serializers.subject.")
            .unwrap_or(s.trim());
        Some(match simple {
            "TopicNameStrategy" => Self::TopicName,
            "RecordNameStrategy" => Self::RecordName,
            "TopicRecordNameStrategy" => Self::TopicRecordName,
            _ => return None,
        })
    }

    /// Confluent's class name.
    pub fn class_name(self) -> &'static str {
        match self {
            Self::TopicName => "io.confluent.kafka.serializers.subject.TopicNameStrategy",
            Self::RecordName => "io.confluent.kafka.serializers.subject.RecordNameStrategy",
            Self::TopicRecordName => "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
        }
    }

    /// The subject of a key (`is_key`) or value of `topic` whose Avro
    /// schema is a record named `record` (`None`: not a record).
    pub fn subject(self, topic: &str, is_key: bool, record: Option<&str>) -> Result<String, AvroError> {
        let record_name = || {
            record.ok_or_else(|| {
                let (setting, what) = if is_key {
                    ("key.subject.name.strategy", "key")
                } else {
                    ("value.subject.name.strategy", "value")
                };
                AvroError::Data(format!(
                    "In configuration {setting} = {}, the message {what} must only be a record schema",
                    self.class_name()
                ))
            })
        };
        Ok(match self {
            Self::TopicName => format!("{topic}-{}", if is_key { "key" } else { "value" }),
            Self::RecordName => record_name()?.to_owned(),
            Self::TopicRecordName => format!("{topic}-{}", record_name()?),
        })
    }
}

/// Where the registry's basic-auth credentials come from
/// (`basic.auth.credentials.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CredentialsSource {
    /// The user info of `schema.registry.url` (`http://user:pass@host`), the default.
    #[default]
    Url,
    /// `basic.auth.user.info`.
    UserInfo,
}

/// The converter's settings, as Confluent's `AvroConverterConfig` (the
/// serializer's, the deserializer's and AvroData's) takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct AvroConverterConfig {
    /// `schema.registry.url`: a comma-separated list (required).
    pub schema_registry_urls: Vec<String>,
    /// `auto.register.schemas` (default true).
    pub auto_register_schemas: bool,
    /// `use.latest.version` (default false): write (and read) with the
    /// subject's latest version.
    pub use_latest_version: bool,
    /// `latest.compatibility.strict` (default true): with
    /// `use.latest.version`, the latest version must be able to read data
    /// written with the value's own schema.
    pub latest_compatibility_strict: bool,
    /// `key.subject.name.strategy`.
    pub key_subject_name_strategy: SubjectNameStrategy,
    /// `value.subject.name.strategy`.
    pub value_subject_name_strategy: SubjectNameStrategy,
    /// `basic.auth.credentials.source` (URL or USER_INFO).
    pub basic_auth_credentials_source: CredentialsSource,
    /// `basic.auth.user.info` (or `schema.registry.basic.auth.user.info`):
    /// `user:password`.
    pub basic_auth_user_info: Option<Password>,
    /// `http.connect.timeout.ms` (default 60000).
    pub http_connect_timeout: Duration,
    /// `http.read.timeout.ms` (default 60000).
    pub http_read_timeout: Duration,
    /// `max.retries` (default 3): retries of a call the registry could not serve.
    pub max_retries: u32,
    /// `retries.wait.ms` (default 1000): the first wait, doubled each retry.
    pub retries_wait: Duration,
    /// `retries.max.wait.ms` (default 20000).
    pub retries_max_wait: Duration,
    /// `latest.cache.ttl.sec` (default -1: kept until restart).
    pub latest_cache_ttl: Option<Duration>,
    /// `schemas.cache.config` (default 1000): schemas translated and kept.
    pub schemas_cache_size: usize,
    /// `avro.fail.on.trailing.data` (default false).
    pub fail_on_trailing_data: bool,
    /// AvroData's settings.
    pub data: AvroDataConfig,
}

impl Default for AvroConverterConfig {
    fn default() -> Self {
        Self {
            schema_registry_urls: Vec::new(),
            auto_register_schemas: true,
            use_latest_version: false,
            latest_compatibility_strict: true,
            key_subject_name_strategy: SubjectNameStrategy::TopicName,
            value_subject_name_strategy: SubjectNameStrategy::TopicName,
            basic_auth_credentials_source: CredentialsSource::Url,
            basic_auth_user_info: None,
            http_connect_timeout: Duration::from_millis(60_000),
            http_read_timeout: Duration::from_millis(60_000),
            max_retries: 3,
            retries_wait: Duration::from_millis(1000),
            retries_max_wait: Duration::from_millis(20_000),
            latest_cache_ttl: None,
            schemas_cache_size: 1000,
            fail_on_trailing_data: false,
            data: AvroDataConfig::default(),
        }
    }
}

fn config_err(key: &str, message: impl Into<String>) -> AvroError {
    AvroError::Config {
        key: key.to_owned(),
        message: message.into(),
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool, AvroError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(config_err(
            key,
            format!("Expected value to be either true or false, was {v}"),
        )),
    }
}

fn parse_int(key: &str, v: &str) -> Result<i64, AvroError> {
    v.trim()
        .parse::<i32>()
        .map(i64::from)
        .map_err(|_| config_err(key, format!("Not a number of type INT: {v}")))
}

fn parse_millis(key: &str, v: &str) -> Result<Duration, AvroError> {
    let ms = parse_int(key, v)?;
    u64::try_from(ms)
        .map(Duration::from_millis)
        .map_err(|_| config_err(key, format!("must be at least 0, was {v}")))
}

/// Confluent settings Copycat accepts only at their default (the value
/// that leaves the behaviour as implemented); anything else is an error.
const ONLY_DEFAULT: &[(&str, &str)] = &[
    ("generalized.sum.type.support", "false"),
    ("discard.type.doc.default", "false"),
    ("normalize.schemas", "false"),
    ("propagate.schema.tags", "false"),
    ("use.schema.id", "-1"),
    ("use.schema.guid", ""),
    ("use.latest.with.metadata", ""),
    ("avro.remove.java.properties", "false"),
    ("schema.reflection", "false"),
    ("proxy.host", ""),
    ("proxy.port", "-1"),
    ("bearer.auth.token", ""),
    (
        "context.name.strategy",
        "io.confluent.kafka.serializers.context.NullContextNameStrategy",
    ),
    (
        "key.schema.id.serializer",
        "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdSerializer",
    ),
    (
        "value.schema.id.serializer",
        "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdSerializer",
    ),
    (
        "key.schema.id.deserializer",
        "io.confluent.kafka.serializers.schema.id.DualSchemaIdDeserializer",
    ),
    (
        "value.schema.id.deserializer",
        "io.confluent.kafka.serializers.schema.id.DualSchemaIdDeserializer",
    ),
];

/// Confluent settings that change nothing here (Java-only concerns), any
/// value accepted.
const NO_EFFECT: &[&str] = &[
    // Java's identity-map sizes; Copycat's caches hold what it sees.
    "max.schemas.per.subject",
    "latest.cache.size",
    "missing.cache.size",
    "missing.id.cache.ttl.sec",
    "missing.version.cache.ttl.sec",
    "missing.schema.cache.ttl.sec",
    // Java's datum readers and writers.
    "avro.use.logical.type.converters",
    "avro.reflection.allow.null",
    "specific.avro.reader",
    "specific.avro.key.type",
    "specific.avro.value.type",
    "id.compatibility.strict",
    "url.randomize",
    "schema.registry.url.randomize",
    "use.apache.http.client",
    "bearer.auth.credentials.source",
    "rule.metrics.enable",
    "rule.service.loader.enable",
    "validation.rules.fail.fast",
    "validation.rules.execution",
];

impl AvroConverterConfig {
    /// The settings of `props` (keys without the converter's prefix).
    /// Unknown keys, and Confluent keys Copycat does not implement set to
    /// anything but their default, are errors naming the key.
    pub fn parse<'a>(props: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, AvroError> {
        let mut c = Self::default();
        let mut user_info_key = None;
        for (key, v) in props {
            match key {
                "schema.registry.url" => {
                    c.schema_registry_urls = v
                        .split(',')
                        .map(str::trim)
                        .filter(|u| !u.is_empty())
                        .map(str::to_owned)
                        .collect();
                    for u in &c.schema_registry_urls {
                        if !(u.starts_with("http://") || u.starts_with("https://")) {
                            return Err(config_err(key, format!("not an http(s) URL: {u}")));
                        }
                    }
                }
                "auto.register.schemas" => c.auto_register_schemas = parse_bool(key, v)?,
                "use.latest.version" => c.use_latest_version = parse_bool(key, v)?,
                "latest.compatibility.strict" => c.latest_compatibility_strict = parse_bool(key, v)?,
                "key.subject.name.strategy" | "value.subject.name.strategy" => {
                    let s = SubjectNameStrategy::from_setting(v).ok_or_else(|| {
                        config_err(
                            key,
                            format!(
                                "unknown subject name strategy {v}: TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy (io.confluent.kafka.serializers.subject.*)"
                            ),
                        )
                    })?;
                    if key.starts_with("key.") {
                        c.key_subject_name_strategy = s;
                    } else {
                        c.value_subject_name_strategy = s;
                    }
                }
                "basic.auth.credentials.source" => {
                    c.basic_auth_credentials_source = match v.trim() {
                        "URL" => CredentialsSource::Url,
                        "USER_INFO" => CredentialsSource::UserInfo,
                        "SASL_INHERIT" => {
                            return Err(config_err(
                                key,
                                "SASL_INHERIT is not supported by Copycat's AvroConverter",
                            ));
                        }
                        other => {
                            return Err(config_err(key, format!("unknown source {other}: URL or USER_INFO")));
                        }
                    }
                }
                "basic.auth.user.info" | "schema.registry.basic.auth.user.info" => {
                    if !v.is_empty() {
                        c.basic_auth_user_info = Some(Password(v.to_owned()));
                        user_info_key = Some(key);
                    }
                }
                "http.connect.timeout.ms" => c.http_connect_timeout = parse_millis(key, v)?,
                "http.read.timeout.ms" => c.http_read_timeout = parse_millis(key, v)?,
                "max.retries" => {
                    c.max_retries = u32::try_from(parse_int(key, v)?)
                        .map_err(|_| config_err(key, format!("must be at least 0, was {v}")))?;
                }
                "retries.wait.ms" => c.retries_wait = parse_millis(key, v)?,
                "retries.max.wait.ms" => c.retries_max_wait = parse_millis(key, v)?,
                "latest.cache.ttl.sec" => {
                    let s = v
                        .trim()
                        .parse::<i64>()
                        .map_err(|_| config_err(key, format!("Not a number of type LONG: {v}")))?;
                    c.latest_cache_ttl = u64::try_from(s).ok().map(Duration::from_secs);
                }
                "schemas.cache.config" => {
                    c.schemas_cache_size = usize::try_from(parse_int(key, v)?.max(1)).unwrap_or(1);
                }
                "avro.fail.on.trailing.data" => c.fail_on_trailing_data = parse_bool(key, v)?,
                "enhanced.avro.schema.support" => c.data.enhanced_avro_schema_support = parse_bool(key, v)?,
                "connect.meta.data" => c.data.connect_meta_data = parse_bool(key, v)?,
                "scrub.invalid.names" => c.data.scrub_invalid_names = parse_bool(key, v)?,
                "allow.optional.map.keys" => c.data.allow_optional_map_keys = parse_bool(key, v)?,
                "ignore.default.for.nullables" => c.data.ignore_default_for_nullables = parse_bool(key, v)?,
                "flatten.singleton.unions" => c.data.flatten_singleton_unions = parse_bool(key, v)?,
                k if NO_EFFECT.contains(&k) => {}
                k => match ONLY_DEFAULT.iter().find(|(name, _)| *name == k) {
                    Some((_, default)) => {
                        let same = if default.eq_ignore_ascii_case("false") || default.eq_ignore_ascii_case("true") {
                            v.trim().eq_ignore_ascii_case(default)
                        } else {
                            v.trim() == *default
                        };
                        if !same {
                            return Err(config_err(
                                k,
                                format!("{v}: Copycat's AvroConverter supports only the default ({default:?})"),
                            ));
                        }
                    }
                    None if k.starts_with("schema.registry.ssl.")
                        || k.starts_with("ssl.")
                        || k.starts_with("bearer.auth.")
                        || k.starts_with("request.header.")
                        || k.starts_with("rule.") =>
                    {
                        return Err(config_err(k, "not supported by Copycat's AvroConverter"));
                    }
                    None => return Err(config_err(k, "unknown setting of the AvroConverter")),
                },
            }
        }
        if c.schema_registry_urls.is_empty() {
            return Err(config_err(
                "schema.registry.url",
                "Missing required configuration \"schema.registry.url\" which has no default value.",
            ));
        }
        if c.basic_auth_credentials_source == CredentialsSource::UserInfo && c.basic_auth_user_info.is_none() {
            return Err(config_err(
                "basic.auth.user.info",
                "basic.auth.credentials.source is USER_INFO but basic.auth.user.info is not set",
            ));
        }
        if let Some(k) = user_info_key
            && c.basic_auth_credentials_source == CredentialsSource::UserInfo
            && !c.basic_auth_user_info.as_ref().is_some_and(|p| p.value().contains(':'))
        {
            return Err(config_err(k, "must be user:password"));
        }
        Ok(c)
    }
}

/// An Avro schema in the three forms the converter uses: its text, the
/// model AvroData reads, and apache-avro's for the binary encoding.
struct Prepared {
    text: Arc<str>,
    tree: Tree,
    apache: apache_avro::Schema,
    /// Its id under each subject it was registered or looked up in.
    ids: Mutex<HashMap<String, u32>>,
    /// Its version under each subject (read side).
    versions: Mutex<HashMap<String, i32>>,
}

impl Prepared {
    fn new(text: Arc<str>) -> Result<Self, DataError> {
        let tree = schema::parse_schema(&text)?;
        let apache = apache_avro::Schema::parse_str(&text)
            .map_err(|e| DataError::new(format!("Invalid Avro schema: {e}: {text}")))?;
        Ok(Self {
            text,
            tree,
            apache,
            ids: Mutex::new(HashMap::new()),
            versions: Mutex::new(HashMap::new()),
        })
    }

    /// The full name of the top-level record, if the schema is one.
    fn record_name(&self) -> Option<String> {
        match self.tree.resolve(&self.tree.root) {
            Ok(Avro::Record(r)) => Some(r.name.full()),
            _ => None,
        }
    }

    /// Whether the schema is Avro `bytes`, whose values Confluent writes
    /// raw (no length).
    fn is_raw_bytes(&self) -> bool {
        matches!(self.tree.resolve(&self.tree.root), Ok(Avro::Prim(Prim::Bytes, _)))
    }

    fn encode(&self, v: Av) -> Result<Vec<u8>, DataError> {
        if self.is_raw_bytes() {
            return match v {
                Av::Bytes(b) => Ok(b),
                Av::Decimal(d) => Vec::<u8>::try_from(&d).map_err(|e| DataError::new(e.to_string())),
                _ => Err(DataError::new("Unrecognized bytes object")),
            };
        }
        let mut out = Vec::with_capacity(128);
        if encode::write(&self.tree, &self.tree.root, &v, &mut out).is_ok() {
            return Ok(out);
        }
        // No validation pass before writing: every value written here was
        // built for this very schema (`to_avro_value` walks the same
        // tree) or resolved against it by apache-avro, and the writer
        // still fails on a value that does not fit. It was a second walk
        // of every record (with a name lookup per field).
        GenericDatumWriter::builder(&self.apache)
            .validate(false)
            .build()
            .and_then(|w| w.write_value_to_vec(v))
            .map_err(|e| DataError::new(format!("Error serializing Avro message: {e}")))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The Connect schema read from a writer schema id, a reader schema id
/// (`use.latest.version`) and the registry's version.
type ConnectKey = (u32, Option<u32>, Option<i32>);

/// Confluent's AvroConverter for keys or values.
pub struct AvroConverter {
    is_key: bool,
    config: AvroConverterConfig,
    data: AvroData,
    registry: RegistryClient,
    /// Connect schemas translated, the most recently used first.
    written: Mutex<Vec<(Option<Schema>, Arc<Prepared>)>>,
    /// Schemas read, by id.
    read: Mutex<HashMap<u32, Arc<Prepared>>>,
    /// Connect schemas of (writer id, reader id, version).
    connect: Mutex<HashMap<ConnectKey, Option<Schema>>>,
}

impl std::fmt::Debug for AvroConverter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvroConverter")
            .field("is_key", &self.is_key)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl AvroConverter {
    /// A converter of keys (`is_key`) or values with `props` (see
    /// [`AvroConverterConfig::parse`]).
    pub fn new<'a>(props: impl IntoIterator<Item = (&'a str, &'a str)>, is_key: bool) -> Result<Self, AvroError> {
        Ok(Self::with_config(AvroConverterConfig::parse(props)?, is_key))
    }

    /// A converter with parsed settings.
    pub fn with_config(config: AvroConverterConfig, is_key: bool) -> Self {
        let user_info = match config.basic_auth_credentials_source {
            CredentialsSource::UserInfo => config.basic_auth_user_info.as_ref().map(|p| p.value().to_owned()),
            CredentialsSource::Url => None,
        };
        let registry = RegistryClient::new(RegistrySettings {
            urls: config.schema_registry_urls.clone(),
            user_info,
            connect_timeout: config.http_connect_timeout,
            read_timeout: config.http_read_timeout,
            max_retries: config.max_retries,
            retries_wait: config.retries_wait,
            retries_max_wait: config.retries_max_wait,
            latest_ttl: config.latest_cache_ttl,
        });
        Self {
            is_key,
            data: AvroData::new(config.data.clone()),
            config,
            registry,
            written: Mutex::new(Vec::new()),
            read: Mutex::new(HashMap::new()),
            connect: Mutex::new(HashMap::new()),
        }
    }

    /// The settings.
    pub fn config(&self) -> &AvroConverterConfig {
        &self.config
    }

    /// The registry client.
    pub fn registry(&self) -> &RegistryClient {
        &self.registry
    }

    fn what(&self) -> &'static str {
        if self.is_key { "key" } else { "value" }
    }

    fn strategy(&self) -> SubjectNameStrategy {
        if self.is_key {
            self.config.key_subject_name_strategy
        } else {
            self.config.value_subject_name_strategy
        }
    }

    /// The Avro schema text AvroData makes of `schema` (`None`: schemaless
    /// values), as it is registered.
    pub fn avro_schema(&self, schema: Option<&Schema>) -> Result<String, AvroError> {
        Ok(self.prepare(schema)?.text.to_string())
    }

    fn prepare(&self, schema: Option<&Schema>) -> Result<Arc<Prepared>, AvroError> {
        {
            let mut cache = lock(&self.written);
            let same = |s: &Option<Schema>| match (s, schema) {
                (Some(a), Some(b)) => a.ptr_eq(b) || a == b,
                (None, None) => true,
                _ => false,
            };
            if let Some(i) = cache.iter().position(|(s, _)| same(s)) {
                let mut hit = cache.remove(i);
                // Keyed by the caller's clone from now on: the records
                // after this one (a batch's, which share one schema) then
                // match by pointer, not by comparing the whole tree.
                hit.0 = schema.cloned();
                let p = hit.1.clone();
                cache.insert(0, hit);
                return Ok(p);
            }
        }
        let avro = self.data.avro_schema_of(schema)?;
        let text: Arc<str> = Arc::from(schema::write_schema(&avro));
        let prepared = Arc::new(Prepared::new(text)?);
        let mut cache = lock(&self.written);
        cache.insert(0, (schema.cloned(), prepared.clone()));
        cache.truncate(self.config.schemas_cache_size.max(1));
        Ok(prepared)
    }

    fn read_schema(&self, id: u32) -> Result<Arc<Prepared>, AvroError> {
        if let Some(p) = lock(&self.read).get(&id) {
            return Ok(p.clone());
        }
        let text = self.registry.schema_by_id(id).map_err(|e| match e {
            RegistryError::Http {
                status: 404, message, ..
            } => AvroError::UnknownSchemaId {
                id,
                url: self.registry.urls().join(","),
                message,
            },
            other => self.registry_error(
                format!("Error retrieving Avro {} schema for id {id}", self.what()),
                None,
                other,
            ),
        })?;
        let p = Arc::new(Prepared::new(text)?);
        lock(&self.read).insert(id, p.clone());
        Ok(p)
    }

    /// The id of `p` under `subject`: registered (`register`) or looked up.
    fn id_of(&self, p: &Prepared, subject: &str, register: bool) -> Result<u32, AvroError> {
        if let Some(id) = lock(&p.ids).get(subject) {
            return Ok(*id);
        }
        let id = if register {
            self.registry.register(subject, &p.text).map_err(|e| {
                self.registry_error(format!("Error registering Avro schema {}", p.text), Some(subject), e)
            })?
        } else {
            self.registry
                .lookup(subject, &p.text)
                .map_err(|e| self.registry_error(format!("Error retrieving Avro schema {}", p.text), None, e))?
                .0
        };
        lock(&p.ids).insert(subject.to_owned(), id);
        Ok(id)
    }

    /// The version of `p` (schema `id`) under `subject`.
    fn version_of(&self, p: &Prepared, subject: &str, id: u32) -> Result<i32, AvroError> {
        if let Some(v) = lock(&p.versions).get(subject) {
            return Ok(*v);
        }
        let (_, v) = self.registry.lookup(subject, &p.text).map_err(|e| {
            self.registry_error(
                format!("Error retrieving Avro {} schema version for id {id}", self.what()),
                None,
                e,
            )
        })?;
        lock(&p.versions).insert(subject.to_owned(), v);
        Ok(v)
    }

    fn registry_error(&self, context: String, subject: Option<&str>, e: RegistryError) -> AvroError {
        match e {
            RegistryError::Http {
                status: 409, message, ..
            } if subject.is_some() => AvroError::Incompatible {
                subject: subject.unwrap_or_default().to_owned(),
                reason: message,
            },
            e if e.is_retriable() => AvroError::Unavailable { context, source: e },
            e => AvroError::Registry { context, source: e },
        }
    }

    /// The bytes Confluent's converter writes for `value` of `schema`
    /// (`None`: schemaless) on `topic`; `None` for a null (a tombstone,
    /// nothing registered).
    pub fn from_connect(
        &self,
        topic: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, AvroError> {
        let fail = |e: DataError| AvroError::Data(format!("Failed to serialize Avro data from topic {topic}: {}", e.0));
        let ours = self.prepare(schema).map_err(|e| match e {
            AvroError::Data(m) => AvroError::Data(format!("Failed to serialize Avro data from topic {topic}: {m}")),
            other => other,
        })?;
        if value.is_null() {
            if let Some(s) = schema
                && !s.is_optional()
            {
                return Err(fail(DataError::new("Found null value for non-optional schema")));
            }
            return Ok(None);
        }
        let avro_value = self.data.to_avro_value(schema, &ours.tree, value).map_err(fail)?;
        let subject = self
            .strategy()
            .subject(topic, self.is_key, ours.record_name().as_deref())?;
        let (id, body) = if self.config.auto_register_schemas {
            let id = self.id_of(&ours, &subject, true)?;
            (id, ours.encode(avro_value).map_err(fail)?)
        } else if self.config.use_latest_version {
            let latest = self.registry.latest(&subject).map_err(|e| {
                self.registry_error(
                    format!("Error retrieving latest version of Avro schema for subject {subject}"),
                    None,
                    e,
                )
            })?;
            let target = self.read_schema(latest.id)?;
            if self.config.latest_compatibility_strict
                && let Err(e) =
                    apache_avro::schema_compatibility::SchemaCompatibility::can_read(&ours.apache, &target.apache)
            {
                return Err(AvroError::Data(format!(
                    "Failed to serialize Avro data from topic {topic}: Incompatible schema of type 'AVRO'. Set latest.compatibility.strict=false to disable this check. The latest version ({}) of subject {subject} cannot read data of the schema: {e}",
                    latest.version
                )));
            }
            let resolved = avro_value.resolve(&target.apache).map_err(|e| {
                fail(DataError::new(format!(
                    "the value does not fit version {} of subject {subject}: {e}",
                    latest.version
                )))
            })?;
            (latest.id, target.encode(resolved).map_err(fail)?)
        } else {
            let id = self.id_of(&ours, &subject, false)?;
            (id, ours.encode(avro_value).map_err(fail)?)
        };
        Ok(Some(wire::frame(id, &body)))
    }

    /// The schema and value Confluent's converter reads from `bytes` of
    /// `topic` (`None`: a null record, read as no schema and null).
    pub fn to_connect(&self, topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), AvroError> {
        let Some(bytes) = bytes else {
            return Ok((None, Value::Null));
        };
        let fail =
            |e: DataError| AvroError::Data(format!("Failed to deserialize data for topic {topic} to Avro: {}", e.0));
        let (id, body) = wire::unframe(bytes).map_err(fail)?;
        let writer = self.read_schema(id)?;
        let subject = self
            .strategy()
            .subject(topic, self.is_key, writer.record_name().as_deref())?;
        let reader = if self.config.use_latest_version {
            let latest = self.registry.latest(&subject).map_err(|e| {
                self.registry_error(
                    format!("Error retrieving latest version of Avro schema for subject {subject}"),
                    None,
                    e,
                )
            })?;
            // The writer's own schema needs no resolution.
            if latest.id == id {
                None
            } else {
                Some((latest.id, self.read_schema(latest.id)?))
            }
        } else {
            None
        };
        let value = if writer.is_raw_bytes() {
            Av::Bytes(body.to_vec())
        } else {
            let mut rest = body;
            let value = GenericDatumReader::builder(&writer.apache)
                .maybe_reader_schema(reader.as_ref().map(|(_, r)| &r.apache))
                .build()
                .and_then(|r| r.read_value(&mut rest))
                .map_err(|e| {
                    fail(DataError::new(format!(
                        "Error deserializing Avro message for id {id}: {e}"
                    )))
                })?;
            if self.config.fail_on_trailing_data && !rest.is_empty() {
                return Err(fail(DataError::new(format!(
                    "Trailing data found after deserializing Avro message for id {id}"
                ))));
            }
            value
        };
        let version = self.version_of(&writer, &subject, id)?;
        let shape = reader.as_ref().map_or(&writer, |(_, r)| r);
        let key = (id, reader.as_ref().map(|(rid, _)| *rid), Some(version));
        let cached = lock(&self.connect).get(&key).cloned();
        let connect_schema = match cached {
            Some(s) => s,
            None => {
                let s = self.data.to_connect_schema(&shape.tree, Some(version)).map_err(fail)?;
                lock(&self.connect).insert(key, s.clone());
                s
            }
        };
        let value = self
            .data
            .to_connect_value(connect_schema.as_ref(), &shape.tree, value)
            .map_err(fail)?;
        Ok((connect_schema, value))
    }
}

/// The Connect schema AvroData makes of an Avro schema's text (`version`:
/// the registry's, where the schema has no `connect.version`; `None` for
/// AvroData's schemaless `Anything` record).
pub fn avro_to_connect_schema(
    data: &AvroData,
    avro_schema: &str,
    version: Option<i32>,
) -> Result<Option<Schema>, DataError> {
    let tree = schema::parse_schema(avro_schema)?;
    data.to_connect_schema(&tree, version)
}

/// The Avro schema text AvroData makes of `schema` (`None`: schemaless).
pub fn connect_to_avro_schema(data: &AvroData, schema: Option<&Schema>) -> Result<String, DataError> {
    Ok(schema::write_schema(&data.avro_schema_of(schema)?))
}

/// The Avro binary encoding (no framing) of `value` under the schema
/// AvroData makes of `schema`, and that schema's text.
pub fn encode_value(data: &AvroData, schema: Option<&Schema>, value: &Value) -> Result<(String, Vec<u8>), DataError> {
    let text: Arc<str> = Arc::from(schema::write_schema(&data.avro_schema_of(schema)?));
    let p = Prepared::new(text)?;
    let v = data.to_avro_value(schema, &p.tree, value)?;
    Ok((p.text.to_string(), p.encode(v)?))
}

/// The schema and value of Avro binary `body` written with `avro_schema`
/// (`version`: as in [`avro_to_connect_schema`]).
pub fn decode_value(
    data: &AvroData,
    avro_schema: &str,
    version: Option<i32>,
    body: &[u8],
) -> Result<(Option<Schema>, Value), DataError> {
    let p = Prepared::new(Arc::from(avro_schema))?;
    let value = if p.is_raw_bytes() {
        Av::Bytes(body.to_vec())
    } else {
        let mut rest = body;
        GenericDatumReader::builder(&p.apache)
            .build()
            .and_then(|r| r.read_value(&mut rest))
            .map_err(|e| DataError::new(format!("Error deserializing Avro message: {e}")))?
    };
    let schema = data.to_connect_schema(&p.tree, version)?;
    let value = data.to_connect_value(schema.as_ref(), &p.tree, value)?;
    Ok((schema, value))
}

#[cfg(test)]
mod tests;
