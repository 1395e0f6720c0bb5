// copycat-sdk/testing: drive the in-memory host from a unit test (Node.js
// only; see register.mjs). Not available inside a component.
//
//     import { test } from 'node:test';
//     import assert from 'node:assert/strict';
//     import { host, readSourceBatch } from 'copycat-sdk/testing';
//     import { connector, sourceTask } from '../src/index.js';
//
//     test('resumes after the committed offset', () => {
//       host.reset();
//       host.setOffset({ stream: 'stream-0' }, { seq: 41 });
//       sourceTask.start([['topic', 't']]);
//       const { records } = readSourceBatch(sourceTask.poll(1));
//       assert.deepEqual(records[0].offset, { seq: 42 });
//     });
//
// The exported `connector`/`sourceTask`/`sinkTask`/`instance`/`transformer`
// objects take and return exactly what the host passes through the WIT
// (configs as [key, value] pairs, batches in the packed WIT shape, offsets
// as BigInt); errors are thrown as ConnectorError (`error.kind`: 'config',
// 'retriable' or 'fatal'), a transform's with `error.payload` (`{ tag, val }`).
// `sinkBatch(records)` and `transformBatch(records)` pack records the way
// the host does; `readSourceBatch(batch)` and `readTransformBatch(batch)`
// unpack what a task returned.
import { host } from './host.js';
import { _forgetGrants } from '../src/fs.js';
import { RecordView, SourceBatch } from '../src/batch.js';
import { TransformOutput } from '../src/transform.js';

// The SDK's file helpers read the granted directories once per instance (as
// in a component, where they never change); tests change them.
const { reset, grant } = host;
host.reset = function () {
  reset.call(this);
  _forgetGrants();
};
host.grant = function (dir) {
  grant.call(this, dir);
  _forgetGrants();
};

export { host };

function packed(records) {
  const out = new TransformOutput();
  records.forEach((r, i) => out.add({ topic: 't', partition: 0, offset: BigInt(i), ...r }, i));
  return out.toTransformWit();
}

/**
 * A WIT `sink-batch` holding `records` as the host would send them to
 * `put`. Each record: `{ topic = 't', partition = 0, offset = its index,
 * timestamp, key, keySchema, value, valueSchema, headers }` (a string or
 * Uint8Array without a schema is raw bytes, as ByteArrayConverter gives).
 * @param {object[]} records
 */
export function sinkBatch(records) {
  const b = packed(records);
  delete b.origins;
  return b;
}

/**
 * A WIT transform `record-batch` holding `records` as the host would pass
 * them to `apply` (no origins). The host hands a transform every key and
 * value typed: give raw bytes as `{ value: bytes, valueSchema:
 * Schema.bytes().optional() }` to mirror it.
 * @param {object[]} records
 */
export function transformBatch(records) {
  const b = packed(records);
  b.origins = new Uint32Array(0);
  return b;
}

/**
 * The records of a WIT transform `record-batch` (what `apply` returned),
 * decoded, each with its `origin`.
 * @param {any} batch
 */
export function readTransformBatch(batch) {
  const view = new RecordView(batch);
  return view.toArray().map((r, i) => ({ ...r, origin: batch.origins[i] }));
}

/**
 * What a source task's `poll` returned (a WIT `source-batch`), unpacked:
 * `records` (each `{ key, keySchema, value, valueSchema, topic,
 * kafkaPartition, timestamp, headers }`, values decoded as a sink reads
 * them: raw bytes as Uint8Array; `topic`, `kafkaPartition` and `timestamp`
 * undefined when not set) and `positions` (`[{ partition, offset }]`,
 * parsed from JSON).
 * @param {any} batch
 */
export function readSourceBatch(batch) {
  const n = batch.valueLengths.length;
  const view = new RecordView({
    ...batch,
    topicIndices: new Uint32Array(n),
    topics: [],
    partitions: new Int32Array(n),
    timestamps: new BigInt64Array(n),
    offsets: new BigInt64Array(0),
  });
  const records = [];
  for (let i = 0; i < n; i++) {
    const r = view.get(i);
    const t = batch.topicIndices.length ? batch.topicIndices[i] : -1;
    const p = batch.partitions.length ? batch.partitions[i] : -1;
    const ts = batch.timestamps.length ? batch.timestamps[i] : -1n;
    records.push({
      key: r.key,
      keySchema: r.keySchema,
      value: r.value,
      valueSchema: r.valueSchema,
      topic: t === -1 ? undefined : batch.topics[t],
      kafkaPartition: p === -1 ? undefined : p,
      timestamp: ts === -1n ? undefined : ts,
      headers: r.headers,
    });
  }
  const positions = batch.positions.map((p) => ({ partition: JSON.parse(p.partition), offset: JSON.parse(p.offset) }));
  return { records, positions };
}

export { SourceBatch, RecordView };
