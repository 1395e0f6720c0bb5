//! file source → Kafka → file sink: the output lines equal the input lines.

use std::time::Duration;

use copycat_tests::*;

#[test]
fn file_source_to_kafka_to_file_sink_round_trips_lines() {
    let dir = tempfile::tempdir().unwrap();
    let input_dir = dir.path().join("in");
    let output_dir = dir.path().join("out");
    std::fs::create_dir_all(&input_dir).unwrap();
    // Grants name existing directories (WASI preopens).
    std::fs::create_dir_all(&output_dir).unwrap();
    let a = input_dir.join("a.txt");
    let b = input_dir.join("b.txt");
    let lines_a: Vec<String> = (0..500).map(|i| format!("a line {i} with ünïcode ✓")).collect();
    let lines_b: Vec<String> = (0..300).map(|i| format!("b line {i}")).collect();
    std::fs::write(&a, lines_a.join("\n") + "\n").unwrap();
    // b's last line has no newline yet: it must wait until the line is complete.
    std::fs::write(&b, lines_b.join("\n")).unwrap();

    let topic = unique("lines");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&unique("offsets"));
    let source = unique("file-source");
    let sink = unique("file-sink");
    let files = format!("{},{}", a.display(), b.display());
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "file-source"),
                ("tasks.max", "2"),
                ("files", &files),
                ("topic", &topic),
                ("grants.fs.read", input_dir.to_str().unwrap()),
            ],
        ))
        .unwrap();
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &sink),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", output_dir.to_str().unwrap()),
                ("grants.fs.write", output_dir.to_str().unwrap()),
            ],
        ))
        .unwrap();

    let out = output_dir.join(format!("{topic}-0.txt"));
    let expected_before = 500 + 299;
    eventually("the complete lines in the sink's file", Duration::from_secs(60), || {
        let text = std::fs::read_to_string(&out).ok()?;
        (text.lines().count() >= expected_before).then_some(())
    });
    // Complete b's last line; the source picks it up (tail -f).
    std::fs::OpenOptions::new()
        .append(true)
        .open(&b)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"\n"))
        .unwrap();
    let text = eventually("b's last line", Duration::from_secs(60), || {
        let text = std::fs::read_to_string(&out).ok()?;
        (text.lines().count() >= 800).then_some(text)
    });
    for name in [&source, &sink] {
        assert!(
            task_states(&worker, name).iter().all(|(s, _)| s == "RUNNING"),
            "{name} runs"
        );
    }
    worker.shutdown();

    let mut got: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut want: Vec<String> = lines_a.iter().chain(&lines_b).cloned().collect();
    // Two files interleave in one partition; each file's order is kept.
    let got_a: Vec<&String> = got.iter().filter(|l| l.starts_with("a ")).collect();
    assert_eq!(got_a, lines_a.iter().collect::<Vec<_>>(), "a.txt's lines in order");
    got.sort();
    want.sort();
    assert_eq!(got, want, "output lines equal input lines");
}

/// A sink that keeps its own offsets returns them from `open`; the host
/// seeks there instead of using the consumer group's committed offsets.
#[test]
fn sink_offsets_returned_by_open_are_where_consumption_starts() {
    let topic = unique("seek");
    block_on(create_topic(&topic, 2));
    for p in 0..2 {
        let recs: Vec<(String, String)> = (0..100).map(|i| (format!("k{i}"), format!("v{p}-{i}"))).collect();
        produce(&topic, Some(p), &recs);
    }
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("seen.txt");
    let worker = start_worker(&unique("offsets"));
    let fixture_path = fixture("seek-sink");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &unique("seek")),
                ("connector.class", fixture_path.to_str().unwrap()),
                ("topics", &topic),
                ("start.offset", "60"),
                ("output", output.to_str().unwrap()),
                ("grants.fs.write", dir.path().to_str().unwrap()),
            ],
        ))
        .unwrap();
    let text = eventually("records from offset 60 on", Duration::from_secs(60), || {
        let text = std::fs::read_to_string(&output).ok()?;
        (text.lines().count() >= 80).then_some(text)
    });
    worker.shutdown();
    for p in 0..2 {
        let got: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with(&format!("{topic}/{p}/")))
            .map(str::to_owned)
            .collect();
        let want: Vec<String> = (60..100).map(|i| format!("{topic}/{p}/{i}/v{p}-{i}")).collect();
        assert_eq!(got, want, "partition {p} starts at the offset open returned");
    }
}
