// Unit tests under Node.js, with the SDK's in-memory host standing in for
// Copycat: `npm test` (no build needed). The exported objects take and
// return what the host passes through the WIT: configs as [key, value]
// pairs, records with Uint8Array keys and values.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { host } from 'copycat-sdk/testing';
import { connector, sourceTask } from '../src/index.js';

beforeEach(() => host.reset());

test('a bad config is reported per key', () => {
  assert.deepEqual(connector.validate([['topic', 't'], ['streams', '0']]).map((p) => p.key), ['streams']);
});

test('resumes after the committed offset', () => {
  host.offsets.set('stream-0', '41');
  sourceTask.start([['topic', 't'], ['count', '0']]);
  const [record] = sourceTask.poll(1);
  assert.equal(record.sourceOffset, '42');
  assert.equal(new TextDecoder().decode(record.key), 'stream-0:42');
});
