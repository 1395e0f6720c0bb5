//! The REST API side by side with Kafka Connect 4.4 (issue 25): the same
//! request sequence (tests/rest-compat/sequence.json) against the real
//! Kafka Connect (its jars from Maven Central through
//! `scripts/kafka-connect.sh`) and against Copycat, in standalone mode
//! (ConnectStandalone vs `copycat standalone`) and in distributed mode
//! (ConnectDistributed vs `copycat worker`), with the connectors each ships:
//! Kafka Connect's FileStreamSource/FileStreamSink, Copycat's file-source/
//! file-sink, both named by Kafka Connect's aliases.
//!
//! Status codes and JSON bodies are compared after normalising what cannot
//! be equal (each side's random names, topics and files; worker ids,
//! traces, messages; Copycat's plugin names vs Kafka Connect's class
//! names); every difference is printed, and those not in the checked-in
//! allow-list (tests/rest-compat/allowed.json: the intended differences,
//! each with its reason) fail the test. docs/rest-compatibility.md explains
//! both files. Each side's transcript (every request and answer) is written
//! to `$TMPDIR/copycat-rest-compat-<mode>-<side>.json`.
//!
//! Like the other Kafka Connect side-by-side tests, it runs where Kafka
//! Connect's jars and java are (fetched when `COPYCAT_LOCAL_KAFKA=1`, as CI
//! runs), and says loudly why it is skipped otherwise.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use copycat_tests::*;

use crate::kafka_connect_side_by_side::{ConnectStandalone, kafka_connect_available};

const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";
/// The source file both sides read: 5 lines of 7 bytes (the offsets
/// steps expect position 35 and 5 records in the topic).
const SOURCE_LINES: &str = "line-1\nline-2\nline-3\nline-4\nline-5\n";
/// Keys whose values can never be equal: compared by type only. So is
/// `version` (a plugin's or a running connector's: Kafka Connect's
/// FileStream connectors report Kafka's version, Copycat's components their
/// own), except the top-level one of a step with `"compare_version": true`
/// (`GET /`, the API level).
const TYPE_ONLY_KEYS: &[&str] = &["worker_id", "trace", "commit", "kafka_cluster_id", "message"];
/// Copycat's extensions of Kafka Connect's bodies (docs/operators.md, REST
/// API), left out of Copycat's answers before comparing: a status's
/// component `digest`, a task's restart `attempts` and `next_restart_ms`,
/// the `last_swap` of a hot swap.
const EXTENSION_KEYS: &[&str] = &["digest", "attempts", "next_restart_ms", "last_swap"];
/// Copycat's plugin names and the Kafka Connect classes they stand in for.
const PLUGIN_CLASSES: &[(&str, &str)] = &[
    ("file-source", "org.apache.kafka.connect.file.FileStreamSourceConnector"),
    ("file-sink", "org.apache.kafka.connect.file.FileStreamSinkConnector"),
];

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rest-compat")
}

fn load(name: &str) -> Value {
    let path = data_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Standalone,
    Distributed,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Standalone => "standalone",
            Mode::Distributed => "distributed",
        }
    }
}

/// One side's variables: random names, its topic and its files.
fn variables(side: &str, dir: &Path) -> Vec<(String, String)> {
    let (source_dir, sink_dir) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&source_dir).unwrap();
    std::fs::create_dir_all(&sink_dir).unwrap();
    let source_file = source_dir.join("source.txt");
    std::fs::write(&source_file, SOURCE_LINES).unwrap();
    let topic = unique(&format!("rest-compat-{side}"));
    block_on(create_topic(&topic, 1));
    vec![
        ("source".into(), unique("rc-source")),
        ("sink".into(), unique("rc-sink")),
        ("paused".into(), unique("rc-paused")),
        ("stopped".into(), unique("rc-stopped")),
        ("created".into(), unique("rc-created")),
        ("slashed".into(), unique("rc-slashed")),
        ("ungranted".into(), unique("rc-ungranted")),
        ("kcsink".into(), unique("rc-kcsink")),
        ("topic".into(), topic),
        ("source_file".into(), source_file.to_str().unwrap().to_owned()),
        ("source_dir".into(), source_dir.to_str().unwrap().to_owned()),
        (
            "sink_file".into(),
            sink_dir.join("sink.txt").to_str().unwrap().to_owned(),
        ),
        ("sink_dir".into(), sink_dir.to_str().unwrap().to_owned()),
    ]
}

