// Batches of `copycat:connector@0.3.0` (wit/connector@0.3.0/batch.wit):
// every key, value and header's bytes back to back in one `data` buffer,
// one entry per record (per header) in integer columns.
//
// The builder writes straight into one growable Uint8Array and typed-array
// columns (Int32Array, Uint32Array, BigInt64Array): componentize-js lowers
// a typed array into a WIT `list<u8>`/`list<s32>`/`list<s64>` with a single
// copy, where a JS Array costs a checked store per element. Nothing is
// allocated per record on the raw `append` path beyond what encoding a
// string needs.

import { Schema, Schemaless } from './schema.js';
import {
  ByteReader,
  ByteWriter,
  DataError,
  SchemaTable,
  encodeSchemaless,
  encodeValue,
  readSchemaless,
  readValue,
  schemasOf,
} from './wire.js';

/** Schema column: raw bytes. */
const RAW = -1;
/** Schema column: a schemaless value. */
const SCHEMALESS = -2;

const EMPTY_I32 = new Int32Array(0);
const EMPTY_U32 = new Uint32Array(0);
const EMPTY_I64 = new BigInt64Array(0);

// Source partitions and offsets are JSON objects on the wire; a task usually
// reuses one partition object per stream, so its JSON is computed once.
const jsonOf = new WeakMap();

/**
 * A source partition or offset as the compact JSON text the host wants: an
 * object is serialised (once per object for partitions), a string is taken
 * to be JSON already.
 * @param {string | object} p
 * @param {boolean} [cache]
 */
export function offsetJson(p, cache = false) {
  if (typeof p === 'string') return p;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) {
    throw new TypeError(`a source partition or offset must be an object like {"stream":"s1"} (or its JSON text), got ${p === null ? 'null' : typeof p}`);
  }
  if (cache) {
    let s = jsonOf.get(p);
    if (s === undefined) {
      s = stringify(p);
      jsonOf.set(p, s);
    }
    return s;
  }
  return stringify(p);
}

function stringify(p) {
  return JSON.stringify(p, (_, v) => (typeof v === 'bigint' ? Number(v) : v));
}

function grow(column, size, fill) {
  const next = new column.constructor(size);
  next.set(column);
  if (fill !== undefined && fill !== 0 && fill !== 0n) next.fill(fill, column.length);
  return next;
}

/**
 * The records a source task's `poll` returns (and a transform's output),
 * packed as they are added. `poll(maxRecords, batch)` gets one, emptied,
 * each call.
 *
 * Two ways to add records:
 *
 * - `batch.append(key, value)`: the fast path, raw bytes only (a string is
 *   written as UTF-8, a Uint8Array as it is, null is no key / a tombstone);
 *   the record goes to the connector's topic with no headers or timestamp.
 *   Say where each stream got to with `batch.position(partition, offset)`.
 * - `batch.add(record)`: any record (typed values, topic, headers, ...);
 *   its `partition` and `offset` become the batch's position for that
 *   partition.
 */
export class SourceBatch {
  /** @param {number} [capacity] records before the columns grow */
  constructor(capacity = 1024) {
    this.w = new ByteWriter(64 * 1024);
    this.cap = capacity;
    this.n = 0;
    this.keyLengths = new Int32Array(capacity);
    this.valueLengths = new Int32Array(capacity);
    // Optional columns: null until a record needs them (then one entry per record).
    /** @type {Int32Array | null} */ this.topicIndices = null;
    /** @type {Int32Array | null} */ this.partitions = null;
    /** @type {BigInt64Array | null} */ this.timestamps = null;
    /** @type {BigInt64Array | null} */ this.offsets = null;
    /** @type {Uint32Array | null} */ this.headerCounts = null;
    /** @type {Int32Array | null} */ this.keySchemas = null;
    /** @type {Int32Array | null} */ this.valueSchemas = null;
    /** @type {Uint32Array | null} */ this.origins = null;
    /** Whether any optional column is in use (the fast path then fills defaults). */
    this.sparse = false;
    this.nh = 0;
    this.hcap = 0;
    this.headerKeyLengths = EMPTY_U32;
    this.headerValueLengths = EMPTY_I32;
    /** @type {Int32Array | null} */ this.headerSchemas = null;
    /** @type {string[]} */ this.topics = [];
    /** @type {Map<string, number>} */ this.topicIds = new Map();
    this.table = new SchemaTable();
    /** @type {Map<string, string | object>} partition JSON -> latest offset */
    this.positions = new Map();
    // Strings appended but not yet encoded (see `append`): the key and the
    // value of each of the last `np / 2` records.
    /** @type {string[]} */ this.pending = [];
    this.np = 0;
  }

