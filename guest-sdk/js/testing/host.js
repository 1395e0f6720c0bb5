// The in-memory host behind every WIT import when connector code runs under
// Node.js for tests (register.mjs maps `copycat:connector/*`,
// `copycat:errant/*`, `copycat:dynamic/*` and `wasi:filesystem/*` here). Files are real files:
// `host.grant(dir)` plays the operator's `grants.fs.*` and preopens `dir`
// under its own path.
import * as nodeFs from 'node:fs';
import { join, normalize } from 'node:path';

/** State a test sets up and inspects. */
export const host = {
  /**
   * Committed source offsets read by `offsets.read`: partition JSON ->
   * offset JSON (compact, as the host stores them); set them with
   * `setOffset`.
   */
  offsets: new Map(),
  /** Calls of the dynamic context's `request-task-reconfiguration`. */
  reconfigurations: 0,
  /** Messages passed to the dynamic context's `raise-error`, in order. */
  raisedErrors: [],
  /** Every log line: `{ level, message }`. */
  logs: [],
  /** Transaction requests, in order: 'commit' | 'abort'. */
  transactions: [],
  /** Preopened directories (absolute paths). */
  grants: [],
  /** Errant records reported (`errant.report`), in order: `{ index, reason }`. */
  reported: [],
  /**
   * Make `errant.report` fail with this WIT `report-error` instead of
   * keeping the report: `'unavailable'`, `'tolerance-exceeded'` or
   * `{ tag: 'no-such-record', val: '...' }` (default: reports are taken).
   */
  reportError: undefined,
  /** Milliseconds since the epoch returned by `clock.nowMs` (default: the real clock). */
  nowMs: undefined,
  /**
   * Commit `offset` for source partition `partition` (objects, or their JSON text).
   * @param {object | string} partition
   * @param {object | string} offset
   */
  setOffset(partition, offset) {
    const json = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
    this.offsets.set(json(partition), json(offset));
  },
  /** Grant (preopen) a directory, like `grants.fs.write`. */
  grant(dir) {
    this.grants.push(normalize(dir).replace(/(.)\/$/, '$1'));
  },
  /** Forget everything (call at the start of each test). */
  reset() {
    this.offsets = new Map();
    this.reconfigurations = 0;
    this.raisedErrors = [];
    this.logs = [];
    this.transactions = [];
    this.grants = [];
    this.reported = [];
    this.reportError = undefined;
    this.nowMs = undefined;
  },
};

// copycat:connector/logging
export function log(level, message) {
  host.logs.push({ level, message });
  if (process.env.COPYCAT_TEST_LOG) console.error(`[${level}] ${message}`);
}

// copycat:connector/clock
export function nowMs() {
  return BigInt(host.nowMs ?? Date.now());
}
export function monotonicNs() {
  return process.hrtime.bigint();
}

// copycat:connector/offsets
export function read(partitions) {
  return partitions.filter((p) => host.offsets.has(p)).map((p) => ({ partition: p, offset: host.offsets.get(p) }));
}

// copycat:dynamic/context
export function requestTaskReconfiguration() {
  host.reconfigurations++;
}
export function raiseError(message) {
  host.raisedErrors.push(message);
}

// copycat:connector/transactions
export function commit() {
  host.transactions.push('commit');
}
export function abort() {
  host.transactions.push('abort');
}

// copycat:errant/reporter
export function report(index, reason) {
  const error = host.reportError;
  if (error !== undefined) {
    const e = new Error('report-error');
    e.payload = typeof error === 'string' ? { tag: error } : error;
    throw e;
  }
  host.reported.push({ index, reason });
}

// wasi:filesystem (the subset the SDK uses), on node:fs.

const CODES = {
  ENOENT: 'no-entry',
  EACCES: 'access',
  EPERM: 'not-permitted',
  EEXIST: 'exist',
  EISDIR: 'is-directory',
  ENOTDIR: 'not-directory',
  ENOTEMPTY: 'not-empty',
  EXDEV: 'cross-device',
  ENOSPC: 'insufficient-space',
  EBADF: 'bad-descriptor',
  EROFS: 'read-only',
};

