//! The REST listener's keys in the worker config: `listeners` (Kafka
//! Connect's `http://host:port` / `https://host:port` list, first entry
//! used), the TLS files of an `https` listener (Kafka's
//! `listeners.https.ssl.*` names), `rest.auth.*` and `rest.console.enable`.
//!
//! Only the paths are read here; the files are read when the server starts
//! ([`crate::rest::tls`], [`crate::rest::auth`]), each error naming its key
//! and file.

use std::path::PathBuf;

use super::reader::Reader;

/// Where and how the REST API is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestListener {
    /// `host:port` to bind (port 0: a free port).
    pub addr: String,
    /// `Some` for an `https://` listener.
    pub tls: Option<TlsFiles>,
    /// `rest.auth.*`.
    pub auth: RestAuthConfig,
    /// `rest.console.enable`: whether the web console is served at `/ui`
    /// (default true).
    pub console: bool,
}

/// The PEM files of an `https` listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsFiles {
    /// `listeners.https.ssl.keystore.location`: one PEM file holding the
    /// certificate chain (leaf first) and the private key.
    Keystore(PathBuf),
    /// `listeners.https.ssl.certificate.location` (the chain, leaf first)
    /// and `listeners.https.ssl.key.location` (the private key).
    Separate { certificate: PathBuf, key: PathBuf },
}

/// `rest.auth.type` and its file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RestAuthConfig {
    /// `none`: every request is served.
    #[default]
    None,
    /// `basic`: HTTP Basic against `rest.auth.basic.users.file`
    /// (`user=password` lines).
    Basic { users_file: PathBuf },
    /// `bearer`: a bearer token from `rest.auth.bearer.tokens.file` (one
    /// per line).
    Bearer { tokens_file: PathBuf },
}

pub(crate) const KEYSTORE_LOCATION: &str = "listeners.https.ssl.keystore.location";
pub(crate) const KEYSTORE_TYPE: &str = "listeners.https.ssl.keystore.type";
pub(crate) const CERTIFICATE_LOCATION: &str = "listeners.https.ssl.certificate.location";
pub(crate) const KEY_LOCATION: &str = "listeners.https.ssl.key.location";
pub(crate) const AUTH_TYPE: &str = "rest.auth.type";
pub(crate) const BASIC_USERS_FILE: &str = "rest.auth.basic.users.file";
pub(crate) const BEARER_TOKENS_FILE: &str = "rest.auth.bearer.tokens.file";
pub(crate) const CONSOLE_ENABLE: &str = "rest.console.enable";

/// The keys this module reads.
pub(crate) const REST_KEYS: &[&str] = &[
    "listeners",
    KEYSTORE_LOCATION,
    KEYSTORE_TYPE,
    CERTIFICATE_LOCATION,
    KEY_LOCATION,
    AUTH_TYPE,
    BASIC_USERS_FILE,
    BEARER_TOKENS_FILE,
    CONSOLE_ENABLE,
];

/// Prefixes under which an unknown key is an error, not a warning: a
/// misspelt security setting must not silently leave the API open.
pub(crate) const STRICT_PREFIXES: &[&str] = &["listeners.https.", "rest.auth."];

/// Read the listener keys, recording problems in `r`.
pub(crate) fn read_rest(r: &mut Reader<'_>) -> RestListener {
    let (scheme, addr) = match parse_listeners(r.str("listeners").unwrap_or("http://127.0.0.1:8083")) {
        Ok(v) => v,
        Err(why) => {
            r.problems.push(("listeners".into(), why));
            (Scheme::Http, String::new())
        }
    };
    let tls = read_tls(r, scheme);
    let auth = read_auth(r);
    let console = r.parse(CONSOLE_ENABLE, true);
    RestListener {
        addr,
        tls,
        auth,
        console,
    }
}

