//! `report`: turns the results file the benchmarks appended to
//! (`copycat_bench::results`) into the summary table between the
//! `<!-- bench-summary:start/end -->` markers of docs/BENCHMARKS.md (with
//! the machine, the date and the command to reproduce) and SVG plots in
//! docs/bench/. Scenarios missing from the file are left out of the plots
//! and listed as not run.
//!
//! `scripts/bench.sh` runs it last (`COPYCAT_BENCH_REPORT=0` skips it);
//! alone: `cargo run -p copycat-bench --bin report -- --note "…"`.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context as _, Result, anyhow};
use clap::Parser;
use copycat_bench::report::{Context, Machine, Places, render_summary, splice};
use copycat_bench::results::{self, Record, format_number};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

#[derive(Parser)]
#[command(about = "Summary table in docs/BENCHMARKS.md and SVG plots in docs/bench/ from the benchmark results file")]
struct Args {
    /// The results file (default: $COPYCAT_BENCH_RESULTS, else
    /// $CARGO_TARGET_DIR/bench-results.jsonl).
    #[arg(long)]
    results: Option<PathBuf>,
    /// The document holding the summary markers.
    #[arg(long, default_value_os_t = copycat_bench::workspace().join("docs/BENCHMARKS.md"))]
    doc: PathBuf,
    /// Where the plots go (linked from the document as `bench/<name>.svg`).
    #[arg(long, default_value_os_t = copycat_bench::workspace().join("docs/bench"))]
    plots: PathBuf,
    /// The command that reproduces the run, shown in the summary.
    #[arg(long, env = "COPYCAT_BENCH_COMMAND", default_value = "just bench")]
    command: String,
    /// A line shown in bold above the table, e.g. that this was a short
    /// development run on a shared machine.
    #[arg(long, env = "COPYCAT_BENCH_NOTE")]
    note: Option<String>,
    /// Print the summary instead of writing the document (plots are still
    /// written).
    #[arg(long)]
    dry_run: bool,
}

const WIDTH: u32 = 900;
const HEIGHT: u32 = 480;
const COLORS: [RGBColor; 6] = [
    RGBColor(0x4c, 0x72, 0xb0),
    RGBColor(0xdd, 0x84, 0x52),
    RGBColor(0x55, 0xa8, 0x68),
    RGBColor(0xc4, 0x4e, 0x52),
    RGBColor(0x81, 0x72, 0xb3),
    RGBColor(0x93, 0x78, 0x60),
];

/// Plotting errors carry the backend's error type; flatten them.
fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing: {e:?}")
}

fn find<'a>(recs: &'a [Record], scenario: &str, metric: &str) -> Option<&'a Record> {
    recs.iter().find(|r| r.scenario == scenario && r.metric == metric)
}

/// One group of bars: its label and one value per series (`None`: not run).
struct BarGroup {
    label: String,
    values: Vec<Option<f64>>,
}

/// Grouped bars on one drawing area, a value printed over each bar.
fn bar_chart(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    y_desc: &str,
    series: &[&str],
    groups: &[BarGroup],
) -> Result<()> {
    let max = groups
        .iter()
        .flat_map(|g| g.values.iter().flatten())
        .fold(0.0f64, |a, b| a.max(*b));
    let n = groups.len();
    let x: Range<f64> = -0.5..(n as f64 - 0.5);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(x, 0.0..max * 1.18)
        .map_err(plot_err)?;
    let labels: Vec<String> = groups.iter().map(|g| g.label.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        // Integer positions only (one per group): nice steps of 1 for up
        // to ten groups.
        .x_labels(n)
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc(y_desc)
        .y_label_formatter(&|v| format_number(*v))
        .draw()
        .map_err(plot_err)?;
    let k = series.len().max(1) as f64;
    let w = 0.8 / k;
    for (j, name) in series.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let bars: Vec<(f64, f64)> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                g.values
                    .get(j)
                    .copied()
                    .flatten()
                    .map(|v| (i as f64 - 0.4 + j as f64 * w, v))
            })
            .collect();
        chart
            .draw_series(
                bars.iter()
                    .map(|&(x0, v)| Rectangle::new([(x0, 0.0), (x0 + w * 0.95, v)], color.filled())),
            )
            .map_err(plot_err)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        let style = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(
                bars.iter()
                    .map(|&(x0, v)| Text::new(format_number(v), (x0 + w * 0.475, v), style.clone())),
            )
            .map_err(plot_err)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

