// One poller of `/metrics` shared by every chart and table on screen: it
// runs only while something subscribes and the page is visible.

import { apiText, describeError } from './api';
import { type HistoryState, advance, emptyHistory } from './history';
import { type Sample, parseMetrics } from './prom';
import { POLL_MS, onVisibilityChange, pageVisible } from './visibility';

export interface MetricsView {
  history: HistoryState;
  samples: Sample[];
  /** Set when the last scrape failed. */
  error: string | null;
  /** At least one scrape answered. */
  loaded: boolean;
}

let view: MetricsView = { history: emptyHistory(), samples: [], error: null, loaded: false };
const subscribers = new Set<(v: MetricsView) => void>();
let timer: ReturnType<typeof setTimeout> | null = null;
let inFlight = false;

async function scrape() {
  timer = null;
  if (inFlight) return;
  inFlight = true;
  try {
    const text = await apiText('/metrics', { accept: 'application/openmetrics-text, text/plain;q=0.9', quiet: true });
    const samples = parseMetrics(text);
    view = { history: advance(view.history, samples, Date.now()), samples, error: null, loaded: true };
  } catch (e) {
    view = { ...view, error: describeError(e), loaded: true };
  } finally {
    inFlight = false;
  }
  for (const s of subscribers) s(view);
  schedule();
}

function schedule() {
  if (timer !== null || subscribers.size === 0 || !pageVisible()) return;
  timer = setTimeout(scrape, POLL_MS);
}

onVisibilityChange((visible) => {
  if (visible && subscribers.size > 0 && timer === null && !inFlight) void scrape();
  if (!visible && timer !== null) {
    clearTimeout(timer);
    timer = null;
  }
});

export function subscribeMetrics(fn: (v: MetricsView) => void): () => void {
  subscribers.add(fn);
  fn(view);
  if (subscribers.size === 1 && timer === null && !inFlight) void scrape();
  return () => {
    subscribers.delete(fn);
    if (subscribers.size === 0 && timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
  };
}