  /** How many records the batch holds. */
  get length() {
    return this.n;
  }

  /** Empty the batch, keeping its buffers. */
  clear() {
    this.np = 0;
    this.w.pos = 0;
    this.n = 0;
    this.nh = 0;
    this.topicIndices = this.partitions = this.timestamps = this.offsets = null;
    this.headerCounts = this.keySchemas = this.valueSchemas = this.origins = this.headerSchemas = null;
    this.sparse = false;
    if (this.topics.length) {
      this.topics = [];
      this.topicIds.clear();
    }
    if (this.table.nodes.length) this.table.clear();
    if (this.positions.size) this.positions.clear();
  }

  growRecords() {
    const cap = this.cap * 2;
    this.keyLengths = grow(this.keyLengths, cap);
    this.valueLengths = grow(this.valueLengths, cap);
    if (this.topicIndices) this.topicIndices = grow(this.topicIndices, cap, -1);
    if (this.partitions) this.partitions = grow(this.partitions, cap, -1);
    if (this.timestamps) this.timestamps = grow(this.timestamps, cap, -1n);
    if (this.offsets) this.offsets = grow(this.offsets, cap, -1n);
    if (this.headerCounts) this.headerCounts = grow(this.headerCounts, cap);
    if (this.keySchemas) this.keySchemas = grow(this.keySchemas, cap, RAW);
    if (this.valueSchemas) this.valueSchemas = grow(this.valueSchemas, cap, RAW);
    if (this.origins) this.origins = grow(this.origins, cap);
    this.cap = cap;
  }

  /** An optional column, created (filled with `fill`) on first use. */
  column(name, Type, fill) {
    let c = this[name];
    if (c === null) {
      c = new Type(this.cap);
      if (fill !== 0 && fill !== 0n) c.fill(fill);
      this[name] = c;
      this.sparse = true;
    }
    return c;
  }

  // Defaults of record i in the optional columns in use (they may hold a
  // previous batch's entries).
  defaults(i) {
    if (this.topicIndices) this.topicIndices[i] = -1;
    if (this.partitions) this.partitions[i] = -1;
    if (this.timestamps) this.timestamps[i] = -1n;
    if (this.offsets) this.offsets[i] = -1n;
    if (this.headerCounts) this.headerCounts[i] = 0;
    if (this.keySchemas) this.keySchemas[i] = RAW;
    if (this.valueSchemas) this.valueSchemas[i] = RAW;
  }

  /**
   * Append a raw record: `key` and `value` are strings (written as UTF-8),
   * Uint8Arrays, or null (no key, a tombstone). The fast path: no object
   * per record. Set the stream's position with `position`.
   *
   * A record of two strings costs one call and a few stores: the strings
   * are kept and, when the batch is handed over (or another kind of record
   * follows), joined and encoded with one TextEncoder call. StarlingMonkey
   * interprets JavaScript, where every call and property access counts,
   * and one native call per batch is far cheaper than one per string.
   * @param {string | Uint8Array | null | undefined} key
   * @param {string | Uint8Array | null | undefined} value
   */
  append(key, value) {
    const i = this.n;
    if (typeof key !== 'string' || typeof value !== 'string' || i === this.cap || this.sparse) {
      this.appendOther(key, value);
      return;
    }
    const np = this.np;
    const pending = this.pending;
    pending[np] = key;
    pending[np + 1] = value;
    this.np = np + 2;
    this.keyLengths[i] = key.length;
    this.valueLengths[i] = value.length;
    this.n = i + 1;
  }

