// copycat-sdk/fs: files in the directories the operator grants.
//
// StarlingMonkey has no `node:fs`. A Copycat connector reaches files through
// WASI 0.2 (`wasi:filesystem`): the operator grants directories per connector
// (`grants.fs.read` read-only, `grants.fs.write` read-write) and the host
// preopens each one under its own absolute path. This module wraps those
// preopens in a small synchronous, Node-flavoured API on absolute paths:
//
//     import * as fs from 'copycat-sdk/fs';
//
//     const file = fs.open('/srv/out/a.txt', { append: true });   // create + write at the end
//     file.append('one line\n');
//     file.sync();
//     file.close();
//     fs.writeFileAtomic('/srv/out/a.state', '42');                 // tmp file, sync, rename
//     fs.readTextFile('/srv/out/a.state');                          // '42'
//
// A path outside every granted directory fails with code `not-granted`.
// Every failure is an FsError whose message names the file, the action and
// the WASI error code, e.g. `/srv/out/a.txt: cannot open: permission denied
// (not-permitted)`. Thrown out of a connector function, it becomes
// `connector-error::fatal` with that message.
//
// Offsets and sizes are Numbers here (files stay far below 2^53 bytes); the
// conversion to the BigInt the WIT `filesize` needs happens inside.

import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';
import { toBytes } from './index.js';

const decoder = new TextDecoder();
// The generated bindings put resource destructors under this symbol.
const dispose = Symbol.dispose || Symbol.for('dispose');
// How much one `read` call asks for.
const READ_CHUNK = 64 * 1024;

const MESSAGES = {
  access: 'access denied',
  'not-permitted': 'permission denied',
  'no-entry': 'no such file or directory',
  exist: 'already exists',
  'is-directory': 'is a directory',
  'not-directory': 'not a directory',
  'not-empty': 'directory not empty',
  'read-only': 'read-only file system',
  'insufficient-space': 'no space left on device',
  quota: 'disk quota exceeded',
  'cross-device': 'cross-device rename',
  busy: 'resource busy',
  'bad-descriptor': 'bad file descriptor',
  io: 'I/O error',
  'not-granted': 'not under any directory granted to this connector (grants.fs.read / grants.fs.write)',
};

/** A file-system failure: `code` is the WASI `error-code` (e.g. `no-entry`) or `not-granted`. */
export class FsError extends Error {
  /**
   * @param {string} path the absolute path concerned
   * @param {string} code the WASI error code
   * @param {string} [action] what was being done, e.g. `cannot open`
   */
  constructor(path, code, action) {
    const what = MESSAGES[code] ? `${MESSAGES[code]} (${code})` : code;
    super(`${path}: ${action ? `${action}: ` : ''}${what}`);
    this.name = 'FsError';
    this.code = code;
    this.path = path;
  }
}

// Call into WASI, turning its error (a ComponentError whose payload is the
// error-code string) into an FsError naming the path.
function wasi(path, action, fn) {
  try {
    return fn();
  } catch (e) {
    if (e && typeof e.payload === 'string') throw new FsError(path, e.payload, action);
    throw e;
  }
}

/** @type {{ parts: string[], descriptor: any }[] | undefined} */
let preopens;

// The granted directories, read on first use (never at build time: module
// top-level code runs when the component is built).
function grantedDirectories() {
  if (!preopens) {
    preopens = getDirectories().map(([descriptor, path]) => ({ parts: split(path), descriptor }));
  }
  return preopens;
}

/** @internal For copycat-sdk/testing: forget the granted directories read so far. */
export function _forgetGrants() {
  preopens = undefined;
}

function split(path) {
  const parts = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts;
}

/**
 * The preopen holding an absolute path and the path relative to it.
 * @param {string} path
 * @returns {{ dir: any, rel: string }}
 */
function locate(path) {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new FsError(String(path), 'invalid', 'expected an absolute path');
  }
  const parts = split(path);
  let best;
  for (const p of grantedDirectories()) {
    if (p.parts.length > parts.length || (best && p.parts.length <= best.parts.length)) continue;
    if (p.parts.every((part, i) => parts[i] === part)) best = p;
  }
  if (!best) throw new FsError(path, 'not-granted');
  const rel = parts.slice(best.parts.length).join('/');
  return { dir: best.descriptor, rel: rel === '' ? '.' : rel };
}