fn substitute(text: &str, vars: &[(String, String)]) -> String {
    vars.iter()
        .fold(text.to_owned(), |t, (k, v)| t.replace(&format!("${{{k}}}"), v))
}

fn substitute_json(v: &Value, vars: &[(String, String)]) -> Value {
    match v {
        Value::String(s) => Value::String(substitute(s, vars)),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute_json(x, vars)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (substitute(k, vars), substitute_json(x, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What one step got on one side.
#[derive(Clone, Debug)]
enum Outcome {
    Response { status: u16, body: Value },
    Await { reached: bool, last: Value },
}

impl Outcome {
    fn to_json(&self) -> Value {
        match self {
            Outcome::Response { status, body } => json!({"status": status, "body": body}),
            Outcome::Await { reached, last } => json!({"reached": reached, "last": last}),
        }
    }
}

fn split_request(req: &str) -> (&str, &str) {
    req.split_once(' ')
        .unwrap_or_else(|| panic!("a step's request is `METHOD path`: {req}"))
}

fn runs_in(step: &Value, mode: Mode) -> bool {
    step.get("modes")
        .and_then(Value::as_array)
        .is_none_or(|m| m.iter().any(|x| x == mode.name()))
}

/// Run the sequence on one side: each step's outcome, and how long each
/// request (not the awaits) took to answer.
fn run_sequence(
    addr: SocketAddr,
    steps: &[Value],
    mode: Mode,
    vars: &[(String, String)],
) -> (Vec<Outcome>, Vec<(String, Duration)>) {
    let mut out = Vec::new();
    let mut took = Vec::new();
    for step in steps {
        if !runs_in(step, mode) {
            continue;
        }
        if let Some(req) = step["request"].as_str() {
            let (method, path) = split_request(req);
            let path = substitute(path, vars);
            let sent = Instant::now();
            let send = || {
                if let Some(raw) = step["raw"].as_str() {
                    http_bytes(addr, method, &path, "application/json", raw.as_bytes())
                } else if let Some(body) = step.get("body") {
                    http(addr, method, &path, Some(&substitute_json(body, vars)))
                } else {
                    http(addr, method, &path, None)
                }
            };
            // Kafka Connect's distributed herder refuses requests for a
            // moment around a rebalance (500 "a rebalance is expected", 409
            // "conflicting operation"), having done nothing: its clients
            // retry, and so does this, as a client would.
            let deadline = Instant::now() + Duration::from_secs(30);
            let (status, body) = loop {
                let (status, body) = send();
                let rebalancing =
                    matches!(status, 409 | 500) && body["message"].as_str().is_some_and(|m| m.contains("rebalance"));
                if !rebalancing || Instant::now() >= deadline {
                    break (status, body);
                }
                std::thread::sleep(Duration::from_millis(250));
            };
            took.push((step["id"].as_str().unwrap_or_default().to_owned(), sent.elapsed()));
            out.push(Outcome::Response { status, body });
        } else if let Some(req) = step["await"].as_str() {
            let (method, path) = split_request(req);
            let path = substitute(path, vars);
            let until = substitute_json(&step["until"], vars);
            let timeout = Duration::from_secs(step["timeout_s"].as_u64().unwrap_or(60));
            let deadline = Instant::now() + timeout;
            let (reached, last) = loop {
                let (status, body) = http(addr, method, &path, None);
                let ok = status == 200
                    && until
                        .as_object()
                        .unwrap()
                        .iter()
                        .all(|(ptr, want)| body.pointer(ptr) == Some(want));
                if ok {
                    break (true, body);
                }
                if Instant::now() >= deadline {
                    break (false, json!({"status": status, "body": body}));
                }
                std::thread::sleep(Duration::from_millis(100));
            };
            out.push(Outcome::Await { reached, last });
        } else {
            panic!("a step is a request or an await: {step}");
        }
    }
    (out, took)
}

/// `p50 / p90 / max` of request latencies, in ms, and the slowest step.
fn latencies(took: &[(String, Duration)]) -> String {
    let mut ms: Vec<(f64, &str)> = took
        .iter()
        .map(|(id, d)| (d.as_secs_f64() * 1e3, id.as_str()))
        .collect();
    ms.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| {
        ms.get(((ms.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or((0.0, ""))
    };
    let max = at(1.0);
    format!(
        "p50 {:.1} / p90 {:.1} / max {:.1} ms ({})",
        at(0.5).0,
        at(0.9).0,
        max.0,
        max.1
    )
}

// ------------------------------------------------------------- normalising

/// Each side's own values back to `${name}`, Copycat's plugin names to
/// Kafka Connect's class names, and the type-only keys to their type.
fn normalise(v: &Value, vars: &[(String, String)], copycat: bool, top_version: bool) -> Value {
    let mut by_len: Vec<&(String, String)> = vars.iter().collect();
    by_len.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    let text = |s: &str| -> String {
        if copycat && let Some((_, class)) = PLUGIN_CLASSES.iter().find(|(p, _)| *p == s) {
            return (*class).to_owned();
        }
        by_len
            .iter()
            .fold(s.to_owned(), |t, (k, v)| t.replace(v.as_str(), &format!("${{{k}}}")))
    };
    fn walk(v: &Value, text: &dyn Fn(&str) -> String, copycat: bool, top: bool) -> Value {
        match v {
            Value::String(s) => Value::String(text(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| walk(x, text, copycat, false)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .filter(|(k, _)| !(copycat && EXTENSION_KEYS.contains(&k.as_str())))
                    .map(|(k, x)| {
                        let x = if TYPE_ONLY_KEYS.contains(&k.as_str()) || (k == "version" && !top) {
                            Value::String(format!("<{}>", type_name(x)))
                        } else {
                            walk(x, text, copycat, false)
                        };
                        (text(k), x)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    walk(v, &text, copycat, top_version)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A pointer's segments; `*` matches any key or index.
fn segments(ptr: &str) -> Vec<String> {
    if ptr.is_empty() {
        return Vec::new();
    }
    ptr.trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Apply `f` to every node `ptr` (with `*`) reaches.
fn for_each_at(v: &mut Value, segs: &[String], f: &mut dyn FnMut(&mut Value)) {
    let Some((first, rest)) = segs.split_first() else {
        f(v);
        return;
    };
    match v {
        Value::Object(o) => {
            if first == "*" {
                for x in o.values_mut() {
                    for_each_at(x, rest, f);
                }
            } else if let Some(x) = o.get_mut(first) {
                for_each_at(x, rest, f);
            }
        }
        Value::Array(a) => {
            if first == "*" {
                for x in a.iter_mut() {
                    for_each_at(x, rest, f);
                }
            } else if let Some(x) = first.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
                for_each_at(x, rest, f);
            }
        }
        _ => {}
    }
}

/// Remove every node `ptr` reaches.
fn remove_at(v: &mut Value, ptr: &str) {
    let segs = segments(ptr);
    let Some((last, parent)) = segs.split_last() else {
        *v = Value::Null;
        return;
    };
    for_each_at(v, parent, &mut |p| match p {
        Value::Object(o) => {
            if last == "*" {
                o.clear();
            } else {
                o.remove(last);
            }
        }
        Value::Array(a) => {
            if last == "*" {
                a.clear();
            } else if let Ok(i) = last.parse::<usize>()
                && i < a.len()
            {
                a.remove(i);
            }
        }
        _ => {}
    });
}

fn collect_at(v: &Value, ptr: &str) -> BTreeSet<String> {
    let mut v = v.clone();
    let mut out = BTreeSet::new();
    for_each_at(&mut v, &segments(ptr), &mut |x| {
        out.insert(match x {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    });
    out
}

fn sort_arrays(v: &mut Value) {
    match v {
        Value::Array(a) => {
            a.iter_mut().for_each(sort_arrays);
            a.sort_by_key(|x| x.to_string());
        }
        Value::Object(o) => o.values_mut().for_each(sort_arrays),
        _ => {}
    }
}

/// A value's shape: its type (types, where an array's elements differ),
/// an object's keys' shapes, an array's elements' merged shape.
#[derive(Clone, Debug, Default, PartialEq)]
struct Shape {
    types: BTreeSet<&'static str>,
    fields: BTreeMap<String, Shape>,
    elements: Option<Box<Shape>>,
}

impl Shape {
    fn of(v: &Value) -> Shape {
        let mut s = Shape::default();
        s.types.insert(type_name(v));
        match v {
            Value::Object(o) => {
                s.fields = o.iter().map(|(k, x)| (k.clone(), Shape::of(x))).collect();
            }
            Value::Array(a) => {
                s.elements = a.iter().map(Shape::of).reduce(Shape::merge).map(Box::new);
            }
            _ => {}
        }
        s
    }

    fn merge(mut self, other: Shape) -> Shape {
        self.types.extend(other.types);
        for (k, x) in other.fields {
            let merged = match self.fields.remove(&k) {
                Some(mine) => mine.merge(x),
                None => x,
            };
            self.fields.insert(k, merged);
        }
        self.elements = match (self.elements.take(), other.elements) {
            (Some(a), Some(b)) => Some(Box::new(a.merge(*b))),
            (a, b) => a.or(b),
        };
        self
    }

    fn describe(&self) -> String {
        self.types.iter().copied().collect::<Vec<_>>().join("|")
    }
}

/// One difference between the sides.
#[derive(Clone, Debug)]
struct Difference {
    step: String,
    request: String,
    /// `status`, `await`, a JSON pointer (`*` for any array element), or
    /// `set <pointer>`.
    at: String,
    kafka_connect: String,
    copycat: String,
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 300 {
        format!("{}…", s.chars().take(300).collect::<String>())
    } else {
        s
    }
}

fn diff_values(at: &str, kc: &Value, cc: &Value, out: &mut Vec<(String, String, String)>) {
    match (kc, cc) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => diff_values(&p, x, y, out),
                    (Some(x), None) => out.push((p, short(x), "(absent)".into())),
                    (None, Some(y)) => out.push((p, "(absent)".into(), short(y))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_values(&format!("{at}/{i}"), x, y, out);
            }
        }
        _ if kc != cc => out.push((
            if at.is_empty() { "/".into() } else { at.to_owned() },
            short(kc),
            short(cc),
        )),
        _ => {}
    }
}

fn diff_shapes(at: &str, kc: &Shape, cc: &Shape, out: &mut Vec<(String, String, String)>) {
    let at_or_root = || if at.is_empty() { "/".to_owned() } else { at.to_owned() };
    if kc.types != cc.types {
        out.push((at_or_root(), kc.describe(), cc.describe()));
    }
    let keys: BTreeSet<&String> = kc.fields.keys().chain(cc.fields.keys()).collect();
    for k in keys {
        let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
        match (kc.fields.get(k), cc.fields.get(k)) {
            (Some(x), Some(y)) => diff_shapes(&p, x, y, out),
            (Some(x), None) => out.push((p, x.describe(), "(absent)".into())),
            (None, Some(y)) => out.push((p, "(absent)".into(), y.describe())),
            (None, None) => {}
        }
    }
    if let (Some(x), Some(y)) = (&kc.elements, &cc.elements) {
        diff_shapes(&format!("{at}/*"), x, y, out);
    }
}

fn strings(step: &Value, key: &str) -> Vec<String> {
    step.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// The body as the step compares it (both sides the same way).
fn prepare(step: &Value, body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(select) = step.get("select") {
        let key = select["key"].as_str().unwrap();
        let keep = &select["in"];
        if let Value::Array(a) = &mut body {
            a.retain(|x| keep.as_array().unwrap().contains(&x[key]));
        }
    }
    for ptr in strings(step, "ignore") {
        remove_at(&mut body, &ptr);
    }
    for ptr in strings(step, "map") {
        for_each_at(&mut body, &segments(&ptr), &mut |x| {
            if let Value::Object(o) = x {
                *x = Value::Array(o.values().cloned().collect());
            }
        });
    }
    if step["unordered"].as_bool() == Some(true) {
        sort_arrays(&mut body);
    }
    body
}

/// Compare one step's outcomes.
fn compare_step(step: &Value, kc: &Outcome, cc: &Outcome) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    match (kc, cc) {
        (Outcome::Await { reached: a, last: la }, Outcome::Await { reached: b, last: lb }) => {
            if !(*a && *b) {
                out.push((
                    "await".into(),
                    if *a {
                        "reached".into()
                    } else {
                        format!("not reached: {}", short(la))
                    },
                    if *b {
                        "reached".into()
                    } else {
                        format!("not reached: {}", short(lb))
                    },
                ));
            }
        }
        (Outcome::Response { status: sa, body: ba }, Outcome::Response { status: sb, body: bb }) => {
            if sa != sb {
                out.push(("status".into(), sa.to_string(), sb.to_string()));
            }
            let (a, b) = (prepare(step, ba), prepare(step, bb));
            for ptr in strings(step, "sets") {
                let (x, y) = (collect_at(&a, &ptr), collect_at(&b, &ptr));
                if x != y {
                    let only = |p: &BTreeSet<String>, q: &BTreeSet<String>| {
                        let d: Vec<&String> = p.difference(q).collect();
                        if d.is_empty() {
                            "(nothing else)".to_owned()
                        } else {
                            format!("only here: {d:?}")
                        }
                    };
                    out.push((format!("set {ptr}"), only(&x, &y), only(&y, &x)));
                }
            }
            // Sets Copycat may extend (its own plugins): only what it lacks counts.
            for ptr in strings(step, "subsets") {
                let missing: Vec<String> = collect_at(&a, &ptr)
                    .difference(&collect_at(&b, &ptr))
                    .cloned()
                    .collect();
                if !missing.is_empty() {
                    out.push((
                        format!("subset {ptr}"),
                        format!("only here: {missing:?}"),
                        "(lacks them)".into(),
                    ));
                }
            }
            for ptr in strings(step, "values") {
                let (x, y) = (a.pointer(&ptr), b.pointer(&ptr));
                if x != y {
                    let show = |v: Option<&Value>| v.map_or("(absent)".to_owned(), short);
                    out.push((ptr, show(x), show(y)));
                }
            }
            if step["compare"].as_str() == Some("shape") {
                diff_shapes("", &Shape::of(&a), &Shape::of(&b), &mut out);
            } else {
                let (mut a, mut b) = (a, b);
                for ptr in strings(step, "shape") {
                    for v in [&mut a, &mut b] {
                        for_each_at(v, &segments(&ptr), &mut |x| {
                            *x = Value::String(format!("<{}>", type_name(x)));
                        });
                    }
                }
                diff_values("", &a, &b, &mut out);
            }
        }
        _ => panic!("the sides ran different sequences"),
    }
    out
}

// ------------------------------------------------------------- allow-list

/// `*` matches one segment, `**` the rest.
fn glob(pattern: &str, at: &str) -> bool {
    let (p, a): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), at.split('/').collect());
    let mut i = 0;
    while i < p.len() {
        if p[i] == "**" {
            return true;
        }
        if i >= a.len() || (p[i] != "*" && p[i] != a[i]) {
            return false;
        }
        i += 1;
    }
    i == a.len()
}

struct Allowed {
    entries: Vec<Value>,
}

impl Allowed {
    fn load(steps: &[Value]) -> Self {
        let doc = load("allowed.json");
        let entries = doc["allowed"]
            .as_array()
            .expect("allowed.json: {\"allowed\": [...]}")
            .clone();
        for e in &entries {
            for k in ["step", "request", "at", "difference", "reason"] {
                assert!(
                    e[k].as_str().is_some_and(|s| !s.is_empty()),
                    "allowed.json: every entry has a non-empty `{k}`: {e}"
                );
            }
            let step = steps
                .iter()
                .find(|s| s["id"] == e["step"])
                .unwrap_or_else(|| panic!("allowed.json names a step the sequence does not have: {e}"));
            let request = step["request"].as_str().or(step["await"].as_str()).unwrap();
            assert_eq!(
                Some(request),
                e["request"].as_str(),
                "allowed.json: the entry's request is its step's request: {e}"
            );
        }
        Self { entries }
    }

    fn reason(&self, d: &Difference, mode: Mode) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| {
                e["step"] == d.step.as_str()
                    && glob(e["at"].as_str().unwrap(), &d.at)
                    && e.get("modes")
                        .and_then(Value::as_array)
                        .is_none_or(|m| m.iter().any(|x| x == mode.name()))
            })
            .and_then(|e| e["reason"].as_str())
    }
}

// ------------------------------------------------------------- the sides

fn wait_ready(addr: SocketAddr, what: &str, mut alive: impl FnMut()) {
    eventually(&format!("{what} lists connectors"), Duration::from_secs(180), || {
        alive();
        std::net::TcpStream::connect(addr).ok()?;
        let (status, _) = http(addr, "GET", "/connectors", None);
        (status == 200).then_some(())
    });
}

fn kafka_connect(mode: Mode, dir: &Path) -> (ConnectStandalone, SocketAddr) {
    let port = free_port();
    let listener = format!("http://127.0.0.1:{port}");
    let group = unique("rc-kc");
    let mut keys: Vec<(String, String)> = [
        ("bootstrap.servers", bootstrap()),
        ("key.converter", STRING.to_owned()),
        ("value.converter", STRING.to_owned()),
        ("offset.flush.interval.ms", "1000".to_owned()),
        ("listeners", listener),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    match mode {
        Mode::Standalone => keys.push((
            "offset.storage.file.filename".into(),
            dir.join("kc-offsets").to_str().unwrap().to_owned(),
        )),
        Mode::Distributed => {
            for (k, v) in [
                ("group.id", group.clone()),
                ("config.storage.topic", format!("{group}-configs")),
                ("offset.storage.topic", format!("{group}-offsets")),
                ("status.storage.topic", format!("{group}-status")),
                ("config.storage.replication.factor", "1".into()),
                ("offset.storage.replication.factor", "1".into()),
                ("status.storage.replication.factor", "1".into()),
                ("offset.storage.partitions", "3".into()),
                ("status.storage.partitions", "1".into()),
            ] {
                keys.push((k.to_owned(), v));
            }
        }
    }
    let worker = dir.join("kc-worker.properties");
    std::fs::write(
        &worker,
        keys.iter().map(|(k, v)| format!("{k}={v}\n")).collect::<String>(),
    )
    .unwrap();
    let kc = ConnectStandalone::launch(dir, mode.name(), &[worker]);
    (kc, format!("127.0.0.1:{port}").parse().unwrap())
}

/// Copycat's process (killed when dropped) and its REST address.
fn copycat(mode: Mode, dir: &Path) -> (Box<dyn std::any::Any>, SocketAddr) {
    match mode {
        Mode::Standalone => {
            let s = Standalone::start(dir, "");
            let addr = s.addr;
            (Box::new(s), addr)
        }
        Mode::Distributed => {
            let w = ClusterWorker::start(dir, "copycat", &unique("rc-cc"), "");
            let addr = w.addr;
            (Box::new(w), addr)
        }
    }
}

fn differential(mode: Mode) {
    if let Err(why) = kafka_connect_available() {
        eprintln!(
            "SKIPPED rest_compat ({}): the differential test needs Kafka Connect 4.4: {why}",
            mode.name()
        );
        return;
    }
    init_logging();
    let started = Instant::now();
    let sequence = load("sequence.json");
    let steps: Vec<Value> = sequence["steps"].as_array().unwrap().clone();
    let mut ids = BTreeSet::new();
    for s in &steps {
        assert!(ids.insert(s["id"].as_str().unwrap()), "duplicate step id {}", s["id"]);
    }
    let allowed = Allowed::load(&steps);
    let (kc_dir, cc_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (kc_vars, cc_vars) = (variables("kc", kc_dir.path()), variables("cc", cc_dir.path()));

    let (mut kc, kc_addr) = kafka_connect(mode, kc_dir.path());
    let (cc, cc_addr) = copycat(mode, cc_dir.path());
    wait_ready(cc_addr, "Copycat", || {});
    wait_ready(kc_addr, "Kafka Connect", || kc.check_running());
    eprintln!(
        "rest_compat {}: both sides up after {:.1?}",
        mode.name(),
        started.elapsed()
    );

    let (kc_out, cc_out) = std::thread::scope(|s| {
        let kc = s.spawn(|| run_sequence(kc_addr, &steps, mode, &kc_vars));
        let cc = s.spawn(|| run_sequence(cc_addr, &steps, mode, &cc_vars));
        (kc.join().unwrap(), cc.join().unwrap())
    });
    kc.check_running();
    let ((kc_out, kc_took), (cc_out, cc_took)) = (kc_out, cc_out);
    // The same requests, sent at the same time to both (each a new
    // connection): docs/BENCHMARKS.md, REST API.
    eprintln!(
        "rest_compat {}: request latency over {} requests: Kafka Connect {}; Copycat {}",
        mode.name(),
        kc_took.len(),
        latencies(&kc_took),
        latencies(&cc_took)
    );

    let ran: Vec<&Value> = steps.iter().filter(|s| runs_in(s, mode)).collect();
    let mut transcripts = (Vec::new(), Vec::new());
    let mut differences = Vec::new();
    for ((step, k), c) in ran.iter().zip(&kc_out).zip(&cc_out) {
        let request = step["request"].as_str().or(step["await"].as_str()).unwrap().to_owned();
        let id = step["id"].as_str().unwrap().to_owned();
        transcripts
            .0
            .push(json!({"step": id, "request": request, "outcome": k.to_json()}));
        transcripts
            .1
            .push(json!({"step": id, "request": request, "outcome": c.to_json()}));
        let top_version = step["compare_version"].as_bool() == Some(true);
        let norm = |o: &Outcome, vars: &[(String, String)], copycat: bool| match o {
            Outcome::Response { status, body } => Outcome::Response {
                status: *status,
                body: normalise(body, vars, copycat, top_version),
            },
            Outcome::Await { reached, last } => Outcome::Await {
                reached: *reached,
                last: normalise(last, vars, copycat, top_version),
            },
        };
        for (at, kafka_connect, copycat) in compare_step(step, &norm(k, &kc_vars, false), &norm(c, &cc_vars, true)) {
            differences.push(Difference {
                step: id.clone(),
                request: request.clone(),
                at,
                kafka_connect,
                copycat,
            });
        }
    }
    for (side, t) in [("kafka-connect", &transcripts.0), ("copycat", &transcripts.1)] {
        let path = std::env::temp_dir().join(format!("copycat-rest-compat-{}-{side}.json", mode.name()));
        std::fs::write(&path, serde_json::to_string_pretty(t).unwrap()).unwrap();
        eprintln!("rest_compat {}: {side}'s transcript: {}", mode.name(), path.display());
    }

    let mut unexplained = Vec::new();
    let mut report = String::new();
    for d in &differences {
        let reason = allowed.reason(d, mode);
        report += &format!(
            "{} [{}] {} at {}: Kafka Connect {} | Copycat {}{}\n",
            if reason.is_some() {
                "  allowed   "
            } else {
                "  DIFFERENT "
            },
            d.step,
            d.request,
            d.at,
            d.kafka_connect,
            d.copycat,
            reason
                .map(|r| format!("\n                (allowed: {r})"))
                .unwrap_or_default(),
        );
        if reason.is_none() {
            unexplained.push(d);
        }
    }
    let stale: Vec<&str> = allowed
        .entries
        .iter()
        .filter(|e| {
            e.get("modes")
                .and_then(Value::as_array)
                .is_none_or(|m| m.iter().any(|x| x == mode.name()))
                && !differences
                    .iter()
                    .any(|d| e["step"] == d.step.as_str() && glob(e["at"].as_str().unwrap(), &d.at))
        })
        .map(|e| e["step"].as_str().unwrap())
        .collect();
    eprintln!(
        "rest_compat {}: {} steps, {} differences ({} allowed, {} not) in {:.1?}\n{report}{}",
        mode.name(),
        ran.len(),
        differences.len(),
        differences.len() - unexplained.len(),
        unexplained.len(),
        started.elapsed(),
        if stale.is_empty() {
            String::new()
        } else {
            format!("allow-list entries that matched nothing in this mode (no longer needed?): {stale:?}\n")
        }
    );
    drop(cc);
    kc.stop();
    assert!(
        unexplained.is_empty(),
        "{} difference(s) from Kafka Connect 4.4 ({} mode) that tests/rest-compat/allowed.json does not explain:\n{}",
        unexplained.len(),
        mode.name(),
        unexplained
            .iter()
            .map(|d| format!(
                "  [{}] {} at {}: Kafka Connect {} | Copycat {}",
                d.step, d.request, d.at, d.kafka_connect, d.copycat
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn rest_api_matches_kafka_connect_standalone() {
    differential(Mode::Standalone);
}

#[test]
fn rest_api_matches_kafka_connect_distributed() {
    differential(Mode::Distributed);
}

#[test]
fn the_comparison_sees_shapes_values_and_sets() {
    // The comparison itself, on made-up bodies (no servers).
    let step = json!({"id": "x", "request": "GET /x", "sets": ["/*/name"], "ignore": ["/1/skip"]});
    let kc = Outcome::Response {
        status: 200,
        body: json!([{"name": "a", "n": 1}, {"name": "b", "skip": 1}]),
    };
    let cc = Outcome::Response {
        status: 404,
        body: json!([{"name": "a", "n": "1"}, {"name": "c", "skip": 2}]),
    };
    let d = compare_step(&step, &kc, &cc);
    let at: Vec<&str> = d.iter().map(|(a, _, _)| a.as_str()).collect();
    assert_eq!(at, ["status", "set /*/name", "/0/n", "/1/name"], "{d:?}");

    let step = json!({"id": "x", "request": "GET /x", "compare": "shape", "map": [""]});
    let kc = Outcome::Response {
        status: 200,
        body: json!({"root": {"level": "INFO", "last_modified": null}, "x": {"level": "WARN", "last_modified": 5}}),
    };
    let cc = Outcome::Response {
        status: 200,
        body: json!({"y": {"level": "INFO"}}),
    };
    let d = compare_step(&step, &kc, &cc);
    assert_eq!(
        d,
        [(
            "/*/last_modified".to_owned(),
            "null|number".to_owned(),
            "(absent)".to_owned()
        )]
    );

    let vars = vec![("source".to_owned(), "rc-source-1".to_owned())];
    assert_eq!(
        normalise(
            &json!({"rc-source-1": {"class": "file-source", "worker_id": "h:1", "m": "x rc-source-1 y", "digest": "d", "version": "1"}, "version": "2"}),
            &vars,
            true,
            true
        ),
        json!({"${source}": {"class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "worker_id": "<string>", "m": "x ${source} y", "version": "<string>"}, "version": "2"})
    );
    assert!(glob("/configs/*/value", "/configs/3/value"));
    assert!(glob("/tasks/**", "/tasks/0/state"));
    assert!(!glob("/tasks/*", "/tasks/0/state"));
}
