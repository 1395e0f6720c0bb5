//! Optional authentication of the REST API (`rest.auth.type`): HTTP Basic
//! against a users file (`user=password` lines, like Kafka's
//! PropertyFileLoginModule) or bearer tokens from a tokens file (one per
//! line), as an axum middleware layer ([`protect`]).
//!
//! Secrets are kept as SHA-256 digests and compared in constant time
//! (`subtle`), every entry each time. A request without valid credentials
//! gets 401 with Kafka Connect's `{"error_code":401,"message":...}` body and
//! a `WWW-Authenticate` challenge. `GET /health` stays open for liveness
//! probes (it tells nothing but that the worker answers).
//!
//! The web console (`/ui`) asks for credentials too: with Basic, the
//! browser's own prompt (the challenge), whose answer the browser then
//! sends with the console's API calls. A browser has no prompt for bearer
//! tokens, so with bearer the console's pages lead to a sign-in form at
//! `/ui/login` (served without credentials; it shows nothing else), whose
//! valid token is kept in an `HttpOnly`, `SameSite=Strict` cookie that the
//! worker accepts in place of the header (`Secure` on an https listener;
//! `POST /ui/logout` clears it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConstantTimeEq};

use super::error::RestError;
use crate::config::RestAuthConfig;

/// The path served without credentials.
pub const OPEN_PATH: &str = "/health";

/// A file a listener key names (credentials here, certificates and keys
/// in `tls.rs`) could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read.
    #[error("{key}: cannot read {}: {source}", path.display())]
    Read {
        /// The config key naming the file.
        key: &'static str,
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file's content is unusable.
    #[error("{key}: {}: {reason}", path.display())]
    Invalid {
        /// The config key naming the file.
        key: &'static str,
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A credentials file could not be used.
pub type AuthError = FileError;

type Digest32 = [u8; 32];

fn digest(secret: &[u8]) -> Digest32 {
    Sha256::digest(secret).into()
}

/// Who may call the API.
#[derive(Clone, Default)]
pub enum RestAuth {
    /// Everyone (`rest.auth.type=none`).
    #[default]
    None,
    /// HTTP Basic: digests of each user name and password.
    Basic(Vec<(Digest32, Digest32)>),
    /// Bearer tokens: their digests.
    Bearer(Vec<Digest32>),
}

impl std::fmt::Debug for RestAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => f.write_str("RestAuth::None"),
            Self::Basic(u) => write!(f, "RestAuth::Basic({} users)", u.len()),
            Self::Bearer(t) => write!(f, "RestAuth::Bearer({} tokens)", t.len()),
        }
    }
}

impl RestAuth {
    /// HTTP Basic with these `(user, password)` pairs.
    pub fn basic<U: AsRef<str>, P: AsRef<str>>(users: impl IntoIterator<Item = (U, P)>) -> Self {
        Self::Basic(
            users
                .into_iter()
                .map(|(u, p)| (digest(u.as_ref().as_bytes()), digest(p.as_ref().as_bytes())))
                .collect(),
        )
    }

    /// Bearer authentication with these tokens.
    pub fn bearer<T: AsRef<str>>(tokens: impl IntoIterator<Item = T>) -> Self {
        Self::Bearer(tokens.into_iter().map(|t| digest(t.as_ref().as_bytes())).collect())
    }

    /// Read the file `config` names; errors name the key and the file.
    pub fn load(config: &RestAuthConfig) -> Result<Self, AuthError> {
        match config {
            RestAuthConfig::None => Ok(Self::None),
            RestAuthConfig::Basic { users_file } => {
                const KEY: &str = "rest.auth.basic.users.file";
                let props = crate::config::load_properties(users_file).map_err(|e| AuthError::Invalid {
                    key: KEY,
                    path: users_file.clone(),
                    reason: e.to_string(),
                })?;
                if let Some((user, _)) = props.iter().find(|(_, p)| p.is_empty()) {
                    return Err(invalid(KEY, users_file, format!("user '{user}' has an empty password")));
                }
                if props.is_empty() {
                    return Err(invalid(KEY, users_file, "no users (one `user=password` per line)"));
                }
                Ok(Self::basic(props))
            }
            RestAuthConfig::Bearer { tokens_file } => {
                const KEY: &str = "rest.auth.bearer.tokens.file";
                let text = std::fs::read_to_string(tokens_file).map_err(|source| AuthError::Read {
                    key: KEY,
                    path: tokens_file.clone(),
                    source,
                })?;
                let tokens: Vec<&str> = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .collect();
                if tokens.is_empty() {
                    return Err(invalid(KEY, tokens_file, "no tokens (one per line)"));
                }
                Ok(Self::bearer(tokens))
            }
        }
    }

