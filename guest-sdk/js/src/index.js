// copycat-sdk: write Copycat connectors and transforms in JavaScript.
//
// A connector is a WebAssembly component built with componentize-js
// (StarlingMonkey) against the WIT contract `copycat:connector@0.3.0`
// (packed batches, typed records), a transform against
// `copycat:transform@0.1.0`. This package hides the generated bindings.
// You write:
//
//     import { defineSource } from 'copycat-sdk/source';   // defineSink from 'copycat-sdk/sink',
//                                                          // defineTransform from 'copycat-sdk/transform'
//     export const { connector, sourceTask } = defineSource({
//       name: 'my-source',
//       version: '0.1.0',
//       description: 'What it moves, from where to where',
//       config: [{ name: 'topic', type: 'string', required: true, doc: 'Kafka topic' }],
//       start(config) { return new MyTask(config); },   // an object with poll(max, batch), ...
//     });
//
// and build it with guest-sdk/js/tools/build-component.sh. The exported
// names (`connector` plus `sourceTask` or `sinkTask`, `instance` for a
// dynamic connector, `transformer` for a transform) are the WIT interfaces
// the component exports.
//
// Modules:
//   copycat-sdk            config, errors, schemas, bytes, logging, clock
//   copycat-sdk/source     defineSource, SourceBatch, readOffsets, transactions (+ all of the above)
//   copycat-sdk/sink       defineSink, SinkBatch, errant (+ all of the above)
//   copycat-sdk/transform  defineTransform (+ the above but the clock)
//   copycat-sdk/dynamic    requestTaskReconfiguration, raiseError (a dynamic connector's context)
//   copycat-sdk/fs         files in the directories the operator grants (WASI preopens)
//
// ABI notes (componentize-js): WIT `u64`/`s64` are BigInt, `s32`/`u32` are
// Number, `list<u8>` is a Uint8Array, `list<s32>` an Int32Array (the SDK
// builds batches from typed arrays, which cross in one copy), `option<T>` is
// T or undefined. Typed values: see schema.js (int64 is a BigInt when read).
//
// Module top-level code runs at *build* time (componentize-js snapshots the
// initialised engine with Wizer), not when a task starts: do not call host
// functions (logging, clock, files) at the top level.

import { log as hostLog } from 'copycat:connector/logging@0.3.0';
import { nowMs as hostNowMs, monotonicNs as hostMonotonicNs } from 'copycat:connector/clock@0.3.0';

export { Schema, Schemaless, Decimal, LOGICAL } from './schema.js';
export { DataError, decodeValue, encodeToBytes as encodeValue } from './wire.js';
export { RecordView } from './batch.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/**
 * A failure returned to the host as the WIT `connector-error`. Throw one of
 * the subclasses from any connector or task function:
 *
 * - `ConfigError`: bad configuration; the task fails until the operator
 *   changes the config.
 * - `RetriableError`: transient; the host retries the same call later.
 * - `FatalError`: unrecoverable; the task fails with the message.
 *
 * Anything else thrown (a TypeError, a file error) is reported as `fatal`
 * with its message (and its stack logged), never as a trap.
 */
export class ConnectorError extends Error {
  /**
   * @param {'config' | 'retriable' | 'fatal'} kind
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor(kind, message, options) {
    super(message, options);
    this.name = 'ConnectorError';
    this.kind = kind;
    // componentize-js turns a thrown value with an own `payload` property
    // into the `err` case of the export's result.
    Object.defineProperty(this, 'payload', { value: { tag: kind, val: String(message) } });
  }
}

/** The configuration is wrong. `key` names the config key at fault, if any. */
export class ConfigError extends ConnectorError {
  /**
   * @param {string} message
   * @param {string} [key]
   */
  constructor(message, key) {
    super('config', message);
    this.name = 'ConfigError';
    this.key = key ?? '';
  }
}

/** A transient problem: the host retries the same call later with the same input. */
export class RetriableError extends ConnectorError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options) {
    super('retriable', message, options);
    this.name = 'RetriableError';
  }
}

