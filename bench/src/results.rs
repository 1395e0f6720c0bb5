//! Machine-readable benchmark results: one JSON object per line, appended by
//! every scenario to the file named by `COPYCAT_BENCH_RESULTS` (default
//! `$CARGO_TARGET_DIR/bench-results.jsonl`, else `target/bench-results.jsonl`
//! in the workspace). `scripts/bench.sh` empties it when a suite starts; the
//! `report` binary turns it into docs/BENCHMARKS.md's summary table and the
//! plots in docs/bench/.
//!
//! A line:
//!
//! ```json
//! {"scenario":"source-alo","metric":"throughput","value":680330.0,"unit":"rec/s",
//!  "ceiling":1184472.0,"ceiling_label":"raw rdkafka producer","ratio":0.576,
//!  "goal":{"on":"ratio","op":"at_least","target":0.9},"runs":3,
//!  "note":"median of 3 runs; ratio: median of per-run ratios",
//!  "params":{"records":1000000.0},"samples":[697316.0,663343.0,671234.0],"unix_ms":1764500000000}
//! ```

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The environment variable naming the results file.
pub const RESULTS_ENV: &str = "COPYCAT_BENCH_RESULTS";

/// Which number a goal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalOn {
    /// The record's `value`.
    Value,
    /// The record's `ratio` (to the ceiling or the comparison).
    Ratio,
}

/// How the number compares with the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalOp {
    /// `>=`.
    AtLeast,
    /// `<=`.
    AtMost,
}

/// The issue's goal for a figure, e.g. ratio ≥ 0.9.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    pub on: GoalOn,
    pub op: GoalOp,
    pub target: f64,
}

impl Goal {
    /// `ratio >= target`.
    pub fn ratio_at_least(target: f64) -> Self {
        Self {
            on: GoalOn::Ratio,
            op: GoalOp::AtLeast,
            target,
        }
    }

    /// `ratio <= target`.
    pub fn ratio_at_most(target: f64) -> Self {
        Self {
            on: GoalOn::Ratio,
            op: GoalOp::AtMost,
            target,
        }
    }

    /// `value <= target`.
    pub fn value_at_most(target: f64) -> Self {
        Self {
            on: GoalOn::Value,
            op: GoalOp::AtMost,
            target,
        }
    }

    /// `value >= target`.
    pub fn value_at_least(target: f64) -> Self {
        Self {
            on: GoalOn::Value,
            op: GoalOp::AtLeast,
            target,
        }
    }

    /// Whether `rec` meets the goal; `None` if the number it is about is
    /// missing.
    pub fn met(&self, rec: &Record) -> Option<bool> {
        let x = match self.on {
            GoalOn::Value => Some(rec.value),
            GoalOn::Ratio => rec.ratio,
        }?;
        if !x.is_finite() {
            return None;
        }
        Some(match self.op {
            GoalOp::AtLeast => x >= self.target,
            GoalOp::AtMost => x <= self.target,
        })
    }

    /// E.g. `ratio ≥ 0.9`, `≤ 250 ms`.
    pub fn describe(&self, unit: &str) -> String {
        let op = match self.op {
            GoalOp::AtLeast => "≥",
            GoalOp::AtMost => "≤",
        };
        match self.on {
            GoalOn::Ratio => format!("ratio {op} {}", self.target),
            GoalOn::Value if self.target.fract() == 0.0 && self.target.abs() < 1000.0 => {
                format!("{op} {} {unit}", self.target)
            }
            GoalOn::Value => format!("{op} {} {unit}", format_number(self.target)),
        }
    }
}

