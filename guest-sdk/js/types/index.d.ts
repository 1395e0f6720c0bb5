// Type definitions for copycat-sdk (JavaScript connectors and transforms on
// copycat:connector@0.3.0 / copycat:transform@0.1.0). The implementation is
// src/index.js; see docs/authoring/js.md.

/** A configuration entry as the WIT carries it. */
export type ConfigPairs = [string, string][];

/** What the WIT `connector-error` cases are. */
export type ErrorKind = 'config' | 'retriable' | 'fatal';

/** A failure returned to the host as the WIT `connector-error`. */
export class ConnectorError extends Error {
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown });
  readonly kind: ErrorKind;
  readonly payload: { tag: ErrorKind; val: string };
}
/** The configuration is wrong; `key` names the config key at fault. */
export class ConfigError extends ConnectorError {
  constructor(message: string, key?: string);
  readonly key: string;
}
/** A transient problem: the host retries the same call later. */
export class RetriableError extends ConnectorError {
  constructor(message: string, options?: { cause?: unknown });
}
/** An unrecoverable problem: the task fails with this message. */
export class FatalError extends ConnectorError {
  constructor(message: string, options?: { cause?: unknown });
}
/** Any thrown value as a ConnectorError (others become FatalError). */
export function toConnectorError(error: unknown): ConnectorError;

/** A connector's, task's or transform's configuration. */
export class Config implements Iterable<[string, string]> {
  constructor(entries?: Iterable<[string, string]> | Record<string, string | number | bigint | boolean> | Config);
  readonly map: Map<string, string>;
  get(key: string): string | undefined;
  has(key: string): boolean;
  require(key: string): string;
  getString(key: string): string | undefined;
  getString<T>(key: string, fallback: T): string | T;
  getInt(key: string, fallback?: number, range?: { min?: number; max?: number }): number;
  getLong(key: string, fallback?: bigint, range?: { min?: bigint; max?: bigint }): bigint;
  getDouble(key: string, fallback?: number, range?: { min?: number; max?: number }): number;
  getBoolean(key: string, fallback?: boolean): boolean;
  getList(key: string): string[];
  with(key: string, value: unknown): Config;
  without(key: string): Config;
  toPairs(): ConfigPairs;
  toObject(): Record<string, string>;
  [Symbol.iterator](): Iterator<[string, string]>;
}

/** One problem found by `validate`. */
export interface ConfigProblem {
  key: string;
  message: string;
}
/** Run checks; each ConfigError becomes a problem on its key. */
export function collectProblems(...checks: (() => unknown)[]): ConfigProblem[];

export type ConfigType = 'string' | 'int' | 'long' | 'double' | 'boolean' | 'list' | 'password';
/** One config key a connector or transform declares. */
export interface ConfigKeySpec {
  name: string;
  type?: ConfigType;
  default?: string | number | bigint | boolean;
  required?: boolean;
  doc?: string;
  importance?: 'high' | 'medium' | 'low';
}
/** What defineSource / defineSink / defineTransform share. */
export interface PluginSpec {
  name: string;
  version: string;
  description?: string;
  config?: ConfigKeySpec[];
  validate?(config: Config): ConfigProblem[] | void;
}

/** The WIT `plugin-info`. */
export interface PluginInfo {
  name: string;
  version: string;
  kind: 'source' | 'sink';
  description: string;
  configDef: {
    name: string;
    type: ConfigType;
    defaultValue: string | undefined;
    required: boolean;
    doc: string;
    importance: 'high' | 'medium' | 'low';
  }[];
}
export function pluginInfo(kind: 'source' | 'sink', spec: PluginSpec): PluginInfo;

// ---------------------------------------------------------------------------
// Schemas and typed values
// ---------------------------------------------------------------------------

export type SchemaType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct';

/** Names of Kafka Connect's logical types. */
export const LOGICAL: {
  readonly DECIMAL: 'org.apache.kafka.connect.data.Decimal';
  readonly DATE: 'org.apache.kafka.connect.data.Date';
  readonly TIME: 'org.apache.kafka.connect.data.Time';
  readonly TIMESTAMP: 'org.apache.kafka.connect.data.Timestamp';
};

/** A struct field. */
export interface Field {
  name: string;
  schema: Schema;
}

/**
 * A schema (Kafka Connect's data model). Typed values are plain JS values:
 * int8/16/32 and floats Numbers, int64 a BigInt (a safe-integer Number is
 * accepted when writing), string, boolean, bytes a Uint8Array, array an
 * Array, map a Map (or a plain object when writing), struct a plain object
 * (fields in schema order when read), Date/Time Numbers (or a JS Date when
 * writing), Timestamp a BigInt (or a Number or JS Date when writing),
 * Decimal a Decimal (or a BigInt unscaled value when writing), null null.
 */
export class Schema {
  constructor(type: SchemaType, parts?: Partial<Schema>);
  readonly type: SchemaType;
  isOptional: boolean;
  name: string | undefined;
  version: number | undefined;
  doc: string | undefined;
  parameters: [string, string][];
  defaultValue: unknown;
  fields: Field[];
  keySchema: Schema | undefined;
  valueSchema: Schema | undefined;

