//! The connector config definitions of `GET /connector-plugins/{p}/config`
//! and `PUT .../config/validate` against Kafka Connect 4.4's own answers
//! (tests/golden/kafka-connect/config-defs.json, made by
//! scripts/golden/kafka-connect-config-defs.sh from its jars): every
//! framework key Kafka Connect lists for FileStreamSource and FileStreamSink
//! is listed by Copycat for its `file-source` and `file-sink` with the same
//! type, default, group, order, importance, width, label and documentation
//! (Copycat may append a "Copycat: ..." note), validation reports errors
//! under the same keys and lists the same transform and predicate groups,
//! and the plugin endpoints resolve Kafka Connect's class names and aliases.
//! The intended differences are the allow-lists below.

use std::collections::BTreeSet;

use copycat_tests::*;
use serde_json::{Value, json};

use crate::rest::{Api, serve};

/// Kafka Connect's answers.
fn golden() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/golden/kafka-connect/config-defs.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Keys whose default differs on purpose: `connector.plugin.version`'s is
/// the plugin's own version (Kafka Connect's FileStream connectors are
/// 4.4.0; Copycat's file-source and file-sink have their own); in
/// validation Kafka Connect gives the converters' `.plugin.version` keys
/// the converter's version as default, while Copycat's converters are
/// built in and have none (the keys are refused).
const DEFAULT_DIFFERS: &[&str] = &[
    "connector.plugin.version",
    "key.converter.plugin.version",
    "value.converter.plugin.version",
    "header.converter.plugin.version",
];

/// Keys of Kafka Connect's transform and predicate groups that Copycat
/// does not list: `transforms.<alias>.plugin.version` and
/// `predicates.<alias>.plugin.version` choose a version of a Java plugin;
/// Copycat's built-in transforms and predicates have one version (only
/// its transform components, `type=wasm`, take a `plugin.version`).
fn not_listed(key: &str) -> bool {
    (key.starts_with("transforms.") || key.starts_with("predicates.")) && key.ends_with(".plugin.version")
}

/// The fields of a ConfigKeyInfo compared as they are.
const SAME: &[&str] = &[
    "type",
    "required",
    "importance",
    "group",
    "order_in_group",
    "width",
    "display_name",
];

/// A worker with the golden's worker converters (JsonConverter for keys
/// and values), serving the API.
async fn start() -> Api {
    let json = "org.apache.kafka.connect.json.JsonConverter";
    let config = worker_config_with(
        &unique("offsets"),
        &[("key.converter", json), ("value.converter", json)],
    );
    let worker = copycat_runtime::Worker::start(config).await.unwrap();
    serve(worker, None).await
}

/// Copycat's plugin for Kafka Connect's.
fn copycat_plugin(kafka_connect: &str) -> &'static str {
    match kafka_connect {
        "FileStreamSource" => "file-source",
        "FileStreamSink" => "file-sink",
        other => panic!("no Copycat counterpart for {other}"),
    }
}

/// Compare one Kafka Connect ConfigKeyInfo with Copycat's of the same key.
fn compare_key(what: &str, kc: &Value, cc: &Value) {
    let name = kc["name"].as_str().unwrap();
    for field in SAME {
        assert_eq!(
            cc[field], kc[field],
            "{what}: {name}'s {field}: Copycat {cc}, Kafka Connect {kc}"
        );
    }
    if !DEFAULT_DIFFERS.contains(&name) {
        assert_eq!(cc["default_value"], kc["default_value"], "{what}: {name}'s default");
    }
    let (cc_doc, kc_doc) = (
        cc["documentation"].as_str().unwrap(),
        kc["documentation"].as_str().unwrap(),
    );
    assert!(
        cc_doc == kc_doc || cc_doc.starts_with(&format!("{kc_doc} Copycat: ")),
        "{what}: {name}'s documentation: Copycat {cc_doc:?}, Kafka Connect {kc_doc:?}"
    );
}

