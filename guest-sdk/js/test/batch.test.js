// Batches, the value encoding (byte for byte, against
// wit/connector@0.3.0/batch.wit), transforms and dynamic connectors, under
// Node.js with the in-memory host:
//   node --import ./testing/register.mjs --test   (from guest-sdk/js/)
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { host, readSourceBatch, readTransformBatch, sinkBatch, transformBatch } from 'copycat-sdk/testing';
import { Decimal, Schema, Schemaless, decodeValue, defineSource, encodeValue, readOffsets } from 'copycat-sdk/source';
import { SinkBatch, defineSink } from 'copycat-sdk/sink';
import { RecordError, defineTransform } from 'copycat-sdk/transform';
import { raiseError, requestTaskReconfiguration } from 'copycat-sdk/dynamic';

beforeEach(() => host.reset());

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const utf8 = (s) => new TextEncoder().encode(s);
const text = (b) => new TextDecoder().decode(b);

test('the value encoding, byte for byte (batch.wit)', () => {
  const cases = [
    // int8, boolean: 1 byte; int16/int32/int64: 2/4/8 bytes little-endian.
    [Schema.int8(), -1, 'ff'],
    [Schema.int16(), 0x0102, '0201'],
    [Schema.int32(), -2, 'feffffff'],
    [Schema.int64(), 0x0102030405060708n, '0807060504030201'],
    [Schema.int64(), -1, 'ffffffffffffffff'],
    [Schema.boolean(), true, '01'],
    // IEEE 754.
    [Schema.float32(), 1.5, '0000c03f'],
    [Schema.float64(), -2, '00000000000000c0'],
    // string, bytes: u32 length then the bytes (UTF-8).
    [Schema.string(), 'hé', '03000000' + '68c3a9'],
    [Schema.bytes(), new Uint8Array([0, 255]), '02000000' + '00ff'],
    // optional: 0 null, or 1 then the value.
    [Schema.string().optional(), null, '00'],
    [Schema.int32().optional(), 7, '01' + '07000000'],
    // array: u32 count then the elements; map: count then key, value, ...
    [Schema.array(Schema.int16()), [1, 2], '02000000' + '0100' + '0200'],
    [Schema.map(Schema.string(), Schema.int8()), new Map([['a', 1]]), '01000000' + '01000000' + '61' + '01'],
    [Schema.map(Schema.string(), Schema.int8()), { b: 2 }, '01000000' + '01000000' + '62' + '02'],
    // Logical types: their physical value.
    [Schema.date(), 19782, '464d0000'],
    [Schema.date(), new Date(Date.UTC(2024, 0, 1)), hex(new Uint8Array(new Int32Array([19723]).buffer))],
    [Schema.time(), 1000, 'e8030000'],
    [Schema.timestamp(), new Date(1), '0100000000000000'],
    // Decimal: the unscaled value's shortest big-endian two's complement, as bytes.
    [Schema.decimal(2), new Decimal(-12345n, 2), '02000000' + 'cfc7'],
    [Schema.decimal(2), 128n, '02000000' + '0080'],
    [Schema.decimal(0), -128n, '01000000' + '80'],
    [Schema.decimal(0), 0n, '01000000' + '00'],
  ];
  for (const [schema, value, want] of cases) {
    assert.equal(hex(encodeValue(schema, value)), want, `${schema} ${String(value)}`);
  }
  // A struct: its fields in order (the counter-source's typed value).
  const count = Schema.struct('copycat.examples.Count')
    .field('stream', Schema.string())
    .field('seq', Schema.int64())
    .field('even', Schema.boolean())
    .field('note', Schema.string().optional());
  const bytes = encodeValue(count, { stream: 'stream-0', seq: 4, even: true, note: 'n4' });
  assert.equal(hex(bytes), '08000000' + hex(utf8('stream-0')) + '0400000000000000' + '01' + '01' + '02000000' + hex(utf8('n4')));
  assert.equal(hex(encodeValue(count, { stream: 's', seq: 5n, even: false })), '01000000' + '73' + '0500000000000000' + '00' + '00');
  // Read back: fields in schema order, int64 a BigInt.
  assert.deepEqual(Object.entries(decodeValue(count, bytes)), [['stream', 'stream-0'], ['seq', 4n], ['even', true], ['note', 'n4']]);
  assert.deepEqual(decodeValue(Schema.decimal(2), encodeValue(Schema.decimal(2), -12345n)), new Decimal(-12345n, 2));
  assert.equal(new Decimal(-12345n, 2).toString(), '-123.45');
});

