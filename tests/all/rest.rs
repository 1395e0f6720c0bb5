//! The Kafka Connect-compatible REST API against a real worker and broker,
//! over a real socket (`rest::serve` on 127.0.0.1:0).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use copycat_runtime::Worker;
use copycat_runtime::rest::{self, Loggers, RestState};
use copycat_runtime::worker::persist::{self as state, StateStore};
use copycat_tests::*;
use serde_json::{Value, json};

pub(crate) struct Api {
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// Serve the API of `worker` on a free port.
pub(crate) async fn serve(worker: Arc<Worker>, loggers: Option<Arc<Loggers>>) -> Api {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut state = RestState::new(worker, addr.to_string());
    if let Some(l) = loggers {
        state = state.with_loggers(l);
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(rest::serve(listener, rest::app(state), async {
        let _ = rx.await;
    }));
    Api { addr, _stop: tx }
}

impl Api {
    /// One HTTP/1.1 request; the status and the body (JSON, or a string).
    pub(crate) async fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let body = body.unwrap_or("").as_bytes().to_vec();
        self.call_raw(method, path, "application/json", body).await
    }

    /// A request with a raw body of `content_type`.
    async fn call_raw(&self, method: &str, path: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        let (addr, method, path, content_type) =
            (self.addr, method.to_owned(), path.to_owned(), content_type.to_owned());
        tokio::task::spawn_blocking(move || http_bytes(addr, &method, &path, &content_type, &body))
            .await
            .unwrap()
    }

    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        self.call("GET", path, None).await
    }

    pub(crate) async fn send(&self, method: &str, path: &str, body: &Value) -> (u16, Value) {
        self.call(method, path, Some(&body.to_string())).await
    }

