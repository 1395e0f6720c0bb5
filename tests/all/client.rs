//! The `copycat connectors …` / `copycat plugins …` client against a real
//! `copycat standalone` process and broker; and the REST listener's TLS
//! and authentication, checked with the client.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use copycat_tests::*;
use serde_json::{Value, json};

/// What one client command did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn ok(&self) -> bool {
        self.code == Some(0)
    }

    fn json(&self) -> Value {
        assert!(self.ok(), "exit {:?}: {}", self.code, self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }

    /// The table row that mentions `word`.
    fn row(&self, word: &str) -> Option<&str> {
        self.stdout.lines().find(|l| l.split_whitespace().any(|w| w == word))
    }
}

/// `copycat <args>`, with no client settings from the environment.
fn copycat(args: &[&str]) -> Run {
    let out = Command::new(copycat_bin())
        .args(args)
        .env_remove("COPYCAT_URL")
        .env_remove("COPYCAT_TOKEN")
        .env_remove("COPYCAT_USER")
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A client command against `url`.
fn client(url: &str, args: &[&str]) -> Run {
    let mut all = vec![args[0], "--url", url];
    all.extend(&args[1..]);
    copycat(&all)
}

fn state_of(url: &str, name: &str) -> (String, Vec<String>) {
    let s = client(url, &["connectors", "status", name, "--output", "json"]).json();
    let tasks = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["state"].as_str().unwrap().to_owned())
        .collect();
    (s["connector"]["state"].as_str().unwrap().to_owned(), tasks)
}

fn until_state(url: &str, name: &str, connector: &str, tasks: &[&str]) {
    eventually(
        &format!("{name}: connector {connector}, tasks {tasks:?}"),
        Duration::from_secs(60),
        || {
            let (c, t) = state_of(url, name);
            (c == connector && t == tasks).then_some(())
        },
    );
}

