//! The http-sink connector against a real HTTP server the test starts
//! (axum on 127.0.0.1, a free port), which records every request (when,
//! method, path, headers, body) and answers as scripted: every record
//! arrives as its value (one a request, JSON arrays, strings), headers and
//! a secret from a config provider reach the server, 5xx and 429 are
//! retried after the pauses asked, refused records go to the dead letter
//! queue (or fail the task naming them), bad keys are refused by name, and
//! a connector without the grant, or granted another port, or sending to
//! a certificate of a private CA, fails saying why and sends nothing.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use copycat_runtime::Worker;
use copycat_tests::*;

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    at: Instant,
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
    /// The status it was answered.
    status: u16,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// A scripted answer: a status and, for 429 or 503, a `Retry-After`.
#[derive(Debug, Clone, Copy)]
struct Reply(u16, Option<&'static str>);

#[derive(Default)]
struct Recorder {
    seen: Vec<Seen>,
    /// Answers to the next requests, in order; then 200.
    script: VecDeque<Reply>,
    /// A body containing this is answered 400.
    refuse: Option<&'static str>,
}

type Shared = Arc<Mutex<Recorder>>;

async fn record(State(rec): State<Shared>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let body = String::from_utf8_lossy(&body).into_owned();
    let mut r = rec.lock().unwrap();
    let reply = if r.refuse.is_some_and(|bad| body.contains(bad)) {
        Reply(400, None)
    } else {
        r.script.pop_front().unwrap_or(Reply(200, None))
    };
    r.seen.push(Seen {
        at: Instant::now(),
        method: method.to_string(),
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("?").to_owned()))
            .collect(),
        body,
        status: reply.0,
    });
    let status = StatusCode::from_u16(reply.0).unwrap();
    let text = if reply.0 == 400 { "no bad values here\n" } else { "ok" };
    match reply.1 {
        Some(after) => (status, [("retry-after", after)], text).into_response(),
        None => (status, text).into_response(),
    }
}

/// The recording server, on its own runtime (stopped when dropped).
struct Server {
    addr: SocketAddr,
    rec: Shared,
    _rt: tokio::runtime::Runtime,
}

impl Server {
    fn start() -> Self {
        Self::start_with(None)
    }

    /// Over TLS with `tls` (a keystore PEM: certificate and key).
    fn start_with(tls: Option<&std::path::Path>) -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let rec = Shared::default();
        let app = axum::Router::new().fallback(record).with_state(rec.clone());
        let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        match tls {
            None => {
                rt.spawn(async move { axum::serve(listener, app).await });
            }
            Some(keystore) => {
                use copycat_runtime::config::TlsFiles;
                let config =
                    copycat_runtime::rest::tls::server_config(&TlsFiles::Keystore(keystore.to_owned())).unwrap();
                rt.spawn(copycat_runtime::rest::tls::serve(
                    listener,
                    app,
                    config,
                    std::future::pending(),
                ));
            }
        }
        Self { addr, rec, _rt: rt }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn grant(&self) -> String {
        self.addr.to_string()
    }

    fn script(&self, replies: &[Reply]) {
        self.rec.lock().unwrap().script.extend(replies.iter().copied());
    }

    fn refuse(&self, bad: &'static str) {
        self.rec.lock().unwrap().refuse = Some(bad);
    }

    fn seen(&self) -> Vec<Seen> {
        self.rec.lock().unwrap().seen.clone()
    }

    fn seen_at(&self, path: &str) -> Vec<Seen> {
        self.seen().into_iter().filter(|s| s.path == path).collect()
    }
}

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";
const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";

