// copycat-sdk/source: source connectors (world `source`).
//
//     import { defineSource, readOffsets, log } from 'copycat-sdk/source';
//
//     export const { connector, sourceTask } = defineSource({
//       name: 'counter', version: '0.1.0', description: 'Counts upwards',
//       config: [{ name: 'topic', type: 'string', required: true, doc: 'Kafka topic' }],
//       start(config) {
//         config.require('topic');
//         const last = readOffsets(['counter']).get('counter');
//         let next = last === undefined ? 0n : BigInt(last) + 1n;
//         return {
//           poll(maxRecords) {
//             const records = [];
//             for (let i = 0; i < maxRecords; i++, next++) {
//               records.push({ partition: 'counter', offset: next, key: `counter:${next}`, value: `${next}` });
//             }
//             return records;
//           },
//         };
//       },
//     });
//
// Everything from 'copycat-sdk' (Config, errors, log, clock, ...) is
// re-exported here, so a connector needs only this one import (plus
// 'copycat-sdk/fs' for files).

import { read as hostReadOffsets } from 'copycat:connector/offsets@0.1.0';
import { commit as hostCommitTransaction, abort as hostAbortTransaction } from 'copycat:connector/transactions@0.1.0';
import { Config, FatalError, pluginInfo, toBigInt, toBytes, toHeaders } from './index.js';
import { guard, runStop, runValidate, toConfigList } from './internal.js';

export * from './index.js';

/**
 * @typedef {object} SourceRecordInit
 * A record returned from `poll`. Only `partition` and `offset` are required.
 * @property {string} partition the source partition (input stream) it came from, e.g. `stream-3`
 * @property {string | number | bigint} offset its position in that stream (stored as a string)
 * @property {string | Uint8Array | null} [key] record key (strings are UTF-8 encoded)
 * @property {string | Uint8Array | null} [value] record value; absent/null is a tombstone
 * @property {string} [topic] Kafka topic; default: the connector's `topic`
 * @property {number} [kafkaPartition] Kafka partition; default: the producer's partitioner
 * @property {Iterable<[string, string | Uint8Array | null]> | Record<string, string | Uint8Array | null>} [headers]
 * @property {number | bigint | Date} [timestamp] milliseconds since the epoch; default: Kafka stamps it
 */

/**
 * @typedef {object} SourceTask
 * What `start` returns. Only `poll` is required.
 * @property {(maxRecords: number) => SourceRecordInit[]} poll
 *   at most `maxRecords` records; [] when nothing is ready (the host calls
 *   again after a short back-off). Return quickly: never sleep or busy-wait.
 * @property {(offsets: { partition: string, offset: string }[]) => void} [commit]
 *   notification: these offsets (latest per source partition) are durable
 * @property {() => void} [stop] release resources
 */

/**
 * @typedef {object} SourceSpec
 * @property {string} name short, stable plugin name
 * @property {string} version the plugin's version
 * @property {string} [description] one line for operators
 * @property {import('./index.js').ConfigKeySpec[]} [config] every config key the connector understands
 * @property {(config: Config) => ({ key: string, message: string }[] | void)} [validate]
 *   one problem per key at fault (see `collectProblems`); default: none
 * @property {(config: Config, maxTasks: number) => (Config | Record<string, string>)[]} [taskConfigs]
 *   at most `maxTasks` task configs; default: one task with the connector's config
 * @property {(config: Config) => SourceTask} start start a task with one of the task configs
 */

/**
 * Define a source connector. Export the result's two members under exactly
 * these names: `export const { connector, sourceTask } = defineSource({...})`.
 *
 * Every function may throw a ConfigError, RetriableError or FatalError; any
 * other exception is returned to the host as `fatal` with its message.
 *
 * @param {SourceSpec} spec
 */
export function defineSource(spec) {
  const info = pluginInfo('source', spec);
  if (typeof spec.start !== 'function') throw new TypeError('defineSource: `start(config)` is required');

  // Each task runs in its own component instance, so this is per task.
  /** @type {SourceTask | undefined} */
  let task;

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
          throw new TypeError('start(config) must return a task object with a poll(maxRecords) method');
        }
        task = started;
      });
    },
    poll(maxRecords) {
      return guard(() => {
        if (!task) throw new FatalError('task not started');
        const records = task.poll(maxRecords) ?? [];
        if (records.length > maxRecords) {
          throw new FatalError(`poll returned ${records.length} records, more than maxRecords=${maxRecords}`);
        }
        return records.map(toSourceRecord);
      });
    },
    commit(offsets) {
      guard(() => {
        task?.commit?.(offsets);
      });
    },
    stop() {
      runStop(task);
      task = undefined;
    },
  };

  return { connector, sourceTask };
}

/**
 * A record in the WIT `source-record` shape. `poll` results go through this
 * automatically; call it yourself only to build records ahead of time.
 * Objects already in WIT shape (with `sourcePartition`) pass through.
 * @param {SourceRecordInit} record
 */
export function toSourceRecord(record) {
  if (record === null || typeof record !== 'object') throw new TypeError('a source record must be an object');
  if ('sourcePartition' in record) return record;
  const { partition, offset } = record;
  if (typeof partition !== 'string') throw new TypeError('source record: `partition` (the source partition) must be a string');
  if (offset === undefined || offset === null) throw new TypeError(`source record of ${partition}: \`offset\` is required`);
  return {
    sourcePartition: partition,
    sourceOffset: String(offset),
    topic: record.topic ?? undefined,
    partition: record.kafkaPartition ?? undefined,
    key: toBytes(record.key),
    value: toBytes(record.value),
    headers: toHeaders(record.headers),
    timestamp: record.timestamp === undefined || record.timestamp === null ? undefined : toBigInt(record.timestamp),
  };
}

/**
 * The last committed offset of each of `partitions` that has one (call it in
 * `start` and resume *after* each). Partitions never committed are absent.
 * @param {string[]} partitions
 * @returns {Map<string, string>}
 */
export function readOffsets(partitions) {
  const positions = hostReadOffsets([...partitions]);
  return new Map(positions.map((p) => [p.partition, p.offset]));
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
