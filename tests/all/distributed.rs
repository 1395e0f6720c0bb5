//! Distributed mode: `copycat worker` processes on 127.0.0.1 forming a
//! cluster through the real broker: one view from every worker, tasks
//! spread within one, failover after SIGKILL, a joining worker, a rolling
//! restart, and a worker cut off (SIGSTOP) that is fenced and keeps nothing.

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_runtime::cluster::assign::assign;
use copycat_tests::*;
use serde_json::{Value, json};

/// What every worker of these tests adds to its config: exactly-once
/// sources, and a session timeout of 6 s (the broker's minimum).
const EXTRA: &str = "exactly.once.source.support=enabled\nsession.timeout.ms=6000\nheartbeat.interval.ms=1000";

/// Start `n` workers of a new cluster in `dir`.
fn cluster(dir: &std::path::Path, n: usize) -> (String, Vec<ClusterWorker>) {
    let group = unique("cluster");
    let workers = (0..n)
        .map(|i| ClusterWorker::start(dir, &format!("w{i}"), &group, EXTRA))
        .collect();
    (group, workers)
}

/// Task number → (state, worker id), from `w`'s status answer.
fn placement(w: &ClusterWorker, name: &str) -> Option<BTreeMap<u64, (String, String)>> {
    let (code, s) = w.get(&format!("/connectors/{name}/status"));
    if code != 200 {
        return None;
    }
    Some(
        s["tasks"]
            .as_array()?
            .iter()
            .map(|t| {
                (
                    t["id"].as_u64().unwrap_or(u64::MAX),
                    (
                        t["state"].as_str().unwrap_or("").to_owned(),
                        t["worker_id"].as_str().unwrap_or("").to_owned(),
                    ),
                )
            })
            .collect(),
    )
}

/// Every one of `tasks` tasks RUNNING on one of `workers`, loads within one.
fn balanced(p: &BTreeMap<u64, (String, String)>, tasks: usize, workers: &[String]) -> bool {
    if p.len() != tasks || p.values().any(|(s, w)| s != "RUNNING" || !workers.contains(w)) {
        return false;
    }
    let loads: Vec<usize> = workers
        .iter()
        .map(|w| p.values().filter(|(_, on)| on == w).count())
        .collect();
    loads.iter().max().unwrap_or(&0) - loads.iter().min().unwrap_or(&0) <= 1
}

fn await_balanced(w: &ClusterWorker, name: &str, tasks: usize, workers: &[String]) -> BTreeMap<u64, (String, String)> {
    eventually(
        &format!("{tasks} tasks of {name} RUNNING, spread within one over {workers:?}"),
        Duration::from_secs(90),
        || placement(w, name).filter(|p| balanced(p, tasks, workers)),
    )
}

