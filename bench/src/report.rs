//! The text half of the `report` binary: the machine a suite ran on, the
//! summary table rendered from the results file, and splicing it into
//! docs/BENCHMARKS.md between the summary markers. (The plots are in
//! `src/bin/report.rs`.)
//!
//! Invariant: the block names no path of the machine it ran on. The results
//! file is named by how it was found (`$CARGO_TARGET_DIR/...`, relative to
//! the workspace, ...), and the same places are replaced in the command and
//! the note ([`Places`]).

use std::fmt::Write as _;
use std::process::Command;

use crate::results::{Record, format_number};

/// Opens the generated block in docs/BENCHMARKS.md.
pub const START_MARKER: &str = "<!-- bench-summary:start -->";
/// Closes it.
pub const END_MARKER: &str = "<!-- bench-summary:end -->";

/// The scenario groups the suite runs (the results' scenario prefixes), in
/// the order of the table, with what produces them.
pub const GROUPS: &[(&str, &str)] = &[
    ("source", "copycat-bench: datagen → Kafka vs a raw rdkafka producer"),
    ("sink", "copycat-bench: Kafka → file-sink vs a raw rdkafka consumer"),
    ("limits", "limits: the sandbox's limits, no Kafka"),
    ("boundary", "boundary (criterion): the guest boundary per record"),
    ("swap", "swap: hot-swap pause"),
    ("failover", "failover: a dead or leaving worker's tasks elsewhere"),
    ("latency", "latency: datagen → Kafka → file-sink"),
    ("density", "density: many tasks in one worker"),
    ("languages", "languages: the counter source per language"),
    ("vs-kafka-connect", "kafka_connect: against Kafka Connect 4.4"),
    (
        "converters",
        "converters: Kafka Connect's converters on the source path, against the byte path and Kafka Connect 4.4",
    ),
    (
        "hdfs",
        "hdfs: Kafka → hdfs-sink vs a raw WebHDFS writer of the same files",
    ),
];

/// The group of a scenario name (its longest matching prefix in [`GROUPS`]).
pub fn group_of(scenario: &str) -> Option<&'static str> {
    GROUPS
        .iter()
        .map(|(g, _)| *g)
        .filter(|g| scenario == *g || scenario.starts_with(&format!("{g}-")))
        .max_by_key(|g| g.len())
}

/// What the suite ran on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub ram_gib: f64,
    pub kernel: String,
    pub rustc: String,
    pub librdkafka: String,
    pub rdkafka_crate: String,
    pub wasmtime: String,
    pub load: String,
}

impl Machine {
    /// Read from /proc, `rustc --version`, librdkafka and the workspace's
    /// Cargo.lock; what cannot be read is `unknown`.
    pub fn detect() -> Self {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let cpuinfo = read("/proc/cpuinfo");
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_else(|| "unknown".to_owned());
        let cores = cpuinfo.lines().filter(|l| l.starts_with("processor")).count();
        let cores = if cores > 0 {
            cores
        } else {
            std::thread::available_parallelism().map_or(0, usize::from)
        };
        let ram_gib = read("/proc/meminfo")
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kib| kib / (1024.0 * 1024.0));
        let kernel = or_unknown(read("/proc/sys/kernel/osrelease").trim());
        let load = or_unknown(
            &read("/proc/loadavg")
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" "),
        );
        let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned()))
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map_or_else(|| "unknown".to_owned(), |s| or_unknown(s.trim()));
        let (_, librdkafka) = rdkafka::util::get_rdkafka_version();
        let lock = std::fs::read_to_string(crate::workspace().join("Cargo.lock")).unwrap_or_default();
        Self {
            cpu,
            cores,
            ram_gib,
            kernel,
            rustc,
            librdkafka,
            rdkafka_crate: or_unknown(&lock_version(&lock, "rdkafka").unwrap_or_default()),
            wasmtime: or_unknown(&lock_version(&lock, "wasmtime").unwrap_or_default()),
            load,
        }
    }

    /// One Markdown line.
    pub fn describe(&self) -> String {
        format!(
            "{}, {} logical CPUs, {:.1} GiB RAM, Linux {}; {}; librdkafka {} (rdkafka {}), wasmtime {}; load average {} (1, 5, 15 min) when the report was written",
            self.cpu,
            self.cores,
            self.ram_gib,
            self.kernel,
            self.rustc,
            self.librdkafka,
            self.rdkafka_crate,
            self.wasmtime,
            self.load
        )
    }
}