test('schemaless values: a tag byte before each value', () => {
  assert.equal(hex(encodeValue(Schemaless, null)), '00');
  assert.equal(hex(encodeValue(Schemaless, 5)), '04' + '0500000000000000');
  assert.equal(hex(encodeValue(Schemaless, 0.5)), '06' + '000000000000e03f');
  assert.equal(hex(encodeValue(Schemaless, true)), '0701');
  assert.equal(hex(encodeValue(Schemaless, 'a')), '08' + '01000000' + '61');
  assert.equal(hex(encodeValue(Schemaless, new Uint8Array([9]))), '09' + '01000000' + '09');
  assert.equal(hex(encodeValue(Schemaless, [null])), '0a' + '01000000' + '00');
  assert.equal(hex(encodeValue(Schemaless, { k: 1n })), '0b' + '01000000' + '08' + '01000000' + '6b' + '04' + '0100000000000000');
  // Tags 1, 2, 3, 5 decode to Numbers.
  assert.equal(decodeValue(Schemaless, Uint8Array.from([1, 0xff])), -1);
  assert.equal(decodeValue(Schemaless, Uint8Array.from([2, 1, 1])), 257);
  assert.equal(decodeValue(Schemaless, Uint8Array.from([3, 1, 0, 0, 0])), 1);
  assert.equal(decodeValue(Schemaless, Uint8Array.from([5, 0, 0, 0xc0, 0x3f])), 1.5);
  assert.deepEqual(decodeValue(Schemaless, encodeValue(Schemaless, { k: [1n, 'x'] })), new Map([['k', [1n, 'x']]]));
});

test('values that do not fit their schema are refused, naming where', () => {
  const s = Schema.struct('S').field('a', Schema.int32()).field('b', Schema.array(Schema.string()));
  assert.throws(() => encodeValue(s, { a: 1, b: ['x', 2] }), /a number value for a string schema at b\[1\]/);
  assert.throws(() => encodeValue(s, { b: [] }), /null for a required int32 schema at a/);
  assert.throws(() => encodeValue(Schema.int8(), 200), /out of range for int8/);
  assert.throws(() => encodeValue(Schema.int64(), 2 ** 60), /int64 wants a BigInt or a safe integer/);
  assert.throws(() => encodeValue(Schema.decimal(2), new Decimal(1n, 3)), /scale 3 for a Decimal schema of scale 2/);
  assert.throws(() => encodeValue(Schemaless, new Decimal(1n, 3)), /needs a schema/);
  assert.throws(() => Schema.int8().field('x', Schema.int8()), /only structs have fields/);
  // A missing field with a default takes it.
  const d = Schema.struct('D').field('n', Schema.int16().withDefault(3));
  assert.equal(hex(encodeValue(d, {})), '0300');
});

test('source batch: append packs raw records into data and the length columns', () => {
  const { sourceTask } = defineSource({
    name: 'x',
    version: '1',
    start: () => ({
      poll(max, batch) {
        batch.append('k1', 'v1');
        batch.append(null, utf8('bytes'));
        batch.append('k3', null);
        batch.append('ké', 'v');
        batch.position({ stream: 'a' }, { seq: 1 });
        batch.position({ stream: 'a' }, { seq: 3 });
        batch.position('{"stream":"b"}', '{"seq":0}');
      },
    }),
  });
  sourceTask.start([]);
  const b = sourceTask.poll(10);
  assert.equal(text(b.data), 'k1v1bytesk3kév');
  assert.ok(b.keyLengths instanceof Int32Array && b.valueLengths instanceof Int32Array);
  assert.deepEqual([...b.keyLengths], [2, -1, 2, 3]);
  assert.deepEqual([...b.valueLengths], [2, 5, -1, 1]);
  for (const c of ['topicIndices', 'partitions', 'timestamps', 'headerCounts', 'keySchemas', 'valueSchemas', 'headerSchemas']) {
    assert.equal(b[c].length, 0, c);
  }
  assert.deepEqual(b.positions, [
    { partition: '{"stream":"a"}', offset: '{"seq":3}' },
    { partition: '{"stream":"b"}', offset: '{"seq":0}' },
  ]);
  // The next poll starts empty.
  assert.equal(sourceTask.poll(10).data.length, text(b.data).length === 0 ? 0 : utf8('k1v1bytesk3kév').length);
});