/// Lines with points on log-log (or log-x) axes; each series: name, points.
fn line_chart(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_y: bool,
    legend: SeriesLabelPosition,
) -> Result<()> {
    let pts = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Ok(());
    }
    let xr = (x0 / 2.0)..(x1 * 2.0);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70);
    let fmt = |v: &f64| format_number(*v);
    if log_y {
        let mut chart = builder
            .build_cartesian_2d(xr.log_scale(), ((y0 / 2.0).max(1e-3)..y1 * 2.0).log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .draw()
            .map_err(plot_err)?;
        draw_lines(&mut chart, series, legend)?;
    } else {
        let mut chart = builder
            .build_cartesian_2d(xr.log_scale(), 0.0..y1 * 1.15)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .draw()
            .map_err(plot_err)?;
        draw_lines(&mut chart, series, legend)?;
    }
    Ok(())
}

fn draw_lines<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    series: &[(String, Vec<(f64, f64)>)],
    legend: SeriesLabelPosition,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (j, (name, points)) in series.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
            .map_err(plot_err)?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(plot_err)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(legend)
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

/// A chart with a goal label, or `""`.
fn goal_text(r: Option<&Record>) -> String {
    match (r.and_then(|r| r.ratio), r.and_then(|r| r.goal)) {
        (Some(ratio), Some(g)) => format!(
            " ({ratio:.2}×, goal {})",
            g.describe(&r.map_or(String::new(), |r| r.unit.clone()))
        ),
        (Some(ratio), None) => format!(" ({ratio:.2}×)"),
        _ => String::new(),
    }
}

