//! The connector's keys, read and checked once: `validate` lists every
//! problem by key, `start` fails with the first (the config variant). Key
//! names follow Aiven's HTTP sink (`http.url`, `http.headers`,
//! `http.authorization`) and Confluent's (`batch.max.size`,
//! `request.body.format`, `max.retries`, `retry.backoff.ms`);
//! docs/connectors/http-sink.md maps them.

use std::time::Duration;

use copycat_sdk::v0_3::{Config, ConfigProblem};
use http::header::{HeaderName, HeaderValue};
use http::uri::{Scheme, Uri};

/// `http.method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Post,
    Put,
    Patch,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
        }
    }
}

/// `request.body.format`: how a typed value becomes (part of) a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFormat {
    /// JsonConverter's JSON (`schemas.enable=false`, decimals as numbers);
    /// a batch is a JSON array.
    Json,
    /// Java's `toString()`; a batch is the values one per line.
    String,
}

/// Headers the host's `wasi:http` refuses or sets itself.
const RESERVED_HEADERS: [&str; 10] = [
    "connection",
    "content-length",
    "host",
    "http2-settings",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
];

/// The guest call deadline the host applies when the connector config does
/// not set `task.call.timeout.ms` (the runtime's default).
const DEFAULT_CALL_TIMEOUT_MS: u64 = 10_000;

/// `http.timeout.ms` by default (less if the call deadline is short).
const DEFAULT_TIMEOUT_MS: u64 = 5000;

/// A task's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `http.url`.
    pub url: Uri,
    /// `host:port` of `http.url`, as `grants.http.hosts` must name it.
    pub authority: String,
    /// `http.method`.
    pub method: Method,
    /// `http.headers`, then `Authorization` from `http.authorization`,
    /// then `Content-Type` unless `http.headers` has one.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// `request.body.format`.
    pub format: BodyFormat,
    /// `batch.max.size`: records per request (1: the value alone).
    pub batch_max: usize,
    /// `max.retries`: retries of one request within a `put`.
    pub max_retries: u32,
    /// `retry.backoff.ms`: the first pause, doubled at each retry.
    pub backoff: Duration,
    /// `retry.backoff.max.ms`: the longest computed pause.
    pub backoff_max: Duration,
    /// `http.timeout.ms`: connect, first byte and between bytes.
    pub timeout: Duration,
    /// How long one `put` may send and wait before it hands the rest to the
    /// host's redelivery: 80% of `task.call.timeout.ms`.
    pub budget: Duration,
}

fn get<'a>(config: &'a Config, key: &str) -> Option<&'a str> {
    config.get(key).map(str::trim).filter(|v| !v.is_empty())
}

/// A whole number key in `min..=max`, or its default.
fn number(config: &Config, key: &str, default: u64, min: u64, max: u64) -> Result<u64, String> {
    match get(config, key) {
        None => Ok(default),
        Some(v) => match v.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(format!("'{v}' is not a whole number from {min} to {max}")),
        },
    }
}

fn parse_url(config: &Config) -> Result<(Uri, String), String> {
    let Some(raw) = get(config, "http.url") else {
        return Err("missing: the endpoint's URL, http://host[:port]/path or https://...".to_owned());
    };
    let url: Uri = raw.parse().map_err(|e| format!("'{raw}' is not a URL: {e}"))?;
    let port = match url.scheme() {
        Some(s) if *s == Scheme::HTTP => 80,
        Some(s) if *s == Scheme::HTTPS => 443,
        _ => return Err(format!("'{raw}' is not an http:// or https:// URL")),
    };
    let Some(host) = url.host().filter(|h| !h.is_empty()) else {
        return Err(format!("'{raw}' has no host"));
    };
    if url.authority().is_some_and(|a| a.as_str().contains('@')) {
        return Err(format!(
            "'{raw}' carries credentials: put them in http.authorization instead"
        ));
    }
    let authority = format!("{host}:{}", url.port_u16().unwrap_or(port));
    Ok((url, authority))
}

fn parse_method(config: &Config) -> Result<Method, String> {
    match get(config, "http.method") {
        None => Ok(Method::Post),
        Some(m) if m.eq_ignore_ascii_case("post") => Ok(Method::Post),
        Some(m) if m.eq_ignore_ascii_case("put") => Ok(Method::Put),
        Some(m) if m.eq_ignore_ascii_case("patch") => Ok(Method::Patch),
        Some(m) => Err(format!("'{m}' is not one of POST, PUT, PATCH")),
    }
}

fn parse_format(config: &Config) -> Result<BodyFormat, String> {
    match get(config, "request.body.format") {
        None => Ok(BodyFormat::Json),
        Some(f) if f.eq_ignore_ascii_case("json") => Ok(BodyFormat::Json),
        Some(f) if f.eq_ignore_ascii_case("string") => Ok(BodyFormat::String),
        Some(f) => Err(format!("'{f}' is not one of json, string")),
    }
}

