//! The `copycat standalone` command: runs connectors from properties files,
//! stops gracefully on SIGTERM (flush, commit, exit 0), and refuses bad
//! input with a message naming the file.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use copycat_runtime::kafka::offset_store::read_connector;
use copycat_tests::*;

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    eventually("copycat exits", Duration::from_secs(60), || child.try_wait().unwrap())
}

#[test]
fn standalone_runs_connectors_and_stops_gracefully_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let topic = unique("cli");
    let name = unique("cli-datagen");
    let offsets = unique("offsets");
    let worker_props = dir.path().join("worker.properties");
    std::fs::write(
        &worker_props,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={offsets}\noffset.flush.interval.ms=500\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            plugin_dir().display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let conn_props = dir.path().join("datagen.properties");
    std::fs::write(
        &conn_props,
        format!("name={name}\nconnector.class=datagen\ntasks.max=2\ntopic={topic}\nstreams=2\ncount=1000\n"),
    )
    .unwrap();

    let mut child = Command::new(copycat_bin())
        .args([
            "standalone",
            worker_props.to_str().unwrap(),
            conn_props.to_str().unwrap(),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    eventually("2000 records", Duration::from_secs(60), || {
        (topic_size(&topic) >= 2000).then_some(())
    });
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = wait_exit(&mut child);
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(exit.success(), "exit 0 after SIGTERM, got {exit:?}; stderr:\n{stderr}");
    assert!(stderr.contains("task summary"), "prints a summary:\n{stderr}");
    assert_eq!(topic_size(&topic), 2000);

    // The final offsets were committed: each stream's last sequence number.
    let cfg = worker_config(&offsets);
    let committed = read_connector(&cfg, &name).unwrap();
    // datagen's source partitions and offsets are Kafka Connect's maps.
    for stream in 0..2 {
        assert_eq!(
            committed
                .get(&format!(r#"{{"stream":"stream-{stream}"}}"#))
                .map(String::as_str),
            Some(r#"{"seq":999}"#),
            "{committed:?}"
        );
    }
}

#[test]
fn standalone_refuses_bad_input_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let worker_props = dir.path().join("worker.properties");
    std::fs::write(
        &worker_props,
        format!("bootstrap.servers={}\noffset.flush.interval.ms=soon\n", bootstrap()),
    )
    .unwrap();
    let missing = dir.path().join("missing.properties");
    let out = Command::new(copycat_bin())
        .args(["standalone", worker_props.to_str().unwrap(), missing.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("offset.flush.interval.ms") && stderr.contains("worker.properties"),
        "names the key and the file: {stderr}"
    );

    std::fs::write(&worker_props, format!("bootstrap.servers={}\n", bootstrap())).unwrap();
    let out = Command::new(copycat_bin())
        .args(["standalone", worker_props.to_str().unwrap(), missing.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("missing.properties"),
        "names the missing file: {stderr}"
    );

    // An unreachable cluster is named, not a bare timeout.
    let unreachable = dir.path().join("unreachable.properties");
    std::fs::write(
        &unreachable,
        format!(
            "bootstrap.servers=127.0.0.1:1\nplugin.path={}\n",
            plugin_dir().display()
        ),
    )
    .unwrap();
    let good_config = dir.path().join("one.properties");
    std::fs::write(&good_config, "name=one\nconnector.class=datagen\ntopic=t\n").unwrap();
    let out = Command::new(copycat_bin())
        .args([
            "standalone",
            unreachable.to_str().unwrap(),
            good_config.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot reach Kafka at bootstrap.servers=127.0.0.1:1"),
        "{stderr}"
    );

    // Every connector config is checked before any connector starts: a bad
    // second file means the first never produces.
    let topic = unique("never");
    let good = dir.path().join("good.properties");
    std::fs::write(
        &good,
        format!(
            "name={}\nconnector.class=datagen\ntopic={topic}\ncount=10\n",
            unique("good")
        ),
    )
    .unwrap();
    let bad = dir.path().join("bad.properties");
    std::fs::write(&bad, "name=bad\nconnector.class=no-such-plugin\n").unwrap();
    std::fs::write(
        &worker_props,
        format!(
            "bootstrap.servers={}\nplugin.path={}\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            plugin_dir().display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let out = Command::new(copycat_bin())
        .args([
            "standalone",
            worker_props.to_str().unwrap(),
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.properties") && stderr.contains("connector.class 'no-such-plugin'"),
        "names the file and the key: {stderr}"
    );
    assert_eq!(topic_size(&topic), 0, "the good connector never started");
}

/// A connector that panics in `validate` (writing its panic message to
/// stderr through WASI) is refused with the file and the call named; the
/// process exits 1 instead of crashing on WASI's blocking I/O inside the
/// async runtime.
#[test]
fn standalone_refuses_a_connector_that_panics_in_validate() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    std::fs::write(
        &worker,
        format!(
            "bootstrap.servers={}\noffset.storage.topic={}\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            unique("offsets"),
            dir.path().display()
        ),
    )
    .unwrap();
    let conn = dir.path().join("hostile.properties");
    std::fs::write(
        &conn,
        format!(
            "name={}\nconnector.class={}\ntopic=t\nattack=panic-validate\n",
            unique("pv"),
            fixture("hostile-source").display()
        ),
    )
    .unwrap();
    let out = Command::new(copycat_bin())
        .args(["standalone", worker.to_str().unwrap(), conn.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("hostile.properties: connector"), "{err}");
    assert!(err.contains("failed in validate"), "{err}");
    assert!(err.contains("deliberate panic in validate"), "{err}");
    assert!(!err.contains("Cannot start a runtime"), "{err}");
}

/// The `copycat` binary compiles components in a child process bounded by
/// `plugin.compile.timeout.ms`: a compilation over it is killed and the
/// connector refused naming the key. And a connector whose `validate`
/// blocks in the host, given on the command line, no longer keeps the
/// worker from starting or exiting: it is refused at its call deadline.
#[test]
fn standalone_bounds_compilation_and_blocking_connector_calls() {
    let dir = tempfile::tempdir().unwrap();
    let worker = |extra: &str| {
        let path = dir.path().join(format!("worker-{}.properties", unique("w")));
        std::fs::write(
            &path,
            format!(
                "bootstrap.servers={}\noffset.storage.topic={}\nlisteners=http://127.0.0.1:0\nstate.dir={}/state-{}\ncomponent.cache.dir={}/cache-{}\n{extra}\n",
                bootstrap(),
                unique("offsets"),
                dir.path().display(),
                unique("s"),
                dir.path().display(),
                unique("c"),
            ),
        )
        .unwrap();
        path
    };
    let run = |worker: &std::path::Path, conn: &std::path::Path| {
        let started = std::time::Instant::now();
        let out = Command::new(copycat_bin())
            .args(["standalone", worker.to_str().unwrap(), conn.to_str().unwrap()])
            .output()
            .unwrap();
        (out, started.elapsed())
    };

    let datagen = dir.path().join("datagen.properties");
    std::fs::write(
        &datagen,
        format!(
            "name={}\nconnector.class=datagen\ntopic={}\n",
            unique("dg"),
            unique("dg")
        ),
    )
    .unwrap();
    let slow = worker(&format!(
        "plugin.path={}\nplugin.compile.timeout.ms=1",
        std::env::var("COPYCAT_PLUGIN_DIR").unwrap()
    ));
    let (out, _) = run(&slow, &datagen);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("could not be compiled"), "{err}");
    assert!(err.contains("plugin.compile.timeout.ms"), "{err}");

    let sleeper = dir.path().join("sleeper.properties");
    std::fs::write(
        &sleeper,
        format!(
            "name={}\nconnector.class={}\ntopic=t\nattack=sleep-validate\ntask.call.timeout.ms=2000\n",
            unique("sv"),
            fixture("raw-hostile-source").display()
        ),
    )
    .unwrap();
    let (out, took) = run(&worker(""), &sleeper);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("validate") && err.contains("task.call.timeout.ms"),
        "{err}"
    );
    assert!(took < Duration::from_secs(30), "refused after {took:?}: {err}");
}
