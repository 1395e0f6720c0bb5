//! The throughput benchmark's tables on stdout: datagen → Kafka (the
//! ceilings, Copycat at-least-once and exactly-once) and Kafka → file (the
//! sink ceilings and Copycat's file-sink), a row per run and the medians,
//! then one summary line per system.
//!
//! Invariant: a ratio column is per run (both measured in the same run),
//! and its median is the median of those per-run ratios.

use super::{Args, Measure, Measurement, Pick, Run, Security};
use crate::median;
use crate::table::{Col, cell, flat, print_table, ratios};

/// What a table's title says of its transport: nothing for plaintext
/// alone, else which listener.
fn transport(args: &Args, sec: Security) -> String {
    match sec {
        Security::Plaintext if args.securities().len() > 1 => format!(", plaintext ({})", args.bootstrap),
        Security::Plaintext => String::new(),
        Security::Tls => format!(
            ", over TLS ({}, security.protocol=SSL, server certificate verified)",
            args.tls_bootstrap.as_deref().unwrap_or("?")
        ),
    }
}

/// The Kafka → file table over `sec`: the sink ceiling, Copycat's file sink
/// and their ratio per run and the medians.
pub fn report_sink(args: &Args, runs: &[Run], sec: Security) {
    let records = args.records;
    let ceiling: Vec<Option<f64>> = runs.iter().map(|r| r.sink_ceiling.map(|m| m.rate(records))).collect();
    let sink: Vec<Option<f64>> = runs.iter().map(|r| r.sink.map(|m| m.rate(records))).collect();
    let cpu = |get: &dyn Fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(records))).collect()
    };
    let mut cols = Vec::new();
    if args.measured(Measure::SinkCeiling, sec) {
        cols.push(Col::new("ceiling rec/s", 13, 0, ceiling.clone()));
        cols.push(Col::new(
            "start ms",
            8,
            0,
            runs.iter()
                .map(|r| r.sink_ceiling.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3))
                .collect(),
        ));
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.sink_ceiling)));
    }
    let batch: Vec<Option<f64>> = runs
        .iter()
        .map(|r| r.sink_ceiling_batch.map(|m| m.rate(records)))
        .collect();
    if args.measured(Measure::SinkCeilingBatch, sec) {
        cols.push(Col::new("batch rec/s", 11, 0, batch.clone()));
        if args.measured(Measure::SinkCeiling, sec) {
            cols.push(Col::new("ratio", 6, 3, ratios(&batch, &ceiling)));
        }
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.sink_ceiling_batch)));
    }
    let ratio_col = Col::new("ratio", 6, 3, ratios(&sink, &ceiling));
    let steady_col = Col::new(
        "steady",
        6,
        3,
        runs.iter()
            .map(|r| {
                r.sink
                    .and_then(|m| m.steady)
                    .zip(r.sink_ceiling.and_then(|m| m.steady))
                    .map(|(s, c)| s / c)
            })
            .collect(),
    );
    let (sink_median, ratio_median, steady_median) = (median(flat(&sink)), ratio_col.median(), steady_col.median());
    if args.measured(Measure::CopycatSink, sec) {
        cols.push(Col::new("sink rec/s", 10, 0, sink.clone()));
        if args.measured(Measure::SinkCeiling, sec) {
            cols.push(ratio_col);
        }
        cols.push(Col::new(
            "start ms",
            8,
            0,
            runs.iter()
                .map(|r| r.sink.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3))
                .collect(),
        ));
        if args.measured(Measure::SinkCeiling, sec) {
            cols.push(steady_col);
        }
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.sink)));
        if args.measured(Measure::SinkCeilingBatch, sec) {
            cols.push(Col::new("sink/batch", 10, 3, ratios(&sink, &batch)));
        }
    }
    println!();
    println!(
        "Kafka → file, {} records × {} B, {} partitions (one pre-filled topic per run, read by both){}",
        records,
        args.value_size,
        args.partitions,
        transport(args, sec)
    );
    println!(" (ceiling = a raw rdkafka consumer with the sink task's consumer settings writing each value as a line");
    println!(
        " through a BufWriter, fsync at the end; sink = Copycat's file-sink component, at-least-once, tasks.max=1;"
    );
    println!(" both timed from start (consumer creation / start_connector, group join included) to the last line");
    println!(" written; start ms: to the first record / first line; steady = rec/s after that, sink ÷ ceiling;");
    println!(" cpu ns = CPU time of this process (all threads, not the broker) per record;");
    println!(" batch = the same raw consumer taking its messages in runs, as Copycat's sink task does)");
    print_table(&cols, runs.len());
    match (sink_median, ratio_median, steady_median) {
        (Some(rate), Some(ratio), Some(steady)) => println!(
            "Copycat file-sink: {rate:.0} rec/s, {ratio:.3} of the sink ceiling (median of per-run ratios), steady state {steady:.3}"
        ),
        (Some(rate), Some(ratio), None) => {
            println!("Copycat file-sink: {rate:.0} rec/s, {ratio:.3} of the sink ceiling (median of per-run ratios)")
        }
        (Some(rate), _, _) => println!("Copycat file-sink: {rate:.0} rec/s"),
        _ => {}
    }
}

