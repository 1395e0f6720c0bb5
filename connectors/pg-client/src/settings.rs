//! Where and as whom to connect: a `connection.url` in any of the forms a
//! Kafka Connect operator writes (`jdbc:postgresql://…`, `postgresql://…`,
//! `postgres://…`), or host/port/database given one by one.

use copycat_sdk::{ConfigKey, Importance};
use percent_encoding::percent_decode_str;

/// The configuration definition of the keys [`from_keys`] reads, for both
/// connectors' `describe`.
pub fn connection_keys() -> Vec<ConfigKey> {
    vec![
        ConfigKey::string("connection.url")
            .doc("jdbc:postgresql://host:port/database, or postgresql://user@host:port/database?sslmode=…; or set connection.host")
            .importance(Importance::High),
        ConfigKey::string("connection.host").doc("The server's host, instead of connection.url"),
        ConfigKey::int("connection.port").default_value("5432").doc("The server's port, with connection.host"),
        ConfigKey::string("connection.database").doc("The database, with connection.host (default: the user's name)"),
        ConfigKey::string("connection.user").doc("The user to log in as").importance(Importance::High),
        ConfigKey::password("connection.password")
            .doc("The user's password (SCRAM-SHA-256, MD5 or cleartext, as the server asks); ${file:…} and other config providers work")
            .importance(Importance::High),
        ConfigKey::string("sslmode")
            .default_value("prefer")
            .doc("disable | prefer (TLS if the server offers it, unchecked) | require | verify-ca | verify-full, as libpq"),
        ConfigKey::string("sslrootcert")
            .doc("PEM file of the CAs verify-ca / verify-full trust (grant its directory with grants.fs.read); default: the Mozilla roots"),
    ]
}

/// `sslmode`, libpq's and pgJDBC's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SslMode {
    /// Never TLS.
    Disable,
    /// TLS if the server offers it, else plain (libpq's default).
    #[default]
    Prefer,
    /// TLS or fail, without checking the server's certificate.
    Require,
    /// TLS or fail, the certificate signed by a trusted CA.
    VerifyCa,
    /// TLS or fail, the certificate signed by a trusted CA and naming the host.
    VerifyFull,
}

impl SslMode {
    /// Parses libpq's names (`allow` is read as `prefer`).
    pub fn parse(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "disable" => Self::Disable,
            "allow" | "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            other => {
                return Err(format!(
                    "sslmode '{other}' is not one of disable, allow, prefer, require, verify-ca, verify-full"
                ));
            }
        })
    }

    /// The name, as written in a URL.
    pub fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }
}

/// Everything needed to open one connection.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectSettings {
    pub host: String,
    pub port: u16,
    pub database: String,
    pub user: String,
    pub password: Option<String>,
    pub ssl_mode: SslMode,
    /// `sslrootcert`: a PEM file of the CAs `verify-ca` / `verify-full`
    /// trust (default: the Mozilla roots).
    pub ssl_root_cert: Option<String>,
    /// `application_name`, shown in `pg_stat_activity`.
    pub application_name: String,
}

impl std::fmt::Debug for ConnectSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("database", &self.database)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "[hidden]"))
            .field("ssl_mode", &self.ssl_mode)
            .field("ssl_root_cert", &self.ssl_root_cert)
            .finish()
    }
}

