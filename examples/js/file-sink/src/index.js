// file-sink: appends each record's value and a newline to
// `<directory>/<topic>-<partition>.txt` and keeps its own offsets in
// `<directory>/<topic>-<partition>.offset` (`<next-offset> <file-length>`),
// so it resumes exactly where its last flush left off. A record whose value
// starts with `errant:` is not written but reported through the errant
// record reporter (the dead letter queue), the rest of the value as the
// reason. The behaviour is specified in examples/SPEC.md and checked by the
// conformance suite.
//
// The directory must be granted with `grants.fs.write` (a WASI preopen under
// the same path); files are reached through 'copycat-sdk/fs'.

import { ConfigError, FatalError, collectProblems, concatBytes, defineSink, errant } from 'copycat-sdk/sink';
import * as fs from 'copycat-sdk/fs';

const NEWLINE = new Uint8Array([0x0a]);
const ERRANT = new TextEncoder().encode('errant:');
const decoder = new TextDecoder();

/** The reason of an errant record (the value after `errant:`), or undefined. */
function errantReason(value) {
  if (!value || value.length < ERRANT.length || !ERRANT.every((b, i) => value[i] === b)) return undefined;
  return decoder.decode(value.subarray(ERRANT.length));
}

export const { connector, sinkTask } = defineSink({
  name: 'file-sink',
  version: '0.1.0',
  description: 'Appends record values as lines to <directory>/<topic>-<partition>.txt',
  config: [
    {
      name: 'directory',
      type: 'string',
      required: true,
      importance: 'high',
      doc: 'Output directory; grant it with grants.fs.write',
    },
  ],

  validate(config) {
    return collectProblems(() => config.require('directory'));
  },

  start(config) {
    const directory = config.require('directory').trim().replace(/(.)\/+$/, '$1');
    if (!fs.granted(directory)) {
      throw new ConfigError(`config 'directory': ${directory} is not granted; add it to grants.fs.write`, 'directory');
    }
    return new FileSinkTask(directory);
  },
});

/** One topic-partition's output file and progress. */
class Partition {
  constructor(directory, topic, partition) {
    const base = `${directory}/${topic}-${partition}`;
    this.txtPath = `${base}.txt`;
    this.offsetPath = `${base}.offset`;
    /** @type {fs.File | undefined} the .txt file, opened on first write */
    this.file = undefined;
    /** The next Kafka offset to read (BigInt), known after a put or from the state file. */
    this.next = undefined;
    /** Written since the last flush. */
    this.dirty = false;
  }

  output() {
    this.file ??= fs.open(this.txtPath, { append: true });
    return this.file;
  }

  close() {
    this.file?.close();
    this.file = undefined;
  }
}

class FileSinkTask {
  constructor(directory) {
    this.directory = directory;
    /** @type {Map<string, Partition>} by `<topic>-<partition>` */
    this.partitions = new Map();
  }

  partition(topic, partition) {
    const id = `${topic}-${partition}`;
    let p = this.partitions.get(id);
    if (!p) {
      p = new Partition(this.directory, topic, partition);
      this.partitions.set(id, p);
    }
    return p;
  }

  // For each partition with a state file: cut the .txt back to the length
  // recorded at the last flush and resume at the recorded offset.
  open(partitions) {
    const resume = [];
    for (const { topic, partition } of partitions) {
      const p = this.partition(topic, partition);
      p.close();
      p.dirty = false;
      if (!fs.exists(p.offsetPath)) continue;
      const state = fs.readTextFile(p.offsetPath).trim();
      const match = /^(\d+) (\d+)$/.exec(state);
      if (!match) throw new Error(`${p.offsetPath}: bad state '${state}', expected '<next-offset> <file-length>'`);
      const file = p.output();
      file.truncate(Number(match[2]));
      file.position = Number(match[2]);
      p.next = BigInt(match[1]);
      resume.push({ topic, partition, offset: p.next });
    }
    return resume;
  }

  put(records) {
    // One write per partition and batch: the values and newlines, in order.
    const batches = new Map();
    for (const [index, record] of records.entries()) {
      const p = this.partition(record.topic, record.partition);
      const reason = errantReason(record.value);
      if (reason !== undefined) {
        // A record this sink cannot write goes to the errant record reporter
        // (the dead letter queue); it counts as handled.
        try {
          errant.report(index, reason);
        } catch (e) {
          throw new FatalError(
            `the record at topic ${record.topic} partition ${record.partition} offset ${record.offset} could not be reported errant: ${e.message}`,
            { cause: e },
          );
        }
        p.next = record.offset + 1n;
        p.dirty = true;
        continue;
      }
      let chunks = batches.get(p);
      if (!chunks) batches.set(p, (chunks = []));
      if (record.value) chunks.push(record.value);
      chunks.push(NEWLINE);
      p.next = record.offset + 1n;
    }
    for (const [p, chunks] of batches) {
      p.output().append(concatBytes(chunks));
      p.dirty = true;
    }
  }

  // Sync each written .txt, then replace its state file atomically
  // (write .offset.tmp, sync, rename over .offset).
  flush() {
    for (const p of this.partitions.values()) {
      if (!p.dirty) continue;
      const file = p.output();
      file.sync();
      fs.writeFileAtomic(p.offsetPath, `${p.next} ${file.position}`);
      p.dirty = false;
    }
  }

  close(partitions) {
    for (const { topic, partition } of partitions) {
      const id = `${topic}-${partition}`;
      this.partitions.get(id)?.close();
      this.partitions.delete(id);
    }
  }

  stop() {
    for (const p of this.partitions.values()) p.close();
    this.partitions.clear();
  }
}
