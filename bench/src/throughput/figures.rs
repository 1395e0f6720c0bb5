//! The throughput benchmark's headline figures, appended to the results
//! file (`crate::results`) that the `report` binary summarises: rates with
//! their ceilings and the goals, and CPU time per record.
//!
//! Over TLS the same figures get `-tls` scenario names: the raw clients
//! against themselves over plaintext (what TLS costs them), Copycat against
//! the raw client over TLS, and Copycat over TLS against itself over
//! plaintext.
//!
//! Invariants: a value is the median over the runs that measured it; a
//! ratio is the median of per-run ratios (both measured in the same run);
//! a figure not measured in any run is not written.

use anyhow::Result;

use super::{Args, Boundary, Pick, Run};
use crate::median;
use crate::results::{self, Goal, Record};
use crate::table::{flat, ratios};

/// The records being written, with the run's parameters.
struct Rows<'a> {
    args: &'a Args,
    out: Vec<Record>,
}

impl Rows<'_> {
    fn with_params(&self, r: Record) -> Record {
        r.param("records", self.args.records as f64)
            .param("value_size", self.args.value_size as f64)
            .param("partitions", f64::from(self.args.partitions))
    }

    /// A throughput row: the median of `values`, against the median of
    /// `ceiling` with the median of per-run ratios, `extra` after the note.
    fn throughput(
        &mut self,
        scenario: &str,
        values: &[Option<f64>],
        ceiling: Option<(&str, &[Option<f64>])>,
        goal: Option<Goal>,
        extra: &str,
    ) {
        let samples = flat(values);
        let Some(value) = median(samples.clone()) else {
            return;
        };
        let mut r = self.with_params(Record::new(scenario, "throughput", value, "rec/s").samples(samples.clone()));
        if let Some((label, c)) = ceiling
            && let Some(cm) = median(flat(c))
        {
            let per_run = ratios(values, c);
            r = r.vs(label, Some(cm), median(flat(&per_run)));
        }
        if let Some(g) = goal {
            r = r.goal(g);
        }
        let mut note = format!("median of {} runs", samples.len());
        if r.ratio.is_some() {
            note.push_str("; ratio: median of per-run ratios");
        }
        note.push_str(extra);
        self.out.push(r.note(note));
    }

    /// A CPU-per-record row against `ceiling`'s (labelled `vs`).
    fn cpu(&mut self, scenario: &str, values: &[Option<f64>], (vs, ceiling): (&str, &[Option<f64>]), what: &str) {
        let samples = flat(values);
        let Some(value) = median(samples.clone()) else { return };
        let per_run = ratios(values, ceiling);
        let r = self
            .with_params(Record::new(scenario, "cpu-per-record", value, "ns/record").samples(samples.clone()))
            .vs(vs, median(flat(ceiling)), median(flat(&per_run)))
            .note(format!(
                "median of {} runs; CPU time of the benchmark process (all threads, not the broker) ÷ records; {what}",
                samples.len()
            ));
        self.out.push(r);
    }
}

