//! TLS for an `https://` REST listener: the PEM files named by
//! `listeners.https.ssl.*` turned into a rustls server config (ring
//! provider), and serving over it with axum-server.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;

use crate::config::TlsFiles;

/// How long a graceful shutdown waits for requests in flight.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// A TLS file could not be used (the key naming it, the file, why).
pub use super::auth::FileError as TlsError;

fn read(key: &'static str, path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        key,
        path: path.to_owned(),
        source,
    })
}

fn invalid(key: &'static str, path: &Path, reason: impl Into<String>) -> TlsError {
    TlsError::Invalid {
        key,
        path: path.to_owned(),
        reason: reason.into(),
    }
}

fn certificates(key: &'static str, path: &Path, pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(key, path, format!("bad PEM: {e}")))?;
    if certs.is_empty() {
        return Err(invalid(key, path, "no CERTIFICATE in the PEM file"));
    }
    Ok(certs)
}

fn private_key(key: &'static str, path: &Path, pem: &[u8]) -> Result<PrivateKeyDer<'static>, TlsError> {
    PrivateKeyDer::from_pem_slice(pem).map_err(|e| {
        invalid(
            key,
            path,
            format!("no usable PRIVATE KEY (PKCS#8, PKCS#1 or SEC1, unencrypted) in the PEM file: {e}"),
        )
    })
}

/// The rustls server config for `files` (HTTP/1.1 over TLS 1.2/1.3, no
/// client certificates). Errors name the key and the file.
pub fn server_config(files: &TlsFiles) -> Result<Arc<ServerConfig>, TlsError> {
    use crate::config::rest::{CERTIFICATE_LOCATION, KEY_LOCATION, KEYSTORE_LOCATION};
    let (certs, key, key_name, key_path) = match files {
        TlsFiles::Keystore(path) => {
            let pem = read(KEYSTORE_LOCATION, path)?;
            (
                certificates(KEYSTORE_LOCATION, path, &pem)?,
                private_key(KEYSTORE_LOCATION, path, &pem)?,
                KEYSTORE_LOCATION,
                path,
            )
        }
        TlsFiles::Separate { certificate, key } => {
            let cert_pem = read(CERTIFICATE_LOCATION, certificate)?;
            let key_pem = read(KEY_LOCATION, key)?;
            (
                certificates(CERTIFICATE_LOCATION, certificate, &cert_pem)?,
                private_key(KEY_LOCATION, key, &key_pem)?,
                KEY_LOCATION,
                key,
            )
        }
    };
    let mut config = ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(key_name, key_path, format!("TLS setup failed: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            invalid(
                key_name,
                key_path,
                format!("the private key does not fit the certificate or is unsupported: {e}"),
            )
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Serve `app` over TLS on `listener` until `shutdown` resolves, then
/// finish the requests in flight (at most 30 s).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Arc<ServerConfig>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = listener.into_std()?;
    let handle = axum_server::Handle::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        stopper.graceful_shutdown(Some(SHUTDOWN_GRACE));
    });
    axum_server::tls_rustls::from_tcp_rustls(listener, axum_server::tls_rustls::RustlsConfig::from_config(tls))?
        .handle(handle)
        .serve(app.into_make_service())
        .await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn errors_name_the_key_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let err = server_config(&TlsFiles::Keystore(missing)).unwrap_err().to_string();
        assert!(
            err.contains("listeners.https.ssl.keystore.location") && err.contains("missing.pem"),
            "{err}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not pem\n").unwrap();
        let err = server_config(&TlsFiles::Keystore(empty.clone()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no CERTIFICATE") && err.contains("empty.pem"), "{err}");
        let err = server_config(&TlsFiles::Separate {
            certificate: empty.clone(),
            key: empty,
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("listeners.https.ssl.certificate.location"), "{err}");
    }
}
