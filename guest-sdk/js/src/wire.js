// The value encoding and schema tables of `copycat:connector@0.3.0`
// (wit/connector@0.3.0/batch.wit; the same bytes as copycat-data's `wire`
// module, which the host uses): little-endian; an optional schema's value
// starts with a presence byte (0 null, 1 present); int8 and boolean 1 byte,
// int16/int32/int64 2/4/8, float32/float64 IEEE 754 4/8; string and bytes a
// u32 length then the bytes; Decimal its unscaled value's big-endian two's
// complement as bytes; array a u32 count then the elements; map a u32 count
// then key, value, ...; struct its fields in order. A schemaless value has a
// tag byte before each value (0 null, 1 int8, 2 int16, 3 int32, 4 int64,
// 5 float32, 6 float64, 7 boolean, 8 string, 9 bytes, 10 array, 11 map).
//
// Not public: the SDK's batches use these; the exports of 'copycat-sdk' that
// come from here are `encodeValue`/`decodeValue` for tests and tools.

import { Decimal, LOGICAL, Schema, Schemaless, TYPES, unscaledBytes } from './schema.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const MS_PER_DAY = 86400000;
const MAX_DEPTH = 100;

/** A data error: a value that does not fit its schema, malformed bytes. */
export class DataError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'DataError';
    /** What is wrong, without where. */
    this.reason = message;
    /** Where in the value, e.g. `items[2].name` (undefined: the value itself). @type {string | undefined} */
    this.path = undefined;
  }
}

// Put `segment` (a field name, `[i]`, `{key}`) in front of the path of a
// DataError thrown inside a struct, array or map. Paths are built only on
// the way out of a failure: the interpreter pays nothing for them otherwise.
function inside(e, segment) {
  if (!(e instanceof DataError)) return e;
  e.path = e.path === undefined ? segment : `${segment}${e.path.startsWith('[') || e.path.startsWith('{') ? '' : '.'}${e.path}`;
  e.message = `${e.reason} at ${e.path}`;
  return e;
}

/**
 * A growable byte buffer: the `data` of a batch. `buf` and `view` are
 * replaced when it grows, so read them after writing.
 */
export class ByteWriter {
  /** @param {number} [capacity] */
  constructor(capacity = 64 * 1024) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
    this.pos = 0;
  }

  /** Make room for `n` more bytes. @param {number} n */
  ensure(n) {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  grow(n) {
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.pos));
    this.buf = b;
    this.view = new DataView(b.buffer);
  }

  u8(v) {
    if (this.pos + 1 > this.buf.length) this.grow(1);
    this.buf[this.pos++] = v;
  }

  i16(v) {
    this.ensure(2);
    this.view.setInt16(this.pos, v, true);
    this.pos += 2;
  }

  i32(v) {
    this.ensure(4);
    this.view.setInt32(this.pos, v, true);
    this.pos += 4;
  }

  u32(v) {
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }

  /** @param {bigint} v */
  i64(v) {
    this.ensure(8);
    this.view.setBigInt64(this.pos, v, true);
    this.pos += 8;
  }

  f32(v) {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  f64(v) {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** Raw bytes. @param {Uint8Array} b */
  bytes(b) {
    const n = b.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    this.buf.set(b, this.pos);
    this.pos += n;
  }

  /**
   * A string's UTF-8 bytes (no length); returns how many.
   * @param {string} s
   */
  utf8(s) {
    const max = s.length * 3;
    if (this.pos + max > this.buf.length) this.grow(max);
    const { written } = encoder.encodeInto(s, this.buf.subarray(this.pos));
    this.pos += written;
    return written;
  }

  /** The bytes written so far (a view, valid until the next write). */
  written() {
    return this.buf.subarray(0, this.pos);
  }
}

/** `a int64` -> `an int64`. */
function an(schema) {
  const s = String(schema);
  return /^[aeiou]/.test(s) ? `an ${s}` : `a ${s}`;
}

function isDecimal(schema) {
  return schema.type === 'bytes' && schema.name === LOGICAL.DECIMAL;
}

function decimalScale(schema) {
  const s = schema.param('scale');
  const n = s === undefined ? NaN : Number(s);
  if (!Number.isInteger(n)) throw new DataError(`Decimal schema without an integer scale parameter`);
  return n;
}

function checkInt(v, bits, schema) {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new DataError(`a ${typeof v} value for ${an(schema)} schema`);
  }
  const lim = 2 ** (bits - 1);
  if (v < -lim || v >= lim) throw new DataError(`${v} is out of range for ${schema.type}`);
}

