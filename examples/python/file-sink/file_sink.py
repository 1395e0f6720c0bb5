"""file-sink: appends record values to one file per topic partition and keeps
its own offsets next to them.

Each record's value (plus ``\\n``; a null value writes an empty line) is
appended to ``<directory>/<topic>-<partition>.txt``: raw bytes as they are,
a typed value as compact JSON. Every ``flush`` syncs
that file and then atomically replaces ``<topic>-<partition>.offset`` with
``"<next-offset> <file-length>"``. ``open`` reads that state back, cuts the
``.txt`` file to the flushed length (dropping lines written after the last
flush) and tells the host where to resume, so the sink carries on exactly
where its last flush left off even when the consumer group's offsets are
lost. A record whose value (raw bytes, or a typed string) starts with
``errant:`` is not written but reported through the errant record reporter (the dead letter queue), with
the rest of the value as the reason. (examples/SPEC.md defines this
behaviour for every language.)

The directory must be granted with ``grants.fs.write`` (a WASI preopen under
the same path): plain ``open``/``os`` calls work inside it.
"""

import os

from copycat_sdk import (
    ConfigKey,
    Connector,
    FatalError,
    PluginInfo,
    SinkTask,
    compact_json,
    errant,
    export_sink,
    io_error,
)

ERRANT = b"errant:"

DIRECTORY = ConfigKey.string(
    "directory",
    required=True,
    doc="Output directory; grant it with grants.fs.write",
)


def errant_reason(record):
    """The rest of a value starting with ``errant:`` (raw bytes or a typed
    string), or None for a value to write."""
    value = record.value
    if record.value_schema is None and isinstance(value, bytes) and value.startswith(ERRANT):
        return value[len(ERRANT):].decode("utf-8", "replace")
    if isinstance(value, str) and value.startswith(ERRANT.decode()):
        return value[len(ERRANT):]
    return None


def line_of(record):
    """A record's line: raw bytes as they are, a typed (or schemaless)
    value as compact JSON, a null value empty."""
    if record.value is None:
        return b""
    if record.value_schema is None:
        return record.value
    return compact_json(record.value).encode()


class FileSink(Connector):
    def describe(self):
        return PluginInfo(
            name="file-sink",
            version="0.1.0",
            description="Appends record values to <directory>/<topic>-<partition>.txt, "
            "keeping its own offsets in <topic>-<partition>.offset",
            config_def=[DIRECTORY],
        )

    # validate: the default reports a missing `directory`.

    def task_configs(self, config, max_tasks):
        # The consumer group spreads the topic partitions over the tasks.
        return [config] * max_tasks


class FileSinkTask(SinkTask):
    def start(self, config):
        self.directory = DIRECTORY.parse(config)  # ConfigError naming the key
        self.files = {}  # TopicPartition -> the .txt file, open for appending
        self.next = {}  # TopicPartition -> next offset, after the last record put
        self.dirty = set()  # partitions written since the last flush

    def path(self, tp, suffix):
        return os.path.join(self.directory, f"{tp.topic}-{tp.partition}{suffix}")

    def open(self, partitions):
        resume = {}
        for tp in partitions:
            self.release(tp)
            state = self.path(tp, ".offset")
            try:
                with open(state, "rb") as f:
                    text = f.read().decode("utf-8", "replace")
            except FileNotFoundError:
                continue  # never flushed: the group's committed offset applies
            except OSError as e:
                raise io_error(state, e) from e
            fields = text.split()  # "<next-offset> <file-length>"
            if len(fields) != 2 or not all(x.isascii() and x.isdigit() for x in fields):
                raise FatalError(f"{state}: expected '<next-offset> <file-length>', found {text!r}")
            next_offset, length = int(fields[0]), int(fields[1])
            self.truncate(self.path(tp, ".txt"), length)
            resume[tp] = next_offset
        return resume

    def truncate(self, txt, length):
        """Cut ``txt`` back to ``length`` bytes: lines after the last flush go."""
        try:
            with open(txt, "r+b") as f:
                size = f.seek(0, os.SEEK_END)
                if size < length:
                    raise FatalError(f"{txt}: {size} bytes, shorter than the {length} flushed")
                if size > length:
                    f.truncate(length)
                    os.fsync(f.fileno())
        except FileNotFoundError as e:
            if length:
                raise io_error(txt, e) from e
        except OSError as e:
            raise io_error(txt, e) from e

    def output(self, tp):
        """The ``.txt`` file of ``tp``, opened for appending on first use."""
        f = self.files.get(tp)
        if f is None:
            txt = self.path(tp, ".txt")
            try:
                f = self.files[tp] = open(txt, "ab")
            except OSError as e:
                raise io_error(txt, e) from e
        return f

    def put(self, records):
        for index, record in enumerate(records):
            tp = record.topic_partition
            reason = errant_reason(record)
            if reason is not None:
                # A record this sink cannot write goes to the errant record
                # reporter (the dead letter queue); it counts as handled.
                try:
                    errant.report(index, reason)
                except errant.ReportError as e:
                    raise FatalError(
                        f"the record at topic {record.topic} partition {record.partition} "
                        f"offset {record.offset} could not be reported errant: {e}"
                    ) from e
            else:
                f = self.output(tp)
                try:
                    f.write(line_of(record) + b"\n")
                except OSError as e:
                    raise io_error(f.name, e) from e
            self.next[tp] = record.offset + 1
            self.dirty.add(tp)

    def flush(self, offsets):
        for tp in sorted(self.dirty):
            f = self.output(tp)
            try:
                f.flush()
                os.fsync(f.fileno())
                length = os.fstat(f.fileno()).st_size
            except OSError as e:
                raise io_error(f.name, e) from e
            state = self.path(tp, ".offset")
            tmp = state + ".tmp"
            try:
                with open(tmp, "wb") as t:
                    t.write(f"{self.next[tp]} {length}".encode())
                    t.flush()
                    os.fsync(t.fileno())
                os.replace(tmp, state)
            except OSError as e:
                raise io_error(e.filename or state, e) from e
            self.dirty.discard(tp)

    def close(self, partitions):
        for tp in partitions:
            self.release(tp)

    def stop(self):
        for tp in list(self.files):
            self.release(tp)

    def release(self, tp):
        """Forget a partition: close its file, drop its offsets."""
        f = self.files.pop(tp, None)
        self.next.pop(tp, None)
        self.dirty.discard(tp)
        if f is not None:
            try:
                f.close()
            except OSError:
                pass  # unflushed lines are cut off by the next open anyway


Connector, SinkTask = export_sink(FileSink, FileSinkTask)
