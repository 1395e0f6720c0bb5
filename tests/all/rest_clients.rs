//! Third-party Kafka Connect REST clients, unchanged, against a Copycat
//! worker (`copycat worker`, distributed mode) and, to show each driver is
//! right, against Kafka Connect 4.4 (ConnectStandalone): the Java client
//! AKHQ uses (org.sourcelab:kafka-connect-client, Maven Central) and
//! kafka-connect-py (PyPI), each driven through every method it offers by a
//! checked-in program (tests/clients/), installed and run by
//! `scripts/rest-clients.sh`. A driver prints a line per call and exits with
//! its number of failures; the test asserts exit 0 and the count line on
//! both servers, and prints every failed call.
//!
//! Runs where the clients are installed (`scripts/rest-clients.sh fetch`,
//! done here when `COPYCAT_LOCAL_KAFKA=1`, as CI runs) and Kafka Connect's
//! jars are; says why it is skipped otherwise.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use copycat_tests::*;

use crate::kafka_connect_side_by_side::{ConnectStandalone, kafka_connect_available};

const CLIENTS: &[&str] = &["java", "python"];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/rest-clients.sh")
}

/// Whether the clients are installed (or installed now, with
/// `COPYCAT_LOCAL_KAFKA=1`); `Err` says why not.
fn clients_available() -> Result<(), String> {
    let cache = std::env::var_os("COPYCAT_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/copycat")))
        .unwrap_or_default()
        .join("rest-clients");
    let installed = cache.join("java/libs/.complete").is_file() && cache.join("python/.complete").is_file();
    if std::env::var("COPYCAT_LOCAL_KAFKA").is_ok_and(|v| v == "1") || installed {
        // Idempotent: also recompiles the Java driver when its source changed.
        let started = Instant::now();
        let out = Command::new("bash").arg(script()).arg("fetch").output().unwrap();
        assert!(
            out.status.success(),
            "scripts/rest-clients.sh fetch failed (it needs mvn, javac, python3-venv, Maven Central and PyPI): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("scripts/rest-clients.sh fetch: {:.1?}", started.elapsed());
        return Ok(());
    }
    Err(format!(
        "the REST clients are not installed under {} (set COPYCAT_LOCAL_KAFKA=1 or run `scripts/rest-clients.sh fetch`)",
        cache.display()
    ))
}

/// One driver's run: its exit code and output.
struct Run {
    client: &'static str,
    server: &'static str,
    code: Option<i32>,
    output: String,
}

impl Run {
    fn failed_calls(&self) -> Vec<&str> {
        self.output.lines().filter(|l| l.starts_with("FAILED ")).collect()
    }

    /// The driver's count line, `<client> driver: N ok, M failed [...]`.
    fn counts(&self) -> Option<(u32, u32)> {
        let line = self
            .output
            .lines()
            .find(|l| l.starts_with(&format!("{} driver: ", self.client)))?;
        let mut words = line.split_whitespace();
        let ok = words.nth(2)?.parse().ok()?;
        let failed = words.nth(1)?.parse().ok()?;
        Some((ok, failed))
    }
}

