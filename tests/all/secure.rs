//! Secure clusters: a worker reaches the test broker's SSL, mutual TLS,
//! SASL_SSL (SCRAM) and SASL_PLAINTEXT (PLAIN, OAUTHBEARER) listeners
//! (`scripts/kafka.sh secure-env`) with Kafka Connect's keys only, runs
//! datagen → Kafka → file-sink exactly-once over them, and refuses a wrong password or an
//! untrusted broker with a clear error within seconds.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use copycat_runtime::{Worker, WorkerConfig};
use copycat_tests::*;

/// The listeners and credentials `scripts/kafka.sh secure-env` prints.
fn secure_env() -> BTreeMap<String, String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/kafka.sh");
    let out = std::process::Command::new(script).arg("secure-env").output().unwrap();
    assert!(out.status.success(), "scripts/kafka.sh secure-env failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// Whether the secure listeners are the test broker's (not an external
/// cluster given by KAFKA_BOOTSTRAP, which has other listeners).
fn local_broker() -> bool {
    std::env::var("COPYCAT_LOCAL_KAFKA").map_or(true, |v| v == "1")
}

/// The worker keys for `listener` with the security `keys`, repeated under
/// `producer.`, `consumer.` and `admin.` (tasks inherit nothing, as in
/// Kafka Connect).
fn secure_worker(bootstrap: &str, keys: &[(&str, String)]) -> Result<WorkerConfig, String> {
    let dir = plugin_dir();
    let mut p = props(&[
        ("bootstrap.servers", bootstrap),
        ("plugin.path", dir.to_str().unwrap()),
        ("offset.storage.topic", &unique("secure-offsets")),
        ("offset.storage.partitions", "1"),
        ("offset.flush.interval.ms", "200"),
        ("exactly.once.source.support", "enabled"),
    ]);
    for (k, v) in keys {
        p.insert((*k).to_owned(), v.clone());
        for prefix in ["producer.", "consumer.", "admin."] {
            p.insert(format!("{prefix}{k}"), v.clone());
        }
    }
    WorkerConfig::from_props(p).map_err(|e| e.to_string())
}

fn jaas(module: &str, user: &str, password: &str) -> String {
    format!(r#"org.apache.kafka.common.security.{module} required username="{user}" password="{password}";"#)
}

/// Security keys and their values.
type Keys = Vec<(&'static str, String)>;

/// Each listener (what, bootstrap) with the keys that reach it.
fn listeners(env: &BTreeMap<String, String>) -> Vec<(&'static str, String, Keys)> {
    let ca = env["KAFKA_TLS_CA"].clone();
    let (user, password) = (&env["KAFKA_SASL_USER"], &env["KAFKA_SASL_PASSWORD"]);
    let tls = vec![
        ("ssl.truststore.type", "PEM".to_owned()),
        ("ssl.truststore.location", ca.clone()),
    ];
    vec![
        (
            "SSL",
            env["KAFKA_SSL_BOOTSTRAP"].clone(),
            [vec![("security.protocol", "SSL".to_owned())], tls.clone()].concat(),
        ),
        (
            "mutual TLS",
            env["KAFKA_MTLS_BOOTSTRAP"].clone(),
            [
                vec![
                    ("security.protocol", "SSL".to_owned()),
                    ("ssl.keystore.type", "PEM".to_owned()),
                    ("ssl.keystore.location", env["KAFKA_TLS_CLIENT"].clone()),
                ],
                tls.clone(),
            ]
            .concat(),
        ),
        (
            "SASL_SSL SCRAM-SHA-512",
            env["KAFKA_SASL_SSL_BOOTSTRAP"].clone(),
            [
                vec![
                    ("security.protocol", "SASL_SSL".to_owned()),
                    ("sasl.mechanism", "SCRAM-SHA-512".to_owned()),
                    ("sasl.jaas.config", jaas("scram.ScramLoginModule", user, password)),
                ],
                tls.clone(),
            ]
            .concat(),
        ),
        (
            "SASL_PLAINTEXT PLAIN",
            env["KAFKA_SASL_PLAINTEXT_BOOTSTRAP"].clone(),
            vec![
                ("security.protocol", "SASL_PLAINTEXT".to_owned()),
                ("sasl.mechanism", "PLAIN".to_owned()),
                ("sasl.jaas.config", jaas("plain.PlainLoginModule", user, password)),
            ],
        ),
        (
            "SASL_PLAINTEXT OAUTHBEARER (unsecured JWT)",
            env["KAFKA_SASL_PLAINTEXT_BOOTSTRAP"].clone(),
            vec![
                ("security.protocol", "SASL_PLAINTEXT".to_owned()),
                ("sasl.mechanism", "OAUTHBEARER".to_owned()),
                (
                    "sasl.jaas.config",
                    r#"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="copycat";"#
                        .to_owned(),
                ),
            ],
        ),
    ]
}

#[test]
fn datagen_to_file_sink_exactly_once_over_every_secure_listener() {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the test listeners");
        return;
    }
    init_logging();
    let env = secure_env();
    for (what, bootstrap, keys) in listeners(&env) {
        let cfg = secure_worker(&bootstrap, &keys).unwrap_or_else(|e| panic!("{what}: {e}"));
        let worker = block_on(Worker::start(cfg)).unwrap_or_else(|e| panic!("{what}: worker start: {e}"));
        let topic = unique("secure");
        block_on(create_topic(&topic, 1));
        let out_dir = std::env::temp_dir().join(unique("secure-out"));
        std::fs::create_dir_all(&out_dir).unwrap();
        let (source, sink) = (unique("secure-dg"), unique("secure-sink"));
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
            .unwrap_or_else(|e| panic!("{what}: {e}"));
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
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        // The exactly-once file sink writes `<topic>-<partition>-<first offset>.txt` files.
        let lines = || -> Vec<String> {
            let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&out_dir)
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
        };
        eventually(
            &format!("{what}: 50 lines in the sink's file"),
            Duration::from_secs(60),
            || {
                for name in [&source, &sink] {
                    let states = task_states(&worker, name);
                    if let Some((_, trace)) = states.into_iter().find(|(s, _)| s == "FAILED") {
                        panic!("{what}: a task of {name} failed: {}", trace.unwrap_or_default());
                    }
                }
                (lines().len() >= 50).then_some(())
            },
        );
        assert_eq!(read_topic(&topic).len(), 50, "{what}: exactly the records datagen made");
        let got = lines();
        let distinct: std::collections::BTreeSet<&String> = got.iter().collect();
        assert_eq!(got.len(), 50, "{what}: 50 lines in the files");
        assert_eq!(distinct.len(), 50, "{what}: no line twice");
        worker.shutdown();
        let _ = std::fs::remove_dir_all(&out_dir);
    }
}

/// A worker that cannot authenticate, or does not trust the broker, fails
/// to start with the cause, within seconds, rather than hanging.
#[test]
fn a_wrong_password_or_an_untrusted_broker_is_refused_quickly_with_the_cause() {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the test listeners");
        return;
    }
    init_logging();
    let env = secure_env();
    let ca = env["KAFKA_TLS_CA"].clone();
    let cases = [
        (
            "wrong password",
            env["KAFKA_SASL_SSL_BOOTSTRAP"].clone(),
            vec![
                ("security.protocol", "SASL_SSL".to_owned()),
                ("sasl.mechanism", "SCRAM-SHA-512".to_owned()),
                (
                    "sasl.jaas.config",
                    jaas("scram.ScramLoginModule", &env["KAFKA_SASL_USER"], "not-the-password"),
                ),
                ("ssl.truststore.type", "PEM".to_owned()),
                ("ssl.truststore.location", ca.clone()),
            ],
            "authentication",
        ),
        (
            "untrusted broker certificate",
            env["KAFKA_SSL_BOOTSTRAP"].clone(),
            vec![
                ("security.protocol", "SSL".to_owned()),
                ("ssl.truststore.type", "PEM".to_owned()),
                // The system's CAs, none of which signed the test broker's certificate.
                (
                    "ssl.truststore.location",
                    "/etc/ssl/certs/ca-certificates.crt".to_owned(),
                ),
            ],
            "not signed by a ca in the client's truststore",
        ),
        (
            "expired broker certificate",
            env["KAFKA_EXPIRED_CERT_BOOTSTRAP"].clone(),
            vec![
                ("security.protocol", "SSL".to_owned()),
                ("ssl.truststore.type", "PEM".to_owned()),
                ("ssl.truststore.location", ca.clone()),
            ],
            "has expired",
        ),
        (
            "broker certificate for another host",
            env["KAFKA_WRONG_HOST_BOOTSTRAP"].clone(),
            vec![
                ("security.protocol", "SSL".to_owned()),
                ("ssl.truststore.type", "PEM".to_owned()),
                ("ssl.truststore.location", ca.clone()),
            ],
            "is not issued for 127.0.0.1",
        ),
    ];
    for (what, bootstrap, keys, cause) in cases {
        let cfg = secure_worker(&bootstrap, &keys).unwrap_or_else(|e| panic!("{what}: {e}"));
        let started = Instant::now();
        let err = match block_on(Worker::start(cfg)) {
            Ok(w) => {
                w.shutdown();
                panic!("{what}: the worker started");
            }
            Err(e) => format!("{e:#}"),
        };
        assert!(
            // A refusal is final: no waiting out retries (10 s is the wait
            // for an address that does not answer at all).
            started.elapsed() < Duration::from_secs(8),
            "{what}: took {:?}",
            started.elapsed()
        );
        assert!(
            err.to_lowercase().contains(cause),
            "{what}: the error names the cause: {err}"
        );
        assert!(err.contains(&bootstrap), "{what}: the error names the listener: {err}");
        eprintln!("{what}: {err}");
        assert!(
            !err.contains("not-the-password"),
            "{what}: the password is not shown: {err}"
        );
    }
}

