// A connector's status as the console shows it.

import type { ConnectorStatus, LastSwap, TaskStatus } from './types';

export interface TaskView {
  id: number;
  state: string;
  workerId: string;
  version: string | null;
  trace: string | null;
  attempts: number | null;
  nextRestartMs: number | null;
}

export interface ConnectorView {
  name: string;
  type: string;
  state: string;
  workerId: string;
  version: string | null;
  digest: string | null;
  trace: string | null;
  tasks: TaskView[];
  running: number;
  total: number;
  /** Tasks FAILED or RESTARTING. */
  failing: TaskView[];
  lastSwap: LastSwap | null;
}

export function taskView(t: TaskStatus): TaskView {
  return {
    id: t.id,
    state: t.state,
    workerId: t.worker_id ?? '',
    version: t.version ?? null,
    trace: t.trace ?? null,
    attempts: typeof t.attempts === 'number' ? t.attempts : null,
    nextRestartMs: typeof t.next_restart_ms === 'number' ? t.next_restart_ms : null,
  };
}

export function connectorView(s: ConnectorStatus): ConnectorView {
  const tasks = [...(s.tasks ?? [])].sort((a, b) => a.id - b.id).map(taskView);
  return {
    name: s.name,
    type: s.type,
    state: s.connector?.state ?? 'UNASSIGNED',
    workerId: s.connector?.worker_id ?? '',
    version: s.connector?.version ?? null,
    digest: s.connector?.digest ?? null,
    trace: s.connector?.trace ?? null,
    tasks,
    running: tasks.filter((t) => t.state === 'RUNNING').length,
    total: tasks.length,
    failing: tasks.filter((t) => t.state === 'FAILED' || t.state === 'RESTARTING'),
    lastSwap: s.last_swap ?? null,
  };
}

/** The worst of the connector's and its tasks' states, for the list's badge tone. */
export function tone(state: string): 'ok' | 'warn' | 'bad' | 'idle' {
  switch (state) {
    case 'RUNNING':
    case 'SWAPPED':
      return 'ok';
    case 'FAILED':
    case 'ROLLED_BACK':
      return 'bad';
    case 'RESTARTING':
    case 'UNASSIGNED':
      return 'warn';
    default:
      return 'idle';
  }
}

/** "in 3 s", "in 2 min", "now", "3 s ago". */
export function relativeTime(atMs: number, nowMs: number): string {
  const d = Math.round((atMs - nowMs) / 1000);
  const abs = Math.abs(d);
  let text: string;
  if (abs < 1) return 'now';
  if (abs < 90) text = `${abs} s`;
  else if (abs < 90 * 60) text = `${Math.round(abs / 60)} min`;
  else if (abs < 36 * 3600) text = `${Math.round(abs / 3600)} h`;
  else text = `${Math.round(abs / 86400)} d`;
  return d > 0 ? `in ${text}` : `${text} ago`;
}

/** `sha256:abcdef…` shortened for tables (the full digest goes in the title). */
export function shortDigest(digest: string | null | undefined): string {
  if (!digest) return '—';
  const [algo, hex] = digest.includes(':') ? digest.split(':', 2) : ['', digest];
  return `${algo ? algo + ':' : ''}${hex.slice(0, 12)}…`;
}

/** Tasks per worker: the assignment. Workers without tasks are kept (empty). */
export function assignment(
  statuses: ConnectorStatus[],
  workers: string[],
): Map<string, { connector: string; task: number; state: string }[]> {
  const out = new Map<string, { connector: string; task: number; state: string }[]>();
  for (const w of workers) out.set(w, []);
  for (const s of statuses) {
    for (const t of s.tasks ?? []) {
      const w = t.worker_id || '(unassigned)';
      if (!out.has(w)) out.set(w, []);
      out.get(w)!.push({ connector: s.name, task: t.id, state: t.state });
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.connector.localeCompare(b.connector) || a.task - b.task);
  return out;
}

/** Failing tasks across connectors, most recent restart first. */
export function failures(statuses: ConnectorStatus[]): { connector: string; task: TaskView }[] {
  const out: { connector: string; task: TaskView }[] = [];
  for (const s of statuses) {
    for (const t of connectorView(s).failing) out.push({ connector: s.name, task: t });
  }
  out.sort((a, b) => a.connector.localeCompare(b.connector) || a.task.id - b.task.id);
  return out;
}
