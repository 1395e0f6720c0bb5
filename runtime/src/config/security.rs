//! Kafka Connect's security keys (`security.protocol`, `ssl.*`, `sasl.*`,
//! with Java's names) as librdkafka settings.
//!
//! Java names that librdkafka spells differently are translated
//! (`ssl.truststore.location` of a PEM truststore → `ssl.ca.location`,
//! `sasl.jaas.config` → `sasl.username`/`sasl.password` or the OAUTHBEARER
//! settings, `sasl.mechanism` → `sasl.mechanisms`); what librdkafka cannot
//! do (JKS stores, Java classes) is refused naming the key and what to use
//! instead. Every other key passes through unchanged, so librdkafka's own
//! names work too; the caller checks the result against librdkafka, so a
//! misspelt key is an error. Invariant: a secret's value never appears in a
//! problem message.

use crate::connector::Props;

/// Keys whose values are secrets: never logged, never returned by REST.
pub const PASSWORD_KEYS: &[&str] = &[
    "ssl.key.password",
    "ssl.keystore.password",
    "ssl.truststore.password",
    "ssl.keystore.key",
    "ssl.key.pem",
    "sasl.jaas.config",
    "sasl.password",
    "sasl.oauthbearer.client.secret",
    "sasl.oauthbearer.client.credentials.client.secret",
    "sasl.oauthbearer.config",
];

/// Whether `key` (with or without a `producer.`, `consumer.override.`, ...
/// prefix) holds a secret.
pub fn is_password(key: &str) -> bool {
    PASSWORD_KEYS
        .iter()
        .any(|p| key == *p || key.ends_with(&format!(".{p}")))
}

/// What a secret's value is shown as (Kafka Connect's `Password` shows the same).
pub const HIDDEN: &str = "[hidden]";

/// `props` with every secret's value replaced by [`HIDDEN`]: what REST
/// answers and logs show of a config.
pub fn redacted<'a>(props: impl IntoIterator<Item = (&'a String, &'a String)>) -> Props {
    props
        .into_iter()
        .map(|(k, v)| (k.clone(), if is_password(k) { HIDDEN.to_owned() } else { v.clone() }))
        .collect()
}

/// Whether `key` is one of the security keys this module reads.
pub fn is_security_key(key: &str) -> bool {
    key == "security.protocol" || key.starts_with("ssl.") || key.starts_with("sasl.")
}

/// The translation of one client's settings.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Translated {
    /// librdkafka settings: the translated security keys and every other
    /// key unchanged.
    pub settings: Props,
    /// `(key with prefix, why)` for each key that cannot be used.
    pub problems: Vec<(String, String)>,
    /// Keys accepted but without effect (documented), to log once.
    pub notes: Vec<(String, String)>,
}

const JAAS_PLAIN: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
const JAAS_SCRAM: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";
const JAAS_OAUTH: &str = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
const OAUTH_HANDLERS: &[&str] = &[
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
];

/// Java-only keys: what librdkafka has instead.
const JAVA_ONLY: &[(&str, &str)] = &[
    ("ssl.provider", "librdkafka uses OpenSSL; remove it"),
    (
        "ssl.secure.random.implementation",
        "librdkafka uses OpenSSL's; remove it",
    ),
    (
        "ssl.trustmanager.algorithm",
        "librdkafka verifies with OpenSSL; remove it",
    ),
    ("ssl.keymanager.algorithm", "librdkafka uses OpenSSL; remove it"),
    (
        "ssl.engine.factory.class",
        "a Java class; librdkafka has ssl.engine.location",
    ),
    ("sasl.client.callback.handler.class", "a Java class; not supported"),
    ("sasl.kerberos.service.name", "GSSAPI (Kerberos) is not supported"),
];