/** An unrecoverable problem: the task fails with this message. */
export class FatalError extends ConnectorError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options) {
    super('fatal', message, options);
    this.name = 'FatalError';
  }
}

/**
 * Any thrown value as a ConnectorError: ConnectorErrors pass through, every
 * other value becomes a FatalError carrying its message.
 * @param {unknown} error
 * @returns {ConnectorError}
 */
export function toConnectorError(error) {
  if (error instanceof ConnectorError) return error;
  if (error instanceof Error) {
    // The file helpers' FsError already names the file and what went wrong;
    // an unhandled errant ReportError says why there was no report.
    if (error.name === 'FsError' || error.name === 'ReportError' || error.name === 'DataError') {
      return new FatalError(error.message, { cause: error });
    }
    // Anything else is most likely a bug: keep the stack in the task's log.
    const text = error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
    if (error.stack) log.warn(`${text}\n${error.stack}`);
    return new FatalError(text, { cause: error });
  }
  return new FatalError(String(error));
}

// ---------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------

const INT_RE = /^[+-]?\d+$/;
const S32_MIN = -(2 ** 31);
const S32_MAX = 2 ** 31 - 1;
const S64_MIN = -(2n ** 63n);
const S64_MAX = 2n ** 63n - 1n;

/**
 * A connector's or task's configuration: the operator's key/value settings,
 * including the host's own keys (`name`, `tasks.max`, `grants.*`).
 *
 * Getters trim values and treat a blank value as absent. Every failure is a
 * `ConfigError` naming the key, e.g. `config 'streams': invalid value 'x':
 * not an integer`.
 */
export class Config {
  /**
   * @param {Iterable<[string, string]> | Record<string, string | number | bigint | boolean> | Config} [entries]
   */
  constructor(entries = []) {
    /** @type {Map<string, string>} */
    this.map = new Map();
    const pairs = entries instanceof Config ? entries.map : isIterable(entries) ? entries : Object.entries(entries);
    for (const [key, value] of pairs) this.map.set(String(key), String(value));
  }

  /** The raw value of `key`, or undefined. @param {string} key @returns {string | undefined} */
  get(key) {
    return this.map.get(key);
  }

  /** Whether `key` is set (possibly blank). @param {string} key */
  has(key) {
    return this.map.has(key);
  }

  /**
   * The value of `key`, which must be set and not blank.
   * @param {string} key
   * @returns {string}
   */
  require(key) {
    const value = this.map.get(key);
    if (value === undefined) throw new ConfigError(`config '${key}' is required but is not set`, key);
    if (value.trim() === '') throw new ConfigError(`config '${key}' is required but is empty`, key);
    return value;
  }

  /**
   * The trimmed value of `key`, or `fallback` when absent or blank.
   * @template T
   * @param {string} key
   * @param {T} [fallback]
   * @returns {string | T}
   */
  getString(key, fallback) {
    const value = this.map.get(key)?.trim();
    return value === undefined || value === '' ? fallback : value;
  }

  /**
   * A 32-bit integer (`int` key) as a Number; `fallback` when absent or blank.
   * @param {string} key
   * @param {number} [fallback]
   * @param {{ min?: number, max?: number }} [range]
   * @returns {number}
   */
  getInt(key, fallback, range = {}) {
    const value = this.getString(key);
    if (value === undefined) return fallback;
    if (!INT_RE.test(value)) throw invalid(key, value, 'not an integer');
    const n = Number(value);
    if (n < S32_MIN || n > S32_MAX) throw invalid(key, value, 'out of range for an int');
    checkRange(key, n, range);
    return n;
  }

  /**
   * A 64-bit integer (`long` key) as a BigInt; `fallback` when absent or blank.
   * @param {string} key
   * @param {bigint} [fallback]
   * @param {{ min?: bigint, max?: bigint }} [range]
   * @returns {bigint}
   */
  getLong(key, fallback, range = {}) {
    const value = this.getString(key);
    if (value === undefined) return fallback;
    if (!INT_RE.test(value)) throw invalid(key, value, 'not an integer');
    const n = BigInt(value);
    if (n < S64_MIN || n > S64_MAX) throw invalid(key, value, 'out of range for a long');
    checkRange(key, n, range);
    return n;
  }

