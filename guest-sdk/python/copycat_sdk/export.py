"""Exporting a connector: the glue between your classes and the WIT exports.

componentize-py exports, for each WIT interface of the world, the class of
the same name found in the app module: ``Connector`` and ``SourceTask`` for
the ``source`` world, ``Connector`` and ``SinkTask`` for ``sink``. Bind them
at the end of your module::

    Connector, SourceTask = export_source(CounterConnector, CounterTask)

The classes returned here convert between the WIT types and the SDK's
(:class:`~copycat_sdk.Config`, :class:`~copycat_sdk.SourceRecord`, ...),
keep the started task in a module-level slot (one instance of the
component per task), and turn every exception into a ``connector-error``:
an exception never traps the component.

The generated bindings (``wit_world``) are imported on first use only, so
a connector module that calls ``export_source`` still imports under plain
CPython for unit tests.
"""

from __future__ import annotations

import traceback
from typing import Any, Callable, List, Optional, Tuple, Type

from . import host
from .config import Config, Problem
from .connector import Connector, PluginInfo, SinkTask, SourceTask
from .errors import ConfigError, ConnectorError, FatalError
from .records import SinkRecord, SourceRecord, TopicPartition, to_bytes

__all__ = ["export_source", "export_sink"]


class _Wit:
    """The generated modules, imported once on first use."""

    types: Any = None
    Err: Any = None

    @classmethod
    def load(cls) -> "Type[_Wit]":
        if cls.types is None:
            from componentize_py_types import Err  # type: ignore[import-not-found]
            from wit_world.imports import types  # type: ignore[import-not-found]

            cls.types, cls.Err = types, Err
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


def _plugin_info(info: PluginInfo, kind: str) -> Any:
    t = _Wit.load().types
    keys = [
        t.ConfigKey(
            name=k.name,
            type=t.ConfigType[k.type.name],
            default_value=k.default,
            required=k.required,
            doc=k.doc,
            importance=t.Importance[k.importance.name],
        )
        for k in info.config_def
    ]
    return t.PluginInfo(
        name=info.name,
        version=info.version,
        kind=t.ConnectorKind[kind],
        description=info.description,
        config_def=keys,
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
            t = _Wit.load().types
            try:
                found = list(instance().validate(Config(config)))
            except ConfigError as e:
                found = [Problem(e.key or "", e.message)]
            except Exception as e:
                host.error(f"validate raised {type(e).__name__}:\n{traceback.format_exc().rstrip()}")
                found = [Problem("", f"validate failed: {type(e).__name__}: {e}")]
            return [t.ConfigProblem(key=str(key), message=str(message)) for key, message in found]

        def task_configs(self, config: List[Tuple[str, str]], max_tasks: int) -> List[List[Tuple[str, str]]]:
            configs = _guard("task_configs", lambda: list(instance().task_configs(Config(config), max_tasks)))
            return [_guard("task_configs", _pairs, c) for c in configs]

    ExportedConnector.__name__ = ExportedConnector.__qualname__ = "Connector"
    return ExportedConnector


class _Slot:
    """The started task of this component instance."""

    def __init__(self) -> None:
        self.task: Optional[Any] = None

    def get(self) -> Any:
        if self.task is None:
            raise FatalError("task not started")
        return self.task


def export_source(connector: Type[Connector], task: Type[SourceTask]) -> Tuple[type, type]:
    """The ``(Connector, SourceTask)`` classes to bind in the app module for
    the ``source`` world. ``task`` is instantiated without arguments on
    ``start``, then its ``start(config)`` is called."""
    host.install_log_handler()
    slot = _Slot()

    def start(config: List[Tuple[str, str]]) -> None:
        instance = task()
        instance.start(Config(config))
        slot.task = instance

    def poll(max_records: int) -> List[Any]:
        t = _Wit.load().types
        make, record, header = t.SourceRecord, SourceRecord, t.Header
        out = []
        for r in slot.get().poll(max_records) or ():
            if not isinstance(r, record):
                raise FatalError(f"poll must return SourceRecord objects, not {type(r).__name__}")
            out.append(make(
                source_partition=r.source_partition,
                source_offset=r.source_offset,
                topic=r.topic,
                partition=r.partition,
                key=to_bytes(r.key),
                value=to_bytes(r.value),
                headers=[header(key=k, value=to_bytes(v)) for k, v in r.headers] if r.headers else [],
                timestamp=r.timestamp,
            ))
        return out

    def commit(offsets: List[Any]) -> None:
        if slot.task is not None:
            slot.task.commit({p.partition: p.offset for p in offsets})

    class ExportedSourceTask:
        """``copycat:connector/source-task``, implemented by ``task``."""

        def start(self, config: List[Tuple[str, str]]) -> None:
            _guard("start", start, config)

        def poll(self, max_records: int) -> List[Any]:
            return _guard("poll", poll, max_records)

        def commit(self, offsets: List[Any]) -> None:
            _guard("commit", commit, offsets)

        def stop(self) -> None:
            _stop(slot)

    ExportedSourceTask.__name__ = ExportedSourceTask.__qualname__ = "SourceTask"
    return _make_connector(connector, "SOURCE"), ExportedSourceTask


def export_sink(connector: Type[Connector], task: Type[SinkTask]) -> Tuple[type, type]:
    """The ``(Connector, SinkTask)`` classes to bind in the app module for
    the ``sink`` world. ``task`` is instantiated without arguments on
    ``start``, then its ``start(config)`` is called."""
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

    def put(records: List[Any]) -> None:
        sink_record = SinkRecord
        batch = [
            sink_record(
                r.topic,
                r.partition,
                r.offset,
                r.key,
                r.value,
                [(h.key, h.value) for h in r.headers] if r.headers else [],
                r.timestamp,
            )
            for r in records
        ]
        slot.get().put(batch)

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

        def put(self, records: List[Any]) -> None:
            _guard("put", put, records)

        def flush(self, offsets: List[Any]) -> None:
            _guard("flush", flush, offsets)

        def close(self, partitions: List[Any]) -> None:
            _guard("close", close, partitions)

        def stop(self) -> None:
            _stop(slot)

    ExportedSinkTask.__name__ = ExportedSinkTask.__qualname__ = "SinkTask"
    return _make_connector(connector, "SINK"), ExportedSinkTask


def _stop(slot: _Slot) -> None:
    """``stop`` has no error case: log a failure, never trap."""
    task, slot.task = slot.task, None
    if task is None:
        return
    try:
        task.stop()
    except Exception as e:
        host.error(f"stop raised {type(e).__name__}:\n{traceback.format_exc().rstrip()}")