/**
 * Whether `path` lies under a granted directory (`grants.fs.read` or
 * `grants.fs.write`). Use it to report a missing grant as a ConfigError.
 * @param {string} path
 */
export function granted(path) {
  try {
    locate(path);
    return true;
  } catch {
    return false;
  }
}

/** An open file. Positions and sizes are Numbers. */
export class File {
  /** @param {string} path @param {any} descriptor @param {number} position */
  constructor(path, descriptor, position) {
    /** The absolute path it was opened under. */
    this.path = path;
    /** Where `append` writes next (the end of the file when opened with `append`). */
    this.position = position;
    this.descriptor = descriptor;
  }

  #d() {
    if (!this.descriptor) throw new FsError(this.path, 'bad-descriptor', 'file is closed');
    return this.descriptor;
  }

  /** The file's current size in bytes. */
  size() {
    return Number(wasi(this.path, 'cannot stat', () => this.#d().stat()).size);
  }

  /**
   * Up to `length` bytes from `position` (fewer at the end of the file).
   * @param {number} [length] default: to the end of the file
   * @param {number} [position] default 0
   * @returns {Uint8Array}
   */
  read(length = Infinity, position = 0) {
    const chunks = [];
    let total = 0;
    while (total < length) {
      const want = Math.min(READ_CHUNK, length - total);
      const [got, end] = wasi(this.path, 'cannot read', () => this.#d().read(BigInt(want), BigInt(position + total)));
      // A Uint8Array of this realm (the bindings' are of another).
      const bytes = new Uint8Array(got.buffer, got.byteOffset, got.byteLength);
      if (bytes.length > 0) chunks.push(bytes);
      total += bytes.length;
      if (end || bytes.length === 0) break;
    }
    return concat(chunks, total);
  }

  /**
   * Write all of `data` at `position` (positional, like pwrite).
   * @param {string | Uint8Array} data strings are UTF-8 encoded
   * @param {number} position
   * @returns {number} bytes written
   */
  write(data, position) {
    const bytes = toBytes(data) ?? new Uint8Array(0);
    let done = 0;
    while (done < bytes.length) {
      const n = wasi(this.path, 'cannot write', () =>
        this.#d().write(bytes.subarray(done), BigInt(position + done)),
      );
      if (n === 0n) throw new FsError(this.path, 'io', 'cannot write (wrote nothing)');
      done += Number(n);
    }
    return done;
  }

  /**
   * Write `data` at `this.position` and advance it (this handle is assumed to
   * be the file's only writer).
   * @param {string | Uint8Array} data
   * @returns {number} bytes written
   */
  append(data) {
    const n = this.write(data, this.position);
    this.position += n;
    return n;
  }

  /**
   * Set the file's size: cut it (or extend it with zeros) to `size` bytes.
   * `position` is moved back if it was beyond.
   * @param {number} size
   */
  truncate(size) {
    wasi(this.path, 'cannot truncate', () => this.#d().setSize(BigInt(size)));
    if (this.position > size) this.position = size;
  }

  /** Flush data and metadata to stable storage (fsync). */
  sync() {
    wasi(this.path, 'cannot sync', () => this.#d().sync());
  }

  /** Release the handle. Safe to call twice. */
  close() {
    const d = this.descriptor;
    this.descriptor = undefined;
    d?.[dispose]?.();
  }
}

/**
 * @typedef {object} OpenOptions
 * @property {boolean} [read] default true
 * @property {boolean} [write] default false (implied by create, truncate and append)
 * @property {boolean} [create] create the file if missing
 * @property {boolean} [exclusive] with `create`: fail if it exists
 * @property {boolean} [truncate] empty the file
 * @property {boolean} [append] create if missing and start `position` at the end
 */

/**
 * Open a file under a granted directory.
 * @param {string} path absolute path
 * @param {OpenOptions} [options]
 * @returns {File}
 */
export function open(path, options = {}) {
  const { dir, rel } = locate(path);
  const append = Boolean(options.append);
  const create = Boolean(options.create) || append;
  const truncate = Boolean(options.truncate);
  const write = Boolean(options.write) || create || truncate;
  const read = options.read ?? true;
  const descriptor = wasi(path, 'cannot open', () =>
    dir.openAt(
      { symlinkFollow: true },
      rel,
      { create, exclusive: Boolean(options.exclusive), truncate },
      { read, write },
    ),
  );
  const file = new File(path, descriptor, 0);
  if (append) {
    try {
      file.position = file.size();
    } catch (e) {
      file.close();
      throw e;
    }
  }
  return file;
}

function withFile(path, options, fn) {
  const file = open(path, options);
  try {
    return fn(file);
  } finally {
    file.close();
  }
}

/**
 * The whole content of a file.
 * @param {string} path
 * @returns {Uint8Array}
 */
export function readFile(path) {
  return withFile(path, { read: true }, (f) => f.read());
}

/**
 * The whole content of a file as UTF-8 text.
 * @param {string} path
 * @returns {string}
 */
export function readTextFile(path) {
  return decoder.decode(readFile(path));
}

/**
 * Replace a file's content (create it if missing).
 * @param {string} path
 * @param {string | Uint8Array} data
 * @param {{ sync?: boolean }} [options] `sync`: fsync before closing
 */
export function writeFile(path, data, options = {}) {
  withFile(path, { read: false, write: true, create: true, truncate: true }, (f) => {
    f.write(data, 0);
    if (options.sync) f.sync();
  });
}

/**
 * Replace a file's content atomically: write `<path>.tmp`, sync it, rename it
 * over `path`. A crash leaves either the old or the new content.
 * @param {string} path
 * @param {string | Uint8Array} data
 */
export function writeFileAtomic(path, data) {
  const tmp = `${path}.tmp`;
  writeFile(tmp, data, { sync: true });
  rename(tmp, path);
}

/**
 * Rename (move) a file, replacing `to` if it exists (atomic on one file system).
 * @param {string} from
 * @param {string} to
 */
export function rename(from, to) {
  const a = locate(from);
  const b = locate(to);
  wasi(from, `cannot rename to ${to}`, () => a.dir.renameAt(a.rel, b.dir, b.rel));
}

/**
 * Delete a file.
 * @param {string} path
 */
export function remove(path) {
  const { dir, rel } = locate(path);
  wasi(path, 'cannot remove', () => dir.unlinkFileAt(rel));
}

/**
 * Create a directory (its parent must exist).
 * @param {string} path
 */
export function mkdir(path) {
  const { dir, rel } = locate(path);
  wasi(path, 'cannot create directory', () => dir.createDirectoryAt(rel));
}

/**
 * Type and size of a file or directory.
 * @param {string} path
 * @returns {{ type: string, size: number }} type is a WASI descriptor-type: `regular-file`, `directory`, ...
 */
export function stat(path) {
  const { dir, rel } = locate(path);
  const s = wasi(path, 'cannot stat', () => dir.statAt({ symlinkFollow: true }, rel));
  return { type: s.type, size: Number(s.size) };
}

/**
 * Whether a file or directory exists (false outside the granted directories).
 * @param {string} path
 */
export function exists(path) {
  try {
    stat(path);
    return true;
  } catch (e) {
    if (e instanceof FsError && (e.code === 'no-entry' || e.code === 'not-granted')) return false;
    throw e;
  }
}

/**
 * The names in a directory, sorted.
 * @param {string} path
 * @returns {string[]}
 */
export function readDir(path) {
  const { dir, rel } = locate(path);
  const d = rel === '.' ? dir : wasi(path, 'cannot open', () => dir.openAt({ symlinkFollow: true }, rel, { directory: true }, { read: true }));
  try {
    const stream = wasi(path, 'cannot list', () => d.readDirectory());
    const names = [];
    try {
      for (;;) {
        const entry = wasi(path, 'cannot list', () => stream.readDirectoryEntry());
        if (!entry) break;
        names.push(entry.name);
      }
    } finally {
      stream[dispose]?.();
    }
    return names.sort();
  } finally {
    if (d !== dir) d[dispose]?.();
  }
}

function concat(chunks, total) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