/// Wait until the tasks of `name` (the cluster's only connector, with
/// `tasks` tasks) run exactly where the assignment every worker computes
/// puts them over `workers`: `copycat_runtime::cluster::assign::assign`.
fn await_plan(w: &ClusterWorker, name: &str, tasks: u32, workers: &[String]) -> BTreeMap<u64, (String, String)> {
    let ids: Vec<(String, u32)> = (0..tasks).map(|t| (name.to_owned(), t)).collect();
    let plan: BTreeMap<u64, (String, String)> = assign(&ids, workers)
        .into_iter()
        .flat_map(|(w, ts)| {
            ts.into_iter()
                .map(move |(_, t)| (u64::from(t), ("RUNNING".to_owned(), w.clone())))
        })
        .collect();
    let mut last = None;
    let timeout = Duration::from_secs(90);
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let p = placement(w, name);
        if p.as_ref() == Some(&plan) {
            return plan;
        }
        last = p.or(last);
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {name}'s tasks to run as planned over {workers:?}:\n plan {plan:?}\n last {last:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The value of the unlabelled series `name` in `w`'s `GET /metrics`.
fn metric(w: &ClusterWorker, name: &str) -> Option<f64> {
    let (code, body) = w.get("/metrics");
    if code != 200 {
        return None;
    }
    body.as_str()?
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

fn datagen(name: &str, topic: &str, streams: usize, rate: &str) -> Value {
    json!({"name": name, "config": {
        "connector.class": "datagen", "topic": topic, "streams": streams.to_string(),
        "tasks.max": streams.to_string(), "topic.partitions": streams.to_string(), "rate": rate,
        "delivery.guarantee": "exactly-once",
    }})
}

/// Every datagen stream of `topic` holds 0, 1, 2, ... exactly once, in
/// order (read_committed): nothing lost, nothing repeated. The record count.
fn assert_streams_exactly_once(topic: &str) -> usize {
    let mut records = read_topic(topic);
    records.sort();
    let mut per_stream: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in &records {
        let key = r.key.clone().unwrap();
        let (stream, seq) = key.rsplit_once(':').unwrap();
        per_stream
            .entry(stream.to_owned())
            .or_default()
            .push(seq.parse().unwrap());
    }
    assert!(!per_stream.is_empty(), "records in {topic}");
    for (stream, seqs) in &per_stream {
        for (i, seq) in seqs.iter().enumerate() {
            assert_eq!(
                *seq, i as u64,
                "{stream}: record {i} has seq {seq} (lost or repeated records)"
            );
        }
    }
    records.len()
}

fn grows_by(topic: &str, n: i64) {
    let before = topic_size(topic);
    eventually(&format!("{n} more records in {topic}"), Duration::from_secs(90), || {
        (topic_size(topic) >= before + n).then_some(())
    });
}

#[test]
fn every_worker_has_the_same_view_and_tasks_spread_within_one_and_onto_a_joining_worker() {
    let dir = tempfile::tempdir().unwrap();
    let (group, mut workers) = cluster(dir.path(), 3);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("dist");
    block_on(create_topic(&topic, 7));
    let name = unique("gen");

    let (code, body) = workers[0].send("POST", "/connectors", &datagen(&name, &topic, 7, "50"));
    assert_eq!(code, 201, "{body}");
    // Visible through every worker, with the same config.
    for w in &workers {
        let names = eventually("the connector listed by every worker", Duration::from_secs(30), || {
            let (code, names) = w.get("/connectors");
            (code == 200 && names.as_array()?.iter().any(|n| n == name.as_str())).then_some(names)
        });
        assert!(names.as_array().unwrap().len() == 1, "{names}");
        let (code, cfg) = w.get(&format!("/connectors/{name}/config"));
        assert_eq!(code, 200);
        assert_eq!(cfg["topic"], topic.as_str());
        let (_, tasks) = w.get(&format!("/connectors/{name}/tasks"));
        assert_eq!(tasks.as_array().unwrap().len(), 7, "{tasks}");
    }
    // 7 tasks over 3 workers: 3, 2, 2, where the plan puts them.
    let before = await_plan(&workers[1], &name, 7, &ids);
    // A create through another worker of an existing name is refused.
    let (code, body) = workers[2].send("POST", "/connectors", &datagen(&name, &topic, 7, "50"));
    assert_eq!(code, 409, "{body}");

    // A fourth worker joins and takes its share (2, 2, 2, 1): every task
    // runs where the plan over four workers puts it. (How many tasks such
    // a join moves is the assignment's unit tests' business.)
    workers.push(ClusterWorker::start(dir.path(), "w3", &group, EXTRA));
    let mut all = ids.clone();
    all.push(workers[3].id());
    let after = await_plan(&workers[3], &name, 7, &all);
    assert!(balanced(&after, 7, &all), "{after:?}");
    assert!(
        after.values().any(|(_, w)| *w == all[3]),
        "the new worker runs a task: {after:?}"
    );
    let moved = before.iter().filter(|(id, (_, w))| after[*id].1 != *w).count();
    tracing::info!(moved, "tasks moved when the fourth worker joined");
    // Every worker's metrics say so too: 4 members, its share of the plan,
    // and at least the join as a membership change.
    for w in &workers {
        let share = after.values().filter(|(_, on)| *on == w.id()).count() as f64;
        eventually(
            &format!("{}'s cluster metrics", w.id()),
            Duration::from_secs(30),
            || {
                let members = metric(w, "copycat_cluster_members")?;
                let assigned = metric(w, "copycat_cluster_assigned_tasks")?;
                let changes = metric(w, "copycat_cluster_membership_changes_total")?;
                (members == 4.0 && assigned == share && changes >= 1.0).then_some(())
            },
        );
    }

    // Pause through one worker, resume through another; restart a task.
    let (code, _) = http(workers[1].addr, "PUT", &format!("/connectors/{name}/pause"), None);
    assert_eq!(code, 202);
    eventually("every task PAUSED", Duration::from_secs(60), || {
        let (_, s) = workers[2].get(&format!("/connectors/{name}/status"));
        let tasks = s["tasks"].as_array()?;
        (s["connector"]["state"] == "PAUSED" && tasks.iter().all(|t| t["state"] == "PAUSED")).then_some(())
    });
    let paused_size = topic_size(&topic);
    let (code, _) = http(workers[2].addr, "PUT", &format!("/connectors/{name}/resume"), None);
    assert_eq!(code, 202);
    await_balanced(&workers[0], &name, 7, &all);
    eventually("records again after the resume", Duration::from_secs(60), || {
        (topic_size(&topic) > paused_size).then_some(())
    });
    let (code, body) = http(
        workers[3].addr,
        "POST",
        &format!("/connectors/{name}/tasks/6/restart"),
        None,
    );
    assert_eq!(code, 204, "{body}");
    let (code, body) = http(
        workers[3].addr,
        "POST",
        &format!("/connectors/{name}/tasks/9/restart"),
        None,
    );
    assert_eq!(code, 404, "{body}");

    // Delete through the last worker: gone everywhere, and nothing runs.
    let (code, body) = http(workers[3].addr, "DELETE", &format!("/connectors/{name}"), None);
    assert_eq!(code, 204, "{body}");
    for w in &workers {
        eventually("the connector gone from every worker", Duration::from_secs(30), || {
            let (code, _) = w.get(&format!("/connectors/{name}/status"));
            (code == 404).then_some(())
        });
    }
    assert_streams_exactly_once(&topic);
}

#[test]
fn a_killed_worker_s_tasks_run_elsewhere_and_an_exactly_once_file_pipeline_loses_and_repeats_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&output).unwrap();
    let (_, mut workers) = cluster(dir.path(), 3);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("lines");
    block_on(create_topic(&topic, 3));
    let files: Vec<std::path::PathBuf> = (0..3).map(|i| input.join(format!("f{i}.txt"))).collect();
    for f in &files {
        std::fs::write(f, "").unwrap();
    }
    let (source, sink) = (unique("src"), unique("sink"));
    let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let (code, body) = workers[0].send(
        "POST",
        "/connectors",
        &json!({"name": source, "config": {
            "connector.class": "file-source", "files": paths.join(","), "tasks.max": "3", "topic": topic,
            "grants.fs.read": input.display().to_string(), "delivery.guarantee": "exactly-once",
        }}),
    );
    assert_eq!(code, 201, "{body}");
    let (code, body) = workers[1].send(
        "POST",
        "/connectors",
        &json!({"name": sink, "config": {
            "connector.class": "file-sink", "topics": topic, "tasks.max": "3", "exactly.once": "true",
            "directory": output.display().to_string(), "grants.fs.write": output.display().to_string(),
        }}),
    );
    assert_eq!(code, 201, "{body}");
    await_balanced(&workers[2], &source, 3, &ids);
    await_balanced(&workers[2], &sink, 3, &ids);

    // Lines are appended while the pipeline runs; a worker dies midway.
    let per_file = 3000;
    let writer = {
        let files = files.clone();
        std::thread::spawn(move || {
            use std::io::Write as _;
            let mut handles: Vec<std::fs::File> = files
                .iter()
                .map(|f| std::fs::OpenOptions::new().append(true).open(f).unwrap())
                .collect();
            for i in 0..per_file {
                for (n, h) in handles.iter_mut().enumerate() {
                    writeln!(h, "file{n}-line{i}").unwrap();
                }
                if i % 100 == 99 {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        })
    };
    grows_by(&topic, 1500);
    let victim = placement(&workers[0], &source).unwrap()[&0].1.clone();
    let v = ids.iter().position(|id| *id == victim).unwrap();
    workers[v].kill();
    let alive: Vec<String> = ids.iter().filter(|id| **id != victim).cloned().collect();
    let observer = &workers[(v + 1) % 3];
    let after = await_balanced(observer, &source, 3, &alive);
    assert!(after.values().all(|(_, w)| *w != victim), "{after:?}");
    await_balanced(observer, &sink, 3, &alive);
    writer.join().unwrap();

    // The output holds every input line exactly once.
    let mut expected: Vec<String> = (0..3)
        .flat_map(|n| (0..per_file).map(move |i| format!("file{n}-line{i}")))
        .collect();
    expected.sort();
    let got = eventually(
        "every line in the sink's committed files",
        Duration::from_secs(120),
        || {
            let mut lines: Vec<String> = std::fs::read_dir(&output)
                .ok()?
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".txt"))
                .flat_map(|e| {
                    std::fs::read_to_string(e.path())
                        .unwrap_or_default()
                        .lines()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect();
            lines.sort();
            (lines.len() >= expected.len()).then_some(lines)
        },
    );
    assert_eq!(got.len(), expected.len(), "no line repeated");
    assert!(got == expected, "the output equals the input");
}

#[test]
fn a_rolling_restart_of_every_worker_loses_and_repeats_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut workers) = cluster(dir.path(), 3);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("rolling");
    block_on(create_topic(&topic, 6));
    let name = unique("gen");
    let (code, body) = workers[0].send("POST", "/connectors", &datagen(&name, &topic, 6, "300"));
    assert_eq!(code, 201, "{body}");
    await_balanced(&workers[0], &name, 6, &ids);
    grows_by(&topic, 300);
    for i in 0..3 {
        workers[i].terminate();
        let others: Vec<String> = ids.iter().filter(|id| **id != ids[i]).cloned().collect();
        await_balanced(&workers[(i + 1) % 3], &name, 6, &others);
        workers[i].restart();
        await_balanced(&workers[i], &name, 6, &ids);
        grows_by(&topic, 100);
    }
    let (code, _) = http(workers[0].addr, "PUT", &format!("/connectors/{name}/stop"), None);
    assert_eq!(code, 204);
    eventually("the connector STOPPED", Duration::from_secs(60), || {
        let (_, s) = workers[1].get(&format!("/connectors/{name}/status"));
        (s["connector"]["state"] == "STOPPED" && s["tasks"].as_array()?.is_empty()).then_some(())
    });
    let n = assert_streams_exactly_once(&topic);
    assert!(n >= 600, "{n} records");
}