// Like the generated bindings: a thrown error whose `payload` is the error-code.
function componentError(code) {
  const e = new Error(code);
  e.payload = code;
  return e;
}

function wasi(fn) {
  try {
    return fn();
  } catch (e) {
    if (e?.payload) throw e;
    throw componentError(CODES[e?.code] ?? 'io');
  }
}

const dispose = Symbol.dispose || Symbol.for('dispose');

function typeOf(stats) {
  if (stats.isFile()) return 'regular-file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symbolic-link';
  return 'unknown';
}

export class Descriptor {
  constructor(path, fd) {
    this.path = path;
    this.fd = fd;
  }

  #at(rel) {
    if (rel.startsWith('/') || normalize(rel).split('/')[0] === '..') throw componentError('not-permitted');
    return join(this.path, rel);
  }

  openAt(_pathFlags, rel, openFlags = {}, flags = {}) {
    const path = this.#at(rel);
    return wasi(() => {
      if (openFlags.directory) {
        if (!nodeFs.statSync(path).isDirectory()) throw componentError('not-directory');
        return new Descriptor(path, undefined);
      }
      const c = nodeFs.constants;
      let mode = flags.write ? (flags.read ? c.O_RDWR : c.O_WRONLY) : c.O_RDONLY;
      if (openFlags.create) mode |= c.O_CREAT;
      if (openFlags.exclusive) mode |= c.O_EXCL;
      if (openFlags.truncate) mode |= c.O_TRUNC;
      return new Descriptor(path, nodeFs.openSync(path, mode));
    });
  }

  read(length, offset) {
    return wasi(() => {
      const buf = Buffer.alloc(Number(length));
      const n = nodeFs.readSync(this.fd, buf, 0, buf.length, Number(offset));
      return [new Uint8Array(buf.buffer, buf.byteOffset, n), n === 0];
    });
  }

  write(bytes, offset) {
    return wasi(() => BigInt(nodeFs.writeSync(this.fd, bytes, 0, bytes.length, Number(offset))));
  }

  setSize(size) {
    wasi(() => nodeFs.ftruncateSync(this.fd, Number(size)));
  }

  sync() {
    wasi(() => (this.fd === undefined ? undefined : nodeFs.fsyncSync(this.fd)));
  }

  stat() {
    return wasi(() => {
      const s = this.fd === undefined ? nodeFs.statSync(this.path) : nodeFs.fstatSync(this.fd);
      return { type: typeOf(s), size: BigInt(s.size) };
    });
  }

  statAt(_pathFlags, rel) {
    const path = this.#at(rel);
    return wasi(() => {
      const s = nodeFs.statSync(path);
      return { type: typeOf(s), size: BigInt(s.size) };
    });
  }

  renameAt(oldRel, newDescriptor, newRel) {
    const from = this.#at(oldRel);
    const to = newDescriptor.#at(newRel);
    wasi(() => nodeFs.renameSync(from, to));
  }

  unlinkFileAt(rel) {
    const path = this.#at(rel);
    wasi(() => nodeFs.unlinkSync(path));
  }

  createDirectoryAt(rel) {
    const path = this.#at(rel);
    wasi(() => nodeFs.mkdirSync(path));
  }

  readDirectory() {
    const entries = wasi(() => nodeFs.readdirSync(this.path, { withFileTypes: true }));
    return {
      readDirectoryEntry: () => {
        const e = entries.shift();
        return e && { type: e.isDirectory() ? 'directory' : 'regular-file', name: e.name };
      },
      [dispose]() {},
    };
  }

  [dispose]() {
    if (this.fd !== undefined) nodeFs.closeSync(this.fd);
    this.fd = undefined;
  }
}

// wasi:filesystem/preopens
export function getDirectories() {
  return host.grants.map((dir) => [new Descriptor(dir, undefined), dir]);
}
