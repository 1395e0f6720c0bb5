//! Embedded mode: the runnable example (`runtime/examples/embedded.rs`)
//! starts a worker inside its own process, adds a connector from code,
//! serves the REST API and shuts down cleanly; its records are in Kafka.

use std::process::Command;

use copycat_tests::*;

#[test]
fn the_embedded_example_runs_a_connector_from_code() {
    let exe = copycat_bin().with_file_name("examples").join("embedded");
    assert!(
        exe.is_file(),
        "{} is missing: `cargo test` builds the examples",
        exe.display()
    );
    let out = Command::new(&exe)
        .env("KAFKA_BOOTSTRAP", bootstrap())
        .env("COPYCAT_PLUGIN_DIR", plugin_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("REST API on http://127.0.0.1:"), "{stdout}");
    assert!(stdout.contains("stopped cleanly"), "{stdout}");
    let topic = stdout
        .lines()
        .find_map(|l| l.strip_prefix("1000 records delivered to Kafka topic "))
        .unwrap_or_else(|| panic!("no delivery line in:\n{stdout}"));
    assert_eq!(topic_size(topic.trim()), 1000, "every record in {topic}, once");
}
