"""{{name}}: a source connector. It counts upwards on `streams` streams
(source partitions `stream-0` ...) into `topic`, `count` records per stream,
and resumes after the last committed number of each stream when restarted.

Replace the counting with reads from your system: pick a source partition
per input stream (a file, a table, a shard) and a source offset that says
where to resume in it.

Build: ./build.sh   (-> {{name}}.wasm)
Test:  PYTHONPATH=$COPYCAT_HOME/guest-sdk/python python3 -m unittest
"""

# Import everything you need here, at the top: componentize-py snapshots the
# interpreter after importing this module at build time, and a standard
# library module imported for the first time at run time is not found.
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
STREAMS = ConfigKey.int("streams", default=1, min=1, doc="Streams: source partitions stream-0 .. stream-<n-1>")
COUNT = ConfigKey.long("count", default=100, min=0, doc="Records per stream; 0 = unbounded")
KEYS = [TOPIC, STREAMS, COUNT]

#: Set by task_configs: the comma-separated stream indices of one task.
ASSIGNED = "{{name}}.streams.assigned"


class Plugin(Connector):
    """Describes the plugin and splits the work; keeps no state."""

    def describe(self):
        return PluginInfo(
            name="{{name}}",
            version="0.1.0",
            description="Counts upwards on N streams into a Kafka topic",
            config_def=KEYS,
        )

    # validate: the default checks every declared key, one problem per key.

    def task_configs(self, config, max_tasks):
        streams = STREAMS.parse(config)
        k = min(streams, max_tasks)
        return [
            config | {ASSIGNED: ",".join(str(j) for j in range(streams) if j % k == i)}
            for i in range(k)
        ]


class Task(SourceTask):
    """One task: its own instance of the component, its own memory."""

    def start(self, config):
        settings = parse(config, KEYS)  # ConfigError naming the first bad key
        self.count = settings["count"]
        try:
            streams = [int(j) for j in config.get_list(ASSIGNED)] if ASSIGNED in config \
                else list(range(settings["streams"]))
        except ValueError:
            raise ConfigError(f"config '{ASSIGNED}': not a list of integers", ASSIGNED) from None

        committed = self.read_offsets([f"stream-{j}" for j in streams])
        self.streams = []  # [stream, next seq] pairs
        for j in streams:
            last = committed.get(f"stream-{j}")
            if last is not None and not (last.isascii() and last.isdigit()):
                raise FatalError(f"stream-{j}: committed offset {last!r} is not a number")
            self.streams.append([j, 0 if last is None else int(last) + 1])
        self.cursor = 0
        log.info(f"counting on streams {streams}")

    def poll(self, max_records):
        # Return quickly; [] when nothing is ready (never sleep).
        count = self.count
        active = [s for s in self.streams if count == 0 or s[1] < count]
        records = []
        while active and len(records) < max_records:
            self.cursor %= len(active)
            stream = active[self.cursor]
            j, seq = stream
            records.append(SourceRecord(f"stream-{j}", str(seq), key=f"stream-{j}:{seq}", value=str(seq)))
            stream[1] = seq + 1
            if count and stream[1] >= count:
                del active[self.cursor]
            else:
                self.cursor += 1
        return records


# componentize-py exports the classes named after the WIT interfaces.
Connector, SourceTask = export_source(Plugin, Task)
