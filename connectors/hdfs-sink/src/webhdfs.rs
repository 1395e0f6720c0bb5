//! The few WebHDFS calls the sink makes (CREATE, RENAME, LISTSTATUS,
//! GETFILESTATUS, MKDIRS, DELETE), over `wasi:http` with `wstd`'s client:
//! each call runs to completion in its own `block_on`, so the task's
//! callbacks stay synchronous.
//!
//! CREATE is two requests, as WebHDFS asks: the namenode answers with the
//! datanode's address (`noredirect=true`: as JSON rather than a 307), the
//! body goes there. Both hosts must be in `grants.http.hosts`. Errors keep
//! what the caller needs to choose between retrying and failing: a denied
//! request (no grant) and an `AccessControlException` are the operator's
//! to fix; a refused connection, a timeout or a 5xx may pass.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value as Json;
use wstd::http::body::Bytes;
use wstd::http::body::util::Empty;
use wstd::http::{Body, Client, ErrorCode, Method, Request};
use wstd::time::Duration;

/// Percent-encoded in paths: everything but unreserved characters and `/`
/// (`+` and `=`, in the sink's names, included: a query decodes `+` as a
/// space).
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
/// Percent-encoded in query values.
const QUERY: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// Why a WebHDFS call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HdfsError {
    /// The host refused the request: its host is not in `grants.http.hosts`.
    Denied(String),
    /// HDFS refused it for good (permissions, a bad path, ...).
    Refused(String),
    /// Not reached, timed out, or a server error: may pass.
    Unavailable(String),
}

impl std::fmt::Display for HdfsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Denied(m) | Self::Refused(m) | Self::Unavailable(m) => f.write_str(m),
        }
    }
}

/// An entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name in the directory.
    pub name: String,
    /// Whether it is a directory.
    pub directory: bool,
}

/// A WebHDFS endpoint: the namenode's HTTP address and the user requests
/// run as.
#[derive(Debug, Clone)]
pub struct WebHdfs {
    /// `http://host:port`, no trailing slash.
    base: String,
    /// `user.name`, if set.
    user: Option<String>,
    /// Connect, first-byte and between-bytes timeout.
    timeout: Duration,
}

/// One answer: status and body.
struct Answer {
    status: u16,
    body: Vec<u8>,
    /// The `Location` header (a 307's target).
    location: Option<String>,
}

impl WebHdfs {
    /// An endpoint at `base` (`http://host:port`).
    pub fn new(base: &str, user: Option<&str>, timeout_ms: u64) -> Self {
        Self {
            base: base.trim_end_matches('/').to_owned(),
            user: user.map(str::to_owned),
            timeout: Duration::from_millis(timeout_ms),
        }
    }

    fn url(&self, path: &str, op: &str, params: &[(&str, &str)]) -> String {
        let mut url = format!("{}/webhdfs/v1{}?op={op}", self.base, utf8_percent_encode(path, PATH));
        if let Some(user) = &self.user {
            url.push_str("&user.name=");
            url.extend(utf8_percent_encode(user, QUERY));
        }
        for (k, v) in params {
            url.push('&');
            url.push_str(k);
            url.push('=');
            url.extend(utf8_percent_encode(v, QUERY));
        }
        url
    }

    /// Send one request (`body`: none, or the bytes to upload); `Err` only
    /// if no answer came.
    fn send(&self, method: Method, url: &str, body: Option<Vec<u8>>) -> Result<Answer, HdfsError> {
        let uploads = body.is_some();
        let what = format!("{method} {}", strip_query(url));
        match self.send_once(method, url, body) {
            Ok(answer) => Ok(answer),
            Err(e) => {
                if let Some(ErrorCode::HttpRequestDenied) = e.downcast_ref::<ErrorCode>() {
                    return Err(denied(url));
                }
                // wstd sends the body and awaits the answer together: when
                // the host denies a request with a body, writing the body
                // fails first (the stream is closed) and hides the denial.
                // A request without a body to the same host tells.
                let scheme = url.split_once("://").map_or("http", |(s, _)| s);
                let root = format!("{scheme}://{}/", authority(url));
                if uploads
                    && let Err(probe) = self.send_once(Method::GET, &root, None)
                    && let Some(ErrorCode::HttpRequestDenied) = probe.downcast_ref::<ErrorCode>()
                {
                    return Err(denied(url));
                }
                Err(HdfsError::Unavailable(format!("{what}: {e:#}")))
            }
        }
    }

