// file-sink: appends one line per record to
// `<directory>/<topic>-<partition>.txt` (raw bytes as they are, a typed
// value as compact JSON, a tombstone as an empty line) and keeps its own
// offsets in `<directory>/<topic>-<partition>.offset` (`<next-offset>
// <file-length>`), so it resumes exactly where its last flush left off. A
// record whose value starts with `errant:` is not written but reported
// through the errant record reporter (the dead letter queue), the rest of
// the value as the reason. The behaviour is specified in examples/SPEC.md
// and checked by the conformance suite.
//
// The directory must be granted with `grants.fs.write` (a WASI preopen under
// the same path); files are reached through 'copycat-sdk/fs'.

import { ConfigError, Decimal, FatalError, collectProblems, concatBytes, defineSink, errant } from 'copycat-sdk/sink';
import * as fs from 'copycat-sdk/fs';

const NEWLINE = new Uint8Array([0x0a]);
const ERRANT = 'errant:';
const ERRANT_BYTES = new TextEncoder().encode(ERRANT);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The reason of an errant record (the value after `errant:`), or undefined. */
function errantReason(value) {
  if (typeof value === 'string') return value.startsWith(ERRANT) ? value.slice(ERRANT.length) : undefined;
  if (!(value instanceof Uint8Array) || value.length < ERRANT_BYTES.length) return undefined;
  for (let i = 0; i < ERRANT_BYTES.length; i++) if (value[i] !== ERRANT_BYTES[i]) return undefined;
  return decoder.decode(value.subarray(ERRANT_BYTES.length));
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding. */
function base64(bytes) {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += BASE64[n >> 18] + BASE64[(n >> 12) & 63] + BASE64[(n >> 6) & 63] + BASE64[n & 63];
  }
  if (i + 1 === bytes.length) {
    const n = bytes[i] << 16;
    out += `${BASE64[n >> 18]}${BASE64[(n >> 12) & 63]}==`;
  } else if (i + 2 === bytes.length) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += `${BASE64[n >> 18]}${BASE64[(n >> 12) & 63]}${BASE64[(n >> 6) & 63]}=`;
  }
  return out;
}

/**
 * A typed value (as the SDK decodes it) as compact JSON: a struct (a plain
 * object, fields in schema order) or a map (a Map) as an object, an array
 * as an array, bytes and Decimals as base64, int64 (a BigInt) as a number.
 */
export function toJson(value) {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      break;
  }
  if (value instanceof Uint8Array) return JSON.stringify(base64(value));
  if (value instanceof Decimal) return JSON.stringify(base64(value.toBytes()));
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value instanceof Map) {
    const parts = [];
    for (const [k, v] of value) parts.push(`${JSON.stringify(typeof k === 'string' ? k : toJson(k))}:${toJson(v)}`);
    return `{${parts.join(',')}}`;
  }
  return `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
    .join(',')}}`;
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
      if (!match) throw new FatalError(`${p.offsetPath}: bad state '${state}', expected '<next-offset> <file-length>'`);
      const file = p.output();
      file.truncate(Number(match[2]));
      file.position = Number(match[2]);
      p.next = BigInt(match[1]);
      resume.push({ topic, partition, offset: p.next });
    }
    return resume;
  }

  put(batch) {
    // One write per partition and batch: the lines, in order.
    const chunks = new Map();
    for (let i = 0; i < batch.length; i++) {
      const record = batch.get(i);
      const p = this.partition(record.topic, record.partition);
      p.next = record.offset + 1n;
      p.dirty = true;
      const reason = errantReason(record.value);
      if (reason !== undefined) {
        // A record this sink cannot write goes to the errant record reporter
        // (the dead letter queue); it counts as handled.
        try {
          errant.report(i, reason);
        } catch (e) {
          throw new FatalError(
            `the record at topic ${record.topic} partition ${record.partition} offset ${record.offset} could not be reported errant: ${e.message}`,
            { cause: e },
          );
        }
        continue;
      }
      let lines = chunks.get(p);
      if (!lines) chunks.set(p, (lines = []));
      if (record.value === null) {
        // A tombstone: an empty line.
      } else if (record.valueSchema === undefined) lines.push(record.value); // raw bytes
      else lines.push(encoder.encode(toJson(record.value)));
      lines.push(NEWLINE);
    }
    for (const [p, lines] of chunks) p.output().append(concatBytes(lines));
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
