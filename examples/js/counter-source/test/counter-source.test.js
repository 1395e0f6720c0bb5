// Unit tests under Node.js with the SDK's in-memory host: `npm test`
// (node --import ../../../guest-sdk/js/testing/register.mjs --test).
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { host } from 'copycat-sdk/testing';
import { connector, sourceTask } from '../src/index.js';

const text = (bytes) => new TextDecoder().decode(bytes);
const config = (pairs) => Object.entries({ topic: 't', ...pairs });

beforeEach(() => host.reset());

test('describe declares topic, streams and count', () => {
  const info = connector.describe();
  assert.equal(info.name, 'counter-source');
  assert.equal(info.kind, 'source');
  assert.deepEqual(
    info.configDef.map((k) => [k.name, k.type, k.defaultValue, k.required]),
    [
      ['topic', 'string', undefined, true],
      ['streams', 'int', '1', false],
      ['count', 'long', '100', false],
    ],
  );
});

test('validate: one problem per bad key', () => {
  assert.deepEqual(connector.validate(config({})), []);
  const problems = connector.validate([['streams', '0'], ['count', '-5']]);
  assert.deepEqual(problems.map((p) => p.key), ['streams', 'count', 'topic']);
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

test('records round-robin, bounded by count, keyed stream-j:seq', () => {
  sourceTask.start(config({ streams: '2', count: '2' }));
  const records = sourceTask.poll(10);
  assert.deepEqual(
    records.map((r) => [r.sourcePartition, r.sourceOffset, text(r.key), text(r.value)]),
    [
      ['stream-0', '0', 'stream-0:0', '0'],
      ['stream-1', '0', 'stream-1:0', '0'],
      ['stream-0', '1', 'stream-0:1', '1'],
      ['stream-1', '1', 'stream-1:1', '1'],
    ],
  );
  assert.equal(records[0].topic, undefined);
  assert.equal(records[0].partition, undefined);
  assert.equal(records[0].timestamp, undefined);
  assert.deepEqual(records[0].headers, []);
  assert.deepEqual(sourceTask.poll(10), []);
});

test('poll returns at most maxRecords', () => {
  sourceTask.start(config({ streams: '3', count: '0' }));
  assert.equal(sourceTask.poll(7).length, 7);
  assert.equal(sourceTask.poll(0).length, 0);
});

test('start resumes after the committed offsets of its streams', () => {
  host.offsets.set('stream-1', '41');
  host.offsets.set('stream-0', '7'); // not assigned to this task
  sourceTask.start(config({ streams: '2', count: '43', 'counter.streams.assigned': '1' }));
  assert.deepEqual(sourceTask.poll(5).map((r) => r.sourceOffset), ['42']);
});

test('a bad config at start is a config error naming the key', () => {
  for (const [pairs, key] of [
    [[['streams', '1']], 'topic'],
    [config({ streams: 'abc' }), 'streams'],
    [config({ count: '-1' }), 'count'],
    [config({ streams: '2', 'counter.streams.assigned': '0,5' }), 'counter.streams.assigned'],
  ]) {
    assert.throws(() => sourceTask.start(pairs), (e) => e.kind === 'config' && e.message.includes(key));
  }
});