  static int8(): Schema;
  static int16(): Schema;
  static int32(): Schema;
  static int64(): Schema;
  static float32(): Schema;
  static float64(): Schema;
  static boolean(): Schema;
  static string(): Schema;
  static bytes(): Schema;
  static array(element: Schema): Schema;
  static map(key: Schema, value: Schema): Schema;
  static struct(name?: string): Schema;
  static date(): Schema;
  static time(): Schema;
  static timestamp(): Schema;
  static decimal(scale: number): Schema;

  copy(): Schema;
  optional(): Schema;
  named(name: string): Schema;
  versioned(version: number): Schema;
  documented(doc: string): Schema;
  parameter(key: string, value: string): Schema;
  withDefault(value: unknown): Schema;
  /** Add a field to this struct schema (in place). */
  field(name: string, schema: Schema): this;
  param(key: string): string | undefined;
  toString(): string;
}

/** The schema of a schemaless value (Kafka Connect's `null` schema). */
export const Schemaless: { readonly schemaless: true; toString(): string };
export type SchemalessSchema = typeof Schemaless;
/** A key, value or header schema: none (raw bytes), Schemaless or a Schema. */
export type PayloadSchema = Schema | SchemalessSchema | undefined;

/** A logical Decimal: unscaled * 10^-scale. */
export class Decimal {
  constructor(unscaled: bigint, scale: number);
  readonly unscaled: bigint;
  readonly scale: number;
  toBytes(): Uint8Array;
  static fromBytes(bytes: Uint8Array, scale: number): Decimal;
  toString(): string;
}

/** A value that does not fit its schema, or malformed bytes. */
export class DataError extends Error {
  constructor(message: string);
}
/** `value` encoded under `schema` (batch.wit's value encoding). */
export function encodeValue(schema: Schema | SchemalessSchema, value: unknown): Uint8Array;
/** The value `bytes` encode under `schema`. */
export function decodeValue(schema: Schema | SchemalessSchema, bytes: Uint8Array): unknown;

// ---------------------------------------------------------------------------
// Bytes, logging, clock
// ---------------------------------------------------------------------------

export type BytesLike = string | Uint8Array | ArrayBuffer | ArrayBufferView;
export function toBytes(data: BytesLike | null | undefined): Uint8Array | undefined;
export function concatBytes(chunks: Iterable<string | Uint8Array>): Uint8Array;
export function text(bytes: Uint8Array | null | undefined): string | undefined;
export function toBigInt(n: number | bigint | Date | string): bigint;

export const log: {
  trace(message: unknown): void;
  debug(message: unknown): void;
  info(message: unknown): void;
  warn(message: unknown): void;
  error(message: unknown): void;
};

/** The host's clocks (sources and sinks only). */
export const clock: {
  nowMs(): number;
  monotonicNs(): bigint;
};

// ---------------------------------------------------------------------------
// Records and batches
// ---------------------------------------------------------------------------

/** A header of a record read from a batch. */
export interface HeaderView {
  key: string;
  value: unknown;
  schema: PayloadSchema;
}

/** A record read from a batch (sink `put`, transform `apply`). */
export interface RecordObject {
  topic: string;
  /** Kafka partition (-1: none). */
  partition: number;
  /** Kafka offset (-1n: none). */
  offset: bigint;
  /** Milliseconds since the epoch, or undefined. */
  timestamp: bigint | undefined;
  /** Raw bytes (keySchema undefined), or the decoded value; null for none. */
  key: unknown;
  keySchema: PayloadSchema;
  /** Raw bytes (valueSchema undefined), or the decoded value; null for a tombstone. */
  value: unknown;
  valueSchema: PayloadSchema;
  headers: HeaderView[];
}

/** A batch the host sent, read in place. */
export class RecordView implements Iterable<RecordObject> {
  constructor(wit: unknown);
  readonly length: number;
  topic(i: number): string;
  partition(i: number): number;
  offset(i: number): bigint;
  timestamp(i: number): bigint | undefined;
  keyBytes(i: number): Uint8Array | null;
  valueBytes(i: number): Uint8Array | null;
  keySchema(i: number): PayloadSchema;
  valueSchema(i: number): PayloadSchema;
  key(i: number): unknown;
  value(i: number): unknown;
  headers(i: number): HeaderView[];
  get(i: number): RecordObject;
  toArray(): RecordObject[];
  [Symbol.iterator](): Iterator<RecordObject>;
}

/** A header to write: `[key, value]`, `[key, value, schema]` or an object. */
export type HeaderInit = [string, unknown] | [string, unknown, PayloadSchema] | { key: string; value: unknown; schema?: PayloadSchema };

/** The Kafka parts of a record to write. */
export interface RecordInit {
  /** Raw (string, Uint8Array) or, with keySchema, a typed value. */
  key?: unknown;
  keySchema?: Schema | SchemalessSchema;
  /** As `key`; null/undefined is a tombstone. */
  value?: unknown;
  valueSchema?: Schema | SchemalessSchema;
  /** Kafka topic; default: the connector's `topic`. */
  topic?: string;
  /** Milliseconds since the epoch; default: Kafka stamps it. */
  timestamp?: number | bigint | Date;
  headers?: Iterable<HeaderInit> | Record<string, string | Uint8Array | null>;
}

/** A source partition or offset: a JSON object (or its JSON text). */
export type OffsetMap = Record<string, string | number | boolean | null> | string;