/// One figure of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// E.g. `source-alo`, `sink`, `latency`, `boundary-put`.
    pub scenario: String,
    /// E.g. `throughput`, `p99`, `rss-per-task`.
    pub metric: String,
    /// The figure (a median when `runs` > 1).
    pub value: f64,
    /// E.g. `rec/s`, `ms`, `MiB`, `ns/record`.
    pub unit: String,
    /// What the figure is compared with, in the same unit (the ceiling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<f64>,
    /// What the ceiling is, e.g. `raw rdkafka producer`, `Kafka Connect`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling_label: Option<String>,
    /// `value ÷ ceiling` (or the median of per-run ratios).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// The issue's goal for this figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<Goal>,
    /// How many runs `value` summarises.
    #[serde(default = "one")]
    pub runs: u32,
    /// How `value` was reduced, e.g. `median of 3 runs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Numeric parameters that place the figure on a plot's axis
    /// (`rate`, `batch`, `record_bytes`, `tasks`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
    /// The per-run values, when there were several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<f64>,
    /// When it was recorded (ms since the Unix epoch).
    #[serde(default)]
    pub unix_ms: u64,
}

fn one() -> u32 {
    1
}

impl Record {
    /// A figure of one run.
    pub fn new(scenario: &str, metric: &str, value: f64, unit: &str) -> Self {
        Self {
            scenario: scenario.to_owned(),
            metric: metric.to_owned(),
            value,
            unit: unit.to_owned(),
            ceiling: None,
            ceiling_label: None,
            ratio: None,
            goal: None,
            runs: 1,
            note: None,
            params: BTreeMap::new(),
            samples: Vec::new(),
            unix_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        }
    }

    /// Compared with `label`'s `ceiling`; `ratio` as measured (the median
    /// of per-run ratios), or `value ÷ ceiling` if `None`.
    pub fn vs(mut self, label: &str, ceiling: Option<f64>, ratio: Option<f64>) -> Self {
        self.ceiling_label = Some(label.to_owned());
        self.ceiling = ceiling;
        self.ratio = ratio.or_else(|| ceiling.filter(|c| *c != 0.0).map(|c| self.value / c));
        self
    }

    /// The issue's goal.
    pub fn goal(mut self, goal: Goal) -> Self {
        self.goal = Some(goal);
        self
    }

    /// The per-run values `value` is the median of.
    pub fn samples(mut self, samples: Vec<f64>) -> Self {
        self.runs = samples.len().max(1) as u32;
        if samples.len() > 1 {
            self.note
                .get_or_insert_with(|| format!("median of {} runs", samples.len()));
        }
        self.samples = samples;
        self
    }

    /// `value` summarises `runs` runs (without the per-run values).
    pub fn runs(mut self, runs: usize) -> Self {
        self.runs = runs.max(1) as u32;
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    pub fn param(mut self, key: &str, value: f64) -> Self {
        self.params.insert(key.to_owned(), value);
        self
    }

    /// Whether the goal is met (`None`: no goal, or its number is missing).
    pub fn met(&self) -> Option<bool> {
        self.goal.as_ref().and_then(|g| g.met(self))
    }

    /// Identifies the figure: the same key later in a file replaces it.
    pub fn key(&self) -> String {
        let params: Vec<String> = self.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}/{}/{}", self.scenario, self.metric, params.join(","))
    }
}

/// The results file: `COPYCAT_BENCH_RESULTS`, else
/// `$CARGO_TARGET_DIR/bench-results.jsonl`, else the workspace's
/// `target/bench-results.jsonl`.
pub fn path() -> PathBuf {
    if let Some(p) = std::env::var_os(RESULTS_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|p| !p.is_empty())
        .map_or_else(|| crate::workspace().join("target"), PathBuf::from)
        .join("bench-results.jsonl")
}

/// Append records to the results file (created with its directory if
/// missing).
pub fn append(records: &[Record]) -> Result<()> {
    append_to(&path(), records)
}

/// Append records to `path`.
pub fn append_to(path: &Path, records: &[Record]) -> Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).context("serialising a result")?);
        text.push('\n');
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("appending to {}", path.display()))?;
    eprintln!("{} result(s) appended to {}", records.len(), path.display());
    Ok(())
}

/// Parse a results file's text: one record per non-empty line; later
/// records with the same [`Record::key`] replace earlier ones (in the first
/// one's place). Lines that do not parse are returned as warnings.
pub fn parse(text: &str) -> (Vec<Record>, Vec<String>) {
    let mut out: Vec<Record> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(r) => match index.get(&r.key()) {
                Some(&at) => out[at] = r,
                None => {
                    index.insert(r.key(), out.len());
                    out.push(r);
                }
            },
            Err(e) => warnings.push(format!("line {}: {e}", i + 1)),
        }
    }
    (out, warnings)
}

