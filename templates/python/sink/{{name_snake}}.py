"""{{name}}: a sink connector. It logs every record it receives (through the
host's logging, so it needs no grants).

Replace the logging with writes to your system. Records count as delivered
only once `flush` returns: buffer in `put`, make it durable in `flush`. To
write files, use plain `open()` under a directory the operator grants with
`grants.fs.write` (see examples/python/file-sink in the Copycat checkout).

Build: ./build.sh   (-> {{name}}.wasm)
Test:  PYTHONPATH=$COPYCAT_HOME/guest-sdk/python python3 -m unittest
"""

# Import everything you need here, at the top: componentize-py snapshots the
# interpreter after importing this module at build time, and a standard
# library module imported for the first time at run time is not found.
from copycat_sdk import ConfigKey, Connector, PluginInfo, SinkTask, export_sink, log

PREFIX = ConfigKey.string("prefix", default="", doc="Text put before each logged record")


class Plugin(Connector):
    """Describes the plugin and splits the work; keeps no state."""

    def describe(self):
        return PluginInfo(
            name="{{name}}",
            version="0.1.0",
            description="Logs every record it receives",
            config_def=[PREFIX],
        )

    def task_configs(self, config, max_tasks):
        # The consumer group spreads the topic partitions over the tasks.
        return [config] * max_tasks


class Task(SinkTask):
    """One task: its own instance of the component, its own memory."""

    def start(self, config):
        self.prefix = PREFIX.parse(config)
        self.pending = 0

    # open: the default {} resumes from the consumer group's committed offsets.

    def put(self, records):
        for r in records:
            value = r.value.decode("utf-8", "replace") if r.value is not None else "<null>"
            log.info(f"{self.prefix}{r.id} {value}")
        self.pending += len(records)

    def flush(self, offsets):
        # Make everything put so far durable here; raise RetriableError to
        # have the records delivered again later.
        self.pending = 0


# componentize-py exports the classes named after the WIT interfaces.
Connector, SinkTask = export_sink(Plugin, Task)