fn or_unknown(s: &str) -> String {
    if s.is_empty() {
        "unknown".to_owned()
    } else {
        s.to_owned()
    }
}

/// A package's version in a Cargo.lock's text (the first entry).
pub fn lock_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == wanted {
            let v = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(v.to_owned());
        }
    }
    None
}

/// What the block says besides the table.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub machine: Machine,
    /// When the report was written (e.g. an HTTP date).
    pub date: String,
    /// The command that reproduces the run.
    pub command: String,
    /// E.g. "development run: short record counts, shared machine".
    pub note: Option<String>,
    /// The results file it was read from, as [`Places::path`] names it.
    pub source: String,
    /// Plots written, as (title, path relative to the document).
    pub plots: Vec<(String, String)>,
}

/// Directories of the machine the suite ran on, each with the name the
/// summary shows instead (e.g. `$CARGO_TARGET_DIR`, or `` for the
/// workspace: paths under it are shown relative to it), most specific
/// first.
#[derive(Debug, Clone, Default)]
pub struct Places(Vec<(String, String)>);

impl Places {
    /// `(directory, name)` pairs; empty directories are ignored.
    pub fn new(places: impl IntoIterator<Item = (String, String)>) -> Self {
        let mut v: Vec<(String, String)> = places
            .into_iter()
            .map(|(dir, name)| (dir.trim_end_matches('/').to_owned(), name))
            .filter(|(dir, _)| !dir.is_empty())
            .collect();
        // Longest first: a target directory inside the workspace or $HOME
        // is named as itself, not as a path under them.
        v.sort_by_key(|(dir, _)| std::cmp::Reverse(dir.len()));
        Self(v)
    }

    /// This run's places: `$CARGO_TARGET_DIR`, the workspace, the temp
    /// directory and `~`.
    pub fn detect() -> Self {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        Self::new([
            (var("CARGO_TARGET_DIR"), "$CARGO_TARGET_DIR".to_owned()),
            (crate::workspace().display().to_string(), String::new()),
            (std::env::temp_dir().display().to_string(), "$TMPDIR".to_owned()),
            (var("HOME"), "~".to_owned()),
        ])
    }

    /// A file's name for the summary: under a place, the place's name and
    /// the rest of the path; elsewhere, only the file's own name.
    pub fn path(&self, path: &str) -> String {
        for (dir, name) in &self.0 {
            if let Some(rest) = path.strip_prefix(dir.as_str())
                && let Some(rest) = rest.strip_prefix('/')
            {
                return if name.is_empty() {
                    rest.to_owned()
                } else {
                    format!("{name}/{rest}")
                };
            }
        }
        std::path::Path::new(path)
            .file_name()
            .map_or_else(|| path.to_owned(), |f| f.to_string_lossy().into_owned())
    }

    /// `text` with every place replaced by its name (the workspace by `.`).
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (dir, name) in &self.0 {
            out = out.replace(dir.as_str(), if name.is_empty() { "." } else { name });
        }
        out
    }
}

/// A parameter: integers without decimals.
fn format_param(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        if v.abs() >= 1000.0 {
            format_number(v)
        } else {
            format!("{v:.0}")
        }
    } else {
        format_number(v)
    }
}