fn by_name<'a>(keys: &'a Value, name: &str) -> Option<&'a Value> {
    keys.as_array().unwrap().iter().find(|k| k["name"] == json!(name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn framework_keys_match_kafka_connect() {
    let api = start().await;
    let golden = golden();
    for plugin in ["FileStreamSource", "FileStreamSink"] {
        let kc = &golden["config"][plugin];
        let (code, cc) = api.get(&format!("/connector-plugins/{plugin}/config")).await;
        assert_eq!(code, 200, "{cc}");
        let (_, by_copycat_name) = api
            .get(&format!("/connector-plugins/{}/config", copycat_plugin(plugin)))
            .await;
        assert_eq!(cc, by_copycat_name, "the alias answers as the plugin's own name");
        // Every framework key Kafka Connect lists (its connector's own keys
        // have no group), in Kafka Connect's order.
        let framework: Vec<&Value> = kc
            .as_array()
            .unwrap()
            .iter()
            .filter(|k| !k["group"].is_null())
            .collect();
        assert!(framework.len() >= 24, "{plugin}: {}", framework.len());
        let mut last = None;
        for k in &framework {
            let name = k["name"].as_str().unwrap();
            let cc_key = by_name(&cc, name).unwrap_or_else(|| panic!("{plugin}: Copycat does not list {name}"));
            compare_key(plugin, k, cc_key);
            let at = cc.as_array().unwrap().iter().position(|c| c == cc_key);
            assert!(at > last, "{plugin}: {name} is out of Kafka Connect's order");
            last = at;
        }
        // Copycat's own keys are in groups of their own.
        let kc_names: BTreeSet<&str> = kc
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["name"].as_str().unwrap())
            .collect();
        let kc_groups: BTreeSet<&str> = framework.iter().map(|k| k["group"].as_str().unwrap()).collect();
        for k in cc.as_array().unwrap() {
            let name = k["name"].as_str().unwrap();
            match k["group"].as_str() {
                Some(g) if !kc_groups.contains(g) => {
                    assert!(g.starts_with("Copycat "), "{plugin}: {name} in {g}");
                    assert!(!k["documentation"].as_str().unwrap().is_empty(), "{plugin}: {name}");
                }
                Some(_) => assert!(kc_names.contains(name), "{plugin}: {name} is not Kafka Connect's"),
                None => {}
            }
        }
        for key in [
            "grants.fs.read",
            "task.memory.max.bytes",
            "task.restart.max.attempts",
            "poll.max.records",
        ] {
            assert!(by_name(&cc, key).is_some(), "{plugin}: {key}");
        }
    }
}

/// The entry of `key` in a ConfigInfos.
fn entry<'a>(infos: &'a Value, key: &str) -> Option<&'a Value> {
    infos["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["definition"]["name"] == json!(key))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_matches_kafka_connect() {
    let api = start().await;
    let golden = golden();
    let mut compared = 0;
    for case in golden["validate"].as_array().unwrap() {
        let plugin = case["plugin"].as_str().unwrap();
        let kc = &case["answer"];
        let path = format!("/connector-plugins/{plugin}/config/validate");
        let (code, cc) = api.send("PUT", &path, &case["config"]).await;
        if kc.get("error").is_some() {
            // Refused: a connector.class of another plugin is a 400 in
            // both; an unknown plugin is Copycat's 404 (Kafka Connect
            // answers 400 from its class lookup).
            let expected = if plugin == "NoSuchConnector" { 404 } else { 400 };
            assert_eq!(code, expected, "{case}: {cc}");
            assert_eq!(cc["error_code"], json!(expected), "{cc}");
            continue;
        }
        assert_eq!(code, 200, "{case}: {cc}");
        compared += 1;
        assert_eq!(cc["name"], kc["name"], "{case}");
        // Kafka Connect's groups, in its order, all in Copycat's.
        let cc_groups: Vec<&str> = cc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        let positions: Vec<usize> = kc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                cc_groups
                    .iter()
                    .position(|c| json!(c) == *g)
                    .unwrap_or_else(|| panic!("{case}: group {g} missing from {cc_groups:?}"))
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{case}: {cc_groups:?}");
        for kc_entry in kc["configs"].as_array().unwrap() {
            let def = &kc_entry["definition"];
            let name = def["name"].as_str().unwrap();
            if def["group"].is_null() || not_listed(name) {
                // The connector's own keys differ (Copycat's file
                // connectors are not Kafka Connect's).
                continue;
            }
            let cc_entry = entry(&cc, name).unwrap_or_else(|| panic!("{case}: Copycat does not list {name}"));
            compare_key(plugin, def, &cc_entry["definition"]);
            let kc_errors = kc_entry["value"]["errors"].as_array().unwrap();
            let cc_errors = cc_entry["value"]["errors"].as_array().unwrap();
            assert_eq!(
                kc_errors.is_empty(),
                cc_errors.is_empty(),
                "{case}: errors of {name}: Copycat {cc_errors:?}, Kafka Connect {kc_errors:?}"
            );
        }
    }
    assert!(compared >= 6, "{compared}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugin_endpoints_resolve_class_names_and_list_converters() {
    let api = start().await;
    for alias in [
        "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "FileStreamSource",
        "FileStreamSourceConnector",
        "file-source",
    ] {
        let (code, keys) = api.get(&format!("/connector-plugins/{alias}/config")).await;
        assert_eq!(code, 200, "{alias}: {keys}");
        assert!(
            by_name(&keys, "exactly.once.support").is_some(),
            "{alias}: a source's keys"
        );
        let (code, versions) = api.get(&format!("/connector-plugins/{alias}/versions")).await;
        assert_eq!(code, 200, "{alias}: {versions}");
        let (code, body) = api
            .send(
                "PUT",
                &format!("/connector-plugins/{alias}/config/validate"),
                &json!({"connector.class": alias, "topic": "t", "tasks.max": "0"}),
            )
            .await;
        assert_eq!(code, 200, "{alias}: {body}");
        assert_eq!(body["name"], json!(alias));
        let tasks_max = entry(&body, "tasks.max").unwrap();
        assert_eq!(tasks_max["value"]["errors"].as_array().unwrap().len(), 1, "{body}");
        assert_eq!(tasks_max["definition"]["group"], json!("Common"));
    }
    let (code, sink) = api.get("/connector-plugins/FileStreamSinkConnector/config").await;
    assert_eq!(code, 200, "{sink}");
    assert!(by_name(&sink, "errors.deadletterqueue.topic.name").is_some(), "{sink}");
    assert!(by_name(&sink, "exactly.once.support").is_none(), "{sink}");
    let (code, body) = api.get("/connector-plugins/com.example.NoSuchConnector/config").await;
    assert_eq!((code, body["error_code"].clone()), (404, json!(404)), "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("com.example.NoSuchConnector"),
        "{body}"
    );

    // connectorsOnly=false: every plugin type Kafka Connect lists, and
    // every converter class of Kafka Connect's own.
    let (code, all) = api.get("/connector-plugins?connectorsOnly=false").await;
    assert_eq!(code, 200, "{all}");
    let listed = |plugins: &Value, t: &str| -> BTreeSet<String> {
        plugins
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["type"] == json!(t))
            .map(|p| p["class"].as_str().unwrap().to_owned())
            .collect()
    };
    let golden = golden();
    let types: BTreeSet<&str> = golden["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        BTreeSet::from([
            "converter",
            "header_converter",
            "predicate",
            "sink",
            "source",
            "transformation"
        ])
    );
    for t in types {
        let kc = listed(&golden["plugins"], t);
        let cc = listed(&all, t);
        if matches!(t, "converter" | "header_converter" | "predicate" | "transformation") {
            assert!(
                kc.is_subset(&cc),
                "{t}: Kafka Connect's {kc:?} not all in Copycat's {cc:?}"
            );
        } else {
            assert!(!cc.is_empty(), "{t}");
        }
    }
    let (_, only) = api.get("/connector-plugins").await;
    assert!(listed(&only, "converter").is_empty(), "{only}");
}
