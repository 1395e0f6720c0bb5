// Per-connector time series of throughput and lag, built from successive
// `/metrics` scrapes.

import { type CounterSnapshot, type Sample, LAG_FAMILIES, counterSnapshot, ratesByConnector, sumByConnector } from './prom';

export interface Point {
  /** Seconds since the epoch (uPlot's x unit). */
  t: number;
  /** Records per second; null when there is no rate yet. */
  rate: number | null;
  /** Records not yet committed (sources); null when the family has no series. */
  lag: number | null;
}

export interface HistoryState {
  prev: CounterSnapshot | null;
  series: Map<string, Point[]>;
}

export const MAX_POINTS = 90; // 3 minutes at one scrape every 2 s

/** A longer pause between scrapes starts the series afresh. */
export const MAX_GAP_MS = 15_000;

export function emptyHistory(): HistoryState {
  return { prev: null, series: new Map() };
}

/**
 * Adds one scrape (taken at `tMs`) to the history: a point per connector
 * that has a throughput or lag series. The first scrape has no rate
 * (a rate needs two), so its points carry `rate: null`.
 */
export function advance(state: HistoryState, samples: Sample[], tMs: number, max = MAX_POINTS): HistoryState {
  // After a pause (the page hidden, no chart on screen) the old points would
  // join the new ones across the gap, and the first rate would average it:
  // start over.
  if (state.prev && tMs - state.prev.t > MAX_GAP_MS) state = emptyHistory();
  const snap = counterSnapshot(samples, tMs);
  const rates = state.prev ? ratesByConnector(state.prev, snap) : new Map<string, number>();
  // A connector is a source or a sink: at most one of the families has it.
  const lags = new Map<string, number>();
  for (const f of LAG_FAMILIES) for (const [c, v] of sumByConnector(samples, f)) lags.set(c, (lags.get(c) ?? 0) + v);
  const connectors = new Set<string>();
  for (const key of snap.series.keys()) connectors.add(key.split('\u0000')[1]);
  for (const c of lags.keys()) connectors.add(c);
  const series = new Map<string, Point[]>();
  for (const c of connectors) {
    const old = state.series.get(c) ?? [];
    const point: Point = { t: tMs / 1000, rate: rates.get(c) ?? null, lag: lags.get(c) ?? null };
    const next = old.length >= max ? old.slice(old.length - max + 1) : old.slice();
    next.push(point);
    series.set(c, next);
  }
  return { prev: snap, series };
}

/** The latest rate and lag of a connector, for the numbers beside the charts. */
export function latest(points: Point[] | undefined): { rate: number | null; lag: number | null } {
  if (!points || points.length === 0) return { rate: null, lag: null };
  let rate: number | null = null;
  for (let i = points.length - 1; i >= 0; i--) {
    if (points[i].rate !== null) {
      rate = points[i].rate;
      break;
    }
  }
  return { rate, lag: points[points.length - 1].lag };
}

export function formatRate(rate: number | null): string {
  if (rate === null) return 'no data yet';
  if (rate >= 1000) return `${(rate / 1000).toFixed(rate >= 10000 ? 0 : 1)}k rec/s`;
  return `${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)} rec/s`;
}

export function formatCount(n: number | null): string {
  if (n === null) return 'no data yet';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return String(Math.round(n));
}