function toInt64(v, schema) {
  if (typeof v === 'bigint') {
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new DataError(`${v} is out of range for int64`);
    return v;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (v instanceof Date && schema.name === LOGICAL.TIMESTAMP) return BigInt(v.getTime());
  throw new DataError(`a ${describe(v)} value for ${an(schema)} schema (int64 wants a BigInt or a safe integer)`);
}

function describe(v) {
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return 'Uint8Array';
  if (Array.isArray(v)) return 'Array';
  if (typeof v === 'object') return v.constructor?.name ?? 'object';
  return typeof v;
}

function asBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return undefined;
}

/**
 * Append `value`'s encoding under `schema` to `w`.
 * @param {ByteWriter} w
 * @param {Schema} schema
 * @param {unknown} value
 * @param {number} [depth]
 */
export function encodeValue(w, schema, value, depth = 0) {
  if (depth > MAX_DEPTH) throw new DataError(`value nested deeper than ${MAX_DEPTH}`);
  if (value === null || value === undefined) {
    if (!schema.isOptional) throw new DataError(`null for a required ${schema.type} schema${schema.name ? ` (${schema.name})` : ''}`);
    w.u8(0);
    return;
  }
  if (schema.isOptional) w.u8(1);
  switch (schema.type) {
    case 'int8':
      checkInt(value, 8, schema);
      w.u8(value & 0xff);
      return;
    case 'int16':
      checkInt(value, 16, schema);
      w.i16(value);
      return;
    case 'int32': {
      let v = value;
      if (v instanceof Date && schema.name === LOGICAL.DATE) v = Math.floor(v.getTime() / MS_PER_DAY);
      else if (v instanceof Date && schema.name === LOGICAL.TIME) v = ((v.getTime() % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
      checkInt(v, 32, schema);
      w.i32(v);
      return;
    }
    case 'int64':
      w.i64(toInt64(value, schema));
      return;
    case 'float32':
    case 'float64':
      if (typeof value !== 'number') throw new DataError(`a ${describe(value)} value for ${an(schema)} schema`);
      if (schema.type === 'float32') w.f32(value);
      else w.f64(value);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw new DataError(`a ${describe(value)} value for ${an(schema)} schema`);
      w.u8(value ? 1 : 0);
      return;
    case 'string': {
      if (typeof value !== 'string') throw new DataError(`a ${describe(value)} value for ${an(schema)} schema`);
      w.ensure(4);
      const at = w.pos;
      w.pos += 4;
      const n = w.utf8(value);
      w.view.setUint32(at, n, true);
      return;
    }
    case 'bytes': {
      if (isDecimal(schema)) {
        const scale = decimalScale(schema);
        let unscaled;
        if (typeof value === 'bigint') unscaled = value;
        else if (value instanceof Decimal) {
          if (value.scale !== scale) throw new DataError(`a Decimal of scale ${value.scale} for a Decimal schema of scale ${scale}`);
          unscaled = value.unscaled;
        } else throw new DataError(`a ${describe(value)} value for a Decimal schema (wants a Decimal or a BigInt)`);
        const b = unscaledBytes(unscaled);
        w.u32(b.length);
        w.bytes(b);
        return;
      }
      const b = asBytes(value);
      if (!b) throw new DataError(`a ${describe(value)} value for ${an(schema)} schema (wants a Uint8Array)`);
      w.u32(b.length);
      w.bytes(b);
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) throw new DataError(`a ${describe(value)} value for an array schema`);
      w.u32(value.length);
      const elem = schema.valueSchema;
      for (let i = 0; i < value.length; i++) {
        try {
          encodeValue(w, elem, value[i], depth + 1);
        } catch (e) {
          throw inside(e, `[${i}]`);
        }
      }
      return;
    }
    case 'map': {
      const entries = mapEntries(value);
      w.u32(entries.length);
      for (const [k, v] of entries) {
        try {
          encodeValue(w, schema.keySchema, k, depth + 1);
        } catch (e) {
          throw inside(e, '{key}');
        }
        try {
          encodeValue(w, schema.valueSchema, v, depth + 1);
        } catch (e) {
          throw inside(e, `[${String(k)}]`);
        }
      }
      return;
    }
    case 'struct': {
      if (typeof value !== 'object' || Array.isArray(value) || asBytes(value)) {
        throw new DataError(`a ${describe(value)} value for a struct schema${schema.name ? ` (${schema.name})` : ''}`);
      }
      const fields = schema.fields;
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i];
        let v = value[f.name];
        if ((v === undefined || v === null) && f.schema.defaultValue !== undefined) v = f.schema.defaultValue;
        try {
          encodeValue(w, f.schema, v, depth + 1);
        } catch (e) {
          throw inside(e, f.name);
        }
      }
      return;
    }
    default:
      throw new DataError(`unknown schema type ${schema.type}`);
  }
}

