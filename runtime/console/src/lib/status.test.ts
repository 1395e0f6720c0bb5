import { describe, expect, it } from 'vitest';
import { assignment, connectorView, failures, relativeTime, shortDigest } from './status';
import type { ConnectorStatus } from './types';

const STATUS: ConnectorStatus = {
  name: 'gen',
  type: 'source',
  connector: { state: 'RUNNING', worker_id: 'w1:8083', version: '0.1.0', digest: 'sha256:82b68c1aa79554d893d9' },
  tasks: [
    { id: 1, state: 'RESTARTING', worker_id: 'w2:8083', trace: 'boom', attempts: 2, next_restart_ms: 5000 },
    { id: 0, state: 'RUNNING', worker_id: 'w1:8083', version: '0.1.0' },
    { id: 2, state: 'FAILED', worker_id: 'w1:8083', trace: 'trap' },
  ],
  last_swap: { outcome: 'ROLLED_BACK', pause_ms: 12.5, reason: 'start trapped' },
};

describe('connectorView', () => {
  const v = connectorView(STATUS);
  it('sorts tasks and counts running ones', () => {
    expect(v.tasks.map((t) => t.id)).toEqual([0, 1, 2]);
    expect(v.running).toBe(1);
    expect(v.total).toBe(3);
  });
  it('keeps restart details and traces', () => {
    expect(v.tasks[1]).toEqual({
      id: 1,
      state: 'RESTARTING',
      workerId: 'w2:8083',
      version: null,
      trace: 'boom',
      attempts: 2,
      nextRestartMs: 5000,
    });
    expect(v.tasks[0].attempts).toBeNull();
    expect(v.failing.map((t) => t.id)).toEqual([1, 2]);
  });
  it('carries version, digest and the last swap', () => {
    expect(v.version).toBe('0.1.0');
    expect(v.digest).toBe('sha256:82b68c1aa79554d893d9');
    expect(v.lastSwap?.outcome).toBe('ROLLED_BACK');
  });
});

describe('assignment', () => {
  it('lists tasks per worker, keeping idle workers', () => {
    const a = assignment([STATUS], ['w1:8083', 'w2:8083', 'w3:8083']);
    expect(a.get('w1:8083')!.map((t) => t.task)).toEqual([0, 2]);
    expect(a.get('w2:8083')!.map((t) => t.task)).toEqual([1]);
    expect(a.get('w3:8083')).toEqual([]);
  });
});

describe('failures', () => {
  it('lists FAILED and RESTARTING tasks', () => {
    expect(failures([STATUS]).map((f) => `${f.connector}-${f.task.id}`)).toEqual(['gen-1', 'gen-2']);
  });
});

describe('formatting', () => {
  it('says when, relative to now', () => {
    expect(relativeTime(5000, 0)).toBe('in 5 s');
    expect(relativeTime(0, 3000)).toBe('3 s ago');
    expect(relativeTime(0, 200)).toBe('now');
    expect(relativeTime(600_000, 0)).toBe('in 10 min');
  });
  it('shortens digests', () => {
    expect(shortDigest('sha256:82b68c1aa79554d893d9')).toBe('sha256:82b68c1aa795…');
    expect(shortDigest(null)).toBe('—');
  });
});
