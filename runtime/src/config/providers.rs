//! Config providers (Kafka Connect's `config.providers`, KIP-297): a
//! config value may hold references, `${provider:path:key}` or
//! `${provider:key}`, that the worker resolves when it uses the config, so
//! only the reference is stored, returned by REST or logged. The three
//! providers Kafka Connect ships, same class names and parameters:
//!
//! - `FileConfigProvider`: `${file:/path/secrets.properties:key}`, the value
//!   of `key` in that properties file;
//! - `DirectoryConfigProvider`: `${dir:/path/dir:name}`, the content of the
//!   file `name` in that directory;
//! - `EnvVarConfigProvider`: `${env:NAME}`, the worker's environment
//!   variable (`allowlist.pattern` limits which).
//!
//! File and directory providers read only under their `allowed.paths`
//! (every path if unset, as in Kafka Connect). A reference to a provider
//! the worker does not configure stays as it is (Kafka Connect's rule: a
//! transform's `${topic}` template is not a reference). A reference that
//! cannot be resolved is an error naming the reference, never a value.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use regex::Regex;

use crate::connector::Props;

/// Kafka Connect's class names, with their short names.
const FILE: &str = "org.apache.kafka.common.config.provider.FileConfigProvider";
const DIRECTORY: &str = "org.apache.kafka.common.config.provider.DirectoryConfigProvider";
const ENV: &str = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

#[derive(Debug, Clone)]
enum Kind {
    File,
    Directory,
    Env { allow: Option<Regex> },
}

#[derive(Debug, Clone)]
struct Provider {
    kind: Kind,
    /// `allowed.paths`, normalized (`None`: anywhere).
    allowed: Option<Vec<PathBuf>>,
}

/// The worker's config providers.
#[derive(Debug, Clone, Default)]
pub struct ConfigProviders {
    providers: BTreeMap<String, Provider>,
}

/// A config with its references resolved.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// Every key, references replaced by their values.
    pub props: Props,
    /// (reference, value) of every reference resolved, longest value first.
    secrets: Vec<(String, String)>,
    /// (value with references, resolved value) of every key that had any.
    values: Vec<(String, String)>,
}

impl Resolved {
    /// Whether any reference was resolved.
    pub fn any(&self) -> bool {
        !self.secrets.is_empty()
    }

    /// `text` with every resolved value of at least 4 bytes put back as
    /// its reference, and a whole value equal to a resolved config value
    /// as that value's references: what a connector's task configs become
    /// before they are stored, and error messages before they are shown.
    pub fn unresolve(&self, text: &str) -> String {
        if let Some((raw, _)) = self.values.iter().find(|(_, v)| v == text) {
            return raw.clone();
        }
        let mut out = text.to_owned();
        for (reference, value) in &self.secrets {
            if value.len() >= 4 && out.contains(value.as_str()) {
                out = out.replace(value.as_str(), reference);
            }
        }
        out
    }
}

fn pattern() -> &'static Regex {
    static P: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    // Kafka Connect's ConfigTransformer pattern.
    P.get_or_init(|| Regex::new(r"\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}").unwrap_or_else(|_| unreachable!()))
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

