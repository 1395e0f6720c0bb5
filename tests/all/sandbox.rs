//! What a connector can reach and how its errors are treated: WASI grants
//! nothing by default and exactly what `grants.*` names otherwise, and WIT
//! error variants are retried or fail the task.
//! Connectors that trap, loop, exhaust memory or stack, or attack the worker
//! in other ways are in `hostile.rs` (the hostile-module suite).

use std::time::Duration;

use copycat_tests::*;

/// Run the `snoop` fixture with `pairs` (its name, class and topic added)
/// and return its probe results, one `<what>: <outcome>` line per probe.
fn snoop(pairs: &[(&str, &str)], probes: usize) -> Vec<String> {
    let worker = start_worker(&unique("offsets"));
    let topic = unique("snoop");
    let name = unique("snoop");
    let path = fixture("snoop");
    let mut all = vec![
        ("name", name.as_str()),
        ("connector.class", path.to_str().unwrap()),
        ("topic", topic.as_str()),
    ];
    all.extend_from_slice(pairs);
    worker.start_connector(connector(&worker, &all)).unwrap();
    eventually("the probe results", Duration::from_secs(60), || {
        (topic_size(&topic) >= probes as i64).then_some(())
    });
    worker.shutdown();
    let results: Vec<String> = read_topic(&topic).into_iter().filter_map(|r| r.value).collect();
    assert_eq!(results.len(), probes, "{results:?}");
    results
}

/// The result of the probe `what`, e.g. `read /x`.
fn probe<'a>(results: &'a [String], what: &str) -> &'a str {
    let prefix = format!("{what}: ");
    results
        .iter()
        .find_map(|r| r.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no probe {what:?} in {results:?}"))
}

fn assert_allowed(results: &[String], what: &str) {
    let got = probe(results, what);
    assert!(got.starts_with("ALLOWED"), "{what}: {got} (all: {results:?})");
}

fn assert_denied(results: &[String], what: &str) {
    let got = probe(results, what);
    assert!(got.starts_with("denied"), "{what}: {got} (all: {results:?})");
}

/// A variable of this process's environment other than `not`.
fn some_env_var(not: &str) -> String {
    std::env::vars()
        .map(|(k, _)| k)
        .find(|k| k != not && !k.is_empty() && !k.contains([',', '=']) && !k.contains(char::is_whitespace))
        .expect("the test process has environment variables")
}

/// A one-shot HTTP server on 127.0.0.1: answers the first request with
/// `200 hello from the host`, then stops. Returns its port.
fn http_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let Some(Ok(mut stream)) = listener.incoming().next() else {
            return;
        };
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 1024];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match std::io::Read::read(&mut stream, &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => request.extend_from_slice(&buf[..n]),
            }
        }
        let body = "hello from the host";
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = std::io::Write::write_all(&mut stream, response.as_bytes());
    });
    port
}

/// With no `grants.*` key a component built with `std` loads, but reaches no
/// file, no environment variable, no socket and no HTTP host.
#[test]
fn wasi_grants_nothing_by_default() {
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "host secret").unwrap();
    let http = format!("http://127.0.0.1:{}/", http_server());
    let results = snoop(
        &[
            ("probe.file", secret.path().to_str().unwrap()),
            ("probe.address", &bootstrap()),
            ("probe.env", "PATH"),
            ("probe.http", &http),
        ],
        7,
    );
    for what in ["file", "dir", "env", "net", "env PATH"] {
        assert_denied(&results, what);
    }
    assert_eq!(probe(&results, "args"), "0 arguments");
    assert_eq!(probe(&results, &format!("http {http}")), "denied (HTTP-request-denied)");
    assert!(!results.iter().any(|r| r.contains("ALLOWED")), "{results:?}");
}

