// {{name}}: a Copycat source connector written in JavaScript.
//
// It counts 0, 1, 2, ... on `streams` source partitions (`stream-0` ...),
// `count` records each (0 = forever), and resumes every stream after its last
// committed offset. Replace the counting with reads from your system.
//
// Build: ./build.sh (-> {{name}}.wasm). Docs: $COPYCAT_HOME/docs/authoring/js.md

import { ConfigError, FatalError, collectProblems, defineSource, log, readOffsets } from 'copycat-sdk/source';

/** The task-config key listing the streams assigned to a task. */
const ASSIGNED = '{{name}}.streams.assigned';

const streamsOf = (config) => config.getInt('streams', 1, { min: 1 });
const countOf = (config) => config.getLong('count', 100n, { min: 0n });

export const { connector, sourceTask } = defineSource({
  name: '{{name}}',
  version: '0.1.0',
  description: 'Counts 0, 1, 2, ... on N streams into a Kafka topic',
  config: [
    { name: 'topic', type: 'string', required: true, importance: 'high', doc: 'Kafka topic' },
    { name: 'streams', type: 'int', default: 1, doc: 'Source partitions stream-0 ... stream-<n-1>' },
    { name: 'count', type: 'long', default: 100, doc: 'Records per stream; 0 = unbounded' },
  ],

  // One problem per bad key (the host already checked required keys and types).
  validate(config) {
    return collectProblems(
      () => streamsOf(config),
      () => countOf(config),
    );
  },

  // Spread the streams over at most maxTasks tasks: task i gets j % k == i.
  taskConfigs(config, maxTasks) {
    const streams = streamsOf(config);
    const k = Math.min(streams, maxTasks);
    return Array.from({ length: k }, (_, i) => {
      const assigned = [];
      for (let j = i; j < streams; j += k) assigned.push(j);
      return config.with(ASSIGNED, assigned.join(','));
    });
  },

  // Runs in the task's own instance; throw ConfigError for a bad config.
  start(config) {
    config.require('topic');
    const streams = streamsOf(config);
    const count = countOf(config);
    const indices = config.has(ASSIGNED)
      ? config.getList(ASSIGNED).map((s) => {
          if (!/^\d+$/.test(s) || Number(s) >= streams) {
            throw new ConfigError(`config '${ASSIGNED}': bad stream '${s}'`, ASSIGNED);
          }
          return Number(s);
        })
      : Array.from({ length: streams }, (_, j) => j);

    // Resume each stream after its last committed offset.
    const partitions = indices.map((j) => `stream-${j}`);
    const committed = readOffsets(partitions);
    const state = partitions.map((partition) => {
      const last = committed.get(partition);
      if (last !== undefined && !/^\d+$/.test(last)) throw new FatalError(`bad committed offset '${last}' of ${partition}`);
      return { partition, next: last === undefined ? 0n : BigInt(last) + 1n };
    });
    log.info(`{{name}} task started with ${state.length} stream(s)`);

    let cursor = 0;
    return {
      // At most maxRecords records, round-robin over the streams; [] when
      // there is nothing (the host calls again after a short back-off).
      poll(maxRecords) {
        const records = [];
        for (let idle = 0; records.length < maxRecords && idle < state.length; ) {
          const s = state[cursor];
          cursor = (cursor + 1) % state.length;
          if (count > 0n && s.next >= count) {
            idle++;
            continue;
          }
          idle = 0;
          const seq = s.next++;
          records.push({ partition: s.partition, offset: seq, key: `${s.partition}:${seq}`, value: `${seq}` });
        }
        return records;
      },
    };
  },
});
