"""The classes a connector author subclasses.

A plugin has two parts, as in Kafka Connect:

* a :class:`Connector` (no state): ``describe`` the plugin, ``validate`` a
  config, split the work into ``task_configs``. The host calls it on an
  instance of the component that never runs tasks.
* a task, :class:`SourceTask` or :class:`SinkTask`: does the work. Each task
  runs in its own instance of the component (its own memory), so the task
  object, and anything module-level, belongs to that task alone.

Every method may raise :class:`~copycat_sdk.ConfigError`,
:class:`~copycat_sdk.RetriableError` or :class:`~copycat_sdk.FatalError`;
any other exception is reported as ``fatal`` (never a trap).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import host
from .config import Config, ConfigKey, Problem, problems
from .records import SourceRecord, TopicPartition

if TYPE_CHECKING:
    from .batch import SinkBatch, SourceBatch

__all__ = ["PluginInfo", "Connector", "SourceTask", "SinkTask"]


@dataclass(frozen=True)
class PluginInfo:
    """What a plugin says about itself (WIT ``plugin-info``): a short stable
    ``name``, its ``version``, one line of ``description`` and every config
    key it understands. The kind (source or sink) is filled in by
    ``export_source`` / ``export_sink``."""

    name: str
    version: str
    description: str = ""
    config_def: Sequence[ConfigKey] = ()


#: What ``task_configs`` may return per task: a ``Config`` or any mapping.
TaskConfig = Union[Config, Mapping[str, object]]


class Connector:
    """The connector-level contract. Override :meth:`describe`; the defaults
    of the others are often enough."""

    def describe(self) -> PluginInfo:
        """Name, version and config definition. Must not fail and must not
        depend on any config."""
        raise NotImplementedError("Connector.describe")

    def validate(self, config: Config) -> List[Problem]:
        """Problems with ``config``, one per key at fault (``[]``: valid).

        The default checks every declared :class:`ConfigKey` (required,
        type, bounds, ``check``). Return ``Problem(key, message)`` items, or
        raise :class:`~copycat_sdk.ConfigError` with ``key=`` for a single
        problem.
        """
        return problems(config, self.describe().config_def)

    def task_configs(self, config: Config, max_tasks: int) -> Iterable[TaskConfig]:
        """At most ``max_tasks`` task configs, one per task to start.

        The default starts a single task with the connector's config. A
        source spreads its input streams over the tasks; a sink usually
        returns ``[config] * max_tasks`` (the consumer group spreads the
        topic partitions).
        """
        return [config]


class SourceTask:
    """A source task: ``start``, then ``poll`` repeatedly (with ``commit``
    notifications in between), then ``stop``."""

    def start(self, config: Config) -> None:
        """Start with one of the configs from ``Connector.task_configs``.
        Read committed offsets here (:meth:`read_offsets`) to resume."""

    def poll(self, max_records: int) -> Union["SourceBatch", Iterable[SourceRecord], None]:
        """At most ``max_records`` records: a :class:`~copycat_sdk.SourceBatch`
        (the fast path: ``batch.append(key, value)`` per record and
        ``batch.advance(partition, offset)`` per source partition), or a
        list of :class:`~copycat_sdk.SourceRecord`. Return quickly: when
        nothing is ready return an empty batch (or ``[]``) and the host
        calls again after a short back-off. Never sleep: each call has a
        CPU deadline (``task.call.timeout.ms``)."""
        raise NotImplementedError("SourceTask.poll")

    def commit(self, offsets: List[Tuple[dict, dict]]) -> None:
        """Notification: these offsets, ``(partition, offset)`` map pairs
        (the latest per source partition), are now durable. Purely
        informational; errors are only logged."""

    def stop(self) -> None:
        """Release resources. No other call follows."""

    @staticmethod
    def read_offsets(partitions: Iterable[Mapping[str, Any]]) -> List[Optional[dict]]:
        """The committed offset of each of ``partitions`` (maps), in order:
        ``None`` for one never committed."""
        return host.read_offsets(partitions)


class SinkTask:
    """A sink task: ``start``; then, per assignment, ``open``, ``put`` and
    ``flush`` as records arrive and ``close`` on revocation; ``stop``."""

    def start(self, config: Config) -> None:
        """Start with one of the configs from ``Connector.task_configs``."""

    def open(self, partitions: List[TopicPartition]) -> Mapping[TopicPartition, int]:
        """These partitions are now assigned. If the task keeps its own
        progress in the destination, return the next offset to read for
        each such partition (the host seeks there); the default ``{}`` uses
        the consumer group's committed offsets."""
        return {}

    def put(self, records: "SinkBatch") -> None:
        """Write a batch: a sequence of :class:`~copycat_sdk.SinkRecord`
        (its indexes are what :func:`copycat_sdk.errant.report` takes). May buffer: records count as delivered only after
        a successful ``flush``. Raise ``RetriableError`` to get the same
        batch again later."""
        raise NotImplementedError("SinkTask.put")

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything ``put`` so far durable. ``offsets`` are the next
        offsets to read per partition; the host commits them only if this
        returns normally."""

    def close(self, partitions: List[TopicPartition]) -> None:
        """These partitions are revoked (already flushed): drop their state."""

    def stop(self) -> None:
        """Release resources. No other call follows."""
