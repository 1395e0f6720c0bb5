"""counter-source: counts upwards on N streams into a Kafka topic.

Stream ``j`` is the source partition ``stream-<j>``; its records carry the
source offset ``"<seq>"``, key ``stream-<j>:<seq>`` and value ``<seq>``, for
``seq`` from 0 to ``count - 1`` (``count=0``: forever). A restarted task
resumes after the last committed offset of each of its streams.
(examples/SPEC.md defines this behaviour for every language.)
"""

from copycat_sdk import (
    ConfigError,
    ConfigKey,
    Connector,
    FatalError,
    PluginInfo,
    SourceRecord,
    SourceTask,
    export_source,
    log,
    parse,
)

TOPIC = ConfigKey.string("topic", required=True, doc="Kafka topic to write to")
STREAMS = ConfigKey.int(
    "streams", default=1, min=1, doc="Streams, i.e. source partitions stream-0 .. stream-<n-1>"
)
COUNT = ConfigKey.long("count", default=100, min=0, doc="Records per stream; 0 = unbounded")
KEYS = [TOPIC, STREAMS, COUNT]

#: Set by task_configs: the comma-separated stream indices of one task.
ASSIGNED = "counter.streams.assigned"


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
        streams = STREAMS.parse(config)
        k = min(streams, max_tasks)
        return [
            config | {ASSIGNED: ",".join(str(j) for j in range(streams) if j % k == i)}
            for i in range(k)
        ]


class CounterTask(SourceTask):
    def start(self, config):
        settings = parse(config, KEYS)  # ConfigError naming the first bad key
        self.count = settings["count"]
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

        committed = self.read_offsets([f"stream-{j}" for j in streams])
        # One [stream, next seq] pair per stream, in round-robin order.
        self.streams = []
        for j in streams:
            last = committed.get(f"stream-{j}")
            if last is None:
                nxt = 0
            elif last.isascii() and last.isdigit():
                nxt = int(last) + 1
            else:
                raise FatalError(f"stream-{j}: committed offset {last!r} is not a decimal number")
            self.streams.append([j, nxt])
        self.cursor = 0
        log.info(f"counting on streams {streams} from {[n for _, n in self.streams]}")

    def poll(self, max_records):
        count = self.count
        active = [s for s in self.streams if count == 0 or s[1] < count]
        records = []
        while active and len(records) < max_records:
            self.cursor %= len(active)
            stream = active[self.cursor]
            j, seq = stream
            records.append(
                SourceRecord(
                    source_partition=f"stream-{j}",
                    source_offset=str(seq),
                    key=f"stream-{j}:{seq}",
                    value=str(seq),
                )
            )
            stream[1] = seq + 1
            if count and stream[1] >= count:
                del active[self.cursor]  # the next stream moves into this slot
            else:
                self.cursor += 1
        return records


Connector, SourceTask = export_source(CounterSource, CounterTask)
