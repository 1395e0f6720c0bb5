// copycat-sdk/source: source connectors (world `source` of copycat:connector@0.3.0).
import type { Config, ConfigPairs, ConfigProblem, OffsetMap, PluginInfo, PluginSpec, RecordInit } from './index.js';
import type { DynamicSpec, Instance } from './dynamic.js';
export * from './index.js';

/** A record for `batch.add` (or in the array `poll` returns). */
export interface SourceRecord extends RecordInit {
  /** The source partition (input stream), e.g. `{ stream: 'stream-3' }`. */
  partition: OffsetMap;
  /** Its position in that stream, e.g. `{ seq: 41 }`. */
  offset: OffsetMap;
  /** Kafka partition; default: the producer's partitioner. */
  kafkaPartition?: number;
}

/** The records `poll` returns, packed as they are added. */
export class SourceBatch {
  constructor(capacity?: number);
  /** How many records it holds. */
  readonly length: number;
  /** The fast path: a raw record (strings are written as UTF-8; null: no key, a tombstone). */
  append(key: string | Uint8Array | null | undefined, value: string | Uint8Array | null | undefined): void;
  /** Any record; its partition's position becomes its offset. */
  add(record: SourceRecord): void;
  /** The batch advances `partition` to `offset`. */
  position(partition: OffsetMap, offset: OffsetMap): void;
  /** Empty it, keeping its buffers. */
  clear(): void;
}

/** A running source task. */
export interface SourceTask {
  /** Fill `batch` with at most `maxRecords` records (or return them). Return quickly. */
  poll(maxRecords: number, batch: SourceBatch): void | Iterable<SourceRecord>;
  /** These offsets (latest per partition) are durable. */
  commit?(positions: { partition: any; offset: any }[]): void;
  stop?(): void;
}

export interface SourceSpec extends PluginSpec {
  /** At most `maxTasks` task configs; default: one, the connector's config. */
  taskConfigs?(config: Config, maxTasks: number): (Config | Record<string, string> | Iterable<[string, string]>)[];
  /** Start a task with one of the task configs. */
  start(config: Config): SourceTask;
  /** A running connector instance (copycat:dynamic); the module then exports `instance`. */
  dynamic?: DynamicSpec;
}

/** The WIT exports: `export const { connector, sourceTask } = defineSource({...})`. */
export interface SourceExports {
  connector: {
    describe(): PluginInfo;
    validate(config: ConfigPairs): ConfigProblem[];
    taskConfigs(config: ConfigPairs, maxTasks: number): ConfigPairs[];
  };
  sourceTask: {
    start(config: ConfigPairs): void;
    poll(maxRecords: number): any;
    commit(positions: { partition: string; offset: string }[]): void;
    stop(): void;
  };
  /** Only with `dynamic` (reading it otherwise throws). */
  instance: Instance;
}

export function defineSource(spec: SourceSpec): SourceExports;

/** The last committed offset of each partition that has one, parsed. */
export function readOffsets<P extends OffsetMap>(partitions: P[]): Map<P, any>;

/** Transaction boundaries (exactly-once, `transaction.boundary=connector`). */
export const transactions: {
  commit(): void;
  abort(): void;
};