/// An order with a schema, in JsonConverter's envelope: id, name and a
/// decimal (1.00, base64 of the unscaled 100).
fn order(i: i64) -> String {
    serde_json::json!({
        "schema": {"type": "struct", "name": "com.example.Order", "optional": false, "fields": [
            {"field": "id", "type": "int64", "optional": false},
            {"field": "name", "type": "string", "optional": false},
            {"field": "amount", "type": "bytes", "optional": false,
             "name": "org.apache.kafka.connect.data.Decimal", "version": 1, "parameters": {"scale": "2"}}
        ]},
        "payload": {"id": i, "name": format!("n{i}"), "amount": "AGQ="}
    })
    .to_string()
}

/// What the sink sends for [`order`] `i`: the payload, decimals as numbers.
fn sent(i: i64) -> String {
    format!(r#"{{"id":{i},"name":"n{i}","amount":1.00}}"#)
}

fn produce_values(topic: &str, values: &[String]) {
    let records: Vec<(String, String)> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (format!("k{i}"), v.clone()))
        .collect();
    produce(topic, Some(0), &records);
}

fn start(worker: &Worker, pairs: &[(&str, &str)]) {
    worker.start_connector(connector(worker, pairs)).unwrap();
}

/// Panic with the trace if a task of `name` failed.
fn not_failed(worker: &Worker, name: &str) {
    if let Some((_, trace)) = task_states(worker, name).into_iter().find(|(s, _)| s == "FAILED") {
        panic!("a task of {name} failed: {trace:?}");
    }
}

