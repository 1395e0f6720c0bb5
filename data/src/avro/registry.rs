//! A blocking client of Confluent Schema Registry's REST API (the calls
//! Confluent's `CachedSchemaRegistryClient` makes for the Avro serde:
//! register, look up, fetch by id, latest version), over ureq with
//! rustls. Answers are cached as Confluent's client caches them: a
//! schema's id per subject, a schema by id, its version per subject, and
//! a subject's latest version for `latest.cache.ttl.sec`.
//!
//! Errors keep what a caller needs to decide: a registry that cannot be
//! reached, times out or answers 408, 429 or 5xx is
//! [`RegistryError::Unavailable`] or a retriable [`RegistryError::Http`]
//! (after `max.retries` retries and failing over to the other URLs); any
//! other answer is the registry's status, error code and message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use ureq::Agent;
use ureq::http::{Method, Request};

/// Characters kept as they are in a path segment (RFC 3986 unreserved).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
const CONTENT_TYPE: &str = "application/vnd.schemaregistry.v1+json";
const ACCEPT: &str =
    "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";

/// A registry call that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// No registry URL could be reached, or the call timed out.
    #[error("the schema registry at {url} is unavailable: {reason}")]
    Unavailable {
        /// The last URL tried.
        url: String,
        /// Why.
        reason: String,
    },
    /// The registry answered with an error.
    #[error("the schema registry answered {status} (error code {code}): {message}")]
    Http {
        /// The HTTP status.
        status: u16,
        /// The registry's error code (Confluent's `error_code`; the status
        /// if the answer had none).
        code: i64,
        /// The registry's message.
        message: String,
    },
    /// The registry's answer was not what the API says.
    #[error("the schema registry's answer could not be read: {0}")]
    Protocol(String),
}

impl RegistryError {
    /// Whether trying again later may succeed (Confluent's
    /// `isRestClientExceptionRetriable`, and network errors).
    pub fn is_retriable(&self) -> bool {
        match self {
            Self::Unavailable { .. } => true,
            Self::Http { status, .. } => matches!(status, 408 | 429 | 500 | 502 | 503 | 504),
            Self::Protocol(_) => false,
        }
    }
}

/// How the client reaches the registry.
#[derive(Clone)]
pub(crate) struct RegistrySettings {
    /// Base URLs, tried in turn.
    pub(crate) urls: Vec<String>,
    /// `user:password` for HTTP basic authentication, if any.
    pub(crate) user_info: Option<String>,
    pub(crate) connect_timeout: Duration,
    pub(crate) read_timeout: Duration,
    pub(crate) max_retries: u32,
    pub(crate) retries_wait: Duration,
    pub(crate) retries_max_wait: Duration,
    /// How long a subject's latest version is kept (`None`: until restart).
    pub(crate) latest_ttl: Option<Duration>,
}

impl std::fmt::Debug for RegistrySettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistrySettings")
            .field("urls", &self.urls)
            .field("user_info", &self.user_info.as_ref().map(|_| "[hidden]"))
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

/// A subject's latest version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectVersion {
    /// The schema's id.
    pub id: u32,
    /// Its version under the subject.
    pub version: i32,
    /// The schema's text.
    pub schema: Arc<str>,
}

#[derive(Default)]
struct Cache {
    /// (subject, schema text) → id, of schemas registered or looked up.
    ids: HashMap<(String, String), u32>,
    /// id → schema text.
    by_id: HashMap<u32, Arc<str>>,
    /// (subject, schema text) → version.
    versions: HashMap<(String, String), i32>,
    /// subject → its latest version, and when it was fetched.
    latest: HashMap<String, (Instant, SubjectVersion)>,
}

/// A registry client with its caches.
pub struct RegistryClient {
    agent: Agent,
    urls: Vec<String>,
    current: AtomicUsize,
    authorization: Option<String>,
    settings: RegistrySettings,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient")
            .field("urls", &self.urls)
            .finish_non_exhaustive()
    }
}

/// `base` without user info, and the user info (percent-decoded).
fn split_user_info(base: &str) -> (String, Option<String>) {
    let Some((scheme, rest)) = base.split_once("://") else {
        return (base.to_owned(), None);
    };
    let end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => (
            format!("{scheme}://{host}{path}"),
            Some(percent_decode_str(user_info).decode_utf8_lossy().into_owned()),
        ),
        None => (base.to_owned(), None),
    }
}

fn segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

fn field<'a>(v: &'a serde_json::Value, key: &str) -> Result<&'a serde_json::Value, RegistryError> {
    v.get(key)
        .ok_or_else(|| RegistryError::Protocol(format!("no \"{key}\" in {v}")))
}