  // `append` of anything but two strings (or when the columns must grow).
  appendOther(key, value) {
    if (this.np) this.flush();
    const i = this.n;
    if (i === this.cap) this.growRecords();
    if (this.sparse) this.defaults(i);
    this.keyLengths[i] = typeof key === 'string' ? this.w.utf8(key) : this.rawBytes(key);
    this.valueLengths[i] = typeof value === 'string' ? this.w.utf8(value) : this.rawBytes(value);
    this.n = i + 1;
  }

  /**
   * Encode the strings `append` kept (the key and value of each record from
   * the last `np / 2` records) into `data`, and set their lengths.
   */
  flush() {
    const np = this.np;
    if (np === 0) return;
    const pending = this.pending;
    pending.length = np;
    const w = this.w;
    const start = w.pos;
    const text = pending.join('');
    w.utf8(text);
    // All ASCII: one byte per UTF-16 unit, so the lengths are the string
    // lengths `append` stored. Otherwise encode them one by one.
    if (w.pos - start !== text.length) {
      w.pos = start;
      const first = this.n - np / 2;
      for (let k = 0; k < np; k++) {
        const n = w.utf8(pending[k]);
        if (k & 1) this.valueLengths[first + (k >> 1)] = n;
        else this.keyLengths[first + (k >> 1)] = n;
      }
    }
    this.np = 0;
  }

  rawBytes(b) {
    if (b === null || b === undefined) return -1;
    if (this.np) this.flush();
    if (!(b instanceof Uint8Array)) {
      // Also typed arrays of another realm (what the bindings create).
      if (ArrayBuffer.isView(b)) b = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      else if (b instanceof ArrayBuffer) b = new Uint8Array(b);
      else throw new TypeError(`raw bytes must be a string or a Uint8Array, got ${typeof b} (give a schema for a typed value)`);
    }
    this.w.bytes(b);
    return b.length;
  }

  /**
   * Record that the batch advances source partition `partition` to
   * `offset` (both JSON objects, e.g. `{stream: 'stream-0'}` and
   * `{seq: 41}`, or their JSON text). The host stores it once the batch's
   * records are in Kafka; a restarted task resumes after it. A batch may
   * hold positions without records.
   * @param {string | object} partition
   * @param {string | object} offset
   */
  position(partition, offset) {
    this.positions.set(offsetJson(partition, true), offset);
  }

