//! OAUTHBEARER with a real identity provider: the worker gets its tokens
//! from Keycloak (`scripts/oauth.sh`, the client-credentials grant) and the
//! test broker's OIDC listener (`scripts/kafka.sh`, SASL_SSL) checks their
//! signature, issuer and audience. With Kafka Connect's keys only, a
//! standalone worker runs datagen → Kafka → file-sink exactly-once over it;
//! a wrong client secret stops the worker's start within seconds naming
//! the cause, and a token Keycloak did not sign is refused by the broker.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use copycat_runtime::{Worker, WorkerConfig};
use copycat_tests::*;

use super::secure::{Keys, local_broker, script_env};

/// Start Keycloak (a no-op when it runs already) and return the broker's
/// and the identity provider's settings together.
fn start_identity_provider() -> BTreeMap<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/oauth.sh");
    let started = Instant::now();
    let out = std::process::Command::new(script).arg("start").output().unwrap();
    assert!(
        out.status.success(),
        "scripts/oauth.sh start failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("scripts/oauth.sh start: {:.1?}", started.elapsed());
    let mut env = script_env("kafka.sh", "secure-env");
    env.extend(script_env("oauth.sh", "env"));
    env
}

/// The worker keys for `bootstrap` with the security `keys` for the
/// worker's own clients and `task_keys` under `producer.`, `consumer.` and
/// `admin.` (tasks inherit nothing, as in Kafka Connect).
fn oauth_worker(bootstrap: &str, keys: &Keys, task_keys: &Keys) -> WorkerConfig {
    let dir = plugin_dir();
    let mut p = props(&[
        ("bootstrap.servers", bootstrap),
        ("plugin.path", dir.to_str().unwrap()),
        ("offset.storage.topic", &unique("oauth-offsets")),
        ("offset.storage.partitions", "1"),
        ("offset.flush.interval.ms", "200"),
        ("exactly.once.source.support", "enabled"),
    ]);
    for (k, v) in keys {
        p.insert((*k).to_owned(), v.clone());
    }
    for (k, v) in task_keys {
        for prefix in ["producer.", "consumer.", "admin."] {
            p.insert(format!("{prefix}{k}"), v.clone());
        }
    }
    WorkerConfig::from_props(p).unwrap()
}

/// Kafka Connect's keys for a token endpoint, as docs/operations.md gives
/// them, with `secret` as the client secret: in `sasl.jaas.config`, or
/// with `kafka_4_1_names` in Kafka 4.1's `sasl.oauthbearer.client.credentials.*`.
fn token_endpoint_keys(env: &BTreeMap<String, String>, secret: &str, kafka_4_1_names: bool) -> Keys {
    let jaas = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required";
    let credentials = if kafka_4_1_names {
        vec![
            ("sasl.jaas.config", format!("{jaas} ;")),
            (
                "sasl.oauthbearer.client.credentials.client.id",
                env["OAUTH_CLIENT_ID"].clone(),
            ),
            ("sasl.oauthbearer.client.credentials.client.secret", secret.to_owned()),
        ]
    } else {
        vec![(
            "sasl.jaas.config",
            format!(
                r#"{jaas} clientId="{}" clientSecret="{secret}";"#,
                env["OAUTH_CLIENT_ID"]
            ),
        )]
    };
    let mut keys = vec![
        ("security.protocol", "SASL_SSL".to_owned()),
        ("sasl.mechanism", "OAUTHBEARER".to_owned()),
        (
            "sasl.oauthbearer.token.endpoint.url",
            env["OAUTH_TOKEN_ENDPOINT"].clone(),
        ),
        (
            "sasl.login.callback.handler.class",
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler".to_owned(),
        ),
        ("ssl.truststore.type", "PEM".to_owned()),
        ("ssl.truststore.location", env["KAFKA_TLS_CA"].clone()),
    ];
    keys.extend(credentials);
    keys
}