impl ConnectSettings {
    /// `host:port`, for messages and grants.
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

fn decode(s: &str) -> Result<String, String> {
    percent_decode_str(s)
        .decode_utf8()
        .map(|c| c.into_owned())
        .map_err(|_| format!("'{s}' is not UTF-8 once percent-decoded"))
}

/// Parses a connection URL: `jdbc:postgresql://host[:port]/database[?k=v&…]`
/// (pgJDBC's form, as Kafka Connect's JDBC connectors take it), or libpq's
/// `postgresql://[user[:password]@]host[:port][/database][?k=v&…]` (also
/// `postgres://`). Query parameters `user`, `password`, `sslmode` and
/// `ApplicationName`/`application_name` are read; any other is an error
/// naming it, so nothing an operator wrote is silently ignored. `user` and
/// `password` here are overridden by `connection.user` /
/// `connection.password` where the connector has those.
pub fn parse_url(url: &str) -> Result<ConnectSettings, String> {
    let rest = url
        .strip_prefix("jdbc:postgresql://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .or_else(|| url.strip_prefix("postgres://"))
        .ok_or_else(|| {
            format!(
                "'{}' is not a PostgreSQL URL: expected jdbc:postgresql://host:port/database or postgresql://user@host:port/database",
                redact(url)
            )
        })?;
    let (before_query, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match before_query.split_once('/') {
        Some((a, p)) => (a, p),
        None => (before_query, ""),
    };
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let (host, port) = split_host_port(hostport)?;
    let mut settings = ConnectSettings {
        host,
        port,
        database: decode(path.trim_end_matches('/'))?,
        user: String::new(),
        password: None,
        ssl_mode: SslMode::default(),
        ssl_root_cert: None,
        application_name: "copycat".to_owned(),
    };
    if let Some(info) = userinfo {
        let (u, p) = match info.split_once(':') {
            Some((u, p)) => (u, Some(p)),
            None => (info, None),
        };
        settings.user = decode(u)?;
        settings.password = p.map(decode).transpose()?;
    }
    for pair in query.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = decode(v)?;
        match k {
            "user" => settings.user = v,
            "password" => settings.password = Some(v),
            "sslmode" => settings.ssl_mode = SslMode::parse(&v)?,
            "sslrootcert" => settings.ssl_root_cert = Some(v),
            "ApplicationName" | "application_name" => settings.application_name = v,
            other => {
                return Err(format!(
                    "URL parameter '{other}' is not supported (supported: user, password, sslmode, sslrootcert, ApplicationName)"
                ));
            }
        }
    }
    if settings.host.is_empty() {
        return Err(format!("'{}' names no host", redact(url)));
    }
    Ok(settings)
}

/// The connection keys both postgres connectors take, as Kafka Connect's
/// JDBC connectors name them, plus host/port/database one by one:
/// `connection.url` (any form [`parse_url`] reads) or `connection.host`
/// (with `connection.port`, default 5432, and `connection.database`), then
/// `connection.user` and `connection.password`, which win over a user and
/// password in the URL. An error names the key at fault.
pub fn from_keys<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Result<ConnectSettings, (&'static str, String)> {
    let set = |k: &str| get(k).map(str::trim).filter(|v| !v.is_empty());
    let mut settings = if let Some(url) = set("connection.url") {
        for key in ["connection.host", "connection.port", "connection.database"] {
            if set(key).is_some() {
                return Err((
                    key,
                    "set either connection.url or connection.host (with connection.port and connection.database), not both"
                        .to_owned(),
                ));
            }
        }
        parse_url(url).map_err(|e| ("connection.url", e))?
    } else if let Some(host) = set("connection.host") {
        ConnectSettings {
            host: host.trim_start_matches('[').trim_end_matches(']').to_owned(),
            port: match set("connection.port") {
                None => 5432,
                Some(p) => p
                    .parse()
                    .map_err(|_| ("connection.port", format!("'{p}' is not a port number (1-65535)")))?,
            },
            database: set("connection.database").unwrap_or_default().to_owned(),
            user: String::new(),
            password: None,
            ssl_mode: SslMode::default(),
            ssl_root_cert: None,
            application_name: "copycat".to_owned(),
        }
    } else {
        return Err((
            "connection.url",
            "set connection.url (e.g. jdbc:postgresql://127.0.0.1:5432/shop) or connection.host".to_owned(),
        ));
    };
    if let Some(user) = set("connection.user") {
        settings.user = user.to_owned();
    }
    if let Some(password) = get("connection.password").filter(|p| !p.is_empty()) {
        settings.password = Some(password.to_owned());
    }
    if let Some(mode) = set("sslmode") {
        settings.ssl_mode = SslMode::parse(mode).map_err(|e| ("sslmode", e))?;
    }
    for key in ["sslcert", "sslkey", "sslpassword", "sslcrl"] {
        if set(key).is_some() {
            return Err((
                key,
                "is not supported: the server's certificate is checked (sslmode, sslrootcert), but no client certificate is sent and no CRL read".to_owned(),
            ));
        }
    }
    if let Some(path) = set("sslrootcert") {
        settings.ssl_root_cert = Some(path.to_owned());
    }
    if settings.user.is_empty() {
        return Err((
            "connection.user",
            "set connection.user (or a user in connection.url)".to_owned(),
        ));
    }
    if settings.database.is_empty() {
        settings.database = settings.user.clone();
    }
    Ok(settings)
}

fn split_host_port(hostport: &str) -> Result<(String, u16), String> {
    let port_of = |p: &str| -> Result<u16, String> {
        p.parse::<u16>()
            .map_err(|_| format!("port '{p}' is not a number from 0 to 65535"))
    };
    if let Some(v6) = hostport.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("'{hostport}': unclosed '[' in an IPv6 address"))?;
        let port = match after.strip_prefix(':') {
            Some(p) => port_of(p)?,
            None => 5432,
        };
        return Ok((host.to_owned(), port));
    }
    match hostport.rsplit_once(':') {
        Some((h, p)) => Ok((h.to_owned(), port_of(p)?)),
        None => Ok((hostport.to_owned(), 5432)),
    }
}