fn drive(client: &'static str, server: &'static str, addr: SocketAddr, dir: &Path) -> Run {
    let prefix = unique(&format!("{client}-client"));
    let topic = unique(&format!("{client}-client"));
    block_on(create_topic(&topic, 1));
    // Separate directories: the drivers grant Copycat's connectors these.
    let (input, output) = (dir.join(&prefix).join("in"), dir.join(&prefix).join("out"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&output).unwrap();
    let source = input.join("source.txt");
    std::fs::write(&source, "one\ntwo\nthree\n").unwrap();
    let sink = output.join("sink.txt");
    // Bounded: a server that stops answering fails the run (exit 124)
    // instead of holding the suite.
    let out = Command::new("timeout")
        .args([DRIVER_TIMEOUT, "bash"])
        .arg(script())
        .args(["run", client, &format!("http://{addr}"), &prefix])
        .arg(&source)
        .arg(&sink)
        .arg(&topic)
        .output()
        .unwrap();
    Run {
        client,
        server,
        code: out.status.code(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// How long one client's run may take (`timeout`'s argument); a run takes
/// 5–40 s.
const DRIVER_TIMEOUT: &str = "300";

#[test]
fn third_party_rest_clients_work_against_a_copycat_worker() {
    let missing: Vec<String> = [kafka_connect_available(), clients_available()]
        .into_iter()
        .filter_map(Result::err)
        .collect();
    if !missing.is_empty() {
        eprintln!("SKIPPED rest_clients: {}", missing.join("; "));
        return;
    }
    init_logging();
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let (kc_dir, cc_dir) = (dir.path().join("kc"), dir.path().join("cc"));
    std::fs::create_dir_all(&kc_dir).unwrap();
    std::fs::create_dir_all(&cc_dir).unwrap();

    let kc_port = free_port();
    let kc_worker = kc_dir.join("kc-worker.properties");
    std::fs::write(
        &kc_worker,
        format!(
            "bootstrap.servers={}\nkey.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n\
             offset.storage.file.filename={}\noffset.flush.interval.ms=1000\nlisteners=http://127.0.0.1:{kc_port}\n",
            bootstrap(),
            kc_dir.join("kc-offsets").display()
        ),
    )
    .unwrap();
    let mut kc = ConnectStandalone::launch(&kc_dir, "standalone", &[kc_worker]);
    let kc_addr: SocketAddr = format!("127.0.0.1:{kc_port}").parse().unwrap();
    let cc = ClusterWorker::start(&cc_dir, "copycat", &unique("rest-clients"), "");
    for (addr, what) in [(cc.addr, "Copycat"), (kc_addr, "Kafka Connect")] {
        eventually(&format!("{what} lists connectors"), Duration::from_secs(180), || {
            kc.check_running();
            std::net::TcpStream::connect(addr).ok()?;
            (http(addr, "GET", "/connectors", None).0 == 200).then_some(())
        });
    }

    // The clients run at once against Copycat, and one after the other
    // against Kafka Connect: its StandaloneHerder deadlocks when a DELETE
    // of one connector and a resume of another arrive together (4.4.0:
    // deleteConnectorConfig holds the herder and waits for the
    // MemoryConfigBackingStore, putTargetState the other way round; seen
    // in a jstack of a CI run that hung here).
    let cc_addr = cc.addr;
    let runs: Vec<Run> = std::thread::scope(|s| {
        let (kc_dir, cc_dir) = (&kc_dir, &cc_dir);
        let kc_runs = s.spawn(move || {
            CLIENTS
                .iter()
                .map(|&client| drive(client, "Kafka Connect 4.4", kc_addr, kc_dir))
                .collect::<Vec<_>>()
        });
        let cc_runs: Vec<_> = CLIENTS
            .iter()
            .map(|&client| s.spawn(move || drive(client, "Copycat", cc_addr, cc_dir)))
            .collect();
        let mut runs = kc_runs.join().unwrap();
        runs.extend(cc_runs.into_iter().map(|h| h.join().unwrap()));
        runs
    });
    kc.check_running();

    let mut problems = Vec::new();
    for run in &runs {
        eprintln!(
            "--- {} client against {}: exit {:?}, {:?} (ok, failed) ---\n{}",
            run.client,
            run.server,
            run.code,
            run.counts(),
            run.output
        );
        match run.counts() {
            Some((ok, 0)) if run.code == Some(0) && ok > 20 => {}
            counts => problems.push(format!(
                "{} client against {}: exit {:?}, counts {counts:?}, failed calls:\n    {}",
                run.client,
                run.server,
                run.code,
                run.failed_calls().join("\n    ")
            )),
        }
    }
    eprintln!("rest_clients: {} driver runs in {:.1?}", runs.len(), started.elapsed());
    drop(cc);
    kc.stop();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
