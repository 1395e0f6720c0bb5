//! What handlers take from a request (JSON bodies, query flags), and the
//! way off the async runtime for blocking worker calls.

use serde::de::DeserializeOwned;

use super::error::RestError;

/// Parse a JSON body; a malformed one is a 400 naming serde's complaint.
pub(crate) fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, RestError> {
    serde_json::from_slice(body).map_err(|e| RestError::bad_request(format!("Request body is not valid JSON: {e}")))
}

/// Run blocking worker code (guest calls, joining task threads, Kafka
/// admin calls) off the async runtime's threads.
pub(crate) async fn blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Result<R, RestError> {
    crate::util::blocking(f)
        .await
        .ok_or_else(|| RestError::internal("the request's worker thread panicked".to_owned()))
}

/// A query string's `key=value` pairs, repeated keys kept (`expand=status&expand=info`).
pub(crate) type QueryPairs = axum::extract::Query<Vec<(String, String)>>;

/// Whether a boolean query flag is set (`true`, case-insensitive).
pub(crate) fn flag(q: &[(String, String)], key: &str) -> Result<bool, RestError> {
    match q
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.to_ascii_lowercase())
    {
        None => Ok(false),
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" || v.is_empty() => Ok(false),
        Some(v) => Err(RestError::bad_request(format!(
            "query parameter {key}: '{v}' is not true or false"
        ))),
    }
}
