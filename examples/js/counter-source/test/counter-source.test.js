// Unit tests under Node.js with the SDK's in-memory host: `npm test`
// (node --import ../../../guest-sdk/js/testing/register.mjs --test).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, test } from 'node:test';
import { host, readSourceBatch } from 'copycat-sdk/testing';
import { connector, instance, sourceTask } from '../src/index.js';

const text = (bytes) => new TextDecoder().decode(bytes);
const config = (pairs) => Object.entries({ topic: 't', ...pairs });
const poll = (max) => readSourceBatch(sourceTask.poll(max));

beforeEach(() => host.reset());

test('describe declares its config keys', () => {
  const info = connector.describe();
  assert.equal(info.name, 'counter-source');
  assert.equal(info.version, '0.1.0');
  assert.equal(info.kind, 'source');
  assert.deepEqual(
    info.configDef.map((k) => [k.name, k.type, k.defaultValue, k.required]),
    [
      ['topic', 'string', undefined, true],
      ['streams', 'int', '1', false],
      ['count', 'long', '100', false],
      ['typed', 'boolean', 'false', false],
      ['value.size', 'int', '0', false],
      ['streams.file', 'string', '', false],
    ],
  );
});

test('validate: one problem per bad key', () => {
  assert.deepEqual(connector.validate(config({})), []);
  const problems = connector.validate([['streams', '0'], ['count', '-5'], ['value.size', '-1'], ['typed', 'yes']]);
  assert.deepEqual(problems.map((p) => p.key), ['streams', 'count', 'value.size', 'typed', 'topic']);
  assert.deepEqual(connector.validate(config({ streams: 'x', count: '1.5' })).map((p) => p.key), ['streams', 'count']);
});

test('task configs spread the streams, at most maxTasks', () => {
  const tasks = connector.taskConfigs(config({ streams: '5' }), 2);
  assert.deepEqual(
    tasks.map((t) => Object.fromEntries(t)['counter.streams.assigned']),
    ['0,2,4', '1,3'],
  );
  assert.equal(connector.taskConfigs(config({ streams: '2' }), 8).length, 2);
});

test('raw records round-robin, bounded by count; positions are the last offset per stream', () => {
  sourceTask.start(config({ streams: '2', count: '2' }));
  const { records, positions } = poll(3);
  assert.deepEqual(records.map((r) => [text(r.key), text(r.value)]), [
    ['stream-0:0', '0'],
    ['stream-1:0', '0'],
    ['stream-0:1', '1'],
  ]);
  assert.deepEqual(positions, [
    { partition: { stream: 'stream-0' }, offset: { seq: 1 } },
    { partition: { stream: 'stream-1' }, offset: { seq: 0 } },
  ]);
  const r = records[0];
  assert.deepEqual([r.topic, r.kafkaPartition, r.timestamp, r.headers, r.valueSchema], [undefined, undefined, undefined, [], undefined]);
  const next = poll(10);
  assert.deepEqual(next.records.map((x) => text(x.key)), ['stream-1:1']);
  assert.deepEqual(next.positions, [{ partition: { stream: 'stream-1' }, offset: { seq: 1 } }]);
  // Every stream done: an empty batch.
  assert.deepEqual(poll(10), { records: [], positions: [] });
});

test('value.size pads the value with dots', () => {
  sourceTask.start(config({ count: '0', 'value.size': '5' }));
  const { records } = poll(12);
  assert.equal(text(records[0].value), '0....');
  assert.equal(text(records[11].value), '11...');
  sourceTask.start(config({ count: '0', 'value.size': '1' }));
  assert.deepEqual(poll(11).records.map((x) => text(x.value)).slice(9), ['9', '10']);
});

