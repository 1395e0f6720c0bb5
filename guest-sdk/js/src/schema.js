// Schemas of typed keys, values and headers: Kafka Connect's data model
// (`org.apache.kafka.connect.data.Schema`), as `copycat:connector@0.3.0`
// carries it (wit/connector@0.3.0/batch.wit).
//
//     import { Schema } from 'copycat-sdk';
//
//     const Count = Schema.struct('copycat.examples.Count')
//       .field('stream', Schema.string())
//       .field('seq', Schema.int64())
//       .field('even', Schema.boolean())
//       .field('note', Schema.string().optional());
//
// A value of a schema is a plain JS value (see docs/authoring/js.md):
//
// | schema                    | JS value written                     | JS value read (sink, transform) |
// |---------------------------|--------------------------------------|---------------------------------|
// | int8, int16, int32        | Number (an integer in range)         | Number                          |
// | int64                     | BigInt, or a safe-integer Number     | BigInt                          |
// | float32, float64          | Number                               | Number                          |
// | boolean                   | boolean                              | boolean                         |
// | string                    | string                               | string                          |
// | bytes                     | Uint8Array (or ArrayBuffer, a view)  | Uint8Array                      |
// | array                     | Array                                | Array                           |
// | map                       | Map, or a plain object (string keys) | Map                             |
// | struct                    | plain object (missing field: null)   | plain object, fields in order   |
// | Date / Time (int32)       | Number, or a JS Date                 | Number (days / ms of the day)   |
// | Timestamp (int64)         | BigInt, Number or a JS Date          | BigInt (ms since the epoch)     |
// | Decimal (bytes)           | Decimal, or a BigInt unscaled value  | Decimal                         |
// | optional, null            | null or undefined                    | null                            |
//
// int64 is a BigInt when read because that is what componentize-js gives
// for WIT s64 too, and a Number cannot hold every int64.

/** The schema types (WIT `schema-type`). */
export const TYPES = Object.freeze([
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
  'bytes',
  'array',
  'map',
  'struct',
]);

/** Names of Kafka Connect's logical types. */
export const LOGICAL = Object.freeze({
  DECIMAL: 'org.apache.kafka.connect.data.Decimal',
  DATE: 'org.apache.kafka.connect.data.Date',
  TIME: 'org.apache.kafka.connect.data.Time',
  TIMESTAMP: 'org.apache.kafka.connect.data.Timestamp',
});

/**
 * A schema. Build one with the static constructors (`Schema.int64()`,
 * `Schema.struct(name)`, ...); `optional()`, `named()`, `versioned()`,
 * `documented()`, `parameter()` and `withDefault()` return a changed copy,
 * `field()` adds a field to a struct schema in place (while it is being
 * built: do not add fields to a schema already used in a batch).
 */
export class Schema {
  /**
   * @param {string} type one of TYPES
   * @param {object} [parts]
   */
  constructor(type, parts = {}) {
    if (!TYPES.includes(type)) throw new TypeError(`unknown schema type '${type}'`);
    /** @type {string} */
    this.type = type;
    /** @type {boolean} */
    this.isOptional = parts.isOptional ?? false;
    /** @type {string | undefined} */
    this.name = parts.name;
    /** @type {number | undefined} */
    this.version = parts.version;
    /** @type {string | undefined} */
    this.doc = parts.doc;
    /** @type {[string, string][]} */
    this.parameters = parts.parameters ?? [];
    /** @type {unknown} the default value (undefined: none) */
    this.defaultValue = parts.defaultValue;
    /** Struct: its fields, in order. @type {{ name: string, schema: Schema }[]} */
    this.fields = parts.fields ?? [];
    /** Map: the key schema. @type {Schema | undefined} */
    this.keySchema = parts.keySchema;
    /** Array: the element schema; map: the value schema. @type {Schema | undefined} */
    this.valueSchema = parts.valueSchema;
  }

  static int8() {
    return new Schema('int8');
  }
  static int16() {
    return new Schema('int16');
  }
  static int32() {
    return new Schema('int32');
  }
  static int64() {
    return new Schema('int64');
  }
  static float32() {
    return new Schema('float32');
  }
  static float64() {
    return new Schema('float64');
  }
  static boolean() {
    return new Schema('boolean');
  }
  static string() {
    return new Schema('string');
  }
  static bytes() {
    return new Schema('bytes');
  }
  /** @param {Schema} element */
  static array(element) {
    checkSchema(element, 'array element');
    return new Schema('array', { valueSchema: element });
  }
  /** @param {Schema} key @param {Schema} value */
  static map(key, value) {
    checkSchema(key, 'map key');
    checkSchema(value, 'map value');
    return new Schema('map', { keySchema: key, valueSchema: value });
  }
  /** A struct schema without fields yet; add them with `field`. @param {string} [name] */
  static struct(name) {
    return new Schema('struct', { name });
  }
  /** Logical Date: int32 days since 1970-01-01. */
  static date() {
    return new Schema('int32', { name: LOGICAL.DATE, version: 1 });
  }
  /** Logical Time: int32 milliseconds of the day. */
  static time() {
    return new Schema('int32', { name: LOGICAL.TIME, version: 1 });
  }
  /** Logical Timestamp: int64 milliseconds since the epoch. */
  static timestamp() {
    return new Schema('int64', { name: LOGICAL.TIMESTAMP, version: 1 });
  }
  /** Logical Decimal of `scale`: the unscaled value as bytes. @param {number} scale */
  static decimal(scale) {
    if (!Number.isInteger(scale) || scale < -(2 ** 31) || scale >= 2 ** 31) {
      throw new TypeError(`Decimal scale ${scale} is not an int32`);
    }
    return new Schema('bytes', { name: LOGICAL.DECIMAL, version: 1, parameters: [['scale', String(scale)]] });
  }

