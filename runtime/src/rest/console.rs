//! The web console at `/ui`: the single-page app built from
//! `runtime/console/` (`npm run build`, run by `just build`), embedded in
//! the binary. It calls only the public REST API and `/metrics`, so any
//! worker of a cluster serves the same console.
//!
//! Every path under `/ui` that is not an asset answers `index.html` (the
//! app routes in the browser). Hashed assets are cached for good, the page
//! never. Answers carry a strict Content-Security-Policy: the app loads
//! nothing from elsewhere. Off with `rest.console.enable=false`; a binary
//! built before the console was (plain `cargo build` on a fresh clone)
//! answers 404 saying how to build it. Served behind the same listener,
//! TLS and authentication as the API (the router is wrapped by `auth`).

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;

use super::error::RestError;

/// The console's build output (`runtime/console/dist`).
#[derive(RustEmbed)]
#[folder = "console/dist"]
#[allow_missing = true]
struct Assets;

/// What the browser may load and run on the console's pages.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; connect-src 'self'; img-src 'self' data:; \
     style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The console's routes: `/ui` (also `/ui/`: the API's path normalisation
/// strips a trailing slash before routing) and every path under it.
/// `on`: `rest.console.enable`.
pub fn routes<S: Clone + Send + Sync + 'static>(on: bool) -> Router<S> {
    Router::new()
        .route("/ui", get(move || async move { if on { page() } else { off() } }))
        .route(
            "/ui/{*path}",
            get(move |Path(path): Path<String>| async move { if on { asset(&path) } else { off() } }),
        )
}

/// Whether this binary holds a built console.
pub fn built() -> bool {
    Assets::get("index.html").is_some()
}

fn asset(path: &str) -> Response {
    // Vite names the files under assets/ by their content's hash.
    let hashed = path.starts_with("assets/");
    match Assets::get(path) {
        Some(file) => file_response(file, hashed),
        None if hashed => RestError::not_found(format!("the console has no file {path}")).into_response(),
        None => page(),
    }
}

fn off() -> Response {
    RestError::not_found("the web console is off on this worker (rest.console.enable=false)").into_response()
}

fn page() -> Response {
    match Assets::get("index.html") {
        Some(file) => file_response(file, false),
        None => RestError::not_found(
            "this copycat binary was built without its web console: build it with `just build` \
             (npm ci and npm run build in runtime/console, then cargo build)",
        )
        .into_response(),
    }
}

fn file_response(file: rust_embed::EmbeddedFile, immutable: bool) -> Response {
    let mime = file.metadata.mimetype().to_owned();
    let mut resp = (StatusCode::OK, file.data.into_owned()).into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&mime) {
        h.insert(header::CONTENT_TYPE, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if immutable {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        }),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    resp
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use axum::body::{Body, to_bytes};
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt;

    use super::*;

    fn app(on: bool) -> Router {
        routes(on)
    }

    async fn get(app: Router, path: &str) -> (StatusCode, axum::http::HeaderMap, String) {
        let resp = app
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let body = to_bytes(resp.into_body(), 1 << 22).await.unwrap();
        (status, headers, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn pages_assets_and_off() {
        let (status, headers, body) = get(app(true), "/ui").await;
        if built() {
            assert_eq!(status, StatusCode::OK);
            assert!(headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
            assert_eq!(headers[header::CONTENT_SECURITY_POLICY], CONTENT_SECURITY_POLICY);
            assert_eq!(headers[header::CACHE_CONTROL], "no-cache");
            // A route of the app (a connector's name may hold a dot) is the page too.
            let (status, _, deep) = get(app(true), "/ui/connectors/my.connector").await;
            assert_eq!((status, deep), (StatusCode::OK, body.clone()));
        } else {
            assert_eq!(status, StatusCode::NOT_FOUND);
            assert!(body.contains("just build"), "{body}");
        }
        let (status, _, body) = get(app(true), "/ui/assets/missing-0000.js").await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        for path in ["/ui", "/ui/connectors", "/ui/assets/index.js"] {
            let (status, _, body) = get(app(false), path).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
            assert!(body.contains("rest.console.enable=false"), "{body}");
        }
    }
}