/// Translate `settings` (the keys after `prefix`: `""` for the worker's
/// own clients, `producer.`, `consumer.override.`, ...).
pub fn translate(prefix: &str, settings: &Props) -> Translated {
    let mut out = Translated::default();
    let key = |k: &str| format!("{prefix}{k}");
    // The keys read below; every other security key passes through.
    let read = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let get = |k: &'static str| {
        read.borrow_mut().insert(k);
        settings.get(k).map(String::as_str)
    };
    for (k, v) in settings {
        if !is_security_key(k) {
            out.settings.insert(k.clone(), v.clone());
        }
    }
    let mut problem = |k: &str, why: String| out.problems.push((key(k), why));

    if let Some(p) = get("security.protocol") {
        match p.to_ascii_uppercase().as_str() {
            "PLAINTEXT" | "SSL" | "SASL_PLAINTEXT" | "SASL_SSL" => {
                out.settings.insert("security.protocol".into(), p.to_ascii_lowercase());
            }
            _ => problem(
                "security.protocol",
                format!("'{p}' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"),
            ),
        }
    }

    // Truststore: the CA certificates that verify the brokers.
    let trust_type = get("ssl.truststore.type").map(str::to_ascii_uppercase);
    match (get("ssl.truststore.location"), trust_type.as_deref()) {
        (Some(path), Some("PEM")) => {
            out.settings.insert("ssl.ca.location".into(), path.to_owned());
        }
        (Some(_), t) => problem(
            "ssl.truststore.location",
            format!(
                "a {} truststore cannot be read by librdkafka: set ssl.truststore.type=PEM with a PEM file of the CA certificates (keytool -exportcert -rfc), or give it as ssl.ca.location",
                t.unwrap_or("JKS (Java's default ssl.truststore.type)")
            ),
        ),
        (None, Some(t)) if t != "PEM" && get("ssl.truststore.certificates").is_none() => problem(
            "ssl.truststore.type",
            format!("'{t}' truststores cannot be read by librdkafka; use PEM"),
        ),
        _ => {}
    }
    if let Some(t) = &trust_type
        && !["PEM", "JKS", "PKCS12"].contains(&t.as_str())
    {
        problem("ssl.truststore.type", format!("'{t}' is not one of PEM, JKS, PKCS12"));
    }
    if let Some(pem) = get("ssl.truststore.certificates") {
        out.settings.insert("ssl.ca.pem".into(), pem.to_owned());
    }
    if get("ssl.truststore.password").is_some() {
        problem(
            "ssl.truststore.password",
            "PEM truststores have no password (librdkafka reads PEM only): remove it".into(),
        );
    }

    // Keystore: the client's own certificate and key (mutual TLS).
    let key_type = get("ssl.keystore.type").map(str::to_ascii_uppercase);
    match (get("ssl.keystore.location"), key_type.as_deref()) {
        (Some(path), Some("PKCS12")) => {
            out.settings.insert("ssl.keystore.location".into(), path.to_owned());
            if let Some(pw) = get("ssl.keystore.password") {
                out.settings.insert("ssl.keystore.password".into(), pw.to_owned());
            }
        }
        (Some(path), Some("PEM")) => {
            // One PEM file holding the certificate chain and the key.
            out.settings.insert("ssl.certificate.location".into(), path.to_owned());
            out.settings.insert("ssl.key.location".into(), path.to_owned());
            if get("ssl.keystore.password").is_some() {
                problem(
                    "ssl.keystore.password",
                    "a PEM keystore's key is unlocked with ssl.key.password".into(),
                );
            }
        }
        (Some(_), t) => problem(
            "ssl.keystore.location",
            format!(
                "a {} keystore cannot be read by librdkafka: use ssl.keystore.type=PKCS12, or PEM (one file with the certificate chain and the key), or ssl.certificate.location and ssl.key.location",
                t.unwrap_or("JKS (Java's default ssl.keystore.type)")
            ),
        ),
        (None, _) => {
            if get("ssl.keystore.password").is_some() {
                problem("ssl.keystore.password", "set without ssl.keystore.location".into());
            }
        }
    }
    if let Some(t) = &key_type
        && !["PEM", "JKS", "PKCS12"].contains(&t.as_str())
    {
        problem("ssl.keystore.type", format!("'{t}' is not one of PEM, JKS, PKCS12"));
    }
    if let Some(pem) = get("ssl.keystore.key") {
        out.settings.insert("ssl.key.pem".into(), pem.to_owned());
    }
    if let Some(pem) = get("ssl.keystore.certificate.chain") {
        out.settings.insert("ssl.certificate.pem".into(), pem.to_owned());
    }

    match get("ssl.endpoint.identification.algorithm") {
        None => {}
        Some(v) if v.eq_ignore_ascii_case("https") => {
            out.settings
                .insert("ssl.endpoint.identification.algorithm".into(), "https".into());
        }
        Some(v) if v.is_empty() || v.eq_ignore_ascii_case("none") => {
            out.settings
                .insert("ssl.endpoint.identification.algorithm".into(), "none".into());
        }
        Some(v) => problem(
            "ssl.endpoint.identification.algorithm",
            format!("'{v}' is not https or empty (no hostname verification)"),
        ),
    }

    for k in ["ssl.protocol", "ssl.enabled.protocols"] {
        if let Some(v) = get(k) {
            let all_supported = v
                .split(',')
                .map(str::trim)
                .all(|p| p.eq_ignore_ascii_case("TLSv1.2") || p.eq_ignore_ascii_case("TLSv1.3") || p == "TLS");
            if all_supported {
                out.notes.push((
                    key(k),
                    "librdkafka negotiates TLSv1.2 or TLSv1.3 through OpenSSL; the key has no effect".into(),
                ));
            } else {
                problem(k, format!("'{v}': only TLSv1.2 and TLSv1.3 are supported"));
            }
        }
    }

    if let Some(m) = get("sasl.mechanism") {
        match m {
            "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512" | "OAUTHBEARER" => {
                out.settings.insert("sasl.mechanisms".into(), m.to_owned());
            }
            "GSSAPI" => problem("sasl.mechanism", "GSSAPI (Kerberos) is not supported".into()),
            _ => problem(
                "sasl.mechanism",
                format!("'{m}' is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER"),
            ),
        }
    }
    if let Some(jaas) = get("sasl.jaas.config") {
        match jaas_settings(jaas) {
            Ok(pairs) => out.settings.extend(pairs),
            Err(why) => problem("sasl.jaas.config", why),
        }
    }
    // Kafka 4.1's names for the client credentials (the JAAS options'
    // successors; they take precedence over them, as in Kafka).
    for (k, setting) in [
        (
            "sasl.oauthbearer.client.credentials.client.id",
            "sasl.oauthbearer.client.id",
        ),
        (
            "sasl.oauthbearer.client.credentials.client.secret",
            "sasl.oauthbearer.client.secret",
        ),
    ] {
        if let Some(v) = get(k) {
            out.settings.insert(setting.into(), v.to_owned());
        }
    }
    if let Some(url) = get("sasl.oauthbearer.token.endpoint.url") {
        out.settings
            .insert("sasl.oauthbearer.token.endpoint.url".into(), url.to_owned());
        out.settings.insert("sasl.oauthbearer.method".into(), "oidc".into());
    }
    if let Some(h) = get("sasl.login.callback.handler.class") {
        if OAUTH_HANDLERS.contains(&h) {
            out.notes.push((
                key("sasl.login.callback.handler.class"),
                "OAUTHBEARER tokens are fetched by librdkafka (sasl.oauthbearer.token.endpoint.url); the class is not needed".into(),
            ));
        } else {
            problem(
                "sasl.login.callback.handler.class",
                format!("'{h}' is a Java class; only Kafka's OAuthBearerLoginCallbackHandler is understood"),
            );
        }
    }
    for (k, instead) in JAVA_ONLY {
        if get(k).is_some() {
            problem(k, (*instead).to_owned());
        }
    }

    // Every other security key is librdkafka's own name: passed through (the
    // caller's check against librdkafka names a misspelt one).
    let read = read.into_inner();
    for (k, v) in settings {
        if is_security_key(k) && !read.contains(k.as_str()) {
            out.settings.insert(k.clone(), v.clone());
        }
    }
    out
}