/// The lines of the exactly-once file sink's files for `topic` in `dir`
/// (`<topic>-<partition>-<first offset>.txt`), in offset order.
fn sink_lines(dir: &Path, topic: &str) -> Vec<String> {
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!("{topic}-0-")) && n.ends_with(".txt"))
    });
    names.sort();
    names
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn datagen_to_file_sink_exactly_once_with_tokens_from_keycloak() {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the OIDC listener");
        return;
    }
    init_logging();
    let env = start_identity_provider();
    let secret = &env["OAUTH_CLIENT_SECRET"];
    let started = Instant::now();
    // The worker's own clients name the client in sasl.jaas.config, the
    // tasks' clients with Kafka 4.1's keys: both forms get tokens.
    let worker = block_on(Worker::start(oauth_worker(
        &env["KAFKA_OIDC_BOOTSTRAP"],
        &token_endpoint_keys(&env, secret, false),
        &token_endpoint_keys(&env, secret, true),
    )))
    .unwrap_or_else(|e| panic!("worker start: {e:#}"));
    eprintln!("worker started over OIDC in {:.1?}", started.elapsed());
    let topic = unique("oauth");
    block_on(create_topic(&topic, 1));
    let out_dir = std::env::temp_dir().join(unique("oauth-out"));
    std::fs::create_dir_all(&out_dir).unwrap();
    let (source, sink) = (unique("oauth-dg"), unique("oauth-sink"));
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "50"),
                ("value.size", "20"),
                ("delivery.guarantee", "exactly-once"),
            ],
        ))
        .unwrap();
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &sink),
                ("connector.class", "file-sink"),
                ("exactly.once", "true"),
                ("topics", &topic),
                ("directory", out_dir.to_str().unwrap()),
                ("grants.fs.write", out_dir.to_str().unwrap()),
            ],
        ))
        .unwrap();
    eventually("50 lines in the sink's files", Duration::from_secs(60), || {
        for name in [&source, &sink] {
            if let Some((_, trace)) = task_states(&worker, name).into_iter().find(|(s, _)| s == "FAILED") {
                panic!("a task of {name} failed: {}", trace.unwrap_or_default());
            }
        }
        (sink_lines(&out_dir, &topic).len() >= 50).then_some(())
    });
    eprintln!("datagen -> Kafka -> file-sink over OIDC: {:.1?}", started.elapsed());
    assert_eq!(read_topic(&topic).len(), 50, "exactly the records datagen made");
    let got = sink_lines(&out_dir, &topic);
    let distinct: std::collections::BTreeSet<&String> = got.iter().collect();
    assert_eq!(got.len(), 50, "50 lines in the files");
    assert_eq!(distinct.len(), 50, "no line twice");
    worker.shutdown();
    let _ = std::fs::remove_dir_all(&out_dir);
}

/// A client Keycloak does not know (a wrong secret) gets no token, and a
/// token Keycloak did not sign (librdkafka's unsecured JWT) is refused by
/// the broker: either way the worker's start fails within seconds with the
/// cause, and never shows the secret.
#[test]
fn a_wrong_client_secret_or_an_unsigned_token_is_refused_quickly_with_the_cause() {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the OIDC listener");
        return;
    }
    init_logging();
    let env = start_identity_provider();
    let wrong = "not-the-client-secret";
    let cases: [(&str, Keys, &[&str]); 2] = [
        (
            "wrong client secret",
            token_endpoint_keys(&env, wrong, false),
            // librdkafka's report, with the token endpoint's answer.
            &["token", "/realms/copycat/protocol/openid-connect/token", "invalid client credentials"],
        ),
        (
            "unsigned token",
            vec![
                ("security.protocol", "SASL_SSL".to_owned()),
                ("sasl.mechanism", "OAUTHBEARER".to_owned()),
                (
                    "sasl.jaas.config",
                    r#"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="copycat";"#
                        .to_owned(),
                ),
                ("ssl.truststore.type", "PEM".to_owned()),
                ("ssl.truststore.location", env["KAFKA_TLS_CA"].clone()),
            ],
            &["authentication"],
        ),
    ];
    for (what, keys, causes) in cases {
        let started = Instant::now();
        let err = match block_on(Worker::start(oauth_worker(&env["KAFKA_OIDC_BOOTSTRAP"], &keys, &keys))) {
            Ok(w) => {
                w.shutdown();
                panic!("{what}: the worker started");
            }
            Err(e) => format!("{e:#}"),
        };
        eprintln!("{what}: refused in {:.1?}: {err}", started.elapsed());
        // A refusal, by the identity provider or the broker, is final: no
        // waiting out retries (10 s is for one that does not answer).
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "{what}: took {:?}",
            started.elapsed()
        );
        for cause in causes {
            assert!(
                err.to_lowercase().contains(cause),
                "{what}: the error names the cause ({cause}): {err}"
            );
        }
        assert!(!err.contains(wrong), "{what}: the secret is not shown: {err}");
    }
}
