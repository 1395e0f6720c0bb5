"""Exporting a connector: the glue between your classes and the WIT exports.

componentize-py exports, for each WIT interface of the world, the class of
the same name found in the app module: ``Connector`` and ``SourceTask``
(world ``source``) or ``SinkTask`` (world ``sink``), and ``Instance`` for
a dynamic connector (worlds ``dynamic-source`` / ``dynamic-sink``). Bind
them at the end of your module::

    Connector, SourceTask = export_source(CounterConnector, CounterTask)
    # or, dynamic (built for the world dynamic-source):
    Connector, SourceTask, Instance = export_source(CounterConnector, CounterTask, dynamic=CounterInstance)

The classes returned here convert between the WIT types and the SDK's
(:class:`~copycat_sdk.Config`, :class:`~copycat_sdk.SourceBatch`,
:class:`~copycat_sdk.SinkBatch`, ...), keep the started task in a
module-level slot (one instance of the component per task), and turn every
exception into a ``connector-error``: an exception never traps the
component.

The generated bindings (``wit_world``) are imported on first use only, so
a connector module that calls ``export_source`` still imports under plain
CPython for unit tests.
"""

from __future__ import annotations

import traceback
from typing import Any, Callable, List, Optional, Sequence, Tuple, Type

from . import host
from .batch import SinkBatch, SourceBatch, read_positions
from .config import Config, Problem
from .connector import Connector, PluginInfo, SinkTask, SourceTask
from .dynamic import DynamicConnector
from .errors import ConfigError, ConnectorError, FatalError
from .records import TopicPartition

__all__ = ["export_source", "export_sink"]


class _Wit:
    """The generated modules, imported once on first use."""

    types: Any = None
    batch: Any = None
    Err: Any = None

    @classmethod
    def load(cls) -> "Type[_Wit]":
        if cls.types is None:
            from componentize_py_types import Err  # type: ignore[import-not-found]
            from wit_world.imports import batch, types  # type: ignore[import-not-found]

            cls.types, cls.batch, cls.Err = types, batch, Err
        return cls


def _error(call: str, e: BaseException) -> Any:
    """The WIT ``Err(connector-error)`` exception for ``e``."""
    wit = _Wit.load()
    t = wit.types
    if isinstance(e, ConnectorError):
        variant, message = e.variant, e.message
    else:
        host.error(f"{call} raised {type(e).__name__}:\n{''.join(traceback.format_exception(e)).rstrip()}")
        variant, message = "fatal", f"{call}: {type(e).__name__}: {e}"
    cls = {
        "config": t.ConnectorError_Config,
        "retriable": t.ConnectorError_Retriable,
    }.get(variant, t.ConnectorError_Fatal)
    return wit.Err(cls(message))