/// A summary line: what, rec/s, ratio to the ceiling, steady-state ratio.
type SummaryLine = (String, Option<f64>, Option<f64>, Option<f64>);

/// The columns of a variant of the raw producer (its rec/s and, with the
/// ceiling measured, its ratio to it) and its summary line.
fn variant_columns(
    with_ceiling: bool,
    cols: &mut Vec<Col>,
    summary: &mut Vec<SummaryLine>,
    (head, width): (&'static str, usize),
    desc: String,
    rate: &[Option<f64>],
    ceiling: &[Option<f64>],
) {
    let rate_col = Col::new(head, width, 0, rate.to_vec());
    let ratio_col = Col::new("ratio", 6, 3, ratios(rate, ceiling));
    summary.push((desc, rate_col.median(), ratio_col.median(), None));
    cols.push(rate_col);
    if with_ceiling {
        cols.push(ratio_col);
    }
}

/// The datagen → Kafka table over `sec`: each measured source, per run and
/// the medians, then a summary line each.
pub fn report(args: &Args, runs: &[Run], sec: Security) {
    let records = args.records;
    let mb = |rate: f64| rate * args.value_size as f64 / 1e6;
    let ceiling: Vec<Option<f64>> = runs.iter().map(|r| r.ceiling.map(|m| m.rate(records))).collect();
    let mut cols = Vec::new();
    let cpu = |get: &dyn Fn(&Run) -> Option<Measurement>| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).and_then(|m| m.cpu_ns(records))).collect()
    };
    if args.measured(Measure::Ceiling, sec) {
        cols.push(Col::new("ceiling rec/s", 13, 0, ceiling.clone()));
        cols.push(Col::new("MB/s", 6, 1, ceiling.iter().map(|c| c.map(mb)).collect()));
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.ceiling)));
    }
    let mut summary: Vec<SummaryLine> = Vec::new();
    if args.measured(Measure::CeilingBatch, sec) {
        let rate: Vec<Option<f64>> = runs.iter().map(|r| r.ceiling_batch.map(|m| m.rate(records))).collect();
        let desc = format!(
            "ceiling-batch (the raw producer, rd_kafka_produce_batch per {} records)",
            args.batch_size
        );
        variant_columns(
            args.measured(Measure::Ceiling, sec),
            &mut cols,
            &mut summary,
            ("batch rec/s", 11),
            desc,
            &rate,
            &ceiling,
        );
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.ceiling_batch)));
        if args.measured(Measure::Copycat, sec) {
            let alo: Vec<Option<f64>> = runs.iter().map(|r| r.alo.map(|m| m.rate(records))).collect();
            cols.push(Col::new("alo/batch", 9, 3, ratios(&alo, &rate)));
        }
    }
    if args.measured(Measure::CeilingEos, sec) {
        let rate: Vec<Option<f64>> = runs.iter().map(|r| r.ceiling_eos.map(|m| m.rate(records))).collect();
        let desc = format!(
            "ceiling-eos (the raw producer, one transaction per {} records)",
            args.batch_size
        );
        variant_columns(
            args.measured(Measure::Ceiling, sec),
            &mut cols,
            &mut summary,
            ("ceil-eos rec/s", 10),
            desc,
            &rate,
            &ceiling,
        );
        cols.push(Col::new("cpu ns", 6, 0, cpu(&|r| r.ceiling_eos)));
    }
    for measure in [Measure::Copycat, Measure::CopycatEos] {
        if !args.measures(measure) {
            continue;
        }
        let eos = measure == Measure::CopycatEos;
        let heads = if eos {
            ["eos rec/s", "ratio", "start ms", "steady", "txns"]
        } else {
            ["alo rec/s", "ratio", "start ms", "steady", "-"]
        };
        let desc = if eos {
            format!("Copycat exactly-once ({})", args.boundary_desc())
        } else {
            "Copycat at-least-once".to_owned()
        };
        let get = |r: &Run| if eos { r.eos } else { r.alo };
        let ms: Vec<Option<Measurement>> = runs.iter().map(get).collect();
        let rate: Vec<Option<f64>> = ms.iter().map(|m| m.map(|m| m.rate(records))).collect();
        let ratio: Vec<Option<f64>> = rate
            .iter()
            .zip(&ceiling)
            .map(|(k, c)| k.zip(*c).map(|(k, c)| k / c))
            .collect();
        let steady: Vec<Option<f64>> = ms
            .iter()
            .zip(&ceiling)
            .map(|(m, c)| m.and_then(|m| m.steady).zip(*c).map(|(s, c)| s / c))
            .collect();
        let start = ms
            .iter()
            .map(|m| m.and_then(|m| m.startup).map(|d| d.as_secs_f64() * 1e3))
            .collect();
        let ratio_col = Col::new(heads[1], 6, 3, ratio);
        let steady_col = Col::new(heads[3], 6, 3, steady);
        let rate_col = Col::new(heads[0], 10, 0, rate);
        summary.push((desc, rate_col.median(), ratio_col.median(), steady_col.median()));
        cols.push(rate_col);
        if args.measured(Measure::Ceiling, sec) {
            cols.push(ratio_col);
        }
        cols.push(Col::new(heads[2], 8, 0, start));
        if args.measured(Measure::Ceiling, sec) {
            cols.push(steady_col);
        }
        cols.push(Col::new("cpu ns", 6, 0, cpu(&get)));
        if eos {
            let txns = ms
                .iter()
                .map(|m| m.and_then(|m| m.transactions).map(|t| t as f64))
                .collect();
            cols.push(Col::new(heads[4], 5, 0, txns));
            let end_wait = ms
                .iter()
                .map(|m| m.and_then(|m| m.end_wait).map(|d| d.as_secs_f64() * 1e3))
                .collect();
            cols.push(Col::new("end ms", 6, 0, end_wait));
            if args.measured(Measure::CeilingEos, sec) {
                let eos_rate: Vec<Option<f64>> = ms.iter().map(|m| m.map(|m| m.rate(records))).collect();
                let ceiling_eos = runs
                    .iter()
                    .map(|r| r.ceiling_eos.map(|m| m.rate(records)))
                    .collect::<Vec<_>>();
                cols.push(Col::new("eos/ceil-eos", 12, 3, ratios(&eos_rate, &ceiling_eos)));
            }
        }
    }

    println!();
    println!(
        "datagen → Kafka, {} records × {} B, {} partitions, batch {} (poll.max.records){}",
        records,
        args.value_size,
        args.partitions,
        args.batch_size,
        transport(args, sec)
    );
    println!(
        "(idempotent producer, acks=all, linger.ms=5; MB/s counts value bytes only, {} B per record, 1 MB = 10^6 B;",
        args.value_size
    );
    println!(
        " alo = Copycat at-least-once, eos = Copycat exactly-once ({});",
        args.boundary_desc()
    );
    println!(" ratio = rec/s ÷ the same run's ceiling rec/s; Copycat time includes connector start-up (start ms:");
    println!(" until the first record is in the topic, eos: until the first transaction committed);");
    println!(" steady = rec/s after that ÷ ceiling rec/s; txns = transactions committed; end ms = from the");
    println!(" last record polled to its transaction's commit (sampled every 20 ms);");
    println!(" ceil-eos = the raw producer, transactional, one transaction per batch; eos/ceil-eos = eos ÷ ceil-eos;");
    println!(" cpu ns = CPU time of this process (all threads, not the broker) per record)");
    print_table(&cols, runs.len());
    for (desc, rate, ratio, steady) in &summary {
        match (rate, ratio, steady) {
            (Some(rate), Some(ratio), Some(steady)) => println!(
                "{desc}: {rate:.0} rec/s, {ratio:.3} of the ceiling (median of per-run ratios), steady state {steady:.3}"
            ),
            (Some(rate), Some(ratio), None) => {
                println!("{desc}: {rate:.0} rec/s, {ratio:.3} of the ceiling (median of per-run ratios)")
            }
            (Some(rate), _, _) => println!("{desc}: {rate:.0} rec/s"),
            _ => {}
        }
    }
    let eos_vs_alo: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.alo.zip(r.eos).map(|(a, e)| e.rate(records) / a.rate(records)))
        .collect();
    if let Some(r) = median(eos_vs_alo) {
        println!("exactly-once / at-least-once (median of per-run ratios): {r:.3}");
    }
}

