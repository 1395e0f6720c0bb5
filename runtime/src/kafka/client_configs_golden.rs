//! Copycat's task clients against Kafka Connect 4.4's own code: the cases of
//! tests/golden/kafka-connect/client-configs.cases.json read by Copycat
//! (its worker and connector configs, its client configs) and compared
//! with what Kafka Connect gives for them (client-configs.json, generated
//! by scripts/golden/kafka-connect-client-configs.sh from Kafka Connect's
//! jars).
//!
//! Compared, for each case, as a source and as a sink connector:
//! - refusals: Kafka Connect's policy refuses an override key exactly when
//!   Copycat refuses the connector config naming that key (and no other);
//! - each task client (source: producer, exactly-once producer, admin; sink:
//!   consumer, admin): refused by both, or given the same settings by both.
//!   The settings compared are the security keys (`security.protocol`,
//!   `ssl.*`, `sasl.*`), `bootstrap.servers` and the other client keys the
//!   case sets; Kafka Connect's are passed through Copycat's
//!   [`security::translate`] first, so both are in librdkafka's names.
//!   `max.poll.records` is Copycat's records per `put`
//!   ([`ConnectorConfig::batch_max_records`]), not a librdkafka setting.
//!
//! The cases file's `expected_differences` lists where Copycat deliberately
//! differs; any other difference fails, and so does a listed one that is
//! gone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use serde_json::Value;

use super::{connector_admin_config, producer_config, sink_consumer_config};
use crate::config::{ConfigError, ConnectorConfig, MAX_POLL_RECORDS, OVERRIDE_POLICY, Props, WorkerConfig, security};

const CASES: &str = include_str!("../../../tests/golden/kafka-connect/client-configs.cases.json");
const GOLDEN: &str = include_str!("../../../tests/golden/kafka-connect/client-configs.json");

struct Case {
    name: String,
    worker: Props,
    connector: Props,
}

fn props(v: &Value) -> Props {
    match v {
        Value::Null => Props::new(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("string values").to_owned()))
            .collect(),
        other => panic!("not an object of strings: {other}"),
    }
}

/// The cases as KafkaConnectClientConfigs.java expands them.
fn cases(spec: &Value) -> Vec<Case> {
    let base = props(&spec["worker_base"]);
    let mut out = Vec::new();
    for c in spec["cases"].as_array().expect("cases") {
        let policies: Vec<Option<&str>> = match c["policies"].as_array() {
            Some(ps) => ps.iter().map(|p| p.as_str()).collect(),
            None => vec![None],
        };
        for policy in policies {
            let mut worker = base.clone();
            worker.extend(props(&c["worker"]));
            let mut name = c["name"].as_str().expect("name").to_owned();
            if let Some(p) = policy {
                name = format!("{name}/policy={p}");
                if p != "(default)" {
                    worker.insert(OVERRIDE_POLICY.into(), p.into());
                }
            }
            out.push(Case {
                name,
                worker,
                connector: props(&c["connector"]),
            });
        }
    }
    out
}

/// The client keys a case sets other than the security keys, without their
/// prefixes (`producer.override.linger.ms` -> `linger.ms`).
fn case_keys(case: &Case, worker_base: &Props) -> BTreeSet<String> {
    const PREFIXES: [&str; 6] = [
        "producer.override.",
        "consumer.override.",
        "admin.override.",
        "producer.",
        "consumer.",
        "admin.",
    ];
    case.worker
        .keys()
        .filter(|k| !worker_base.contains_key(*k) && k.as_str() != OVERRIDE_POLICY)
        .chain(case.connector.keys())
        .map(|k| PREFIXES.iter().find_map(|p| k.strip_prefix(p)).unwrap_or(k).to_owned())
        .filter(|k| !security::is_security_key(k))
        .collect()
}

fn compared(key: &str, keys: &BTreeSet<String>) -> bool {
    security::is_security_key(key) || key == "bootstrap.servers" || keys.contains(key)
}

/// Kafka Connect's settings of one client, the compared keys only, in
/// librdkafka's names.
fn kafka_connect_settings(settings: &Value, keys: &BTreeSet<String>) -> Props {
    let java: Props = props(settings).into_iter().filter(|(k, _)| compared(k, keys)).collect();
    let t = security::translate("", &java);
    assert!(t.problems.is_empty(), "Kafka Connect's {java:?}: {:?}", t.problems);
    t.settings
}

/// Copycat's settings of one task client, the compared keys only.
fn copycat_settings(client: &str, worker: &WorkerConfig, c: &ConnectorConfig, keys: &BTreeSet<String>) -> Props {
    // The task adds client.id and, exactly-once, transactional.id and
    // transaction.timeout.ms (task/source): none of them compared.
    let cfg = match client {
        "producer" | "producer_exactly_once" => producer_config(worker, &c.producer_overrides),
        "consumer" => sink_consumer_config(worker, &c.consumer_overrides, "connect-golden", "golden"),
        "admin" => connector_admin_config(worker, &c.admin_overrides),
        other => panic!("unknown client {other}"),
    };
    // config_map() hides secrets' values: get() has them.
    let mut settings: Props = cfg
        .config_map()
        .into_keys()
        .filter(|k| compared(k, keys))
        .filter_map(|k| Some((k.to_owned(), cfg.get(k)?.to_owned())))
        .collect();
    if client == "consumer" && keys.contains(MAX_POLL_RECORDS) {
        settings.insert(MAX_POLL_RECORDS.into(), c.batch_max_records.to_string());
    }
    settings
}

