// copycat-sdk/sink: sink connectors (world `sink` of copycat:connector@0.3.0).
import type { Config, ConfigPairs, ConfigProblem, PluginInfo, PluginSpec, RecordView } from './index.js';
import type { DynamicSpec, Instance } from './dynamic.js';
export * from './index.js';

/** What `put` receives. */
export class SinkBatch extends RecordView {}

export interface TopicPartition {
  topic: string;
  partition: number;
}
export interface TopicPartitionOffset extends TopicPartition {
  /** The next offset to read. */
  offset: bigint;
}

/** A running sink task. */
export interface SinkTask {
  /** Return the next offset of the partitions whose progress the task keeps itself. */
  open?(partitions: TopicPartition[]): { topic: string; partition: number; offset: number | bigint }[] | void;
  put(batch: SinkBatch): void;
  flush?(offsets: TopicPartitionOffset[]): void;
  close?(partitions: TopicPartition[]): void;
  stop?(): void;
}

export interface SinkSpec extends PluginSpec {
  /** Default: `maxTasks` copies of the connector's config. */
  taskConfigs?(config: Config, maxTasks: number): (Config | Record<string, string> | Iterable<[string, string]>)[];
  start(config: Config): SinkTask;
  dynamic?: DynamicSpec;
}

export interface SinkExports {
  connector: {
    describe(): PluginInfo;
    validate(config: ConfigPairs): ConfigProblem[];
    taskConfigs(config: ConfigPairs, maxTasks: number): ConfigPairs[];
  };
  sinkTask: {
    start(config: ConfigPairs): void;
    open(partitions: TopicPartition[]): TopicPartitionOffset[];
    put(batch: any): void;
    flush(offsets: TopicPartitionOffset[]): void;
    close(partitions: TopicPartition[]): void;
    stop(): void;
  };
  instance: Instance;
}

export function defineSink(spec: SinkSpec): SinkExports;

/** Why `errant.report` did not take a record. */
export class ReportError extends Error {
  constructor(kind: 'unavailable' | 'tolerance-exceeded' | 'no-such-record', detail?: string);
  readonly kind: 'unavailable' | 'tolerance-exceeded' | 'no-such-record';
  readonly detail: string | undefined;
}

/** The errant record reporter (the dead letter queue), from `put`. */
export const errant: {
  report(index: number, reason: unknown): void;
};