/// librdkafka settings from a `sasl.jaas.config` value: one login module,
/// `required`, and its options.
fn jaas_settings(jaas: &str) -> Result<Vec<(String, String)>, String> {
    let (module, options) = parse_jaas(jaas)?;
    let take = |name: &str| options.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let known = |allowed: &[&str]| -> Result<(), String> {
        match options.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((k, _)) => Err(format!(
                "option '{k}' of {module} is not supported (supported: {})",
                allowed.join(", ")
            )),
            None => Ok(()),
        }
    };
    match module.as_str() {
        JAAS_PLAIN | JAAS_SCRAM => {
            known(&["username", "password"])?;
            let (Some(user), Some(password)) = (take("username"), take("password")) else {
                return Err(format!("{module} needs username and password"));
            };
            Ok(vec![("sasl.username".into(), user), ("sasl.password".into(), password)])
        }
        JAAS_OAUTH => {
            known(&["unsecuredLoginStringClaim_sub", "clientId", "clientSecret", "scope"])?;
            let mut out = Vec::new();
            if let Some(sub) = take("unsecuredLoginStringClaim_sub") {
                out.push(("enable.sasl.oauthbearer.unsecure.jwt".into(), "true".into()));
                out.push(("sasl.oauthbearer.config".into(), format!("principal={sub}")));
            }
            for (opt, setting) in [
                ("clientId", "sasl.oauthbearer.client.id"),
                ("clientSecret", "sasl.oauthbearer.client.secret"),
                ("scope", "sasl.oauthbearer.scope"),
            ] {
                if let Some(v) = take(opt) {
                    out.push((setting.into(), v));
                }
            }
            Ok(out)
        }
        other => Err(format!(
            "login module '{other}' is not supported (supported: PlainLoginModule, ScramLoginModule, OAuthBearerLoginModule)"
        )),
    }
}