  /**
   * Write a key, value or header value; returns its length (-1 null) and
   * sets `this.code` to its schema column value.
   * @param {unknown} value
   * @param {Schema | typeof Schemaless | undefined | null} schema
   */
  payload(value, schema, what) {
    if (schema === undefined || schema === null) {
      this.code = RAW;
      if (typeof value === 'string') return this.w.utf8(value);
      if (value !== null && value !== undefined && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer)) {
        throw new TypeError(`${what}: a ${value.constructor?.name ?? 'object'} needs a schema (${what}Schema: a Schema, or Schemaless)`);
      }
      return this.rawBytes(value);
    }
    if (schema === Schemaless) {
      this.code = SCHEMALESS;
      if (value === null || value === undefined) return -1;
      const start = this.w.pos;
      try {
        encodeSchemaless(this.w, value);
      } catch (e) {
        this.w.pos = start;
        throw new DataError(`${what}: ${e.message}`);
      }
      return this.w.pos - start;
    }
    if (!(schema instanceof Schema)) throw new TypeError(`${what}Schema must be a Schema or Schemaless`);
    if (value === null || value === undefined) {
      if (!schema.isOptional && schema.defaultValue === undefined) {
        throw new DataError(`${what}: null for a required ${schema.type} schema${schema.name ? ` (${schema.name})` : ''} without a default`);
      }
      this.code = this.table.add(schema);
      return -1;
    }
    this.code = this.table.add(schema);
    const start = this.w.pos;
    try {
      encodeValue(this.w, schema, value);
    } catch (e) {
      this.w.pos = start;
      throw new DataError(`${what}: ${e.message}`);
    }
    return this.w.pos - start;
  }

  /**
   * Add a record (any field but `partition` and `offset` may be left out):
   *
   * - `partition`, `offset`: the source partition and offset (objects, or
   *   their JSON text); the batch's position for that partition becomes
   *   this offset;
   * - `key`, `value`: raw (a string or Uint8Array) without a schema; with
   *   `keySchema` / `valueSchema` (a Schema, or Schemaless) a typed value
   *   (see Schema); null/undefined: no key, a tombstone;
   * - `topic` (default: the connector's `topic`), `kafkaPartition`
   *   (default: the producer's partitioner), `timestamp` (ms since the
   *   epoch, a Number, BigInt or Date; default: Kafka stamps it);
   * - `headers`: `[key, value]` or `[key, value, schema]` entries, or an
   *   object of raw values.
   * @param {import('./source.js').SourceRecord} record
   */
  add(record) {
    if (record === null || typeof record !== 'object') throw new TypeError('a record must be an object');
    const { partition, offset } = record;
    if (partition === undefined || partition === null) throw new TypeError('a source record needs its source `partition`');
    if (offset === undefined || offset === null) throw new TypeError('a source record needs its source `offset`');
    const part = offsetJson(partition, true);
    this.addRecord(record, record.kafkaPartition);
    this.positions.set(part, offset);
  }

  /** Add `record`'s Kafka parts (no source position), to Kafka partition `kp`. */
  addRecord(record, kp) {
    const { key, value, keySchema, valueSchema, headers } = record;
    // A raw string key and value without headers: kept for the batch's one
    // encode, as `append` does (its bytes are the last of the batch).
    const deferred =
      typeof key === 'string' &&
      typeof value === 'string' &&
      (keySchema === undefined || keySchema === null) &&
      (valueSchema === undefined || valueSchema === null) &&
      (headers === undefined || headers === null);
    if (this.np && !deferred) this.flush();
    const i = this.n;
    if (i === this.cap) {
      if (this.np) this.flush();
      this.growRecords();
    }
    if (this.sparse) this.defaults(i);
    const w = this.w;
    const start = w.pos;
    const nh = this.nh;
    const np = this.np;
    try {
      if (deferred) {
        this.pending[np] = key;
        this.pending[np + 1] = value;
        this.np = np + 2;
        this.keyLengths[i] = key.length;
        this.valueLengths[i] = value.length;
      } else {
        const kl = this.payload(key, keySchema, 'key');
        if (this.code !== RAW) this.column('keySchemas', Int32Array, RAW)[i] = this.code;
        const vl = this.payload(value, valueSchema, 'value');
        if (this.code !== RAW) this.column('valueSchemas', Int32Array, RAW)[i] = this.code;
        this.keyLengths[i] = kl;
        this.valueLengths[i] = vl;
      }
      if (record.topic !== undefined && record.topic !== null) {
        this.column('topicIndices', Int32Array, -1)[i] = this.topicIndex(record.topic);
      }
      if (kp !== undefined && kp !== null && kp !== -1) {
        if (!Number.isInteger(kp) || kp < 0 || kp >= 2 ** 31) throw new TypeError(`kafkaPartition ${kp} is not a partition number`);
        this.column('partitions', Int32Array, -1)[i] = kp;
      }
      const ts = record.timestamp;
      if (ts !== undefined && ts !== null) this.column('timestamps', BigInt64Array, -1n)[i] = toMillis(ts);
      if (headers !== undefined && headers !== null) {
        const count = this.addHeaders(headers);
        if (count > 0) this.column('headerCounts', Uint32Array, 0)[i] = count;
      }
    } catch (e) {
      // Leave the batch as it was before this record.
      w.pos = start;
      this.nh = nh;
      this.np = np;
      if (this.sparse) this.defaults(i);
      throw e;
    }
    this.n = i + 1;
  }

  topicIndex(topic) {
    if (typeof topic !== 'string' || topic === '') throw new TypeError('a record topic must be a non-empty string');
    let t = this.topicIds.get(topic);
    if (t === undefined) {
      t = this.topics.length;
      this.topics.push(topic);
      this.topicIds.set(topic, t);
    }
    return t;
  }

  addHeaders(headers) {
    let entries;
    if (Array.isArray(headers) || typeof headers[Symbol.iterator] === 'function') entries = headers;
    else entries = Object.entries(headers);
    let count = 0;
    for (const h of entries) {
      let key, value, schema;
      if (Array.isArray(h)) [key, value, schema] = h;
      else ({ key, value, schema } = h);
      if (typeof key !== 'string' || key === '') throw new TypeError('a header key must be a non-empty string');
      const j = this.nh;
      if (j === this.hcap) this.growHeaders();
      this.headerKeyLengths[j] = this.w.utf8(key);
      this.headerValueLengths[j] = this.payload(value, schema, `header '${key}'`);
      if (this.code !== RAW) {
        if (this.headerSchemas === null) this.headerSchemas = new Int32Array(this.hcap).fill(RAW);
        this.headerSchemas[j] = this.code;
      } else if (this.headerSchemas !== null) this.headerSchemas[j] = RAW;
      this.nh = j + 1;
      count++;
    }
    return count;
  }

  growHeaders() {
    const cap = Math.max(64, this.hcap * 2);
    this.headerKeyLengths = grow(this.headerKeyLengths, cap);
    this.headerValueLengths = grow(this.headerValueLengths, cap);
    if (this.headerSchemas) this.headerSchemas = grow(this.headerSchemas, cap, RAW);
    this.hcap = cap;
  }

  /** The WIT `source-batch` (views of this batch's buffers, valid until it changes). */
  toWit() {
    this.flush();
    const n = this.n;
    const positions = [];
    for (const [partition, offset] of this.positions) positions.push({ partition, offset: offsetJson(offset) });
    return {
      data: this.w.buf.subarray(0, this.w.pos),
      keyLengths: this.keyLengths.subarray(0, n),
      valueLengths: this.valueLengths.subarray(0, n),
      topics: this.topics,
      topicIndices: this.topicIndices ? this.topicIndices.subarray(0, n) : EMPTY_I32,
      partitions: this.partitions ? this.partitions.subarray(0, n) : EMPTY_I32,
      timestamps: this.timestamps ? this.timestamps.subarray(0, n) : EMPTY_I64,
      headerCounts: this.headerCounts ? this.headerCounts.subarray(0, n) : EMPTY_U32,
      headerKeyLengths: this.headerKeyLengths.subarray(0, this.nh),
      headerValueLengths: this.headerValueLengths.subarray(0, this.nh),
      schemas: this.table.nodes,
      keySchemas: this.keySchemas ? this.keySchemas.subarray(0, n) : EMPTY_I32,
      valueSchemas: this.valueSchemas ? this.valueSchemas.subarray(0, n) : EMPTY_I32,
      headerSchemas: this.headerSchemas ? this.headerSchemas.subarray(0, this.nh) : EMPTY_I32,
      positions,
    };
  }

  /**
   * The WIT transform `record-batch` of this batch's records; `origins`
   * per record (the input record each came from).
   */
  toTransformWit() {
    this.flush();
    const n = this.n;
    const filled = (c, Type, fill) => (c ? c.subarray(0, n) : new Type(n).fill(fill));
    return {
      data: this.w.buf.subarray(0, this.w.pos),
      keyLengths: this.keyLengths.subarray(0, n),
      valueLengths: this.valueLengths.subarray(0, n),
      topics: this.topics,
      topicIndices: this.topicIndices ? new Uint32Array(this.topicIndices.buffer, 0, n) : new Uint32Array(n),
      partitions: filled(this.partitions, Int32Array, -1),
      timestamps: filled(this.timestamps, BigInt64Array, -1n),
      offsets: filled(this.offsets, BigInt64Array, -1n),
      headerCounts: this.headerCounts ? this.headerCounts.subarray(0, n) : EMPTY_U32,
      headerKeyLengths: this.headerKeyLengths.subarray(0, this.nh),
      headerValueLengths: this.headerValueLengths.subarray(0, this.nh),
      schemas: this.table.nodes,
      keySchemas: this.keySchemas ? this.keySchemas.subarray(0, n) : EMPTY_I32,
      valueSchemas: this.valueSchemas ? this.valueSchemas.subarray(0, n) : EMPTY_I32,
      headerSchemas: this.headerSchemas ? this.headerSchemas.subarray(0, this.nh) : EMPTY_I32,
      origins: this.origins ? this.origins.subarray(0, n) : EMPTY_U32,
    };
  }
}