def _guard(call: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn(*args)``; raise any exception as a WIT ``Err``."""
    try:
        return fn(*args)
    except Exception as e:
        if isinstance(e, _Wit.load().Err):
            raise  # already a WIT error (raised with the raw bindings)
        raise _error(call, e) from None


def _pairs(config: Any) -> List[Tuple[str, str]]:
    if isinstance(config, Config):
        return config.pairs()
    return list((Config() | dict(config)).pairs())


def _config_keys(config_def: Sequence[Any]) -> List[Any]:
    t = _Wit.load().types
    return [
        t.ConfigKey(
            name=k.name,
            type=t.ConfigType[k.type.name],
            default_value=k.default,
            required=k.required,
            doc=k.doc,
            importance=t.Importance[k.importance.name],
        )
        for k in config_def
    ]


def _problems(run: Callable[[], Any]) -> List[Any]:
    """``validate``'s result: never an exception (there is no error case)."""
    t = _Wit.load().types
    try:
        found = list(run())
    except ConfigError as e:
        found = [Problem(e.key or "", e.message)]
    except Exception as e:
        host.error(f"validate raised {type(e).__name__}:\n{traceback.format_exc().rstrip()}")
        found = [Problem("", f"validate failed: {type(e).__name__}: {e}")]
    return [t.ConfigProblem(key=str(key), message=str(message)) for key, message in found]


def _wit_nodes(nodes: Sequence[Any]) -> List[Any]:
    b = _Wit.load().batch
    return [
        b.SchemaNode(
            type=b.SchemaType[n.type.name],
            optional=n.optional,
            name=n.name,
            version=n.version,
            doc=n.doc,
            parameters=list(n.parameters),
            default=n.default,
            children=list(n.children),
            field_names=list(n.field_names),
        )
        for n in nodes
    ]


def _plugin_info(info: PluginInfo, kind: str) -> Any:
    t = _Wit.load().types
    return t.PluginInfo(
        name=info.name,
        version=info.version,
        kind=t.ConnectorKind[kind],
        description=info.description,
        config_def=_config_keys(info.config_def),
    )


def _make_connector(connector: Type[Connector], kind: str) -> type:
    state: dict = {}

    def instance() -> Connector:
        if "c" not in state:
            state["c"] = connector()
        return state["c"]

    class ExportedConnector:
        """``copycat:connector/connector``, implemented by ``connector``."""

        def describe(self) -> Any:
            # Must not fail: an exception here traps (there is no error case).
            return _plugin_info(instance().describe(), kind)

        def validate(self, config: List[Tuple[str, str]]) -> List[Any]:
            return _problems(lambda: instance().validate(Config(config)))

        def task_configs(self, config: List[Tuple[str, str]], max_tasks: int) -> List[List[Tuple[str, str]]]:
            configs = _guard("task_configs", lambda: list(instance().task_configs(Config(config), max_tasks)))
            return [_guard("task_configs", _pairs, c) for c in configs]

    ExportedConnector.__name__ = ExportedConnector.__qualname__ = "Connector"
    return ExportedConnector


def _make_instance(dynamic: Type[DynamicConnector]) -> type:
    state: dict = {}

    def get() -> DynamicConnector:
        d = state.get("d")
        if d is None:
            raise FatalError("the connector instance is not started")
        return d

    def start(config: List[Tuple[str, str]]) -> bool:
        d = dynamic()
        watching = d.start(Config(config))
        state["d"] = d
        if not isinstance(watching, bool):
            raise FatalError(f"DynamicConnector.start returns True or False, not {watching!r}")
        return watching

    def task_configs(max_tasks: int) -> List[List[Tuple[str, str]]]:
        return [_pairs(c) for c in get().task_configs(max_tasks)]

    class ExportedInstance:
        """``copycat:dynamic/instance``, implemented by ``dynamic``."""

        def start(self, config: List[Tuple[str, str]]) -> bool:
            return _guard("instance start", start, config)

        def task_configs(self, max_tasks: int) -> List[List[Tuple[str, str]]]:
            return _guard("instance task_configs", task_configs, max_tasks)

        def monitor(self) -> None:
            _guard("monitor", lambda: get().monitor())

        def stop(self) -> None:
            d, state["d"] = state.get("d"), None
            if d is not None:
                try:
                    d.stop()
                except Exception as e:
                    host.error(f"instance stop raised {type(e).__name__}:\n{traceback.format_exc().rstrip()}")

    ExportedInstance.__name__ = ExportedInstance.__qualname__ = "Instance"
    return ExportedInstance


class _Slot:
    """The started task of this component instance."""

    def __init__(self) -> None:
        self.task: Optional[Any] = None

    def get(self) -> Any:
        if self.task is None:
            raise FatalError("task not started")
        return self.task


def _source_batch(result: Any) -> SourceBatch:
    """What ``poll`` returned, as a batch."""
    if isinstance(result, SourceBatch):
        return result
    batch = SourceBatch()
    if result is None:
        return batch
    for record in result:
        batch.add_record(record)
    return batch


def to_wit_source_batch(batch: SourceBatch) -> Any:
    """The WIT ``source-batch`` of ``batch``."""
    wit = _Wit.load()
    c = batch.finish()
    position = wit.types.SourcePosition
    return wit.batch.SourceBatch(
        data=c.data,
        key_lengths=c.key_lengths,
        value_lengths=c.value_lengths,
        topics=c.topics,
        topic_indices=c.topic_indices,
        partitions=c.partitions,
        timestamps=c.timestamps,
        header_counts=c.header_counts,
        header_key_lengths=c.header_key_lengths,
        header_value_lengths=c.header_value_lengths,
        schemas=_wit_nodes(c.schemas) if c.schemas else [],
        key_schemas=c.key_schemas,
        value_schemas=c.value_schemas,
        header_schemas=c.header_schemas,
        positions=[position(partition=p, offset=o) for p, o in c.positions],
    )


def export_source(
    connector: Type[Connector], task: Type[SourceTask], dynamic: Optional[Type[DynamicConnector]] = None
) -> Tuple[type, ...]:
    """The ``(Connector, SourceTask)`` classes to bind in the app module
    for the world ``source``; with ``dynamic=`` (a
    :class:`~copycat_sdk.DynamicConnector`) ``(Connector, SourceTask,
    Instance)`` for the world ``dynamic-source``. ``task`` is instantiated
    without arguments on ``start``, then its ``start(config)`` is
    called."""
    host.install_log_handler()
    slot = _Slot()

    def start(config: List[Tuple[str, str]]) -> None:
        instance = task()
        instance.start(Config(config))
        slot.task = instance

    def poll(max_records: int) -> Any:
        return to_wit_source_batch(_source_batch(slot.get().poll(max_records)))

    def commit(offsets: List[Any]) -> None:
        if slot.task is not None:
            slot.task.commit(read_positions(offsets))

    class ExportedSourceTask:
        """``copycat:connector/source-task``, implemented by ``task``."""

        def start(self, config: List[Tuple[str, str]]) -> None:
            _guard("start", start, config)

        def poll(self, max_records: int) -> Any:
            return _guard("poll", poll, max_records)

        def commit(self, offsets: List[Any]) -> None:
            _guard("commit", commit, offsets)

        def stop(self) -> None:
            _stop(slot)

    ExportedSourceTask.__name__ = ExportedSourceTask.__qualname__ = "SourceTask"
    exported: Tuple[type, ...] = (_make_connector(connector, "SOURCE"), ExportedSourceTask)
    if dynamic is not None:
        exported += (_make_instance(dynamic),)
    return exported


def export_sink(
    connector: Type[Connector], task: Type[SinkTask], dynamic: Optional[Type[DynamicConnector]] = None
) -> Tuple[type, ...]:
    """The ``(Connector, SinkTask)`` classes to bind in the app module for
    the world ``sink``; with ``dynamic=``, ``(Connector, SinkTask,
    Instance)`` for the world ``dynamic-sink``. ``task`` is instantiated
    without arguments on ``start``, then its ``start(config)`` is
    called."""
    host.install_log_handler()
    slot = _Slot()

    def start(config: List[Tuple[str, str]]) -> None:
        instance = task()
        instance.start(Config(config))
        slot.task = instance

    def open_(partitions: List[Any]) -> List[Any]:
        t = _Wit.load().types
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        result = slot.get().open(tps) or {}
        items = result.items() if hasattr(result, "items") else result
        return [t.TopicPartitionOffset(topic=tp[0], partition=tp[1], offset=int(offset)) for tp, offset in items]

    def put(batch: Any) -> None:
        slot.get().put(SinkBatch(batch))

    def flush(offsets: List[Any]) -> None:
        slot.get().flush({TopicPartition(o.topic, o.partition): o.offset for o in offsets})

    def close(partitions: List[Any]) -> None:
        slot.get().close([TopicPartition(p.topic, p.partition) for p in partitions])

    class ExportedSinkTask:
        """``copycat:connector/sink-task``, implemented by ``task``."""

        def start(self, config: List[Tuple[str, str]]) -> None:
            _guard("start", start, config)

        def open(self, partitions: List[Any]) -> List[Any]:
            return _guard("open", open_, partitions)

        def put(self, batch: Any) -> None:
            _guard("put", put, batch)

        def flush(self, offsets: List[Any]) -> None:
            _guard("flush", flush, offsets)

        def close(self, partitions: List[Any]) -> None:
            _guard("close", close, partitions)

        def stop(self) -> None:
            _stop(slot)

    ExportedSinkTask.__name__ = ExportedSinkTask.__qualname__ = "SinkTask"
    exported: Tuple[type, ...] = (_make_connector(connector, "SINK"), ExportedSinkTask)
    if dynamic is not None:
        exported += (_make_instance(dynamic),)
    return exported


def _stop(slot: _Slot) -> None:
    """``stop`` has no error case: log a failure, never trap."""
    task, slot.task = slot.task, None
    if task is None:
        return
    try:
        task.stop()
    except Exception as e:
        host.error(f"stop raised {type(e).__name__}:\n{traceback.format_exc().rstrip()}")