/// Whether a record gets a row: the boundary's 40 figures are plotted, and
/// only the one with the goal and the typed rows (each against a
/// byte batch) are in the table.
fn in_table(r: &Record) -> bool {
    group_of(&r.scenario) != Some("boundary") || r.goal.is_some() || r.ceiling_label.is_some()
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn with_unit(v: f64, unit: &str) -> String {
    format!("{} {unit}", format_number(v))
}

/// The summary block (without the markers): context, the table, what was
/// not run, the plots.
pub fn render_summary(records: &[Record], ctx: &Context) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Summary (generated)");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Written by `cargo run -p copycat-bench --bin report` from `{}`; do not edit by hand.",
        ctx.source
    );
    let _ = writeln!(s);
    if let Some(note) = &ctx.note {
        let _ = writeln!(s, "**{note}**");
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "- Date: {}", ctx.date);
    let _ = writeln!(s, "- Machine: {}", ctx.machine.describe());
    let _ = writeln!(s, "- Reproduce: `{}`", ctx.command);
    let _ = writeln!(s);
    if records.is_empty() {
        let _ = writeln!(s, "No results recorded.");
    } else {
        let _ = writeln!(
            s,
            "| scenario | figure | value | compared with | ratio | goal | met? | runs / how |"
        );
        let _ = writeln!(s, "|---|---|---:|---|---:|---|---|---|");
        let mut sorted: Vec<&Record> = records.iter().filter(|r| in_table(r)).collect();
        // By group in the suite's order; within a group, as recorded.
        sorted.sort_by_key(|r| {
            group_of(&r.scenario)
                .and_then(|g| GROUPS.iter().position(|(name, _)| *name == g))
                .unwrap_or(GROUPS.len())
        });
        for r in sorted {
            let mut figure = r.metric.clone();
            let params: Vec<String> = r
                .params
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "records" | "value_size" | "partitions"))
                .map(|(k, v)| format!("{k} {}", format_param(*v)))
                .collect();
            if !params.is_empty() {
                let _ = write!(figure, " ({})", params.join(", "));
            }
            let compared = match (&r.ceiling_label, r.ceiling) {
                (Some(l), Some(c)) => format!("{l}: {}", with_unit(c, &r.unit)),
                (Some(l), None) => l.clone(),
                _ => String::new(),
            };
            let ratio = r.ratio.map(format_number).unwrap_or_default();
            let goal = r.goal.map(|g| g.describe(&r.unit)).unwrap_or_default();
            let met = match r.met() {
                Some(true) => "yes",
                Some(false) => "**no**",
                None if r.goal.is_some() => "?",
                None => "",
            };
            let how = match &r.note {
                Some(n) => format!("{}: {n}", r.runs),
                None => r.runs.to_string(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                escape(&r.scenario),
                escape(&figure),
                with_unit(r.value, &r.unit),
                escape(&compared),
                ratio,
                escape(&goal),
                met,
                escape(&how)
            );
        }
    }
    let hidden = records.iter().filter(|r| !in_table(r)).count();
    if hidden > 0 {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "{hidden} more boundary figures (every batch size × record size) are in the boundary plot below."
        );
    }
    let missing: Vec<&str> = GROUPS
        .iter()
        .filter(|(g, _)| !records.iter().any(|r| group_of(&r.scenario) == Some(*g)))
        .map(|(_, what)| *what)
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "Not run this time: {}.", missing.join("; "));
    }
    if !ctx.plots.is_empty() {
        let _ = writeln!(s);
        for (title, path) in &ctx.plots {
            let _ = writeln!(s, "![{title}]({path})");
        }
    }
    s
}

