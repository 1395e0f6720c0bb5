//! The [`Transport`] of the component: `wasi:http/outgoing-handler`
//! through `wstd`'s client, one request at a time (each in its own
//! `block_on`: the task's calls are synchronous); pauses on
//! `wasi:clocks`. The host sends the request (wasmtime-wasi-http's client:
//! hyper, and rustls for `https` with the webpki roots) once
//! `grants.http.hosts` allows its host and port.

use std::time::{Duration, Instant};

use wstd::http::error::ErrorCode;
use wstd::http::{Body, Client, Request as HttpRequest};

use crate::send::{Answer, Failure, Request, Transport, excerpt};

/// Requests over `wasi:http`.
#[derive(Debug, Default)]
pub struct WasiHttp;

impl Transport for WasiHttp {
    fn send(&mut self, request: &Request<'_>) -> Result<Answer, Failure> {
        wstd::runtime::block_on(send(request))
    }

    fn sleep(&mut self, pause: Duration) {
        std::thread::sleep(pause);
    }

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn unix_now(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

async fn send(request: &Request<'_>) -> Result<Answer, Failure> {
    let mut client = Client::new();
    client.set_connect_timeout(request.timeout);
    client.set_first_byte_timeout(request.timeout);
    client.set_between_bytes_timeout(request.timeout);
    let mut builder = HttpRequest::builder()
        .method(request.method.as_str())
        .uri(request.url.clone())
        .header(http::header::CONTENT_LENGTH, request.body.len());
    for (name, value) in request.headers {
        builder = builder.header(name, value);
    }
    let http_request = builder
        .body(Body::from(request.body.to_vec()))
        .map_err(|e| Failure::Transport(format!("building the request: {e}")))?;
    let response = client.send(http_request).await.map_err(failure)?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut body = response.into_body();
    let excerpt = match body.contents().await {
        Ok(bytes) => excerpt(bytes),
        Err(e) => format!("(the body could not be read: {e})"),
    };
    Ok(Answer {
        status,
        retry_after,
        excerpt,
    })
}

/// What the error `wasi:http` (or `wstd`) gave means here.
fn failure(e: wstd::http::Error) -> Failure {
    match e.downcast_ref::<ErrorCode>() {
        Some(ErrorCode::HttpRequestDenied) => Failure::Denied,
        Some(
            code @ (ErrorCode::TlsProtocolError | ErrorCode::TlsCertificateError | ErrorCode::TlsAlertReceived(_)),
        ) => Failure::Tls(name(code)),
        Some(code) => Failure::Transport(name(code)),
        None => Failure::Transport(format!("{e:#}")),
    }
}

/// `ErrorCode::ConnectionRefused` as `ConnectionRefused`.
fn name(code: &ErrorCode) -> String {
    let debug = format!("{code:?}");
    debug.strip_prefix("ErrorCode::").unwrap_or(&debug).to_owned()
}