    /// Poll `GET path` until `check` accepts the body.
    async fn until(&self, what: &str, path: &str, check: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (code, body) = self.get(path).await;
            if code == 200 && check(&body) {
                return body;
            }
            assert!(Instant::now() < deadline, "{what}: last answer {code} {body}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

async fn start() -> (Arc<Worker>, Api) {
    let worker = worker(&unique("offsets")).await;
    let api = serve(worker.clone(), None).await;
    (worker, api)
}

fn datagen(name: &str, topic: &str) -> Value {
    json!({"name": name, "config": {
        "connector.class": "datagen", "topic": topic, "streams": "1", "rate": "200", "topic.partitions": "1",
    }})
}

fn task_states(status: &Value) -> Vec<String> {
    status["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["state"].as_str().unwrap().to_owned())
        .collect()
}

async fn topic_len(topic: &str) -> i64 {
    let topic = topic.to_owned();
    tokio::task::spawn_blocking(move || topic_size(&topic)).await.unwrap()
}

async fn grows(topic: &str) {
    let before = topic_len(topic).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while topic_len(topic).await <= before {
        assert!(Instant::now() < deadline, "no new records in {topic}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connector_lifecycle_over_rest() {
    let topic = unique("rest");
    create_topic(&topic, 1).await;
    let (_worker, api) = start().await;
    let name = unique("dg");
    let base = format!("/connectors/{name}");

    let (code, body) = api.send("POST", "/connectors", &datagen(&name, &topic)).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["name"], json!(name));
    assert_eq!(body["type"], json!("source"));
    assert_eq!(body["config"]["topic"], json!(topic));
    assert_eq!(body["tasks"], json!([{"connector": name, "task": 0}]));
    let status = api
        .until("running", &format!("{base}/status"), |s| task_states(s) == ["RUNNING"])
        .await;
    assert_eq!(status["connector"]["state"], json!("RUNNING"));
    assert_eq!(status["connector"]["worker_id"], json!(api.addr.to_string()));
    assert_eq!(status["type"], json!("source"));
    grows(&topic).await;

    // Prometheus scrapes the worker's metrics.
    let metrics = api
        .until("the task's metrics", "/metrics", |m| {
            m.as_str().is_some_and(|t| {
                t.contains(&format!(
                    "copycat_source_records_polled_total{{connector=\"{name}\",task=\"0\"}}"
                ))
            })
        })
        .await;
    assert!(metrics.as_str().unwrap().trim_end().ends_with("# EOF"), "{metrics}");

    // Lists.
    let (code, list) = api.get("/connectors").await;
    assert_eq!(code, 200);
    assert!(list.as_array().unwrap().contains(&json!(name)), "{list}");
    let (_, expanded) = api.get("/connectors?expand=status&expand=info").await;
    assert_eq!(expanded[&name]["status"]["connector"]["state"], json!("RUNNING"));
    assert_eq!(expanded[&name]["info"]["config"]["topic"], json!(topic));
    let (_, info) = api.get(&base).await;
    assert_eq!(info["name"], json!(name));
    let (code, tasks) = api.get(&format!("{base}/tasks")).await;
    assert_eq!(code, 200);
    assert_eq!(tasks[0]["id"], json!({"connector": name, "task": 0}));
    assert!(tasks[0]["config"].is_object(), "{tasks}");
    let (code, t0) = api.get(&format!("{base}/tasks/0/status")).await;
    assert_eq!((code, t0["id"].clone()), (200, json!(0)), "{t0}");
    assert_eq!(api.get(&format!("{base}/tasks/7/status")).await.0, 404);

    // Config: get, put (replace), patch (null removes).
    let (code, config) = api.get(&format!("{base}/config")).await;
    assert_eq!(code, 200);
    assert_eq!(config["rate"], json!("200"));
    let mut replaced = config.clone();
    replaced["rate"] = json!("300");
    let (code, body) = api.send("PUT", &format!("{base}/config"), &replaced).await;
    assert_eq!(code, 200, "replacing is 200: {body}");
    assert_eq!(api.get(&format!("{base}/config")).await.1["rate"], json!("300"));
    let (code, body) = api
        .send(
            "PATCH",
            &format!("{base}/config"),
            &json!({"rate": null, "value.size": "50"}),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    let (_, config) = api.get(&format!("{base}/config")).await;
    assert_eq!(config.get("rate"), None, "null removed the key: {config}");
    assert_eq!(config["value.size"], json!("50"));
    // Back to a modest rate for the rest of the test.
    api.send("PATCH", &format!("{base}/config"), &json!({"rate": "200"}))
        .await;
    api.until("running again", &format!("{base}/status"), |s| {
        task_states(s) == ["RUNNING"]
    })
    .await;

    // Pause: tasks PAUSED, no new records.
    assert_eq!(api.call("PUT", &format!("{base}/pause"), None).await.0, 202);
    let status = api.get(&format!("{base}/status")).await.1;
    assert_eq!(status["connector"]["state"], json!("PAUSED"), "{status}");
    assert_eq!(task_states(&status), ["PAUSED"]);
    let paused_at = topic_len(&topic).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(topic_len(&topic).await, paused_at, "a paused connector writes nothing");

    // Resume.
    assert_eq!(api.call("PUT", &format!("{base}/resume"), None).await.0, 202);
    api.until("resumed", &format!("{base}/status"), |s| {
        s["connector"]["state"] == json!("RUNNING") && task_states(s) == ["RUNNING"]
    })
    .await;
    grows(&topic).await;

    // Offsets of a running connector may not change.
    let (code, body) = api
        .send("PATCH", &format!("{base}/offsets"), &json!({"offsets": []}))
        .await;
    assert_eq!(code, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("STOPPED"), "{body}");
    assert_eq!(api.call("DELETE", &format!("{base}/offsets"), None).await.0, 400);

    // Restarts.
    let (code, body) = api
        .call("POST", &format!("{base}/restart?includeTasks=true"), None)
        .await;
    assert_eq!(code, 202, "{body}");
    assert_eq!(body["name"], json!(name));
    // Kafka Connect's restart plan: what restarts shows RESTARTING.
    assert_eq!(body["connector"]["state"], json!("RESTARTING"), "{body}");
    assert_eq!(task_states(&body), ["RESTARTING"], "{body}");
    api.until("running after the restart", &format!("{base}/status"), |s| {
        task_states(s) == ["RUNNING"]
    })
    .await;
    // Only the failed ones: none failed, nothing restarts.
    let (code, body) = api
        .call(
            "POST",
            &format!("{base}/restart?includeTasks=true&onlyFailed=true"),
            None,
        )
        .await;
    assert_eq!(code, 202, "{body}");
    assert_eq!(body["connector"]["state"], json!("RUNNING"), "{body}");
    assert_eq!(task_states(&body), ["RUNNING"], "{body}");
    assert_eq!(api.call("POST", &format!("{base}/restart"), None).await.0, 204);
    assert_eq!(api.call("POST", &format!("{base}/tasks/0/restart"), None).await.0, 204);
    api.until("running after restarts", &format!("{base}/status"), |s| {
        task_states(s) == ["RUNNING"]
    })
    .await;

    // Stop: STOPPED, no tasks, the committed offsets readable and alterable.
    assert_eq!(api.call("PUT", &format!("{base}/stop"), None).await.0, 204);
    let status = api.get(&format!("{base}/status")).await.1;
    assert_eq!(status["connector"]["state"], json!("STOPPED"), "{status}");
    assert_eq!(status["tasks"], json!([]));
    let (code, offsets) = api.get(&format!("{base}/offsets")).await;
    assert_eq!(code, 200, "{offsets}");
    let entries = offsets["offsets"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{offsets}");
    assert!(
        entries[0]["partition"].is_object() && entries[0]["offset"].is_object(),
        "{offsets}"
    );
    let (code, body) = api
        .send(
            "PATCH",
            &format!("{base}/offsets"),
            &json!({"offsets": [{"partition": entries[0]["partition"], "offset": entries[0]["offset"]}]}),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("altered successfully"),
        "{body}"
    );
    let (code, body) = api.send("PATCH", &format!("{base}/offsets"), &json!({"nope": 1})).await;
    assert_eq!(code, 400, "{body}");

    // Delete: gone.
    assert_eq!(api.call("DELETE", &base, None).await.0, 204);
    let (code, body) = api.get(&base).await;
    assert_eq!(code, 404);
    assert_eq!(body["error_code"], json!(404));
    assert!(
        !api.get("/connectors")
            .await
            .1
            .as_array()
            .unwrap()
            .contains(&json!(name))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_kafka_connect_errors() {
    let topic = unique("rest-bad");
    let (_worker, api) = start().await;

    let (code, body) = api.get("/connectors/nope/status").await;
    assert_eq!(code, 404);
    assert_eq!(body, json!({"error_code": 404, "message": "Connector nope not found"}));
    for (method, path) in [
        ("GET", "/connectors/nope"),
        ("GET", "/connectors/nope/config"),
        ("PUT", "/connectors/nope/pause"),
        ("DELETE", "/connectors/nope"),
        ("GET", "/connectors/nope/offsets"),
        ("GET", "/connectors/nope/tasks/x/status"),
        ("GET", "/no/such/path"),
    ] {
        let (code, body) = api.call(method, path, None).await;
        assert_eq!(code, 404, "{method} {path}: {body}");
        assert_eq!(body["error_code"], json!(404), "{method} {path}: {body}");
    }

    let (code, body) = api.call("POST", "/connectors", Some("{\"name\": ")).await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(body["error_code"], json!(400));
    assert!(
        body["message"].as_str().unwrap().contains("EOF"),
        "serde's message: {body}"
    );
    let (code, body) = api.call("PATCH", "/connectors/nope/config", Some("[1,2")).await;
    assert_eq!(code, 400, "{body}");

    let name = unique("bad");
    let (code, body) = api
        .send(
            "POST",
            "/connectors",
            &json!({"name": name, "config": {"connector.class": "datagen", "rate": "fast", "tasks.max": "0"}}),
        )
        .await;
    assert_eq!(code, 400, "{body}");
    let msg = body["message"].as_str().unwrap();
    assert!(msg.contains("tasks.max"), "{msg}");
    let (code, body) = api
        .send(
            "POST",
            "/connectors",
            &json!({"name": name, "config": {"connector.class": "datagen", "rate": "fast"}}),
        )
        .await;
    assert_eq!(code, 400, "{body}");
    let msg = body["message"].as_str().unwrap();
    assert!(
        msg.contains("rate") && msg.contains("topic"),
        "every bad key named: {msg}"
    );
    let (code, body) = api
        .send(
            "POST",
            "/connectors",
            &json!({"name": name, "config": {"connector.class": "nosuch"}}),
        )
        .await;
    assert_eq!(code, 400, "{body}");
    // A client setting librdkafka refuses is refused at create, naming the
    // key, not found by a task failing to create its producer.
    let (code, body) = api
        .send(
            "POST",
            "/connectors",
            &json!({"name": name, "config": {"connector.class": "datagen", "topic": topic,
                "producer.override.compression.type": "brotli",
                "producer.override.max.request.size": "1048576"}}),
        )
        .await;
    assert_eq!(code, 400, "{body}");
    let msg = body["message"].as_str().unwrap();
    assert!(
        msg.contains("producer.override.compression.type")
            && msg.contains("brotli")
            && msg.contains("producer.override.max.request.size"),
        "{msg}"
    );
    assert_eq!(api.get(&format!("/connectors/{name}")).await.0, 404, "nothing created");
    let (code, body) = api
        .send(
            "POST",
            "/connectors",
            &json!({"config": {"connector.class": "datagen"}}),
        )
        .await;
    assert_eq!(code, 400, "no name: {body}");
    let mut ok = datagen(&name, &topic);
    ok["initial_state"] = json!("SLEEPING");
    assert_eq!(api.send("POST", "/connectors", &ok).await.0, 400);
    ok["initial_state"] = json!("STOPPED");
    // A trailing slash is the same path (kcctl lists and creates on `/connectors/`).
    let (code, body) = api.send("POST", "/connectors/", &ok).await;
    assert_eq!(code, 201, "{body}");
    let (code, body) = api.send("POST", "/connectors", &ok).await;
    assert_eq!(code, 409, "{body}");
    assert_eq!(body["error_code"], json!(409));
    let (code, body) = api.get("/connectors/").await;
    assert_eq!(code, 200, "{body}");
    assert!(body.as_array().unwrap().contains(&json!(name)), "{body}");
    let (code, body) = api.get("/connector-plugins/").await;
    assert_eq!(code, 200, "{body}");
    assert!(body.as_array().is_some_and(|p| !p.is_empty()), "{body}");
    let (code, body) = api.get(&format!("/connectors/{name}/status/")).await;
    assert_eq!((code, body["connector"]["state"].clone()), (200, json!("STOPPED")));
    let (code, body) = api
        .send(
            "PUT",
            &format!("/connectors/{name}/config"),
            &json!({"connector.class": "datagen"}),
        )
        .await;
    assert_eq!(code, 400, "an invalid replacement changes nothing: {body}");
    assert_eq!(
        api.get(&format!("/connectors/{name}/config")).await.1["topic"],
        json!(topic)
    );
    let (code, body) = api
        .call("POST", &format!("/connectors/{name}/restart?onlyFailed=maybe"), None)
        .await;
    assert_eq!(code, 400, "{body}");
    // A PUT of a new name creates it (201).
    let other = unique("put");
    let (code, body) = api
        .send(
            "PUT",
            &format!("/connectors/{other}/config"),
            &json!({"connector.class": "datagen", "topic": topic, "count": "1"}),
        )
        .await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(api.call("DELETE", &format!("/connectors/{other}"), None).await.0, 204);
    assert_eq!(api.call("DELETE", &format!("/connectors/{name}"), None).await.0, 204);
    // Errors axum answers before a handler runs are JSON too.
    let huge = format!(
        "{{\"name\": \"x\", \"config\": {{\"pad\": \"{}\"}}}}",
        "x".repeat(3 << 20)
    );
    let (code, body) = api.call("POST", "/connectors", Some(&huge)).await;
    assert_eq!((code, body["error_code"].clone()), (413, json!(413)), "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    let (code, body) = api.call("PATCH", "/connectors", Some("{}")).await;
    assert_eq!((code, body["error_code"].clone()), (405, json!(405)), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugins_and_validation() {
    let (_worker, api) = start().await;
    let (code, plugins) = api.get("/connector-plugins?connectorsOnly=true").await;
    assert_eq!(code, 200, "{plugins}");
    let plugins = plugins.as_array().unwrap();
    let find = |class: &str| plugins.iter().find(|p| p["class"] == json!(class)).cloned();
    let dg = find("datagen").expect("datagen listed");
    assert_eq!(dg["type"], json!("source"));
    assert!(dg["version"].as_str().is_some_and(|v| !v.is_empty()), "{dg}");
    assert_eq!(find("file-sink").expect("file-sink listed")["type"], json!("sink"));

    let (code, keys) = api.get("/connector-plugins/datagen/config").await;
    assert_eq!(code, 200);
    let topic = keys
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == json!("topic"))
        .expect("topic key");
    assert_eq!(topic["required"], json!(true));
    assert_eq!(topic["type"], json!("STRING"));
    assert_eq!(api.get("/connector-plugins/nosuch/config").await.0, 404);

    let validate = "/connector-plugins/datagen/config/validate";
    let errors_of = |body: &Value, key: &str| -> Vec<String> {
        body["configs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["value"]["name"] == json!(key))
            .map(|c| serde_json::from_value(c["value"]["errors"].clone()).unwrap())
            .unwrap_or_default()
    };
    // Declared keys: a missing required key, a value of the wrong type.
    let (code, body) = api.send("PUT", validate, &json!({"rate": "fast"})).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["name"], json!("datagen"));
    assert_eq!(body["error_count"], json!(2), "{body}");
    assert_eq!(errors_of(&body, "topic").len(), 1, "{body}");
    assert_eq!(errors_of(&body, "rate").len(), 1, "{body}");
    // Kafka Connect's framework groups first, then Copycat's own.
    let groups: Vec<&str> = body["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    assert_eq!(
        &groups[..7],
        [
            "Common",
            "Transforms",
            "Predicates",
            "Error Handling",
            "Topic Creation",
            "Exactly Once Support",
            "offsets.topic"
        ],
        "{groups:?}"
    );
    assert!(
        groups.contains(&"Copycat Sandbox") && groups.contains(&"Copycat Limits"),
        "{groups:?}"
    );
    // The connector's own validate, in the sandbox.
    let (_, body) = api.send("PUT", validate, &json!({"topic": "t", "streams": "0"})).await;
    assert_eq!(body["error_count"], json!(1), "{body}");
    assert!(errors_of(&body, "streams")[0].contains("at least 1"), "{body}");
    // Valid.
    let (_, body) = api.send("PUT", validate, &json!({"topic": "t"})).await;
    assert_eq!(body["error_count"], json!(0), "{body}");
    let topic_value = body["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["definition"]["name"] == json!("topic"))
        .unwrap()["value"]
        .clone();
    assert_eq!(topic_value["value"], json!("t"));
    assert_eq!(topic_value["visible"], json!(true));
    assert_eq!(
        api.send("PUT", "/connector-plugins/nosuch/config/validate", &json!({}))
            .await
            .0,
        404
    );
    assert_eq!(api.call("PUT", validate, Some("{")).await.0, 400);

    // Transforms and predicates: listed with connectorsOnly=false, their
    // settings under their class name or alias, and a misconfigured chain
    // a validation error naming the key.
    let (_, only) = api.get("/connector-plugins").await;
    assert!(
        only.as_array()
            .unwrap()
            .iter()
            .all(|p| p["type"] != json!("transformation")),
        "{only}"
    );
    let (code, all) = api.get("/connector-plugins?connectorsOnly=false").await;
    assert_eq!(code, 200, "{all}");
    let all = all.as_array().unwrap();
    let listed = |t: &str| -> Vec<&str> {
        all.iter()
            .filter(|p| p["type"] == json!(t))
            .map(|p| p["class"].as_str().unwrap())
            .collect()
    };
    let built_in = |predicates: bool| -> Vec<&str> {
        copycat_transforms::registry::all()
            .into_iter()
            .filter(|p| p.is_predicate() == predicates)
            .map(|p| p.class)
            .collect()
    };
    // Kafka Connect's own, then the transform components of plugin.path.
    let (kafka_connect, components): (Vec<&str>, Vec<&str>) = listed("transformation")
        .into_iter()
        .partition(|c| c.starts_with("org.apache.kafka.connect."));
    assert_eq!(kafka_connect, built_in(false));
    assert!(components.iter().all(|c| !c.contains('.')), "{components:?}");
    assert_eq!(listed("predicate"), built_in(true));
    assert_eq!(listed("predicate").len(), 3);
    assert!(
        all.iter()
            .any(|p| p["class"] == json!("org.apache.kafka.connect.transforms.InsertField$Value"))
    );
    let (code, keys) = api
        .get("/connector-plugins/org.apache.kafka.connect.transforms.RegexRouter/config")
        .await;
    assert_eq!(code, 200, "{keys}");
    let names: Vec<&str> = keys
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["regex", "replacement"]);
    assert_eq!(keys[0]["required"], json!(true));
    let (_, body) = api
        .send(
            "PUT",
            validate,
            &json!({"topic": "t", "transforms": "route,stamp", "transforms.route.type": "RegexRouter",
                "transforms.route.regex": "(unclosed", "transforms.route.replacement": "x",
                "transforms.stamp.type": "com.example.NoSuchTransform"}),
        )
        .await;
    assert_eq!(body["error_count"], json!(2), "{body}");
    assert!(
        errors_of(&body, "transforms.route.regex")[0].contains("(unclosed"),
        "{body}"
    );
    assert!(
        errors_of(&body, "transforms.stamp.type")[0].contains("could not be found"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_info_loggers_and_openapi() {
    let worker = worker(&unique("offsets")).await;
    let applied = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = applied.clone();
    let loggers = Loggers::new("info,rdkafka=warn", move |d| {
        seen.lock().unwrap().push(d.to_owned());
        Ok(())
    });
    let api = serve(worker, Some(Arc::new(loggers))).await;

    let (code, root) = api.get("/").await;
    assert_eq!(code, 200);
    // The Kafka Connect API level (tools gate features on it), and Copycat's own.
    assert_eq!(root["version"], json!("4.4.0"), "{root}");
    assert!(root["copycat_version"].as_str().is_some(), "{root}");
    assert!(root["commit"].as_str().is_some(), "{root}");
    assert!(
        root["kafka_cluster_id"].as_str().is_some_and(|id| !id.is_empty()),
        "{root}"
    );
    let (code, health) = api.get("/health").await;
    assert_eq!((code, health["status"].clone()), (200, json!("healthy")));

    let (code, all) = api.get("/admin/loggers").await;
    assert_eq!(code, 200);
    assert_eq!(
        all,
        json!({"root": {"level": "INFO", "last_modified": null}, "rdkafka": {"level": "WARN", "last_modified": null}})
    );
    // A trailing slash is the same path (Strimzi reads `/admin/loggers/`).
    assert_eq!(api.get("/admin/loggers/").await, (200, all));
    let (code, body) = api
        .send(
            "PUT",
            "/admin/loggers/copycat_runtime::task",
            &json!({"level": "debug"}),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body, json!(["copycat_runtime::task"]));
    assert_eq!(
        applied.lock().unwrap().last().unwrap(),
        "info,copycat_runtime::task=debug,rdkafka=warn"
    );
    let (code, task) = api.get("/admin/loggers/copycat_runtime::task").await;
    assert_eq!((code, task["level"].clone()), (200, json!("DEBUG")), "{task}");
    assert!(task["last_modified"].as_u64().is_some(), "{task}");
    // The same level again changes nothing.
    let (code, body) = api
        .send(
            "PUT",
            "/admin/loggers/copycat_runtime::task",
            &json!({"level": "DEBUG"}),
        )
        .await;
    assert_eq!((code, body), (200, json!([])));
    // A logger that neither has a level nor was logged from does not exist.
    let (code, body) = api.get("/admin/loggers/other").await;
    assert_eq!(code, 404, "{body}");
    assert_eq!(body["message"], json!("Logger other not found."), "{body}");
    // Cluster scope: a standalone worker is the whole cluster; 204.
    let (code, _) = api
        .send(
            "PUT",
            "/admin/loggers/rdkafka?scope=cluster",
            &json!({"level": "ERROR"}),
        )
        .await;
    assert_eq!(code, 204);
    assert_eq!(api.get("/admin/loggers/rdkafka").await.1["level"], json!("ERROR"));
    let (code, body) = api.send("PUT", "/admin/loggers/root", &json!({"level": "LOUD"})).await;
    assert_eq!(code, 400, "{body}");
    let (code, body) = api.send("PUT", "/admin/loggers/root", &json!({})).await;
    assert_eq!(code, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("'level'"), "{body}");
    assert_eq!(api.call("PUT", "/admin/loggers/root", Some("nope")).await.0, 400);

    let (code, doc) = api.get("/openapi.json").await;
    assert_eq!(code, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with('3'), "{doc}");
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/",
        "/connectors",
        "/connectors/{connector}/config",
        "/connectors/{connector}/offsets",
        "/connectors/{connector}/tasks/{task}/restart",
        "/connector-plugins/{plugin}/config/validate",
        "/admin/loggers/{logger}",
        "/metrics",
    ] {
        assert!(paths.contains_key(p), "{p} missing from {:?}", paths.keys());
    }
    assert!(paths["/connectors/{connector}/config"]["patch"].is_object());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_worker_restores_connectors_and_states() {
    let topic = unique("rest-state");
    create_topic(&topic, 1).await;
    let dir = tempfile::tempdir().unwrap();
    let offsets = unique("offsets");
    let worker = worker(&offsets).await;
    worker.persist_to(StateStore::new(dir.path()));
    let api = serve(worker.clone(), None).await;
    let names = [unique("run"), unique("paused"), unique("stopped")];
    for (name, initial) in names.iter().zip(["RUNNING", "PAUSED", "STOPPED"]) {
        let mut body = datagen(name, &topic);
        body["initial_state"] = json!(initial);
        let (code, body) = api.send("POST", "/connectors", &body).await;
        assert_eq!(code, 201, "{body}");
    }
    let (code, _) = api
        .send(
            "PATCH",
            &format!("/connectors/{}/config", names[0]),
            &json!({"rate": "100"}),
        )
        .await;
    assert_eq!(code, 200);
    // As in Kafka Connect, a connector created PAUSED has no task configs
    // until it is resumed.
    let paused = api.get(&format!("/connectors/{}/status", names[1])).await.1;
    assert_eq!(paused["connector"]["state"], json!("PAUSED"), "{paused}");
    assert_eq!(task_states(&paused), Vec::<String>::new(), "{paused}");
    assert_eq!(api.get(&format!("/connectors/{}/tasks", names[1])).await.1, json!([]));
    let persisted = std::fs::read_to_string(dir.path().join("connectors.json")).unwrap();
    assert!(persisted.contains(&names[2]), "{persisted}");
    api.until(
        "the running one's topic is active",
        &format!("/connectors/{}/topics", names[0]),
        |b| b[&names[0]]["topics"] == json!([topic]),
    )
    .await;
    let w = worker.clone();
    tokio::task::spawn_blocking(move || w.shutdown()).await.unwrap();
    drop(api);
    // A connector whose component is gone by the next start: not restored,
    // but not dropped from the state file either.
    let store = StateStore::new(dir.path());
    let mut saved = store.load().unwrap();
    let gone = unique("gone");
    saved.insert(
        gone.clone(),
        state::SavedConnector {
            config: [
                ("name", gone.as_str()),
                ("connector.class", "no-such-plugin"),
                ("topic", topic.as_str()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
            state: copycat_runtime::TargetState::Running,
            topics: Vec::new(),
        },
    );
    store.save(&saved).unwrap();

    // A new worker on the same state.dir.
    let worker = copycat_runtime::Worker::start(worker_config(&offsets)).await.unwrap();
    let store = StateStore::new(dir.path());
    let saved = store.load().unwrap();
    assert_eq!(saved.len(), 4);
    let w = worker.clone();
    tokio::task::spawn_blocking(move || w.restore(&saved, &[]))
        .await
        .unwrap();
    worker.persist_to(store.clone());
    let kept = store.load().unwrap();
    assert!(
        kept.contains_key(&gone),
        "an unrestorable connector stays persisted: {kept:?}"
    );
    assert_eq!(kept[&names[0]].topics, vec![topic.clone()], "active topics persisted");
    assert_eq!(
        worker.active_topics(&names[0]).unwrap(),
        vec![topic.clone()],
        "and restored"
    );
    assert!(!worker.connectors().contains(&gone));
    let api = serve(worker.clone(), None).await;
    let status = |n: &str| format!("/connectors/{n}/status");
    api.until("restored running", &status(&names[0]), |s| {
        task_states(s) == ["RUNNING"]
    })
    .await;
    assert_eq!(
        api.get(&format!("/connectors/{}/config", names[0])).await.1["rate"],
        json!("100"),
        "the patched config was persisted"
    );
    let paused = api.get(&status(&names[1])).await.1;
    assert_eq!(paused["connector"]["state"], json!("PAUSED"), "{paused}");
    // Restored PAUSED, it is split again, its tasks not started.
    assert_eq!(task_states(&paused), ["PAUSED"]);
    let stopped = api.get(&status(&names[2])).await.1;
    assert_eq!(stopped["connector"]["state"], json!("STOPPED"), "{stopped}");
    // The restored paused connector resumes.
    assert_eq!(
        api.call("PUT", &format!("/connectors/{}/resume", names[1]), None)
            .await
            .0,
        202
    );
    api.until("resumed", &status(&names[1]), |s| task_states(s) == ["RUNNING"])
        .await;
    let w = worker.clone();
    tokio::task::spawn_blocking(move || w.shutdown()).await.unwrap();
}

/// `copycat standalone`: serves the API on `listeners`, changes log levels
/// live, persists to `state.dir`, and a restarted process (no connector
/// files) restores the connector in its state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standalone_serves_the_api_and_restores_its_connectors() {
    use std::io::BufRead;
    use std::process::{Child, Command, Stdio};

    let dir = tempfile::tempdir().unwrap();
    let topic = unique("rest-cli");
    create_topic(&topic, 1).await;
    let name = unique("cli");
    let worker_props = dir.path().join("worker.properties");
    std::fs::write(
        &worker_props,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={}\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            plugin_dir().display(),
            unique("offsets"),
            dir.path().display()
        ),
    )
    .unwrap();
    let conn = dir.path().join("c.properties");
    std::fs::write(
        &conn,
        format!("name={name}\nconnector.class=datagen\ntopic={topic}\nrate=50\n"),
    )
    .unwrap();

    /// Kills the process if the test fails before it is terminated.
    struct Guard(Option<Child>);
    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(c) = &mut self.0 {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }

    /// Start the binary; the address it logs, its stderr drained in the background.
    fn launch(args: &[&std::path::Path]) -> (Guard, SocketAddr) {
        let mut child = Command::new(copycat_bin())
            .arg("standalone")
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("REST API listening")
                    && let Some(addr) = line.split("address=").nth(1)
                {
                    let _ = tx.send(addr.trim().parse::<SocketAddr>().unwrap());
                }
            }
        });
        let guard = Guard(Some(child));
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the listening address is logged");
        (guard, addr)
    }
    fn terminate(mut guard: Guard) {
        let mut child = guard.0.take().unwrap();
        let ok = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(exit) = child.try_wait().unwrap() {
                assert!(exit.success(), "exit 0 after SIGTERM, got {exit:?}");
                return;
            }
            assert!(Instant::now() < deadline, "copycat did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let api_at = |addr: SocketAddr| Api {
        addr,
        _stop: tokio::sync::oneshot::channel().0,
    };

    let (child, addr) = tokio::task::spawn_blocking({
        let (w, c) = (worker_props.clone(), conn.clone());
        move || launch(&[&w, &c])
    })
    .await
    .unwrap();
    let api = api_at(addr);
    let status = format!("/connectors/{name}/status");
    api.until("running", &status, |s| task_states(s) == ["RUNNING"]).await;
    let (code, body) = api
        .send("PUT", "/admin/loggers/copycat_runtime", &json!({"level": "debug"}))
        .await;
    // The logger and every logged-from target below it whose level changed.
    assert_eq!(code, 200, "{body}");
    let changed: Vec<&str> = body.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(changed.contains(&"copycat_runtime"), "{body}");
    assert!(changed.iter().all(|l| l.starts_with("copycat_runtime")), "{body}");
    assert_eq!(api.call("PUT", &format!("/connectors/{name}/pause"), None).await.0, 202);
    tokio::task::spawn_blocking(move || terminate(child)).await.unwrap();

    let (child, addr) = tokio::task::spawn_blocking(move || launch(&[&worker_props]))
        .await
        .unwrap();
    let api = api_at(addr);
    let restored = api.get(&status).await.1;
    assert_eq!(restored["connector"]["state"], json!("PAUSED"), "{restored}");
    assert_eq!(task_states(&restored), ["PAUSED"]);
    tokio::task::spawn_blocking(move || terminate(child)).await.unwrap();
}

fn sha256_of(path: &std::path::Path) -> String {
    let out = std::process::Command::new("sha256sum").arg(path).output().unwrap();
    format!(
        "sha256:{}",
        String::from_utf8_lossy(&out.stdout).split(' ').next().unwrap()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugin_registry_uploads_versions_side_by_side_and_refuses_bad_uploads() {
    init_logging();
    let cfg = worker_config_with(&unique("offsets"), &[("plugin.upload.max.bytes", "400000")]);
    let worker = Worker::start(cfg).await.unwrap();
    let api = serve(worker.clone(), None).await;
    let v1 = std::fs::read(fixture("tagged-v1")).unwrap();
    let v2 = std::fs::read(fixture("tagged-v2")).unwrap();
    let upload = |name: &str, version: &str, bytes: Vec<u8>| {
        let path = format!("/connector-plugins/{name}/versions/{version}");
        let api = &api;
        async move { api.call_raw("PUT", &path, "application/wasm", bytes).await }
    };

    let (code, body) = upload("tagged", "1.0.0", v1.clone()).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["digest"], json!(sha256_of(&fixture("tagged-v1"))));
    assert_eq!(
        (body["name"].clone(), body["type"].clone(), body["source"].clone()),
        (json!("tagged"), json!("source"), json!("uploaded"))
    );
    // The same bytes again: nothing to do.
    assert_eq!(upload("tagged", "1.0.0", v1.clone()).await.0, 200);
    // Other bytes under an existing version: versions are immutable.
    let (code, body) = upload("tagged", "1.0.0", v2.clone()).await;
    assert_eq!(code, 409, "{body}");
    assert!(body["message"].as_str().unwrap().contains("immutable"), "{body}");
    // A component that describes itself as another version.
    let (code, body) = upload("tagged", "9.9.9", v2.clone()).await;
    assert_eq!(code, 400, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("describes itself as version 2.0.0"),
        "{body}"
    );
    assert_eq!(upload("tagged", "2.0.0", v2.clone()).await.0, 201);

    // Refusals, each with Kafka Connect's error JSON naming the problem.
    let (code, body) = upload("tagged", "4.0.0", b"hello, not wasm".to_vec()).await;
    assert_eq!((code, body["error_code"].clone()), (400, json!(400)), "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("not a WebAssembly component"),
        "{body}"
    );
    let core_module = b"\0asm\x01\0\0\0".to_vec();
    let (code, body) = upload("tagged", "4.0.0", core_module).await;
    assert_eq!(code, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("core WebAssembly module"),
        "{body}"
    );
    let (code, body) = upload("tagged", "4.0.0", std::fs::read(fixture("wrong-world")).unwrap()).await;
    assert_eq!(code, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("does not implement"),
        "{body}"
    );
    let (code, body) = upload("tagged", "4.0.0", vec![0u8; 500_000]).await;
    assert_eq!(code, 413, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("plugin.upload.max.bytes=400000"),
        "{body}"
    );
    let (code, body) = upload("Bad_Name", "1.0.0", v1.clone()).await;
    assert_eq!(code, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("plugin name 'Bad_Name'"),
        "{body}"
    );
    assert_eq!(upload("tagged", "4.0.0", Vec::new()).await.0, 400);

    // Listed side by side.
    let (code, versions) = api.get("/connector-plugins/tagged/versions").await;
    assert_eq!(code, 200);
    let listed: Vec<&str> = versions
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["1.0.0", "2.0.0"]);
    let (_, all) = api.get("/connector-plugins").await;
    for v in ["1.0.0", "2.0.0"] {
        assert!(
            all.as_array()
                .unwrap()
                .contains(&json!({"class": "tagged", "type": "source", "version": v})),
            "{all}"
        );
    }
    assert_eq!(api.get("/connector-plugins/tagged/config?version=2.0.0").await.0, 200);
    let (code, body) = api.get("/connector-plugins/tagged/config?version=7").await;
    assert_eq!(code, 404);
    assert!(
        body["message"].as_str().unwrap().contains("available: [1.0.0, 2.0.0]"),
        "{body}"
    );
    assert_eq!(api.get("/connector-plugins/nothing/versions").await.0, 404);

    // A connector picks a version; an unknown one is a config error.
    let topic = unique("registry");
    create_topic(&topic, 2).await;
    let name = unique("tagged");
    let create = |version: &str| {
        json!({"name": name, "config": {"connector.class": "tagged", "connector.plugin.version": version,
            "topic": topic, "rate": "100"}})
    };
    let (code, body) = api.send("POST", "/connectors", &create("5.0.0")).await;
    assert_eq!(code, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("connector.plugin.version"),
        "{body}"
    );
    let (code, body) = api.send("POST", "/connectors", &create("2.0.0")).await;
    assert_eq!(code, 201, "{body}");
    let status = api
        .until("running", &format!("/connectors/{name}/status"), |s| {
            task_states(s) == ["RUNNING"]
        })
        .await;
    assert_eq!(status["connector"]["version"], json!("2.0.0"));
    assert_eq!(status["connector"]["digest"], json!(sha256_of(&fixture("tagged-v2"))));
    assert_eq!(status["tasks"][0]["version"], json!("2.0.0"));

    // The swap endpoint: to 1.0.0 and the status says so.
    let (code, report) = api
        .send(
            "PUT",
            &format!("/connectors/{name}/version"),
            &json!({"version": "1.0.0"}),
        )
        .await;
    assert_eq!(code, 200, "{report}");
    assert_eq!(
        (
            report["outcome"].clone(),
            report["from_version"].clone(),
            report["to_version"].clone()
        ),
        (json!("SWAPPED"), json!("2.0.0"), json!("1.0.0"))
    );
    assert!(report["pause_ms"].as_f64().unwrap() > 0.0);
    let (_, status) = api.get(&format!("/connectors/{name}/status")).await;
    assert_eq!(status["connector"]["version"], json!("1.0.0"));
    assert_eq!(status["last_swap"]["outcome"], json!("SWAPPED"));
    let (_, cfg) = api.get(&format!("/connectors/{name}/config")).await;
    assert_eq!(cfg["connector.plugin.version"], json!("1.0.0"));
    let (code, body) = api
        .send(
            "PUT",
            &format!("/connectors/{name}/version"),
            &json!({"version": "8.0.0"}),
        )
        .await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(
        api.send("PUT", "/connectors/nobody/version", &json!({"version": "1.0.0"}))
            .await
            .0,
        404
    );
    assert_eq!(
        api.call("PUT", &format!("/connectors/{name}/version"), Some("{"))
            .await
            .0,
        400
    );

    // Deleting: not a version in use, not a plugin.path file; then gone.
    let (code, body) = api
        .call("DELETE", "/connector-plugins/tagged/versions/1.0.0", None)
        .await;
    assert_eq!(code, 409, "{body}");
    assert!(body["message"].as_str().unwrap().contains(&name), "{body}");
    let (_, dg) = api.get("/connector-plugins/datagen/versions").await;
    let dg_version = dg[0]["version"].as_str().unwrap().to_owned();
    let (code, body) = api
        .call(
            "DELETE",
            &format!("/connector-plugins/datagen/versions/{dg_version}"),
            None,
        )
        .await;
    assert_eq!(code, 409, "{body}");
    assert!(body["message"].as_str().unwrap().contains("plugin.path"), "{body}");
    assert_eq!(
        api.call("DELETE", "/connector-plugins/tagged/versions/2.0.0", None)
            .await
            .0,
        204
    );
    assert_eq!(
        api.call("DELETE", "/connector-plugins/tagged/versions/2.0.0", None)
            .await
            .0,
        404
    );
    let (_, versions) = api.get("/connector-plugins/tagged/versions").await;
    assert_eq!(versions.as_array().unwrap().len(), 1);
    assert_eq!(api.call("DELETE", &format!("/connectors/{name}"), None).await.0, 204);
    worker.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn active_topics_are_tracked_reset_and_can_be_turned_off() {
    let (worker, api) = start().await;
    let topic = unique("active");
    create_topic(&topic, 1).await;
    let name = unique("active-src");
    assert_eq!(api.send("POST", "/connectors", &datagen(&name, &topic)).await.0, 201);
    let path = format!("/connectors/{name}/topics");
    api.until("the source's topic is active", &path, |b| {
        b[&name]["topics"] == json!([topic])
    })
    .await;
    assert_eq!(api.call("PUT", &format!("{path}/reset"), None).await.0, 202);
    // Right after the reset the set may be empty or already refilled by the
    // running task; it ends up holding the topic again.
    api.until("the topic is active again after the reset", &path, |b| {
        b[&name]["topics"] == json!([topic])
    })
    .await;

    let out = tempfile::tempdir().unwrap();
    let sink = unique("active-sink");
    let body = json!({"name": sink, "config": {"connector.class": "file-sink", "topics": topic,
        "directory": out.path().to_str().unwrap(), "grants.fs.write": out.path().to_str().unwrap()}});
    let (code, created) = api.send("POST", "/connectors", &body).await;
    assert_eq!(code, 201, "{created}");
    api.until(
        "the sink's topic is active",
        &format!("/connectors/{sink}/topics"),
        |b| b[&sink]["topics"] == json!([topic]),
    )
    .await;
    assert_eq!(api.get("/connectors/nobody/topics").await.0, 404);
    assert_eq!(api.call("PUT", "/connectors/nobody/topics/reset", None).await.0, 404);
    worker.shutdown();

    init_logging();
    let off = worker_config_with(&unique("offsets"), &[("topic.tracking.enable", "false")]);
    let worker = Worker::start(off).await.unwrap();
    let api = serve(worker.clone(), None).await;
    let name = unique("untracked");
    assert_eq!(api.send("POST", "/connectors", &datagen(&name, &topic)).await.0, 201);
    let (code, body) = api.get(&format!("/connectors/{name}/topics")).await;
    assert_eq!(
        (code, body),
        (
            403,
            json!({"error_code": 403, "message": "Topic tracking is disabled."})
        )
    );
    worker.shutdown();
}

/// Every file under `dir`, as text.
fn files_under(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

/// A secret from a properties file (`config.providers`, Kafka Connect's
/// FileConfigProvider) reaches the connector's task (InsertField writes it
/// into every record) and nowhere else: not the REST answers, not the
/// stored state, not the task configs; rewriting the file and restarting
/// the task puts the new value in the records.
#[tokio::test(flavor = "multi_thread")]
async fn a_config_provider_secret_reaches_the_task_and_nothing_else() {
    init_logging();
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("db.properties");
    std::fs::write(&file, "password=S3cret-Value-1\n").unwrap();
    let cfg = worker_config_with(
        &unique("offsets"),
        &[
            ("config.providers", "file"),
            (
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider",
            ),
            (
                "config.providers.file.param.allowed.paths",
                secrets.path().to_str().unwrap(),
            ),
        ],
    );
    let worker = copycat_runtime::Worker::start(cfg).await.unwrap();
    let state_dir = tempfile::tempdir().unwrap();
    worker.persist_to(StateStore::new(state_dir.path()));
    let api = serve(worker.clone(), None).await;
    let topic = unique("secret-out");
    create_topic(&topic, 1).await;
    let reference = format!("${{file:{}:password}}", file.display());
    let (code, body) = api
        .send(
            "PUT",
            "/connectors/with-secret/config",
            &json!({
                "connector.class": "datagen", "topic": topic, "streams": "1", "rate": "100",
                "record.mode": "typed",
                "key.converter": "org.apache.kafka.connect.storage.StringConverter",
                "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                "transforms": "insert",
                "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
                "transforms.insert.static.field": "pw",
                "transforms.insert.static.value": reference,
            }),
        )
        .await;
    assert!(code == 201 || code == 200, "{code} {body}");
    let pw_of_last = |topic: String| async move {
        tokio::task::spawn_blocking(move || {
            read_messages(&topic, |m| {
                use rdkafka::Message;
                m.payload()
                    .and_then(|v| serde_json::from_slice::<Value>(v).ok())
                    .and_then(|v| v["payload"]["pw"].as_str().map(str::to_owned))
            })
            .into_iter()
            .flatten()
            .last()
        })
        .await
        .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while pw_of_last(topic.clone()).await.as_deref() != Some("S3cret-Value-1") {
        assert!(Instant::now() < deadline, "the task never wrote the secret");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Nowhere else.
    for path in [
        "/connectors?expand=info&expand=status",
        "/connectors/with-secret",
        "/connectors/with-secret/config",
        "/connectors/with-secret/tasks",
        "/connectors/with-secret/status",
        "/connectors/with-secret/tasks/0/status",
        "/connectors/with-secret/offsets",
    ] {
        let (code, body) = api.get(path).await;
        let text = body.to_string();
        assert!(!text.contains("S3cret"), "GET {path} ({code}) shows the secret: {text}");
    }
    let (_, config) = api.get("/connectors/with-secret/config").await;
    assert_eq!(
        config["transforms.insert.static.value"],
        json!(reference),
        "the reference is kept"
    );
    let stored = files_under(state_dir.path());
    assert!(!stored.is_empty(), "the state is stored");
    for (path, text) in &stored {
        assert!(!text.contains("S3cret"), "{} holds the secret", path.display());
    }
    // Rotate: the restarted task reads the file again.
    std::fs::write(&file, "password=S3cret-Value-2\n").unwrap();
    let (code, body) = api.call("POST", "/connectors/with-secret/tasks/0/restart", None).await;
    assert!(code < 300, "{code} {body}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while pw_of_last(topic.clone()).await.as_deref() != Some("S3cret-Value-2") {
        assert!(
            Instant::now() < deadline,
            "the restarted task did not read the new secret"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A reference that cannot be resolved is refused naming it, not a value.
    let (code, body) = api
        .send(
            "PUT",
            "/connectors/bad-secret/config",
            &json!({"connector.class": "datagen", "topic": topic,
                    "password": format!("${{file:{}:nokey}}", file.display())}),
        )
        .await;
    assert_eq!(code, 400, "{body}");
    let text = body.to_string();
    assert!(text.contains("nokey") && !text.contains("S3cret"), "{text}");
    worker.shutdown();
}

/// As Kafka Connect, the value of a key the plugin declares PASSWORD is
/// `[hidden]` in every REST answer that shows a config.
#[tokio::test(flavor = "multi_thread")]
async fn password_keys_are_hidden_in_every_answer() {
    let (worker, api) = start().await;
    let topic = unique("hidden");
    create_topic(&topic, 1).await;
    let plugin = fixture("typed-source");
    let name = unique("with-password");
    let (code, body) = api
        .send(
            "PUT",
            &format!("/connectors/{name}/config"),
            &json!({"connector.class": plugin.to_str().unwrap(), "topic": topic, "count": "10",
                    "secret": "Plain-Text-Password", "sasl.password": "Other-Password",
                    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                    "key.converter": "org.apache.kafka.connect.storage.StringConverter"}),
        )
        .await;
    assert!(code == 201 || code == 200, "{code} {body}");
    for path in [
        format!("/connectors/{name}"),
        format!("/connectors/{name}/config"),
        format!("/connectors/{name}/tasks"),
        "/connectors?expand=info".to_owned(),
    ] {
        let (code, body) = api.get(&path).await;
        let text = body.to_string();
        assert_eq!(code, 200, "{path}: {text}");
        assert!(!text.contains("Password"), "GET {path} shows a password: {text}");
    }
    let (_, config) = api.get(&format!("/connectors/{name}/config")).await;
    assert_eq!(config["secret"], json!("[hidden]"));
    assert_eq!(config["sasl.password"], json!("[hidden]"));
    worker.shutdown();
}