fn u32_field(v: &serde_json::Value, key: &str) -> Result<u32, RegistryError> {
    field(v, key)?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| RegistryError::Protocol(format!("\"{key}\" is not an id in {v}")))
}

fn i32_field(v: &serde_json::Value, key: &str) -> Result<i32, RegistryError> {
    field(v, key)?
        .as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| RegistryError::Protocol(format!("\"{key}\" is not a version in {v}")))
}

fn str_field(v: &serde_json::Value, key: &str) -> Result<Arc<str>, RegistryError> {
    field(v, key)?
        .as_str()
        .map(Arc::from)
        .ok_or_else(|| RegistryError::Protocol(format!("\"{key}\" is not a string in {v}")))
}

/// Only Avro schemas: `schemaType` absent or `AVRO`.
fn check_avro(v: &serde_json::Value) -> Result<(), RegistryError> {
    match v.get("schemaType").and_then(|t| t.as_str()) {
        None | Some("AVRO") => Ok(()),
        Some(other) => Err(RegistryError::Protocol(format!(
            "the schema is of type {other}, not AVRO"
        ))),
    }
}

impl RegistryClient {
    /// A client of the registry at `settings.urls`.
    pub(crate) fn new(settings: RegistrySettings) -> Self {
        let mut user_info = settings.user_info.clone();
        let mut urls = Vec::with_capacity(settings.urls.len());
        for u in &settings.urls {
            let (url, info) = split_user_info(u.trim().trim_end_matches('/'));
            if user_info.is_none() {
                user_info = info;
            }
            urls.push(url);
        }
        let agent = Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(settings.connect_timeout))
            .timeout_recv_response(Some(settings.read_timeout))
            .timeout_recv_body(Some(settings.read_timeout))
            .timeout_send_body(Some(settings.read_timeout))
            .build()
            .new_agent();
        let authorization = user_info.map(|u| format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(u)));
        Self {
            agent,
            urls,
            current: AtomicUsize::new(0),
            authorization,
            settings,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The registry's URLs (without user info).
    pub fn urls(&self) -> &[String] {
        &self.urls
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Register `schema` under `subject` (or find it there): its id.
    pub fn register(&self, subject: &str, schema: &str) -> Result<u32, RegistryError> {
        let key = (subject.to_owned(), schema.to_owned());
        if let Some(id) = self.cache().ids.get(&key) {
            return Ok(*id);
        }
        let body = serde_json::json!({ "schema": schema });
        let answer = self.call(
            Method::POST,
            &format!("/subjects/{}/versions", segment(subject)),
            Some(&body),
        )?;
        let id = u32_field(&answer, "id")?;
        let mut cache = self.cache();
        cache.ids.insert(key, id);
        cache.by_id.entry(id).or_insert_with(|| Arc::from(schema));
        Ok(id)
    }

    /// The id and version of `schema` under `subject`, without registering
    /// it (404 if the subject does not hold it).
    pub fn lookup(&self, subject: &str, schema: &str) -> Result<(u32, i32), RegistryError> {
        let key = (subject.to_owned(), schema.to_owned());
        {
            let cache = self.cache();
            if let (Some(id), Some(v)) = (cache.ids.get(&key), cache.versions.get(&key)) {
                return Ok((*id, *v));
            }
        }
        let body = serde_json::json!({ "schema": schema });
        let answer = self.call(Method::POST, &format!("/subjects/{}", segment(subject)), Some(&body))?;
        let id = u32_field(&answer, "id")?;
        let version = i32_field(&answer, "version")?;
        let mut cache = self.cache();
        cache.ids.insert(key.clone(), id);
        cache.versions.insert(key, version);
        cache.by_id.entry(id).or_insert_with(|| Arc::from(schema));
        Ok((id, version))
    }

    /// The schema of `id`.
    pub fn schema_by_id(&self, id: u32) -> Result<Arc<str>, RegistryError> {
        if let Some(s) = self.cache().by_id.get(&id) {
            return Ok(s.clone());
        }
        let answer = self.call(Method::GET, &format!("/schemas/ids/{id}"), None)?;
        check_avro(&answer)?;
        let schema = str_field(&answer, "schema")?;
        self.cache().by_id.insert(id, schema.clone());
        Ok(schema)
    }

    /// The latest version of `subject`.
    pub fn latest(&self, subject: &str) -> Result<SubjectVersion, RegistryError> {
        if let Some((at, v)) = self.cache().latest.get(subject)
            && self.settings.latest_ttl.is_none_or(|ttl| at.elapsed() < ttl)
        {
            return Ok(v.clone());
        }
        let answer = self.call(
            Method::GET,
            &format!("/subjects/{}/versions/latest", segment(subject)),
            None,
        )?;
        check_avro(&answer)?;
        let latest = SubjectVersion {
            id: u32_field(&answer, "id")?,
            version: i32_field(&answer, "version")?,
            schema: str_field(&answer, "schema")?,
        };
        let mut cache = self.cache();
        cache.by_id.entry(latest.id).or_insert_with(|| latest.schema.clone());
        cache
            .latest
            .insert(subject.to_owned(), (Instant::now(), latest.clone()));
        Ok(latest)
    }

    /// One call, retried and failed over as Confluent's `RestService`
    /// does; the answer's JSON body.
    fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, RegistryError> {
        let n = self.urls.len().max(1);
        let mut last = RegistryError::Unavailable {
            url: String::new(),
            reason: "no schema.registry.url".to_owned(),
        };
        for _ in 0..n {
            let i = self.current.load(Ordering::Relaxed) % n;
            let Some(base) = self.urls.get(i) else {
                break;
            };
            match self.call_with_retries(&method, base, path, body) {
                Ok(v) => return Ok(v),
                Err(e) if e.is_retriable() => {
                    // Fail over to the next URL.
                    let _ = self
                        .current
                        .compare_exchange(i, (i + 1) % n, Ordering::Relaxed, Ordering::Relaxed);
                    last = e;
                }
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    fn call_with_retries(
        &self,
        method: &Method,
        base: &str,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, RegistryError> {
        let mut attempt = 0u32;
        loop {
            match self.call_once(method, base, path, body) {
                Err(e) if e.is_retriable() && attempt < self.settings.max_retries => {
                    let wait = self
                        .settings
                        .retries_wait
                        .saturating_mul(1u32 << attempt.min(30))
                        .min(self.settings.retries_max_wait);
                    std::thread::sleep(wait);
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    fn call_once(
        &self,
        method: &Method,
        base: &str,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, RegistryError> {
        let url = format!("{base}{path}");
        let unavailable = |reason: String| RegistryError::Unavailable {
            url: url.clone(),
            reason,
        };
        let mut req = Request::builder()
            .method(method.clone())
            .uri(&url)
            .header("Accept", ACCEPT);
        if let Some(a) = &self.authorization {
            req = req.header("Authorization", a);
        }
        let bytes = match body {
            Some(b) => {
                req = req.header("Content-Type", CONTENT_TYPE);
                serde_json::to_vec(b).map_err(|e| RegistryError::Protocol(e.to_string()))?
            }
            None => Vec::new(),
        };
        let req = req
            .body(bytes)
            .map_err(|e| RegistryError::Protocol(format!("bad URL {url}: {e}")))?;
        let mut resp = self.agent.run(req).map_err(|e| unavailable(e.to_string()))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| unavailable(e.to_string()))?;
        let json: Option<serde_json::Value> = serde_json::from_str(&text).ok();
        if (200..300).contains(&status) {
            return json.ok_or_else(|| RegistryError::Protocol(format!("not JSON: {text}")));
        }
        let (code, message) = match &json {
            Some(v) => (
                v.get("error_code")
                    .and_then(serde_json::Value::as_i64)
                    .unwrap_or(i64::from(status)),
                v.get("message")
                    .and_then(serde_json::Value::as_str)
                    .map_or_else(|| text.trim().to_owned(), str::to_owned),
            ),
            None => (i64::from(status), text.trim().to_owned()),
        };
        Err(RegistryError::Http { status, code, message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_info_comes_out_of_the_url() {
        assert_eq!(
            split_user_info("http://fred:s%3Acret@reg:8081/apis"),
            ("http://reg:8081/apis".to_owned(), Some("fred:s:cret".to_owned()))
        );
        assert_eq!(split_user_info("http://reg:8081"), ("http://reg:8081".to_owned(), None));
    }

    #[test]
    fn retriable_statuses_are_confluents() {
        for s in [408, 429, 500, 502, 503, 504] {
            assert!(
                RegistryError::Http {
                    status: s,
                    code: 0,
                    message: String::new()
                }
                .is_retriable()
            );
        }
        for s in [400, 401, 403, 404, 409, 422] {
            assert!(
                !RegistryError::Http {
                    status: s,
                    code: 0,
                    message: String::new()
                }
                .is_retriable()
            );
        }
    }

    #[test]
    fn subjects_are_escaped_in_paths() {
        assert_eq!(segment("a b/c"), "a%20b%2Fc");
        assert_eq!(segment("my.topic-value"), "my.topic-value");
    }
}
