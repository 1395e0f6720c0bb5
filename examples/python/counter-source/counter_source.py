"""counter-source: counts upwards on N streams into a Kafka topic.

Stream ``j`` is the source partition ``{"stream": "stream-<j>"}``; its
records carry the source offset ``{"seq": <seq>}``, for ``seq`` from 0 to
``count - 1`` (``count=0``: forever), and a restarted task resumes after
the last committed offset of each of its streams. Records are raw bytes
(key ``stream-<j>:<seq>``, value ``<seq>`` padded with ``.`` up to
``value.size`` bytes) or, with ``typed=true``, a string key and a
``copycat.examples.Count`` struct value. With ``streams.file`` set, the
connector's running instance watches that file for the number of streams
and asks the host to re-plan its tasks when it changes.
(examples/SPEC.md defines this behaviour for every language.)
"""

import re
from dataclasses import dataclass
from typing import Optional

from copycat_sdk import (
    STRING,
    ConfigError,
    ConfigKey,
    Connector,
    DynamicConnector,
    FatalError,
    PluginInfo,
    RetriableError,
    SourceBatch,
    SourceTask,
    connect_schema,
    dynamic,
    export_source,
    log,
    parse,
    schema_of,
)

TOPIC = ConfigKey.string("topic", required=True, doc="Kafka topic")
STREAMS = ConfigKey.int(
    "streams", default=1, min=1, doc="Streams = source partitions {\"stream\":\"stream-0\"} ... stream-<n-1>"
)
COUNT = ConfigKey.long("count", default=100, min=0, doc="Records per stream; 0 = unbounded")
TYPED = ConfigKey.boolean("typed", default=False, doc="Typed records (a copycat.examples.Count struct) instead of raw bytes")
VALUE_SIZE = ConfigKey.int(
    "value.size", default=0, min=0, doc="Raw bytes only: pad each value with '.' up to this many bytes"
)
STREAMS_FILE = ConfigKey.string(
    "streams.file",
    default="",
    doc="A file (granted with grants.fs.read) holding the number of streams; watched when set",
)
KEYS = [TOPIC, STREAMS, COUNT, TYPED, VALUE_SIZE, STREAMS_FILE]

#: Set by task_configs: the comma-separated stream indices of one task.
ASSIGNED = "counter.streams.assigned"


@connect_schema(name="copycat.examples.Count")
@dataclass
class Count:
    """The typed value: struct copycat.examples.Count."""

    stream: str
    seq: int  # int64
    even: bool
    note: Optional[str]  # "n<seq>" when seq is even, null when odd


COUNT_SCHEMA = schema_of(Count)


def task_configs(config, streams, max_tasks):
    """Config i of k = min(streams, max_tasks): the streams j with j % k == i."""
    k = min(streams, max_tasks)
    return [config | {ASSIGNED: ",".join(str(j) for j in range(streams) if j % k == i)} for i in range(k)]


class CounterSource(Connector):
    def describe(self):
        return PluginInfo(
            name="counter-source",
            version="0.1.0",
            description="Counts upwards on N streams into a Kafka topic",
            config_def=KEYS,
        )

    # validate: the default checks every declared key (one problem per key).

    def task_configs(self, config, max_tasks):
        return task_configs(config, STREAMS.parse(config), max_tasks)


class CounterTask(SourceTask):
    def start(self, config):
        settings = parse(config, KEYS)  # ConfigError naming the first bad key
        self.count = settings["count"]
        self.typed = settings["typed"]
        self.size = settings["value.size"]
        if ASSIGNED in config:
            try:
                streams = [int(j) for j in config.get_list(ASSIGNED)]
            except ValueError:
                raise ConfigError(
                    f"config '{ASSIGNED}': invalid value {config[ASSIGNED]!r}: not a list of integers",
                    ASSIGNED,
                ) from None
        else:
            streams = list(range(settings["streams"]))

        partitions = [{"stream": f"stream-{j}"} for j in streams]
        committed = self.read_offsets(partitions)
        # One [name, next seq, partition] per stream, in round-robin order.
        self.streams = []
        for partition, offset in zip(partitions, committed):
            name = partition["stream"]
            if offset is None:
                nxt = 0
            else:
                seq = offset.get("seq")
                if type(seq) is not int:
                    raise FatalError(f"{name}: committed offset {offset!r} has no integer 'seq'")
                nxt = seq + 1
            self.streams.append([name, nxt, partition])
        self.cursor = 0
        log.info(f"counting on streams {streams} from {[s[1] for s in self.streams]}")

    def poll(self, max_records):
        count = self.count
        active = [s for s in self.streams if count == 0 or s[1] < count]
        batch = SourceBatch()
        n = 0
        size = self.size
        typed = self.typed
        while active and n < max_records:
            self.cursor %= len(active)
            stream = active[self.cursor]
            name, seq, _ = stream
            # As many records of this stream as fit before the next stream's
            # turn: one, unless it is the only stream left.
            take = 1 if len(active) > 1 else max_records - n
            if count:
                take = min(take, count - seq)
            end = seq + take
            if typed:
                for s in range(seq, end):
                    even = s % 2 == 0
                    batch.add(
                        f"{name}:{s}",
                        Count(name, s, even, f"n{s}" if even else None),
                        key_schema=STRING,
                        value_schema=COUNT_SCHEMA,
                    )
            else:
                batch.extend_packed(*raw_records(name, seq, end, size))
            n += take
            stream[1] = end
            batch.advance(stream[2], {"seq": end - 1})
            if count and end >= count:
                del active[self.cursor]  # the next stream moves into this slot
            else:
                self.cursor += 1
        return batch


