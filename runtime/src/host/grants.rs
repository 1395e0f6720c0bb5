//! Capabilities an operator grants one connector, read from its config.
//!
//! Deny by default: a connector whose config has no `grants.*` key reaches
//! no file, no socket, no HTTP endpoint and no environment variable.
//! [`super::wasi`] turns the grants into the task's WASI context.
//!
//! | key | value | WASI |
//! |---|---|---|
//! | `grants.fs.read` | absolute directories | preopened read-only, guest path = host path |
//! | `grants.fs.write` | absolute directories | preopened read-write, guest path = host path |
//! | `grants.net.connect` | `host:port`, `ip:port`, `cidr:port` (port may be `*`) | `wasi:sockets` TCP connect to those addresses only |
//! | `grants.http.hosts` | `host` or `host:port` | `wasi:http/outgoing-handler` to those hosts only |
//! | `grants.env` | variable names | those variables of the worker's environment |
//!
//! Every value is a comma-separated list. Problems are reported per key, one
//! per bad entry, so that an operator sees them all at once.

use std::net::IpAddr;
use std::path::{Component, Path, PathBuf};

use ipnet::IpNet;

use crate::connector::Props;

/// `grants.fs.read`: directories preopened read-only.
pub const FS_READ: &str = "grants.fs.read";
/// `grants.fs.write`: directories preopened read-write.
pub const FS_WRITE: &str = "grants.fs.write";
/// `grants.net.connect`: addresses the connector may open TCP connections to.
pub const NET_CONNECT: &str = "grants.net.connect";
/// `grants.http.hosts`: hosts the connector may send `wasi:http` requests to.
pub const HTTP_HOSTS: &str = "grants.http.hosts";
/// `grants.env`: worker environment variables passed through.
pub const ENV: &str = "grants.env";

/// Every grant key.
pub const KEYS: [&str; 5] = [FS_READ, FS_WRITE, NET_CONNECT, HTTP_HOSTS, ENV];

/// A grant that could not be put in place when a task started (a granted
/// directory that vanished since the config was checked), naming the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct GrantError {
    /// The grant key at fault, e.g. `grants.fs.read`.
    pub key: &'static str,
    /// What went wrong.
    pub message: String,
}

/// Everything one connector is granted. `Default` grants nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// `grants.fs.read` / `grants.fs.write`.
    pub fs: FsGrants,
    /// `grants.net.connect`.
    pub net: NetGrants,
    /// `grants.http.hosts`.
    pub http: HttpGrants,
    /// `grants.env`.
    pub env: EnvGrants,
}

/// Directories, preopened with the same path in the guest as on the host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsGrants {
    /// Existing absolute directories the connector may read.
    pub read: Vec<PathBuf>,
    /// Existing absolute directories the connector may read and write.
    pub write: Vec<PathBuf>,
}

impl FsGrants {
    /// The directories to preopen, each once, with whether it is writable.
    /// A directory granted both ways is preopened read-write.
    pub fn preopens(&self) -> Vec<(&Path, bool)> {
        let mut out: Vec<(&Path, bool)> = self.write.iter().map(|p| (p.as_path(), true)).collect();
        for p in &self.read {
            if !out.iter().any(|(q, _)| *q == p.as_path()) {
                out.push((p.as_path(), false));
            }
        }
        out
    }
}

/// Where TCP connections may go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetGrants {
    pub connect: Vec<NetTarget>,
}

impl NetGrants {
    /// Whether a grant names a host (so the guest needs name lookup).
    pub fn names_a_host(&self) -> bool {
        self.connect.iter().any(|t| matches!(t.host, NetHost::Name(_)))
    }
}

/// One `grants.net.connect` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetTarget {
    pub host: NetHost,
    /// The port; `None` for `*` (any port).
    pub port: Option<u16>,
}

/// The address part of a [`NetTarget`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetHost {
    /// An IP address (as a one-address network) or a CIDR block.
    Net(IpNet),
    /// A host name, resolved when a task starts. Lower case.
    Name(String),
}

/// Hosts `wasi:http` requests may go to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpGrants {
    pub hosts: Vec<HttpHost>,
}

