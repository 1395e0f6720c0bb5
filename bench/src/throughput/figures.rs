//! The throughput benchmark's headline figures, appended to the results
//! file (`crate::results`) that the `report` binary summarises: rates with
//! their ceilings and the goals, and CPU time per record.
//!
//! Invariants: a value is the median over the runs that measured it; a
//! ratio is the median of per-run ratios; a figure not measured in any run
//! is not written.

use anyhow::Result;

use super::{Args, Boundary, Measurement, Pick, Run};
use crate::median;
use crate::results::{self, Goal, Record};
use crate::table::{flat, ratios};

/// Append the headline figures to the results file (see
/// `copycat_bench::results`).
pub fn record_results(args: &Args, runs: &[Run]) -> Result<()> {
    let n = args.records;
    let rates = |get: fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).map(|m| m.rate(n))).collect()
    };
    let with_params = |r: Record| {
        r.param("records", n as f64)
            .param("value_size", args.value_size as f64)
            .param("partitions", f64::from(args.partitions))
    };
    let mut out = Vec::new();
    let mut push = |scenario: &str,
                    values: Vec<Option<f64>>,
                    ceiling: Option<(&str, &[Option<f64>])>,
                    goal: Option<Goal>,
                    extra: String| {
        let samples = flat(&values);
        let Some(value) = median(samples.clone()) else {
            return;
        };
        let mut r = with_params(Record::new(scenario, "throughput", value, "rec/s").samples(samples.clone()));
        if let Some((label, c)) = ceiling
            && let Some(cm) = median(flat(c))
        {
            let per_run = ratios(&values, c);
            r = r.vs(label, Some(cm), median(flat(&per_run)));
        }
        if let Some(g) = goal {
            r = r.goal(g);
        }
        let mut note = format!("median of {} runs", samples.len());
        if r.ratio.is_some() {
            note.push_str("; ratio: median of per-run ratios");
        }
        note.push_str(&extra);
        out.push(r.note(note));
    };
    let ceiling = rates(|r| r.ceiling);
    let sink_ceiling = rates(|r| r.sink_ceiling);
    // The per-poll boundary is the default (and Kafka Connect's); the
    // interval boundary gets its own rows.
    let eos_scenario = match args.transaction_boundary {
        Boundary::Poll => "source-eos",
        Boundary::Interval => "source-eos-interval",
    };
    let steady = |get: fn(&Run) -> Option<Measurement>, ceil: fn(&Run) -> Option<Measurement>, both: bool| {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| {
                let c = ceil(r)?;
                let s = get(r)?.steady?;
                Some(s / if both { c.steady? } else { c.rate(n) })
            })
            .collect();
        median(v).map_or_else(String::new, |s| format!("; steady-state ratio {s:.3}"))
    };
    push("source-ceiling", ceiling.clone(), None, None, String::new());
    let ceiling_batch = rates(|r| r.ceiling_batch);
    push(
        "source-ceiling-batch",
        ceiling_batch.clone(),
        Some(("raw rdkafka producer", &ceiling)),
        None,
        format!(
            "; the raw producer enqueuing {} records per rd_kafka_produce_batch call (Copycat's enqueue path)",
            args.batch_size
        ),
    );
    push(
        "source-alo-vs-batch-ceiling",
        rates(|r| r.alo),
        Some(("raw producer with rd_kafka_produce_batch", &ceiling_batch)),
        None,
        steady(|r| r.alo, |r| r.ceiling_batch, false),
    );
    push(
        "source-alo",
        rates(|r| r.alo),
        Some(("raw rdkafka producer", &ceiling)),
        Some(Goal::ratio_at_least(0.9)),
        steady(|r| r.alo, |r| r.ceiling, false),
    );
    push(
        eos_scenario,
        rates(|r| r.eos),
        Some(("raw rdkafka producer", &ceiling)),
        Some(Goal::ratio_at_least(0.75)),
        format!(
            "{}; {}; {} records{}",
            steady(|r| r.eos, |r| r.ceiling, false),
            args.boundary_desc(),
            args.records,
            median(
                runs.iter()
                    .filter_map(|r| r.eos?.end_wait)
                    .map(|d| d.as_secs_f64() * 1e3)
                    .collect()
            )
            .map_or_else(String::new, |ms| format!(
                "; last record polled → its commit: median {ms:.0} ms"
            ))
        ),
    );
    let ceiling_eos = rates(|r| r.ceiling_eos);
    push(
        "source-ceiling-eos",
        ceiling_eos.clone(),
        Some(("raw rdkafka producer", &ceiling)),
        None,
        format!("; one transaction per {} records", args.batch_size),
    );
    push(
        "source-eos-vs-eos-ceiling",
        rates(|r| r.eos),
        Some(("raw transactional producer", &ceiling_eos)),
        None,
        format!(
            "; both one transaction per {} records; {}",
            args.batch_size,
            args.boundary_desc()
        ),
    );
    push("sink-ceiling", sink_ceiling.clone(), None, None, String::new());
    let sink_ceiling_batch = rates(|r| r.sink_ceiling_batch);
    push(
        "sink-ceiling-batch",
        sink_ceiling_batch.clone(),
        Some(("raw rdkafka consumer → file", &sink_ceiling)),
        None,
        "; the raw consumer taking its messages in runs (rd_kafka_consume_batch_queue), as Copycat's sink task does"
            .to_owned(),
    );
    push(
        "sink-vs-batch-ceiling",
        rates(|r| r.sink),
        Some(("raw consumer taking runs of messages", &sink_ceiling_batch)),
        None,
        String::new(),
    );
    push(
        "sink",
        rates(|r| r.sink),
        Some(("raw rdkafka consumer → file", &sink_ceiling)),
        Some(Goal::ratio_at_least(0.9)),
        steady(|r| r.sink, |r| r.sink_ceiling, true),
    );
    // CPU of this process per record: what the client side costs, less
    // moved by the shared machine than the rates are.
    let cpu = |get: fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(n))).collect()
    };
    let ceiling_cpu = cpu(|r| r.ceiling);
    let cpu_rows: [(&str, Pick, &str); 4] = [
        (
            "source-ceiling-batch",
            |r| r.ceiling_batch,
            "the raw producer on rd_kafka_produce_batch",
        ),
        (
            "source-alo",
            |r| r.alo,
            "Copycat at-least-once, connector start included",
        ),
        (
            eos_scenario,
            |r| r.eos,
            "Copycat exactly-once, connector start included",
        ),
        (
            "source-ceiling-eos",
            |r| r.ceiling_eos,
            "the raw producer, transactional",
        ),
    ];
    for (scenario, get, what) in cpu_rows {
        let values = cpu(get);
        let samples = flat(&values);
        let Some(value) = median(samples.clone()) else { continue };
        let per_run = ratios(&values, &ceiling_cpu);
        out.push(
            with_params(Record::new(scenario, "cpu-per-record", value, "ns/record").samples(samples.clone()))
                .vs("raw rdkafka producer", median(flat(&ceiling_cpu)), median(flat(&per_run)))
                .note(format!(
                    "median of {} runs; CPU time of the benchmark process (all threads, not the broker) ÷ records; {what}",
                    samples.len()
                )),
        );
    }
    let sink_values = cpu(|r| r.sink);
    let sink_ceiling_cpu = cpu(|r| r.sink_ceiling);
    let samples = flat(&sink_values);
    if let Some(value) = median(samples.clone()) {
        let per_run = ratios(&sink_values, &sink_ceiling_cpu);
        out.push(
            with_params(Record::new("sink", "cpu-per-record", value, "ns/record").samples(samples.clone()))
                .vs(
                    "raw rdkafka consumer → file",
                    median(flat(&sink_ceiling_cpu)),
                    median(flat(&per_run)),
                )
                .note(format!(
                    "median of {} runs; CPU time of the benchmark process (all threads, not the broker) ÷ records; Copycat file-sink, connector start included",
                    samples.len()
                )),
        );
    }
    results::append(&out)
}
