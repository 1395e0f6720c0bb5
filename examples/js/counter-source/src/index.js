// counter-source: counts 0, 1, 2, ... on `streams` source partitions
// ({"stream":"stream-0"} ... {"stream":"stream-<n-1>"}), `count` records
// each, as raw bytes or typed records, and resumes every stream after its
// last committed offset ({"seq":<n>}). With `streams.file` set, its running
// instance watches that file for the number of streams (dynamic
// reconfiguration). The behaviour is specified in examples/SPEC.md and
// checked by the conformance suite.

import { ConfigError, FatalError, RetriableError, Schema, collectProblems, defineSource, log, readOffsets } from 'copycat-sdk/source';
import { requestTaskReconfiguration } from 'copycat-sdk/dynamic';
import * as fs from 'copycat-sdk/fs';

/** The task-config key listing the stream indices assigned to a task. */
const ASSIGNED = 'counter.streams.assigned';

/** The typed value: `{stream, seq, even, note}`. */
const COUNT = Schema.struct('copycat.examples.Count')
  .field('stream', Schema.string())
  .field('seq', Schema.int64())
  .field('even', Schema.boolean())
  .field('note', Schema.string().optional());
const KEY = Schema.string();

const streamsOf = (config) => config.getInt('streams', 1, { min: 1 });
const countOf = (config) => config.getLong('count', 100n, { min: 0n });
const valueSizeOf = (config) => config.getInt('value.size', 0, { min: 0 });
const typedOf = (config) => config.getBoolean('typed', false);

// Config i gets the streams j with j % k == i, k = min(streams, maxTasks).
function spread(config, streams, maxTasks) {
  const k = Math.max(1, Math.min(streams, maxTasks));
  return Array.from({ length: k }, (_, i) => {
    const assigned = [];
    for (let j = i; j < streams; j += k) assigned.push(j);
    return config.with(ASSIGNED, assigned.join(','));
  });
}

/** The number of streams in `path`: a decimal integer >= 1. */
function readStreamsFile(path) {
  const text = fs.readTextFile(path).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`${path}: '${text}' is not a number of streams (an integer >= 1)`);
  return Number(text);
}

/** The running connector instance: watches `streams.file`. */
const watcher = {
  config: undefined,
  streams: 0,
  path: '',

  start(config) {
    this.config = config;
    this.streams = streamsOf(config);
    this.path = config.getString('streams.file', '');
    if (this.path === '') return false; // nothing to watch
    try {
      this.streams = readStreamsFile(this.path);
    } catch (e) {
      throw new ConfigError(`config 'streams.file': ${e.message}`, 'streams.file');
    }
    return true;
  },

  taskConfigs(maxTasks) {
    return spread(this.config.with('streams', this.streams), this.streams, maxTasks);
  },

  monitor() {
    let streams;
    try {
      streams = readStreamsFile(this.path);
    } catch (e) {
      throw new RetriableError(`streams.file: ${e.message}`);
    }
    if (streams !== this.streams) {
      log.info(`${this.path}: ${this.streams} -> ${streams} streams`);
      this.streams = streams;
      requestTaskReconfiguration();
    }
  },

  stop() {},
};

export const { connector, sourceTask, instance } = defineSource({
  name: 'counter-source',
  version: '0.1.0',
  description: 'Counts 0, 1, 2, ... on N streams into a Kafka topic',
  config: [
    { name: 'topic', type: 'string', required: true, importance: 'high', doc: 'Kafka topic' },
    { name: 'streams', type: 'int', default: 1, importance: 'high', doc: 'Streams = source partitions stream-0 ... stream-<n-1>' },
    { name: 'count', type: 'long', default: 100, importance: 'high', doc: 'Records per stream; 0 = unbounded' },
    { name: 'typed', type: 'boolean', default: false, doc: 'Typed records (a copycat.examples.Count struct) instead of raw bytes' },
    { name: 'value.size', type: 'int', default: 0, doc: "Raw bytes only: pad each value with '.' up to this many bytes" },
    { name: 'streams.file', type: 'string', default: '', doc: 'A file (granted with grants.fs.read) holding the number of streams; watched when set' },
  ],

  validate(config) {
    return collectProblems(
      () => streamsOf(config),
      () => countOf(config),
      () => valueSizeOf(config),
      () => typedOf(config),
      () => config.require('topic'),
    );
  },

  taskConfigs(config, maxTasks) {
    return spread(config, streamsOf(config), maxTasks);
  },

  start(config) {
    return new CounterTask(config);
  },

  dynamic: watcher,
});

