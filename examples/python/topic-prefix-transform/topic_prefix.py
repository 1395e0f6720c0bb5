"""topic-prefix-transform: a transform component in Python.

Prefixes every record's topic with the setting `prefix`, and leaves the
rest of the record as it is: keys, values and headers are never decoded,
so their bytes go through untouched (the SDK copies what a transform did
not read).

Build: ./build.sh (componentize-py, world `transform`). Run without Kafka:
    copycat dev run topic-prefix-transform.wasm -c prefix=eu- --input records.jsonl
"""

from copycat_sdk import ConfigError, ConfigKey, Importance, Problem
from copycat_sdk.transform import Transform, TransformInfo, export_transform

from topic_prefix_checks import prefix_problem

PREFIX = ConfigKey.string("prefix", required=True, doc="Text put before every topic name", importance=Importance.HIGH)


class TopicPrefix(Transform):
    prefix = ""

    def describe(self):
        return TransformInfo(
            name="topic-prefix-transform",
            version="0.1.0",
            description="Prefixes every record's topic",
            config_def=[PREFIX],
        )

    def validate(self, config):
        why = prefix_problem(config.get("prefix", ""))
        return [] if why is None else [Problem("prefix", why)]

    def configure(self, config):
        prefix = config.get("prefix", "")
        why = prefix_problem(prefix)
        if why is not None:
            raise ConfigError(f"prefix {why}", "prefix")
        self.prefix = prefix

    def apply(self, record):
        record.topic = self.prefix + record.topic
        return record


Transformer = export_transform(TopicPrefix)