#[test]
fn a_worker_cut_off_from_the_cluster_is_fenced_and_keeps_no_task_another_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut workers) = cluster(dir.path(), 2);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("cutoff");
    block_on(create_topic(&topic, 4));
    let name = unique("gen");
    let (code, body) = workers[0].send("POST", "/connectors", &datagen(&name, &topic, 4, "400"));
    assert_eq!(code, 201, "{body}");
    await_balanced(&workers[1], &name, 4, &ids);
    grows_by(&topic, 200);

    // Freeze worker 0 past its session timeout: the group drops it, and
    // worker 1 takes every task over.
    workers[0].signal("STOP");
    let survivor = vec![ids[1].clone()];
    await_balanced(&workers[1], &name, 4, &survivor);
    grows_by(&topic, 200);
    // Thawed, the zombie's instances are fenced the moment they write; it
    // stops them, rejoins, and the tasks spread again.
    workers[0].signal("CONT");
    let fenced = eventually(
        "the zombie's fenced instance in the status",
        Duration::from_secs(60),
        || {
            let (_, s) = workers[1].get(&format!("/connectors/{name}/status"));
            s["tasks"]
                .as_array()?
                .iter()
                .find_map(|t| t["fenced"].as_str().map(str::to_owned))
        },
    );
    assert!(fenced.contains(&ids[0]) && fenced.contains("fenced"), "{fenced}");
    await_balanced(&workers[0], &name, 4, &ids);
    grows_by(&topic, 200);
    let log = workers[0].log();
    assert!(
        log.contains("went silent for longer than session.timeout.ms")
            || log.contains("not a member of the cluster's group"),
        "the zombie says why it stopped its tasks"
    );
    workers[1].kill();
    workers[0].kill();
    assert_streams_exactly_once(&topic);
}