/// Each grant opens exactly what it names: the read directory is readable
/// but not writable, the write directory writable, a sibling neither; the
/// granted address connects and another port does not; the granted variable
/// is visible and another is not; the granted HTTP host answers and another
/// host gets `HTTP-request-denied`.
#[test]
fn wasi_grants_open_exactly_what_they_name() {
    let base = tempfile::tempdir().unwrap();
    let (read_dir, write_dir, sibling) = (
        base.path().join("in"),
        base.path().join("out"),
        base.path().join("sibling"),
    );
    for d in [&read_dir, &write_dir, &sibling] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(read_dir.join("in.txt"), "readable").unwrap();
    std::fs::write(write_dir.join("out.txt"), "appendable").unwrap();
    std::fs::write(sibling.join("secret.txt"), "host secret").unwrap();
    let (r, w, s) = (
        read_dir.to_str().unwrap(),
        write_dir.to_str().unwrap(),
        sibling.to_str().unwrap(),
    );
    let granted = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let granted_addr = granted.local_addr().unwrap().to_string();
    let other_addr = other.local_addr().unwrap().to_string();
    let http_port = http_server();
    let http_ok = format!("http://127.0.0.1:{http_port}/hello");
    let http_other_host = format!("http://localhost:{http_port}/hello");
    let env_other = some_env_var("PATH");

    let read_in = format!("{r}/in.txt");
    let write_out = format!("{w}/out.txt");
    let read_secret = format!("{s}/secret.txt");
    let results = snoop(
        &[
            ("grants.fs.read", r),
            ("grants.fs.write", w),
            ("grants.net.connect", &granted_addr),
            ("grants.http.hosts", &format!("127.0.0.1:{http_port}")),
            ("grants.env", "PATH"),
            ("probe.file", &read_secret),
            ("probe.address", &other_addr),
            ("probe.read", &format!("{read_in},{r},{read_secret},{s}")),
            ("probe.write", &format!("{w},{r},{s}")),
            ("probe.connect", &format!("{granted_addr},{other_addr}")),
            ("probe.env", &format!("PATH,{env_other}")),
            ("probe.http", &format!("{http_ok},{http_other_host}")),
            ("probe.append", &format!("{read_in},{write_out}")),
        ],
        5 + 4 + 3 + 2 + 2 + 2 + 2,
    );

    // Files: the read grant reads, the write grant writes, nothing else.
    assert_eq!(
        probe(&results, &format!("read {read_in}")),
        "ALLOWED (content readable)"
    );
    assert_eq!(probe(&results, &format!("read {r}")), "ALLOWED (entries in.txt)");
    assert_denied(&results, &format!("read {read_secret}"));
    assert_denied(&results, &format!("read {s}"));
    assert_denied(&results, "file");
    assert_denied(&results, "dir");
    assert_allowed(&results, &format!("write {w}"));
    assert_eq!(
        std::fs::read_to_string(write_dir.join("snoop.txt")).unwrap(),
        "written by snoop"
    );
    assert_denied(&results, &format!("write {r}"));
    assert_denied(&results, &format!("write {s}"));
    assert!(!read_dir.join("snoop.txt").exists() && !sibling.join("snoop.txt").exists());
    // A file stream (Copycat's own, written on the task's thread) checks the
    // grant as wasmtime-wasi's does: none for writing under a read grant.
    assert_eq!(probe(&results, &format!("append {read_in}")), "denied (not-permitted)");
    assert_eq!(
        probe(&results, &format!("append {write_out}")),
        "ALLOWED (append stream)"
    );
    // Network: only the granted address.
    assert_allowed(&results, &format!("connect {granted_addr}"));
    assert_denied(&results, &format!("connect {other_addr}"));
    assert_denied(&results, "net");
    // Environment: only the granted variable; never arguments.
    assert_eq!(
        probe(&results, "env PATH"),
        format!("ALLOWED ({})", std::env::var("PATH").unwrap())
    );
    assert_denied(&results, &format!("env {env_other}"));
    assert_eq!(probe(&results, "env"), "ALLOWED (1 variables)");
    assert_eq!(probe(&results, "args"), "0 arguments");
    // HTTP: the granted host answers; the same server by another name is denied.
    assert_eq!(
        probe(&results, &format!("http {http_ok}")),
        "ALLOWED (status 200: hello from the host)"
    );
    assert_eq!(
        probe(&results, &format!("http {http_other_host}")),
        "denied (HTTP-request-denied)"
    );
}