  /**
   * A finite floating-point number (`double` key); `fallback` when absent or blank.
   * @param {string} key
   * @param {number} [fallback]
   * @param {{ min?: number, max?: number }} [range]
   * @returns {number}
   */
  getDouble(key, fallback, range = {}) {
    const value = this.getString(key);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n)) throw invalid(key, value, 'not a finite number');
    checkRange(key, n, range);
    return n;
  }

  /**
   * `true` or `false` (any case); `fallback` when absent or blank.
   * @param {string} key
   * @param {boolean} [fallback]
   * @returns {boolean}
   */
  getBoolean(key, fallback) {
    const value = this.getString(key);
    if (value === undefined) return fallback;
    switch (value.toLowerCase()) {
      case 'true':
        return true;
      case 'false':
        return false;
      default:
        throw invalid(key, value, "expected 'true' or 'false'");
    }
  }

  /**
   * A comma-separated list: items trimmed, empty items dropped; [] when absent.
   * @param {string} key
   * @returns {string[]}
   */
  getList(key) {
    const value = this.map.get(key);
    if (value === undefined) return [];
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }

  /** A copy with `key` set to `value`. @param {string} key @param {unknown} value @returns {Config} */
  with(key, value) {
    const copy = new Config(this);
    copy.map.set(key, String(value));
    return copy;
  }

  /** A copy without `key`. @param {string} key @returns {Config} */
  without(key) {
    const copy = new Config(this);
    copy.map.delete(key);
    return copy;
  }

  /** The entries as `[key, value]` pairs (the WIT `config`). @returns {[string, string][]} */
  toPairs() {
    return [...this.map];
  }

  /** A plain object of the entries. @returns {Record<string, string>} */
  toObject() {
    return Object.fromEntries(this.map);
  }

  [Symbol.iterator]() {
    return this.map[Symbol.iterator]();
  }
}

function isIterable(x) {
  return x != null && typeof x[Symbol.iterator] === 'function';
}

function invalid(key, value, why) {
  return new ConfigError(`config '${key}': invalid value '${value}': ${why}`, key);
}

function checkRange(key, n, { min, max }) {
  if (min !== undefined && n < min) throw new ConfigError(`config '${key}' must be at least ${min}, got ${n}`, key);
  if (max !== undefined && n > max) throw new ConfigError(`config '${key}' must be at most ${max}, got ${n}`, key);
}

/**
 * Run config checks and collect one problem per failing check, for
 * `validate`. Each check is a function that reads the config (e.g.
 * `() => config.getInt('streams', 1, { min: 1 })`); a `ConfigError` it throws
 * becomes `{ key, message }` with the key it names.
 *
 * @param {...(() => unknown)} checks
 * @returns {{ key: string, message: string }[]}
 */