    fn send_once(&self, method: Method, url: &str, body: Option<Vec<u8>>) -> Result<Answer, wstd::http::Error> {
        let mut client = Client::new();
        client.set_connect_timeout(self.timeout);
        client.set_first_byte_timeout(self.timeout);
        client.set_between_bytes_timeout(self.timeout);
        let body = match body {
            Some(data) => Body::from(data),
            // Nothing written: a denial shows as such (see `send`).
            None => Body::from_http_body(Empty::<Bytes>::new()),
        };
        let request = Request::builder()
            .method(method)
            .uri(url)
            .header("content-type", "application/octet-stream")
            .body(body)?;
        wstd::runtime::block_on(async {
            let mut response = client.send(request).await?;
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = response.body_mut().contents().await?.to_vec();
            Ok(Answer { status, body, location })
        })
    }

    /// Send an operation to the namenode and parse its JSON answer;
    /// non-2xx answers become errors (`None` for a 404 when `missing_ok`).
    fn call(&self, method: Method, path: &str, op: &str, params: &[(&str, &str)]) -> Result<Option<Json>, HdfsError> {
        let url = self.url(path, op, params);
        let answer = self.send(method, &url, None)?;
        if answer.status == 404 && op != "CREATE" {
            return Ok(None);
        }
        // A namenode that ignores `noredirect` (before Hadoop 2.8) answers
        // CREATE with the 307 itself.
        if answer.status == 307
            && let Some(location) = answer.location
        {
            return Ok(Some(serde_json::json!({ "Location": location })));
        }
        check(&answer, &format!("{op} {path}"))?;
        if answer.body.is_empty() {
            return Ok(Some(Json::Null));
        }
        serde_json::from_slice(&answer.body)
            .map(Some)
            .map_err(|e| HdfsError::Unavailable(format!("{op} {path}: not JSON ({e})")))
    }

    /// Write `data` as a new file at `path` (replacing one there), parent
    /// directories made as needed.
    pub fn create(&self, path: &str, data: Vec<u8>) -> Result<(), HdfsError> {
        let answer = self.call(
            Method::PUT,
            path,
            "CREATE",
            &[("overwrite", "true"), ("noredirect", "true")],
        )?;
        let location = answer
            .as_ref()
            .and_then(|j| j.get("Location"))
            .and_then(Json::as_str)
            .ok_or_else(|| HdfsError::Unavailable(format!("CREATE {path}: the namenode named no datanode")))?
            .to_owned();
        let written = self.send(Method::PUT, &location, Some(data))?;
        check(&written, &format!("CREATE {path} (datanode {})", authority(&location)))
    }

    /// Rename `from` to `to` (whose directory must exist): `false` if HDFS
    /// did not (the target exists, or the source does not).
    pub fn rename(&self, from: &str, to: &str) -> Result<bool, HdfsError> {
        let answer = self.call(Method::PUT, from, "RENAME", &[("destination", to)])?;
        Ok(boolean(answer.as_ref()))
    }

    /// Make `path` and its parents (true if it is there now).
    pub fn mkdirs(&self, path: &str) -> Result<bool, HdfsError> {
        let answer = self.call(Method::PUT, path, "MKDIRS", &[])?;
        Ok(boolean(answer.as_ref()))
    }

    /// Delete `path` and what it holds: whether there was something.
    pub fn delete_recursive(&self, path: &str) -> Result<bool, HdfsError> {
        let answer = self.call(Method::DELETE, path, "DELETE", &[("recursive", "true")])?;
        Ok(boolean(answer.as_ref()))
    }

    /// Whether `path` exists.
    pub fn exists(&self, path: &str) -> Result<bool, HdfsError> {
        Ok(self.call(Method::GET, path, "GETFILESTATUS", &[])?.is_some())
    }

