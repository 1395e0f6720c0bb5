// A typed use of the whole SDK, checked with `tsc --noEmit -p test/types`
// (scripts/examples/js.sh test): the .d.ts files under types/ must accept
// what docs/authoring/js.md shows, and refuse what the SDK refuses.
import { Decimal, Schema, Schemaless, collectProblems, decodeValue, encodeValue, log } from 'copycat-sdk';
import { ConfigError, RetriableError, SourceBatch, defineSource, readOffsets, transactions } from 'copycat-sdk/source';
import { FatalError, SinkBatch, defineSink, errant } from 'copycat-sdk/sink';
import { RecordError, defineTransform } from 'copycat-sdk/transform';
import { requestTaskReconfiguration, raiseError } from 'copycat-sdk/dynamic';
import * as fs from 'copycat-sdk/fs';
import { host, readSourceBatch, sinkBatch, transformBatch, readTransformBatch } from 'copycat-sdk/testing';

const Count = Schema.struct('copycat.examples.Count')
  .field('stream', Schema.string())
  .field('seq', Schema.int64())
  .field('even', Schema.boolean())
  .field('note', Schema.string().optional());
const All = Schema.struct('All')
  .field('a', Schema.array(Schema.int8()))
  .field('m', Schema.map(Schema.string(), Schema.float64()))
  .field('d', Schema.decimal(2))
  .field('day', Schema.date())
  .field('t', Schema.time())
  .field('at', Schema.timestamp())
  .field('b', Schema.bytes().optional().named('B').versioned(2).documented('doc').parameter('k', 'v').withDefault(null));

const bytes: Uint8Array = encodeValue(Count, { stream: 's', seq: 1n, even: false, note: null });
const back: unknown = decodeValue(Schemaless, bytes);
const dec: string = new Decimal(-12345n, 2).toString();

const stream = { stream: 'stream-0' };
let watched = 1;

export const { connector, sourceTask, instance } = defineSource({
  name: 'typed-source',
  version: '0.1.0',
  description: 'checks the types',
  config: [{ name: 'topic', type: 'string', required: true, importance: 'high', doc: 'Kafka topic' }],
  validate: (config) => collectProblems(() => config.require('topic'), () => config.getInt('n', 1, { min: 1 })),
  taskConfigs: (config, maxTasks) => [config.with('tasks', maxTasks)],
  start(config) {
    const topic: string = config.require('topic');
    const last = readOffsets([stream]).get(stream);
    let next: number = last === undefined ? 0 : last.seq + 1;
    return {
      poll(maxRecords: number, batch: SourceBatch) {
        for (let i = 0; i < maxRecords; i++, next++) batch.append(`stream-0:${next}`, `${next}`);
        batch.position(stream, { seq: next - 1 });
        batch.add({ partition: stream, offset: { seq: next }, topic, key: 'k', keySchema: Schema.string(), value: { stream: 's', seq: next, even: true, note: 'x' }, valueSchema: Count, headers: [['h', 'v'], ['n', 1, Schema.int8()]], timestamp: new Date() });
        if (next > 10) transactions.commit();
      },
      commit(positions) {
        log.info(`${positions.length} committed`);
      },
    };
  },
  dynamic: {
    start: (config) => config.getBoolean('watch', false),
    taskConfigs: (maxTasks) => [{ tasks: String(maxTasks), streams: String(watched) }],
    monitor() {
      if (watched > 2) requestTaskReconfiguration();
      if (watched > 9) raiseError('too many');
      if (watched < 0) throw new RetriableError('later');
    },
  },
});

export const { sinkTask } = defineSink({
  name: 'typed-sink',
  version: '0.1.0',
  start(config) {
    const dir = config.require('directory');
    if (!fs.granted(dir)) throw new ConfigError('not granted', 'directory');
    return {
      open: (partitions) => partitions.map((p) => ({ ...p, offset: 0n })),
      put(batch: SinkBatch) {
        for (let i = 0; i < batch.length; i++) {
          const r = batch.get(i);
          const off: bigint = r.offset;
          if (!(r.valueSchema instanceof Schema)) continue; // raw bytes or schemaless
          if (r.valueSchema.type === 'struct') log.debug(String(r.valueSchema.fields.map((f) => f.name)));
          const f = fs.open(`${dir}/${r.topic}-${r.partition}.txt`, { append: true });
          f.append(batch.valueBytes(i) ?? new Uint8Array(0));
          f.close();
          if (off < 0n) errant.report(i, 'negative');
        }
        for (const r of batch) if (r.value === null) throw new FatalError('tombstone');
      },
      flush: (offsets) => log.info(`${offsets.map((o) => o.offset).join(',')}`),
    };
  },
});

export const { transformer } = defineTransform({
  name: 'typed-transform',
  version: '0.1.0',
  configure(config) {
    const fields = config.getList('fields');
    return {
      apply(record, index) {
        if (typeof record.value === 'string') return { ...record, value: record.value.toUpperCase() };
        if (index > 100) throw new RecordError('too far');
        return fields.length ? [record, record] : null;
      },
    };
  },
});

host.reset();
host.setOffset(stream, { seq: 1 });
const polled = readSourceBatch(sourceTask.poll(10));
const n: number = polled.records.length + polled.positions.length;
sinkTask.put(sinkBatch([{ topic: 't', value: 'x' }]));
const out = readTransformBatch(transformer.apply(transformBatch([{ value: 'a', valueSchema: Schema.string() }])));
const origin: number = out[0].origin;
instance.monitor();
void [All, back, dec, n, origin];

// @ts-expect-error a source needs start
defineSource({ name: 'x', version: '1' });
// @ts-expect-error append takes strings or bytes
new SourceBatch().append(1, 2);
// @ts-expect-error a schema type is one of the WIT schema-type cases
new Schema('uint8');