#[test]
fn task_clients_get_what_kafka_connect_gives_them() {
    let spec: Value = serde_json::from_str(CASES).unwrap();
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    let worker_base = props(&spec["worker_base"]);
    let cases = cases(&spec);
    let golden_cases = golden["cases"].as_array().unwrap();
    let names = |v: &[Value]| {
        v.iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        cases.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        names(golden_cases),
        "client-configs.json is not for these cases: run `just golden`"
    );
    assert_eq!(
        golden["default_policy"], "All",
        "Kafka Connect's default policy (Copycat's too)"
    );

    let mut failures = Vec::new();
    // (case, kind, client) -> what differs.
    let mut differences = std::collections::BTreeMap::new();
    for (case, g) in cases.iter().zip(golden_cases) {
        assert_eq!(props(&g["worker"]), case.worker, "{}: run `just golden`", case.name);
        assert_eq!(
            props(&g["connector"]),
            case.connector,
            "{}: run `just golden`",
            case.name
        );
        let worker = WorkerConfig::from_props(case.worker.clone())
            .unwrap_or_else(|e| panic!("{}: Copycat refuses the worker config: {e}", case.name));
        let keys = case_keys(case, &worker_base);
        for kind in ["source", "sink"] {
            let what = format!("{} ({kind})", case.name);
            let g = &g[kind];
            let mut conn = props(&spec["connector_base"][kind]);
            conn.extend(case.connector.clone());
            let copycat = ConnectorConfig::from_props(conn, &worker);

            // Refusals: the keys Kafka Connect's policy refuses, named.
            let refused: BTreeSet<String> = g["policy_refuses"].as_object().unwrap().keys().cloned().collect();
            match &copycat {
                Ok(_) if refused.is_empty() => {}
                Ok(_) => failures.push(format!("{what}: Kafka Connect refuses {refused:?}, Copycat accepts")),
                Err(e @ ConfigError::Invalid { problems, .. }) => {
                    let named: BTreeSet<String> = problems.iter().map(|(k, _)| k.clone()).collect();
                    let message = e.to_string();
                    if named != refused || refused.iter().any(|k| !message.contains(k.as_str())) {
                        failures.push(format!(
                            "{what}: Kafka Connect's policy refuses {refused:?}; Copycat: {message}"
                        ));
                    }
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }

            // Each task client: refused by both, or the same settings.
            for (client, java) in g.as_object().unwrap() {
                if client == "policy_refuses" {
                    continue;
                }
                let theirs = match (&java["settings"], &java["refused"]) {
                    (s @ Value::Object(_), _) => Ok(kafka_connect_settings(s, &keys)),
                    (_, r @ Value::Object(_)) => Err(r["message"].as_str().unwrap_or_default().to_owned()),
                    _ => panic!("{what}: {client}: neither settings nor refused"),
                };
                let ours = match &copycat {
                    Ok(c) => Ok(copycat_settings(client, &worker, c, &keys)),
                    Err(e) => Err(e.to_string()),
                };
                let differs = match (&theirs, &ours) {
                    (Err(_), Err(_)) => None,
                    (Ok(a), Ok(b)) if a == b => None,
                    _ => Some(format!("Kafka Connect: {theirs:?}\n    Copycat: {ours:?}")),
                };
                if let Some(d) = differs {
                    differences.insert((case.name.clone(), kind.to_owned(), client.clone()), d);
                }
            }
        }
    }

    // The differences Copycat means to have.
    let mut expected = BTreeSet::new();
    for d in spec["expected_differences"].as_array().unwrap() {
        assert!(
            d["why"].as_str().is_some_and(|w| !w.is_empty()),
            "an expected difference needs its why: {d}"
        );
        for case in d["cases"].as_array().unwrap() {
            for kind in d["kinds"].as_array().unwrap() {
                for client in d["clients"].as_array().unwrap() {
                    let key = (
                        case.as_str().unwrap().to_owned(),
                        kind.as_str().unwrap().to_owned(),
                        client.as_str().unwrap().to_owned(),
                    );
                    if !differences.contains_key(&key) {
                        failures.push(format!("listed as an expected difference, but none: {key:?}"));
                    }
                    expected.insert(key);
                }
            }
        }
    }
    for (key, d) in &differences {
        if !expected.contains(key) {
            failures.push(format!("{key:?}:\n    {d}"));
        }
    }
    assert!(
        failures.is_empty(),
        "Copycat differs from Kafka Connect 4.4 (tests/golden/kafka-connect/client-configs.json):\n{}",
        failures.join("\n")
    );
}