/// Append the headline figures of the runs over plaintext (`plain`) and
/// over TLS (`tls`, empty or all `None` when not measured) to the results
/// file (see `copycat_bench::results`).
pub fn record_results(args: &Args, plain: &[Run], tls: &[Run]) -> Result<()> {
    let n = args.records;
    let rates =
        |runs: &[Run], get: Pick| -> Vec<Option<f64>> { runs.iter().map(|r| get(r).map(|m| m.rate(n))).collect() };
    let cpu = |runs: &[Run], get: Pick| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(n))).collect()
    };
    // The median of per-run steady-state ratios (`both`: steady against
    // steady, else against the ceiling's whole rate), as a note.
    let steady = |runs: &[Run], get: Pick, ceil: Pick, both: bool| {
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
    let mut rows = Rows { args, out: Vec::new() };
    let runs = plain;
    let ceiling = rates(runs, |r| r.ceiling);
    let sink_ceiling = rates(runs, |r| r.sink_ceiling);
    // The per-poll boundary is the default (and Kafka Connect's); the
    // interval boundary gets its own rows.
    let eos_scenario = match args.transaction_boundary {
        Boundary::Poll => "source-eos",
        Boundary::Interval => "source-eos-interval",
    };
    rows.throughput("source-ceiling", &ceiling, None, None, "");
    let ceiling_batch = rates(runs, |r| r.ceiling_batch);
    rows.throughput(
        "source-ceiling-batch",
        &ceiling_batch,
        Some(("raw rdkafka producer", &ceiling)),
        None,
        &format!(
            "; the raw producer enqueuing {} records per rd_kafka_produce_batch call (Copycat's enqueue path)",
            args.batch_size
        ),
    );
    rows.throughput(
        "source-alo-vs-batch-ceiling",
        &rates(runs, |r| r.alo),
        Some(("raw producer with rd_kafka_produce_batch", &ceiling_batch)),
        None,
        &steady(runs, |r| r.alo, |r| r.ceiling_batch, false),
    );
    rows.throughput(
        "source-alo",
        &rates(runs, |r| r.alo),
        Some(("raw rdkafka producer", &ceiling)),
        Some(Goal::ratio_at_least(0.9)),
        &steady(runs, |r| r.alo, |r| r.ceiling, false),
    );
    rows.throughput(
        eos_scenario,
        &rates(runs, |r| r.eos),
        Some(("raw rdkafka producer", &ceiling)),
        Some(Goal::ratio_at_least(0.75)),
        &format!(
            "{}; {}; {} records{}",
            steady(runs, |r| r.eos, |r| r.ceiling, false),
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
    let ceiling_eos = rates(runs, |r| r.ceiling_eos);
    rows.throughput(
        "source-ceiling-eos",
        &ceiling_eos,
        Some(("raw rdkafka producer", &ceiling)),
        None,
        &format!("; one transaction per {} records", args.batch_size),
    );
    rows.throughput(
        "source-eos-vs-eos-ceiling",
        &rates(runs, |r| r.eos),
        Some(("raw transactional producer", &ceiling_eos)),
        None,
        &format!(
            "; both one transaction per {} records; {}",
            args.batch_size,
            args.boundary_desc()
        ),
    );
    rows.throughput("sink-ceiling", &sink_ceiling, None, None, "");
    let sink_ceiling_batch = rates(runs, |r| r.sink_ceiling_batch);
    rows.throughput(
        "sink-ceiling-batch",
        &sink_ceiling_batch,
        Some(("raw rdkafka consumer → file", &sink_ceiling)),
        None,
        "; the raw consumer taking its messages in runs (rd_kafka_consume_batch_queue), as Copycat's sink task does",
    );
    rows.throughput(
        "sink-vs-batch-ceiling",
        &rates(runs, |r| r.sink),
        Some(("raw consumer taking runs of messages", &sink_ceiling_batch)),
        None,
        "",
    );
    rows.throughput(
        "sink",
        &rates(runs, |r| r.sink),
        Some(("raw rdkafka consumer → file", &sink_ceiling)),
        Some(Goal::ratio_at_least(0.9)),
        &steady(runs, |r| r.sink, |r| r.sink_ceiling, true),
    );
    // CPU of this process per record: what the client side costs, less
    // moved by the shared machine than the rates are.
    let ceiling_cpu = cpu(runs, |r| r.ceiling);
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
        rows.cpu(scenario, &cpu(runs, get), ("raw rdkafka producer", &ceiling_cpu), what);
    }
    rows.cpu(
        "sink",
        &cpu(runs, |r| r.sink),
        ("raw rdkafka consumer → file", &cpu(runs, |r| r.sink_ceiling)),
        "Copycat file-sink, connector start included",
    );

    // Over TLS: the same clients on the SSL listener, in the same runs.
    let tls_ceiling = rates(tls, |r| r.ceiling);
    let tls_sink_ceiling = rates(tls, |r| r.sink_ceiling);
    let over_tls = "; over TLS (security.protocol=SSL, server certificate verified), same runs as plaintext";
    rows.throughput(
        "source-ceiling-tls",
        &tls_ceiling,
        Some(("raw rdkafka producer, plaintext", &ceiling)),
        None,
        over_tls,
    );
    rows.throughput(
        "source-alo-tls",
        &rates(tls, |r| r.alo),
        Some(("raw rdkafka producer over TLS", &tls_ceiling)),
        None,
        &format!("{}{over_tls}", steady(tls, |r| r.alo, |r| r.ceiling, false)),
    );
    rows.throughput(
        "source-alo-tls-vs-plaintext",
        &rates(tls, |r| r.alo),
        Some(("Copycat at-least-once, plaintext", &rates(runs, |r| r.alo))),
        None,
        over_tls,
    );
    rows.throughput(
        "sink-ceiling-tls",
        &tls_sink_ceiling,
        Some(("raw rdkafka consumer → file, plaintext", &sink_ceiling)),
        None,
        over_tls,
    );
    rows.throughput(
        "sink-tls",
        &rates(tls, |r| r.sink),
        Some(("raw rdkafka consumer → file over TLS", &tls_sink_ceiling)),
        None,
        &format!("{}{over_tls}", steady(tls, |r| r.sink, |r| r.sink_ceiling, true)),
    );
    rows.throughput(
        "sink-tls-vs-plaintext",
        &rates(tls, |r| r.sink),
        Some(("Copycat file-sink, plaintext", &rates(runs, |r| r.sink))),
        None,
        over_tls,
    );
    rows.cpu(
        "source-alo-tls",
        &cpu(tls, |r| r.alo),
        ("raw rdkafka producer over TLS", &cpu(tls, |r| r.ceiling)),
        "Copycat at-least-once over TLS, connector start included",
    );
    rows.cpu(
        "sink-tls",
        &cpu(tls, |r| r.sink),
        ("raw rdkafka consumer → file over TLS", &cpu(tls, |r| r.sink_ceiling)),
        "Copycat file-sink over TLS, connector start included",
    );
    results::append(&rows.out)
}