#[test]
fn a_config_replaced_through_any_worker_swaps_every_task_and_a_broken_version_rolls_back() {
    let dir = tempfile::tempdir().unwrap();
    let (_, workers) = cluster(dir.path(), 2);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("swap");
    block_on(create_topic(&topic, 2));
    let name = unique("tagged");
    let config = |class: &str| {
        json!({"connector.class": class, "topic": topic, "streams": "2", "rate": "300",
            "delivery.guarantee": "exactly-once"})
    };
    let (code, body) = workers[0].send("PUT", &format!("/connectors/{name}/config"), &config("tagged-v1"));
    assert_eq!(code, 201, "{body}");
    await_balanced(&workers[1], &name, 1, &ids);
    grows_by(&topic, 100);

    // Replaced through the other worker: answered once the new tasks run.
    let (code, body) = workers[1].send("PUT", &format!("/connectors/{name}/config"), &config("tagged-v2"));
    assert_eq!(code, 200, "{body}");
    let (_, s) = workers[0].get(&format!("/connectors/{name}/status"));
    assert_eq!(s["connector"]["version"], "2.0.0", "{s}");
    assert!(
        s["tasks"].as_array().unwrap().iter().all(|t| t["state"] == "RUNNING"),
        "{s}"
    );
    grows_by(&topic, 100);

    // A version that traps in start: rolled back, the reason named.
    let (code, body) = workers[0].send("PUT", &format!("/connectors/{name}/config"), &config("tagged-broken"));
    assert_eq!(code, 400, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("rolled back") && message.contains("task 0 failed"),
        "{message}"
    );
    let (_, cfg) = workers[1].get(&format!("/connectors/{name}/config"));
    assert_eq!(cfg["connector.class"], "tagged-v2", "{cfg}");
    await_balanced(&workers[1], &name, 1, &ids);
    grows_by(&topic, 100);
    let (code, _) = http(workers[0].addr, "PUT", &format!("/connectors/{name}/stop"), None);
    assert_eq!(code, 204);
    eventually("the connector STOPPED", Duration::from_secs(60), || {
        let (_, s) = workers[1].get(&format!("/connectors/{name}/status"));
        (s["tasks"].as_array()?.is_empty()).then_some(())
    });
    // Each stream's sequence is whole across both swaps; the tag switched.
    let mut records = read_topic(&topic);
    records.sort();
    let mut per: BTreeMap<i32, Vec<(u64, String)>> = BTreeMap::new();
    for r in records {
        let v = r.value.unwrap();
        let mut parts = v.split(':');
        let (_, seq, tag) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        per.entry(r.partition)
            .or_default()
            .push((seq.parse().unwrap(), tag.to_owned()));
    }
    for (p, recs) in &per {
        for (i, (seq, _)) in recs.iter().enumerate() {
            assert_eq!(*seq, i as u64, "partition {p}: record {i} has seq {seq}");
        }
        assert!(recs.iter().any(|(_, t)| t == "v1.0.0") && recs.iter().any(|(_, t)| t == "v2.0.0"));
        assert!(recs.iter().all(|(_, t)| t != "v3.0.0"));
    }
}