/// `url` with any password replaced, for messages.
pub fn redact(url: &str) -> String {
    let mut out = url.to_owned();
    // user:password@ in the authority.
    if let Some(scheme_end) = out.find("://") {
        let start = scheme_end + 3;
        let end = out[start..].find(['/', '?']).map_or(out.len(), |i| start + i);
        if let Some(at) = out[start..end].rfind('@') {
            let info = &out[start..start + at];
            if let Some(colon) = info.find(':') {
                out.replace_range(start + colon + 1..start + at, "****");
            }
        }
    }
    // password=… in the query.
    if let Some(q) = out.find('?') {
        let (head, query) = out.split_at(q + 1);
        let query: Vec<String> = query
            .split('&')
            .map(|p| match p.split_once('=') {
                Some(("password", _)) => "password=****".to_owned(),
                _ => p.to_owned(),
            })
            .collect();
        out = format!("{head}{}", query.join("&"));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn jdbc_and_libpq_urls() {
        let s = parse_url("jdbc:postgresql://db.example:5433/shop?user=u&password=p%40ss&sslmode=require").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.database.as_str()),
            ("db.example", 5433, "shop")
        );
        assert_eq!((s.user.as_str(), s.password.as_deref()), ("u", Some("p@ss")));
        assert_eq!(s.ssl_mode, SslMode::Require);
        let s = parse_url("postgresql://copycat:se%3Acret@127.0.0.1/copycat").unwrap();
        assert_eq!((s.host.as_str(), s.port), ("127.0.0.1", 5432));
        assert_eq!(s.password.as_deref(), Some("se:cret"));
        let s = parse_url("postgres://[::1]:6000/d").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.address().as_str()),
            ("::1", 6000, "[::1]:6000")
        );
    }

    #[test]
    fn bad_urls_name_the_fault_and_hide_the_password() {
        let e = parse_url("mysql://u:secret@h/d").unwrap_err();
        assert!(e.contains("not a PostgreSQL URL") && !e.contains("secret"), "{e}");
        let e = parse_url("postgresql://h:99999/d").unwrap_err();
        assert!(e.contains("99999"), "{e}");
        let e = parse_url("postgresql://h/d?loglevel=2").unwrap_err();
        assert!(e.contains("'loglevel'"), "{e}");
        assert_eq!(
            redact("postgresql://u:secret@h/d?password=x&sslmode=require"),
            "postgresql://u:****@h/d?password=****&sslmode=require"
        );
    }
}
