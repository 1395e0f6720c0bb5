// Data hooks: polling while visible, the shared metrics, a debounced value.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, get } from './api';
import type { ClusterInfo } from './types';
import { type MetricsView, subscribeMetrics } from './metricsStore';
import { POLL_MS, onVisibilityChange, pageVisible } from './visibility';

export interface Polled<T> {
  /** The last answer; kept while a later call fails, so nothing jumps. */
  data: T | undefined;
  /** The last call's error, cleared by the next answer. */
  error: string | null;
  /** HTTP status of the last error (0: no answer). */
  errorStatus: number | null;
  /** No answer and no error yet. */
  loading: boolean;
  reload: () => void;
}

/**
 * Calls `load` now and every `intervalMs` while the page is visible (and
 * again as soon as it becomes visible). `deps` restart it.
 */
export function usePoll<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[], intervalMs = POLL_MS): Polled<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; errorStatus: number | null; done: boolean }>({
    data: undefined,
    error: null,
    errorStatus: null,
    done: false,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    setState({ data: undefined, error: null, errorStatus: null, done: false });
  }, deps);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let ctrl: AbortController | null = null;
    const run = async () => {
      timer = null;
      if (stopped) return;
      ctrl = new AbortController();
      try {
        const data = await loadRef.current(ctrl.signal);
        if (!stopped) setState({ data, error: null, errorStatus: null, done: true });
      } catch (e) {
        if (stopped || (e instanceof DOMException && e.name === 'AbortError')) return;
        setState((s) => ({ ...s, error: describeError(e), errorStatus: e instanceof ApiError ? e.status : null, done: true }));
      }
      if (!stopped && intervalMs > 0 && pageVisible()) timer = setTimeout(run, intervalMs);
    };
    void run();
    const off = onVisibilityChange((visible) => {
      if (visible && timer === null && !stopped) {
        if (ctrl) ctrl.abort();
        void run();
      } else if (!visible && timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
    });
    return () => {
      stopped = true;
      off();
      if (timer !== null) clearTimeout(timer);
      if (ctrl) ctrl.abort();
    };
  }, [...deps, tick, intervalMs]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, errorStatus: state.errorStatus, loading: !state.done, reload };
}

/** The shared `/metrics` scrapes (polled only while some component uses them). */
export function useMetrics(): MetricsView {
  const [view, setView] = useState<MetricsView | null>(null);
  useEffect(() => subscribeMetrics(setView), []);
  return view ?? { history: { prev: null, series: new Map() }, samples: [], error: null, loaded: false };
}

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** The current time, ticking every second (relative times). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** Sets the document's title. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Copycat`;
  }, [title]);
}

let clusterOnce: Promise<ClusterInfo | null> | null = null;

/**
 * This worker's `GET /cluster`, asked once per page load (null when the
 * worker does not serve it). Metrics are per worker: in a cluster the
 * charts cover only the tasks that run on the worker serving the console.
 */
export function useClusterInfo(): ClusterInfo | null {
  const [info, setInfo] = useState<ClusterInfo | null>(null);
  useEffect(() => {
    if (!clusterOnce) {
      clusterOnce = get<ClusterInfo>('/cluster', { quiet: true }).catch(() => {
        clusterOnce = null;
        return null;
      });
    }
    let live = true;
    void clusterOnce.then((c) => live && setInfo(c));
    return () => {
      live = false;
    };
  }, []);
  return info;
}