/** @param {number | bigint | Date} ts */
export function toMillis(ts) {
  if (typeof ts === 'bigint') return ts;
  if (ts instanceof Date) return BigInt(ts.getTime());
  if (typeof ts === 'number' && Number.isSafeInteger(ts)) return BigInt(ts);
  throw new TypeError(`a timestamp must be milliseconds (a Number, BigInt or Date), got ${ts}`);
}

/**
 * A batch of records as the host sends it (a sink's `put`, a transform's
 * `apply`), read in place: `batch.length`, `batch.get(i)` (a record
 * object), `for (const record of batch)`; and per-index accessors that
 * allocate nothing for the numbers (`topic(i)`, `partition(i)`,
 * `offset(i)`, `valueBytes(i)`, ...).
 *
 * A record object: `{ topic, partition, offset, timestamp, key, keySchema,
 * value, valueSchema, headers }`, with
 *
 * - `offset` a BigInt (-1n for none), `timestamp` a BigInt or undefined;
 * - `key`/`value`: raw bytes as a Uint8Array (schema undefined), a
 *   schemaless value (schema `Schemaless`), or a typed value decoded to JS
 *   (schema a Schema; see Schema for the JS types); null for null;
 * - `headers`: `{ key, value, schema }` objects, decoded the same way.
 */
