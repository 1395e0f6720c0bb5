"""copycat_sdk: write Copycat connectors in Python.

A connector is a WebAssembly component built with componentize-py against
the WIT contract ``copycat:connector@0.1.0`` (``wit/connector/``). This
package hides the generated bindings: subclass :class:`Connector` and
:class:`SourceTask` (or :class:`SinkTask`), then bind the exported classes at
the end of the app module::

    from copycat_sdk import (ConfigKey, Connector, PluginInfo, SourceRecord,
                             SourceTask, export_source)

    TOPIC = ConfigKey.string("topic", required=True, doc="Kafka topic")

    class Hello(Connector):
        def describe(self):
            return PluginInfo("hello", "0.1.0", "Says hello", [TOPIC])

    class HelloTask(SourceTask):
        def start(self, config):
            self.done = False

        def poll(self, max_records):
            if self.done:
                return []
            self.done = True
            return [SourceRecord("hello", "0", key="greeting", value="hello")]

    Connector, SourceTask = export_source(Hello, HelloTask)

Build with ``scripts/examples/python.sh build source APP_DIR hello hello.wasm``
(componentize-py against ``guest-sdk/python/wit``: Copycat's worlds, the
``sink`` one with the errant record reporter).

What is where:

* :mod:`copycat_sdk.config` -- :class:`Config`, :class:`ConfigKey`,
  :func:`parse` and :func:`problems` (per-key errors);
* :mod:`copycat_sdk.records` -- :class:`SourceRecord`, :class:`SinkRecord`,
  :class:`TopicPartition`;
* :mod:`copycat_sdk.errors` -- :class:`ConfigError`, :class:`RetriableError`,
  :class:`FatalError` (the WIT ``connector-error`` variants);
* :mod:`copycat_sdk.connector` -- the base classes and :class:`PluginInfo`;
* :mod:`copycat_sdk.host` (also as ``log``) -- logging, clocks,
  :func:`read_offsets`;
* :mod:`copycat_sdk.errant` -- :func:`~copycat_sdk.errant.report` (sinks, in
  ``put``): a record the task cannot write goes to the dead letter queue;
* :mod:`copycat_sdk.export` -- :func:`export_source`, :func:`export_sink`.
"""

# componentize-py runs this import at *build* time and snapshots the
# interpreter; at run time the standard library is on no file system, so a
# module imported for the first time then fails with ModuleNotFoundError.
# Codec lookups are such lazy imports (``open(p, encoding="ascii")``), so
# the common codecs are imported now. Import what your connector needs at
# the top of its module, too.
import encodings.ascii  # noqa: F401
import encodings.latin_1  # noqa: F401

from . import errant, host
from . import host as log
from .config import Config, ConfigKey, ConfigType, Importance, Problem, parse, problems
from .connector import Connector, PluginInfo, SinkTask, SourceTask
from .errors import ConfigError, ConnectorError, FatalError, RetriableError, io_error
from .export import export_sink, export_source
from .host import monotonic_ns, now_ms, read_offsets
from .records import SinkRecord, SourceRecord, TopicPartition

__version__ = "0.1.0"

__all__ = [
    "Config",
    "ConfigError",
    "ConfigKey",
    "ConfigType",
    "Connector",
    "ConnectorError",
    "FatalError",
    "Importance",
    "PluginInfo",
    "Problem",
    "RetriableError",
    "SinkRecord",
    "SinkTask",
    "SourceRecord",
    "SourceTask",
    "TopicPartition",
    "errant",
    "export_sink",
    "export_source",
    "host",
    "io_error",
    "log",
    "monotonic_ns",
    "now_ms",
    "parse",
    "problems",
    "read_offsets",
]