#[test]
fn a_plugin_uploaded_to_one_worker_reaches_every_worker_and_runs_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (group, mut workers) = cluster(dir.path(), 2);
    let bytes = std::fs::read(fixture("tagged-v2")).unwrap();
    let (code, body) = http_bytes(
        workers[0].addr,
        "PUT",
        "/connector-plugins/tagged/versions/2.0.0",
        "application/wasm",
        &bytes,
    );
    assert_eq!(code, 201, "{body}");
    // The other worker installs it from the config topic, and so does a
    // worker that joins later.
    workers.push(ClusterWorker::start(dir.path(), "w2", &group, EXTRA));
    for w in &workers {
        eventually("the upload listed by every worker", Duration::from_secs(60), || {
            let (_, versions) = w.get("/connector-plugins/tagged/versions");
            versions
                .as_array()?
                .iter()
                .any(|v| v["version"] == "2.0.0")
                .then_some(())
        });
    }
    let topic = unique("uploaded");
    block_on(create_topic(&topic, 3));
    let name = unique("tagged");
    let (code, body) = workers[2].send(
        "POST",
        "/connectors",
        &json!({"name": name, "config": {"connector.class": "tagged", "connector.plugin.version": "2.0.0",
            "topic": topic, "streams": "3", "rate": "100"}}),
    );
    assert_eq!(code, 201, "{body}");
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let placed = await_balanced(&workers[1], &name, 1, &ids);
    assert_eq!(placed.len(), 1);
    grows_by(&topic, 50);
    // In use anywhere in the cluster: not deletable.
    let (code, body) = http(
        workers[1].addr,
        "DELETE",
        "/connector-plugins/tagged/versions/2.0.0",
        None,
    );
    assert_eq!(code, 409, "{body}");
}