    fn scheme(&self) -> &'static str {
        match self {
            Self::None => "",
            Self::Basic(_) => "Basic",
            Self::Bearer(_) => "Bearer",
        }
    }

    /// Whether `token` is one of the bearer tokens (constant time).
    fn valid_token(&self, token: &str) -> bool {
        let Self::Bearer(tokens) = self else {
            return false;
        };
        let d = digest(token.trim().as_bytes());
        bool::from(tokens.iter().fold(Choice::from(0), |acc, t| acc | t.ct_eq(&d)))
    }

    /// Whether `headers` carry valid credentials; `Err` explains why not.
    fn check(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let presented = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
        match self {
            Self::None => Ok(()),
            Self::Bearer(_) => {
                let token = match presented.and_then(|h| strip_scheme(h, "Bearer")) {
                    Some(t) => t.to_owned(),
                    None => console_cookie(headers)
                        .ok_or("Authentication required: send an 'Authorization: Bearer <token>' header")?,
                };
                self.valid_token(&token).then_some(()).ok_or("Invalid bearer token")
            }
            Self::Basic(users) => {
                let encoded = presented
                    .and_then(|h| strip_scheme(h, "Basic"))
                    .ok_or("Authentication required: send HTTP Basic credentials")?;
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .map_err(|_| "Malformed Basic credentials")?;
                let text = String::from_utf8(decoded).map_err(|_| "Malformed Basic credentials")?;
                let (user, password) = text.split_once(':').ok_or("Malformed Basic credentials")?;
                let (du, dp) = (digest(user.as_bytes()), digest(password.as_bytes()));
                let ok = users
                    .iter()
                    .fold(Choice::from(0), |acc, (u, p)| acc | (u.ct_eq(&du) & p.ct_eq(&dp)));
                bool::from(ok).then_some(()).ok_or("Invalid user name or password")
            }
        }
    }
}

fn invalid(key: &'static str, path: &Path, reason: impl Into<String>) -> AuthError {
    AuthError::Invalid {
        key,
        path: path.to_owned(),
        reason: reason.into(),
    }
}

/// The credentials after `scheme ` (the scheme is case-insensitive).
fn strip_scheme<'a>(header: &'a str, scheme: &str) -> Option<&'a str> {
    let (s, rest) = header.split_once(' ')?;
    s.eq_ignore_ascii_case(scheme).then_some(rest)
}

/// `router` with `auth` checked on every request but `GET /health`
/// (unchanged when `auth` is [`RestAuth::None`]); with bearer tokens, the
/// console's sign-in at `/ui/login` (its cookie `Secure` when `tls`).
pub fn protect(router: Router, auth: Arc<RestAuth>, tls: bool) -> Router {
    if matches!(*auth, RestAuth::None) {
        return router;
    }
    let protected = router.layer(axum::middleware::from_fn_with_state(auth.clone(), authenticate));
    if !matches!(*auth, RestAuth::Bearer(_)) {
        return protected;
    }
    Router::new()
        .route(LOGIN_PATH, axum::routing::get(login_form).post(login))
        .route("/ui/logout", axum::routing::post(logout))
        .with_state(Login { auth, tls })
        .merge(protected)
}

/// The console's sign-in form (bearer tokens only).
pub const LOGIN_PATH: &str = "/ui/login";
/// The cookie holding a signed-in console's token (base64url).
const TOKEN_COOKIE: &str = "copycat_token";

#[derive(Clone)]
struct Login {
    auth: Arc<RestAuth>,
    tls: bool,
}

/// The token in the console's cookie, if any.
fn console_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(name, _)| *name == TOKEN_COOKIE)
        .and_then(|(_, value)| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(value).ok())
        .and_then(|b| String::from_utf8(b).ok())
}