/// Over TLS beside plaintext: for the raw clients and Copycat, source and
/// sink, the median rec/s over each transport, Copycat ÷ its raw client's
/// ratio over each, and TLS ÷ plaintext (what TLS costs), each ratio the
/// median of per-run ratios (both measured in the same run).
pub fn report_tls(args: &Args, plain: &[Run], tls: &[Run]) {
    let records = args.records;
    let rates = |runs: &[Run], get: Pick| -> Vec<Option<f64>> {
        runs.iter().map(|r| get(r).map(|m| m.rate(records))).collect()
    };
    // (label, measure, its ceiling (None: it is one)).
    let rows: [(&str, Measure, Pick, Option<Pick>); 4] = [
        ("source: raw producer (ceiling)", Measure::Ceiling, |r| r.ceiling, None),
        (
            "source: Copycat at-least-once",
            Measure::Copycat,
            |r| r.alo,
            Some(|r| r.ceiling),
        ),
        (
            "sink: raw consumer → file (ceiling)",
            Measure::SinkCeiling,
            |r| r.sink_ceiling,
            None,
        ),
        (
            "sink: Copycat file-sink",
            Measure::CopycatSink,
            |r| r.sink,
            Some(|r| r.sink_ceiling),
        ),
    ];
    println!();
    println!(
        "Over TLS beside plaintext ({} records × {} B, {} partitions; TLS: {}, security.protocol=SSL)",
        records,
        args.value_size,
        args.partitions,
        args.tls_bootstrap.as_deref().unwrap_or("?")
    );
    println!(" (rec/s: medians; ratio = Copycat ÷ the raw client over the same transport in the same run;");
    println!(" TLS ÷ plain = rec/s over TLS ÷ over plaintext in the same run; ratios: medians of per-run ratios)");
    println!(
        "{:<36} {:>15} {:>6} {:>13} {:>6} {:>12}",
        "", "plaintext rec/s", "ratio", "TLS rec/s", "ratio", "TLS ÷ plain"
    );
    let mut lines = Vec::new();
    for (label, m, get, ceiling) in rows {
        if !args.measured(m, Security::Plaintext) && !args.measured(m, Security::Tls) {
            continue;
        }
        let (p, t) = (rates(plain, get), rates(tls, get));
        let ratio = |runs: &[Run], v: &[Option<f64>]| ceiling.and_then(|c| median(flat(&ratios(v, &rates(runs, c)))));
        let (p_ratio, t_ratio) = (ratio(plain, &p), ratio(tls, &t));
        let cost = median(flat(&ratios(&t, &p)));
        println!(
            "{label:<36} {} {} {} {} {}",
            cell(median(flat(&p)), 15, 0),
            cell(p_ratio, 6, 3),
            cell(median(flat(&t)), 13, 0),
            cell(t_ratio, 6, 3),
            cell(cost, 12, 3)
        );
        if let (Some(c), Some(pr), Some(tr)) = (cost, p_ratio, t_ratio) {
            lines.push(format!(
                "{}: {tr:.3} of the raw client over TLS ({pr:.3} over plaintext), TLS at {c:.3} of its plaintext rate",
                label.replacen(':', ",", 1)
            ));
        }
    }
    for l in lines {
        println!("{l}");
    }
}
