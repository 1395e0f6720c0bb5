"""Records, headers and topic partitions, as plain Python objects.

A key, value or header value is one of:

* raw bytes (``bytes``, or ``str`` as UTF-8): the host hands them to Kafka
  as they are, bypassing the converters; a sink gets them as read (Kafka
  Connect's ``ByteArrayConverter``);
* a typed value: a Python value with its :class:`~copycat_sdk.Schema`
  (a dataclass instance carries its own, :func:`~copycat_sdk.schema_of`);
  the host writes it with the connector's ``key.converter`` /
  ``value.converter`` / ``header.converter``;
* a schemaless value (:data:`~copycat_sdk.SCHEMALESS`): a dict, list,
  str, int, float, bool or bytes without a schema, as JsonConverter with
  ``schemas.enable=false`` reads it.

On a source record the schema is inferred when not given: ``bytes`` and
``str`` are raw, a dataclass instance or a :class:`~copycat_sdk.Struct`
is typed, anything else (dict, list, int, ...) is schemaless. Give
``value_schema=STRING`` to send a str as a typed string.

Source partitions and offsets are Kafka Connect's: small maps from names to
strings, numbers, booleans or ``None`` (``{"file": "a.txt"}``,
``{"position": 42}``), exchanged with the host as compact JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from .errors import FatalError

__all__ = ["Header", "SourceRecord", "SinkRecord", "TopicPartition", "Bytes"]

#: Raw key, value and header bytes: ``bytes``, or ``str`` (encoded as UTF-8).
Bytes = Union[bytes, bytearray, memoryview, str]


class TopicPartition(NamedTuple):
    """A Kafka topic partition; hashable, so it can key a dict."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class Header(NamedTuple):
    """A record header: its key, value and the value's schema (``None``:
    raw bytes; :data:`~copycat_sdk.SCHEMALESS`; or a Schema)."""

    key: str
    value: Any
    schema: Any = None


@dataclass
class SourceRecord:
    """A record emitted by a source task (the friendly API; a task that
    cares for speed fills a :class:`~copycat_sdk.SourceBatch` instead).

    ``source_partition`` names the input stream it came from and
    ``source_offset`` its position there, both maps of primitives
    (``{"file": "a.txt"}``, ``{"line": 12}``). After the record is in
    Kafka the host stores the offset; on restart the task resumes *after*
    it.

    ``key`` / ``value``: raw bytes, or typed with ``key_schema`` /
    ``value_schema`` (see the module doc). ``topic=None`` means the
    connector's ``topic``; ``partition=None`` lets the producer's
    partitioner choose; ``value=None`` is a tombstone; ``timestamp=None``
    lets Kafka stamp it (else milliseconds since the epoch). ``headers``
    are ``(key, value)`` or ``(key, value, schema)`` tuples.
    """

    source_partition: Mapping[str, Any]
    source_offset: Mapping[str, Any]
    key: Any = None
    value: Any = None
    topic: Optional[str] = None
    partition: Optional[int] = None
    headers: Sequence[Tuple[Any, ...]] = ()
    timestamp: Optional[int] = None
    key_schema: Any = None
    value_schema: Any = None


@dataclass(frozen=True)
class SinkRecord:
    """A record delivered to a sink task.

    ``key`` / ``value`` are what the schema columns say: raw bytes when
    ``key_schema`` / ``value_schema`` is ``None`` (``ByteArrayConverter``),
    a Python value when it is :data:`~copycat_sdk.SCHEMALESS` or a
    :class:`~copycat_sdk.Schema` (structs as :class:`~copycat_sdk.Struct`,
    maps as ``dict``, arrays as ``list``, logical types as ``date``,
    ``time``, ``datetime`` and ``Decimal``), ``None`` for null.
    ``headers`` are :class:`Header` tuples; ``timestamp`` is milliseconds
    since the epoch or ``None``.
    """

    topic: str
    partition: int
    offset: int
    key: Any = None
    value: Any = None
    headers: List[Header] = field(default_factory=list)
    timestamp: Optional[int] = None
    key_schema: Any = None
    value_schema: Any = None

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


# -- source partitions and offsets as JSON ---------------------------------------------


def map_key(m: Mapping[str, Any]) -> Tuple[Tuple[str, Any], ...]:
    """A hashable key for a partition map (equal maps, equal keys)."""
    try:
        key = tuple(sorted(m.items()))
        hash(key)
        return key
    except (AttributeError, TypeError):
        raise FatalError(
            f"a source partition or offset is a map of strings, numbers, booleans or None, not {m!r}"
        ) from None


def to_json(m: Mapping[str, Any], what: str = "source partition") -> str:
    """Compact JSON of a partition or offset map (keys sorted)."""
    if not isinstance(m, Mapping):
        raise FatalError(f"a {what} is a map such as {{'seq': 1}}, not {m!r}")
    for k, v in m.items():
        if not isinstance(k, str):
            raise FatalError(f"a {what}'s keys are strings: {m!r}")
        if v is not None and not isinstance(v, (str, int, float, bool)):
            raise FatalError(f"a {what}'s values are strings, numbers, booleans or None; {k!r} is {v!r}")
    try:
        return json.dumps(m, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except ValueError as e:
        raise FatalError(f"a {what} {m!r}: {e}") from None


def from_json(text: str, what: str = "source offset") -> dict:
    """A partition or offset map from the host's JSON."""
    try:
        value = json.loads(text)
    except ValueError as e:
        raise FatalError(f"a {what} that is not JSON: {text!r} ({e})") from None
    if not isinstance(value, dict):
        raise FatalError(f"a {what} that is not a JSON object: {text!r}")
    return value