/// The sign-in page: no script, nothing of the worker on it.
fn login_page(status: StatusCode, message: &str) -> Response {
    let message = message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sign in · Copycat</title>\
         <meta name=\"viewport\" content=\"width=device-width\"><style>body{{font:16px system-ui,sans-serif;\
         max-width:26rem;margin:4rem auto;padding:0 1rem}}input,button{{font:inherit;padding:.4rem;width:100%;\
         box-sizing:border-box;margin:.3rem 0}}p.e{{color:#a00;min-height:1.5em}}</style></head><body>\
         <h1>Copycat</h1><p>This worker requires a bearer token (<code>rest.auth.type=bearer</code>).</p>\
         <form method=\"post\" action=\"/ui/login\"><label for=\"token\">Token</label>\
         <input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"current-password\" required autofocus>\
         <p class=\"e\" role=\"alert\" data-testid=\"login-error\">{message}</p>\
         <button type=\"submit\" data-testid=\"login-submit\">Sign in</button></form></body></html>"
    );
    let mut resp = (status, axum::response::Html(html)).into_response();
    let h = resp.headers_mut();
    h.insert(
        axum::http::header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    h.insert(axum::http::header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

async fn login_form() -> Response {
    login_page(StatusCode::OK, "")
}

#[derive(serde::Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    State(l): State<Login>,
    form: Result<axum::Form<LoginForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let Ok(axum::Form(form)) = form else {
        return login_page(StatusCode::BAD_REQUEST, "Send the form's token field");
    };
    if !l.auth.valid_token(&form.token) {
        return login_page(StatusCode::UNAUTHORIZED, "Invalid bearer token");
    }
    let value = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(form.token.trim());
    let cookie = format!(
        "{TOKEN_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=28800{}",
        if l.tls { "; Secure" } else { "" }
    );
    let mut resp = axum::response::Redirect::to("/ui/").into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().insert(axum::http::header::SET_COOKIE, v);
    }
    resp
}

async fn logout(State(l): State<Login>) -> Response {
    let cookie = format!(
        "{TOKEN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{}",
        if l.tls { "; Secure" } else { "" }
    );
    let mut resp = axum::response::Redirect::to(LOGIN_PATH).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().insert(axum::http::header::SET_COOKIE, v);
    }
    resp
}

/// A browser asking for one of the console's pages (not an asset, not the API).
fn console_page(req: &Request) -> bool {
    let path = req.uri().path();
    req.method() == axum::http::Method::GET
        && (path == "/ui" || path.starts_with("/ui/"))
        && !path.starts_with("/ui/assets/")
}