impl HttpGrants {
    /// Whether a request to `host` (a name, an IP address, or an IPv6
    /// address in brackets) on `port` is granted.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = normalize_host(host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host));
        self.hosts
            .iter()
            .any(|h| h.host == host && h.port.is_none_or(|p| p == port))
    }
}

/// One `grants.http.hosts` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHost {
    /// A lower-case host name, or an IP address in canonical form (IPv6
    /// without brackets).
    pub host: String,
    /// The port; `None` allows any port.
    pub port: Option<u16>,
}

/// Environment variables passed through from the worker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvGrants {
    /// Variable names.
    pub names: Vec<String>,
}

impl Grants {
    /// Read the `grants.*` keys of a connector config. On failure, returns
    /// every problem as `(key, message)`, including unknown `grants.` keys
    /// (a misspelt grant would otherwise silently grant nothing).
    pub fn from_props(props: &Props) -> Result<Self, Vec<(String, String)>> {
        let mut problems = Vec::new();
        let mut grants = Self::default();
        grants.fs.read = parse_list(props, FS_READ, &mut problems, parse_dir);
        grants.fs.write = parse_list(props, FS_WRITE, &mut problems, parse_dir);
        grants.net.connect = parse_list(props, NET_CONNECT, &mut problems, parse_net_target);
        grants.http.hosts = parse_list(props, HTTP_HOSTS, &mut problems, parse_http_host);
        grants.env.names = parse_list(props, ENV, &mut problems, parse_env_name);
        for key in props.keys().filter(|k| k.starts_with("grants.")) {
            if !KEYS.contains(&key.as_str()) {
                problems.push((
                    key.clone(),
                    format!("unknown grant; the grants are {}", KEYS.join(", ")),
                ));
            }
        }
        if problems.is_empty() { Ok(grants) } else { Err(problems) }
    }
}

/// Parse each comma-separated entry of `key`, dropping duplicates; a bad
/// entry becomes a problem on `key`.
fn parse_list<T: PartialEq>(
    props: &Props,
    key: &str,
    problems: &mut Vec<(String, String)>,
    parse: fn(&str) -> Result<T, String>,
) -> Vec<T> {
    let mut out = Vec::new();
    let entries = props.get(key).map(String::as_str).unwrap_or_default();
    for entry in entries.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match parse(entry) {
            Ok(v) if !out.contains(&v) => out.push(v),
            Ok(_) => {}
            Err(message) => problems.push((key.to_owned(), message)),
        }
    }
    out
}

/// An existing absolute directory, normalised (no `.`, no trailing `/`).
fn parse_dir(entry: &str) -> Result<PathBuf, String> {
    let path = Path::new(entry);
    if !path.is_absolute() {
        return Err(format!("'{entry}' is not an absolute path"));
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!("'{entry}' must not contain '..'"));
    }
    let path: PathBuf = path.components().collect();
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => Ok(path),
        Ok(m) if m.is_file() => Err(match path.parent() {
            Some(dir) => format!("'{entry}' is a file; grant its directory ('{}') instead", dir.display()),
            None => format!("'{entry}' is a file; grant its directory instead"),
        }),
        Ok(_) => Err(format!("'{entry}' is not a directory")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("'{entry}' does not exist; grant an existing directory"))
        }
        Err(e) => Err(format!("'{entry}' cannot be inspected: {e}")),
    }
}

/// Split `host:port` or `[ipv6]:port`. The host keeps no brackets.
fn split_host_port(entry: &str) -> Option<(&str, &str)> {
    if let Some(rest) = entry.strip_prefix('[') {
        let (host, rest) = rest.split_once(']')?;
        let port = rest.strip_prefix(':')?;
        return Some((host, port));
    }
    let (host, port) = entry.rsplit_once(':')?;
    if host.contains(':') {
        return None; // an IPv6 address needs brackets
    }
    Some((host, port))
}

fn parse_port(entry: &str, port: &str) -> Result<u16, String> {
    match port.parse::<u16>() {
        Ok(0) | Err(_) => Err(format!("'{entry}': '{port}' is not a port (1-65535)")),
        Ok(p) => Ok(p),
    }
}

