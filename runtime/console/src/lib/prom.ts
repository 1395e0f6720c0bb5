// A small parser for the Prometheus / OpenMetrics text format that `GET /metrics`
// serves, and the per-connector figures the console draws from it.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseValue(text: string): number {
  switch (text) {
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return Number(text);
  }
}

/**
 * Parses the text exposition format (Prometheus 0.0.4 and OpenMetrics 1.0):
 * comments, `# HELP` / `# TYPE` / `# UNIT` / `# EOF` lines are skipped;
 * timestamps and exemplars after the value are ignored. A malformed line is
 * skipped, not fatal: the console shows what it can.
 */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const sample = parseLine(line);
    if (sample) out.push(sample);
  }
  return out;
}

function parseLine(line: string): Sample | null {
  let i = 0;
  while (i < line.length && line[i] !== '{' && line[i] !== ' ' && line[i] !== '\t') i++;
  const name = line.slice(0, i);
  if (!name) return null;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (i >= line.length) return null;
      if (line[i] === '}') {
        i++;
        break;
      }
      const eq = line.indexOf('=', i);
      if (eq < 0) return null;
      const key = line.slice(i, eq).trim();
      i = eq + 1;
      if (line[i] !== '"') return null;
      i++;
      let value = '';
      for (;;) {
        if (i >= line.length) return null;
        const c = line[i];
        if (c === '\\') {
          const n = line[i + 1];
          value += n === 'n' ? '\n' : n === '"' ? '"' : n === '\\' ? '\\' : '\\' + (n ?? '');
          i += 2;
        } else if (c === '"') {
          i++;
          break;
        } else {
          value += c;
          i++;
        }
      }
      labels[key] = value;
    }
  }
  const rest = line.slice(i).trim().split(/\s+/);
  if (!rest[0]) return null;
  const value = parseValue(rest[0]);
  if (Number.isNaN(value) && rest[0] !== 'NaN') return null;
  return { name, labels, value };
}

/** Sum of a family's samples per connector (`connector` label). */
export function sumByConnector(samples: Sample[], name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const c = s.labels.connector;
    if (c === undefined || !Number.isFinite(s.value)) continue;
    out.set(c, (out.get(c) ?? 0) + s.value);
  }
  return out;
}

/** Per-series values of a family, keyed `connector\0task`. */
export function bySeries(samples: Sample[], name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name || s.labels.connector === undefined) continue;
    out.set(`${s.labels.connector}\u0000${s.labels.task ?? ''}`, s.value);
  }
  return out;
}

export const THROUGHPUT_FAMILIES = ['copycat_source_records_produced_total', 'copycat_sink_records_put_total'];
/** Sources: records polled whose offsets are not committed; sinks: records past the committed offsets. */
export const LAG_FAMILIES = ['copycat_source_offset_commit_lag_records', 'copycat_sink_consumer_lag_records'];

/** A counter's samples at one time. */
export interface CounterSnapshot {
  t: number; // ms
  series: Map<string, number>; // connector\0task → value (families merged)
}

export function counterSnapshot(samples: Sample[], t: number, families = THROUGHPUT_FAMILIES): CounterSnapshot {
  const series = new Map<string, number>();
  for (const f of families) {
    for (const [k, v] of bySeries(samples, f)) series.set(`${f}\u0000${k}`, v);
  }
  return { t, series };
}

/**
 * Records per second per connector between two snapshots. A series that
 * went down (a counter reset: the worker restarted) counts from zero; a
 * series that is new counts from zero too, since counters start at 0 when
 * a task first reports. Connectors without any series are absent.
 */
export function ratesByConnector(prev: CounterSnapshot, cur: CounterSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  const dt = (cur.t - prev.t) / 1000;
  if (!(dt > 0)) return out;
  for (const [key, value] of cur.series) {
    const connector = key.split('\u0000')[1];
    const before = prev.series.get(key);
    let delta: number;
    if (before === undefined) delta = 0;
    else if (value < before) delta = value;
    else delta = value - before;
    out.set(connector, (out.get(connector) ?? 0) + delta / dt);
  }
  return out;
}

/** Per-connector error and dead-letter-queue counts (the Errors page). */
export interface ErrorCounts {
  recordErrors: number;
  skipped: number;
  dlqRequests: number;
  dlqFailures: number;
  /** Latest `copycat_task_last_error_timestamp_ms` over the tasks; 0 when none. */
  lastErrorMs: number;
}

export const ERROR_FAMILIES = {
  recordErrors: 'copycat_task_record_errors_total',
  skipped: 'copycat_task_records_skipped_total',
  dlqRequests: 'copycat_task_deadletterqueue_produce_requests_total',
  dlqFailures: 'copycat_task_deadletterqueue_produce_failures_total',
  lastErrorMs: 'copycat_task_last_error_timestamp_ms',
} as const;

export function errorCounts(samples: Sample[]): Map<string, ErrorCounts> {
  const out = new Map<string, ErrorCounts>();
  const entry = (c: string) => {
    let e = out.get(c);
    if (!e) {
      e = { recordErrors: 0, skipped: 0, dlqRequests: 0, dlqFailures: 0, lastErrorMs: 0 };
      out.set(c, e);
    }
    return e;
  };
  const byName = new Map<string, keyof ErrorCounts>(
    Object.entries(ERROR_FAMILIES).map(([k, v]) => [v, k as keyof ErrorCounts]),
  );
  for (const s of samples) {
    const field = byName.get(s.name);
    const c = s.labels.connector;
    if (!field || c === undefined || !Number.isFinite(s.value)) continue;
    const e = entry(c);
    if (field === 'lastErrorMs') e.lastErrorMs = Math.max(e.lastErrorMs, s.value);
    else e[field] += s.value;
  }
  return out;
}