/// `http.headers`: `Name:Value` pairs separated by `|` (Confluent's
/// `headers` with its default `header.separator`).
fn parse_headers(config: &Config) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    let Some(raw) = get(config, "http.headers") else {
        return Ok(Vec::new());
    };
    let mut headers = Vec::new();
    for pair in raw.split('|').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, value)) = pair.split_once(':') else {
            return Err(format!("'{pair}' is not Name:Value (pairs are separated by |)"));
        };
        let name = header_name(name.trim())?;
        if name == http::header::AUTHORIZATION {
            return Err(
                "set Authorization with http.authorization (a password: hidden, and a config provider reference works)"
                    .to_owned(),
            );
        }
        let value = HeaderValue::from_str(value.trim())
            .map_err(|_| format!("the value of header '{name}' has characters a header cannot carry"))?;
        headers.push((name, value));
    }
    Ok(headers)
}

fn header_name(name: &str) -> Result<HeaderName, String> {
    let parsed = HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("'{name}' is not a header name"))?;
    if RESERVED_HEADERS.contains(&parsed.as_str()) {
        return Err(format!("'{name}' is set by the HTTP client; it cannot be configured"));
    }
    Ok(parsed)
}

fn parse_authorization(config: &Config) -> Result<Option<HeaderValue>, String> {
    let Some(raw) = get(config, "http.authorization") else {
        return Ok(None);
    };
    // Never quote the value: it is a secret.
    let mut value =
        HeaderValue::from_str(raw).map_err(|_| "the value has characters a header cannot carry".to_owned())?;
    value.set_sensitive(true);
    Ok(Some(value))
}