/// `scripts/kafka.sh acl ARGS` (kafka-acls.sh against the test broker).
fn acl(args: &[&str]) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/kafka.sh");
    let out = std::process::Command::new(script)
        .arg("acl")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "scripts/kafka.sh acl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// ACLs that deny the connector's principal one topic fail exactly the
/// tasks that use it, with the broker's authorization error; the worker
/// and the other connectors keep running and deliver.
#[test]
fn a_topic_the_acls_deny_fails_only_the_tasks_that_use_it() {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the test listeners");
        return;
    }
    init_logging();
    let env = secure_env();
    let keys: Keys = vec![
        ("security.protocol", "SASL_SSL".to_owned()),
        ("sasl.mechanism", "SCRAM-SHA-512".to_owned()),
        (
            "sasl.jaas.config",
            jaas(
                "scram.ScramLoginModule",
                &env["KAFKA_SASL_USER"],
                &env["KAFKA_SASL_PASSWORD"],
            ),
        ),
        ("ssl.truststore.type", "PEM".to_owned()),
        ("ssl.truststore.location", env["KAFKA_TLS_CA"].clone()),
    ];
    let (allowed, denied, unwritable) = (unique("acl-open"), unique("acl-denied"), unique("acl-read-only"));
    for t in [&allowed, &denied, &unwritable] {
        block_on(create_topic(t, 1));
    }
    // Records for the sink that may not read them (written as the super user).
    produce(&denied, Some(0), &[("k".to_owned(), "v".to_owned())]);
    let principal = format!("User:{}", env["KAFKA_SASL_USER"]);
    acl(&[
        "--add",
        "--deny-principal",
        &principal,
        "--operation",
        "All",
        "--topic",
        &denied,
    ]);
    // Described but not written: the task sees the topic, and the refusal
    // comes from the transactional producer. (Once a resource has ACLs,
    // allow.everyone.if.no.acl.found no longer opens it.)
    acl(&[
        "--add",
        "--allow-principal",
        &principal,
        "--operation",
        "Describe",
        "--topic",
        &unwritable,
    ]);
    acl(&[
        "--add",
        "--deny-principal",
        &principal,
        "--operation",
        "Write",
        "--topic",
        &unwritable,
    ]);

    let cfg = secure_worker(&env["KAFKA_SASL_SSL_BOOTSTRAP"], &keys).unwrap();
    let worker = block_on(Worker::start(cfg)).unwrap();
    let out_dir = std::env::temp_dir().join(unique("acl-out"));
    std::fs::create_dir_all(&out_dir).unwrap();
    let dir = out_dir.to_str().unwrap();
    let start = |name: &str, pairs: &[(&str, &str)]| {
        let mut all = vec![("name", name)];
        all.extend_from_slice(pairs);
        worker.start_connector(connector(&worker, &all)).unwrap();
    };
    fn source(topic: &str) -> [(&'static str, &str); 5] {
        [
            ("connector.class", "datagen"),
            ("count", "50"),
            ("value.size", "20"),
            ("delivery.guarantee", "exactly-once"),
            ("topic", topic),
        ]
    }
    fn sink<'a>(topic: &'a str, dir: &'a str) -> [(&'static str, &'a str); 5] {
        [
            ("connector.class", "file-sink"),
            ("exactly.once", "true"),
            ("directory", dir),
            ("grants.fs.write", dir),
            ("topics", topic),
        ]
    }
    let names: Vec<String> = [
        "denied-source",
        "denied-sink",
        "unwritable-source",
        "open-source",
        "open-sink",
    ]
    .iter()
    .map(|n| unique(n))
    .collect();
    start(&names[0], &source(&denied));
    start(&names[1], &sink(&denied, dir));
    start(&names[2], &source(&unwritable));
    start(&names[3], &source(&allowed));
    start(&names[4], &sink(&allowed, dir));

    for name in &names[..3] {
        let trace = eventually(&format!("{name}'s task FAILED"), Duration::from_secs(60), || {
            task_states(&worker, name)
                .into_iter()
                .find(|(s, _)| s == "FAILED")
                .map(|(_, t)| t.unwrap_or_default())
        });
        assert!(
            trace.to_lowercase().contains("authoriz"),
            "{name}: the trace names the authorization error: {trace}"
        );
        assert!(
            trace.starts_with("not authorized: "),
            "{name}: a refusal fails the task at once, without automatic restarts: {trace}"
        );
        eprintln!("{name}: {trace}");
    }
    // The open pipeline delivers all its records, its tasks still RUNNING.
    let lines = || -> usize {
        std::fs::read_dir(&out_dir)
            .map(|rd| {
                rd.flatten()
                    .filter(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        n.starts_with(&format!("{allowed}-0-")) && n.ends_with(".txt")
                    })
                    .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default().lines().count())
                    .sum()
            })
            .unwrap_or(0)
    };
    eventually("50 lines from the open topic", Duration::from_secs(60), || {
        (lines() >= 50).then_some(())
    });
    assert_eq!(lines(), 50);
    assert_eq!(read_topic(&denied).len(), 1, "nothing written to the denied topic");
    assert_eq!(
        read_topic(&unwritable).len(),
        0,
        "nothing written to the read-only topic"
    );
    for name in &names[3..] {
        assert!(
            task_states(&worker, name).iter().all(|(s, _)| s == "RUNNING"),
            "{name}: {:?}",
            task_states(&worker, name)
        );
    }
    let leftover = std::fs::read_dir(&out_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&denied))
        .count();
    assert_eq!(leftover, 0, "the denied sink wrote nothing");
    worker.shutdown();
    let _ = std::fs::remove_dir_all(&out_dir);
}