test('source batch: add writes typed values, schemas, topics, partitions, timestamps and headers', () => {
  const count = Schema.struct('Count').field('seq', Schema.int64());
  const key = Schema.string();
  let records;
  const { sourceTask } = defineSource({ name: 'x', version: '1', start: () => ({ poll: () => records }) });
  sourceTask.start([]);
  records = [
    { partition: { s: 0 }, offset: { seq: 0 }, key: 'raw', value: 'raw' },
    { partition: { s: 0 }, offset: { seq: 1 }, key: 'k', keySchema: key, value: { seq: 1 }, valueSchema: count, topic: 'other', kafkaPartition: 2, timestamp: 7, headers: [['h', 'x'], ['t', 5, Schema.int8()]] },
    { partition: { s: 1 }, offset: { seq: 9 }, value: null, valueSchema: count.optional() },
    { partition: { s: 0 }, offset: { seq: 2 }, value: [1, 'a'], valueSchema: Schemaless, headers: { plain: null } },
  ];
  const b = sourceTask.poll(10);
  assert.deepEqual([...b.keySchemas], [-1, 0, -1, -1]);
  // Nodes, each after those it refers to: the key's string, Count's int64
  // field, Count, the header's int8, the optional Count (sharing the int64).
  assert.deepEqual(b.schemas.map((n) => [n.type, n.optional, n.name, [...n.children], n.fieldNames]), [
    ['string', false, undefined, [], []],
    ['int64', false, undefined, [], []],
    ['struct', false, 'Count', [1], ['seq']],
    ['int8', false, undefined, [], []],
    ['struct', true, 'Count', [1], ['seq']],
  ]);
  assert.deepEqual([...b.valueSchemas], [-1, 2, 4, -2]);
  assert.deepEqual([...b.valueLengths], [3, 8, -1, 5 + 9 + 6]);
  assert.deepEqual(b.topics, ['other']);
  assert.deepEqual([...b.topicIndices], [-1, 0, -1, -1]);
  assert.deepEqual([...b.partitions], [-1, 2, -1, -1]);
  assert.deepEqual([...b.timestamps], [-1n, 7n, -1n, -1n]);
  assert.deepEqual([...b.headerCounts], [0, 2, 0, 1]);
  assert.deepEqual([...b.headerKeyLengths], [1, 1, 5]);
  assert.deepEqual([...b.headerValueLengths], [1, 1, -1]);
  assert.deepEqual([...b.headerSchemas], [-1, 3, -1]);
  assert.deepEqual(b.positions, [
    { partition: '{"s":0}', offset: '{"seq":2}' },
    { partition: '{"s":1}', offset: '{"seq":9}' },
  ]);
  // Read back as a sink reads it.
  const { records: back } = readSourceBatch(b);
  assert.deepEqual(back[1].value, { seq: 1n });
  assert.equal(back[1].key, 'k');
  assert.equal(back[1].topic, 'other');
  assert.deepEqual(back[1].headers.map((h) => [h.key, h.value]), [['h', utf8('x')], ['t', 5]]);
  assert.deepEqual(back[3].value, [1n, 'a']);
  // A record that does not fit leaves the batch as it was, and fails the poll.
  records = [
    { partition: { s: 0 }, offset: { seq: 0 }, key: 'a', value: 'b' },
    { partition: { s: 0 }, offset: { seq: 1 }, value: { seq: 'x' }, valueSchema: count },
  ];
  assert.throws(() => sourceTask.poll(10), (e) => e.payload.tag === 'fatal' && /value: a string value for an int64 schema \(int64 wants a BigInt or a safe integer\) at seq/.test(e.payload.val));
  records = [{ partition: { s: 0 }, offset: { seq: 0 }, value: { a: 1 } }];
  assert.throws(() => sourceTask.poll(10), /needs a schema/);
  records = [{ partition: { s: 0 }, offset: { seq: 0 }, value: null, valueSchema: count }];
  assert.throws(() => sourceTask.poll(10), /null for a required struct schema \(Count\) without a default/);
});