def raw_records(name, start, end, size):
    """The raw records of stream ``name`` from seq ``start`` to ``end - 1``,
    packed for :meth:`SourceBatch.extend_packed`: the text of every key
    (``<name>:<seq>``) and value (``<seq>`` padded with ``.`` to ``size``)
    back to back, and their lengths.

    The fast path: no Python code runs per record. A seq is written as its
    tens (``str(seq // 10)``, one ``str`` per ten records, shared by the
    ten) and its last digit, and one ``join`` builds the text from those
    shared pieces; seqs of the same number of digits share their lengths
    and padding. (``simple_raw_records`` below is the same, plainly: the
    tests check that they agree.)
    """
    n = end - start
    if n <= 0:
        return b"", [], []
    first, last = start // 10, (end - 1) // 10
    # As bytes, so that the join makes the batch's bytes: one encode for all.
    tens = "\n".join(map(str, range(first, last + 1))).encode().split(b"\n")
    if first == 0:
        tens[0] = b""  # 0..9 have no tens digit
    heads = [b""] * n
    for i in range(min(10, n)):  # records i, i + 10, ... have consecutive tens
        k = (start + i) // 10 - first
        heads[i::10] = tens[k : k + len(range(i, n, 10))]
    digits = DIGITS[start % 10 :] + DIGITS[: start % 10]
    tails = (digits * (n // 10 + 1))[:n]
    dots = b"." * size
    pads, key_lengths, value_lengths = [], [], []
    seq = start
    while seq < end:  # one run of seqs per number of digits
        width = len(str(seq))
        upto = min(end, 10**width)
        run = upto - seq
        pads += [dots[width:]] * run
        key_lengths += [len(name) + 1 + width] * run
        value_lengths += [max(width, size)] * run
        seq = upto
    pieces = [b""] * (6 * n)
    pieces[0::6] = [name.encode() + b":"] * n
    pieces[1::6] = heads
    pieces[2::6] = tails
    pieces[3::6] = heads
    pieces[4::6] = tails
    pieces[5::6] = pads
    return b"".join(pieces), key_lengths, value_lengths


DIGITS = [str(d).encode() for d in range(10)]


def simple_raw_records(name, start, end, size):
    """What :func:`raw_records` returns, one record at a time."""
    keys = [f"{name}:{seq}" for seq in range(start, end)]
    values = [str(seq).ljust(size, ".") for seq in range(start, end)]
    data = "".join(k + v for k, v in zip(keys, values)).encode()
    return data, [len(k) for k in keys], [len(v) for v in values]


def read_streams_file(path):
    """The number of streams in ``path``: a decimal integer >= 1."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8").strip()
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise ValueError(f"expected a decimal integer >= 1, found {text!r}")
    return int(text)


class CounterInstance(DynamicConnector):
    """The running connector: watches ``streams.file`` when it is set."""

    def start(self, config):
        parse(config, KEYS)
        self.config = config
        self.streams = STREAMS.parse(config)
        self.path = STREAMS_FILE.parse(config)
        if not self.path:
            return False  # nothing to watch: the host asks task_configs once
        try:
            self.streams = read_streams_file(self.path)
        except (OSError, ValueError, UnicodeDecodeError) as e:
            raise ConfigError(f"config 'streams.file': cannot read the number of streams from {self.path}: {e}",
                              "streams.file") from None
        return True

    def task_configs(self, max_tasks):
        return task_configs(self.config | {"streams": self.streams}, self.streams, max_tasks)

    def monitor(self):
        try:
            streams = read_streams_file(self.path)
        except (OSError, ValueError, UnicodeDecodeError) as e:
            raise RetriableError(f"streams.file {self.path}: {e}") from None
        if streams != self.streams:
            log.info(f"{self.path}: {self.streams} -> {streams} streams")
            self.streams = streams
            dynamic.request_task_reconfiguration()


Connector, SourceTask, Instance = export_source(CounterSource, CounterTask, dynamic=CounterInstance)
