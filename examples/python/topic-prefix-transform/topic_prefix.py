"""topic-prefix-transform: a transform component in Python.

Prefixes every record's topic with the setting `prefix`, and leaves the
rest of the record as it is. It works on the transform world's columnar
batch directly (wit/transform@0.1.0): topics are named once per batch in
`topics`, so renaming them is one pass over that list, and every record
comes out of the record of the same index (`origins`).

Build: ./build.sh (componentize-py, world `transform`). Run without Kafka:
    copycat dev run topic-prefix-transform.wasm -c prefix=eu- --input records.jsonl
"""

from typing import List, Tuple

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import transformer
from wit_world.imports import types

from topic_prefix_checks import prefix_problem


class Transformer(exports.Transformer):
    prefix = ""

    def describe(self) -> transformer.TransformInfo:
        return transformer.TransformInfo(
            name="topic-prefix-transform",
            version="0.1.0",
            description="Prefixes every record's topic",
            config_def=[
                types.ConfigKey(
                    name="prefix",
                    type=types.ConfigType.STRING,
                    default_value=None,
                    required=True,
                    doc="Text put before every topic name",
                    importance=types.Importance.HIGH,
                )
            ],
        )

    def validate(self, config: List[Tuple[str, str]]) -> List[types.ConfigProblem]:
        why = prefix_problem(dict(config).get("prefix", ""))
        return [] if why is None else [types.ConfigProblem(key="prefix", message=why)]

    def configure(self, config: List[Tuple[str, str]]) -> None:
        prefix = dict(config).get("prefix", "")
        why = prefix_problem(prefix)
        if why is not None:
            raise Err(transformer.TransformError_Config(f"prefix {why}"))
        Transformer.prefix = prefix

    def apply(self, batch: transformer.RecordBatch) -> transformer.RecordBatch:
        batch.topics = [Transformer.prefix + t for t in batch.topics]
        batch.origins = list(range(len(batch.value_lengths)))
        return batch