/// Throughput against the ceiling: source at-least-once, exactly-once, sink.
fn plot_ceiling(recs: &[Record], path: &Path) -> Result<bool> {
    let mut groups = Vec::new();
    for (scenario, label) in [
        ("source-alo", "source, at-least-once"),
        ("source-eos", "source, exactly-once"),
        ("sink", "sink (file-sink)"),
    ] {
        if let Some(r) = find(recs, scenario, "throughput") {
            groups.push(BarGroup {
                label: format!("{label}{}", goal_text(Some(r))),
                values: vec![r.ceiling, Some(r.value)],
            });
        }
    }
    if groups.is_empty() {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    bar_chart(
        &root,
        "Copycat vs the raw rdkafka ceiling (medians)",
        "records/s",
        &["ceiling (raw rdkafka)", "Copycat"],
        &groups,
    )?;
    root.present().map_err(plot_err)?;
    Ok(true)
}

/// Copycat vs Kafka Connect: throughput and peak RSS, source and sink.
fn plot_kafka_connect(recs: &[Record], path: &Path) -> Result<bool> {
    let mut thr = Vec::new();
    let mut mem = Vec::new();
    for (scenario, label) in [
        ("vs-kafka-connect-source", "file source"),
        ("vs-kafka-connect-sink", "file sink"),
    ] {
        if let Some(r) = find(recs, scenario, "throughput") {
            thr.push(BarGroup {
                label: format!("{label}{}", goal_text(Some(r))),
                values: vec![r.ceiling, Some(r.value)],
            });
        }
        if let Some(r) = find(recs, scenario, "peak-rss") {
            mem.push(BarGroup {
                label: format!("{label}{}", goal_text(Some(r))),
                values: vec![r.ceiling, Some(r.value)],
            });
        }
    }
    if thr.is_empty() && mem.is_empty() {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (WIDTH * 2, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    let (left, right) = root.split_horizontally(WIDTH);
    let series = ["Kafka Connect 4.4", "Copycat"];
    if !thr.is_empty() {
        bar_chart(&left, "Throughput (medians)", "records/s", &series, &thr)?;
    }
    if !mem.is_empty() {
        bar_chart(&right, "Peak RSS of the process tree (medians)", "MiB", &series, &mem)?;
    }
    root.present().map_err(plot_err)?;
    Ok(true)
}

/// Latency p50/p99 against the rate.
fn plot_latency(recs: &[Record], path: &Path) -> Result<bool> {
    let mut series = Vec::new();
    for metric in ["p50", "p99"] {
        let mut pts: Vec<(f64, f64)> = recs
            .iter()
            .filter(|r| r.scenario == "latency" && r.metric == metric)
            .filter_map(|r| Some((*r.params.get("rate")?, r.value)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !pts.is_empty() {
            series.push((metric.to_owned(), pts));
        }
    }
    if series.is_empty() {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    line_chart(
        &root,
        "End-to-end latency, datagen → Kafka → file-sink",
        "records/s (log)",
        "ms",
        &series,
        false,
        SeriesLabelPosition::UpperLeft,
    )?;
    root.present().map_err(plot_err)?;
    Ok(true)
}

/// Boundary ns/record against the batch size, a line per record size; put
/// and poll side by side.
fn plot_boundary(recs: &[Record], path: &Path) -> Result<bool> {
    let per_size = |scenario: &str| -> Vec<(String, Vec<(f64, f64)>)> {
        let mut by: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
        for r in recs
            .iter()
            .filter(|r| r.scenario == scenario && r.metric == "per-record")
        {
            if let (Some(b), Some(s)) = (r.params.get("batch"), r.params.get("record_bytes")) {
                by.entry(*s as u64).or_default().push((*b, r.value));
            }
        }
        by.into_iter()
            .map(|(s, mut pts)| {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                (format!("{} B", format_number(s as f64)), pts)
            })
            .collect()
    };
    let (put, poll) = (per_size("boundary-put"), per_size("boundary-poll"));
    if put.is_empty() && poll.is_empty() {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (WIDTH * 2, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    let (left, right) = root.split_horizontally(WIDTH);
    if !put.is_empty() {
        line_chart(
            &left,
            "host → guest put",
            "records per call (log)",
            "ns/record (log)",
            &put,
            true,
            SeriesLabelPosition::UpperRight,
        )?;
    }
    if !poll.is_empty() {
        line_chart(
            &right,
            "guest poll → host",
            "records per call (log)",
            "ns/record (log)",
            &poll,
            true,
            SeriesLabelPosition::UpperRight,
        )?;
    }
    root.present().map_err(plot_err)?;
    Ok(true)
}

/// Density: RSS per task (and the projection for 1,000 tasks) per task count.
fn plot_density(recs: &[Record], path: &Path) -> Result<bool> {
    let mut groups: Vec<BarGroup> = recs
        .iter()
        .filter(|r| r.scenario == "density" && r.metric == "rss-per-task")
        .filter_map(|r| {
            let tasks = *r.params.get("tasks")?;
            Some(BarGroup {
                label: format!("{} tasks", format_number(tasks)),
                values: vec![Some(r.value)],
            })
        })
        .collect();
    if groups.is_empty() {
        return Ok(false);
    }
    groups.sort_by(|a, b| a.label.cmp(&b.label));
    let root = SVGBackend::new(path, (WIDTH / 2 + 100, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    bar_chart(
        &root,
        "RSS per datagen task (goal: 1 GiB / 1,000 tasks)",
        "MiB per task",
        &["RSS per task"],
        &groups,
    )?;
    root.present().map_err(plot_err)?;
    Ok(true)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let path = args.results.clone().unwrap_or_else(results::path);
    let (recs, warnings) = results::load(&path)?;
    for w in &warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    std::fs::create_dir_all(&args.plots).with_context(|| format!("creating {}", args.plots.display()))?;
    type Plot = fn(&[Record], &Path) -> Result<bool>;
    let plots: [(&str, &str, Plot); 5] = [
        ("ceiling", "Throughput against the ceiling", plot_ceiling),
        ("kafka-connect", "Copycat vs Kafka Connect", plot_kafka_connect),
        ("latency", "Latency p50/p99 against the rate", plot_latency),
        ("boundary", "Boundary ns/record against the batch size", plot_boundary),
        ("density", "Density: RSS per task", plot_density),
    ];
    let mut written = Vec::new();
    for (name, title, plot) in plots {
        let file = args.plots.join(format!("{name}.svg"));
        if plot(&recs, &file).with_context(|| format!("plotting {}", file.display()))? {
            eprintln!("wrote {}", file.display());
            written.push((title.to_owned(), format!("bench/{name}.svg")));
        }
    }
    // The summary names no path of this machine (see `Places`).
    let places = Places::detect();
    let ctx = Context {
        machine: Machine::detect(),
        date: httpdate::fmt_http_date(SystemTime::now()),
        command: places.text(&args.command),
        note: args
            .note
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .map(|n| places.text(n)),
        source: places.path(&path.display().to_string()),
        plots: written,
    };
    let block = render_summary(&recs, &ctx);
    if args.dry_run {
        println!("{block}");
        return Ok(());
    }
    let doc = std::fs::read_to_string(&args.doc).with_context(|| format!("reading {}", args.doc.display()))?;
    std::fs::write(&args.doc, splice(&doc, &block)).with_context(|| format!("writing {}", args.doc.display()))?;
    eprintln!(
        "summary of {} result(s) from {} written to {}",
        recs.len(),
        path.display(),
        args.doc.display()
    );
    Ok(())
}
