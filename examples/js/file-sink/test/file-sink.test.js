// Unit tests under Node.js with the SDK's in-memory host and real files in a
// temporary directory: `npm test`.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, test } from 'node:test';
import { host, sinkBatch } from 'copycat-sdk/testing';
import { Decimal, Schema, Schemaless } from 'copycat-sdk/sink';
import { connector, sinkTask } from '../src/index.js';

const bytes = (s) => new TextEncoder().encode(s);
// A raw record (as ByteArrayConverter gives it).
const record = (partition, offset, value) => ({ topic: 't', partition, offset: BigInt(offset), value: value === undefined ? null : bytes(value) });
const put = (records) => sinkTask.put(sinkBatch(records));

let dir;
beforeEach(() => {
  host.reset();
  dir = mkdtempSync(join(tmpdir(), 'file-sink-'));
  host.grant(dir);
});

test('validate and start want a directory', () => {
  assert.deepEqual(connector.validate([['directory', dir]]), []);
  assert.deepEqual(connector.validate([]).map((p) => p.key), ['directory']);
  assert.throws(() => sinkTask.start([['topics', 't']]), (e) => e.kind === 'config' && e.message.includes('directory'));
  assert.throws(() => sinkTask.start([['directory', '/not/granted']]), (e) => e.kind === 'config');
});

test('put appends lines, flush writes the state file', () => {
  sinkTask.start([['directory', dir]]);
  assert.deepEqual(sinkTask.open([{ topic: 't', partition: 0 }]), []);
  put([record(0, 5, 'a'), record(0, 6, undefined), record(1, 9, 'b')]);
  sinkTask.flush([]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'a\n\n');
  assert.equal(readFileSync(join(dir, 't-0.offset'), 'utf8'), '7 3');
  assert.equal(readFileSync(join(dir, 't-1.offset'), 'utf8'), '10 2');
  assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')));
  sinkTask.stop();
});

test('open truncates to the last flush and returns the next offset', () => {
  sinkTask.start([['directory', dir]]);
  sinkTask.open([{ topic: 't', partition: 0 }]);
  put([record(0, 0, 'one'), record(0, 1, 'two')]);
  sinkTask.flush([]);
  put([record(0, 2, 'lost')]); // never flushed
  sinkTask.close([{ topic: 't', partition: 0 }]);
  sinkTask.stop();
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'one\ntwo\nlost\n');

  sinkTask.start([['directory', dir]]);
  const resumed = sinkTask.open([{ topic: 't', partition: 0 }, { topic: 't', partition: 3 }]);
  assert.deepEqual(resumed, [{ topic: 't', partition: 0, offset: 2n }]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'one\ntwo\n');
  put([record(0, 2, 'three')]);
  sinkTask.flush([]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'one\ntwo\nthree\n');
  assert.equal(readFileSync(join(dir, 't-0.offset'), 'utf8'), '3 14');
});

test('errant records are reported, not written; their offsets advance', () => {
  sinkTask.start([['directory', dir]]);
  put([record(0, 1, 'v1'), record(0, 2, 'errant:too odd'), record(0, 3, 'v3'), record(1, 7, 'errant:')]);
  assert.deepEqual(host.reported, [{ index: 1, reason: 'too odd' }, { index: 3, reason: '' }]);
  sinkTask.flush([]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'v1\nv3\n');
  assert.equal(readFileSync(join(dir, 't-0.offset'), 'utf8'), '4 6');
  assert.equal(readFileSync(join(dir, 't-1.offset'), 'utf8'), '8 0');
});

test('a failed report is fatal and names the record', () => {
  host.reportError = 'unavailable';
  sinkTask.start([['directory', dir]]);
  assert.throws(
    () => put([record(0, 1, 'v1'), record(0, 2, 'errant:bad')]),
    (e) =>
      e.kind === 'fatal' &&
      e.message.includes('topic t partition 0 offset 2') &&
      e.message.includes('errors.deadletterqueue.topic.name'),
  );
});

test('I/O failures are fatal errors naming the file', () => {
  writeFileSync(join(dir, 't-0.offset'), 'garbage');
  sinkTask.start([['directory', dir]]);
  assert.throws(
    () => sinkTask.open([{ topic: 't', partition: 0 }]),
    (e) => e.kind === 'fatal' && e.message.includes('t-0.offset'),
  );
  assert.ok(existsSync(join(dir, 't-0.offset')));
});

test('typed values are written as compact JSON', () => {
  sinkTask.start([['directory', dir]]);
  const count = Schema.struct('copycat.examples.Count')
    .field('stream', Schema.string())
    .field('seq', Schema.int64())
    .field('even', Schema.boolean())
    .field('note', Schema.string().optional());
  const all = Schema.struct('All')
    .field('s', Schema.string())
    .field('b', Schema.bytes())
    .field('d', Schema.decimal(2))
    .field('day', Schema.date())
    .field('at', Schema.timestamp())
    .field('m', Schema.map(Schema.int32(), Schema.array(Schema.int8())))
    .field('n', Schema.float64().optional());
  const typed = (offset, value, valueSchema) => ({ topic: 't', partition: 0, offset: BigInt(offset), value, valueSchema });
  put([
    typed(0, { stream: 'stream-0', seq: 4, even: true, note: 'n4' }, count),
    typed(1, { stream: 'stream-0', seq: 5, even: false, note: null }, count),
    typed(2, 'say "hi"\\\n é', Schema.string()),
    typed(3, { s: '', b: new Uint8Array([0, 1, 2, 255]), d: new Decimal(-12345n, 2), day: 19782, at: 1700000000000n, m: new Map([[1, [2, -3]]]), n: null }, all),
    typed(4, new Map([['k', [1n, true, null]], ['x', 'y']]), Schemaless),
    typed(5, null, count.optional()),
    typed(6, 7, Schema.int32()),
  ]);
  sinkTask.flush([]);
  assert.equal(
    readFileSync(join(dir, 't-0.txt'), 'utf8'),
    [
      '{"stream":"stream-0","seq":4,"even":true,"note":"n4"}',
      '{"stream":"stream-0","seq":5,"even":false,"note":null}',
      '"say \\"hi\\"\\\\\\n é"',
      '{"s":"","b":"AAEC/w==","d":"z8c=","day":19782,"at":1700000000000,"m":{"1":[2,-3]},"n":null}',
      '{"k":[1,true,null],"x":"y"}',
      '',
      '7',
      '',
    ].join('\n'),
  );
});

test('a typed string starting with errant: is reported', () => {
  sinkTask.start([['directory', dir]]);
  put([{ topic: 't', partition: 0, offset: 5n, value: 'errant:why', valueSchema: Schema.string() }]);
  assert.deepEqual(host.reported, [{ index: 0, reason: 'why' }]);
});