function mapEntries(value) {
  if (value instanceof Map) return [...value];
  if (value && typeof value === 'object' && !Array.isArray(value) && !asBytes(value)) return Object.entries(value);
  throw new DataError(`a ${describe(value)} value for a map schema (wants a Map or an object)`);
}

/**
 * Append a schemaless value (tagged) to `w`: null, a BigInt (int64), a
 * Number (an integer: int64; else float64), a boolean, a string, bytes, an
 * Array, a Map or a plain object (a map). Structs and decimals need a schema.
 * @param {ByteWriter} w
 * @param {unknown} value
 */
export function encodeSchemaless(w, value, depth = 0) {
  if (depth > MAX_DEPTH) throw new DataError(`value nested deeper than ${MAX_DEPTH}`);
  if (value === null || value === undefined) return w.u8(0);
  switch (typeof value) {
    case 'bigint':
      w.u8(4);
      w.i64(toInt64(value, INT64));
      return;
    case 'number':
      if (Number.isSafeInteger(value)) {
        w.u8(4);
        w.i64(BigInt(value));
      } else {
        w.u8(6);
        w.f64(value);
      }
      return;
    case 'boolean':
      w.u8(7);
      w.u8(value ? 1 : 0);
      return;
    case 'string': {
      w.u8(8);
      w.ensure(4);
      const at = w.pos;
      w.pos += 4;
      const n = w.utf8(value);
      w.view.setUint32(at, n, true);
      return;
    }
    default:
      break;
  }
  const b = asBytes(value);
  if (b) {
    w.u8(9);
    w.u32(b.length);
    w.bytes(b);
    return;
  }
  if (Array.isArray(value)) {
    w.u8(10);
    w.u32(value.length);
    for (const v of value) encodeSchemaless(w, v, depth + 1);
    return;
  }
  if (value instanceof Decimal) throw new DataError('a Decimal needs a schema');
  const entries = mapEntries(value);
  w.u8(11);
  w.u32(entries.length);
  for (const [k, v] of entries) {
    encodeSchemaless(w, k, depth + 1);
    encodeSchemaless(w, v, depth + 1);
  }
}

/** Reads values from a batch's `data`. */
export class ByteReader {
  /**
   * @param {Uint8Array} buf
   * @param {number} [pos]
   * @param {number} [end]
   */
  constructor(buf, pos = 0, end = buf.length) {
    // A Uint8Array of this realm over the same bytes (the bindings' arrays
    // are of another), so that the bytes values read are plain Uint8Arrays.
    this.buf = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = pos;
    this.end = end;
  }

  need(n) {
    if (this.pos + n > this.end) throw new DataError(`the value ends early (${n} bytes wanted at byte ${this.pos}, ${this.end - this.pos} left)`);
  }

  u8() {
    this.need(1);
    return this.buf[this.pos++];
  }

