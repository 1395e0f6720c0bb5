// copycat-sdk/testing: the in-memory host for unit tests under Node.js.
import type { HeaderView, PayloadSchema, RecordInit, RecordObject, RecordView } from './index.js';
import type { SourceBatch } from './source.js';

export const host: {
  offsets: Map<string, string>;
  reconfigurations: number;
  raisedErrors: string[];
  logs: { level: string; message: string }[];
  transactions: ('commit' | 'abort')[];
  grants: string[];
  reported: { index: number; reason: string }[];
  reportError: undefined | 'unavailable' | 'tolerance-exceeded' | { tag: 'no-such-record'; val: string };
  nowMs: number | undefined;
  setOffset(partition: object | string, offset: object | string): void;
  grant(dir: string): void;
  reset(): void;
};

/** A record for sinkBatch / transformBatch. */
export interface TestRecord extends RecordInit {
  topic?: string;
  partition?: number;
  offset?: bigint;
}

export function sinkBatch(records: TestRecord[]): any;
export function transformBatch(records: TestRecord[]): any;
export function readTransformBatch(batch: any): (RecordObject & { origin: number })[];
export function readSourceBatch(batch: any): {
  records: {
    key: unknown;
    keySchema: PayloadSchema;
    value: unknown;
    valueSchema: PayloadSchema;
    topic: string | undefined;
    kafkaPartition: number | undefined;
    timestamp: bigint | undefined;
    headers: HeaderView[];
  }[];
  positions: { partition: any; offset: any }[];
};
export { SourceBatch, RecordView };
