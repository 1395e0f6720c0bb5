// Unit tests under Node.js, with the SDK's in-memory host standing in for
// Copycat and real files in a temporary directory: `npm test`.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, test } from 'node:test';
import { host } from 'copycat-sdk/testing';
import { sinkTask } from '../src/index.js';

let dir;
beforeEach(() => {
  host.reset();
  dir = mkdtempSync(join(tmpdir(), '{{name}}-'));
  host.grant(dir); // as grants.fs.write=<dir>
});

test('flush writes the lines of each partition', () => {
  sinkTask.start([['directory', dir]]);
  const value = (s) => new TextEncoder().encode(s);
  sinkTask.put([
    { topic: 't', partition: 0, offset: 0n, value: value('a'), headers: [] },
    { topic: 't', partition: 0, offset: 1n, value: undefined, headers: [] },
  ]);
  sinkTask.flush([]);
  assert.equal(readFileSync(join(dir, 't-0.txt'), 'utf8'), 'a\n\n');
});