/// `<module class> required <name>="<value>" ... ;` as (class, options). A
/// value may be quoted (with `\"` and `\\` escapes) or a bare word. Errors
/// never quote a value (it may be a password).
fn parse_jaas(text: &str) -> Result<(String, Vec<(String, String)>), String> {
    let mut chars = text.trim().chars().peekable();
    let word = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| -> String {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut w = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '=' || c == ';' {
                break;
            }
            w.push(c);
            chars.next();
        }
        w
    };
    let module = word(&mut chars);
    if module.is_empty() {
        return Err("empty: expected '<LoginModule class> required <option>=\"<value>\" ...;'".into());
    }
    let flag = word(&mut chars);
    if flag != "required" {
        return Err(format!("expected 'required' after {module}"));
    }
    let mut options = Vec::new();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            None => return Err("missing the closing ';'".into()),
            Some(';') => {
                chars.next();
                if chars.any(|c| !c.is_whitespace()) {
                    return Err("more than one login module (only one is supported)".into());
                }
                return Ok((module, options));
            }
            _ => {}
        }
        let name = word(&mut chars);
        if chars.next() != Some('=') || name.is_empty() {
            return Err(format!(
                "expected <option>=<value> after {}",
                if name.is_empty() { "the flag" } else { &name }
            ));
        }
        let value = if chars.peek() == Some(&'"') {
            chars.next();
            let mut v = String::new();
            loop {
                match chars.next() {
                    None => return Err(format!("option '{name}': unterminated quoted value")),
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(c) => v.push(c),
                        None => return Err(format!("option '{name}': unterminated quoted value")),
                    },
                    Some(c) => v.push(c),
                }
            }
            v
        } else {
            word(&mut chars)
        };
        options.push((name, value));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Props {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn settings(pairs: &[(&str, &str)]) -> Props {
        let t = translate("", &props(pairs));
        assert!(t.problems.is_empty(), "{:?}", t.problems);
        t.settings
    }

    #[test]
    fn pem_truststore_and_pkcs12_keystore_are_translated() {
        let s = settings(&[
            ("security.protocol", "SSL"),
            ("ssl.truststore.type", "PEM"),
            ("ssl.truststore.location", "/etc/ca.pem"),
            ("ssl.keystore.type", "PKCS12"),
            ("ssl.keystore.location", "/etc/client.p12"),
            ("ssl.keystore.password", "secret"),
            ("ssl.endpoint.identification.algorithm", ""),
            ("linger.ms", "5"),
        ]);
        assert_eq!(
            s,
            props(&[
                ("security.protocol", "ssl"),
                ("ssl.ca.location", "/etc/ca.pem"),
                ("ssl.keystore.location", "/etc/client.p12"),
                ("ssl.keystore.password", "secret"),
                ("ssl.endpoint.identification.algorithm", "none"),
                ("linger.ms", "5"),
            ])
        );
    }

    #[test]
    fn a_pem_keystore_is_one_file_for_certificate_and_key() {
        let s = settings(&[
            ("ssl.keystore.type", "PEM"),
            ("ssl.keystore.location", "/k.pem"),
            ("ssl.key.password", "pw"),
        ]);
        assert_eq!(s.get("ssl.certificate.location").unwrap(), "/k.pem");
        assert_eq!(s.get("ssl.key.location").unwrap(), "/k.pem");
        assert_eq!(s.get("ssl.key.password").unwrap(), "pw");
    }

    #[test]
    fn jks_stores_are_refused_naming_the_key_and_the_pem_equivalent() {
        let t = translate(
            "producer.",
            &props(&[
                ("ssl.truststore.location", "/t.jks"),
                ("ssl.truststore.password", "changeit"),
                ("ssl.keystore.location", "/k.jks"),
                ("ssl.keystore.type", "JKS"),
            ]),
        );
        let keys: Vec<&str> = t.problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "producer.ssl.truststore.location",
                "producer.ssl.truststore.password",
                "producer.ssl.keystore.location"
            ]
        );
        assert!(
            t.problems[0].1.contains("ssl.truststore.type=PEM"),
            "{}",
            t.problems[0].1
        );
        assert!(t.problems[2].1.contains("PKCS12"), "{}", t.problems[2].1);
        assert!(t.problems.iter().all(|(_, why)| !why.contains("changeit")));
    }

    #[test]
    fn jaas_plain_and_scram_become_username_and_password() {
        for module in [JAAS_PLAIN, JAAS_SCRAM] {
            let s = settings(&[
                ("security.protocol", "SASL_SSL"),
                ("sasl.mechanism", "SCRAM-SHA-512"),
                (
                    "sasl.jaas.config",
                    &format!(r#"{module} required username="alice" password="p\"w;d";"#),
                ),
            ]);
            assert_eq!(s.get("sasl.mechanisms").unwrap(), "SCRAM-SHA-512");
            assert_eq!(s.get("sasl.username").unwrap(), "alice");
            assert_eq!(s.get("sasl.password").unwrap(), "p\"w;d");
            assert!(!s.contains_key("sasl.jaas.config"));
        }
    }

    #[test]
    fn jaas_oauthbearer_unsecured_and_oidc() {
        let s = settings(&[
            ("sasl.mechanism", "OAUTHBEARER"),
            (
                "sasl.jaas.config",
                &format!("{JAAS_OAUTH} required unsecuredLoginStringClaim_sub=\"bob\";"),
            ),
        ]);
        assert_eq!(s.get("enable.sasl.oauthbearer.unsecure.jwt").unwrap(), "true");
        assert_eq!(s.get("sasl.oauthbearer.config").unwrap(), "principal=bob");

        let t = translate(
            "",
            &props(&[
                ("sasl.mechanism", "OAUTHBEARER"),
                ("sasl.oauthbearer.token.endpoint.url", "https://idp/token"),
                ("sasl.login.callback.handler.class", OAUTH_HANDLERS[0]),
                (
                    "sasl.jaas.config",
                    &format!("{JAAS_OAUTH} required clientId=\"c\" clientSecret=\"s\" scope=\"kafka\";"),
                ),
            ]),
        );
        assert!(t.problems.is_empty(), "{:?}", t.problems);
        assert_eq!(t.notes.len(), 1);
        assert_eq!(t.settings.get("sasl.oauthbearer.method").unwrap(), "oidc");
        assert_eq!(t.settings.get("sasl.oauthbearer.client.secret").unwrap(), "s");
        assert_eq!(t.settings.get("sasl.oauthbearer.scope").unwrap(), "kafka");
    }

    #[test]
    fn kafka_4_1_client_credentials_keys_are_translated_and_win_over_jaas() {
        let s = settings(&[
            ("sasl.mechanism", "OAUTHBEARER"),
            ("sasl.oauthbearer.token.endpoint.url", "http://idp/token"),
            ("sasl.oauthbearer.client.credentials.client.id", "c"),
            ("sasl.oauthbearer.client.credentials.client.secret", "s"),
            (
                "sasl.jaas.config",
                &format!("{JAAS_OAUTH} required clientId=\"old\" clientSecret=\"old-secret\";"),
            ),
        ]);
        assert_eq!(s.get("sasl.oauthbearer.client.id").unwrap(), "c");
        assert_eq!(s.get("sasl.oauthbearer.client.secret").unwrap(), "s");
        assert!(!s.contains_key("sasl.oauthbearer.client.credentials.client.id"));
        assert!(is_password(
            "consumer.sasl.oauthbearer.client.credentials.client.secret"
        ));
    }

    #[test]
    fn bad_jaas_is_refused_without_echoing_secrets() {
        for (jaas, expect) in [
            ("", "empty"),
            (
                &format!("{JAAS_PLAIN} optional username=\"a\" password=\"hunter2\";") as &str,
                "required",
            ),
            (
                &format!("{JAAS_PLAIN} required username=\"a\" password=\"hunter2\"") as &str,
                "closing ';'",
            ),
            (
                &format!("{JAAS_PLAIN} required username=\"a\" pasword=\"hunter2\";") as &str,
                "pasword",
            ),
            ("com.example.Login required;", "not supported"),
            (
                &format!("{JAAS_PLAIN} required password=\"hunter2;") as &str,
                "unterminated",
            ),
        ] {
            let t = translate("", &props(&[("sasl.jaas.config", jaas)]));
            assert_eq!(t.problems.len(), 1, "{jaas}: {:?}", t.problems);
            assert_eq!(t.problems[0].0, "sasl.jaas.config");
            assert!(t.problems[0].1.contains(expect), "{jaas}: {}", t.problems[0].1);
            assert!(!t.problems[0].1.contains("hunter2"), "{}", t.problems[0].1);
        }
    }

    #[test]
    fn java_only_keys_and_bad_values_are_named() {
        let t = translate(
            "",
            &props(&[
                ("security.protocol", "SSL_PLAIN"),
                ("sasl.mechanism", "GSSAPI"),
                ("ssl.provider", "SunJSSE"),
                ("ssl.enabled.protocols", "TLSv1.1"),
                ("ssl.protocol", "TLSv1.3"),
            ]),
        );
        let keys: Vec<&str> = t.problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "security.protocol",
                "ssl.enabled.protocols",
                "sasl.mechanism",
                "ssl.provider"
            ]
        );
        assert_eq!(t.notes.len(), 1, "TLSv1.3 is what librdkafka negotiates anyway");
    }

    #[test]
    fn password_keys_are_known_with_any_prefix() {
        assert!(is_password("sasl.jaas.config"));
        assert!(is_password("producer.override.sasl.jaas.config"));
        assert!(is_password("consumer.ssl.keystore.password"));
        assert!(!is_password("ssl.keystore.location"));
        let shown = redacted(&props(&[
            ("producer.override.sasl.jaas.config", "x password=\"p\";"),
            ("topic", "t"),
        ]));
        assert_eq!(shown.get("producer.override.sasl.jaas.config").unwrap(), HIDDEN);
        assert_eq!(shown.get("topic").unwrap(), "t");
    }
}