/// Every byte of every record of `topic` (key, value, headers) as text.
fn topic_text(topic: &str) -> String {
    use rdkafka::Message;
    use rdkafka::message::Headers;
    read_messages(topic, |m| {
        let mut text = String::new();
        for part in [m.key(), m.payload()].into_iter().flatten() {
            text.push_str(&String::from_utf8_lossy(part));
            text.push('\n');
        }
        if let Some(hs) = m.headers() {
            for h in hs.iter() {
                text.push_str(h.key);
                text.push_str(&String::from_utf8_lossy(h.value.unwrap_or_default()));
                text.push('\n');
            }
        }
        text
    })
    .concat()
}

/// A secret behind a config provider reference (Kafka Connect's
/// FileConfigProvider) is resolved only where a task runs: the records
/// carry it, and neither the config, status and offsets topics, nor the
/// workers' state dirs, nor any REST answer of either worker, nor the
/// workers' debug logs do. Rotating the file and restarting the task puts
/// the new value in the records.
#[test]
fn a_config_provider_secret_is_in_no_topic_state_dir_answer_or_log_of_the_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let file = secrets.path().join("db.properties");
    std::fs::write(&file, "password=Cluster-S3cret-1\n").unwrap();
    let extra = format!(
        "{EXTRA}\nconfig.providers=file\n\
         config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n\
         config.providers.file.param.allowed.paths={}",
        secrets.path().display()
    );
    let group = unique("cluster");
    let workers: Vec<ClusterWorker> = (0..2)
        .map(|i| {
            ClusterWorker::start_logging(
                dir.path(),
                &format!("w{i}"),
                &group,
                &bootstrap(),
                &extra,
                Some("debug"),
            )
        })
        .collect();
    let topic = unique("secret-out");
    block_on(create_topic(&topic, 1));
    let name = unique("with-secret");
    let reference = format!("${{file:{}:password}}", file.display());
    let (code, body) = workers[0].send(
        "PUT",
        &format!("/connectors/{name}/config"),
        &json!({
            "connector.class": "datagen", "topic": topic, "streams": "1", "rate": "50",
            "record.mode": "typed",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "transforms": "insert",
            "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.insert.static.field": "pw",
            "transforms.insert.static.value": reference,
        }),
    );
    assert!(code == 201 || code == 200, "{code} {body}");
    let last_pw = || {
        read_messages(&topic, |m| {
            use rdkafka::Message;
            m.payload()
                .and_then(|v| serde_json::from_slice::<Value>(v).ok())
                .and_then(|v| v["payload"]["pw"].as_str().map(str::to_owned))
        })
        .into_iter()
        .flatten()
        .last()
    };
    eventually("the task writes the secret", Duration::from_secs(90), || {
        (last_pw().as_deref() == Some("Cluster-S3cret-1")).then_some(())
    });

    for w in &workers {
        for path in [
            "/connectors?expand=info&expand=status".to_owned(),
            format!("/connectors/{name}"),
            format!("/connectors/{name}/config"),
            format!("/connectors/{name}/tasks"),
            format!("/connectors/{name}/status"),
            format!("/connectors/{name}/tasks/0/status"),
            format!("/connectors/{name}/offsets"),
        ] {
            let (code, body) = w.get(&path);
            assert!(
                !body.to_string().contains("S3cret"),
                "GET {path} ({code}) on {}: {body}",
                w.id()
            );
        }
        let (_, config) = w.get(&format!("/connectors/{name}/config"));
        assert_eq!(
            config["transforms.insert.static.value"],
            json!(reference),
            "the reference is kept"
        );
    }
    for suffix in ["configs", "status", "offsets"] {
        let text = topic_text(&format!("{group}-{suffix}"));
        assert!(
            !text.is_empty() || suffix == "offsets",
            "{group}-{suffix} holds records"
        );
        assert!(!text.contains("S3cret"), "{group}-{suffix} holds the secret");
    }
    assert!(
        topic_text(&format!("{group}-configs")).contains(&reference),
        "the config topic keeps the reference"
    );
    let mut stored = 0;
    for entry in walk(dir.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("S3cret"),
            "{} holds the secret",
            entry.display()
        );
        stored += 1;
    }
    assert!(stored > 0, "the workers wrote state and logs");
    for w in &workers {
        let log = w.log();
        assert!(log.contains("DEBUG"), "{} logs at debug", w.id());
        assert!(!log.contains("S3cret"), "the log of {} holds the secret", w.id());
    }

    // Rotate: the restarted task reads the file again, wherever it runs.
    std::fs::write(&file, "password=Cluster-S3cret-2\n").unwrap();
    let (code, body) = http(
        workers[1].addr,
        "POST",
        &format!("/connectors/{name}/tasks/0/restart"),
        None,
    );
    assert!(code < 300, "{code} {body}");
    eventually(
        "the restarted task writes the new secret",
        Duration::from_secs(90),
        || (last_pw().as_deref() == Some("Cluster-S3cret-2")).then_some(()),
    );
    for w in &workers {
        assert!(!w.log().contains("S3cret"), "the log of {} holds the secret", w.id());
    }
}