impl ConfigProviders {
    /// The providers a worker config declares (`config.providers`,
    /// `config.providers.<name>.class`, `config.providers.<name>.param.*`);
    /// problems name the key.
    pub(crate) fn read(props: &Props, problems: &mut Vec<(String, String)>) -> Self {
        let mut providers = BTreeMap::new();
        let names: Vec<String> = props
            .get("config.providers")
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        for name in &names {
            let class_key = format!("config.providers.{name}.class");
            let class = props.get(&class_key).map(|c| c.trim());
            let param = |p: &str| {
                props
                    .get(&format!("config.providers.{name}.param.{p}"))
                    .map(|v| v.trim())
            };
            let kind = match class {
                Some(FILE | "FileConfigProvider") => Kind::File,
                Some(DIRECTORY | "DirectoryConfigProvider") => Kind::Directory,
                Some(ENV | "EnvVarConfigProvider") => {
                    let allow = match param("allowlist.pattern") {
                        None => None,
                        Some(p) => match Regex::new(&format!("^(?:{p})$")) {
                            Ok(r) => Some(r),
                            Err(e) => {
                                problems.push((
                                    format!("config.providers.{name}.param.allowlist.pattern"),
                                    format!("'{p}' is not a valid pattern: {e}"),
                                ));
                                None
                            }
                        },
                    };
                    Kind::Env { allow }
                }
                Some(other) => {
                    problems.push((
                        class_key,
                        format!("unknown config provider class '{other}': one of {FILE}, {DIRECTORY}, {ENV}"),
                    ));
                    continue;
                }
                None => {
                    problems.push((class_key, format!("config provider '{name}' needs a class")));
                    continue;
                }
            };
            let allowed = match (&kind, param("allowed.paths")) {
                (Kind::File | Kind::Directory, Some(paths)) => {
                    let mut list = Vec::new();
                    for p in paths.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                        if !Path::new(p).is_absolute() {
                            problems.push((
                                format!("config.providers.{name}.param.allowed.paths"),
                                format!("'{p}' is not an absolute path"),
                            ));
                        }
                        list.push(normalize(Path::new(p)));
                    }
                    Some(list)
                }
                _ => None,
            };
            let known: &[&str] = match kind {
                Kind::Env { .. } => &["allowlist.pattern"],
                _ => &["allowed.paths"],
            };
            let prefix = format!("config.providers.{name}.param.");
            for k in props.keys().filter(|k| k.starts_with(&prefix)) {
                if !known.contains(&&k[prefix.len()..]) {
                    problems.push((
                        k.clone(),
                        format!("unknown parameter; this provider takes {}", known.join(", ")),
                    ));
                }
            }
            providers.insert(name.clone(), Provider { kind, allowed });
        }
        for k in props.keys().filter(|k| k.starts_with("config.providers.")) {
            let rest = &k["config.providers.".len()..];
            if !names.iter().any(|n| rest.starts_with(&format!("{n}."))) {
                problems.push((
                    k.clone(),
                    format!("names no provider in config.providers ({})", names.join(",")),
                ));
            }
        }
        Self { providers }
    }

    /// Whether no provider is configured.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }

    /// Whether `value` holds a reference to a configured provider.
    pub fn refers(&self, value: &str) -> bool {
        !self.providers.is_empty()
            && pattern()
                .captures_iter(value)
                .any(|c| self.providers.contains_key(c.get(1).map_or("", |m| m.as_str())))
    }

    /// `props` with every reference to a configured provider resolved, or
    /// the problems by key, each naming the reference (never a value).
    /// Files are read afresh each time (a rotated secret is read at the
    /// next resolution).
    pub fn resolve(&self, props: &Props) -> Result<Resolved, Vec<(String, String)>> {
        let mut out = Resolved::default();
        let mut problems = Vec::new();
        for (key, value) in props {
            if !self.refers(value) {
                out.props.insert(key.clone(), value.clone());
                continue;
            }
            let mut resolved = String::with_capacity(value.len());
            let mut last = 0;
            for c in pattern().captures_iter(value) {
                let (Some(whole), Some(name)) = (c.get(0), c.get(1)) else {
                    continue;
                };
                resolved.push_str(&value[last..whole.start()]);
                last = whole.end();
                let Some(provider) = self.providers.get(name.as_str()) else {
                    resolved.push_str(whole.as_str());
                    continue;
                };
                let path = c.get(2).map_or("", |m| m.as_str());
                let item = c.get(3).map_or("", |m| m.as_str());
                match provider.get(path, item) {
                    Ok(v) => {
                        resolved.push_str(&v);
                        out.secrets.push((whole.as_str().to_owned(), v));
                    }
                    Err(why) => problems.push((key.clone(), format!("{}: {why}", whole.as_str()))),
                }
            }
            resolved.push_str(&value[last..]);
            out.values.push((value.clone(), resolved.clone()));
            out.props.insert(key.clone(), resolved);
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        out.secrets.sort_by_key(|s| std::cmp::Reverse(s.1.len()));
        Ok(out)
    }
}

impl Provider {
    fn check_allowed(&self, path: &Path) -> Result<PathBuf, String> {
        if !path.is_absolute() {
            return Err(format!("'{}' is not an absolute path", path.display()));
        }
        let normal = normalize(path);
        match &self.allowed {
            Some(allowed) if !allowed.iter().any(|a| normal.starts_with(a)) => Err(format!(
                "'{}' is not under the provider's allowed.paths",
                path.display()
            )),
            _ => Ok(normal),
        }
    }

