// copycat-sdk/sink: sink connectors (world `sink` of `copycat:connector@0.3.0`).
//
//     import { defineSink, log } from 'copycat-sdk/sink';
//
//     export const { connector, sinkTask } = defineSink({
//       name: 'logger', version: '0.1.0', description: 'Logs every record',
//       start(config) {
//         return {
//           put(batch) {
//             for (const r of batch) log.info(`${r.topic}-${r.partition}@${r.offset}: ${r.value}`);
//           },
//         };
//       },
//     });
//
// `put` gets a SinkBatch: `batch.length`, `batch.get(i)` or `for (const r
// of batch)` give record objects whose key and value are raw bytes (a
// Uint8Array, when the connector's converter is ByteArrayConverter) or the
// decoded typed value (with `valueSchema`, a Schema or Schemaless); per-index
// accessors (`batch.valueBytes(i)`, `batch.offset(i)`, ...) read one field
// without building a record.
//
// The host calls, per task: start, then for each assignment open, put and
// flush as records arrive, close when partitions are revoked, finally stop.
// Records only count as delivered once flush returns; the host then commits
// the consumer group's offsets (on an error it delivers them again).
//
// A record the task cannot write may be reported from `put` with
// `errant.report(index, reason)` (the connector's dead letter queue; see
// below). Everything from 'copycat-sdk' is re-exported here.

import { report as hostReport } from 'copycat:errant/reporter@0.1.0';
import { Config, FatalError, pluginInfo, toBigInt } from './index.js';
import { RecordView } from './batch.js';
import { attachInstance, guard, runStop, runValidate, toConfigList } from './internal.js';

export * from './index.js';

/**
 * What a sink task's `put` receives: the batch the host read, decoded on
 * access (see RecordView). Record objects have `topic`, `partition`,
 * `offset` (BigInt), `timestamp` (BigInt or undefined), `key`, `keySchema`,
 * `value`, `valueSchema` and `headers`.
 */
export class SinkBatch extends RecordView {}

// ---------------------------------------------------------------------------
// Errant records
// ---------------------------------------------------------------------------

const U32_MAX = 2 ** 32 - 1;

/**
 * Why `errant.report` did not take a record as skipped. `kind` is the WIT
 * `report-error` case:
 *
 * - `'unavailable'`: the connector has neither a dead letter queue
 *   (`errors.deadletterqueue.topic.name`) nor the error log
 *   (`errors.log.enable`), so there is no reporter (Kafka Connect's is null
 *   then); handle the record yourself (fail `put`, or skip it knowingly).
 * - `'tolerance-exceeded'`: `errors.tolerance=none`; the record was logged
 *   and queued, and the task fails once `put` returns.
 * - `'no-such-record'`: no record at that index in the running `put`'s
 *   batch; `detail` says which.
 *
 * Thrown out of `put` unhandled, it becomes `connector-error::fatal` with
 * its message.
 */
export class ReportError extends Error {
  /**
   * @param {'unavailable' | 'tolerance-exceeded' | 'no-such-record'} kind
   * @param {string} [detail] for `no-such-record`
   */
  constructor(kind, detail) {
    super(reportErrorMessage(kind, detail));
    this.name = 'ReportError';
    this.kind = kind;
    this.detail = detail;
  }
}

function reportErrorMessage(kind, detail) {
  switch (kind) {
    case 'unavailable':
      return 'no errant record reporter: the connector sets neither errors.deadletterqueue.topic.name nor errors.log.enable';
    case 'tolerance-exceeded':
      return 'errors.tolerance=none: the task fails after this put';
    default:
      return `no such record: ${detail}`;
  }
}

/**
 * Report records a sink task could not write (`copycat:errant/reporter`,
 * Kafka Connect's `ErrantRecordReporter`), from `put`: the host logs the
 * record, sends it as it was consumed to the connector's dead letter queue
 * and, with `errors.tolerance=all`, the task goes on; the record counts as
 * handled (its offset is committed with the batch's).
 *
 *     put(batch) {
 *       for (let i = 0; i < batch.length; i++) {
 *         const record = batch.get(i);
 *         try {
 *           write(record);
 *         } catch (why) {
 *           try {
 *             errant.report(i, why.message);
 *           } catch (e) {
 *             // No reporter (no dead letter queue, no error log): fail.
 *             throw new FatalError(`${why.message} (${e.message})`);
 *           }
 *         }
 *       }
 *     }
 *
 * Every sink built with this SDK imports `copycat:errant/reporter@0.1.0`,
 * used or not (the host links it for sinks only); a source never does.
 */
export const errant = Object.freeze({
  /**
   * Report record `index` (from 0, in the list the running `put` received)
   * as errant because of `reason` (the host keeps its first 4 KiB).
   * Reporting a record again in the same `put` changes nothing. Throws a
   * ReportError when the report was not taken.
   * @param {number} index
   * @param {unknown} reason
   */
  report(index, reason) {
    if (!Number.isInteger(index) || index < 0 || index > U32_MAX) {
      throw new ReportError('no-such-record', `record ${index}`);
    }
    try {
      hostReport(index, String(reason));
    } catch (e) {
      const error = e?.payload;
      if (error && typeof error.tag === 'string') {
        throw new ReportError(error.tag, error.val === undefined ? undefined : String(error.val));
      }
      throw e;
    }
  },
});

/**
 * Define a sink connector. Export the result's members under exactly
 * these names: `export const { connector, sinkTask } = defineSink({...})`
 * (plus `instance` when the spec has `dynamic`).
 *
 * Every function may throw a ConfigError, RetriableError or FatalError; any
 * other exception is returned to the host as `fatal` with its message.
 *
 * @param {import('./sink').SinkSpec} spec
 */
export function defineSink(spec) {
  const info = pluginInfo('sink', spec);
  if (typeof spec.start !== 'function') throw new TypeError('defineSink: `start(config)` is required');

  // Each task runs in its own component instance, so this is per task.
  /** @type {any} */
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
    put(batch) {
      guard(() => {
        started().put(new SinkBatch(batch));
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

  return attachInstance({ connector, sinkTask }, spec, 'defineSink');
}
