//! The author's tools: `copycat inspect`, `copycat dev run` (a component in
//! the sandbox without Kafka) and `copycat new` (a project copied from an
//! example, that builds and runs as is).

use std::path::Path;
use std::process::{Command, Output};

use copycat_tests::*;

fn copycat(args: &[&str]) -> Output {
    Command::new(copycat_bin()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn inspect_describes_a_component() {
    let path = plugin("datagen");
    let out = copycat(&["inspect", path.to_str().unwrap(), "--output", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["world"], "source");
    assert_eq!(doc["name"], "datagen");
    assert!(doc["digest"].as_str().unwrap().starts_with("sha256:"));
    let keys: Vec<&str> = doc["config"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"topic") && keys.contains(&"streams"), "{keys:?}");
    let imports = doc["imports"].as_array().unwrap();
    assert!(
        imports.iter().any(|i| i == "copycat:connector/offsets@0.3.0"),
        "{imports:?}"
    );
    assert_eq!(doc["size"].as_u64().unwrap(), std::fs::metadata(&path).unwrap().len());

    let text = stdout(&copycat(&["inspect", path.to_str().unwrap()]));
    assert!(text.contains("datagen 0.1.0 (source connector)"), "{text}");
    assert!(text.contains("contract copycat:connector@0.3.0"), "{text}");
    let dynamic = stdout(&copycat(&["inspect", plugin("file-source").to_str().unwrap()]));
    assert!(
        dynamic.contains("contract copycat:connector@0.3.0 + copycat:dynamic@0.1.0 (a dynamic connector)"),
        "{dynamic}"
    );

    let bad = copycat(&["inspect", fixture("wrong-world").to_str().unwrap()]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("wrong-world.wasm"), "{}", stderr(&bad));
}

#[test]
fn dev_run_prints_a_sources_records_and_feeds_a_sink() {
    let out = copycat(&[
        "dev",
        "run",
        plugin("datagen").to_str().unwrap(),
        "-c",
        "topic=t",
        "-c",
        "streams=2",
        "-c",
        "count=3",
        "--offset",
        r#"{"stream":"stream-0"}={"seq":0}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let keys: Vec<String> = stdout(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["key"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    // stream-0 resumes after its committed offset 0.
    assert_eq!(
        keys,
        ["stream-0:1", "stream-1:0", "stream-0:2", "stream-1:1", "stream-1:2"]
    );

    let datagen = plugin("datagen");
    let bad = copycat(&["dev", "run", datagen.to_str().unwrap()]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("topic: missing required configuration"),
        "{}",
        stderr(&bad)
    );
    let bad = copycat(&[
        "dev",
        "run",
        datagen.to_str().unwrap(),
        "-c",
        "topic=t",
        "-c",
        "streams=0",
    ]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("streams: 'streams' must be at least 1"),
        "{}",
        stderr(&bad)
    );

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(
        &input,
        "{\"topic\":\"t\",\"partition\":0,\"value\":\"a\"}\n{\"topic\":\"t\",\"partition\":1,\"value\":\"b\"}\n{\"topic\":\"t\",\"partition\":0,\"value\":\"c\"}\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let d = out_dir.to_str().unwrap();
    let out = copycat(&[
        "dev",
        "run",
        plugin("file-sink").to_str().unwrap(),
        "-c",
        &format!("directory={d}"),
        "-c",
        &format!("grants.fs.write={d}"),
        "-c",
        "topics=t",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("put 3 record(s)"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(out_dir.join("t-0.txt")).unwrap(), "a\nc\n");
    assert_eq!(std::fs::read_to_string(out_dir.join("t-1.txt")).unwrap(), "b\n");

    std::fs::write(&input, "{\"topic\":\"t\",\"bogus\":1}\n").unwrap();
    let bad = copycat(&[
        "dev",
        "run",
        plugin("file-sink").to_str().unwrap(),
        "-c",
        &format!("directory={d}"),
        "-c",
        &format!("grants.fs.write={d}"),
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("in.jsonl:1: unknown field `bogus`"),
        "{}",
        stderr(&bad)
    );
}

fn build(project: &Path) {
    let out = Command::new(project.join("build.sh")).output().unwrap();
    assert!(out.status.success(), "build.sh failed: {}", stderr(&out));
}

#[test]
fn new_rust_projects_build_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().to_str().unwrap();
    let out = copycat(&[
        "new",
        "my-counter",
        "--lang",
        "rust",
        "--kind",
        "source",
        "--dir",
        parent,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let project = dir.path().join("my-counter");
    build(&project);
    let wasm = project.join("my-counter.wasm");
    let out = copycat(&["dev", "run", wasm.to_str().unwrap(), "-c", "topic=t", "-c", "count=2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    assert!(stdout(&out).contains("\"key\":\"stream-0:1\""), "{}", stdout(&out));

    let out = copycat(&["new", "my-logger", "--lang", "rust", "--kind", "sink", "--dir", parent]);
    assert!(out.status.success(), "{}", stderr(&out));
    build(&dir.path().join("my-logger"));
    let inspected = stdout(&copycat(&[
        "inspect",
        dir.path().join("my-logger/my-logger.wasm").to_str().unwrap(),
    ]));
    assert!(inspected.contains("my-logger 0.1.0 (sink connector)"), "{inspected}");

    // A transform project: built, inspected, and run over JSON lines.
    let out = copycat(&[
        "new",
        "my-upper",
        "--lang",
        "rust",
        "--kind",
        "transform",
        "--dir",
        parent,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    build(&dir.path().join("my-upper"));
    let wasm = dir.path().join("my-upper/my-upper.wasm");
    let inspected = stdout(&copycat(&["inspect", wasm.to_str().unwrap()]));
    assert!(
        inspected.contains("my-upper 0.1.0 (transform component)"),
        "{inspected}"
    );
    let input = dir.path().join("in.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"topic":"t","key":"k1","value":{"name":"ada","city":"london"}}"#,
            "\n",
            r#"{"topic":"t","value":{"schema":{"type":"string"},"payload":"grace"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = copycat(&[
        "dev",
        "run",
        wasm.to_str().unwrap(),
        "-c",
        "fields=name",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{}", stdout(&out));
    assert_eq!(lines[0]["value"], serde_json::json!({"name": "ADA", "city": "london"}));
    assert_eq!(lines[0]["from"], serde_json::json!(1));
    assert_eq!(
        lines[1]["value"],
        serde_json::json!({"schema": {"type": "string", "optional": false}, "payload": "GRACE"})
    );
    let bad = copycat(&[
        "dev",
        "run",
        wasm.to_str().unwrap(),
        "-c",
        "colour=red",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(stderr(&bad).contains("colour"), "{}", stderr(&bad));

    let again = copycat(&["new", "my-logger", "--kind", "sink", "--dir", parent]);
    assert!(stderr(&again).contains("already exists"), "{}", stderr(&again));
    let bad = copycat(&["new", "Bad_Name", "--dir", parent]);
    assert!(stderr(&bad).contains("project name 'Bad_Name'"), "{}", stderr(&bad));
    // The command line offers only the languages there are examples for.
    let none = copycat(&["new", "x-y", "--lang", "cobol", "--dir", parent]);
    assert!(!none.status.success());
    assert!(
        stderr(&none).contains("invalid value 'cobol' for '--lang <LANG>'"),
        "{}",
        stderr(&none)
    );
}

/// `copycat new` in another language: a source and a sink project, each
/// built with its `build.sh` (the language's toolchain, as
/// `just build-examples` installs it) and run or inspected under its own
/// name.
fn new_projects_build_and_run(lang: &str) {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().to_str().unwrap();
    for kind in ["source", "sink"] {
        let name = format!("my-{lang}-{kind}");
        let out = copycat(&["new", &name, "--lang", lang, "--kind", kind, "--dir", parent]);
        assert!(out.status.success(), "{}", stderr(&out));
        let project = dir.path().join(&name);
        build(&project);
        let wasm = project.join(format!("{name}.wasm"));
        let inspected = stdout(&copycat(&["inspect", wasm.to_str().unwrap()]));
        assert!(
            inspected.contains(&format!("{name} 0.1.0 ({kind} connector)")),
            "{inspected}"
        );
        if kind == "source" {
            let out = copycat(&["dev", "run", wasm.to_str().unwrap(), "-c", "topic=t", "-c", "count=2"]);
            assert!(out.status.success(), "{}", stderr(&out));
            assert!(stdout(&out).contains("\"key\":\"stream-0:1\""), "{}", stdout(&out));
        }
    }
}

macro_rules! new_projects {
    ($($lang:ident),*) => {
        mod new_projects {
            $(
                #[test]
                fn $lang() {
                    super::new_projects_build_and_run(stringify!($lang));
                }
            )*
        }
    };
}

new_projects!(python, js, c, go, zig);