export class RecordView {
  /** @param {any} wit the WIT sink-batch or record-batch */
  constructor(wit) {
    this.wit = wit;
    // The bindings' typed arrays belong to another realm than this module
    // (`instanceof Uint8Array` is false for them): view the bytes through a
    // Uint8Array of ours, so that every value handed out is a plain one.
    const d = wit.data;
    this.data = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
    this.keyLengths = wit.keyLengths;
    this.valueLengths = wit.valueLengths;
    this.n = wit.valueLengths.length;
    /** @type {Schema[] | undefined} */
    this.built = undefined;
    /** @type {Int32Array | undefined} where each record's key starts in `data` */
    this.starts = undefined;
    /** @type {Uint32Array | undefined} each record's first header */
    this.headerStarts = undefined;
    /** @type {Int32Array | undefined} where each header's key starts */
    this.headerOffsets = undefined;
  }

  /** How many records. */
  get length() {
    return this.n;
  }

  layout() {
    const n = this.n;
    const starts = new Int32Array(n + 1);
    const counts = this.wit.headerCounts;
    const hk = this.wit.headerKeyLengths;
    const hv = this.wit.headerValueLengths;
    const headerStarts = new Uint32Array(n + 1);
    const headerOffsets = new Int32Array(hk.length);
    let pos = 0;
    let h = 0;
    for (let i = 0; i < n; i++) {
      starts[i] = pos;
      headerStarts[i] = h;
      const kl = this.keyLengths[i];
      const vl = this.valueLengths[i];
      pos += (kl > 0 ? kl : 0) + (vl > 0 ? vl : 0);
      const c = counts.length ? counts[i] : 0;
      for (let k = 0; k < c; k++, h++) {
        headerOffsets[h] = pos;
        const l = hv[h];
        pos += hk[h] + (l > 0 ? l : 0);
      }
    }
    starts[n] = pos;
    headerStarts[n] = h;
    if (pos !== this.data.length) throw new DataError(`the batch's lengths add up to ${pos} bytes, its data has ${this.data.length}`);
    this.starts = starts;
    this.headerStarts = headerStarts;
    this.headerOffsets = headerOffsets;
  }

  /** The schemas of the batch's nodes. */
  schemas() {
    if (this.built === undefined) this.built = schemasOf(this.wit.schemas);
    return this.built;
  }

  schemaFor(code) {
    if (code === RAW) return undefined;
    if (code === SCHEMALESS) return Schemaless;
    const s = this.schemas()[code];
    if (s === undefined) throw new DataError(`no schema node ${code}`);
    return s;
  }