#[test]
fn client_manages_connectors_over_rest() {
    let dir = tempfile::tempdir().unwrap();
    let worker = Standalone::start(dir.path(), "");
    let url = worker.url.as_str();
    let topic = unique("client");
    let name = unique("client-dg");
    let file = dir.path().join("datagen.properties");
    std::fs::write(
        &file,
        format!("name={name}\nconnector.class=datagen\ntopic={topic}\nstreams=1\nrate=100\ntopic.partitions=1\n"),
    )
    .unwrap();

    let created = client(url, &["connectors", "create", file.to_str().unwrap()]);
    assert!(created.ok(), "{}", created.stderr);
    assert!(
        created.stdout.contains(&format!("Created connector {name}")),
        "{}",
        created.stdout
    );
    let again = client(url, &["connectors", "create", file.to_str().unwrap()]);
    assert_eq!(again.code, Some(1));
    assert!(
        again.stderr.contains("already exists") && again.stderr.contains("409"),
        "{}",
        again.stderr
    );

    // The table: name, type, state, running/total tasks, plugin.
    eventually("list shows the connector running", Duration::from_secs(60), || {
        let list = client(url, &["connectors", "list"]);
        assert!(list.ok(), "{}", list.stderr);
        assert!(list.stdout.starts_with("NAME"), "{}", list.stdout);
        let row = list.row(&name)?.to_owned();
        let words: Vec<&str> = row.split_whitespace().collect();
        (words == [name.as_str(), "source", "RUNNING", "1/1", "datagen"]).then_some(())
    });
    let list = client(url, &["connectors", "list", "--output", "json"]).json();
    assert_eq!(list[&name]["info"]["config"]["topic"], json!(topic), "{list}");
    assert_eq!(list[&name]["status"]["connector"]["state"], json!("RUNNING"));

    let status = client(url, &["connectors", "status", &name]);
    assert!(status.ok(), "{}", status.stderr);
    let task_row = status.row("0").unwrap_or_else(|| panic!("{}", status.stdout));
    assert!(
        task_row.contains("RUNNING") && task_row.contains(&worker.addr.to_string()),
        "{}",
        status.stdout
    );
    let info = client(url, &["connectors", "get", &name]);
    assert!(
        info.ok() && info.row("connector.class").is_some_and(|r| r.contains("datagen")),
        "{}",
        info.stdout
    );

    // Its active topics, and their reset.
    eventually("the topic in `connectors topics`", Duration::from_secs(60), || {
        client(url, &["connectors", "topics", &name]).row(&topic).map(|_| ())
    });
    let reset = client(url, &["connectors", "topics", &name, "--reset"]);
    assert!(reset.ok(), "{}", reset.stderr);

    // Pause, resume.
    let paused = client(url, &["connectors", "pause", &name]);
    assert!(paused.ok(), "{}", paused.stderr);
    until_state(url, &name, "PAUSED", &["PAUSED"]);
    let table = client(url, &["connectors", "status", &name]);
    assert!(
        table.row("connector").is_some_and(|r| r.contains("PAUSED")),
        "{}",
        table.stdout
    );
    assert!(client(url, &["connectors", "resume", &name]).ok());
    until_state(url, &name, "RUNNING", &["RUNNING"]);

    // Config: --set and --unset (PATCH), then show.
    let patched = client(
        url,
        &[
            "connectors",
            "config",
            &name,
            "--set",
            "rate=50",
            "--unset",
            "topic.partitions",
        ],
    );
    assert!(patched.ok(), "{}", patched.stderr);
    assert!(
        patched.row("rate").is_some_and(|r| r.contains("50")),
        "{}",
        patched.stdout
    );
    let config = client(url, &["connectors", "config", &name, "--output", "json"]).json();
    assert_eq!(config["rate"], json!("50"));
    assert_eq!(config.get("topic.partitions"), None, "{config}");
    let bad = client(url, &["connectors", "config", &name, "--set", "rate=fast"]);
    assert_eq!(bad.code, Some(1));
    assert!(
        bad.stderr.contains("rate") && bad.stderr.contains("400"),
        "{}",
        bad.stderr
    );

    // A restart with its tasks answers the status.
    let restarted = client(url, &["connectors", "restart", &name, "--include-tasks"]);
    assert!(
        restarted.ok() && restarted.stdout.contains("task 0"),
        "{} {}",
        restarted.stdout,
        restarted.stderr
    );
    until_state(url, &name, "RUNNING", &["RUNNING"]);
    let task = client(url, &["connectors", "restart-task", &name, "0"]);
    assert!(task.ok(), "{}", task.stderr);

    // Offsets: committed while running, then stop, alter, reset.
    eventually("offsets committed", Duration::from_secs(60), || {
        let offsets = client(url, &["connectors", "offsets", &name, "--output", "json"]).json();
        (!offsets["offsets"].as_array().unwrap().is_empty()).then_some(())
    });
    let table = client(url, &["connectors", "offsets", &name]);
    assert!(table.stdout.contains("stream-0"), "{}", table.stdout);
    let early = client(url, &["connectors", "offsets", &name, "--reset"]);
    assert_eq!(early.code, Some(1), "reset needs STOPPED");
    assert!(
        early.stderr.contains("STOPPED") && early.stderr.contains("400"),
        "{}",
        early.stderr
    );
    assert!(client(url, &["connectors", "stop", &name]).ok());
    until_state(url, &name, "STOPPED", &[]);
    let doc = dir.path().join("offsets.json");
    std::fs::write(
        &doc,
        r#"{"offsets": [{"partition": {"stream": "stream-0"}, "offset": {"seq": 41}}]}"#,
    )
    .unwrap();
    let altered = client(url, &["connectors", "offsets", &name, "--file", doc.to_str().unwrap()]);
    assert!(
        altered.ok() && altered.stdout.contains("altered"),
        "{} {}",
        altered.stdout,
        altered.stderr
    );
    let offsets = client(url, &["connectors", "offsets", &name, "--output", "json"]).json();
    assert_eq!(
        offsets["offsets"],
        json!([{"partition": {"stream": "stream-0"}, "offset": {"seq": 41}}])
    );
    let reset = client(url, &["connectors", "offsets", &name, "--reset"]);
    assert!(
        reset.ok() && reset.stdout.contains("reset"),
        "{} {}",
        reset.stdout,
        reset.stderr
    );
    let offsets = client(url, &["connectors", "offsets", &name]);
    assert!(offsets.stdout.contains("No offsets committed"), "{}", offsets.stdout);

    // Delete; then the connector is unknown: the server's 404 message.
    let deleted = client(url, &["connectors", "delete", &name]);
    assert!(deleted.ok(), "{}", deleted.stderr);
    let list = client(url, &["connectors", "list", "--output", "json"]).json();
    assert_eq!(list.get(&name), None, "{list}");
    for args in [
        vec!["connectors", "status", name.as_str()],
        vec!["connectors", "get", name.as_str()],
        vec!["connectors", "pause", name.as_str()],
    ] {
        let gone = client(url, &args);
        assert_eq!(gone.code, Some(1), "{args:?}");
        assert!(
            gone.stderr.contains(&format!("Connector {name} not found")) && gone.stderr.contains("HTTP 404"),
            "{args:?}: {}",
            gone.stderr
        );
    }

    // JSON config files: Kafka Connect's {name, config}, created paused.
    let json_file = dir.path().join("c.json");
    let second = unique("client-json");
    std::fs::write(
        &json_file,
        json!({"name": second, "config": {"connector.class": "datagen", "topic": topic, "rate": 10}}).to_string(),
    )
    .unwrap();
    let created = client(
        url,
        &[
            "connectors",
            "create",
            json_file.to_str().unwrap(),
            "--initial-state",
            "PAUSED",
            "--output",
            "json",
        ],
    )
    .json();
    assert_eq!(created["config"]["rate"], json!("10"), "{created}");
    // Created PAUSED: no task configs until resumed, as in Kafka Connect.
    assert_eq!(created["tasks"], json!([]), "{created}");
    until_state(url, &second, "PAUSED", &[]);

    // Nobody listening: the URL is named.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let run = client(&nowhere, &["connectors", "list"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains(&format!("cannot reach {nowhere}")),
        "{}",
        run.stderr
    );
}