/// Read and parse a results file (see [`parse`]); a missing file is no
/// records.
pub fn load(path: &Path) -> Result<(Vec<Record>, Vec<String>)> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(parse(&text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((Vec::new(), Vec::new())),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// A number for a table: thousands separated for large values, three
/// significant decimals for small ones.
pub fn format_number(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_owned();
    }
    let a = x.abs();
    if x.fract() == 0.0 && a < 1000.0 {
        format!("{x:.0}")
    } else if a >= 1000.0 {
        let digits = format!("{:.0}", a);
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        if x < 0.0 { format!("-{grouped}") } else { grouped }
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_goal() {
        let r = Record::new("source-alo", "throughput", 800.0, "rec/s")
            .vs("raw rdkafka producer", Some(1000.0), None)
            .goal(Goal::ratio_at_least(0.9))
            .samples(vec![700.0, 800.0, 900.0])
            .param("records", 1000.0);
        assert_eq!(r.ratio, Some(0.8));
        assert_eq!(r.runs, 3);
        assert_eq!(r.note.as_deref(), Some("median of 3 runs"));
        assert_eq!(r.met(), Some(false));
        let line = serde_json::to_string(&r).unwrap_or_default();
        let (back, warnings) = parse(&line);
        assert!(warnings.is_empty());
        assert_eq!(back, vec![r]);
    }

    #[test]
    fn later_lines_replace_earlier_ones_and_bad_lines_warn() {
        let a = Record::new("latency", "p99", 12.0, "ms").param("rate", 100.0);
        let b = Record::new("latency", "p99", 15.0, "ms").param("rate", 1000.0);
        let a2 = Record::new("latency", "p99", 11.0, "ms").param("rate", 100.0);
        let text = [&a, &b, &a2]
            .iter()
            .map(|r| serde_json::to_string(r).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let text = format!("{text}\nnot json\n\n");
        let (recs, warnings) = parse(&text);
        assert_eq!(recs, vec![a2, b]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("line 4:"));
    }

    #[test]
    fn minimal_line_gets_defaults() {
        let (recs, warnings) = parse(r#"{"scenario":"s","metric":"m","value":1.5,"unit":"ms"}"#);
        assert!(warnings.is_empty());
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].runs, 1);
        assert_eq!(recs[0].met(), None);
    }

    #[test]
    fn goals() {
        let r = Record::new("swap", "p99", 200.0, "ms").goal(Goal::value_at_most(250.0));
        assert_eq!(r.met(), Some(true));
        assert_eq!(Goal::value_at_most(250.0).describe("ms"), "≤ 250 ms");
        assert_eq!(Goal::ratio_at_least(0.9).describe("rec/s"), "ratio ≥ 0.9");
        let no_ratio = Record::new("x", "y", 1.0, "rec/s").goal(Goal::ratio_at_least(0.9));
        assert_eq!(no_ratio.met(), None);
    }

    #[test]
    fn append_creates_and_appends() -> Result<()> {
        let dir = std::env::temp_dir().join(crate::unique("copycat-bench-results-test"));
        let file = dir.join("r.jsonl");
        append_to(&file, &[Record::new("a", "m", 1.0, "ms")])?;
        append_to(&file, &[Record::new("b", "m", 2.0, "ms")])?;
        let (recs, _) = load(&file)?;
        assert_eq!(recs.len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(load(&file)?.0.is_empty());
        Ok(())
    }

    #[test]
    fn numbers() {
        assert_eq!(format_number(1_184_472.4), "1,184,472");
        assert_eq!(format_number(-1234.0), "-1,234");
        assert_eq!(format_number(451.2), "451");
        assert_eq!(format_number(12.34), "12.3");
        assert_eq!(format_number(1.234), "1.23");
        assert_eq!(format_number(0.5761), "0.576");
        assert_eq!(format_number(f64::NAN), "-");
        assert_eq!(format_number(10.0), "10");
        assert_eq!(format_number(0.0), "0");
    }
}
