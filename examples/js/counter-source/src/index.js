// counter-source: counts 0, 1, 2, ... on `streams` source partitions
// (`stream-0` ... `stream-<n-1>`), `count` records each, and resumes every
// stream after its last committed offset. The behaviour is specified in
// examples/SPEC.md and checked by the conformance suite.

import { ConfigError, FatalError, collectProblems, defineSource, log, readOffsets } from 'copycat-sdk/source';

/** The task-config key listing the stream indices assigned to a task. */
const ASSIGNED = 'counter.streams.assigned';

const streamsOf = (config) => config.getInt('streams', 1, { min: 1 });
const countOf = (config) => config.getLong('count', 100n, { min: 0n });

export const { connector, sourceTask } = defineSource({
  name: 'counter-source',
  version: '0.1.0',
  description: 'Counts 0, 1, 2, ... on N streams into a Kafka topic',
  config: [
    { name: 'topic', type: 'string', required: true, importance: 'high', doc: 'Kafka topic' },
    {
      name: 'streams',
      type: 'int',
      default: 1,
      importance: 'high',
      doc: 'Streams = source partitions stream-0 ... stream-<n-1>',
    },
    { name: 'count', type: 'long', default: 100, importance: 'high', doc: 'Records per stream; 0 = unbounded' },
  ],

  validate(config) {
    return collectProblems(
      () => streamsOf(config),
      () => countOf(config),
      () => config.require('topic'),
    );
  },

  // Config i gets the streams j with j % k == i, k = min(streams, maxTasks).
  taskConfigs(config, maxTasks) {
    const k = Math.min(streamsOf(config), maxTasks);
    return Array.from({ length: k }, (_, i) => {
      const assigned = [];
      for (let j = i; j < streamsOf(config); j += k) assigned.push(j);
      return config.with(ASSIGNED, assigned.join(','));
    });
  },

  start(config) {
    return new CounterTask(config);
  },
});

class CounterTask {
  constructor(config) {
    config.require('topic');
    const streams = streamsOf(config);
    /** Records per stream (a BigInt: the key is a `long`); 0n = unbounded. */
    this.count = countOf(config);

    const indices = config.has(ASSIGNED)
      ? config.getList(ASSIGNED).map((s) => {
          const j = /^\d+$/.test(s) ? Number(s) : NaN;
          if (!(j < streams)) throw new ConfigError(`config '${ASSIGNED}': bad stream '${s}'`, ASSIGNED);
          return j;
        })
      : Array.from({ length: streams }, (_, j) => j);

    const partitions = indices.map((j) => `stream-${j}`);
    const committed = readOffsets(partitions);
    /** Each stream: its source partition and the next sequence number (BigInt). */
    this.streams = partitions.map((partition) => {
      const last = committed.get(partition);
      if (last === undefined) return { partition, next: 0n };
      if (!/^\d+$/.test(last.trim())) {
        throw new FatalError(`committed offset '${last}' of ${partition} is not a sequence number`);
      }
      return { partition, next: BigInt(last.trim()) + 1n };
    });
    /** Index into `streams` of the stream that emits next (round-robin). */
    this.cursor = 0;
    const resumed = this.streams.filter((s) => s.next > 0n).length;
    log.info(`counter-source task started: ${this.streams.length} stream(s), ${resumed} resumed from committed offsets`);
  }

  done(stream) {
    return this.count > 0n && stream.next >= this.count;
  }

  poll(maxRecords) {
    const records = [];
    const n = this.streams.length;
    // Round-robin over the streams that still have records; stop after a
    // full lap that emitted nothing (every stream done).
    let idle = 0;
    while (records.length < maxRecords && idle < n) {
      const stream = this.streams[this.cursor];
      this.cursor = (this.cursor + 1) % n;
      if (this.done(stream)) {
        idle++;
        continue;
      }
      idle = 0;
      const seq = stream.next++;
      records.push({ partition: stream.partition, offset: seq, key: `${stream.partition}:${seq}`, value: `${seq}` });
    }
    return records;
  }
}