  u32() {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  take(n) {
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}

/**
 * The value encoded under `schema` at `r`'s position.
 * @param {ByteReader} r
 * @param {Schema} schema
 * @returns {unknown}
 */
export function readValue(r, schema, depth = 0) {
  if (depth > MAX_DEPTH) throw new DataError(`value nested deeper than ${MAX_DEPTH}`);
  if (schema.isOptional) {
    const present = r.u8();
    if (present === 0) return null;
    if (present !== 1) throw new DataError(`presence byte ${present} is neither 0 nor 1`);
  }
  switch (schema.type) {
    case 'int8': {
      r.need(1);
      return r.view.getInt8(r.pos++);
    }
    case 'int16': {
      r.need(2);
      const v = r.view.getInt16(r.pos, true);
      r.pos += 2;
      return v;
    }
    case 'int32': {
      r.need(4);
      const v = r.view.getInt32(r.pos, true);
      r.pos += 4;
      return v;
    }
    case 'int64': {
      r.need(8);
      const v = r.view.getBigInt64(r.pos, true);
      r.pos += 8;
      return v;
    }
    case 'float32': {
      r.need(4);
      const v = r.view.getFloat32(r.pos, true);
      r.pos += 4;
      return v;
    }
    case 'float64': {
      r.need(8);
      const v = r.view.getFloat64(r.pos, true);
      r.pos += 8;
      return v;
    }
    case 'boolean': {
      const b = r.u8();
      if (b > 1) throw new DataError(`${b} is not a boolean (0 or 1)`);
      return b === 1;
    }
    case 'string':
      return decoder.decode(r.take(r.u32()));
    case 'bytes': {
      const b = r.take(r.u32()).slice();
      return isDecimal(schema) ? Decimal.fromBytes(b, decimalScale(schema)) : b;
    }
    case 'array': {
      const n = r.u32();
      const out = [];
      for (let i = 0; i < n; i++) out.push(readValue(r, schema.valueSchema, depth + 1));
      return out;
    }
    case 'map': {
      const n = r.u32();
      const out = new Map();
      for (let i = 0; i < n; i++) {
        const k = readValue(r, schema.keySchema, depth + 1);
        out.set(k, readValue(r, schema.valueSchema, depth + 1));
      }
      return out;
    }
    case 'struct': {
      const out = {};
      for (const f of schema.fields) out[f.name] = readValue(r, f.schema, depth + 1);
      return out;
    }
    default:
      throw new DataError(`unknown schema type ${schema.type}`);
  }
}

/**
 * A schemaless (tagged) value at `r`'s position: int8/16/32 and floats as
 * Numbers, int64 as a BigInt, maps as Maps.
 * @param {ByteReader} r
 */
export function readSchemaless(r, depth = 0) {
  if (depth > MAX_DEPTH) throw new DataError(`value nested deeper than ${MAX_DEPTH}`);
  const tag = r.u8();
  switch (tag) {
    case 0:
      return null;
    case 1:
      return readValue(r, INT8, depth);
    case 2:
      return readValue(r, INT16, depth);
    case 3:
      return readValue(r, INT32, depth);
    case 4:
      return readValue(r, INT64, depth);
    case 5:
      return readValue(r, FLOAT32, depth);
    case 6:
      return readValue(r, FLOAT64, depth);
    case 7:
      return readValue(r, BOOLEAN, depth);
    case 8:
      return readValue(r, STRING, depth);
    case 9:
      return readValue(r, BYTES, depth);
    case 10: {
      const n = r.u32();
      const out = [];
      for (let i = 0; i < n; i++) out.push(readSchemaless(r, depth + 1));
      return out;
    }
    case 11: {
      const n = r.u32();
      const out = new Map();
      for (let i = 0; i < n; i++) {
        const k = readSchemaless(r, depth + 1);
        out.set(k, readSchemaless(r, depth + 1));
      }
      return out;
    }
    default:
      throw new DataError(`unknown schemaless tag ${tag}`);
  }
}

const INT8 = Schema.int8();
const INT16 = Schema.int16();
const INT32 = Schema.int32();
const INT64 = Schema.int64();
const FLOAT32 = Schema.float32();
const FLOAT64 = Schema.float64();
const BOOLEAN = Schema.boolean();
const STRING = Schema.string();
const BYTES = Schema.bytes();

/**
 * The value encoded in `bytes` under `schema` (Schemaless: tagged); every
 * byte must be used.
 * @param {Schema | typeof Schemaless} schema
 * @param {Uint8Array} bytes
 */
export function decodeValue(schema, bytes) {
  const r = new ByteReader(bytes);
  const v = schema === Schemaless ? readSchemaless(r) : readValue(r, /** @type {Schema} */ (schema));
  if (r.pos !== r.end) throw new DataError(`${r.end - r.pos} bytes left after the value`);
  return v;
}

/**
 * `value` encoded under `schema` (Schemaless: tagged), as new bytes.
 * @param {Schema | typeof Schemaless} schema
 * @param {unknown} value
 * @returns {Uint8Array}
 */
export function encodeToBytes(schema, value) {
  const w = new ByteWriter(64);
  if (schema === Schemaless) encodeSchemaless(w, value);
  else encodeValue(w, /** @type {Schema} */ (schema), value);
  return w.written().slice();
}

/**
 * Flattens schemas into the WIT `schema-node` list of one batch: every node
 * after the nodes it refers to; a schema object met again (by identity)
 * reuses its nodes.
 */
export class SchemaTable {
  constructor() {
    /** @type {object[]} WIT schema-node records */
    this.nodes = [];
    /** @type {Map<Schema, number>} */
    this.ids = new Map();
  }

  /**
   * The index of `schema`'s root node, adding its nodes if needed.
   * @param {Schema} schema
   * @returns {number}
   */
  add(schema, depth = 0) {
    const known = this.ids.get(schema);
    if (known !== undefined) return known;
    if (!(schema instanceof Schema)) throw new DataError(`expected a Schema, got ${describe(schema)}`);
    if (depth > MAX_DEPTH) throw new DataError(`schema nested deeper than ${MAX_DEPTH}`);
    const children = [];
    const fieldNames = [];
    if (schema.type === 'array') {
      if (!schema.valueSchema) throw new DataError('an array schema without its element schema');
      children.push(this.add(schema.valueSchema, depth + 1));
    } else if (schema.type === 'map') {
      if (!schema.keySchema || !schema.valueSchema) throw new DataError('a map schema without its key and value schemas');
      children.push(this.add(schema.keySchema, depth + 1), this.add(schema.valueSchema, depth + 1));
    } else if (schema.type === 'struct') {
      for (const f of schema.fields) {
        children.push(this.add(f.schema, depth + 1));
        fieldNames.push(f.name);
      }
    }
    let dflt;
    if (schema.defaultValue !== undefined) {
      const w = new ByteWriter(64);
      try {
        encodeValue(w, schema, schema.defaultValue);
      } catch (e) {
        throw new DataError(`the default of ${schema}: ${e.message}`);
      }
      dflt = w.written().slice();
    }
    const index = this.nodes.length;
    this.nodes.push({
      type: schema.type,
      optional: schema.isOptional,
      name: schema.name,
      version: schema.version,
      doc: schema.doc,
      parameters: schema.parameters,
      default: dflt,
      children,
      fieldNames,
    });
    this.ids.set(schema, index);
    return index;
  }

  clear() {
    this.nodes = [];
    this.ids.clear();
  }
}

/**
 * The Schema of each node of a WIT `schema-node` list (as the host sends
 * it with a sink's or transform's batch).
 * @param {readonly any[]} nodes
 * @returns {Schema[]}
 */
export function schemasOf(nodes) {
  const built = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const at = (c) => {
      if (c >= i) throw new DataError(`schema node ${i} refers to node ${c}: a node may refer only to earlier ones`);
      return built[c];
    };
    if (!TYPES.includes(n.type)) throw new DataError(`schema node ${i}: unknown type ${n.type}`);
    const children = [...n.children];
    const s = new Schema(n.type, {
      isOptional: Boolean(n.optional),
      name: n.name ?? undefined,
      version: n.version ?? undefined,
      doc: n.doc ?? undefined,
      parameters: (n.parameters ?? []).map(([k, v]) => [k, v]),
    });
    if (n.type === 'array') s.valueSchema = at(children[0]);
    else if (n.type === 'map') {
      s.keySchema = at(children[0]);
      s.valueSchema = at(children[1]);
    } else if (n.type === 'struct') {
      s.fields = children.map((c, k) => ({ name: n.fieldNames[k], schema: at(c) }));
    }
    if (n.default !== undefined && n.default !== null) {
      try {
        s.defaultValue = decodeValue(s, n.default);
      } catch (e) {
        throw new DataError(`schema node ${i}: its default: ${e.message}`);
      }
    }
    built.push(s);
  }
  return built;
}