/// The trace of the failed task of `name`.
fn failure(worker: &Worker, name: &str) -> String {
    eventually(&format!("the task of {name} FAILED"), Duration::from_secs(60), || {
        task_states(worker, name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .map(|(_, t)| t.unwrap_or_default())
    })
}

#[test]
fn records_arrive_as_values_one_a_request_batched_or_as_strings_with_headers_and_a_provided_secret() {
    init_logging();
    let server = Server::start();
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("http.properties");
    std::fs::write(&file, "token=s3cret-T0ken\n").unwrap();
    let worker = Worker::start(worker_config_with(
        &unique("offsets"),
        &[
            ("config.providers", "file"),
            (
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider",
            ),
        ],
    ));
    let worker = block_on(worker).unwrap();
    let topic = unique("http-in");
    block_on(create_topic(&topic, 1));
    const N: i64 = 12;
    produce_values(&topic, &(0..N).map(order).collect::<Vec<_>>());
    let grant = server.grant();
    let authorization = format!("Bearer ${{file:{}:token}}", file.display());
    let (single, batched, strings) = (unique("http-single"), unique("http-batched"), unique("http-strings"));
    let (url_single, url_batched, url_strings) =
        (server.url("/single"), server.url("/batched"), server.url("/strings"));
    start(
        &worker,
        &[
            ("name", &single),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("value.converter", JSON),
            ("value.converter.schemas.enable", "true"),
            ("http.url", &url_single),
            ("http.headers", "X-Tenant: acme|X-Source:copycat"),
            ("http.authorization", &authorization),
        ],
    );
    start(
        &worker,
        &[
            ("name", &batched),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("value.converter", JSON),
            ("http.url", &url_batched),
            ("http.method", "PUT"),
            ("batch.max.size", "5"),
        ],
    );
    start(
        &worker,
        &[
            ("name", &strings),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("value.converter", STRING),
            ("http.url", &url_strings),
            ("http.method", "patch"),
            ("request.body.format", "string"),
        ],
    );
    let want: Vec<String> = (0..N).map(sent).collect();

    // One value a request, in order, with the headers and the secret.
    let got = eventually("every record at /single", Duration::from_secs(60), || {
        not_failed(&worker, &single);
        let s = server.seen_at("/single");
        (s.len() >= N as usize).then_some(s)
    });
    let bodies: Vec<&str> = got.iter().map(|s| s.body.as_str()).collect();
    assert_eq!(bodies, want, "each value once, in order");
    for s in &got {
        assert_eq!(s.method, "POST");
        assert_eq!(s.header("content-type"), Some("application/json"));
        assert_eq!(s.header("x-tenant"), Some("acme"));
        assert_eq!(s.header("x-source"), Some("copycat"));
        assert_eq!(
            s.header("authorization"),
            Some("Bearer s3cret-T0ken"),
            "the provider's secret"
        );
    }

    // Batched: JSON arrays of up to 5, every value once, in order.
    let got = eventually("every record at /batched", Duration::from_secs(60), || {
        not_failed(&worker, &batched);
        let s = server.seen_at("/batched");
        let values: usize = s
            .iter()
            .map(|r| {
                serde_json::from_str::<serde_json::Value>(&r.body)
                    .unwrap()
                    .as_array()
                    .unwrap()
                    .len()
            })
            .sum();
        (values >= N as usize).then_some(s)
    });
    let mut values = Vec::new();
    for s in &got {
        assert_eq!(s.method, "PUT");
        assert!(s.body.starts_with('[') && s.body.ends_with(']'), "{}", s.body);
        let array: Vec<serde_json::Value> = serde_json::from_str(&s.body).unwrap();
        assert!((1..=5).contains(&array.len()), "{}", s.body);
        values.extend(array.iter().map(|v| v.to_string()));
    }
    let want_values: Vec<String> = want
        .iter()
        .map(|w| serde_json::from_str::<serde_json::Value>(w).unwrap().to_string())
        .collect();
    assert_eq!(values, want_values);

    // Strings: the text as it was produced (StringConverter), text/plain.
    let got = eventually("every record at /strings", Duration::from_secs(60), || {
        not_failed(&worker, &strings);
        let s = server.seen_at("/strings");
        (s.len() >= N as usize).then_some(s)
    });
    let bodies: Vec<String> = got.iter().map(|s| s.body.clone()).collect();
    assert_eq!(bodies, (0..N).map(order).collect::<Vec<_>>());
    assert!(got.iter().all(|s| s.method == "PATCH"));
    assert_eq!(got[0].header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(got[0].header("authorization"), None);

    // The secret is in no status or config the worker shows.
    let status = serde_json::to_string(&worker.status(&single).unwrap()).unwrap();
    assert!(!status.contains("s3cret-T0ken"), "{status}");
    worker.shutdown();
}

#[test]
fn fives_and_429_are_retried_after_the_pauses_asked_then_handed_to_the_host() {
    init_logging();
    let server = Server::start();
    // r0: 503 twice, then 200 (backoff 200 ms, then 400 ms); r1: 429 asking
    // for 1 s, then 200; r2: 500 three times (max.retries=2: the put fails,
    // retriable, the host redelivers the batch), then 200.
    server.script(&[
        Reply(503, None),
        Reply(503, None),
        Reply(200, None),
        Reply(429, Some("1")),
        Reply(200, None),
        Reply(500, None),
        Reply(500, None),
        Reply(500, None),
    ]);
    let worker = start_worker(&unique("offsets"));
    let topic = unique("http-retry");
    block_on(create_topic(&topic, 1));
    produce_values(&topic, &["\"r0\"".to_owned(), "\"r1\"".to_owned(), "\"r2\"".to_owned()]);
    let name = unique("http-retry");
    let (url, grant) = (server.url("/in"), server.grant());
    start(
        &worker,
        &[
            ("name", &name),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("http.url", &url),
            ("max.retries", "2"),
            ("retry.backoff.ms", "200"),
            // The worker's call deadline in these tests is 2 s.
            ("task.call.timeout.ms", "5000"),
        ],
    );
    let seen = eventually("r2 delivered", Duration::from_secs(60), || {
        not_failed(&worker, &name);
        let s = server.seen();
        (s.last().is_some_and(|l| l.body == "\"r2\"" && l.status == 200)).then_some(s)
    });
    let trail: Vec<(&str, u16)> = seen.iter().map(|s| (s.body.as_str(), s.status)).collect();
    assert_eq!(
        trail,
        [
            ("\"r0\"", 503),
            ("\"r0\"", 503),
            ("\"r0\"", 200),
            ("\"r1\"", 429),
            ("\"r1\"", 200),
            ("\"r2\"", 500),
            ("\"r2\"", 500),
            ("\"r2\"", 500),
            ("\"r2\"", 200),
        ],
        "retried until answered 2xx; nothing delivered twice"
    );
    let gap = |i: usize| seen[i].at.duration_since(seen[i - 1].at);
    assert!(gap(1) >= Duration::from_millis(200), "first backoff: {:?}", gap(1));
    assert!(gap(2) >= Duration::from_millis(400), "doubled: {:?}", gap(2));
    assert!(
        gap(4) >= Duration::from_secs(1),
        "Retry-After: 1 honoured: {:?}",
        gap(4)
    );
    // After the third 500 the connector asks for 800 ms; the host's
    // redelivery does not send sooner.
    assert!(gap(8) >= Duration::from_millis(800), "{:?}", gap(8));
    assert!(task_states(&worker, &name).iter().all(|(s, _)| s == "RUNNING"));
    worker.shutdown();
}

/// A record of the dead letter queue: value and headers, as text.
struct Letter {
    value: Option<String>,
    headers: Vec<(String, String)>,
}

impl Letter {
    fn header(&self, key: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

fn read_letters(topic: &str) -> Vec<Letter> {
    use rdkafka::Message;
    use rdkafka::message::Headers;
    read_messages(topic, |m| Letter {
        value: m.payload().map(|v| String::from_utf8_lossy(v).into_owned()),
        headers: m
            .headers()
            .map(|hs| {
                hs.iter()
                    .map(|h| {
                        (
                            h.key.to_owned(),
                            h.value
                                .map(|v| String::from_utf8_lossy(v).into_owned())
                                .unwrap_or_default(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
    })
}

#[test]
fn a_refused_record_goes_to_the_dead_letter_queue_or_fails_the_task_naming_it() {
    init_logging();
    let server = Server::start();
    server.refuse("bad");
    let worker = start_worker(&unique("offsets"));
    let topic = unique("http-refused");
    block_on(create_topic(&topic, 1));
    let values: Vec<String> = ["1", "2", "\"bad\"", "4", "5", "6", "7"].map(str::to_owned).to_vec();
    produce_values(&topic, &values);
    let (grant, dlq) = (server.grant(), unique("http-dlq"));

    // Tolerated: batches of 3; the refused batch is sent again one record
    // a request; only the bad one is in the dead letter queue.
    let name = unique("http-tolerant");
    let url = server.url("/tolerant");
    start(
        &worker,
        &[
            ("name", &name),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("http.url", &url),
            ("batch.max.size", "3"),
            ("errors.tolerance", "all"),
            ("errors.deadletterqueue.topic.name", &dlq),
            ("errors.deadletterqueue.topic.replication.factor", "1"),
            ("errors.deadletterqueue.context.headers.enable", "true"),
        ],
    );
    let letters = eventually(
        "the refused record in the dead letter queue",
        Duration::from_secs(60),
        || {
            not_failed(&worker, &name);
            let l = read_letters(&dlq);
            (!l.is_empty()).then_some(l)
        },
    );
    assert_eq!(letters.len(), 1);
    let letter = &letters[0];
    assert_eq!(letter.value.as_deref(), Some("\"bad\""), "as consumed");
    assert_eq!(letter.header("__connect.errors.offset"), Some("2"));
    assert_eq!(letter.header("__connect.errors.stage"), Some("TASK_PUT"));
    let message = letter.header("__connect.errors.exception.message").unwrap_or_default();
    assert!(
        message.contains("HTTP 400 Bad Request from POST") && message.contains("no bad values here"),
        "the status and the body: {message}"
    );
    let delivered = eventually("every good record delivered", Duration::from_secs(60), || {
        let ok: Vec<String> = server
            .seen_at("/tolerant")
            .into_iter()
            .filter(|s| s.status == 200)
            .flat_map(|s| {
                serde_json::from_str::<Vec<serde_json::Value>>(&s.body)
                    .unwrap()
                    .into_iter()
                    .map(|v| v.to_string())
            })
            .collect();
        (ok.len() >= 6).then_some(ok)
    });
    assert_eq!(delivered, ["1", "2", "4", "5", "6", "7"], "each once, in order");
    let bodies: Vec<String> = server.seen_at("/tolerant").into_iter().map(|s| s.body).collect();
    assert_eq!(bodies, ["[1,2,\"bad\"]", "[1]", "[2]", "[\"bad\"]", "[4,5,6]", "[7]"]);

    // Not tolerated (no dead letter queue): the task fails naming the record.
    let name = unique("http-intolerant");
    let url = server.url("/intolerant");
    start(
        &worker,
        &[
            ("name", &name),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("http.url", &url),
            ("task.restart.max.attempts", "0"),
        ],
    );
    let trace = failure(&worker, &name);
    assert!(
        trace.contains(&format!("topic {topic} partition 0 offset 2")) && trace.contains("HTTP 400"),
        "{trace}"
    );
    let statuses: Vec<u16> = server.seen_at("/intolerant").iter().map(|s| s.status).collect();
    assert_eq!(statuses, [200, 200, 400], "nothing after the refused record");
    worker.shutdown();
}

#[test]
fn bad_keys_are_refused_by_name() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    // Conformance: `describe` declares every key; the secret is a password.
    let good = [
        ("name", "http-good"),
        ("connector.class", "http-sink"),
        ("topics", "t"),
        ("http.url", "http://127.0.0.1:1/"),
    ];
    let validated = worker.validate(&connector(&worker, &good)).unwrap();
    let declared = &validated.info().config_def;
    for key in [
        "http.url",
        "http.method",
        "http.headers",
        "http.authorization",
        "request.body.format",
        "batch.max.size",
        "max.retries",
        "retry.backoff.ms",
        "retry.backoff.max.ms",
        "http.timeout.ms",
        "topics",
    ] {
        assert!(declared.iter().any(|k| k.name == key), "describe declares {key}");
    }
    let secret = declared.iter().find(|k| k.name == "http.authorization").unwrap();
    assert!(format!("{:?}", secret.type_).contains("Password"), "{secret:?}");
    let pairs = [
        ("name", "http-bad"),
        ("connector.class", "http-sink"),
        ("topics", "t"),
        ("http.url", "ftp://127.0.0.1/x"),
        ("http.method", "GET"),
        ("http.headers", "Host: elsewhere"),
        ("request.body.format", "xml"),
        ("batch.max.size", "0"),
        ("http.timeout.ms", "60000"),
    ];
    let err = worker
        .start_connector(connector(&worker, &pairs))
        .unwrap_err()
        .to_string();
    for (key, why) in [
        ("http.url", "is not an http:// or https:// URL"),
        ("http.method", "'GET' is not one of POST, PUT, PATCH"),
        ("http.headers", "set by the HTTP client"),
        ("request.body.format", "'xml' is not one of json, string"),
        ("batch.max.size", "'0' is not a whole number from 1"),
        ("http.timeout.ms", "task.call.timeout.ms"),
    ] {
        assert!(err.contains(key) && err.contains(why), "{key}: {why} in {err}");
    }
    let missing = worker
        .start_connector(connector(
            &worker,
            &[("name", "http-bad"), ("connector.class", "http-sink"), ("topics", "t")],
        ))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("http.url"), "{missing}");
    worker.shutdown();
    // Conformance: a bad config at the task's `start` is the config variant.
    match crate::conformance::start_with_bad_config(
        &plugin("http-sink"),
        &[
            ("topics", "t"),
            ("http.url", "http://127.0.0.1:1/"),
            ("http.method", "GET"),
        ],
    ) {
        copycat_runtime::engine::guest::GuestError::Config(m) => {
            assert!(m.contains("config 'http.method'"), "{m}")
        }
        other => panic!("expected the config variant, got {other:?}"),
    }
}

#[test]
fn without_the_grant_the_task_fails_saying_which_and_nothing_is_sent() {
    init_logging();
    let server = Server::start();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("http-denied");
    block_on(create_topic(&topic, 1));
    produce_values(&topic, &["1".to_owned()]);
    let url = server.url("/in");
    let other = format!("127.0.0.1:{}", free_port());
    for grant in [None, Some(other.as_str())] {
        let name = unique("http-denied");
        let mut pairs = vec![
            ("name", name.as_str()),
            ("connector.class", "http-sink"),
            ("topics", topic.as_str()),
            ("http.url", url.as_str()),
            ("task.restart.max.attempts", "0"),
        ];
        if let Some(g) = grant {
            pairs.push(("grants.http.hosts", g));
        }
        start(&worker, &pairs);
        let trace = failure(&worker, &name);
        assert!(
            trace.contains(&format!("grants.http.hosts={}", server.grant())) && trace.contains("denied"),
            "{grant:?}: {trace}"
        );
    }
    assert!(server.seen().is_empty(), "the server received nothing");
    worker.shutdown();
}

/// The worker verifies https servers against the public web PKI's roots:
/// a server whose certificate a private CA signed is refused, the task
/// fails saying so, and no request reaches the server.
#[test]
fn https_to_a_private_ca_fails_with_the_reason_and_sends_nothing() {
    use rcgen::{CertificateParams, KeyPair};
    init_logging();
    let dir = tempfile::tempdir().unwrap();
    let params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    let keystore = dir.path().join("keystore.pem");
    std::fs::write(&keystore, format!("{}{}", cert.pem(), key.serialize_pem())).unwrap();
    let server = Server::start_with(Some(&keystore));
    let worker = start_worker(&unique("offsets"));
    let topic = unique("http-tls");
    block_on(create_topic(&topic, 1));
    produce_values(&topic, &["1".to_owned()]);
    let name = unique("http-tls");
    let url = format!("https://{}/in", server.addr);
    let grant = server.grant();
    start(
        &worker,
        &[
            ("name", &name),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("http.url", &url),
            ("task.restart.max.attempts", "0"),
        ],
    );
    let trace = failure(&worker, &name);
    assert!(trace.contains("TLS") && trace.contains("webpki-roots"), "{trace}");
    assert!(server.seen().is_empty());
    worker.shutdown();
}

/// Each request hands the host its options (the timeouts): more requests
/// than `task.host.handles.max` go out without the task running out of
/// host handles (wasmtime-wasi-http kept every request's options).
#[test]
fn more_requests_than_the_host_handle_cap_hold_no_handles() {
    init_logging();
    let server = Server::start();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("http-many");
    block_on(create_topic(&topic, 1));
    const N: usize = 400;
    produce_values(&topic, &(0..N).map(|i| i.to_string()).collect::<Vec<_>>());
    let name = unique("http-many");
    let (url, grant) = (server.url("/in"), server.grant());
    start(
        &worker,
        &[
            ("name", &name),
            ("connector.class", "http-sink"),
            ("topics", &topic),
            ("grants.http.hosts", &grant),
            ("http.url", &url),
            ("task.host.handles.max", "150"),
            ("task.restart.max.attempts", "0"),
        ],
    );
    let seen = eventually("every record delivered", Duration::from_secs(60), || {
        not_failed(&worker, &name);
        let s = server.seen();
        (s.len() >= N).then_some(s)
    });
    let bodies: Vec<String> = seen.into_iter().map(|s| s.body).collect();
    assert_eq!(bodies, (0..N).map(|i| i.to_string()).collect::<Vec<_>>());
    worker.shutdown();
}