/// `doc` with the text between the markers replaced by `block`; without
/// markers, the block (with markers) goes after the first line (the title).
pub fn splice(doc: &str, block: &str) -> String {
    let body = format!("{START_MARKER}\n{}\n{END_MARKER}", block.trim_end());
    if let (Some(a), Some(b)) = (doc.find(START_MARKER), doc.find(END_MARKER))
        && a < b
    {
        return format!("{}{body}{}", &doc[..a], &doc[b + END_MARKER.len()..]);
    }
    match doc.split_once('\n') {
        Some((title, rest)) => format!("{title}\n\n{body}\n\n{}", rest.trim_start_matches('\n')),
        None => format!("{doc}\n\n{body}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Goal;

    fn ctx() -> Context {
        Context {
            date: "Mon, 01 Dec 2026 10:00:00 GMT".into(),
            command: "just bench".into(),
            note: Some("development run".into()),
            source: "target/bench-results.jsonl".into(),
            ..Context::default()
        }
    }

    #[test]
    fn places_hide_the_machine_s_paths() {
        let places = Places::new([
            ("/home/me".to_owned(), "~".to_owned()),
            ("/work/copycat".to_owned(), String::new()),
            (
                "/home/me/.cache/copycat/target/".to_owned(),
                "$CARGO_TARGET_DIR".to_owned(),
            ),
            (String::new(), "ignored".to_owned()),
        ]);
        assert_eq!(
            places.path("/home/me/.cache/copycat/target/bench-results.jsonl"),
            "$CARGO_TARGET_DIR/bench-results.jsonl"
        );
        assert_eq!(places.path("/work/copycat/target/r.jsonl"), "target/r.jsonl");
        assert_eq!(places.path("/home/me/r.jsonl"), "~/r.jsonl");
        assert_eq!(places.path("/srv/results/r.jsonl"), "r.jsonl");
        assert_eq!(places.path("/work/copycatx/r.jsonl"), "r.jsonl");
        assert_eq!(
            places.text("X=/work/copycat/build scripts/bench.sh --sink-dir /home/me/tmp"),
            "X=./build scripts/bench.sh --sink-dir ~/tmp"
        );
    }

    #[test]
    fn groups() {
        assert_eq!(group_of("source-alo"), Some("source"));
        assert_eq!(group_of("sink"), Some("sink"));
        assert_eq!(group_of("sink-ceiling"), Some("sink"));
        assert_eq!(group_of("vs-kafka-connect-sink"), Some("vs-kafka-connect"));
        assert_eq!(group_of("boundary-put"), Some("boundary"));
        assert_eq!(group_of("sinkhole"), None);
    }

    #[test]
    fn table_rows_goals_and_missing_groups() {
        let recs = vec![
            Record::new("latency", "p99", 12.5, "ms").param("rate", 1000.0),
            Record::new("sink", "throughput", 450_000.0, "rec/s")
                .vs("raw rdkafka consumer → file", Some(600_000.0), Some(0.75))
                .goal(Goal::ratio_at_least(0.9))
                .samples(vec![440_000.0, 450_000.0, 460_000.0])
                .param("records", 1e6),
            Record::new("swap-exactly-once", "p99", 120.0, "ms").goal(Goal::value_at_most(250.0)),
        ];
        let out = render_summary(&recs, &ctx());
        assert!(out.contains("**development run**"), "{out}");
        assert!(out.contains("- Reproduce: `just bench`"));
        // Sorted by group: sink before swap before latency.
        let sink = out.find("| sink | throughput |").unwrap_or(usize::MAX);
        let swap = out.find("| swap-exactly-once |").unwrap_or(usize::MAX);
        let lat = out.find("| latency | p99 (rate 1,000) |").unwrap_or(usize::MAX);
        assert!(sink < swap && swap < lat, "{out}");
        assert!(out.contains(
            "| sink | throughput | 450,000 rec/s | raw rdkafka consumer → file: 600,000 rec/s | 0.750 | ratio ≥ 0.9 | **no** | 3: median of 3 runs |"
        ), "{out}");
        assert!(out.contains("| ≤ 250 ms | yes |"), "{out}");
        assert!(
            out.contains("Not run this time: copycat-bench: datagen → Kafka"),
            "{out}"
        );
        assert!(!out.contains("latency: datagen → Kafka → file-sink;"), "{out}");
    }

    #[test]
    fn boundary_rows_only_with_a_goal_and_integer_params() {
        let recs = vec![
            Record::new("boundary-put", "per-record", 300.0, "ns/record")
                .param("batch", 1000.0)
                .param("record_bytes", 100.0)
                .goal(Goal::value_at_most(50.0)),
            Record::new("boundary-put", "per-record", 5000.0, "ns/record")
                .param("batch", 1.0)
                .param("record_bytes", 10.0),
            Record::new("boundary-typed-datagen", "per-record", 900.0, "ns/record")
                .vs("datagen bytes mode", Some(60.0), None)
                .param("batch", 1000.0),
        ];
        let out = render_summary(&recs, &ctx());
        assert!(
            out.contains("| boundary-put | per-record (batch 1,000, record_bytes 100) | 300 ns/record |"),
            "{out}"
        );
        assert!(out.contains("| ≤ 50 ns/record | **no** |"), "{out}");
        assert!(!out.contains("1.00"), "{out}");
        assert!(out.contains("1 more boundary figures"), "{out}");
        assert!(out.contains("| boundary-typed-datagen |"), "{out}");
    }

    #[test]
    fn splice_replaces_between_markers_or_inserts_after_the_title() {
        let doc = format!("# T\n\nintro\n{START_MARKER}\nold\n{END_MARKER}\nrest\n");
        let out = splice(&doc, "new\n");
        assert_eq!(out, format!("# T\n\nintro\n{START_MARKER}\nnew\n{END_MARKER}\nrest\n"));
        // Idempotent.
        assert_eq!(splice(&out, "new"), out);
        let out = splice("# T\n\nintro\n", "new");
        assert_eq!(out, format!("# T\n\n{START_MARKER}\nnew\n{END_MARKER}\n\nintro\n"));
    }

    #[test]
    fn cargo_lock_versions() {
        let lock = "[[package]]\nname = \"wasmtime\"\nversion = \"48.0.8\"\n\n[[package]]\nname = \"wasmtime-wasi\"\nversion = \"48.0.8\"\n";
        assert_eq!(lock_version(lock, "wasmtime").as_deref(), Some("48.0.8"));
        assert_eq!(lock_version(lock, "rdkafka"), None);
    }

    #[test]
    fn machine_detects_something() {
        let m = Machine::detect();
        assert!(m.cores >= 1);
        assert!(!m.describe().is_empty());
    }
}
