// copycat-sdk/transform: transforms (world `transform` of copycat:transform@0.1.0).
import type { Config, ConfigPairs, ConfigProblem, ConfigKeySpec, PluginSpec, RecordInit, RecordObject, RecordView } from './index.js';
export {
  Config,
  ConfigError,
  FatalError,
  RetriableError,
  ConnectorError,
  collectProblems,
  log,
  Schema,
  Schemaless,
  Decimal,
  LOGICAL,
  DataError,
  decodeValue,
  encodeValue,
  toBytes,
  text,
  concatBytes,
} from './index.js';

/** One record cannot be transformed (the host applies `errors.tolerance`). */
export class RecordError extends Error {
  constructor(message: string, options?: { cause?: unknown });
}

/** A record `apply` returns. */
export interface TransformRecord extends RecordInit {
  topic: string;
  partition?: number;
  offset?: bigint;
}

/** The output of `applyBatch`. */
export class TransformOutput {
  readonly length: number;
  /** Add `record`, which came from input record `origin`. */
  add(record: TransformRecord, origin: number): void;
}

/** A configured transform. */
export interface Transformer {
  /** The record (changed or not), a new one, several, or null (dropped). */
  apply?(record: RecordObject, index: number): TransformRecord | TransformRecord[] | null | undefined;
  /** Or the whole batch at once. */
  applyBatch?(input: RecordView, output: TransformOutput): void;
}

export interface TransformSpec extends PluginSpec {
  configure(config: Config): Transformer;
}

export interface TransformExports {
  transformer: {
    describe(): { name: string; version: string; description: string; configDef: unknown[] };
    validate(config: ConfigPairs): ConfigProblem[];
    configure(config: ConfigPairs): void;
    apply(batch: any): any;
  };
}

export function defineTransform(spec: TransformSpec): TransformExports;
export type { ConfigKeySpec };
