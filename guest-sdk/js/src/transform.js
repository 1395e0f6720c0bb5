// copycat-sdk/transform: transform components (world `transform` of
// `copycat:transform@0.1.0`): a batch of records in, a batch out.
//
//     import { defineTransform } from 'copycat-sdk/transform';
//
//     export const { transformer } = defineTransform({
//       name: 'shout', version: '0.1.0', description: 'Upper-cases string values',
//       configure(config) {
//         return {
//           apply(record) {
//             if (typeof record.value === 'string') record.value = record.value.toUpperCase();
//             return record;
//           },
//         };
//       },
//     });
//
// `apply(record, index)` gets each record of the batch, in order, as an
// object `{ topic, partition, offset, timestamp, key, keySchema, value,
// valueSchema, headers }` (see SinkBatch for the JS types: the host hands
// a transform every key, value and header typed, a connector's raw bytes as
// an optional `bytes` value, i.e. a Uint8Array with schema
// `Schema.bytes().optional()`), and returns it (changed or not), a new
// record, an array of records (a split), or null (dropped). A returned
// record's key and value are written under its `keySchema` /
// `valueSchema` (none: raw bytes). A transform has no clock import: use
// Date.now().
//
// Errors: throw a RecordError (this record cannot be transformed: Kafka
// Connect's DataException, handled by the connector's `errors.tolerance`),
// a ConfigError, or anything else (fatal).

import { Config, ConfigError, log, pluginInfo } from './index.js';
import { RecordView, SourceBatch } from './batch.js';
import { runValidate } from './internal.js';

export { Config, ConfigError, FatalError, RetriableError, ConnectorError, collectProblems, log, Schema, Schemaless, Decimal, LOGICAL, DataError, decodeValue, encodeValue, toBytes, text, concatBytes } from './index.js';

/**
 * One record cannot be transformed (the WIT `transform-error::record`);
 * the host applies the connector's error tolerance to it.
 */
export class RecordError extends Error {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options) {
    super(message, options);
    this.name = 'RecordError';
  }
}

// A thrown value with an own `payload` is the `err` case of the export's
// result (componentize-js).
function transformError(e, index) {
  let payload;
  if (e instanceof RecordError && index !== undefined) payload = { tag: 'record', val: [index, e.message] };
  else if (e instanceof ConfigError || e?.kind === 'config') payload = { tag: 'config', val: String(e.message) };
  else {
    const text = e instanceof Error ? (e.name === 'Error' || e.name === 'DataError' || e.name === 'RecordError' ? e.message : `${e.name}: ${e.message}`) : String(e);
    if (e instanceof Error && e.stack && e.name !== 'DataError' && e.name !== 'RecordError' && e.name !== 'FatalError') log.warn(`${text}\n${e.stack}`);
    payload = { tag: 'fatal', val: text };
  }
  const error = new Error(typeof payload.val === 'string' ? payload.val : payload.val[1]);
  Object.defineProperty(error, 'payload', { value: payload });
  return error;
}

/**
 * The output batch of `apply`, for a transform that wants to write records
 * itself (`applyBatch(input, output)`): `output.add(record, origin)`.
 */
export class TransformOutput extends SourceBatch {
  /**
   * Add `record` (it needs a `topic`), which came from input record `origin`.
   * @param {any} record
   * @param {number} origin
   */
  add(record, origin) {
    if (typeof record?.topic !== 'string') throw new TypeError('a transformed record needs its topic');
    const i = this.n;
    this.addRecord(record, record.partition);
    this.column('origins', Uint32Array, 0)[i] = origin;
    const o = record.offset;
    if (o !== undefined && o !== null && o !== -1n && o !== -1) {
      this.column('offsets', BigInt64Array, -1n)[i] = typeof o === 'bigint' ? o : BigInt(o);
    }
  }
}

/**
 * Define a transform. Export the result's member under exactly this name:
 * `export const { transformer } = defineTransform({...})`.
 *
 * @param {import('./transform').TransformSpec} spec
 */
export function defineTransform(spec) {
  if (typeof spec.name !== 'string' || spec.name === '') throw new TypeError('transform spec: `name` is required');
  if (typeof spec.version !== 'string' || spec.version === '') throw new TypeError('transform spec: `version` is required');
  if (typeof spec.configure !== 'function') throw new TypeError('defineTransform: `configure(config)` is required');
  // The connector-key shape is the one connectors use.
  const { configDef } = pluginInfoOf(spec);
  const info = Object.freeze({ name: spec.name, version: spec.version, description: spec.description ?? '', configDef });

  /** @type {any} */
  let configured;
  const output = new TransformOutput();

  const transformer = {
    describe: () => info,
    validate: (pairs) => runValidate(spec.validate, pairs),
    configure(pairs) {
      try {
        const t = spec.configure(new Config(pairs));
        if (!t || (typeof t.apply !== 'function' && typeof t.applyBatch !== 'function')) {
          throw new TypeError('configure(config) must return an object with an apply(record) method');
        }
        configured = t;
      } catch (e) {
        throw transformError(e);
      }
    },
    apply(batch) {
      if (!configured) throw transformError(new Error('apply before configure'));
      const input = new RecordView(batch);
      output.clear();
      if (typeof configured.applyBatch === 'function') {
        try {
          configured.applyBatch(input, output);
        } catch (e) {
          throw transformError(e);
        }
        return output.toTransformWit();
      }
      const n = input.length;
      for (let i = 0; i < n; i++) {
        let result;
        try {
          result = configured.apply(input.get(i), i);
          if (result === null || result === undefined) continue;
          if (Array.isArray(result)) for (const r of result) output.add(r, i);
          else output.add(result, i);
        } catch (e) {
          throw transformError(e, i);
        }
      }
      return output.toTransformWit();
    },
  };
  return { transformer };
}

function pluginInfoOf(spec) {
  return pluginInfo('source', spec);
}
