// Unit tests under Node.js with the SDK's in-memory host: `npm test`
// (node --import ../../../guest-sdk/js/testing/register.mjs --test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTransformBatch, transformBatch } from 'copycat-sdk/testing';
import { Schema, Schemaless } from 'copycat-sdk/transform';
import { transformer } from '../src/index.js';

const bytes = (s) => new TextEncoder().encode(s);
const OPTIONAL_BYTES = Schema.bytes().optional();
const PERSON = Schema.struct('Person').field('name', Schema.string()).field('city', Schema.string().optional()).field('age', Schema.int32());

function apply(fields, records) {
  transformer.configure(fields === undefined ? [] : [['fields', fields]]);
  return readTransformBatch(transformer.apply(transformBatch(records)));
}

test('describe', () => {
  const info = transformer.describe();
  assert.deepEqual([info.name, info.version, info.description], [
    'uppercase-transform',
    '0.1.0',
    'Upper-cases string values, or the named string fields of a struct or map value',
  ]);
  assert.deepEqual(info.configDef.map((k) => [k.name, k.type, k.defaultValue]), [['fields', 'list', '']]);
});

test('validate and configure refuse empty field names', () => {
  assert.deepEqual(transformer.validate([['fields', 'a,b']]), []);
  assert.deepEqual(transformer.validate([['fields', '']]), []);
  assert.deepEqual(transformer.validate([]), []);
  assert.deepEqual(transformer.validate([['fields', 'a,,b, ,']]).map((p) => p.key), ['fields', 'fields', 'fields']);
  assert.throws(() => transformer.configure([['fields', 'a,,b']]), (e) => e.payload.tag === 'config' && e.payload.val.includes('fields'));
});

test('strings and bytes are upper-cased; records keep everything else, in order', () => {
  const out = apply(undefined, [
    { topic: 't', partition: 2, offset: 5n, timestamp: 9n, key: bytes('k'), keySchema: OPTIONAL_BYTES, value: bytes('abc-xyz ü'), valueSchema: OPTIONAL_BYTES, headers: [['h', bytes('v'), OPTIONAL_BYTES]] },
    { topic: 'u', partition: 0, offset: 6n, value: 'hello', valueSchema: Schema.string() },
    { topic: 'u', partition: 0, offset: 7n, value: null, valueSchema: OPTIONAL_BYTES },
    { topic: 'u', partition: 0, offset: 8n, value: 42, valueSchema: Schema.int32() },
  ]);
  assert.deepEqual(out.map((r) => r.origin), [0, 1, 2, 3]);
  assert.deepEqual(new TextDecoder().decode(out[0].value), 'ABC-XYZ ü');
  assert.equal(out[0].valueSchema.type, 'bytes');
  assert.deepEqual([out[0].topic, out[0].partition, out[0].offset, out[0].timestamp], ['t', 2, 5n, 9n]);
  assert.deepEqual(out[0].key, bytes('k'));
  assert.deepEqual(out[0].headers.map((h) => [h.key, h.value]), [['h', bytes('v')]]);
  assert.deepEqual(out.slice(1).map((r) => r.value), ['HELLO', null, 42]);
});

test('struct: the named string fields, or all of them', () => {
  const record = { topic: 't', value: { name: 'ada', city: 'london', age: 36 }, valueSchema: PERSON };
  assert.deepEqual(apply('name', [record])[0].value, { name: 'ADA', city: 'london', age: 36 });
  assert.deepEqual(apply('', [record])[0].value, { name: 'ADA', city: 'LONDON', age: 36 });
  assert.deepEqual(apply('age', [record])[0].value, { name: 'ada', city: 'london', age: 36 });
  assert.deepEqual(apply('city', [{ ...record, value: { name: 'x', city: null, age: 1 } }])[0].value, { name: 'x', city: null, age: 1 });
  assert.equal(apply('name', [record])[0].valueSchema.name, 'Person');
});

test('map with string keys: its string values under the named keys', () => {
  const out = apply('a,c', [
    { topic: 't', value: new Map([['a', 'x'], ['b', 'y'], ['c', null]]), valueSchema: Schema.map(Schema.string(), Schema.string().optional()) },
    { topic: 't', value: new Map([['a', 'x'], ['b', 'y'], ['c', 3n]]), valueSchema: Schemaless },
  ]);
  assert.deepEqual(out[0].value, new Map([['a', 'X'], ['b', 'y'], ['c', null]]));
  assert.deepEqual(out[1].value, new Map([['a', 'X'], ['b', 'y'], ['c', 3n]]));
});