test('typed records: a string key and a copycat.examples.Count struct', () => {
  sourceTask.start(config({ typed: 'true', count: '2' }));
  const { records, positions } = poll(10);
  assert.deepEqual(records.map((r) => [r.key, r.value]), [
    ['stream-0:0', { stream: 'stream-0', seq: 0n, even: true, note: 'n0' }],
    ['stream-0:1', { stream: 'stream-0', seq: 1n, even: false, note: null }],
  ]);
  assert.equal(records[0].keySchema.type, 'string');
  const s = records[0].valueSchema;
  assert.deepEqual([s.type, s.name, s.isOptional], ['struct', 'copycat.examples.Count', false]);
  assert.deepEqual(s.fields.map((f) => [f.name, f.schema.type, f.schema.isOptional]), [
    ['stream', 'string', false],
    ['seq', 'int64', false],
    ['even', 'boolean', false],
    ['note', 'string', true],
  ]);
  assert.deepEqual(positions, [{ partition: { stream: 'stream-0' }, offset: { seq: 1 } }]);
});

test('poll returns at most maxRecords', () => {
  sourceTask.start(config({ streams: '3', count: '0' }));
  assert.equal(poll(7).records.length, 7);
  assert.equal(poll(0).records.length, 0);
  assert.equal(poll(2500).records.length, 2500);
});

test('start resumes after the committed offsets of its streams', () => {
  host.setOffset({ stream: 'stream-1' }, { seq: 41 });
  host.setOffset({ stream: 'stream-0' }, { seq: 7 }); // not assigned to this task
  sourceTask.start(config({ streams: '2', count: '43', 'counter.streams.assigned': '1' }));
  assert.deepEqual(poll(5).records.map((r) => text(r.key)), ['stream-1:42']);
});

test('a committed offset without an integer seq is fatal, naming the stream', () => {
  host.setOffset({ stream: 'stream-0' }, { position: 3 });
  assert.throws(() => sourceTask.start(config({})), (e) => e.kind === 'fatal' && e.message.includes('stream-0'));
});

test('a bad config at start is a config error naming the key', () => {
  for (const [pairs, key] of [
    [[['streams', '1']], 'topic'],
    [config({ streams: 'abc' }), 'streams'],
    [config({ count: '-1' }), 'count'],
    [config({ typed: 'maybe' }), 'typed'],
    [config({ 'value.size': 'big' }), 'value.size'],
    [config({ streams: '2', 'counter.streams.assigned': '0,5' }), 'counter.streams.assigned'],
  ]) {
    assert.throws(() => sourceTask.start(pairs), (e) => e.kind === 'config' && e.message.includes(key));
  }
});

test('dynamic: no streams.file, nothing to watch', () => {
  assert.equal(instance.start(config({ streams: '3' })), false);
  assert.equal(instance.taskConfigs(2).length, 2);
});

test('dynamic: streams.file sets the number of streams and is watched', () => {
  const dir = mkdtempSync(join(tmpdir(), 'counter-source-'));
  const file = join(dir, 'streams');
  host.grant(dir);
  writeFileSync(file, ' 3\n');
  assert.equal(instance.start(config({ 'streams.file': file })), true);
  const configs = instance.taskConfigs(2).map((c) => Object.fromEntries(c));
  assert.deepEqual(configs.map((c) => [c.streams, c['counter.streams.assigned']]), [['3', '0,2'], ['3', '1']]);
  instance.monitor();
  assert.equal(host.reconfigurations, 0);
  writeFileSync(file, '5');
  instance.monitor();
  assert.equal(host.reconfigurations, 1);
  assert.equal(instance.taskConfigs(8).length, 5);
  writeFileSync(file, 'x');
  assert.throws(() => instance.monitor(), (e) => e.payload.tag === 'retriable' && e.payload.val.includes(file));
  instance.stop();
  // Unreadable or not a number at start: a config error naming the key and the file.
  assert.throws(() => instance.start(config({ 'streams.file': join(dir, 'missing') })), (e) => e.kind === 'config' && e.message.includes('streams.file') && e.message.includes('missing'));
  writeFileSync(file, '0');
  assert.throws(() => instance.start(config({ 'streams.file': file })), (e) => e.kind === 'config' && e.message.includes(file));
});
