//! Why a broker's certificate did not verify. librdkafka reports every
//! failed verification as the same "certificate verify failed"; when it
//! does, this module repeats the TLS handshake with the client's trust
//! settings (rustls) to name the cause: expired, issued for another host,
//! signed by a CA the client does not trust.
//!
//! Diagnosis only: it runs after librdkafka has already failed, never
//! decides whether a connection is allowed, and a check that cannot run
//! (unreadable CA file, broker gone) says nothing rather than guess.

use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use rdkafka::ClientConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{CertificateError, Error as TlsError};

/// Where OpenSSL's default trust store usually is, for clients that set no
/// CA (librdkafka then uses the system's).
const SYSTEM_CA_FILES: &[&str] = &["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"];

const TIMEOUT: Duration = Duration::from_secs(5);

/// The reason the first bootstrap broker's certificate fails verification
/// under `cfg`'s trust settings, if the client uses TLS and that is what
/// went wrong.
pub(crate) fn certificate_problem(cfg: &ClientConfig) -> Option<String> {
    let protocol = cfg.get("security.protocol")?.to_ascii_uppercase();
    if protocol != "SSL" && protocol != "SASL_SSL" {
        return None;
    }
    let address = cfg.get("bootstrap.servers")?.split(',').next()?.trim();
    let address = address.rsplit_once("://").map_or(address, |(_, a)| a);
    let (host, _) = address.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let verify_host = cfg
        .get("ssl.endpoint.identification.algorithm")
        .is_none_or(|v| !v.eq_ignore_ascii_case("none"));
    let roots = trust_anchors(cfg)?;
    match handshake(address, host, roots)? {
        TlsError::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) if !verify_host => None,
        TlsError::InvalidCertificate(e) => Some(format!(
            "the certificate of the broker at {address} {}",
            describe(&e, host)
        )),
        _ => None,
    }
}

fn describe(e: &CertificateError, host: &str) -> String {
    match e {
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => "has expired".into(),
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => "is not valid yet".into(),
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => format!(
            "is not issued for {host} (hostname verification; ssl.endpoint.identification.algorithm= turns it off)"
        ),
        CertificateError::UnknownIssuer => {
            "is not signed by a CA in the client's truststore (ssl.truststore.location / ssl.ca.location)".into()
        }
        CertificateError::Revoked => "is revoked".into(),
        other => format!("does not verify: {other:?}"),
    }
}

/// The CA certificates the client trusts: `ssl.ca.pem`, `ssl.ca.location`
/// (a PEM file), or the system's bundle.
fn trust_anchors(cfg: &ClientConfig) -> Option<rustls::RootCertStore> {
    let pem: Vec<u8> = if let Some(inline) = cfg.get("ssl.ca.pem") {
        inline.as_bytes().to_vec()
    } else if let Some(path) = cfg.get("ssl.ca.location") {
        std::fs::read(path).ok()?
    } else {
        SYSTEM_CA_FILES.iter().find_map(|p| std::fs::read(p).ok())?
    };
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem).flatten() {
        // A CA certificate rustls cannot parse is left out, as OpenSSL might not.
        let _ = roots.add(cert);
    }
    Some(roots)
}

/// Handshake with `address`, returning the TLS error, if there was one.
fn handshake(address: &str, host: &str, roots: rustls::RootCertStore) -> Option<TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_owned()).ok()?;
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name).ok()?;
    let addr = address.to_socket_addrs().ok()?.next()?;
    let mut sock = TcpStream::connect_timeout(&addr, TIMEOUT).ok()?;
    sock.set_read_timeout(Some(TIMEOUT)).ok()?;
    sock.set_write_timeout(Some(TIMEOUT)).ok()?;
    while conn.is_handshaking() {
        if conn.wants_write() {
            conn.write_tls(&mut sock).ok()?;
            continue;
        }
        match conn.read_tls(&mut sock) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        if let Err(e) = conn.process_new_packets() {
            // Tell the broker why, as any client would, then report.
            let _ = conn.write_tls(&mut sock);
            return Some(e);
        }
    }
    // Verified: whatever failed, it was not the certificate.
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaintext_and_sasl_plaintext_are_not_checked() {
        for protocol in ["PLAINTEXT", "SASL_PLAINTEXT"] {
            let mut cfg = ClientConfig::new();
            cfg.set("security.protocol", protocol)
                .set("bootstrap.servers", "127.0.0.1:1");
            assert_eq!(certificate_problem(&cfg), None);
        }
    }

    #[test]
    fn an_unreachable_broker_says_nothing() {
        let mut cfg = ClientConfig::new();
        // Port 1 on loopback: refused at once.
        cfg.set("security.protocol", "SSL")
            .set("bootstrap.servers", "127.0.0.1:1")
            .set("ssl.ca.pem", "");
        assert_eq!(certificate_problem(&cfg), None);
    }
}
