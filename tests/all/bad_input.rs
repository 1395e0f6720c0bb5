//! Bad input is refused with an error naming the problem; nothing crashes
//! and the worker keeps working.

use copycat_runtime::ConnectorConfig;
use copycat_tests::*;

fn start_err(worker: &copycat_runtime::Worker, pairs: &[(&str, &str)]) -> String {
    let cfg = connector(worker, pairs);
    match worker.start_connector(cfg) {
        Ok(()) => panic!("{pairs:?} should be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_configs_and_components_are_refused_with_clear_errors() {
    let worker = start_worker(&unique("offsets"));
    let dir = tempfile::tempdir().unwrap();

    // A host-level required key is missing.
    let err = ConnectorConfig::from_props(props(&[("name", "x")]), worker.config())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("connector.class") && err.contains("missing required"),
        "{err}"
    );

    // A key the plugin requires is missing, another has the wrong type.
    let err = start_err(
        &worker,
        &[("name", "dg"), ("connector.class", "datagen"), ("streams", "many")],
    );
    assert!(err.contains("topic: missing required"), "{err}");
    assert!(err.contains("streams: invalid value 'many'"), "{err}");
    assert!(err.contains("connector 'dg'"), "{err}");

    // A sink without topics.
    let err = start_err(
        &worker,
        &[
            ("name", "fs"),
            ("connector.class", "file-sink"),
            ("directory", "/tmp/x"),
        ],
    );
    assert!(err.contains("topics"), "{err}");

    // An unknown connector.class.
    let err = start_err(
        &worker,
        &[("name", "u"), ("connector.class", "no-such-plugin"), ("topic", "t")],
    );
    assert!(
        err.contains("connector.class 'no-such-plugin'") && err.contains("plugin.path"),
        "{err}"
    );

    // A file that is not a component: text, and a core module.
    let text = dir.path().join("notes.wasm");
    std::fs::write(&text, "this is not wasm").unwrap();
    let err = start_err(
        &worker,
        &[
            ("name", "t"),
            ("connector.class", text.to_str().unwrap()),
            ("topic", "t"),
        ],
    );
    assert!(
        err.contains("notes.wasm") && err.contains("not a WebAssembly component"),
        "{err}"
    );
    let core = dir.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let err = start_err(
        &worker,
        &[
            ("name", "c"),
            ("connector.class", core.to_str().unwrap()),
            ("topic", "t"),
        ],
    );
    assert!(
        err.contains("core.wasm") && err.contains("core WebAssembly module"),
        "{err}"
    );

    // A component implementing another world (a wasi:cli command).
    let wrong = fixture("wrong-world");
    let err = start_err(
        &worker,
        &[
            ("name", "w"),
            ("connector.class", wrong.to_str().unwrap()),
            ("topic", "t"),
        ],
    );
    assert!(
        err.contains("does not implement the copycat:connector source or sink world"),
        "{err}"
    );
    assert!(err.contains("wasi:cli/run"), "names what it exports instead: {err}");

    // A connector that refuses its config through the WIT error variant.
    let bad_config = fixture("bad-config");
    let err = start_err(
        &worker,
        &[
            ("name", "bc"),
            ("connector.class", bad_config.to_str().unwrap()),
            ("topic", "t"),
        ],
    );
    assert!(
        err.contains(
            "connector 'bc' failed in task-configs: configuration error reported by the connector: fixture bad-config"
        ),
        "{err}"
    );

    // Nothing crashed: the worker still runs a good connector.
    let topic = unique("after-bad-input");
    let name = unique("ok");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "10"),
            ],
        ))
        .unwrap();
    eventually(
        "the good connector delivers",
        std::time::Duration::from_secs(60),
        || (topic_size(&topic) == 10).then_some(()),
    );
    assert!(worker.connectors().contains(&name));
    assert_eq!(worker.connectors().len(), 1, "refused connectors are not registered");
    worker.shutdown();
}

/// Kafka Connect's framework keys are checked at create, not passed to the
/// connector as if honoured: its defaults pass, a config provider Copycat
/// does not have is refused naming the key.
#[test]
fn kafka_connect_framework_keys_are_checked_naming_the_key() {
    let worker = worker_config(&unique("offsets"));
    let base = [("name", "c"), ("connector.class", "datagen"), ("topic", "t")];
    let with = |extra: &[(&str, &str)]| {
        let mut pairs = base.to_vec();
        pairs.extend_from_slice(extra);
        copycat_runtime::ConnectorConfig::from_props(props(&pairs), &worker).map_err(|e| e.to_string())
    };
    assert!(with(&[("errors.tolerance", "none"), ("errors.log.enable", "false")]).is_ok());
    // Kafka Connect 4.4's connector keys (docs/operators.md lists them):
    // each either works or is refused naming the key.
    let supported: &[(&str, &str)] = &[
        ("tasks.max", "2"),
        ("tasks.max.enforce", "true"),
        ("connector.plugin.version", "0.1.0"),
        ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
        (
            "header.converter",
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        ),
        ("config.action.reload", "restart"),
        ("transforms", ""),
        ("predicates", ""),
        ("errors.retry.timeout", "1000"),
        ("errors.retry.delay.max.ms", "500"),
        ("errors.tolerance", "all"),
        ("errors.log.enable", "true"),
        ("errors.log.include.messages", "true"),
        ("exactly.once.support", "requested"),
        ("transaction.boundary", "poll"),
        ("transaction.boundary.interval.ms", "1000"),
        ("topic.creation.default.replication.factor", "1"),
        ("producer.override.linger.ms", "5"),
        ("admin.override.request.timeout.ms", "30000"),
    ];
    for (key, value) in supported {
        let mut pairs = vec![(*key, *value)];
        if key.starts_with("topic.creation.") {
            pairs.push(("topic.creation.default.partitions", "1"));
        }
        assert!(with(&pairs).is_ok(), "{key}={value}: {:?}", with(&pairs));
    }
    let refused: &[(&str, &str)] = &[
        ("tasks.max.enforce", "false"),
        ("offsets.storage.topic", "my-offsets"),
        ("value.converter.plugin.version", "4.4.0"),
        ("config.action.reload", "later"),
    ];
    for (key, value) in refused {
        let err = with(&[(*key, *value)]).expect_err(key);
        assert!(err.contains(key), "{key}: {err}");
    }
    let err = copycat_runtime::WorkerConfig::from_props(props(&[
        ("bootstrap.servers", "127.0.0.1:9092"),
        ("config.providers", "vault"),
        ("config.providers.vault.class", "com.example.VaultConfigProvider"),
    ]))
    .map(|_| ())
    .expect_err("an unknown config provider accepted")
    .to_string();
    assert!(
        err.contains("config.providers.vault.class") && err.contains("unknown config provider class"),
        "{err}"
    );
}
