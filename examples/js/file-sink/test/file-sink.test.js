// Unit tests under Node.js with the SDK's in-memory host and real files in a
// temporary directory: `npm test`.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, test } from 'node:test';
import { host } from 'copycat-sdk/testing';
import { connector, sinkTask } from '../src/index.js';

const bytes = (s) => new TextEncoder().encode(s);
const record = (partition, offset, value) => ({
  topic: 't',
  partition,
  offset: BigInt(offset),
  key: undefined,
  value: value === undefined ? undefined : bytes(value),
  headers: [],
  timestamp: undefined,
});

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
  sinkTask.put([record(0, 5, 'a'), record(0, 6, undefined), record(1, 9, 'b')]);
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
  sinkTask.put([record(0, 0, 'one'), record(0, 1, 'two')]);
  sinkTask.flush([]);
  sinkTask.put([record(0, 2, 'lost')]); // never flushed
  sinkTask.close([{ topic: 't', partition: 0 }]);
  sinkTask.stop();
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'one\ntwo\nlost\n');

  sinkTask.start([['directory', dir]]);
  const resumed = sinkTask.open([{ topic: 't', partition: 0 }, { topic: 't', partition: 3 }]);
  assert.deepEqual(resumed, [{ topic: 't', partition: 0, offset: 2n }]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'one\ntwo\n');
  sinkTask.put([record(0, 2, 'three')]);
  sinkTask.flush([]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'one\ntwo\nthree\n');
  assert.equal(readFileSync(join(dir, 't-0.offset'), 'utf8'), '3 14');
});

test('errant records are reported, not written; their offsets advance', () => {
  sinkTask.start([['directory', dir]]);
  sinkTask.put([record(0, 1, 'v1'), record(0, 2, 'errant:too odd'), record(0, 3, 'v3'), record(1, 7, 'errant:')]);
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
    () => sinkTask.put([record(0, 1, 'v1'), record(0, 2, 'errant:bad')]),
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