test('source batch: raw string records of add share the single encode of append; typed ones follow in order', () => {
  let records;
  const { sourceTask } = defineSource({
    name: 'x',
    version: '1',
    start: () => ({
      poll(max, batch) {
        batch.add({ partition: { s: 0 }, offset: { seq: 0 }, key: 'ké', value: 'v0', topic: 'other' });
        batch.append('k1', 'v1');
        batch.add({ partition: { s: 0 }, offset: { seq: 2 }, value: 7, valueSchema: Schema.int8() });
        batch.add({ partition: { s: 0 }, offset: { seq: 3 }, key: 'k3', value: 'é' });
        batch.add({ partition: { s: 0 }, offset: { seq: 4 }, key: 'k4', value: 'v4', headers: [['h', 'x']] });
        if (records) for (const r of records) batch.add(r);
      },
    }),
  });
  sourceTask.start([]);
  const b = sourceTask.poll(10);
  assert.equal(text(b.data), 'kév0k1v1\x07k3ék4v4hx');
  assert.deepEqual([...b.keyLengths], [3, 2, -1, 2, 2]);
  assert.deepEqual([...b.valueLengths], [2, 2, 1, 2, 2]);
  assert.deepEqual([...b.topicIndices], [0, -1, -1, -1, -1]);
  assert.deepEqual([...b.valueSchemas], [-1, -1, 0, -1, -1]);
  // A record that fails after its strings were kept leaves the batch as it was.
  records = [{ partition: { s: 0 }, offset: { seq: 5 }, key: 'k5', value: 'v5', kafkaPartition: -7 }];
  assert.throws(() => sourceTask.poll(10), /kafkaPartition -7 is not a partition number/);
});

test('source batch: more than the initial capacity, and columns started midway', () => {
  const { sourceTask } = defineSource({
    name: 'x',
    version: '1',
    start: () => ({
      poll(max, batch) {
        for (let i = 0; i < 3000; i++) {
          if (i === 2500) batch.add({ partition: { s: 0 }, offset: { seq: i }, value: 'x', topic: 'late' });
          else batch.append(`k${i}`, `v${i}`);
        }
      },
    }),
  });
  sourceTask.start([]);
  const b = sourceTask.poll(5000);
  assert.equal(b.valueLengths.length, 3000);
  assert.equal(b.topicIndices.length, 3000);
  assert.equal(b.topicIndices[2500], 0);
  assert.equal(b.topicIndices[2999], -1);
  const { records } = readSourceBatch(b);
  assert.equal(text(records[2999].key), 'k2999');
  assert.equal(text(records[2500].value), 'x');
});

test('readOffsets: partitions are JSON objects, matched whatever the key order', () => {
  host.setOffset('{"b":2,"a":1}', { seq: 41 });
  const p = { a: 1, b: 2 };
  const q = { a: 2 };
  const got = readOffsets([p, q]);
  assert.equal(got.size, 0); // the host compares its stored text exactly
  host.setOffset(p, { seq: 41 });
  assert.deepEqual(readOffsets([p, q]).get(p), { seq: 41 });
});

test('sink batch: records decoded from the packed batch', () => {
  const s = Schema.struct('S').field('name', Schema.string()).field('n', Schema.int32().optional());
  const wit = sinkBatch([
    { topic: 'a', partition: 1, offset: 10n, key: 'k', value: 'raw', timestamp: 5n },
    { topic: 'b', partition: 0, offset: 3n, value: { name: 'x', n: null }, valueSchema: s, headers: [['h', 'v']] },
    { topic: 'a', partition: 1, offset: 11n, value: null },
    { topic: 'a', partition: 1, offset: 12n, value: new Map([['k', 1n]]), valueSchema: Schemaless },
  ]);
  const batch = new SinkBatch(wit);
  assert.equal(batch.length, 4);
  const [r0, r1, r2, r3] = batch.toArray();
  assert.deepEqual([r0.topic, r0.partition, r0.offset, r0.timestamp, text(r0.key), text(r0.value), r0.valueSchema], ['a', 1, 10n, 5n, 'k', 'raw', undefined]);
  assert.deepEqual([r1.topic, r1.offset, r1.value, r1.valueSchema.name, r1.key], ['b', 3n, { name: 'x', n: null }, 'S', null]);
  assert.deepEqual(r1.headers.map((h) => [h.key, text(h.value)]), [['h', 'v']]);
  assert.equal(r1.timestamp, undefined);
  assert.equal(r2.value, null);
  assert.equal(r3.valueSchema, Schemaless);
  assert.deepEqual(r3.value, new Map([['k', 1n]]));
  assert.equal(text(batch.valueBytes(0)), 'raw');
  assert.throws(() => batch.get(4), RangeError);

  let seen;
  const { sinkTask } = defineSink({ name: 'x', version: '1', start: () => ({ put: (b) => (seen = b.toArray()) }) });
  sinkTask.start([]);
  sinkTask.put(wit);
  assert.equal(seen.length, 4);
});

