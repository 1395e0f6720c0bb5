// copycat-sdk/source: source connectors (world `source` of
// `copycat:connector@0.3.0`).
//
//     import { defineSource, readOffsets } from 'copycat-sdk/source';
//
//     const partition = { counter: 'c1' };                  // a source partition: a JSON object
//
//     export const { connector, sourceTask } = defineSource({
//       name: 'counter', version: '0.1.0', description: 'Counts upwards',
//       config: [{ name: 'topic', type: 'string', required: true, doc: 'Kafka topic' }],
//       start(config) {
//         config.require('topic');
//         const last = readOffsets([partition]).get(partition);   // e.g. { n: 41 }
//         let next = last === undefined ? 0 : last.n + 1;
//         return {
//           poll(maxRecords, batch) {
//             for (let i = 0; i < maxRecords; i++, next++) {
//               batch.append(`c1:${next}`, `${next}`);           // raw key and value: the fast path
//             }
//             batch.position(partition, { n: next - 1 });         // where the stream got to
//           },
//         };
//       },
//     });
//
// `poll(maxRecords, batch)` fills the SourceBatch it is given (`append`
// for raw records, `add` for any record, typed ones included), or returns
// an array of records, which the SDK adds. Everything from 'copycat-sdk' is
// re-exported here.

import { read as hostReadOffsets } from 'copycat:connector/offsets@0.3.0';
import { commit as hostCommitTransaction, abort as hostAbortTransaction } from 'copycat:connector/transactions@0.3.0';
import { Config, FatalError, pluginInfo } from './index.js';
import { SourceBatch, offsetJson } from './batch.js';
import { attachInstance, guard, runStop, runValidate, toConfigList } from './internal.js';

export * from './index.js';
export { SourceBatch } from './batch.js';

/**
 * @typedef {object} SourceRecord
 * A record for `batch.add` (or in the array `poll` returns). Only
 * `partition` and `offset` are required.
 * @property {object | string} partition the source partition (input stream), a JSON object such as `{stream: 'stream-3'}`
 * @property {object | string} offset its position in that stream, a JSON object such as `{seq: 41}`
 * @property {unknown} [key] raw (string, Uint8Array) or, with `keySchema`, a typed value
 * @property {import('./schema.js').Schema | typeof import('./schema.js').Schemaless} [keySchema]
 * @property {unknown} [value] as `key`; null/absent is a tombstone
 * @property {import('./schema.js').Schema | typeof import('./schema.js').Schemaless} [valueSchema]
 * @property {string} [topic] Kafka topic; default: the connector's `topic`
 * @property {number} [kafkaPartition] Kafka partition; default: the producer's partitioner
 * @property {Iterable<[string, unknown, any?]> | Record<string, string | Uint8Array | null>} [headers]
 * @property {number | bigint | Date} [timestamp] milliseconds since the epoch; default: Kafka stamps it
 */

/**
 * Define a source connector. Export the result's members under exactly
 * these names: `export const { connector, sourceTask } = defineSource({...})`
 * (plus `instance` when the spec has `dynamic`).
 *
 * Every function may throw a ConfigError, RetriableError or FatalError; any
 * other exception is returned to the host as `fatal` with its message.
 *
 * @param {import('./source').SourceSpec} spec
 */
export function defineSource(spec) {
  const info = pluginInfo('source', spec);
  if (typeof spec.start !== 'function') throw new TypeError('defineSource: `start(config)` is required');

  // Each task runs in its own component instance, so this is per task.
  /** @type {any} */
  let task;
  // One batch per task, emptied and refilled by every poll: its buffers
  // are reused (the bindings copy them out before the next call).
  const batch = new SourceBatch();

  const connector = {
    describe: () => info,
    validate: (pairs) => runValidate(spec.validate, pairs),
    taskConfigs: (pairs, maxTasks) =>
      guard(() => {
        const config = new Config(pairs);
        return toConfigList(spec.taskConfigs ? spec.taskConfigs(config, maxTasks) : [config]);
      }),
  };

  const sourceTask = {
    start(pairs) {
      guard(() => {
        const started = spec.start(new Config(pairs));
        if (!started || typeof started.poll !== 'function') {
          throw new TypeError('start(config) must return a task object with a poll(maxRecords, batch) method');
        }
        task = started;
      });
    },
    poll(maxRecords) {
      return guard(() => {
        if (!task) throw new FatalError('task not started');
        batch.clear();
        const returned = task.poll(maxRecords, batch);
        if (returned !== undefined && returned !== null && returned !== batch) {
          if (typeof returned[Symbol.iterator] !== 'function') {
            throw new TypeError('poll must fill the batch it is given or return an array of records');
          }
          for (const record of returned) batch.add(record);
        }
        if (batch.length > maxRecords) {
          throw new FatalError(`poll returned ${batch.length} records, more than maxRecords=${maxRecords}`);
        }
        return batch.toWit();
      });
    },
    commit(positions) {
      guard(() => {
        task?.commit?.(positions.map((p) => ({ partition: JSON.parse(p.partition), offset: JSON.parse(p.offset) })));
      });
    },
    stop() {
      runStop(task);
      task = undefined;
    },
  };

  return attachInstance({ connector, sourceTask }, spec, 'defineSource');
}

// The text of a JSON value with object keys sorted, to match a partition
// the host hands back whatever its key order.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The last committed offset of each of `partitions` that has one (call it in
 * `start` and resume *after* each). Partitions are JSON objects (or their
 * JSON text); the result maps each partition passed (the same object or
 * string) to its offset, parsed. Partitions never committed are absent.
 * @template P
 * @param {P[]} partitions
 * @returns {Map<P, any>}
 */
export function readOffsets(partitions) {
  const byCanonical = new Map();
  const texts = [];
  for (const p of partitions) {
    const text = offsetJson(/** @type {any} */ (p), true);
    texts.push(text);
    byCanonical.set(canonical(JSON.parse(text)), p);
  }
  const out = new Map();
  for (const position of hostReadOffsets(texts)) {
    let partition;
    let offset;
    try {
      partition = JSON.parse(position.partition);
      offset = JSON.parse(position.offset);
    } catch (e) {
      throw new FatalError(`a committed offset that is not JSON: ${position.partition} -> ${position.offset}`);
    }
    const p = byCanonical.get(canonical(partition));
    if (p !== undefined) out.set(p, offset);
  }
  return out;
}

/**
 * Transaction boundaries chosen by the connector (exactly-once sources with
 * `transaction.boundary=connector` only; otherwise ignored by the host).
 * Call from `poll`: the request applies to the batch that `poll` returns.
 */
export const transactions = Object.freeze({
  /** Commit the open transaction right after this poll's batch is written. */
  commit: () => hostCommitTransaction(),
  /** Abort the open transaction, including this poll's batch. */
  abort: () => hostAbortTransaction(),
});