/// A DNS host name: dot-separated labels of letters, digits, `-` and `_`.
fn is_host_name(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 253
        && !host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// An IP address in canonical form, or a lower-case host name.
fn normalize_host(host: &str) -> String {
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.to_canonical().to_string(),
        Err(_) => host.to_ascii_lowercase(),
    }
}

fn parse_net_target(entry: &str) -> Result<NetTarget, String> {
    let Some((host, port)) = split_host_port(entry) else {
        return Err(format!(
            "'{entry}' is not host:port, ip:port or cidr:port (the port may be '*'; \
             write IPv6 addresses in brackets, e.g. [::1]:8080)"
        ));
    };
    let port = match port {
        "*" => None,
        p => Some(parse_port(entry, p)?),
    };
    let host = if host.contains('/') {
        let net: IpNet = host
            .parse()
            .map_err(|e| format!("'{entry}': '{host}' is not a valid CIDR block ({e})"))?;
        NetHost::Net(net.trunc())
    } else if let Ok(ip) = host.parse::<IpAddr>() {
        NetHost::Net(IpNet::from(ip.to_canonical()))
    } else if is_host_name(host) {
        NetHost::Name(host.to_ascii_lowercase())
    } else {
        return Err(format!(
            "'{entry}': '{host}' is not a host name, an IP address or a CIDR block"
        ));
    };
    Ok(NetTarget { host, port })
}

fn parse_http_host(entry: &str) -> Result<HttpHost, String> {
    if entry.contains(['/', '@']) {
        return Err(format!(
            "'{entry}' is not a host or host:port (no scheme, user or path: e.g. api.example.com:443)"
        ));
    }
    let (host, port, bracketed) = if let Some(rest) = entry.strip_prefix('[') {
        let Some((host, rest)) = rest.split_once(']') else {
            return Err(format!("'{entry}' is not a host or host:port"));
        };
        match (rest, rest.strip_prefix(':')) {
            ("", _) => (host, None, true),
            (_, Some(port)) => (host, Some(parse_port(entry, port)?), true),
            (_, None) => return Err(format!("'{entry}' is not a host or host:port")),
        }
    } else {
        match entry.matches(':').count() {
            0 => (entry, None, false),
            1 => match entry.split_once(':') {
                Some((host, port)) => (host, Some(parse_port(entry, port)?), false),
                None => (entry, None, false),
            },
            _ => {
                return Err(format!(
                    "'{entry}': write IPv6 addresses in brackets, e.g. [::1] or [::1]:8080"
                ));
            }
        }
    };
    let valid = if bracketed {
        host.parse::<std::net::Ipv6Addr>().is_ok()
    } else {
        host.parse::<std::net::Ipv4Addr>().is_ok() || is_host_name(host)
    };
    if !valid {
        return Err(format!("'{entry}': '{host}' is not a host name or an IP address"));
    }
    Ok(HttpHost {
        host: normalize_host(host),
        port,
    })
}

