//! The blocking HTTP client of the CLI (ureq over rustls with the ring
//! provider): the worker's URL, credentials, TLS trust, and Kafka
//! Connect's error bodies turned into [`ClientError::Http`].

use std::time::Duration;

use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use ureq::Agent;
use ureq::http::{Method, Request};
use ureq::tls::{PemItem, RootCerts, TlsConfig};

use super::{ClientError, ClientOpts};

/// Characters kept as they are in a path segment (RFC 3986 unreserved).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A path segment (connector, plugin or version name), percent-encoded.
pub fn segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

/// A request body.
pub enum Body {
    /// JSON.
    Json(Value),
    /// Raw bytes with their content type.
    Raw {
        /// The bytes.
        bytes: Vec<u8>,
        /// Their `Content-Type`.
        content_type: &'static str,
    },
}

/// A 2xx answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The body as JSON (a JSON string if it is not JSON); `None` if empty.
    pub body: Option<Value>,
}

/// A worker's REST API.
pub struct Api {
    agent: Agent,
    base: String,
    authorization: Option<String>,
}

impl Api {
    /// The API at `opts.url` with `opts`' credentials and TLS settings.
    pub fn new(opts: &ClientOpts) -> Result<Self, ClientError> {
        let mut tls = TlsConfig::builder().disable_verification(opts.insecure);
        if let Some(path) = &opts.cacert {
            let pem = std::fs::read(path).map_err(|e| ClientError::file(path, format!("--cacert: {e}")))?;
            let mut certs = Vec::new();
            for item in ureq::tls::parse_pem(&pem) {
                if let PemItem::Certificate(c) = item.map_err(|e| ClientError::file(path, format!("--cacert: {e}")))? {
                    certs.push(c);
                }
            }
            if certs.is_empty() {
                return Err(ClientError::file(path, "--cacert: no CERTIFICATE in the PEM file"));
            }
            tls = tls.root_certs(RootCerts::new_with_certs(&certs));
        }
        let agent = Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_global(Some(Duration::from_secs(300)))
            .tls_config(tls.build())
            .build()
            .new_agent();
        let authorization = match (&opts.token, &opts.user) {
            (Some(token), _) => Some(format!("Bearer {token}")),
            (None, Some(user)) => {
                if !user.contains(':') {
                    return Err(ClientError::Invalid("--user must be user:password".into()));
                }
                Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(user)
                ))
            }
            (None, None) => None,
        };
        Ok(Self {
            agent,
            base: opts.url.trim_end_matches('/').to_owned(),
            authorization,
        })
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Result<Answer, ClientError> {
        self.call(Method::GET, path, None)
    }

    /// One request; a non-2xx answer is an error with the server's message.
    pub fn call(&self, method: Method, path: &str, body: Option<Body>) -> Result<Answer, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = Request::builder()
            .method(method)
            .uri(&url)
            .header("Accept", "application/json");
        if let Some(a) = &self.authorization {
            req = req.header("Authorization", a);
        }
        let (bytes, content_type) = match body {
            None => (Vec::new(), None),
            Some(Body::Json(v)) => (
                serde_json::to_vec(&v).map_err(|e| ClientError::Invalid(format!("encoding the request: {e}")))?,
                Some("application/json"),
            ),
            Some(Body::Raw { bytes, content_type }) => {
                // A large upload: let the server refuse it (401, 404, ...)
                // before the bytes are sent, instead of closing the
                // connection under a client still writing them.
                req = req.header("Expect", "100-continue");
                (bytes, Some(content_type))
            }
        };
        if let Some(ct) = content_type {
            req = req.header("Content-Type", ct);
        }
        let req = req
            .body(bytes)
            .map_err(|e| ClientError::Invalid(format!("bad URL {url}: {e}")))?;
        let connect = |e: ureq::Error| ClientError::Connect {
            url: url.clone(),
            source: Box::new(e),
        };
        let mut resp = self.agent.run(req).map_err(connect)?;
        let status = resp.status();
        let text = resp
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string()
            .map_err(connect)?;
        let body = if text.trim().is_empty() {
            None
        } else {
            Some(serde_json::from_str(&text).unwrap_or(Value::String(text)))
        };
        if status.is_success() {
            return Ok(Answer {
                status: status.as_u16(),
                body,
            });
        }
        let message = match &body {
            Some(Value::Object(m)) => match m.get("message") {
                Some(Value::String(s)) => s.clone(),
                _ => Value::Object(m.clone()).to_string(),
            },
            Some(Value::String(s)) => s.trim().to_owned(),
            Some(other) => other.to_string(),
            None => "the server gave no reason".to_owned(),
        };
        Err(ClientError::Http {
            status: status.as_u16(),
            reason: status.canonical_reason(),
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded() {
        assert_eq!(segment("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(segment("a b/c?d"), "a%20b%2Fc%3Fd");
    }
}