    /// The value of `key` at `path`; why not, without any value.
    fn get(&self, path: &str, key: &str) -> Result<String, String> {
        match &self.kind {
            Kind::File => {
                let file = self.check_allowed(Path::new(path))?;
                let f = std::fs::File::open(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                let map = java_properties::read(std::io::BufReader::new(f))
                    .map_err(|_| format!("{} is not a properties file", file.display()))?;
                map.get(key)
                    .map(|v| v.trim().to_owned())
                    .ok_or_else(|| format!("{} has no key '{key}'", file.display()))
            }
            Kind::Directory => {
                let dir = self.check_allowed(Path::new(path))?;
                if key.is_empty() || key.contains('/') || key == ".." || key == "." {
                    return Err(format!("'{key}' is not a file name"));
                }
                let file = dir.join(key);
                std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))
            }
            Kind::Env { allow } => {
                // `${env:NAME}`: the name is the key, the path empty.
                let name = if key.is_empty() { path } else { key };
                if allow.as_ref().is_some_and(|a| !a.is_match(name)) {
                    return Err(format!("'{name}' is not allowed by the provider's allowlist.pattern"));
                }
                std::env::var(name).map_err(|_| format!("the worker has no environment variable '{name}'"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Props {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn providers(pairs: &[(&str, &str)]) -> ConfigProviders {
        let mut problems = Vec::new();
        let p = ConfigProviders::read(&props(pairs), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        p
    }

    #[test]
    fn file_directory_and_env_references_resolve_and_unresolve() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        std::fs::write(dir.path().join("db.properties"), "password=s3cr3t-pw\nuser = bob\n").unwrap();
        std::fs::create_dir(dir.path().join("keys")).unwrap();
        std::fs::write(dir.path().join("keys/token"), "tok-123456").unwrap();
        let p = providers(&[
            ("config.providers", "file,dir,env"),
            ("config.providers.file.class", FILE),
            ("config.providers.file.param.allowed.paths", d),
            ("config.providers.dir.class", "DirectoryConfigProvider"),
            ("config.providers.env.class", ENV),
            ("config.providers.env.param.allowlist.pattern", "HOME|PATH"),
        ]);
        let file = format!("${{file:{d}/db.properties:password}}");
        let conn = format!("user=${{file:{d}/db.properties:user}};pw={file}");
        let token = format!("${{dir:{d}/keys:token}}");
        let c = props(&[
            ("password", &file),
            ("conn", &conn),
            ("token", &token),
            ("home", "${env:HOME}"),
            ("template", "${topic}-${field:region}"),
        ]);
        let r = p.resolve(&c).unwrap();
        assert_eq!(r.props["password"], "s3cr3t-pw");
        assert_eq!(r.props["conn"], "user=bob;pw=s3cr3t-pw");
        assert_eq!(r.props["token"], "tok-123456");
        assert_eq!(r.props["home"], std::env::var("HOME").unwrap());
        assert_eq!(
            r.props["template"], "${topic}-${field:region}",
            "not a provider: left as is"
        );
        // What a connector hands back is stored with the references.
        assert_eq!(r.unresolve("s3cr3t-pw"), file);
        assert_eq!(r.unresolve("user=bob;pw=s3cr3t-pw"), conn);
        assert_eq!(r.unresolve("Bearer tok-123456"), format!("Bearer {token}"));
        assert_eq!(r.unresolve("bob"), "bob", "short values are not put back inside text");
    }

    #[test]
    fn problems_name_the_reference_and_never_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed");
        std::fs::create_dir(&allowed).unwrap();
        std::fs::write(allowed.join("s.properties"), "a=topsecret\n").unwrap();
        std::fs::write(dir.path().join("outside.properties"), "a=topsecret\n").unwrap();
        let p = providers(&[
            ("config.providers", "file,env"),
            ("config.providers.file.class", FILE),
            ("config.providers.file.param.allowed.paths", allowed.to_str().unwrap()),
            ("config.providers.env.class", ENV),
            ("config.providers.env.param.allowlist.pattern", "COPYCAT_.*"),
        ]);
        let a = allowed.to_str().unwrap();
        let cases = [
            (format!("${{file:{a}/s.properties:missing}}"), "has no key 'missing'"),
            (format!("${{file:{a}/nope.properties:a}}"), "cannot read"),
            (format!("${{file:{a}/../outside.properties:a}}"), "allowed.paths"),
            ("${env:HOME}".to_owned(), "allowlist.pattern"),
            (
                "${env:COPYCAT_SURELY_UNSET_VARIABLE}".to_owned(),
                "no environment variable",
            ),
        ];
        for (reference, why) in cases {
            let problems = p.resolve(&props(&[("k", &reference)])).unwrap_err();
            assert_eq!(problems.len(), 1);
            let (key, message) = &problems[0];
            assert_eq!(key, "k");
            assert!(message.contains(&reference) && message.contains(why), "{message}");
            assert!(!message.contains("topsecret"), "{message}");
        }
    }

    #[test]
    fn provider_keys_are_checked_naming_the_key() {
        let mut problems = Vec::new();
        ConfigProviders::read(
            &props(&[
                ("config.providers", "file,vault"),
                ("config.providers.file.class", FILE),
                ("config.providers.file.param.allowed.path", "/x"),
                ("config.providers.vault.class", "com.example.VaultConfigProvider"),
                ("config.providers.other.class", FILE),
            ]),
            &mut problems,
        );
        let keys: Vec<&str> = problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "config.providers.file.param.allowed.path",
                "config.providers.vault.class",
                "config.providers.other.class"
            ],
            "{problems:?}"
        );
    }
}
