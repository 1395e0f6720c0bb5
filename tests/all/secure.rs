//! Secure clusters: a worker reaches the test broker's SSL, mutual TLS,
//! SASL_SSL (SCRAM-SHA-256/512, PLAIN) and SASL_PLAINTEXT (PLAIN,
//! OAUTHBEARER) listeners (`scripts/kafka.sh secure-env`) with Kafka
//! Connect's keys only and runs datagen → Kafka → file-sink exactly-once
//! over them, standalone and as a 2-worker cluster that survives a SIGKILL
//! and keeps no secret; it refuses a wrong password and an untrusted,
//! expired or misnamed broker certificate within seconds, naming the
//! cause; ACLs that deny a topic fail only the tasks that use it, and the
//! documented ACLs are enough.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use copycat_runtime::{Worker, WorkerConfig};
use copycat_tests::*;

/// `KEY=value` lines a project script prints for `arg`.
pub(super) fn script_env(script: &str, arg: &str) -> BTreeMap<String, String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(script);
    let out = std::process::Command::new(&path).arg(arg).output().unwrap();
    assert!(
        out.status.success(),
        "scripts/{script} {arg} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The listeners and credentials `scripts/kafka.sh secure-env` prints.
fn secure_env() -> BTreeMap<String, String> {
    script_env("kafka.sh", "secure-env")
}

/// Whether the secure listeners are the test broker's (not an external
/// cluster given by KAFKA_BOOTSTRAP, which has other listeners).
pub(super) fn local_broker() -> bool {
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
pub(super) type Keys = Vec<(&'static str, String)>;

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
            "SASL_SSL SCRAM-SHA-256",
            env["KAFKA_SASL_SSL_BOOTSTRAP"].clone(),
            [
                vec![
                    ("security.protocol", "SASL_SSL".to_owned()),
                    ("sasl.mechanism", "SCRAM-SHA-256".to_owned()),
                    ("sasl.jaas.config", jaas("scram.ScramLoginModule", user, password)),
                ],
                tls.clone(),
            ]
            .concat(),
        ),
        (
            "SASL_SSL PLAIN",
            env["KAFKA_SASL_SSL_BOOTSTRAP"].clone(),
            [
                vec![
                    ("security.protocol", "SASL_SSL".to_owned()),
                    ("sasl.mechanism", "PLAIN".to_owned()),
                    ("sasl.jaas.config", jaas("plain.PlainLoginModule", user, password)),
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

/// The secrets of the secure listeners: what must never appear outside
/// the operator's own worker config file.
fn secrets(env: &BTreeMap<String, String>) -> Vec<String> {
    let client = std::fs::read_to_string(&env["KAFKA_TLS_CLIENT"]).unwrap();
    // A line from the middle of the client's private key.
    let key_line = client
        .lines()
        .skip_while(|l| !l.contains("BEGIN PRIVATE KEY"))
        .nth(5)
        .unwrap()
        .to_owned();
    vec![env["KAFKA_SASL_PASSWORD"].clone(), key_line]
}

/// Every file under `dir`, as text, with its path.
fn files_under(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push((p, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    out
}

/// A distributed cluster of 2 `copycat worker` processes on one secure
/// listener, configured with the documented keys only, runs datagen →
/// Kafka → file-sink exactly-once and survives a SIGKILL of one worker;
/// afterwards no secret appears in the logs, the cluster's topics, the
/// state directories or any REST answer.
fn cluster_over_listener(which: &str) {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the test listeners");
        return;
    }
    let env = secure_env();
    let (what, bootstrap, keys) = listeners(&env).into_iter().find(|(w, ..)| *w == which).unwrap();
    let mut extra =
        String::from("exactly.once.source.support=enabled\nsession.timeout.ms=6000\nheartbeat.interval.ms=1000\n");
    for (k, v) in &keys {
        for prefix in ["", "producer.", "consumer.", "admin."] {
            extra.push_str(&format!("{prefix}{k}={}\n", v.replace('\\', "\\\\")));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let group = unique("secure-cluster");
    let mut workers: Vec<ClusterWorker> = ["w0", "w1"]
        .iter()
        .map(|n| ClusterWorker::start_on(dir.path(), n, &group, &bootstrap, &extra))
        .collect();
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("secure-cluster");
    block_on(create_topic(&topic, 2));
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let (source, sink) = (unique("secure-dg"), unique("secure-sink"));
    let per_stream = 1500;
    let (code, body) = workers[0].send(
        "POST",
        "/connectors",
        &serde_json::json!({"name": source, "config": {
            "connector.class": "datagen", "topic": topic, "streams": "2", "tasks.max": "2",
            "count": per_stream.to_string(), "rate": "150", "value.size": "30",
            "delivery.guarantee": "exactly-once",
        }}),
    );
    assert_eq!(code, 201, "{what}: {body}");
    let (code, body) = workers[1].send(
        "POST",
        "/connectors",
        &serde_json::json!({"name": sink, "config": {
            "connector.class": "file-sink", "topics": topic, "tasks.max": "2", "exactly.once": "true",
            "directory": out.display().to_string(), "grants.fs.write": out.display().to_string(),
        }}),
    );
    assert_eq!(code, 201, "{what}: {body}");
    // Both connectors' tasks RUNNING; the source's spread over both workers.
    let running = |w: &ClusterWorker, name: &str| -> Option<Vec<String>> {
        let (code, s) = w.get(&format!("/connectors/{name}/status"));
        let tasks = s["tasks"].as_array().filter(|_| code == 200)?;
        if let Some(t) = tasks.iter().find(|t| t["state"] == "FAILED") {
            panic!("{what}: a task of {name} FAILED: {}", t["trace"]);
        }
        let on: Vec<String> = tasks
            .iter()
            .filter(|t| t["state"] == "RUNNING")
            .map(|t| t["worker_id"].as_str().unwrap_or("").to_owned())
            .collect();
        (on.len() == 2).then_some(on)
    };
    let placed = eventually(&format!("{what}: the tasks RUNNING"), Duration::from_secs(90), || {
        running(&workers[0], &sink)?;
        running(&workers[0], &source)
    });
    // A worker dies midway: the one with source task 0.
    eventually(&format!("{what}: records flowing"), Duration::from_secs(60), || {
        (topic_size(&topic) >= 300).then_some(())
    });
    let victim = ids.iter().position(|id| *id == placed[0]).unwrap();
    workers[victim].kill();
    let survivor = &workers[1 - victim];
    eventually(
        &format!("{what}: every task RUNNING on the survivor"),
        Duration::from_secs(90),
        || {
            let on = running(survivor, &source)?;
            let sink_on = running(survivor, &sink)?;
            on.iter().chain(&sink_on).all(|w| *w == survivor.id()).then_some(())
        },
    );
    // Everything exactly once: in Kafka (read_committed) and in the files.
    let lines = || -> Vec<String> {
        files_under(&out)
            .into_iter()
            .filter(|(p, _)| p.extension().is_some_and(|e| e == "txt"))
            .flat_map(|(_, text)| text.lines().map(str::to_owned).collect::<Vec<_>>())
            .collect()
    };
    let total = 2 * per_stream;
    // Polled by hand to say, on a timeout, where the pipeline stands.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if running(survivor, &source).is_some() && lines().len() >= total {
            break;
        }
        if Instant::now() > deadline {
            let mut files: Vec<(String, usize)> = files_under(&out)
                .into_iter()
                .map(|(p, text)| {
                    (
                        p.file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        text.lines().count(),
                    )
                })
                .collect();
            files.sort();
            panic!(
                "{what}: timed out waiting for {total} lines in the sink's files: {} lines; files {files:?}; \
                 topic {topic} holds {} records; source status {}; sink status {}",
                lines().len(),
                topic_size(&topic),
                survivor.get(&format!("/connectors/{source}/status")).1,
                survivor.get(&format!("/connectors/{sink}/status")).1,
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut seqs: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in read_topic(&topic) {
        let key = r.key.unwrap();
        let (stream, seq) = key.rsplit_once(':').unwrap();
        seqs.entry(stream.to_owned()).or_default().push(seq.parse().unwrap());
    }
    assert_eq!(seqs.len(), 2, "{what}: two streams");
    for (stream, mut s) in seqs {
        s.sort_unstable();
        assert_eq!(
            s,
            (0..per_stream as u64).collect::<Vec<_>>(),
            "{what}: {stream} exactly once"
        );
    }
    let got = lines();
    let distinct: std::collections::BTreeSet<&String> = got.iter().collect();
    assert_eq!(
        (got.len(), distinct.len()),
        (total, total),
        "{what}: every record once in the files"
    );

    // No secret anywhere a worker writes or answers.
    let mut places: Vec<(String, String)> = Vec::new();
    for w in &workers {
        places.push((format!("the log of {}", w.id()), w.log()));
    }
    for suffix in ["configs", "offsets", "status"] {
        let t = format!("{group}-{suffix}");
        let text: String = read_topic(&t)
            .into_iter()
            .map(|r| format!("{:?} {:?}\n", r.key, r.value))
            .collect();
        places.push((format!("topic {t}"), text));
    }
    for name in ["w0", "w1"] {
        for (p, text) in files_under(&dir.path().join(name)) {
            places.push((format!("state file {}", p.display()), text));
        }
    }
    let paths = [
        "/".to_owned(),
        "/connectors?expand=status&expand=info".to_owned(),
        format!("/connectors/{source}"),
        format!("/connectors/{source}/config"),
        format!("/connectors/{source}/tasks"),
        format!("/connectors/{source}/status"),
        format!("/connectors/{source}/offsets"),
        format!("/connectors/{sink}/config"),
        "/connector-plugins".to_owned(),
        "/metrics".to_owned(),
        "/admin/loggers".to_owned(),
    ];
    for path in &paths {
        places.push((format!("GET {path}"), survivor.get(path).1.to_string()));
    }
    // A validation request that carries a secret does not echo it.
    let jaas_secret = jaas("plain.PlainLoginModule", "someone", &env["KAFKA_SASL_PASSWORD"]);
    let (_, validated) = survivor.send(
        "PUT",
        "/connector-plugins/datagen/config/validate",
        &serde_json::json!({"connector.class": "datagen", "topic": "t",
            "producer.override.sasl.jaas.config": jaas_secret}),
    );
    places.push(("PUT .../config/validate".into(), validated.to_string()));
    for secret in secrets(&env) {
        for (place, text) in &places {
            assert!(!text.contains(&secret), "{what}: a secret appears in {place}");
        }
    }
    for w in &mut workers {
        w.kill();
    }
}

#[test]
fn a_two_worker_cluster_over_ssl_survives_a_sigkill_and_keeps_no_secret() {
    cluster_over_listener("SSL");
}

#[test]
fn a_two_worker_cluster_over_mutual_tls_survives_a_sigkill_and_keeps_no_secret() {
    cluster_over_listener("mutual TLS");
}

#[test]
fn a_two_worker_cluster_over_sasl_ssl_scram_survives_a_sigkill_and_keeps_no_secret() {
    cluster_over_listener("SASL_SSL SCRAM-SHA-512");
}

#[test]
fn a_two_worker_cluster_over_sasl_plaintext_plain_survives_a_sigkill_and_keeps_no_secret() {
    cluster_over_listener("SASL_PLAINTEXT PLAIN");
}

#[test]
fn a_two_worker_cluster_over_oauthbearer_survives_a_sigkill_and_keeps_no_secret() {
    cluster_over_listener("SASL_PLAINTEXT OAUTHBEARER (unsecured JWT)");
}

/// A worker whose principal holds only the ACLs docs/operations.md lists
/// (and no others: the test broker's wildcard ACLs make every resource one
/// with ACLs) runs a distributed cluster with an exactly-once source and a
/// sink. The grants here are the documented ones, one `kafka-acls` line each.
#[test]
fn a_worker_with_only_the_documented_acls_runs_exactly_once() {
    if !local_broker() {
        eprintln!("skipped: KAFKA_BOOTSTRAP names an external cluster without the test listeners");
        return;
    }
    init_logging();
    let env = secure_env();
    let principal = format!("User:{}", env["KAFKA_SASL_LIMITED_USER"]);
    let group = unique("acl-cluster");
    let (topic, source, sink) = (unique("acl-topic"), unique("acl-dg"), unique("acl-sink"));
    let offsets = format!("{group}-offsets");
    let p = principal.as_str();
    // One `kafka-acls --add --allow-principal P` line each, as documented.
    let grant = |line: String| {
        let args: Vec<&str> = ["--add", "--allow-principal", p]
            .into_iter()
            .chain(line.split_whitespace())
            .collect();
        acl(&args);
    };
    // The worker: its three topics, its group, the readers' groups.
    for suffix in ["configs", "offsets", "status"] {
        grant(format!(
            "--operation Read --operation Write --operation Describe --operation Create --operation DescribeConfigs --topic {group}-{suffix}"
        ));
    }
    grant(format!("--operation Read --group {group}"));
    grant("--operation Describe --group copycat-log-reader --group copycat-offset-reader".into());
    // The exactly-once source: its topic, its transactional ids.
    grant(format!("--operation Write --operation Describe --topic {topic}"));
    grant(format!(
        "--operation Write --operation Describe --resource-pattern-type prefixed --transactional-id copycat-{offsets}-{source}-"
    ));
    // The sink: its topic, its consumer group.
    grant(format!("--operation Read --operation Describe --topic {topic}"));
    grant(format!("--operation Read --group connect-{sink}"));

    let mut extra = String::from("exactly.once.source.support=enabled\n");
    let jaas_line = jaas(
        "scram.ScramLoginModule",
        &env["KAFKA_SASL_LIMITED_USER"],
        &env["KAFKA_SASL_LIMITED_PASSWORD"],
    );
    for prefix in ["", "producer.", "consumer.", "admin."] {
        extra.push_str(&format!(
            "{prefix}security.protocol=SASL_SSL\n{prefix}sasl.mechanism=SCRAM-SHA-512\n{prefix}sasl.jaas.config={jaas_line}\n\
             {prefix}ssl.truststore.type=PEM\n{prefix}ssl.truststore.location={}\n",
            env["KAFKA_TLS_CA"]
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    block_on(create_topic(&topic, 1));
    let w = ClusterWorker::start_on(dir.path(), "w0", &group, &env["KAFKA_SASL_SSL_BOOTSTRAP"], &extra);
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let (code, body) = w.send(
        "POST",
        "/connectors",
        &serde_json::json!({"name": source, "config": {
            "connector.class": "datagen", "topic": topic, "count": "200", "value.size": "30",
            "delivery.guarantee": "exactly-once",
        }}),
    );
    assert_eq!(code, 201, "{body}");
    let (code, body) = w.send(
        "POST",
        "/connectors",
        &serde_json::json!({"name": sink, "config": {
            "connector.class": "file-sink", "topics": topic, "exactly.once": "true",
            "directory": out.display().to_string(), "grants.fs.write": out.display().to_string(),
        }}),
    );
    assert_eq!(code, 201, "{body}");
    let lines = || -> Vec<String> {
        files_under(&out)
            .into_iter()
            .filter(|(p, _)| p.extension().is_some_and(|e| e == "txt"))
            .flat_map(|(_, text)| text.lines().map(str::to_owned).collect::<Vec<_>>())
            .collect()
    };
    eventually("200 lines in the sink's files", Duration::from_secs(90), || {
        for name in [&source, &sink] {
            let (_, s) = w.get(&format!("/connectors/{name}/status"));
            if let Some(t) = s["tasks"]
                .as_array()
                .and_then(|ts| ts.iter().find(|t| t["state"] == "FAILED"))
            {
                panic!("a task of {name} FAILED: {}", t["trace"]);
            }
        }
        (lines().len() >= 200).then_some(())
    });
    let got = lines();
    let distinct: std::collections::BTreeSet<&String> = got.iter().collect();
    assert_eq!((got.len(), distinct.len()), (200, 200));
    assert_eq!(read_topic(&topic).len(), 200);
    assert!(!w.log().contains(" ERROR "), "no errors in the worker's log");
}