#[test]
fn client_lists_describes_and_validates_plugins() {
    let dir = tempfile::tempdir().unwrap();
    let worker = Standalone::start(dir.path(), "");
    let url = worker.url.as_str();

    let list = client(url, &["plugins", "list"]);
    assert!(list.ok(), "{}", list.stderr);
    assert!(
        list.row("datagen").is_some_and(|r| r.contains("source")),
        "{}",
        list.stdout
    );
    assert!(
        list.row("file-sink").is_some_and(|r| r.contains("sink")),
        "{}",
        list.stdout
    );
    let keys = client(url, &["plugins", "config", "datagen", "--output", "json"]).json();
    let topic = keys
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == json!("topic"))
        .unwrap();
    assert_eq!(topic["required"], json!(true));
    let table = client(url, &["plugins", "config", "datagen"]);
    assert!(
        table.row("topic").is_some_and(|r| r.contains("STRING")),
        "{}",
        table.stdout
    );
    let unknown = client(url, &["plugins", "config", "nosuch"]);
    assert_eq!(unknown.code, Some(1));
    assert!(
        unknown.stderr.contains("Unknown plugin nosuch") && unknown.stderr.contains("404"),
        "{}",
        unknown.stderr
    );

    // Validation: errors name the key, exit code 1.
    let bad = dir.path().join("bad.properties");
    std::fs::write(&bad, "rate=fast\n").unwrap();
    let run = client(url, &["plugins", "validate", "datagen", bad.to_str().unwrap()]);
    assert_eq!(run.code, Some(1), "{} {}", run.stdout, run.stderr);
    assert!(run.stderr.contains("2 error(s)"), "{}", run.stderr);
    assert!(
        run.stderr.contains("topic:") && run.stderr.contains("rate:"),
        "{}",
        run.stderr
    );
    assert!(run.row("rate").is_some_and(|r| r.contains("fast")), "{}", run.stdout);
    let run = client(
        url,
        &[
            "plugins",
            "validate",
            "datagen",
            bad.to_str().unwrap(),
            "--output",
            "json",
        ],
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).unwrap()["error_count"],
        json!(2)
    );
    let good = dir.path().join("good.json");
    std::fs::write(&good, r#"{"topic": "t", "rate": 5}"#).unwrap();
    let run = client(url, &["plugins", "validate", "datagen", good.to_str().unwrap()]);
    assert!(run.ok(), "{} {}", run.stdout, run.stderr);
    assert!(run.stdout.contains("0 error(s)"), "{}", run.stdout);

    // Uploads: a component is stored under the version it describes itself
    // as (datagen is the workspace's version); another version is refused.
    let name = unique("uploaded");
    let wasm = plugin("datagen");
    let version = env!("CARGO_PKG_VERSION");
    let wrong = client(url, &["plugins", "upload", &name, "9.9.9", wasm.to_str().unwrap()]);
    assert_eq!(wrong.code, Some(1), "{} {}", wrong.stdout, wrong.stderr);
    assert!(
        wrong.stderr.contains(&format!("describes itself as version {version}")) && wrong.stderr.contains("HTTP 400"),
        "{}",
        wrong.stderr
    );
    let up = client(
        url,
        &[
            "plugins",
            "upload",
            &name,
            version,
            wasm.to_str().unwrap(),
            "--output",
            "json",
        ],
    );
    assert!(up.ok(), "{} {}", up.stdout, up.stderr);
    let body = up.json();
    assert_eq!(
        (body["name"].clone(), body["version"].clone()),
        (json!(name), json!(version)),
        "{body}"
    );
    assert_eq!(body["type"], json!("source"));
    assert!(
        body["digest"].as_str().is_some_and(|d| d.starts_with("sha256:")),
        "{body}"
    );
    let versions = client(url, &["plugins", "versions", &name, "--output", "json"]).json();
    assert!(
        versions
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["version"] == json!(version)),
        "{versions}"
    );
    let table = client(url, &["plugins", "versions", &name]);
    assert!(table.row(version).is_some(), "{}", table.stdout);
}