fn read_tls(r: &mut Reader<'_>, scheme: Scheme) -> Option<TlsFiles> {
    let keystore = r.str(KEYSTORE_LOCATION).map(PathBuf::from);
    let certificate = r.str(CERTIFICATE_LOCATION).map(PathBuf::from);
    let key = r.str(KEY_LOCATION).map(PathBuf::from);
    if let Some(t) = r.str(KEYSTORE_TYPE)
        && !t.eq_ignore_ascii_case("PEM")
    {
        r.problems.push((
            KEYSTORE_TYPE.into(),
            format!("'{t}' is not supported: only PEM keystores are"),
        ));
    }
    if scheme == Scheme::Http {
        for k in [KEYSTORE_LOCATION, CERTIFICATE_LOCATION, KEY_LOCATION] {
            if r.str(k).is_some() {
                r.problems
                    .push((k.into(), "set, but `listeners` is not an https:// listener".into()));
            }
        }
        return None;
    }
    match (keystore, certificate, key) {
        (Some(k), None, None) => Some(TlsFiles::Keystore(k)),
        (None, Some(certificate), Some(key)) => Some(TlsFiles::Separate { certificate, key }),
        (Some(_), _, _) => {
            r.problems.push((
                KEYSTORE_LOCATION.into(),
                format!("set together with {CERTIFICATE_LOCATION}/{KEY_LOCATION}: use one or the other"),
            ));
            None
        }
        (None, Some(_), None) => {
            r.problems
                .push((KEY_LOCATION.into(), format!("required with {CERTIFICATE_LOCATION}")));
            None
        }
        (None, None, Some(_)) => {
            r.problems
                .push((CERTIFICATE_LOCATION.into(), format!("required with {KEY_LOCATION}")));
            None
        }
        (None, None, None) => {
            r.problems.push((
                KEYSTORE_LOCATION.into(),
                format!(
                    "required for an https:// listener (a PEM file with the certificate chain and the private key; or set {CERTIFICATE_LOCATION} and {KEY_LOCATION})"
                ),
            ));
            None
        }
    }
}

fn read_auth(r: &mut Reader<'_>) -> RestAuthConfig {
    let file = |r: &mut Reader<'_>, key: &str, kind: &str| match r.str(key) {
        Some(f) if !f.is_empty() => Some(PathBuf::from(f)),
        _ => {
            r.problems
                .push((key.into(), format!("required with {AUTH_TYPE}={kind}")));
            None
        }
    };
    let kind = r.str(AUTH_TYPE).unwrap_or("none").to_ascii_lowercase();
    let auth = match kind.as_str() {
        "none" => RestAuthConfig::None,
        "basic" => file(r, BASIC_USERS_FILE, "basic")
            .map_or(RestAuthConfig::None, |users_file| RestAuthConfig::Basic { users_file }),
        "bearer" => file(r, BEARER_TOKENS_FILE, "bearer").map_or(RestAuthConfig::None, |tokens_file| {
            RestAuthConfig::Bearer { tokens_file }
        }),
        other => {
            r.problems
                .push((AUTH_TYPE.into(), format!("'{other}' is not one of none, basic, bearer")));
            RestAuthConfig::None
        }
    };
    for (key, used) in [
        (BASIC_USERS_FILE, matches!(auth, RestAuthConfig::Basic { .. })),
        (BEARER_TOKENS_FILE, matches!(auth, RestAuthConfig::Bearer { .. })),
    ] {
        if !used && r.str(key).is_some() && r.problems.iter().all(|(k, _)| k != AUTH_TYPE) {
            r.problems
                .push((key.into(), format!("set, but {AUTH_TYPE} is '{kind}'")));
        }
    }
    auth
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Http,
    Https,
}

