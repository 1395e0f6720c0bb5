"""copycat_sdk: write Copycat connectors and transforms in Python.

A connector is a WebAssembly component built with componentize-py against
the contract ``copycat:connector@0.3.0`` (``wit/connector@0.3.0/``:
batches of raw or typed records); a sink also gets the errant record
reporter (``wit/errant@0.1.0``), a dynamic connector the running instance
(``wit/dynamic@0.1.0``), and a transform implements
``wit/transform@0.1.0``. This package hides the generated bindings:
subclass :class:`Connector` and :class:`SourceTask` (or :class:`SinkTask`),
then bind the exported classes at the end of the app module::

    from copycat_sdk import ConfigKey, Connector, PluginInfo, SourceBatch, SourceTask, export_source

    TOPIC = ConfigKey.string("topic", required=True, doc="Kafka topic")

    class Hello(Connector):
        def describe(self):
            return PluginInfo("hello", "0.1.0", "Says hello", [TOPIC])

    class HelloTask(SourceTask):
        def start(self, config):
            self.done = False

        def poll(self, max_records):
            batch = SourceBatch()
            if not self.done:
                self.done = True
                batch.append("greeting", "hello")                  # raw key and value
                batch.advance({"source": "hello"}, {"sent": True})  # its source offset
            return batch

    Connector, SourceTask = export_source(Hello, HelloTask)

Build with ``scripts/examples/python.sh build source APP_DIR hello hello.wasm``.

What is where:

* :mod:`copycat_sdk.config` -- :class:`Config`, :class:`ConfigKey`,
  :func:`parse` and :func:`problems` (per-key errors);
* :mod:`copycat_sdk.batch` -- :class:`SourceBatch` (what ``poll``
  returns: ``append`` raw records fast, ``add`` typed ones) and
  :class:`SinkBatch` (what ``put`` gets);
* :mod:`copycat_sdk.records` -- :class:`SourceRecord`, :class:`SinkRecord`,
  :class:`Header`, :class:`TopicPartition`;
* :mod:`copycat_sdk.schema` -- typed records: :class:`Schema`,
  :class:`Struct`, :func:`schema_of` (dataclasses), the type constants;
* :mod:`copycat_sdk.wire` -- the value encoding (bit-exact with the host's);
* :mod:`copycat_sdk.errors` -- :class:`ConfigError`, :class:`RetriableError`,
  :class:`FatalError` (the WIT ``connector-error`` variants);
* :mod:`copycat_sdk.connector` -- the base classes and :class:`PluginInfo`;
* :mod:`copycat_sdk.host` (also as ``log``) -- logging, clocks,
  :func:`read_offsets`;
* :mod:`copycat_sdk.errant` -- :func:`~copycat_sdk.errant.report` (sinks, in
  ``put``): a record the task cannot write goes to the dead letter queue;
* :mod:`copycat_sdk.dynamic` -- :class:`DynamicConnector`,
  :func:`~copycat_sdk.dynamic.request_task_reconfiguration`;
* :mod:`copycat_sdk.transform` -- :class:`~copycat_sdk.transform.Transform`,
  :func:`~copycat_sdk.transform.export_transform`;
* :mod:`copycat_sdk.export` -- :func:`export_source`, :func:`export_sink`.
"""

# componentize-py runs this import at *build* time and snapshots the
# interpreter; at run time the standard library is on no file system, so a
# module imported for the first time then fails with ModuleNotFoundError.
# Codec lookups are such lazy imports (``open(p, encoding="ascii")``), so
# the common codecs are imported now, and so are the modules the SDK uses
# lazily (base64 and json for sinks' rendering). Import what your connector
# needs at the top of its module, too.
import base64  # noqa: F401
import encodings.ascii  # noqa: F401
import encodings.latin_1  # noqa: F401
import json  # noqa: F401

from . import dynamic, errant, host, transform, wire
from . import host as log
from .batch import SinkBatch, SourceBatch
from .config import Config, ConfigKey, ConfigType, Importance, Problem, parse, problems
from .connector import Connector, PluginInfo, SinkTask, SourceTask
from .dynamic import DynamicConnector
from .errors import ConfigError, ConnectorError, FatalError, RetriableError, io_error
from .export import export_sink, export_source
from .host import monotonic_ns, now_ms, read_offsets
from .render import compact_json
from .records import Header, SinkRecord, SourceRecord, TopicPartition
from .schema import (
    BOOLEAN,
    BYTES,
    DATE,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    SCHEMALESS,
    STRING,
    TIME,
    TIMESTAMP,
    DataError,
    Field,
    MapItems,
    Schema,
    Struct,
    Type,
    array_schema,
    connect_schema,
    decimal_schema,
    map_schema,
    schema_of,
    struct_schema,
)

__version__ = "0.3.0"

__all__ = [
    "BOOLEAN",
    "BYTES",
    "Config",
    "ConfigError",
    "ConfigKey",
    "ConfigType",
    "Connector",
    "ConnectorError",
    "DATE",
    "DataError",
    "DynamicConnector",
    "FLOAT32",
    "FLOAT64",
    "FatalError",
    "Field",
    "Header",
    "INT16",
    "INT32",
    "INT64",
    "INT8",
    "Importance",
    "MapItems",
    "PluginInfo",
    "Problem",
    "RetriableError",
    "SCHEMALESS",
    "STRING",
    "Schema",
    "SinkBatch",
    "SinkRecord",
    "SinkTask",
    "SourceBatch",
    "SourceRecord",
    "SourceTask",
    "Struct",
    "TIME",
    "TIMESTAMP",
    "TopicPartition",
    "Type",
    "array_schema",
    "compact_json",
    "connect_schema",
    "decimal_schema",
    "dynamic",
    "errant",
    "export_sink",
    "export_source",
    "host",
    "io_error",
    "log",
    "map_schema",
    "monotonic_ns",
    "now_ms",
    "parse",
    "problems",
    "read_offsets",
    "schema_of",
    "struct_schema",
    "transform",
    "wire",
]