  /** A copy. */
  copy() {
    return new Schema(this.type, {
      ...this,
      parameters: [...this.parameters],
      fields: [...this.fields],
    });
  }

  /** An optional copy (a null is a valid value). */
  optional() {
    const s = this.copy();
    s.isOptional = true;
    return s;
  }

  /** A copy with this name. @param {string} name */
  named(name) {
    const s = this.copy();
    s.name = name;
    return s;
  }

  /** A copy with this version. @param {number} version */
  versioned(version) {
    if (!Number.isInteger(version)) throw new TypeError(`schema version ${version} is not an integer`);
    const s = this.copy();
    s.version = version;
    return s;
  }

  /** A copy with this doc. @param {string} doc */
  documented(doc) {
    const s = this.copy();
    s.doc = doc;
    return s;
  }

  /** A copy with this parameter added. @param {string} key @param {string} value */
  parameter(key, value) {
    const s = this.copy();
    s.parameters.push([String(key), String(value)]);
    return s;
  }

  /** A copy with this default value (checked when the schema is first encoded). @param {unknown} value */
  withDefault(value) {
    const s = this.copy();
    s.defaultValue = value;
    return s;
  }

  /**
   * Add a field to this struct schema (in place) and return it.
   * @param {string} name
   * @param {Schema} schema
   */
  field(name, schema) {
    if (this.type !== 'struct') throw new TypeError(`field '${name}' on a ${this.type} schema; only structs have fields`);
    if (typeof name !== 'string' || name === '') throw new TypeError('a struct field needs a name');
    checkSchema(schema, `field '${name}'`);
    if (this.fields.some((f) => f.name === name)) throw new TypeError(`struct ${this.name ?? ''} already has a field '${name}'`);
    this.fields.push({ name, schema });
    return this;
  }

  /** The parameter `key`, or undefined. @param {string} key */
  param(key) {
    for (const [k, v] of this.parameters) if (k === key) return v;
    return undefined;
  }

  /** A readable form, e.g. `struct copycat.examples.Count` or `optional string`. */
  toString() {
    return `${this.isOptional ? 'optional ' : ''}${this.type}${this.name ? ` ${this.name}` : ''}`;
  }
}

function checkSchema(s, what) {
  if (!(s instanceof Schema)) throw new TypeError(`${what}: expected a Schema`);
}

/**
 * The schema column value for a schemaless key, value or header (Kafka
 * Connect's `null` schema, as JsonConverter with `schemas.enable=false`
 * reads): pass it as `valueSchema` to write `value` with a tag per value; a
 * sink sees it as a record's `valueSchema` for such values.
 */
export const Schemaless = Object.freeze({ schemaless: true, toString: () => 'schemaless' });

/**
 * A logical Decimal: `unscaled * 10^-scale`.
 */
export class Decimal {
  /**
   * @param {bigint} unscaled
   * @param {number} scale
   */
  constructor(unscaled, scale) {
    if (typeof unscaled !== 'bigint') throw new TypeError('Decimal: the unscaled value must be a BigInt');
    this.unscaled = unscaled;
    this.scale = scale;
  }

  /**
   * The unscaled value's shortest big-endian two's complement (Kafka
   * Connect's physical form, `BigInteger.toByteArray()`).
   * @returns {Uint8Array}
   */
  toBytes() {
    return unscaledBytes(this.unscaled);
  }

  /** @param {Uint8Array} bytes big-endian two's complement @param {number} scale */
  static fromBytes(bytes, scale) {
    let v = 0n;
    for (const b of bytes) v = (v << 8n) | BigInt(b);
    if (bytes.length > 0 && bytes[0] & 0x80) v -= 1n << BigInt(8 * bytes.length);
    return new Decimal(v, scale);
  }

  /** Decimal text, e.g. `-123.45`. */
  toString() {
    const neg = this.unscaled < 0n;
    let digits = (neg ? -this.unscaled : this.unscaled).toString();
    if (this.scale <= 0) return `${neg ? '-' : ''}${digits}${'0'.repeat(-this.scale)}`;
    digits = digits.padStart(this.scale + 1, '0');
    return `${neg ? '-' : ''}${digits.slice(0, -this.scale)}.${digits.slice(-this.scale)}`;
  }
}

/** @param {bigint} v */
export function unscaledBytes(v) {
  const out = [];
  for (;;) {
    const byte = Number(v & 0xffn);
    out.push(byte);
    v >>= 8n;
    // Done when what is left only repeats the sign bit of this byte.
    if ((v === 0n && (byte & 0x80) === 0) || (v === -1n && (byte & 0x80) !== 0)) break;
  }
  return Uint8Array.from(out.reverse());
}