/// The scheme and `host:port` of the first listener in Kafka Connect's
/// `listeners` list (`http://host:port,...`); an empty host means every
/// interface.
fn parse_listeners(value: &str) -> Result<(Scheme, String), String> {
    let first = value
        .split(',')
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    let (scheme, rest) = if let Some(rest) = first.strip_prefix("http://") {
        (Scheme::Http, rest)
    } else if let Some(rest) = first.strip_prefix("https://") {
        (Scheme::Https, rest)
    } else {
        return Err(format!(
            "'{first}' is not of the form http://host:port or https://host:port"
        ));
    };
    let (host, port) = rest
        .trim_end_matches('/')
        .rsplit_once(':')
        .ok_or_else(|| format!("'{first}' has no port (http://host:port)"))?;
    port.parse::<u16>()
        .map_err(|e| format!("'{first}': bad port '{port}': {e}"))?;
    let host = if host.is_empty() { "0.0.0.0" } else { host };
    Ok((scheme, format!("{host}:{port}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::config::Props;

    fn read(pairs: &[(&str, &str)]) -> (RestListener, Vec<(String, String)>) {
        let props: Props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut r = Reader::new(&props);
        let l = read_rest(&mut r);
        (l, r.problems)
    }

    #[test]
    fn listeners() {
        assert_eq!(
            parse_listeners("http://127.0.0.1:8083").unwrap(),
            (Scheme::Http, "127.0.0.1:8083".into())
        );
        assert_eq!(
            parse_listeners("http://:0, http://x:1").unwrap(),
            (Scheme::Http, "0.0.0.0:0".into())
        );
        assert_eq!(
            parse_listeners("https://localhost:9/").unwrap(),
            (Scheme::Https, "localhost:9".into())
        );
        assert!(parse_listeners("h:1").is_err());
        assert!(parse_listeners("http://h").is_err());
    }

    #[test]
    fn tls_keys() {
        let (l, p) = read(&[]);
        assert_eq!(
            (l.addr.as_str(), l.tls, l.auth),
            ("127.0.0.1:8083", None, RestAuthConfig::None)
        );
        assert!(p.is_empty());

        let (l, p) = read(&[("listeners", "https://127.0.0.1:0"), (KEYSTORE_LOCATION, "/k.pem")]);
        assert_eq!(l.tls, Some(TlsFiles::Keystore("/k.pem".into())), "{p:?}");
        let (l, p) = read(&[
            ("listeners", "https://127.0.0.1:0"),
            (CERTIFICATE_LOCATION, "/c.pem"),
            (KEY_LOCATION, "/k.pem"),
            (KEYSTORE_TYPE, "pem"),
        ]);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            l.tls,
            Some(TlsFiles::Separate {
                certificate: "/c.pem".into(),
                key: "/k.pem".into()
            })
        );

        let keys = |p: Vec<(String, String)>| p.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        let (_, p) = read(&[("listeners", "https://127.0.0.1:0")]);
        assert_eq!(keys(p), [KEYSTORE_LOCATION]);
        let (_, p) = read(&[
            ("listeners", "https://127.0.0.1:0"),
            (KEYSTORE_LOCATION, "/k"),
            (KEYSTORE_TYPE, "JKS"),
        ]);
        assert_eq!(keys(p), [KEYSTORE_TYPE]);
        let (_, p) = read(&[("listeners", "https://127.0.0.1:0"), (CERTIFICATE_LOCATION, "/c")]);
        assert_eq!(keys(p), [KEY_LOCATION]);
        let (_, p) = read(&[(KEYSTORE_LOCATION, "/k")]);
        assert_eq!(keys(p), [KEYSTORE_LOCATION], "TLS files on an http listener");
    }

    #[test]
    fn auth_keys() {
        let (l, p) = read(&[(AUTH_TYPE, "Bearer"), (BEARER_TOKENS_FILE, "/t")]);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            l.auth,
            RestAuthConfig::Bearer {
                tokens_file: "/t".into()
            }
        );
        let (l, _) = read(&[(AUTH_TYPE, "basic"), (BASIC_USERS_FILE, "/u")]);
        assert_eq!(
            l.auth,
            RestAuthConfig::Basic {
                users_file: "/u".into()
            }
        );
        let (_, p) = read(&[(AUTH_TYPE, "basic")]);
        assert_eq!(p[0].0, BASIC_USERS_FILE);
        let (_, p) = read(&[(AUTH_TYPE, "kerberos")]);
        assert_eq!(p[0].0, AUTH_TYPE);
        assert!(p[0].1.contains("kerberos"));
        let (_, p) = read(&[(BEARER_TOKENS_FILE, "/t")]);
        assert_eq!(p[0].0, BEARER_TOKENS_FILE, "a tokens file without bearer auth");
    }
}