test('transform: records in order, origins, schemas kept, record errors', () => {
  const optionalBytes = Schema.bytes().optional();
  const { transformer } = defineTransform({
    name: 'upper',
    version: '0.1.0',
    description: 'd',
    config: [{ name: 'mode', type: 'string', default: 'one' }],
    validate: (config) => (config.get('mode') === 'bad' ? [{ key: 'mode', message: 'bad' }] : []),
    configure(config) {
      const mode = config.getString('mode', 'one');
      return {
        apply(record, i) {
          if (mode === 'split') return [record, { ...record, value: 'second', valueSchema: Schema.string() }];
          if (mode === 'drop' && i === 0) return null;
          if (mode === 'fail' && i === 1) throw new RecordError('cannot');
          if (typeof record.value === 'string') record.value = record.value.toUpperCase();
          return record;
        },
      };
    },
  });
  assert.deepEqual(transformer.describe(), {
    name: 'upper',
    version: '0.1.0',
    description: 'd',
    configDef: [{ name: 'mode', type: 'string', defaultValue: 'one', required: false, doc: '', importance: 'medium' }],
  });
  assert.deepEqual(transformer.validate([['mode', 'bad']]), [{ key: 'mode', message: 'bad' }]);
  const input = transformBatch([
    { topic: 't', partition: 3, offset: 7n, timestamp: 9n, key: utf8('k'), keySchema: optionalBytes, value: 'abc', valueSchema: Schema.string(), headers: [['h', utf8('x'), optionalBytes]] },
    { topic: 'u', partition: -1, offset: -1n, value: null, valueSchema: optionalBytes },
  ]);
  transformer.configure([]);
  const out = transformer.apply(input);
  assert.deepEqual([...out.origins], [0, 1]);
  assert.ok(out.topicIndices instanceof Uint32Array);
  const records = readTransformBatch(out);
  assert.deepEqual(
    records.map((r) => [r.topic, r.partition, r.offset, r.timestamp, r.value]),
    [
      ['t', 3, 7n, 9n, 'ABC'],
      ['u', -1, -1n, undefined, null],
    ],
  );
  assert.deepEqual(records[0].key, utf8('k'));
  assert.equal(records[0].keySchema.type, 'bytes');
  assert.deepEqual(records[0].headers.map((h) => [h.key, h.value]), [['h', utf8('x')]]);

  transformer.configure([['mode', 'split']]);
  assert.deepEqual([...transformer.apply(input).origins], [0, 0, 1, 1]);
  transformer.configure([['mode', 'drop']]);
  assert.deepEqual([...transformer.apply(input).origins], [1]);
  transformer.configure([['mode', 'fail']]);
  assert.throws(() => transformer.apply(input), (e) => e.payload.tag === 'record' && e.payload.val[0] === 1 && e.payload.val[1] === 'cannot');
});

test('transform: configure errors are transform-error::config', () => {
  const { transformer } = defineTransform({
    name: 'x',
    version: '1',
    configure(config) {
      config.require('needed');
      return { apply: (r) => r };
    },
  });
  assert.throws(() => transformer.configure([]), (e) => e.payload.tag === 'config' && e.payload.val.includes('needed'));
  assert.throws(() => transformer.apply(transformBatch([])), (e) => e.payload.tag === 'fatal');
});

test('dynamic: the instance export, and the context calls', () => {
  let streams = 2;
  const result = defineSource({
    name: 'x',
    version: '1',
    start: () => ({ poll() {} }),
    dynamic: {
      start: (config) => config.getBoolean('watch', false),
      taskConfigs: (max) => Array.from({ length: Math.min(max, streams) }, (_, i) => ({ i })),
      monitor() {
        if (streams === 3) requestTaskReconfiguration();
        if (streams === 4) throw new RetriableError('later');
      },
    },
  });
  const { instance } = result;
  assert.equal(instance.start([['watch', 'true']]), true);
  assert.equal(instance.start([]), false);
  assert.deepEqual(instance.taskConfigs(8), [[['i', '0']], [['i', '1']]]);
  instance.monitor();
  assert.equal(host.reconfigurations, 0);
  streams = 3;
  instance.monitor();
  assert.equal(host.reconfigurations, 1);
  streams = 4;
  assert.throws(() => instance.monitor(), (e) => e.payload.tag === 'retriable');
  assert.throws(() => instance.start([['watch', 'maybe']]), (e) => e.payload.tag === 'config');
  instance.stop();
  raiseError('gone');
  assert.deepEqual(host.raisedErrors, ['gone']);

  // A connector without `dynamic` cannot export `instance`.
  assert.throws(() => {
    const { instance: none } = defineSink({ name: 'y', version: '1', start: () => ({ put() {} }) });
    return none;
  }, /has no `dynamic` member/);
});

import { RetriableError } from 'copycat-sdk';