/// A CA and a certificate for 127.0.0.1 signed by it: (CA PEM, leaf
/// certificate PEM, leaf key PEM).
fn certificates() -> (String, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "copycat test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    let ca_key = KeyPair::generate().unwrap();
    let ca_pem = ca.self_signed(&ca_key).unwrap().pem();
    let issuer = Issuer::new(ca, ca_key);
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
    leaf.distinguished_name.push(DnType::CommonName, "copycat worker");
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_pem = leaf.signed_by(&leaf_key, &issuer).unwrap().pem();
    (ca_pem, leaf_pem, leaf_key.serialize_pem())
}

fn write(path: &Path, text: &str) -> String {
    std::fs::write(path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn https_listener_with_bearer_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, leaf, key) = certificates();
    let ca = write(&dir.path().join("ca.pem"), &ca);
    let keystore = write(&dir.path().join("keystore.pem"), &format!("{leaf}{key}"));
    let tokens = write(&dir.path().join("tokens"), "# operators\ntok-123\n");
    let worker = Standalone::start(
        dir.path(),
        &format!(
            "listeners=https://127.0.0.1:0\nlisteners.https.ssl.keystore.location={keystore}\nlisteners.https.ssl.keystore.type=PEM\nrest.auth.type=bearer\nrest.auth.bearer.tokens.file={tokens}\n"
        ),
    );
    let url = worker.url.as_str();
    assert_eq!(url, format!("https://{}", worker.addr));

    let list = client(url, &["connectors", "list", "--cacert", &ca, "--token", "tok-123"]);
    assert!(list.ok(), "{}", list.stderr);
    assert!(list.stdout.starts_with("NAME"), "{}", list.stdout);
    let plugins = copycat(&[
        "plugins",
        "list",
        "--url",
        url,
        "--cacert",
        &ca,
        "--insecure",
        "--token",
        "tok-123",
    ]);
    assert!(plugins.row("datagen").is_some(), "{}", plugins.stderr);

    let wrong = client(url, &["connectors", "list", "--cacert", &ca, "--token", "nope"]);
    assert_eq!(wrong.code, Some(1));
    assert!(
        wrong.stderr.contains("Invalid bearer token") && wrong.stderr.contains("HTTP 401"),
        "{}",
        wrong.stderr
    );
    let none = client(url, &["connectors", "list", "--cacert", &ca]);
    assert_eq!(none.code, Some(1));
    assert!(none.stderr.contains("HTTP 401"), "{}", none.stderr);

    // The certificate is checked: unknown without --cacert, unless --insecure.
    let untrusted = client(url, &["connectors", "list", "--token", "tok-123"]);
    assert_eq!(untrusted.code, Some(1));
    assert!(
        untrusted.stderr.contains(&format!("cannot reach {url}")),
        "{}",
        untrusted.stderr
    );
    let insecure = client(url, &["connectors", "list", "--insecure", "--token", "tok-123"]);
    assert!(insecure.ok(), "{}", insecure.stderr);

    // Plain HTTP to the TLS port fails.
    let plain = format!("http://{}", worker.addr);
    let run = client(&plain, &["connectors", "list", "--token", "tok-123"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stderr.contains(&format!("cannot reach {plain}")), "{}", run.stderr);

    // The TLS server stops gracefully.
    worker.terminate();
}

#[test]
fn basic_auth_with_a_users_file() {
    let dir = tempfile::tempdir().unwrap();
    let users = write(&dir.path().join("users.properties"), "alice=wonder:land\nbob=builder\n");
    let worker = Standalone::start(
        dir.path(),
        &format!("rest.auth.type=basic\nrest.auth.basic.users.file={users}\n"),
    );
    let url = worker.url.as_str();
    assert!(client(url, &["plugins", "list", "--user", "alice:wonder:land"]).ok());
    let wrong = client(url, &["plugins", "list", "--user", "bob:wonder:land"]);
    assert_eq!(wrong.code, Some(1));
    assert!(wrong.stderr.contains("HTTP 401"), "{}", wrong.stderr);
    let out = Command::new(copycat_bin())
        .args(["connectors", "list", "--url", url])
        .env("COPYCAT_USER", "bob:builder")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bad_tls_and_auth_files_stop_the_worker_naming_key_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    let cases = [
        (
            "listeners=https://127.0.0.1:0\nlisteners.https.ssl.keystore.location=/nonexistent/keystore.pem\n",
            ["listeners.https.ssl.keystore.location", "/nonexistent/keystore.pem"],
        ),
        (
            "listeners=https://127.0.0.1:0\nlisteners.https.ssl.keystore.location=/k.pem\nlisteners.https.ssl.keystore.type=JKS\n",
            ["listeners.https.ssl.keystore.type", "JKS"],
        ),
        (
            "rest.auth.type=bearer\nrest.auth.bearer.tokens.file=/nonexistent/tokens\n",
            ["rest.auth.bearer.tokens.file", "/nonexistent/tokens"],
        ),
        ("rest.auth.typo=bearer\n", ["rest.auth.typo", "unknown key"]),
    ];
    for (lines, expected) in cases {
        std::fs::write(&worker, format!("bootstrap.servers={}\n{lines}", bootstrap())).unwrap();
        let out = Command::new(copycat_bin())
            .args(["standalone", worker.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{lines}: {stderr}");
        for e in expected {
            assert!(stderr.contains(e), "{lines}: expected '{e}' in {stderr}");
        }
    }
}