/// Every file under `dir`, recursively.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// The files in `name`'s task configs, from `w`'s answer.
fn task_files(w: &ClusterWorker, name: &str) -> Vec<String> {
    let (code, tasks) = w.get(&format!("/connectors/{name}/tasks"));
    if code != 200 {
        return Vec::new();
    }
    let mut files: Vec<String> = tasks
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["config"]["files"].as_str())
        .flat_map(|f| {
            f.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_dynamic_connector_s_instance_runs_on_one_worker_and_moves_when_it_dies() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let write = |file: &str, lines: std::ops::Range<u32>| {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(input.join(file))
            .unwrap();
        for i in lines {
            writeln!(f, "{file}-{i}").unwrap();
        }
    };
    write("a.log", 0..200);
    let (_, mut workers) = cluster(dir.path(), 3);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let topic = unique("dyn-lines");
    block_on(create_topic(&topic, 1));
    let name = unique("watch");
    let (code, body) = workers[0].send(
        "POST",
        "/connectors",
        &json!({"name": name, "config": {
            "connector.class": "file-source", "directory": input.display().to_string(), "tasks.max": "2",
            "topic": topic, "grants.fs.read": input.display().to_string(),
            "delivery.guarantee": "exactly-once", "connector.monitor.interval.ms": "200",
        }}),
    );
    assert_eq!(code, 201, "{body}");
    let path = |f: &str| input.join(f).display().to_string();
    // New files: the instance's worker writes new task configs, which
    // every worker sees.
    write("b.log", 0..100);
    eventually("b.log in the task configs", Duration::from_secs(60), || {
        (task_files(&workers[2], &name) == vec![path("a.log"), path("b.log")]).then_some(())
    });
    // The worker that runs the instance dies; another one takes it over.
    let owner = assign(&[(name.clone(), u32::MAX)], &ids)
        .into_iter()
        .find(|(_, t)| !t.is_empty())
        .map(|(w, _)| w)
        .unwrap();
    let v = ids.iter().position(|id| *id == owner).unwrap();
    workers[v].kill();
    let observer = &workers[(v + 1) % 3];
    write("c.log", 0..100);
    write("a.log", 200..300);
    eventually(
        "c.log in the task configs after the failover",
        Duration::from_secs(90),
        || (task_files(observer, &name).len() == 3).then_some(()),
    );
    let status = observer.get(&format!("/connectors/{name}/status")).1;
    assert_eq!(status["connector"]["state"], "RUNNING", "{status}");
    // Every line exactly once.
    let expected = 300 + 100 + 100;
    let counts = eventually("every line in the topic", Duration::from_secs(120), || {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in read_topic(&topic) {
            *counts.entry(r.value.unwrap_or_default()).or_default() += 1;
        }
        (counts.len() == expected).then_some(counts)
    });
    let repeated: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "{repeated:?}");
}

