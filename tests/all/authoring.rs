//! The author's tools: `copycat inspect`, `copycat dev run` (a component in
//! the sandbox without Kafka) and `copycat new` (a project copied from an
//! example, that builds and runs as is: each language page's walkthrough).

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

/// `copycat new`'s refusals (the projects it makes are built and run by the
/// walkthroughs below).
#[test]
fn new_refuses_what_it_cannot_make() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().to_str().unwrap();
    let out = copycat(&["new", "my-logger", "--kind", "sink", "--dir", parent]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("my-logger/build.sh").is_file());
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

/// The commands of a page's fenced blocks marked `sh walkthrough`, in order.
fn walkthrough_commands(page: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        match &mut current {
            None if line.trim_end() == "```sh walkthrough" => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    assert!(current.is_none(), "a `sh walkthrough` block is not closed");
    blocks
}

/// docs/authoring/<lang>.md's "First connector in 10 minutes", run as a
/// new user would: its `sh walkthrough` blocks as one bash script
/// (`-euo pipefail`) in an empty directory, with `copycat` on the PATH and
/// `COPYCAT_HOME` naming this checkout. Each block checks its own outcome
/// (grep), so a step that does not do what the page says fails here.
fn walkthrough(lang: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let page_path = root.join(format!("docs/authoring/{lang}.md"));
    let page = std::fs::read_to_string(&page_path).unwrap();
    let blocks = walkthrough_commands(&page);
    assert!(
        blocks.len() >= 3,
        "{}: a walkthrough needs a source, a sink and a transform (`sh walkthrough` blocks): {} found",
        page_path.display(),
        blocks.len()
    );
    let script = blocks.concat();
    for kind in ["source", "sink", "transform"] {
        assert!(
            script.contains(&format!("--kind {kind}")),
            "{}: the walkthrough makes no {kind} (`copycat new ... --kind {kind}`)",
            page_path.display()
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = copycat_bin();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("COPYCAT_HOME", root.canonicalize().unwrap())
        .env("KAFKA_BOOTSTRAP", bootstrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: the walkthrough failed ({}).\n--- script ---\n{script}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        page_path.display(),
        out.status,
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn walkthrough_blocks_are_found_in_order() {
    let page = "intro\n```sh walkthrough\na\nb\n```\ntext\n```sh\nnot this\n```\n```sh walkthrough\nc\n```\n";
    assert_eq!(walkthrough_commands(page), ["a\nb\n", "c\n"]);
}

macro_rules! walkthroughs {
    ($($lang:ident),*) => {
        /// Every language page's walkthrough: `copycat new` for a source,
        /// a sink and a transform, each built and run with `copycat dev run`.
        mod walkthrough {
            $(
                #[test]
                fn $lang() {
                    super::walkthrough(stringify!($lang));
                }
            )*
        }
    };
}

walkthroughs!(rust, python, js, c, go, zig);