/// The file connectors use plain `std::fs` on their preopened grants; a file
/// or directory outside every grant (which WASI reports as missing) and a
/// write under a read-only grant fail the task with a config error naming
/// the grant to add, as the former `files` import did.
#[test]
fn file_connectors_name_the_missing_grant() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&output).unwrap();
    let file = input.join("a.txt");
    std::fs::write(&file, "a line\n").unwrap();
    let topic = unique("ungranted");
    block_on(create_topic(&topic, 1));
    produce(&topic, Some(0), &[("k".to_owned(), "v".to_owned())]);
    let worker = start_worker(&unique("offsets"));
    let source = unique("ungranted-source");
    let sink = unique("ungranted-sink");
    let read_only_sink = unique("read-only-sink");
    let (file, out) = (file.to_str().unwrap(), output.to_str().unwrap());
    let source_topic = unique("ungranted-lines");
    let configs: [&[(&str, &str)]; 3] = [
        &[
            ("name", &source),
            ("connector.class", "file-source"),
            ("file", file),
            ("topic", &source_topic),
        ],
        &[
            ("name", &sink),
            ("connector.class", "file-sink"),
            ("topics", &topic),
            ("directory", out),
        ],
        &[
            ("name", &read_only_sink),
            ("connector.class", "file-sink"),
            ("topics", &topic),
            ("directory", out),
            ("grants.fs.read", out),
        ],
    ];
    for pairs in configs {
        worker.start_connector(connector(&worker, pairs)).unwrap();
    }
    for (name, needles) in [
        (&source, ["configuration error", "grants.fs.read", file]),
        (&sink, ["configuration error", "grants.fs.write", out]),
        (&read_only_sink, ["configuration error", "grants.fs.write", out]),
    ] {
        let trace = eventually(
            &format!("{name} fails"),
            Duration::from_secs(60),
            || match task_states(&worker, name).pop()? {
                (s, trace) if s == "FAILED" => trace,
                _ => None,
            },
        );
        for needle in needles {
            assert!(trace.contains(needle), "{name}: {trace:?} should mention {needle:?}");
        }
    }
    worker.shutdown();
    assert_eq!(std::fs::read_dir(&output).unwrap().count(), 0, "nothing written");
}

/// Grant problems are config errors naming the key: a file where a
/// directory is needed, a relative path, a bad CIDR, a misspelt grant.
#[test]
fn bad_grants_are_config_errors_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "x").unwrap();
    let cfg = worker_config(&unique("offsets"));
    let check = |key: &str, value: &str, needles: &[&str]| {
        let err = copycat_runtime::ConnectorConfig::from_props(
            props(&[("name", "bad-grants"), ("connector.class", "snoop"), (key, value)]),
            &cfg,
        )
        .err()
        .unwrap_or_else(|| panic!("{key}={value} was accepted"))
        .to_string();
        assert!(err.contains(&format!("{key}: ")), "{err} should name {key}");
        for needle in needles {
            assert!(err.contains(needle), "{err} should mention {needle:?}");
        }
    };
    check(
        "grants.fs.read",
        file.to_str().unwrap(),
        &["is a file; grant its directory", dir.path().to_str().unwrap()],
    );
    check("grants.fs.write", "data/out", &["'data/out' is not an absolute path"]);
    check(
        "grants.fs.write",
        dir.path().join("missing").to_str().unwrap(),
        &["does not exist"],
    );
    check("grants.net.connect", "10.0.0.0/33:443", &["not a valid CIDR block"]);
    check("grants.net.connect", "example.com", &["host:port"]);
    check("grants.http.hosts", "https://example.com", &["no scheme"]);
    check("grants.fs.reads", "/tmp", &["unknown grant"]);
}

/// Errors come back as WIT variants: a retriable `poll` error is retried
/// (nothing lost, nothing repeated), a fatal one fails the task with the
/// connector's message.
#[test]
fn retriable_errors_are_retried_and_fatal_ones_fail_the_task() {
    let worker = start_worker(&unique("offsets"));
    let path = fixture("flaky");
    let retry_topic = unique("flaky");
    let retry = unique("flaky");
    let fatal = unique("fatal");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &retry),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &retry_topic),
                ("count", "5"),
            ],
        ))
        .unwrap();
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &fatal),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &unique("fatal")),
                ("mode", "fatal"),
                ("task.restart.max.attempts", "0"),
            ],
        ))
        .unwrap();
    let trace = eventually("the fatal task fails", Duration::from_secs(60), || {
        match task_states(&worker, &fatal).pop()? {
            (s, trace) if s == "FAILED" => trace,
            _ => None,
        }
    });
    assert!(
        trace.contains("fatal error reported by the connector: fixture flaky: the source is gone for good"),
        "{trace}"
    );
    eventually(
        "5 records despite the retriable errors",
        Duration::from_secs(60),
        || (topic_size(&retry_topic) >= 5).then_some(()),
    );
    assert_eq!(
        task_states(&worker, &retry)[0].0,
        "RUNNING",
        "retriable errors do not fail the task"
    );
    worker.shutdown();
    let values: Vec<String> = read_topic(&retry_topic).into_iter().filter_map(|r| r.value).collect();
    assert_eq!(values, (0..5).map(|n| format!("flaky-{n}")).collect::<Vec<_>>());
}