export function collectProblems(...checks) {
  const problems = [];
  for (const check of checks) {
    try {
      check();
    } catch (e) {
      if (e instanceof ConfigError) problems.push({ key: e.key, message: e.message });
      else problems.push({ key: '', message: e instanceof Error ? e.message : String(e) });
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------
// Plugin description
// ---------------------------------------------------------------------------

const CONFIG_TYPES = ['string', 'int', 'long', 'double', 'boolean', 'list', 'password'];
const IMPORTANCE = ['high', 'medium', 'low'];

/**
 * @typedef {object} ConfigKeySpec
 * @property {string} name the key, e.g. `topic`
 * @property {'string'|'int'|'long'|'double'|'boolean'|'list'|'password'} [type] default `string`
 * @property {string|number|bigint|boolean} [default] the value used when the key is absent
 * @property {boolean} [required] whether the operator must set it (default false)
 * @property {string} [doc] documentation shown to operators
 * @property {'high'|'medium'|'low'} [importance] default `medium`
 */

/**
 * The WIT `plugin-info` for a connector. Called by defineSource/defineSink
 * at build time, so a mistake here fails the build, not the worker.
 * @param {'source' | 'sink'} kind
 * @param {{ name: string, version: string, description?: string, config?: ConfigKeySpec[] }} spec
 */
export function pluginInfo(kind, spec) {
  if (typeof spec.name !== 'string' || spec.name === '') throw new TypeError('connector spec: `name` is required');
  if (typeof spec.version !== 'string' || spec.version === '') throw new TypeError('connector spec: `version` is required');
  const configDef = (spec.config ?? []).map((key) => {
    if (typeof key.name !== 'string' || key.name === '') throw new TypeError('config key without a name');
    const type = key.type ?? 'string';
    if (!CONFIG_TYPES.includes(type)) throw new TypeError(`config key '${key.name}': unknown type '${type}'`);
    const importance = key.importance ?? 'medium';
    if (!IMPORTANCE.includes(importance)) throw new TypeError(`config key '${key.name}': unknown importance '${importance}'`);
    return {
      name: key.name,
      type,
      defaultValue: key.default === undefined || key.default === null ? undefined : String(key.default),
      required: Boolean(key.required),
      doc: key.doc ?? '',
      importance,
    };
  });
  return Object.freeze({ name: spec.name, version: spec.version, kind, description: spec.description ?? '', configDef });
}

// ---------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------

/**
 * Bytes for a record key, value or header: strings are UTF-8 encoded,
 * Uint8Array/ArrayBuffer/other views are taken as they are; null/undefined
 * stay undefined (WIT `none`).
 * @param {string | Uint8Array | ArrayBuffer | ArrayBufferView | null | undefined} data
 * @returns {Uint8Array | undefined}
 */
export function toBytes(data) {
  if (data === undefined || data === null) return undefined;
  if (typeof data === 'string') return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  // Any view, also of another realm (the bindings' typed arrays are).
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError(`expected a string or bytes, got ${typeof data}`);
}

/**
 * One Uint8Array holding `chunks` (strings are UTF-8 encoded) one after the
 * other: build a batch in memory, then write it with a single call.
 * @param {Iterable<string | Uint8Array>} chunks
 * @returns {Uint8Array}
 */
export function concatBytes(chunks) {
  const parts = [...chunks].map((c) => toBytes(c) ?? new Uint8Array(0));
  const out = new Uint8Array(parts.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of parts) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * UTF-8 text of bytes (a sink record's key or value); undefined stays undefined.
 * @param {Uint8Array | undefined} bytes
 * @returns {string | undefined}
 */
export function text(bytes) {
  return bytes === undefined || bytes === null ? undefined : decoder.decode(bytes);
}

/**
 * A Number, BigInt or Date as the BigInt WIT `s64`/`u64` wants.
 * @param {number | bigint | Date | string} n
 * @returns {bigint}
 */
export function toBigInt(n) {
  if (typeof n === 'bigint') return n;
  if (n instanceof Date) return BigInt(n.getTime());
  if (typeof n === 'number') {
    if (!Number.isInteger(n)) throw new TypeError(`expected an integer, got ${n}`);
    return BigInt(n);
  }
  return BigInt(n);
}

// ---------------------------------------------------------------------------
// Host functions
// ---------------------------------------------------------------------------

/**
 * Logging into the worker's log; the host tags each line with the connector
 * and task. `console.log`/`console.error` also reach the task's log (as
 * stdout/stderr lines).
 */
export const log = Object.freeze({
  /** @param {unknown} message */
  trace: (message) => hostLog('trace', String(message)),
  /** @param {unknown} message */
  debug: (message) => hostLog('debug', String(message)),
  /** @param {unknown} message */
  info: (message) => hostLog('info', String(message)),
  /** @param {unknown} message */
  warn: (message) => hostLog('warn', String(message)),
  /** @param {unknown} message */
  error: (message) => hostLog('error', String(message)),
});

/** The host's clocks (sources and sinks; a transform has none: use Date.now()). */
export const clock = /* @__PURE__ */ ({
  /** Milliseconds since the Unix epoch, as a Number. */
  nowMs: () => Number(hostNowMs()),
  /** Nanoseconds on a monotonic clock with an arbitrary origin, as a BigInt. */
  monotonicNs: () => hostMonotonicNs(),
});