  check(i) {
    if (!(i >= 0 && i < this.n)) throw new RangeError(`no record ${i} in a batch of ${this.n}`);
    if (this.starts === undefined) this.layout();
  }

  /** Record i's topic. @param {number} i */
  topic(i) {
    return this.wit.topics[this.wit.topicIndices[i]];
  }

  /** Record i's Kafka partition (-1: none). @param {number} i */
  partition(i) {
    return this.wit.partitions[i];
  }

  /** Record i's Kafka offset, a BigInt (-1n: none). @param {number} i */
  offset(i) {
    const o = this.wit.offsets;
    return o && o.length ? o[i] : -1n;
  }

  /** Record i's timestamp (ms since the epoch, a BigInt) or undefined. @param {number} i */
  timestamp(i) {
    const t = this.wit.timestamps[i];
    return t === -1n ? undefined : t;
  }

  /** Record i's key bytes as sent (a view), null for none. @param {number} i */
  keyBytes(i) {
    this.check(i);
    const l = this.keyLengths[i];
    const s = this.starts[i];
    return l < 0 ? null : this.data.subarray(s, s + l);
  }

  /** Record i's value bytes as sent (a view), null for a tombstone. @param {number} i */
  valueBytes(i) {
    this.check(i);
    const l = this.valueLengths[i];
    const s = this.starts[i] + (this.keyLengths[i] > 0 ? this.keyLengths[i] : 0);
    return l < 0 ? null : this.data.subarray(s, s + l);
  }

  /** Record i's key schema: undefined (raw), Schemaless or a Schema. @param {number} i */
  keySchema(i) {
    const c = this.wit.keySchemas;
    return this.schemaFor(c.length ? c[i] : RAW);
  }

  /** Record i's value schema: undefined (raw), Schemaless or a Schema. @param {number} i */
  valueSchema(i) {
    const c = this.wit.valueSchemas;
    return this.schemaFor(c.length ? c[i] : RAW);
  }

  decode(bytes, schema) {
    if (bytes === null) return null;
    if (schema === undefined) return bytes;
    const r = new ByteReader(bytes);
    const v = schema === Schemaless ? readSchemaless(r) : readValue(r, schema);
    if (r.pos !== r.end) throw new DataError(`${r.end - r.pos} bytes left after the value`);
    return v;
  }

  /** Record i's key: raw bytes, or the decoded value. @param {number} i */
  key(i) {
    return this.decode(this.keyBytes(i), this.keySchema(i));
  }

  /** Record i's value: raw bytes, or the decoded value. @param {number} i */
  value(i) {
    return this.decode(this.valueBytes(i), this.valueSchema(i));
  }

  /** Record i's headers: `{ key, value, schema }`. @param {number} i */
  headers(i) {
    this.check(i);
    const out = [];
    const hk = this.wit.headerKeyLengths;
    const hv = this.wit.headerValueLengths;
    const hs = this.wit.headerSchemas;
    for (let h = this.headerStarts[i]; h < this.headerStarts[i + 1]; h++) {
      const at = this.headerOffsets[h];
      const key = textDecoder.decode(this.data.subarray(at, at + hk[h]));
      const l = hv[h];
      const bytes = l < 0 ? null : this.data.subarray(at + hk[h], at + hk[h] + l);
      const schema = this.schemaFor(hs.length ? hs[h] : RAW);
      out.push({ key, value: this.decode(bytes, schema), schema });
    }
    return out;
  }

  /** Record i as an object. @param {number} i */
  get(i) {
    this.check(i);
    const keySchema = this.keySchema(i);
    const valueSchema = this.valueSchema(i);
    return {
      topic: this.topic(i),
      partition: this.partition(i),
      offset: this.offset(i),
      timestamp: this.timestamp(i),
      key: this.decode(this.keyBytes(i), keySchema),
      keySchema,
      value: this.decode(this.valueBytes(i), valueSchema),
      valueSchema,
      headers: this.headers(i),
    };
  }

  *[Symbol.iterator]() {
    for (let i = 0; i < this.n; i++) yield this.get(i);
  }

  /** The records as an array of objects. */
  toArray() {
    return Array.from(this);
  }
}

const textDecoder = new TextDecoder();
