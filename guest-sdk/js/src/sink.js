// copycat-sdk/sink: sink connectors (world `sink`).
//
//     import { defineSink, text, log } from 'copycat-sdk/sink';
//
//     export const { connector, sinkTask } = defineSink({
//       name: 'logger', version: '0.1.0', description: 'Logs every record',
//       start(config) {
//         return {
//           put(records) {
//             for (const r of records) log.info(`${r.topic}-${r.partition}@${r.offset}: ${text(r.value)}`);
//           },
//         };
//       },
//     });
//
// The host calls, per task: start, then for each assignment open, put and
// flush as records arrive, close when partitions are revoked, finally stop.
// Records only count as delivered once flush returns; the host then commits
// the consumer group's offsets (on an error it delivers them again).
//
// Everything from 'copycat-sdk' is re-exported here.

import { Config, FatalError, pluginInfo, toBigInt } from './index.js';
import { guard, runStop, runValidate, toConfigList } from './internal.js';

export * from './index.js';

/**
 * @typedef {object} TopicPartition
 * @property {string} topic
 * @property {number} partition
 */

/**
 * @typedef {object} TopicPartitionOffset
 * @property {string} topic
 * @property {number} partition
 * @property {bigint} offset the next offset to read (Kafka's convention)
 */

/**
 * @typedef {object} SinkRecord
 * A record delivered to `put`, as the bindings produce it.
 * @property {string} topic
 * @property {number} partition
 * @property {bigint} offset this record's offset in its topic partition (a BigInt)
 * @property {Uint8Array | undefined} key
 * @property {Uint8Array | undefined} value undefined for a tombstone; `text(value)` decodes UTF-8
 * @property {{ key: string, value: Uint8Array | undefined }[]} headers
 * @property {bigint | undefined} timestamp milliseconds since the epoch (a BigInt)
 */

/**
 * @typedef {object} SinkTask
 * What `start` returns. Only `put` is required.
 * @property {(partitions: TopicPartition[]) => ({ topic: string, partition: number, offset: number | bigint }[] | void)} [open]
 *   these partitions are now assigned; return the next offset to read for
 *   those whose progress the task keeps itself (default: none, the host uses
 *   the consumer group's committed offsets)
 * @property {(records: SinkRecord[]) => void} put write (or buffer) a batch
 * @property {(offsets: TopicPartitionOffset[]) => void} [flush] make everything put so far durable
 * @property {(partitions: TopicPartition[]) => void} [close] these partitions are revoked (already flushed)
 * @property {() => void} [stop] release resources
 */

/**
 * @typedef {object} SinkSpec
 * @property {string} name short, stable plugin name
 * @property {string} version the plugin's version
 * @property {string} [description] one line for operators
 * @property {import('./index.js').ConfigKeySpec[]} [config] every config key the connector understands
 * @property {(config: Config) => ({ key: string, message: string }[] | void)} [validate]
 *   one problem per key at fault (see `collectProblems`); default: none
 * @property {(config: Config, maxTasks: number) => (Config | Record<string, string>)[]} [taskConfigs]
 *   default: `maxTasks` copies of the connector's config (the consumer group
 *   spreads the topic partitions over the tasks)
 * @property {(config: Config) => SinkTask} start start a task with one of the task configs
 */

/**
 * Define a sink connector. Export the result's two members under exactly
 * these names: `export const { connector, sinkTask } = defineSink({...})`.
 *
 * Every function may throw a ConfigError, RetriableError or FatalError; any
 * other exception is returned to the host as `fatal` with its message.
 *
 * @param {SinkSpec} spec
 */
export function defineSink(spec) {
  const info = pluginInfo('sink', spec);
  if (typeof spec.start !== 'function') throw new TypeError('defineSink: `start(config)` is required');

  // Each task runs in its own component instance, so this is per task.
  /** @type {SinkTask | undefined} */
  let task;

  const started = () => {
    if (!task) throw new FatalError('task not started');
    return task;
  };

  const connector = {
    describe: () => info,
    validate: (pairs) => runValidate(spec.validate, pairs),
    taskConfigs: (pairs, maxTasks) =>
      guard(() => {
        const config = new Config(pairs);
        return toConfigList(
          spec.taskConfigs ? spec.taskConfigs(config, maxTasks) : Array.from({ length: maxTasks }, () => config),
        );
      }),
  };

  const sinkTask = {
    start(pairs) {
      guard(() => {
        const created = spec.start(new Config(pairs));
        if (!created || typeof created.put !== 'function') {
          throw new TypeError('start(config) must return a task object with a put(records) method');
        }
        task = created;
      });
    },
    open(partitions) {
      return guard(() => {
        const t = started();
        const offsets = t.open?.(partitions) ?? [];
        return [...offsets].map((o) => ({ topic: String(o.topic), partition: o.partition, offset: toBigInt(o.offset) }));
      });
    },
    put(records) {
      guard(() => {
        started().put(records);
      });
    },
    flush(offsets) {
      guard(() => {
        started().flush?.(offsets);
      });
    },
    close(partitions) {
      guard(() => {
        task?.close?.(partitions);
      });
    },
    stop() {
      runStop(task);
      task = undefined;
    },
  };

  return { connector, sinkTask };
}
