"""Batches: what a source's ``poll`` returns and a sink's ``put`` receives.

Contract 0.3.0 moves records as columns (``wit/connector@0.3.0/batch.wit``):
one byte buffer with every key, value and header back to back, and lists
of integers (lengths, schema indexes, ...) with one entry per record. A
:class:`SourceBatch` builds those columns as records are added; a
:class:`SinkBatch` reads them into :class:`~copycat_sdk.SinkRecord`\\ s.

Two ways to fill a source batch:

* ``batch.append(key, value)``: the fast path, for raw bytes (``bytes``
  or ``str``). It appends to the buffer and two integer lists and builds
  no object per record; call ``batch.advance(partition, offset)`` once
  per source partition (the latest offset counts).
* ``batch.add(key, value, key_schema=..., value_schema=..., topic=...,
  partition=..., headers=..., timestamp=...)`` for typed records and
  everything else, and ``batch.add_record(SourceRecord(...))``, which
  also advances the record's partition.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from . import wire
from .errors import FatalError
from .records import Header, SinkRecord, SourceRecord, from_json, map_key, to_json
from .schema import SCHEMALESS, DataError, Schema, Struct, schema_of

__all__ = ["SourceBatch", "SinkBatch", "Columns"]

RAW = -1
SCHEMALESS_CODE = -2
_I32_MAX = 2**31 - 1


class Columns(NamedTuple):
    """A finished source batch, column by column (the WIT
    ``source-batch``; ``schemas`` as :class:`~copycat_sdk.wire.Node`\\ s,
    ``positions`` as ``(partition JSON, offset JSON)`` pairs)."""

    data: bytes
    key_lengths: List[int]
    value_lengths: List[int]
    topics: List[str]
    topic_indices: List[int]
    partitions: List[int]
    timestamps: List[int]
    header_counts: List[int]
    header_key_lengths: List[int]
    header_value_lengths: List[int]
    schemas: List[wire.Node]
    key_schemas: List[int]
    value_schemas: List[int]
    header_schemas: List[int]
    positions: List[Tuple[str, str]]


def _fill(column: List[int], entries: int, value: int, default: int) -> None:
    """Push to an optional column, empty while every entry is ``default``."""
    if value != default and len(column) < entries:
        column.extend([default] * (entries - len(column)))
    if column or value != default:
        column.append(value)


class SourceBatch:
    """Records for one ``poll``, packed as they are added, and the latest
    source offset of each source partition they advance."""

    __slots__ = (
        "_data",
        "_key_lengths",
        "_value_lengths",
        "_topics",
        "_topic_index",
        "_topic_indices",
        "_partitions",
        "_timestamps",
        "_header_counts",
        "_header_key_lengths",
        "_header_value_lengths",
        "_table",
        "_key_schemas",
        "_value_schemas",
        "_header_schemas",
        "_positions",
        "_plain",
        "_packed",
    )

    def __init__(self) -> None:
        self._data = bytearray()
        self._key_lengths: List[int] = []
        self._value_lengths: List[int] = []
        self._topics: List[str] = []
        self._topic_index: Dict[str, int] = {}
        self._topic_indices: List[int] = []
        self._partitions: List[int] = []
        self._timestamps: List[int] = []
        self._header_counts: List[int] = []
        self._header_key_lengths: List[int] = []
        self._header_value_lengths: List[int] = []
        self._table = wire.SchemaTable()
        self._key_schemas: List[int] = []
        self._value_schemas: List[int] = []
        self._header_schemas: List[int] = []
        # map_key(partition) -> [partition map, offset map]
        self._positions: Dict[Any, List[Any]] = {}
        # True while every record so far is raw bytes with nothing else set,
        # so that every optional column is still empty.
        self._plain = True
        # Bytes of an extend_packed into an empty batch, not yet copied.
        self._packed: Optional[bytes] = None

    def __len__(self) -> int:
        """Records in the batch."""
        return len(self._value_lengths)

    def is_empty(self) -> bool:
        """No records and no offsets."""
        return not self._value_lengths and not self._positions

    # -- the fast path --------------------------------------------------------
    def append(self, key: Any, value: Any) -> None:
        """Add a record of raw key and value bytes (``bytes`` or ``str``,
        ``None`` for null) for the connector's topic. Anything else (a
        typed value) goes through :meth:`add`."""
        if self._plain:
            kc = key.__class__
            vc = value.__class__
            if (kc is bytes or kc is str or key is None) and (vc is bytes or vc is str or value is None):
                if self._packed is not None:
                    self._unpack()
                data = self._data
                if key is None:
                    self._key_lengths.append(-1)
                else:
                    if kc is str:
                        key = key.encode()
                    data += key
                    self._key_lengths.append(len(key))
                if value is None:
                    self._value_lengths.append(-1)
                else:
                    if vc is str:
                        value = value.encode()
                    data += value
                    self._value_lengths.append(len(value))
                return
        self.add(key, value)

    def extend(self, keys: Sequence[Any], values: Sequence[Any]) -> None:
        """Add records of raw keys and values, ``keys[i]`` with
        ``values[i]``: all ``bytes``, or all ``str`` (no ``None``). The
        fastest path: a few calls into C for the whole list (ASCII text is
        joined and encoded once)."""
        if len(keys) != len(values):
            raise FatalError(f"extend: {len(keys)} keys for {len(values)} values")
        if not keys:
            return
        if not self._plain:
            for k, v in zip(keys, values):
                self.add(k, v)
            return
        self._unpack()
        pieces: List[Any] = [b""] * (2 * len(keys))
        pieces[0::2] = keys
        pieces[1::2] = values
        try:
            if isinstance(pieces[0], str):
                text = "".join(pieces)
                if not text.isascii():  # lengths in bytes differ from lengths in characters
                    self.extend([k.encode() for k in keys], [v.encode() for v in values])
                    return
                self._data += text.encode("ascii")
            else:
                self._data += b"".join(pieces)
        except TypeError as e:
            raise FatalError(f"extend takes lists of bytes, or lists of str: {e}") from None
        self._key_lengths += map(len, keys)
        self._value_lengths += map(len, values)

    def extend_packed(self, data: Any, key_lengths: List[int], value_lengths: List[int]) -> None:
        """Add records whose raw keys and values are already packed back to
        back in ``data`` (``bytes``, or ASCII ``str``): record ``i``'s key
        of ``key_lengths[i]`` bytes, then its value of ``value_lengths[i]``
        bytes (no nulls: every length >= 0). The lowest-level path: a task
        that can produce a whole batch's bytes with one ``join`` pays no
        per-record call at all. Checked: the lengths must add up to
        ``len(data)``."""
        if isinstance(data, str):
            try:
                data = data.encode("ascii")
            except UnicodeEncodeError:
                raise FatalError("extend_packed takes bytes, or ASCII text (lengths count bytes)") from None
        n = len(value_lengths)
        if len(key_lengths) != n:
            raise FatalError(f"extend_packed: {len(key_lengths)} key lengths for {n} value lengths")
        if not n:
            return
        # One pass per list (a min() as well would cost as much again): a
        # negative length that the sum hides is a malformed batch, which the
        # host refuses, failing the task with its error.
        total = sum(key_lengths) + sum(value_lengths)
        if total != len(data):
            raise FatalError(f"extend_packed: the lengths add up to {total} bytes, the data has {len(data)}")
        if not self._plain:
            data = bytes(data)
            pos = 0
            for kl, vl in zip(key_lengths, value_lengths):
                self.add(data[pos : pos + kl], data[pos + kl : pos + kl + vl])
                pos += kl + vl
            return
        if not self._data and self._packed is None and type(data) is bytes:
            self._packed = data  # the batch's only bytes so far: kept, not copied
        else:
            self._unpack()
            self._data += data
        self._key_lengths += key_lengths
        self._value_lengths += value_lengths

    def _unpack(self) -> None:
        """Move bytes kept by extend_packed into the buffer (before any
        other write to it)."""
        if self._packed is not None:
            self._data += self._packed
            self._packed = None

    # -- the general path -------------------------------------------------------
    def add(
        self,
        key: Any = None,
        value: Any = None,
        *,
        key_schema: Any = None,
        value_schema: Any = None,
        topic: Optional[str] = None,
        partition: Optional[int] = None,
        headers: Sequence[Tuple[Any, ...]] = (),
        timestamp: Optional[int] = None,
    ) -> None:
        """Add a record: typed keys and values are encoded under their
        schemas (added to the batch's schema table once), raw ones copied.
        A value that does not fit its schema raises
        :class:`~copycat_sdk.DataError` naming the record, and leaves the
        batch as it was. Call :meth:`advance` for its source partition."""
        record = len(self._value_lengths)
        if partition is not None and (not isinstance(partition, int) or partition < 0):
            raise FatalError(
                f"record {record} of the batch names Kafka partition {partition!r}; partitions are numbered from 0"
            )
        self._unpack()
        data = self._data
        marks = (len(data), len(self._header_key_lengths), len(self._header_schemas), len(self._table.nodes))
        try:
            what = "key"
            kl, kc = self._put(key, key_schema)
            what = "value"
            vl, vc = self._put(value, value_schema)
            hcount = 0
            for h in headers:
                hkey, hvalue = h[0], h[1]
                hschema = h[2] if len(h) > 2 else None
                if not isinstance(hkey, str) or not hkey:
                    raise DataError(f"header {hcount} has an empty or non-text key {hkey!r}")
                what = f"header {hkey!r}"
                kb = hkey.encode()
                data += kb
                hl, hc = self._put(hvalue, hschema)
                header = len(self._header_key_lengths)
                self._header_key_lengths.append(len(kb))
                self._header_value_lengths.append(hl)
                _fill(self._header_schemas, header, hc, RAW)
                hcount += 1
        except (DataError, FatalError) as e:
            del data[marks[0] :]
            del self._header_key_lengths[marks[1] :]
            del self._header_value_lengths[marks[1] :]
            del self._header_schemas[marks[2] :]
            # Nodes added for a record that failed stay: unused, harmless.
            raise DataError(f"record {record} of the batch: {what}: {e}") from None
        if topic is None:
            t = -1
        else:
            t = self._topic_index.get(topic)
            if t is None:
                t = self._topic_index[topic] = len(self._topics)
                self._topics.append(topic)
        if t != -1 or partition is not None or timestamp is not None or hcount or self._topic_indices or \
                self._partitions or self._timestamps or self._header_counts:
            self._plain = False
            _fill(self._topic_indices, record, t, -1)
            _fill(self._partitions, record, -1 if partition is None else partition, -1)
            _fill(self._timestamps, record, -1 if timestamp is None else int(timestamp), -1)
            _fill(self._header_counts, record, hcount, 0)
        self._key_lengths.append(kl)
        if kc != RAW or self._key_schemas:
            self._plain = False
            _fill(self._key_schemas, record, kc, RAW)
        self._value_lengths.append(vl)
        if vc != RAW or self._value_schemas:
            self._plain = False
            _fill(self._value_schemas, record, vc, RAW)

    def add_record(self, record: SourceRecord) -> None:
        """Add a :class:`~copycat_sdk.SourceRecord` and advance its source
        partition to its offset."""
        if not isinstance(record, SourceRecord):
            raise FatalError(f"poll returns SourceRecord objects, not {type(record).__name__}")
        self.add(
            record.key,
            record.value,
            key_schema=record.key_schema,
            value_schema=record.value_schema,
            topic=record.topic,
            partition=record.partition,
            headers=record.headers,
            timestamp=record.timestamp,
        )
        self.advance(record.source_partition, record.source_offset)

    def _put(self, value: Any, schema: Any) -> Tuple[int, int]:
        """Append ``value``'s bytes; its length (-1: null) and schema code."""
        data = self._data
        start = len(data)
        if schema is None:
            if value is None:
                return -1, RAW
            c = value.__class__
            if c is bytes or c is bytearray or c is memoryview:
                data += value
                return len(value), RAW
            if c is str:
                data += value.encode()
                return len(data) - start, RAW
            if isinstance(value, Struct):
                schema = value.schema
            elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                schema = schema_of(type(value))
            else:
                schema = SCHEMALESS
        if schema is SCHEMALESS:
            if value is None:
                return -1, SCHEMALESS_CODE
            wire.encode_dynamic(value, data)
            code = SCHEMALESS_CODE
        elif isinstance(schema, Schema):
            code = self._table.add(schema)
            if value is None:
                if not schema.optional and not schema.has_default:
                    raise DataError(f"null for a required {schema.type.value} schema without a default")
                return -1, code
            wire.encoder(schema)(value, data)
        else:
            raise DataError(f"a schema is a Schema, SCHEMALESS or None, not {schema!r}")
        n = len(data) - start
        if n > _I32_MAX:
            raise DataError(f"{n} bytes, more than a batch can hold")
        return n, code

    # -- offsets ------------------------------------------------------------------------
    def advance(self, partition: Mapping[str, Any], offset: Mapping[str, Any]) -> None:
        """Set the latest offset of source ``partition`` in this batch
        (``{"stream": "s-0"}``, ``{"seq": 41}``): stored once the batch's
        records are in Kafka, handed back by ``read_offsets`` after a
        restart. The maps are copied."""
        self._positions[map_key(partition)] = [partition, dict(offset)]

    def offset(self, partition: Mapping[str, Any]) -> Optional[dict]:
        """The latest offset set for ``partition`` in this batch."""
        p = self._positions.get(map_key(partition))
        return None if p is None else dict(p[1])

    # -- the result -----------------------------------------------------------------
    def finish(self) -> Columns:
        """The batch's columns (what the SDK hands the host)."""
        return Columns(
            self._packed if self._packed is not None else bytes(self._data),
            self._key_lengths,
            self._value_lengths,
            self._topics,
            self._topic_indices,
            self._partitions,
            self._timestamps,
            self._header_counts,
            self._header_key_lengths,
            self._header_value_lengths,
            self._table.nodes,
            self._key_schemas,
            self._value_schemas,
            self._header_schemas,
            [
                (to_json(p, "source partition"), to_json(o, "source offset"))
                for p, o in self._positions.values()
            ],
        )

    def to_sink_batch(self) -> "SinkBatch":
        """The records as a sink would read them if the host handed them
        over untouched (for unit tests): topic as set (or ``""``), Kafka
        partition as set (or 0), offsets from 0."""
        c = self.finish()
        n = len(c.value_lengths)
        topics = list(c.topics) + [""]
        return SinkBatch(
            _SinkColumns(
                data=c.data,
                key_lengths=c.key_lengths,
                value_lengths=c.value_lengths,
                topics=topics,
                topic_indices=[
                    c.topic_indices[i] if c.topic_indices and c.topic_indices[i] >= 0 else len(topics) - 1
                    for i in range(n)
                ],
                partitions=[max(c.partitions[i], 0) if c.partitions else 0 for i in range(n)],
                offsets=list(range(n)),
                timestamps=[c.timestamps[i] if c.timestamps else -1 for i in range(n)],
                header_counts=c.header_counts,
                header_key_lengths=c.header_key_lengths,
                header_value_lengths=c.header_value_lengths,
                schemas=c.schemas,
                key_schemas=c.key_schemas,
                value_schemas=c.value_schemas,
                header_schemas=c.header_schemas,
            )
        )


class _SinkColumns(NamedTuple):
    data: bytes
    key_lengths: List[int]
    value_lengths: List[int]
    topics: List[str]
    topic_indices: List[int]
    partitions: List[int]
    offsets: List[int]
    timestamps: List[int]
    header_counts: List[int]
    header_key_lengths: List[int]
    header_value_lengths: List[int]
    schemas: List[Any]
    key_schemas: List[int]
    value_schemas: List[int]
    header_schemas: List[int]


class Reader:
    """Decodes the keys, values and headers of a batch's columns."""

    __slots__ = ("data", "schemas")

    def __init__(self, data: bytes, nodes: Sequence[Any]) -> None:
        self.data = data
        self.schemas = wire.read_nodes(nodes) if nodes else []

    def schema(self, code: int) -> Any:
        if code == RAW:
            return None
        if code == SCHEMALESS_CODE:
            return SCHEMALESS
        if 0 <= code < len(self.schemas):
            return self.schemas[code]
        raise DataError(f"schema index {code} is not in the batch's {len(self.schemas)} schemas")

    def value(self, start: int, length: int, code: int) -> Any:
        """The value of ``length`` bytes at ``start`` (-1: null)."""
        if length < 0:
            return None
        end = start + length
        if end > len(self.data):
            raise DataError(f"{length} bytes at {start}, past the batch's {len(self.data)}")
        if code == RAW:
            return self.data[start:end]
        if code == SCHEMALESS_CODE:
            return wire.decode_dynamic(self.data, start, end)
        return wire.decode(self.schema(code), self.data, start, end)


class SinkBatch(Sequence):
    """The records of one ``put``, in the order the host read them from
    each partition: a sequence of :class:`~copycat_sdk.SinkRecord`
    (``len``, indexing, iteration; the index is what
    :func:`copycat_sdk.errant.report` takes)."""

    __slots__ = ("_records",)

    def __init__(self, columns: Any) -> None:
        self._records = _read_sink_records(columns)

    @classmethod
    def of(cls, records: Sequence[SinkRecord]) -> "SinkBatch":
        """A batch of ready-made records (for unit tests)."""
        b = cls.__new__(cls)
        b._records = list(records)
        return b

    def __getitem__(self, i: Any) -> Any:
        return self._records[i]

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[SinkRecord]:
        return iter(self._records)

    def __repr__(self) -> str:
        return f"SinkBatch({self._records!r})"


def _read_sink_records(c: Any) -> List[SinkRecord]:
    reader = Reader(c.data, c.schemas)
    n = len(c.value_lengths)
    for name in ("key_lengths", "topic_indices", "partitions", "offsets", "timestamps"):
        if len(getattr(c, name)) != n:
            raise DataError(f"the batch's {name} has {len(getattr(c, name))} entries for {n} records")
    ks = c.key_schemas or [RAW] * n
    vs = c.value_schemas or [RAW] * n
    hcounts = c.header_counts
    hs = c.header_schemas
    topics = c.topics
    pos = 0
    h = 0
    out = []
    value_of = reader.value
    for i in range(n):
        kl = c.key_lengths[i]
        key = value_of(pos, kl, ks[i])
        if kl > 0:
            pos += kl
        vl = c.value_lengths[i]
        value = value_of(pos, vl, vs[i])
        if vl > 0:
            pos += vl
        headers: List[Header] = []
        for _ in range(hcounts[i] if hcounts else 0):
            hkl = c.header_key_lengths[h]
            hkey = str(c.data[pos : pos + hkl], "utf-8", "replace")
            pos += hkl
            hvl = c.header_value_lengths[h]
            code = hs[h] if hs else RAW
            headers.append(Header(hkey, value_of(pos, hvl, code), reader.schema(code)))
            if hvl > 0:
                pos += hvl
            h += 1
        ts = c.timestamps[i]
        out.append(
            SinkRecord(
                topics[c.topic_indices[i]],
                c.partitions[i],
                c.offsets[i],
                key,
                value,
                headers,
                None if ts < 0 else ts,
                reader.schema(ks[i]),
                reader.schema(vs[i]),
            )
        )
    return out


def read_positions(positions: Sequence[Any]) -> List[Tuple[dict, dict]]:
    """WIT ``source-position``s as ``(partition map, offset map)`` pairs."""
    return [(from_json(p.partition, "source partition"), from_json(p.offset)) for p in positions]
