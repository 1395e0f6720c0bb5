// {{name}}: a Copycat sink connector written in JavaScript.
//
// It appends each record's value and a newline to
// `<directory>/<topic>-<partition>.txt`. Records are buffered by `put` and
// written and synced by `flush`: only then does the host commit the consumer
// group's offsets. Replace the file writes with writes to your system.
//
// Run it with `grants.fs.write=<directory>` in the connector config: a
// connector sees only the directories the operator grants.
//
// Build: ./build.sh (-> {{name}}.wasm). Docs: $COPYCAT_HOME/docs/authoring/js.md

import { ConfigError, collectProblems, concatBytes, defineSink, log } from 'copycat-sdk/sink';
import * as fs from 'copycat-sdk/fs';

export const { connector, sinkTask } = defineSink({
  name: '{{name}}',
  version: '0.1.0',
  description: 'Appends record values as lines to <directory>/<topic>-<partition>.txt',
  config: [
    { name: 'directory', type: 'string', required: true, importance: 'high', doc: 'Output directory (grant it with grants.fs.write)' },
  ],

  validate(config) {
    return collectProblems(() => config.require('directory'));
  },

  // Tasks default to tasks.max copies of the config: the consumer group
  // spreads the topic partitions over them.

  start(config) {
    const directory = config.require('directory').trim();
    if (!fs.granted(directory)) {
      throw new ConfigError(`config 'directory': ${directory} is not granted; add it to grants.fs.write`, 'directory');
    }
    /** Lines waiting for the next flush, by output file. */
    const pending = new Map();
    log.info(`{{name}} task writing to ${directory}`);

    return {
      put(records) {
        for (const r of records) {
          const path = `${directory}/${r.topic}-${r.partition}.txt`;
          if (!pending.has(path)) pending.set(path, []);
          pending.get(path).push(r.value ?? '', '\n');
        }
      },

      // Throwing here (an FsError becomes a `fatal` error naming the file)
      // makes the host deliver the records again; nothing is committed.
      flush() {
        for (const [path, chunks] of pending) {
          const file = fs.open(path, { append: true });
          try {
            file.append(concatBytes(chunks));
            file.sync();
          } finally {
            file.close();
          }
          pending.delete(path);
        }
      },
    };
  },
});