#[test]
fn a_failed_dynamic_connector_is_failed_on_every_worker_and_restarts_where_its_instance_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (_, workers) = cluster(dir.path(), 2);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    let name = unique("dyn-failed");
    let (code, body) = workers[0].send(
        "POST",
        "/connectors",
        &json!({"name": name, "config": {
            "connector.class": fixture("dynamic-hostile").display().to_string(), "topic": unique("t"),
            "instance.mode": "fatal", "instance.after": "2", "connector.monitor.interval.ms": "50",
        }}),
    );
    assert_eq!(code, 201, "{body}");
    let owner = assign(&[(name.clone(), u32::MAX)], &ids)
        .into_iter()
        .find(|(_, t)| !t.is_empty())
        .map(|(w, _)| w)
        .unwrap();
    for w in &workers {
        let status = eventually(
            "FAILED on every worker, its task RUNNING",
            Duration::from_secs(60),
            || {
                let (_, s) = w.get(&format!("/connectors/{name}/status"));
                (s["connector"]["state"] == "FAILED" && s["tasks"][0]["state"] == "RUNNING").then_some(s)
            },
        );
        let trace = status["connector"]["trace"].as_str().unwrap_or_default().to_owned();
        assert!(
            trace.contains("the source went away") && trace.contains(&owner),
            "{trace}"
        );
    }
    let (code, body) = workers[1].send(
        "POST",
        &format!("/connectors/{name}/restart?onlyFailed=true"),
        &json!({}),
    );
    assert!(code == 202 || code == 204, "{code} {body}");
    let o = ids.iter().position(|id| *id == owner).unwrap();
    eventually("the owner restarts the instance", Duration::from_secs(30), || {
        workers[o]
            .log()
            .contains("connector instance restart requested through the cluster")
            .then_some(())
    });
}

/// `PUT /admin/loggers/{l}?scope=cluster` (KIP-976) through one worker sets
/// the level on every worker (204), through the config topic; the worker's
/// own scope stays its own. A connector created PAUSED has no task configs
/// on any worker until it is resumed (as in Kafka Connect).
#[test]
fn a_cluster_scoped_log_level_reaches_every_worker_and_a_paused_connector_has_no_tasks_until_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let (_, workers) = cluster(dir.path(), 2);
    // Answering HTTP, a worker has joined (its port is bound before): a
    // worker applies only the levels written after it joined.
    for w in &workers {
        eventually("the worker answers", Duration::from_secs(60), || {
            (w.get("/connectors").0 == 200).then_some(())
        });
    }
    let logger = "copycat_runtime::cluster";
    let (code, body) = workers[0].send(
        "PUT",
        &format!("/admin/loggers/{logger}?scope=cluster"),
        &json!({"level": "TRACE"}),
    );
    assert_eq!(code, 204, "{body}");
    for w in &workers {
        eventually(
            &format!("the level on worker {}", w.id()),
            Duration::from_secs(30),
            || {
                let (code, l) = w.get(&format!("/admin/loggers/{logger}"));
                (code == 200 && l["level"] == "TRACE" && l["last_modified"].is_u64()).then_some(())
            },
        );
    }
    // Worker scope: only the worker asked.
    let (code, body) = workers[1].send("PUT", &format!("/admin/loggers/{logger}"), &json!({"level": "WARN"}));
    assert_eq!(code, 200, "{body}");
    // The logger and those below it that were logged from.
    let changed: Vec<&str> = body.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(changed.contains(&logger), "{body}");
    assert!(changed.iter().all(|l| l.starts_with(logger)), "{body}");
    assert_eq!(workers[0].get(&format!("/admin/loggers/{logger}")).1["level"], "TRACE");
    assert_eq!(workers[1].get(&format!("/admin/loggers/{logger}")).1["level"], "WARN");

    let topic = unique("paused");
    block_on(create_topic(&topic, 2));
    let name = unique("paused");
    let mut body = datagen(&name, &topic, 2, "100");
    body["initial_state"] = json!("PAUSED");
    let (code, created) = workers[0].send("POST", "/connectors", &body);
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["tasks"], json!([]), "{created}");
    for w in &workers {
        eventually("the connector PAUSED on every worker", Duration::from_secs(30), || {
            let (_, s) = w.get(&format!("/connectors/{name}/status"));
            (s["connector"]["state"] == "PAUSED").then_some(())
        });
        assert_eq!(w.get(&format!("/connectors/{name}/tasks")).1, json!([]));
    }
    let (code, _) = http(workers[1].addr, "PUT", &format!("/connectors/{name}/resume"), None);
    assert_eq!(code, 202);
    let ids: Vec<String> = workers.iter().map(ClusterWorker::id).collect();
    await_balanced(&workers[0], &name, 2, &ids);
    grows_by(&topic, 50);
}
