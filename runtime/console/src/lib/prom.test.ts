import { describe, expect, it } from 'vitest';
import { counterSnapshot, errorCounts, parseMetrics, ratesByConnector, sumByConnector } from './prom';
import { MAX_GAP_MS, advance, emptyHistory, formatRate, latest } from './history';

const TEXT = `# HELP copycat_source_records_produced_total Records acknowledged.
# TYPE copycat_source_records_produced_total counter
copycat_source_records_produced_total{connector="gen",task="0"} 39
copycat_source_records_produced_total{connector="gen",task="1"} 40
copycat_sink_records_put_total{connector="sink",task="0"} 5 1700000000000
copycat_source_offset_commit_lag_records{connector="gen",task="0"} 3
copycat_source_offset_commit_lag_records{connector="gen",task="1"} 4
copycat_task_call_duration_seconds_bucket{connector="gen",task="0",call="poll",le="+Inf"} 12
copycat_cluster_members 3
weird{a="x\\"y",b="line\\nbreak",c="back\\\\slash"} 1.5e3 # {trace_id="1"} 1
bad line without value
# EOF
`;

describe('parseMetrics', () => {
  const samples = parseMetrics(TEXT);

  it('reads names, labels and values, skipping comments and bad lines', () => {
    expect(samples).toHaveLength(8);
    expect(samples[0]).toEqual({
      name: 'copycat_source_records_produced_total',
      labels: { connector: 'gen', task: '0' },
      value: 39,
    });
    expect(samples.find((s) => s.name === 'copycat_cluster_members')).toEqual({
      name: 'copycat_cluster_members',
      labels: {},
      value: 3,
    });
  });

  it('ignores timestamps and exemplars', () => {
    expect(samples.find((s) => s.name === 'copycat_sink_records_put_total')!.value).toBe(5);
    expect(samples.find((s) => s.name === 'weird')!.value).toBe(1500);
  });

  it('unescapes label values', () => {
    expect(samples.find((s) => s.name === 'weird')!.labels).toEqual({ a: 'x"y', b: 'line\nbreak', c: 'back\\slash' });
  });

  it('reads +Inf in labels and values', () => {
    const [s] = parseMetrics('x{le="+Inf"} +Inf\ny NaN\n');
    expect(s.labels.le).toBe('+Inf');
    expect(s.value).toBe(Infinity);
    expect(Number.isNaN(parseMetrics('y NaN')[0].value)).toBe(true);
  });

  it('sums per connector', () => {
    expect(sumByConnector(samples, 'copycat_source_records_produced_total')).toEqual(new Map([['gen', 79]]));
    expect(sumByConnector(samples, 'copycat_source_offset_commit_lag_records').get('gen')).toBe(7);
  });
});

describe('rates', () => {
  it('is the per-connector rate of both throughput families', () => {
    const a = counterSnapshot(parseMetrics(TEXT), 0);
    const b = counterSnapshot(
      parseMetrics(
        `copycat_source_records_produced_total{connector="gen",task="0"} 59
copycat_source_records_produced_total{connector="gen",task="1"} 60
copycat_sink_records_put_total{connector="sink",task="0"} 15`,
      ),
      2000,
    );
    const r = ratesByConnector(a, b);
    expect(r.get('gen')).toBe(20);
    expect(r.get('sink')).toBe(5);
  });

  it('treats a counter that went down as restarted from zero, and a new series as zero', () => {
    const a = counterSnapshot(parseMetrics('copycat_sink_records_put_total{connector="s",task="0"} 100'), 0);
    const b = counterSnapshot(
      parseMetrics(
        'copycat_sink_records_put_total{connector="s",task="0"} 10\ncopycat_sink_records_put_total{connector="s",task="1"} 1000',
      ),
      1000,
    );
    expect(ratesByConnector(a, b).get('s')).toBe(10);
  });

  it('has no rate without elapsed time', () => {
    const a = counterSnapshot(parseMetrics(TEXT), 5);
    expect(ratesByConnector(a, a).size).toBe(0);
  });
});

describe('history', () => {
  it('has no rate after one scrape, then one per scrape, bounded', () => {
    let h = advance(emptyHistory(), parseMetrics('copycat_sink_records_put_total{connector="s",task="0"} 0'), 0, 3);
    expect(h.series.get('s')).toEqual([{ t: 0, rate: null, lag: null }]);
    expect(latest(h.series.get('s'))).toEqual({ rate: null, lag: null });
    for (let i = 1; i <= 4; i++) {
      h = advance(h, parseMetrics(`copycat_sink_records_put_total{connector="s",task="0"} ${i * 10}`), i * 1000, 3);
    }
    const pts = h.series.get('s')!;
    expect(pts).toHaveLength(3);
    expect(pts.map((p) => p.t)).toEqual([2, 3, 4]);
    expect(latest(pts).rate).toBe(10);
  });

  it('starts afresh after a long pause between scrapes', () => {
    const text = (n: number) => `copycat_sink_records_put_total{connector="s",task="0"} ${n}`;
    let h = advance(emptyHistory(), parseMetrics(text(0)), 0);
    h = advance(h, parseMetrics(text(20)), 2000);
    expect(h.series.get('s')).toHaveLength(2);
    h = advance(h, parseMetrics(text(1000)), 2000 + MAX_GAP_MS + 1);
    expect(h.series.get('s')).toEqual([{ t: (2000 + MAX_GAP_MS + 1) / 1000, rate: null, lag: null }]);
  });

  it('keeps the lag of sources', () => {
    const h = advance(emptyHistory(), parseMetrics(TEXT), 1000);
    expect(h.series.get('gen')![0].lag).toBe(7);
    expect(h.series.get('sink')![0].lag).toBeNull();
  });

  it('says "no data yet" without a rate', () => {
    expect(formatRate(null)).toBe('no data yet');
    expect(formatRate(2.25)).toBe('2.3 rec/s');
    expect(formatRate(1500)).toBe('1.5k rec/s');
  });
});

describe('errorCounts', () => {
  it('sums error and DLQ counters per connector and keeps the latest error time', () => {
    const text = `copycat_task_record_errors_total{connector="a",task="0"} 2
copycat_task_record_errors_total{connector="a",task="1"} 3
copycat_task_records_skipped_total{connector="a",task="0"} 1
copycat_task_deadletterqueue_produce_requests_total{connector="a",task="0"} 4
copycat_task_deadletterqueue_produce_failures_total{connector="a",task="0"} 1
copycat_task_last_error_timestamp_ms{connector="a",task="0"} 100
copycat_task_last_error_timestamp_ms{connector="a",task="1"} 200
copycat_task_record_errors_total{connector="b",task="0"} 0`;
    const c = errorCounts(parseMetrics(text));
    expect(c.get('a')).toEqual({ recordErrors: 5, skipped: 1, dlqRequests: 4, dlqFailures: 1, lastErrorMs: 200 });
    expect(c.get('b')!.recordErrors).toBe(0);
  });
});