fn parse_env_name(entry: &str) -> Result<String, String> {
    if entry.contains(['=', '\0']) || entry.chars().any(char::is_whitespace) {
        return Err(format!("'{entry}' is not an environment variable name"));
    }
    Ok(entry.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Props {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn problems(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        Grants::from_props(&props(pairs)).err().unwrap_or_default()
    }

    #[test]
    fn nothing_is_granted_by_default() {
        assert_eq!(Grants::from_props(&props(&[("name", "x")])), Ok(Grants::default()));
    }

    #[test]
    fn directories_are_granted_normalised_and_files_are_refused() {
        let dir = tempfile_dir("fs");
        let file = dir.join("a.txt");
        std::fs::write(&file, "x").unwrap_or_default();
        let d = dir.display().to_string();
        let grants = Grants::from_props(&props(&[
            (FS_READ, &format!("{d}/./, {d}")),
            (FS_WRITE, &format!("{d}//")),
        ]));
        let fs = grants.map(|g| g.fs).unwrap_or_default();
        assert_eq!(fs.read, vec![dir.clone()]);
        assert_eq!(fs.write, vec![dir.clone()]);
        assert_eq!(fs.preopens(), vec![(dir.as_path(), true)], "write wins, once");

        let f = file.display().to_string();
        let got = problems(&[(FS_READ, &f), (FS_WRITE, "data/out")]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, FS_READ);
        assert!(got[0].1.contains("is a file; grant its directory"), "{got:?}");
        assert!(got[0].1.contains(&d), "names the directory: {got:?}");
        assert_eq!(got[1].0, FS_WRITE);
        assert!(got[1].1.contains("not an absolute path"), "{got:?}");
        let got = problems(&[(FS_READ, &format!("{d}/missing,{d}/../etc"))]);
        assert!(got[0].1.contains("does not exist"), "{got:?}");
        assert!(got[1].1.contains("'..'"), "{got:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("copycat-grants-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_default();
        dir
    }

    #[test]
    fn net_targets_parse_hosts_ips_and_cidrs() {
        let grants = Grants::from_props(&props(&[(
            NET_CONNECT,
            "127.0.0.1:9092, Kafka.Example.com:*, 10.0.0.0/8:443, [::1]:80, [fd00::/8]:*",
        )]))
        .unwrap_or_default();
        let net = |s: &str| NetHost::Net(s.parse().unwrap_or_else(|_| IpNet::default()));
        assert_eq!(
            grants.net.connect,
            vec![
                NetTarget {
                    host: net("127.0.0.1/32"),
                    port: Some(9092)
                },
                NetTarget {
                    host: NetHost::Name("kafka.example.com".into()),
                    port: None
                },
                NetTarget {
                    host: net("10.0.0.0/8"),
                    port: Some(443)
                },
                NetTarget {
                    host: net("::1/128"),
                    port: Some(80)
                },
                NetTarget {
                    host: net("fd00::/8"),
                    port: None
                },
            ]
        );
        assert!(grants.net.names_a_host());
    }

    #[test]
    fn bad_net_targets_name_the_key() {
        let got = problems(&[(
            NET_CONNECT,
            "10.0.0.0/33:80, example.com, ::1:80, host:0, host:99999, bad host:1, 300.1.1.1:80",
        )]);
        assert_eq!(got.len(), 7, "{got:?}");
        assert!(got.iter().all(|(k, _)| k == NET_CONNECT));
        assert!(got[0].1.contains("not a valid CIDR"), "{got:?}");
        assert!(got[1].1.contains("host:port"), "{got:?}");
        assert!(got[2].1.contains("brackets"), "{got:?}");
        assert!(got[3].1.contains("not a port"), "{got:?}");
        assert!(got[4].1.contains("not a port"), "{got:?}");
        assert!(got[5].1.contains("not a host name"), "{got:?}");
        assert!(got[6].1.contains("not a host name"), "{got:?}");
    }

    #[test]
    fn http_hosts_match_host_and_port() {
        let grants = Grants::from_props(&props(&[(
            HTTP_HOSTS,
            "API.example.com, 127.0.0.1:8080, [::1]:8443, [::2]",
        )]))
        .unwrap_or_default();
        let http = &grants.http;
        assert!(http.allows("api.example.com", 443));
        assert!(http.allows("Api.Example.Com", 80), "a bare host allows any port");
        assert!(http.allows("127.0.0.1", 8080));
        assert!(!http.allows("127.0.0.1", 8081));
        assert!(!http.allows("localhost", 8080), "names are not resolved");
        assert!(http.allows("[::1]", 8443));
        assert!(http.allows("::2", 1));
        assert!(!http.allows("example.com", 443));
        let got = problems(&[(HTTP_HOSTS, "https://x.com, a b, ::1, x.com:0")]);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(got.iter().all(|(k, _)| k == HTTP_HOSTS));
        assert!(got[2].1.contains("brackets"), "{got:?}");
    }

    #[test]
    fn env_names_and_unknown_grants() {
        let grants = Grants::from_props(&props(&[(ENV, "HOME, COPYCAT_X,HOME")])).unwrap_or_default();
        assert_eq!(grants.env.names, ["HOME", "COPYCAT_X"]);
        let got = problems(&[(ENV, "A=B"), ("grants.fs.reads", "/tmp")]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, ENV);
        assert_eq!(got[1].0, "grants.fs.reads");
        assert!(got[1].1.contains("grants.fs.read,"), "{got:?}");
    }
}