impl Settings {
    /// Every key's value, or every problem, each naming its key.
    pub fn parse(config: &Config) -> Result<Self, Vec<ConfigProblem>> {
        let mut problems = Vec::new();
        fn keep<T>(problems: &mut Vec<ConfigProblem>, key: &str, r: Result<T, String>) -> Option<T> {
            r.map_err(|e| problems.push(ConfigProblem::new(key, e))).ok()
        }
        let p = &mut problems;
        let url = keep(p, "http.url", parse_url(config));
        let method = keep(p, "http.method", parse_method(config));
        let headers = keep(p, "http.headers", parse_headers(config));
        let authorization = keep(p, "http.authorization", parse_authorization(config));
        let format = keep(p, "request.body.format", parse_format(config));
        let batch_max = keep(p, "batch.max.size", number(config, "batch.max.size", 1, 1, 100_000));
        let max_retries = keep(p, "max.retries", number(config, "max.retries", 10, 0, 1_000_000));
        let backoff = keep(
            p,
            "retry.backoff.ms",
            number(config, "retry.backoff.ms", 1000, 0, 86_400_000),
        );
        let backoff_max = keep(
            p,
            "retry.backoff.max.ms",
            number(config, "retry.backoff.max.ms", 30_000, 0, 86_400_000),
        );
        let call = number(config, "task.call.timeout.ms", DEFAULT_CALL_TIMEOUT_MS, 1, u64::MAX).ok();
        // Unset, at most the put's budget (80% of the call deadline).
        let fits = call.map_or(DEFAULT_TIMEOUT_MS, |c| c.saturating_mul(8) / 10);
        let default_timeout = DEFAULT_TIMEOUT_MS.min(fits).max(1);
        let timeout = keep(
            p,
            "http.timeout.ms",
            number(config, "http.timeout.ms", default_timeout, 1, 3_600_000),
        );
        if let (Some(call), Some(t)) = (call, timeout)
            && t.saturating_mul(10) > call.saturating_mul(8)
        {
            problems.push(ConfigProblem::new(
                "http.timeout.ms",
                format!(
                    "{t} ms does not fit in a put: at most 80% of task.call.timeout.ms ({call} ms; \
                     set it in this connector's config if the worker's differs)"
                ),
            ));
        }
        match (
            url,
            method,
            headers,
            authorization,
            format,
            batch_max,
            max_retries,
            backoff,
            backoff_max,
            timeout,
        ) {
            (
                Some((url, authority)),
                Some(method),
                Some(mut headers),
                Some(authorization),
                Some(format),
                Some(batch_max),
                Some(max_retries),
                Some(backoff),
                Some(backoff_max),
                Some(timeout),
            ) if problems.is_empty() => {
                if let Some(a) = authorization {
                    headers.push((http::header::AUTHORIZATION, a));
                }
                if !headers.iter().any(|(n, _)| n == http::header::CONTENT_TYPE) {
                    let ct = match format {
                        BodyFormat::Json => "application/json",
                        BodyFormat::String => "text/plain; charset=utf-8",
                    };
                    headers.push((http::header::CONTENT_TYPE, HeaderValue::from_static(ct)));
                }
                let call = call.unwrap_or(DEFAULT_CALL_TIMEOUT_MS);
                Ok(Self {
                    url,
                    authority,
                    method,
                    headers,
                    format,
                    batch_max: usize::try_from(batch_max).unwrap_or(usize::MAX),
                    max_retries: u32::try_from(max_retries).unwrap_or(u32::MAX),
                    backoff: Duration::from_millis(backoff),
                    backoff_max: Duration::from_millis(backoff_max),
                    timeout: Duration::from_millis(timeout),
                    budget: Duration::from_millis(call.saturating_mul(8) / 10),
                })
            }
            _ => Err(problems),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn problems(pairs: &[(&str, &str)]) -> Vec<String> {
        let config = pairs.iter().fold(
            Config::new().with("http.url", "http://127.0.0.1:8080/in"),
            |c, (k, v)| c.with(*k, *v),
        );
        match Settings::parse(&config) {
            Ok(_) => Vec::new(),
            Err(p) => p.into_iter().map(|p| format!("{}: {}", p.key, p.message)).collect(),
        }
    }

    #[test]
    fn defaults() {
        let s = Settings::parse(&Config::new().with("http.url", "https://api.example.com/v1/events")).unwrap();
        assert_eq!(s.authority, "api.example.com:443");
        assert_eq!(s.method, Method::Post);
        assert_eq!(s.format, BodyFormat::Json);
        assert_eq!(s.batch_max, 1);
        assert_eq!(s.max_retries, 10);
        assert_eq!(s.backoff, Duration::from_secs(1));
        assert_eq!(s.timeout, Duration::from_secs(5));
        assert_eq!(s.budget, Duration::from_secs(8));
        assert_eq!(
            s.headers,
            [(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"))]
        );
    }

    #[test]
    fn headers_and_authorization() {
        let config = Config::new()
            .with("http.url", "http://127.0.0.1:9/x")
            .with("http.headers", "X-Tenant: acme | Content-Type:application/x-ndjson|")
            .with("http.authorization", "Bearer t0k3n")
            .with("request.body.format", "STRING");
        let s = Settings::parse(&config).unwrap();
        let h: Vec<(&str, &str)> = s
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.to_str().unwrap()))
            .collect();
        assert_eq!(
            h,
            [
                ("x-tenant", "acme"),
                ("content-type", "application/x-ndjson"),
                ("authorization", "Bearer t0k3n")
            ]
        );
        assert!(s.headers[2].1.is_sensitive());
        assert_eq!(s.authority, "127.0.0.1:9");
    }

    #[test]
    fn every_problem_names_its_key() {
        assert_eq!(
            Settings::parse(&Config::new()).unwrap_err()[0].key,
            "http.url",
            "http.url is required"
        );
        let got = problems(&[
            ("http.method", "GET"),
            ("http.headers", "nocolon"),
            ("request.body.format", "avro"),
            ("batch.max.size", "0"),
            ("max.retries", "-1"),
            ("retry.backoff.ms", "soon"),
            ("http.timeout.ms", "9000"),
        ]);
        let keys: Vec<&str> = got.iter().map(|p| p.split(':').next().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "http.method",
                "http.headers",
                "request.body.format",
                "batch.max.size",
                "max.retries",
                "retry.backoff.ms",
                "http.timeout.ms"
            ],
            "{got:?}"
        );
        assert!(got[0].contains("'GET' is not one of POST, PUT, PATCH"));
        assert!(got[6].contains("task.call.timeout.ms (10000 ms"), "{got:?}");
        assert!(problems(&[("http.timeout.ms", "9000"), ("task.call.timeout.ms", "20000")]).is_empty());
        let short = Config::new()
            .with("http.url", "http://h/")
            .with("task.call.timeout.ms", "2000");
        let s = Settings::parse(&short).unwrap();
        assert_eq!(
            (s.timeout, s.budget),
            (Duration::from_millis(1600), Duration::from_millis(1600))
        );
        for url in ["ftp://x/y", "127.0.0.1:80", "http:///nohost", "https://user:pw@x/"] {
            let got = problems(&[("http.url", url)]);
            assert!(got.len() == 1 && got[0].starts_with("http.url"), "{url}: {got:?}");
        }
        assert!(problems(&[("http.url", "https://user:pw@x/")])[0].contains("http.authorization"));
        assert!(problems(&[("http.headers", "Host: x")])[0].contains("set by the HTTP client"));
        assert!(problems(&[("http.headers", "Authorization: Basic x")])[0].contains("http.authorization"));
        let secret = problems(&[("http.authorization", "Bearer \u{7}s3cret")]);
        assert!(secret[0].starts_with("http.authorization") && !secret[0].contains("s3cret"));
    }
}