class CounterTask {
  constructor(config) {
    config.require('topic');
    const streams = streamsOf(config);
    /** Records per stream (0 = unbounded), as a Number: sequence numbers stay far below 2^53. */
    this.count = Number(countOf(config));
    this.valueSize = valueSizeOf(config);
    this.typed = typedOf(config);
    /** pads[k]: k dots, to pad a value up to `value.size` (String.prototype.padEnd is slow in StarlingMonkey). */
    this.pads = Array.from({ length: this.valueSize + 1 }, (_, k) => '.'.repeat(k));

    const indices = config.has(ASSIGNED)
      ? config.getList(ASSIGNED).map((s) => {
          const j = /^\d+$/.test(s) ? Number(s) : NaN;
          if (!(j < streams)) throw new ConfigError(`config '${ASSIGNED}': bad stream '${s}'`, ASSIGNED);
          return j;
        })
      : Array.from({ length: streams }, (_, j) => j);

    /** Each stream: its name, source partition, key prefix and next sequence number. */
    this.streams = indices.map((j) => ({ name: `stream-${j}`, partition: { stream: `stream-${j}` }, prefix: `stream-${j}:`, next: 0, emitted: 0 }));
    const committed = readOffsets(this.streams.map((s) => s.partition));
    for (const s of this.streams) {
      const offset = committed.get(s.partition);
      if (offset === undefined) continue;
      if (!Number.isSafeInteger(offset?.seq) || offset.seq < 0) {
        throw new FatalError(`${s.name}: committed offset ${JSON.stringify(offset)} has no integer seq`);
      }
      s.next = offset.seq + 1;
    }
    // `emitted`: where each stream was at the end of the last poll.
    for (const s of this.streams) s.emitted = s.next;
    /** Index of the stream that emits next (round-robin). */
    this.cursor = 0;
    const resumed = this.streams.filter((s) => s.next > 0).length;
    log.info(`counter-source task started: ${this.streams.length} stream(s), ${resumed} resumed from committed offsets`);
  }

  // Round-robin over the streams that still have records, at most
  // maxRecords; stop after a full lap that emitted nothing (all done).
  poll(maxRecords, batch) {
    const streams = this.streams;
    const n = streams.length;
    const count = this.count;
    const size = this.valueSize;
    const pads = this.pads;
    const typed = this.typed;
    let emitted = 0;
    let idle = 0;
    let cursor = this.cursor;
    while (emitted < maxRecords && idle < n) {
      const s = streams[cursor];
      cursor = cursor + 1 === n ? 0 : cursor + 1;
      const seq = s.next;
      if (count > 0 && seq >= count) {
        idle++;
        continue;
      }
      idle = 0;
      s.next = seq + 1;
      emitted++;
      if (typed) {
        batch.add({
          partition: s.partition,
          offset: { seq },
          key: s.prefix + seq,
          keySchema: KEY,
          value: { stream: s.name, seq, even: seq % 2 === 0, note: seq % 2 === 0 ? `n${seq}` : null },
          valueSchema: COUNT,
        });
      } else {
        // The fast path: a raw key and value appended to the batch, no
        // record object (a template literal is the cheapest number-to-string
        // in StarlingMonkey's interpreter).
        const digits = `${seq}`;
        batch.append(s.prefix + digits, digits.length < size ? digits + pads[size - digits.length] : digits);
      }
    }
    this.cursor = cursor;
    // The positions of the batch: the last offset of each stream in it.
    if (!this.typed && emitted > 0) {
      for (const s of streams) if (s.emitted !== s.next) batch.position(s.partition, { seq: s.next - 1 });
    }
    for (const s of streams) s.emitted = s.next;
  }
}
