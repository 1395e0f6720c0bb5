"""Records and topic partitions, as plain Python objects.

The SDK converts them to and from the WIT types at the boundary, so a
connector never touches generated bindings and its logic runs under plain
CPython for unit tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, NamedTuple, Optional, Sequence, Tuple, Union

__all__ = ["SourceRecord", "SinkRecord", "TopicPartition", "Bytes"]

#: Key, value and header values: ``bytes``, or ``str`` (encoded as UTF-8).
Bytes = Union[bytes, bytearray, memoryview, str]


class TopicPartition(NamedTuple):
    """A Kafka topic partition; hashable, so it can key a dict."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass
class SourceRecord:
    """A record emitted by a source task.

    ``source_partition`` names the input stream it came from and
    ``source_offset`` its position there (both text you choose: decimal
    numbers or JSON work well). After the record is in Kafka the host stores
    the offset; on restart the task resumes *after* it.

    ``topic=None`` means the connector's ``topic``; ``partition=None`` lets
    the producer's partitioner choose; ``value=None`` is a tombstone;
    ``timestamp=None`` lets Kafka stamp it (else milliseconds since the
    epoch). ``headers`` are ``(key, value)`` pairs.
    """

    source_partition: str
    source_offset: str
    key: Optional[Bytes] = None
    value: Optional[Bytes] = None
    topic: Optional[str] = None
    partition: Optional[int] = None
    headers: Sequence[Tuple[str, Optional[Bytes]]] = ()
    timestamp: Optional[int] = None


@dataclass(frozen=True)
class SinkRecord:
    """A record delivered to a sink task: where it was read from, and its
    key and value bytes (``None`` when null). ``headers`` are
    ``(key, value)`` pairs; ``timestamp`` is milliseconds since the epoch."""

    topic: str
    partition: int
    offset: int
    key: Optional[bytes] = None
    value: Optional[bytes] = None
    headers: List[Tuple[str, Optional[bytes]]] = field(default_factory=list)
    timestamp: Optional[int] = None

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    @property
    def id(self) -> str:
        """``<topic>-<partition>-<offset>``: the same on every redelivery,
        for idempotent writes."""
        return f"{self.topic}-{self.partition}-{self.offset}"


def to_bytes(data: Optional[Bytes]) -> Optional[bytes]:
    """``str`` as UTF-8, other buffers as ``bytes``, ``None`` kept."""
    if data is None or type(data) is bytes:
        return data  # type: ignore[return-value]
    if isinstance(data, str):
        return data.encode()
    return bytes(data)