    /// The entries of directory `path`; none if it does not exist.
    pub fn list(&self, path: &str) -> Result<Vec<Entry>, HdfsError> {
        let Some(answer) = self.call(Method::GET, path, "LISTSTATUS", &[])? else {
            return Ok(Vec::new());
        };
        let statuses = answer
            .pointer("/FileStatuses/FileStatus")
            .and_then(Json::as_array)
            .ok_or_else(|| HdfsError::Unavailable(format!("LISTSTATUS {path}: no FileStatuses in the answer")))?;
        Ok(statuses
            .iter()
            .filter_map(|s| {
                Some(Entry {
                    name: s.get("pathSuffix")?.as_str()?.to_owned(),
                    directory: s.get("type").and_then(Json::as_str) == Some("DIRECTORY"),
                })
            })
            .collect())
    }
}

fn boolean(answer: Option<&Json>) -> bool {
    answer.and_then(|j| j.get("boolean")).and_then(Json::as_bool) == Some(true)
}

fn strip_query(url: &str) -> &str {
    url.split_once('?').map_or(url, |(u, _)| u)
}

fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?']).next().unwrap_or(rest)
}

/// A request the host denied: its host is not granted.
fn denied(url: &str) -> HdfsError {
    HdfsError::Denied(format!(
        "a request to {} was denied: grants.http.hosts must name the WebHDFS namenode and every \
         datanode it redirects writes to (host:port each)",
        authority(url)
    ))
}

/// `Ok` for a 2xx answer; otherwise the RemoteException's message, as
/// `Refused` (4xx but 408/429) or `Unavailable`.
fn check(answer: &Answer, what: &str) -> Result<(), HdfsError> {
    if (200..300).contains(&answer.status) {
        return Ok(());
    }
    let remote: Option<Json> = serde_json::from_slice(&answer.body).ok();
    let exception = remote
        .as_ref()
        .and_then(|j| j.pointer("/RemoteException/exception"))
        .and_then(Json::as_str);
    let message = remote
        .as_ref()
        .and_then(|j| j.pointer("/RemoteException/message"))
        .and_then(Json::as_str);
    let reason = match (exception, message) {
        (Some(x), Some(m)) => format!("{x}: {m}"),
        _ => String::from_utf8_lossy(&answer.body).chars().take(300).collect(),
    };
    let message = format!("{what}: HTTP {}: {reason}", answer.status);
    // Safe mode, standby namenode and friends come back as 403 with a
    // RetriableException or StandbyException: they pass.
    let passing = matches!(
        exception,
        Some("RetriableException" | "StandbyException" | "SafeModeException")
    );
    if (400..500).contains(&answer.status) && !matches!(answer.status, 408 | 429) && !passing {
        Err(HdfsError::Refused(message))
    } else {
        Err(HdfsError::Unavailable(message))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_query_values_are_percent_encoded() {
        let h = WebHdfs::new("http://127.0.0.1:9870/", Some("a b"), 1000);
        assert_eq!(
            h.url(
                "/topics/t/partition=0/t+0+0000000001+0000000002.json",
                "RENAME",
                &[("destination", "/x/p=1/a+b")]
            ),
            "http://127.0.0.1:9870/webhdfs/v1/topics/t/partition%3D0/t%2B0%2B0000000001%2B0000000002.json\
             ?op=RENAME&user.name=a%20b&destination=%2Fx%2Fp%3D1%2Fa%2Bb"
        );
        assert_eq!(
            authority("http://127.0.0.1:9864/webhdfs/v1/x?op=CREATE"),
            "127.0.0.1:9864"
        );
    }

    #[test]
    fn refusals_and_passing_failures() {
        let answer = |status, body: &str| Answer {
            status,
            body: body.as_bytes().to_vec(),
            location: None,
        };
        let e = check(
            &answer(
                403,
                r#"{"RemoteException":{"exception":"AccessControlException","message":"no"}}"#,
            ),
            "CREATE /x",
        );
        assert_eq!(
            e,
            Err(HdfsError::Refused(
                "CREATE /x: HTTP 403: AccessControlException: no".into()
            ))
        );
        let e = check(
            &answer(
                403,
                r#"{"RemoteException":{"exception":"RetriableException","message":"safe mode"}}"#,
            ),
            "w",
        );
        assert!(matches!(e, Err(HdfsError::Unavailable(_))));
        assert!(matches!(check(&answer(503, ""), "w"), Err(HdfsError::Unavailable(_))));
        assert!(check(&answer(201, ""), "w").is_ok());
    }
}