async fn authenticate(State(auth): State<Arc<RestAuth>>, req: Request, next: Next) -> Response {
    if req.uri().path() == OPEN_PATH {
        return next.run(req).await;
    }
    match auth.check(req.headers()) {
        Ok(()) => next.run(req).await,
        Err(_) if matches!(*auth, RestAuth::Bearer(_)) && console_page(&req) => {
            axum::response::Redirect::to(LOGIN_PATH).into_response()
        }
        Err(why) => {
            let mut resp = RestError::new(StatusCode::UNAUTHORIZED, why).into_response();
            let challenge = format!("{} realm=\"copycat\"", auth.scheme());
            if let Ok(v) = HeaderValue::from_str(&challenge) {
                resp.headers_mut().insert(WWW_AUTHENTICATE, v);
            }
            resp
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use axum::routing::get;
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use super::*;

    fn app(auth: RestAuth) -> Router {
        let router = Router::new()
            .route("/connectors", get(|| async { "[]" }))
            .route(OPEN_PATH, get(|| async { "healthy" }))
            .fallback(|| async { RestError::not_found("HTTP 404 Not Found") });
        protect(router, Arc::new(auth), false)
    }

    async fn call(app: Router, path: &str, authorization: Option<&str>) -> (StatusCode, Option<String>, Value) {
        let mut req = Request::get(path);
        if let Some(a) = authorization {
            req = req.header(AUTHORIZATION, a);
        }
        let resp = app.oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
        let status = resp.status();
        let challenge = resp
            .headers()
            .get(WWW_AUTHENTICATE)
            .map(|v| v.to_str().unwrap().to_owned());
        let bytes = to_bytes(resp.into_body(), 1 << 20).await.unwrap();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, challenge, body)
    }

    fn basic(user: &str, password: &str) -> String {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        )
    }

    #[tokio::test]
    async fn bearer_tokens() {
        let app = || app(RestAuth::bearer(["s3cret", "other"]));
        let (status, challenge, body) = call(app(), "/connectors", None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(challenge.as_deref(), Some("Bearer realm=\"copycat\""));
        assert_eq!(body["error_code"], json!(401));
        assert!(body["message"].as_str().unwrap().contains("Authorization"), "{body}");

        let (status, challenge, body) = call(app(), "/connectors", Some("Bearer nope")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(challenge.is_some());
        assert_eq!(body, json!({"error_code": 401, "message": "Invalid bearer token"}));
        // Unknown paths are not revealed without credentials either.
        assert_eq!(call(app(), "/nowhere", None).await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(
            call(app(), "/connectors", Some(&basic("s3cret", "x"))).await.0,
            StatusCode::UNAUTHORIZED,
            "another scheme"
        );

        let (status, _, body) = call(app(), "/connectors", Some("Bearer s3cret")).await;
        assert_eq!((status, body), (StatusCode::OK, json!([])));
        assert_eq!(call(app(), "/connectors", Some("bearer other")).await.0, StatusCode::OK);
        assert_eq!(
            call(app(), "/nowhere", Some("Bearer other")).await.0,
            StatusCode::NOT_FOUND
        );
    }

    #[tokio::test]
    async fn basic_users() {
        let app = || app(RestAuth::basic([("alice", "wonder:land"), ("bob", "builder")]));
        let (status, challenge, body) = call(app(), "/connectors", None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(challenge.as_deref(), Some("Basic realm=\"copycat\""));
        assert_eq!(body["error_code"], json!(401));
        for wrong in [
            basic("alice", "builder"),
            basic("bob", "wonder:land"),
            basic("carol", "x"),
            "Basic !!!".to_owned(),
            "Bearer builder".to_owned(),
        ] {
            let (status, _, body) = call(app(), "/connectors", Some(&wrong)).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{wrong}");
            assert_eq!(body["error_code"], json!(401), "{wrong}");
        }
        assert_eq!(
            call(app(), "/connectors", Some(&basic("alice", "wonder:land"))).await.0,
            StatusCode::OK,
            "a password may contain ':'"
        );
        assert_eq!(
            call(app(), "/connectors", Some(&basic("bob", "builder"))).await.0,
            StatusCode::OK
        );
    }

    #[tokio::test]
    async fn health_stays_open() {
        for auth in [RestAuth::bearer(["t"]), RestAuth::basic([("u", "p")])] {
            let (status, _, body) = call(app(auth), OPEN_PATH, None).await;
            assert_eq!((status, body), (StatusCode::OK, json!("healthy")));
        }
        assert_eq!(
            call(app(RestAuth::None), "/connectors", None).await.0,
            StatusCode::OK,
            "no auth configured: open"
        );
    }

    #[test]
    fn files_are_read_and_errors_name_key_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = dir.path().join("tokens");
        std::fs::write(&tokens, "# ops\n  abc  \n\ndef\n").unwrap();
        let auth = RestAuth::load(&RestAuthConfig::Bearer {
            tokens_file: tokens.clone(),
        })
        .unwrap();
        assert!(matches!(&auth, RestAuth::Bearer(t) if t.len() == 2), "{auth:?}");
        let users = dir.path().join("users.properties");
        std::fs::write(&users, "alice=pw1\nbob = pw2\n").unwrap();
        let auth = RestAuth::load(&RestAuthConfig::Basic {
            users_file: users.clone(),
        })
        .unwrap();
        assert!(matches!(&auth, RestAuth::Basic(u) if u.len() == 2), "{auth:?}");

        let missing = dir.path().join("missing");
        let err = RestAuth::load(&RestAuthConfig::Bearer {
            tokens_file: missing.clone(),
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("rest.auth.bearer.tokens.file") && err.contains("missing"),
            "{err}"
        );
        std::fs::write(&tokens, "# nothing\n").unwrap();
        let err = RestAuth::load(&RestAuthConfig::Bearer { tokens_file: tokens })
            .unwrap_err()
            .to_string();
        assert!(err.contains("no tokens"), "{err}");
        let err = RestAuth::load(&RestAuthConfig::Basic { users_file: missing })
            .unwrap_err()
            .to_string();
        assert!(err.contains("rest.auth.basic.users.file"), "{err}");
    }
}
