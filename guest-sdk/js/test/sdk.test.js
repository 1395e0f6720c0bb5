// The SDK's own tests, under Node.js with the in-memory host:
//   node --import ./testing/register.mjs --test   (from guest-sdk/js/)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, test } from 'node:test';
import { host } from 'copycat-sdk/testing';
import { Config, ConfigError, RetriableError, collectProblems, defineSource } from 'copycat-sdk/source';
import { ReportError, defineSink, errant } from 'copycat-sdk/sink';
import { sinkBatch } from 'copycat-sdk/testing';
import * as fs from 'copycat-sdk/fs';

beforeEach(() => host.reset());

test('Config getters: defaults, trimming, per-key errors', () => {
  const c = new Config([['a', ' 42 '], ['b', ''], ['l', ' x, ,y '], ['big', '9223372036854775807'], ['t', 'TRUE']]);
  assert.equal(c.getInt('a', 1), 42);
  assert.equal(c.getInt('b', 7), 7);
  assert.equal(c.getInt('missing', 3), 3);
  assert.equal(c.getLong('big'), 9223372036854775807n);
  assert.equal(c.getBoolean('t'), true);
  assert.deepEqual(c.getList('l'), ['x', 'y']);
  assert.throws(() => c.getInt('big'), (e) => e instanceof ConfigError && e.key === 'big');
  assert.throws(() => c.getInt('a', 0, { max: 10 }), /must be at most 10, got 42/);
  assert.throws(() => c.require('b'), /config 'b' is required but is empty/);
  assert.throws(() => c.require('zz'), /config 'zz' is required but is not set/);
  assert.deepEqual(c.with('a', 1).toObject().a, '1');
  assert.equal(c.get('a'), ' 42 ');
});

test('collectProblems keeps the key of each ConfigError', () => {
  const c = new Config({ n: 'x' });
  assert.deepEqual(collectProblems(() => c.getInt('n'), () => c.require('m'), () => 1), [
    { key: 'n', message: "config 'n': invalid value 'x': not an integer" },
    { key: 'm', message: "config 'm' is required but is not set" },
  ]);
});

test('errors become connector-error variants, never traps', () => {
  let mode = 'type';
  const { sourceTask, connector } = defineSource({
    name: 'x',
    version: '1',
    validate() {
      throw new Error('boom');
    },
    start: () => ({
      poll() {
        if (mode === 'type') return null.x;
        if (mode === 'retry') throw new RetriableError('later');
        return [{ partition: { p: 1 }, offset: { n: 1 } }, { partition: { p: 1 }, offset: { n: 2 } }];
      },
    }),
  });
  assert.throws(() => sourceTask.poll(1), (e) => e.payload.tag === 'fatal' && e.payload.val === 'task not started');
  sourceTask.start([]);
  assert.throws(() => sourceTask.poll(1), (e) => e.payload.tag === 'fatal' && e.payload.val.startsWith('TypeError'));
  mode = 'retry';
  assert.throws(() => sourceTask.poll(1), (e) => e.payload.tag === 'retriable' && e.payload.val === 'later');
  mode = 'many';
  assert.throws(() => sourceTask.poll(1), /more than maxRecords=1/);
  assert.deepEqual(connector.validate([]), [{ key: '', message: 'boom' }]);
});

test('sink defaults: tasks.max copies; open offsets become BigInt', () => {
  const { connector, sinkTask } = defineSink({
    name: 's',
    version: '1',
    start: () => ({ put() {}, open: (tps) => tps.map((tp) => ({ ...tp, offset: 4 })) }),
  });
  assert.equal(connector.taskConfigs([['a', 'b']], 3).length, 3);
  sinkTask.start([]);
  assert.deepEqual(sinkTask.open([{ topic: 't', partition: 1 }]), [{ topic: 't', partition: 1, offset: 4n }]);
});

test('errant.report: kept by the test host; report errors are typed', () => {
  errant.report(2, 'bad value');
  errant.report(0, 'x');
  assert.deepEqual(host.reported, [{ index: 2, reason: 'bad value' }, { index: 0, reason: 'x' }]);
  assert.throws(() => errant.report(-1, 'r'), (e) => e instanceof ReportError && e.kind === 'no-such-record');
  assert.throws(() => errant.report(1.5, 'r'), (e) => e instanceof ReportError && e.kind === 'no-such-record');
  for (const [error, kind, text] of [
    ['unavailable', 'unavailable', 'neither errors.deadletterqueue.topic.name nor errors.log.enable'],
    ['tolerance-exceeded', 'tolerance-exceeded', 'errors.tolerance=none'],
    [{ tag: 'no-such-record', val: 'record 9 of 3' }, 'no-such-record', 'no such record: record 9 of 3'],
  ]) {
    host.reportError = error;
    assert.throws(
      () => errant.report(0, 'r'),
      (e) => e instanceof ReportError && e.kind === kind && e.message.includes(text),
    );
  }
  assert.equal(host.reported.length, 2);

  // Unhandled in put: fatal with the ReportError's message.
  const { sinkTask } = defineSink({
    name: 'x',
    version: '1',
    start: () => ({ put: () => errant.report(0, 'r') }),
  });
  sinkTask.start([]);
  host.reportError = 'unavailable';
  assert.throws(
    () => sinkTask.put(sinkBatch([{ value: 'v' }])),
    (e) => e.payload.tag === 'fatal' && e.payload.val.startsWith('no errant record reporter'),
  );
});

test('fs: granted directories only, errors name the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-fs-'));
  assert.equal(fs.granted(dir), false);
  assert.throws(() => fs.readFile(`${dir}/a`), (e) => e.code === 'not-granted' && e.message.startsWith(`${dir}/a:`));
  host.grant(dir);
  assert.equal(fs.granted(`${dir}/sub/../a`), true);
  assert.equal(fs.granted(`${dir}/../elsewhere`), false);
  assert.throws(() => fs.readFile(`${dir}/a`), (e) => e.code === 'no-entry' && e.message.includes('no such file'));
  const f = fs.open(`${dir}/a`, { append: true });
  f.append('hello ');
  f.append(new TextEncoder().encode('world'));
  f.truncate(5);
  f.append('!');
  f.sync();
  f.close();
  assert.equal(fs.readTextFile(`${dir}/a`), 'hello!');
  fs.writeFileAtomic(`${dir}/s`, '1 2');
  assert.equal(readFileSync(`${dir}/s`, 'utf8'), '1 2');
  fs.mkdir(`${dir}/d`);
  assert.deepEqual(fs.readDir(dir), ['a', 'd', 's']);
  assert.deepEqual(fs.stat(`${dir}/a`), { type: 'regular-file', size: 6 });
  fs.rename(`${dir}/a`, `${dir}/d/b`);
  fs.remove(`${dir}/d/b`);
  assert.equal(fs.exists(`${dir}/d/b`), false);
});
