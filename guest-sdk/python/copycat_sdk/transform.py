"""Transform components (``wit/transform@0.1.0``, world ``transform``):
a batch of records in, a batch out, between a connector and its
converters (Kafka Connect's single message transforms, as a component).

Subclass :class:`Transform` and bind the export at the end of the module::

    from copycat_sdk.transform import Transform, TransformInfo, export_transform
    from copycat_sdk import ConfigKey

    PREFIX = ConfigKey.string("prefix", required=True, doc="Text put before every topic")

    class TopicPrefix(Transform):
        def describe(self):
            return TransformInfo("topic-prefix", "0.1.0", "Prefixes topics", [PREFIX])

        def configure(self, config):
            self.prefix = PREFIX.parse(config)

        def apply(self, record):
            record.topic = self.prefix + record.topic
            return record

    Transformer = export_transform(TopicPrefix)

``apply`` gets one :class:`TransformRecord` at a time and returns it
(changed or not), ``None`` to drop it, or a list of records (made with
``record.copy(...)`` or :class:`TransformRecord`). Keys, values and
headers are decoded only when read: a transform that only renames topics
copies their bytes through untouched. The host hands a transform every
key and value typed (a connector's raw bytes as an optional ``bytes``
value, i.e. ``bytes`` in Python).

Errors: :class:`~copycat_sdk.ConfigError` from ``configure`` is the
``config`` case; :class:`RecordError` (or a
:class:`~copycat_sdk.DataError`) from ``apply`` is the ``record`` case
with the record's index (Kafka Connect's ``DataException``); any other
exception is ``fatal``.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Type

from . import host
from .batch import RAW, Reader, _fill
from .config import Config, ConfigKey, Problem, problems
from .errors import ConfigError, ConnectorError
from .records import Header
from .schema import SCHEMALESS, DataError
from . import wire

__all__ = ["RecordError", "Transform", "TransformInfo", "TransformRecord", "export_transform", "run"]


class RecordError(ConnectorError):
    """One input record cannot be transformed (Kafka Connect's
    ``DataException``): the host handles it by the connector's
    ``errors.*`` keys."""

    variant = "record"


@dataclass
class TransformInfo:
    """What a transform says about itself: a short stable name, its
    version, one line for operators, and every setting it takes (the keys
    after ``transforms.<alias>.``)."""

    name: str
    version: str
    description: str = ""
    config_def: Sequence[ConfigKey] = ()


class Transform:
    """A transform. Override :meth:`describe` and :meth:`apply`."""

    def describe(self) -> TransformInfo:
        raise NotImplementedError("Transform.describe")

    def validate(self, config: Config) -> List[Problem]:
        """Problems with the settings, one per key at fault. The default
        checks every declared key."""
        return problems(config, self.describe().config_def)

    def configure(self, config: Config) -> None:
        """Start with these settings; called once, before any ``apply``."""

    def apply(self, record: "TransformRecord") -> Any:
        """Return the record (changed or not), ``None`` to drop it, or a
        list of records."""
        raise NotImplementedError("Transform.apply")


_UNREAD = object()


class TransformRecord:
    """A record passing through a transform. ``topic``, ``partition``
    (``None``: unset), ``timestamp`` (ms, ``None``: unset) are attributes;
    ``key``, ``value`` and ``headers`` (a list of
    :class:`~copycat_sdk.Header`) and their schemas are decoded on first
    read. ``offset`` is the Kafka offset of a sink's record (``None`` for
    a source's); the host keeps it whatever is returned."""

    __slots__ = (
        "topic",
        "partition",
        "timestamp",
        "offset",
        "_reader",
        "_k",
        "_v",
        "_h",
        "_key",
        "_key_schema",
        "_value",
        "_value_schema",
        "_headers",
    )

    def __init__(
        self,
        topic: str,
        key: Any = None,
        value: Any = None,
        *,
        key_schema: Any = None,
        value_schema: Any = None,
        partition: Optional[int] = None,
        timestamp: Optional[int] = None,
        headers: Sequence[Tuple[Any, ...]] = (),
    ) -> None:
        self.topic = topic
        self.partition = partition
        self.timestamp = timestamp
        self.offset: Optional[int] = None
        self._reader: Optional[Reader] = None
        self._k = self._v = self._h = None
        self._key, self._key_schema = key, key_schema
        self._value, self._value_schema = value, value_schema
        self._headers: Any = [Header(*h) for h in headers]

    @classmethod
    def _read(cls, reader: Reader, topic: str, partition: int, timestamp: int, offset: int,
              k: Tuple[int, int, int], v: Tuple[int, int, int], h: Optional[Tuple[int, int, int]]) -> "TransformRecord":
        r = cls.__new__(cls)
        r.topic = topic
        r.partition = None if partition < 0 else partition
        r.timestamp = None if timestamp < 0 else timestamp
        r.offset = None if offset < 0 else offset
        r._reader = reader
        r._k, r._v, r._h = k, v, h
        r._key = r._value = r._headers = _UNREAD
        r._key_schema = r._value_schema = _UNREAD
        return r

    def _load(self, which: str) -> None:
        reader = self._reader
        assert reader is not None
        if which == "k":
            start, length, code = self._k  # type: ignore[misc]
            self._key, self._key_schema = reader.value(start, length, code), reader.schema(code)
            self._k = None
        else:
            start, length, code = self._v  # type: ignore[misc]
            self._value, self._value_schema = reader.value(start, length, code), reader.schema(code)
            self._v = None

    @property
    def key(self) -> Any:
        if self._k is not None:
            self._load("k")
        return self._key

    @key.setter
    def key(self, value: Any) -> None:
        if self._k is not None:
            self._load("k")
        self._key = value

    @property
    def key_schema(self) -> Any:
        if self._k is not None:
            self._load("k")
        return self._key_schema

    @key_schema.setter
    def key_schema(self, schema: Any) -> None:
        if self._k is not None:
            self._load("k")
        self._key_schema = schema

    @property
    def value(self) -> Any:
        if self._v is not None:
            self._load("v")
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        if self._v is not None:
            self._load("v")
        self._value = value

    @property
    def value_schema(self) -> Any:
        if self._v is not None:
            self._load("v")
        return self._value_schema

    @value_schema.setter
    def value_schema(self, schema: Any) -> None:
        if self._v is not None:
            self._load("v")
        self._value_schema = schema

    @property
    def headers(self) -> List[Header]:
        if self._h is not None:
            reader = self._reader
            assert reader is not None
            start, first, count = self._h
            self._headers = reader.headers(start, first, count)
            self._h = None
        elif self._headers is _UNREAD:
            self._headers = []
        return self._headers

    @headers.setter
    def headers(self, headers: Sequence[Tuple[Any, ...]]) -> None:
        self._h = None
        self._headers = [Header(*h) for h in headers]

    def copy(self, **changes: Any) -> "TransformRecord":
        """A new record with this one's fields, some changed
        (``record.copy(topic="other", value=...)``)."""
        fields = dict(
            topic=self.topic,
            key=self.key,
            value=self.value,
            key_schema=self.key_schema,
            value_schema=self.value_schema,
            partition=self.partition,
            timestamp=self.timestamp,
            headers=list(self.headers),
        )
        fields.update(changes)
        topic = fields.pop("topic")
        out = TransformRecord(topic, **fields)
        out.offset = self.offset
        return out

    def __repr__(self) -> str:
        return (
            f"TransformRecord(topic={self.topic!r}, partition={self.partition}, key={self.key!r}, "
            f"value={self.value!r}, value_schema={self.value_schema!r})"
        )


class _TransformReader(Reader):
    __slots__ = ("header_key_lengths", "header_value_lengths", "header_schemas")

    def headers(self, start: int, first: int, count: int) -> List[Header]:
        out = []
        pos = start
        hs = self.header_schemas
        for h in range(first, first + count):
            kl = self.header_key_lengths[h]
            key = str(self.data[pos : pos + kl], "utf-8", "replace")
            pos += kl
            vl = self.header_value_lengths[h]
            code = hs[h] if hs else RAW
            out.append(Header(key, self.value(pos, vl, code), self.schema(code)))
            if vl > 0:
                pos += vl
        return out


class _Output:
    """The batch ``apply`` returns, with the input's schema nodes first."""

    def __init__(self, nodes: Sequence[Any], reader: Reader) -> None:
        self.data = bytearray()
        self.key_lengths: List[int] = []
        self.value_lengths: List[int] = []
        self.topics: List[str] = []
        self.topic_index: dict = {}
        self.topic_indices: List[int] = []
        self.partitions: List[int] = []
        self.timestamps: List[int] = []
        self.offsets: List[int] = []
        self.header_counts: List[int] = []
        self.header_key_lengths: List[int] = []
        self.header_value_lengths: List[int] = []
        self.key_schemas: List[int] = []
        self.value_schemas: List[int] = []
        self.header_schemas: List[int] = []
        self.origins: List[int] = []
        self.table = wire.SchemaTable(nodes, reader.schemas)
        self.input = reader.data

    def _put(self, value: Any, schema: Any) -> Tuple[int, int]:
        data = self.data
        start = len(data)
        if schema is None:
            if value is None:
                return -1, RAW
            if isinstance(value, str):
                value = value.encode()
            if not isinstance(value, (bytes, bytearray, memoryview)):
                raise DataError(f"a {type(value).__name__} value without a schema: give it one, or SCHEMALESS")
            data += value
            return len(value), RAW
        if schema is SCHEMALESS:
            if value is None:
                return -1, -2
            wire.encode_dynamic(value, data)
            return len(data) - start, -2
        code = self.table.add(schema)
        if value is None:
            if not schema.optional and not schema.has_default:
                raise DataError(f"null for a required {schema.type.value} schema without a default")
            return -1, code
        wire.encoder(schema)(value, data)
        return len(data) - start, code

    def _copy(self, slot: Tuple[int, int, int]) -> Tuple[int, int]:
        start, length, code = slot
        if length > 0:
            self.data += self.input[start : start + length]
        return length, code

    def push(self, r: TransformRecord, origin: int) -> None:
        n = len(self.value_lengths)
        mark = len(self.data), len(self.header_key_lengths), len(self.header_schemas)
        try:
            kl, kc = self._copy(r._k) if r._k is not None else self._put(r._key, r._key_schema)
            vl, vc = self._copy(r._v) if r._v is not None else self._put(r._value, r._value_schema)
            if r._h is not None:
                start, first, count = r._h
                reader = r._reader
                assert isinstance(reader, _TransformReader)
                end = start
                for h in range(first, first + count):
                    hl = reader.header_value_lengths[h]
                    end += reader.header_key_lengths[h] + max(hl, 0)
                    header = len(self.header_key_lengths)
                    self.header_key_lengths.append(reader.header_key_lengths[h])
                    self.header_value_lengths.append(hl)
                    _fill(self.header_schemas, header, reader.header_schemas[h] if reader.header_schemas else RAW, RAW)
                self.data += self.input[start:end]
                hcount = count
            else:
                headers = r._headers if r._headers is not _UNREAD else []
                for h in headers:
                    key = h[0]
                    if not isinstance(key, str):
                        raise DataError(f"a header key is text, not {key!r}")
                    kb = key.encode()
                    self.data += kb
                    hl, hc = self._put(h[1], h[2] if len(h) > 2 else None)
                    header = len(self.header_key_lengths)
                    self.header_key_lengths.append(len(kb))
                    self.header_value_lengths.append(hl)
                    _fill(self.header_schemas, header, hc, RAW)
                hcount = len(headers)
        except DataError:
            del self.data[mark[0] :]
            del self.header_key_lengths[mark[1] :]
            del self.header_value_lengths[mark[1] :]
            del self.header_schemas[mark[2] :]
            raise
        topic = r.topic
        if not isinstance(topic, str):
            raise DataError(f"a record's topic is text, not {topic!r}")
        t = self.topic_index.get(topic)
        if t is None:
            t = self.topic_index[topic] = len(self.topics)
            self.topics.append(topic)
        self.topic_indices.append(t)
        self.partitions.append(-1 if r.partition is None else int(r.partition))
        self.timestamps.append(-1 if r.timestamp is None else int(r.timestamp))
        self.offsets.append(-1 if r.offset is None else r.offset)
        _fill(self.header_counts, n, hcount, 0)
        self.key_lengths.append(kl)
        _fill(self.key_schemas, n, kc, RAW)
        self.value_lengths.append(vl)
        _fill(self.value_schemas, n, vc, RAW)
        self.origins.append(origin)


def read_batch(batch: Any) -> List[TransformRecord]:
    """The records of a WIT ``record-batch`` (or anything with its fields)."""
    reader = _TransformReader(batch.data, batch.schemas)
    reader.header_key_lengths = batch.header_key_lengths
    reader.header_value_lengths = batch.header_value_lengths
    reader.header_schemas = batch.header_schemas
    n = len(batch.value_lengths)
    ks = batch.key_schemas or [RAW] * n
    vs = batch.value_schemas or [RAW] * n
    hcounts = batch.header_counts
    topics = batch.topics
    out = []
    pos = 0
    h = 0
    for i in range(n):
        kl = batch.key_lengths[i]
        k = (pos, kl, ks[i])
        pos += max(kl, 0)
        vl = batch.value_lengths[i]
        v = (pos, vl, vs[i])
        pos += max(vl, 0)
        count = hcounts[i] if hcounts else 0
        hslot = None
        if count:
            hslot = (pos, h, count)
            for j in range(h, h + count):
                pos += batch.header_key_lengths[j] + max(batch.header_value_lengths[j], 0)
            h += count
        out.append(
            TransformRecord._read(
                reader, topics[batch.topic_indices[i]], batch.partitions[i], batch.timestamps[i],
                batch.offsets[i], k, v, hslot,
            )
        )
    return out


def _apply(transform: Transform, batch: Any) -> _Output:
    """Run ``transform`` over a batch: the output columns."""
    records = read_batch(batch)
    reader = records[0]._reader if records else Reader(batch.data, batch.schemas)
    out = _Output(batch.schemas, reader)  # type: ignore[arg-type]
    for i, record in enumerate(records):
        try:
            result = transform.apply(record)
            if result is None:
                continue
            if isinstance(result, TransformRecord):
                out.push(result, i)
            else:
                for r in result:
                    if not isinstance(r, TransformRecord):
                        raise DataError(f"apply returns TransformRecord objects, not {type(r).__name__}")
                    out.push(r, i)
        except (RecordError, DataError) as e:
            raise _RecordFailure(i, str(e)) from None
    return out


class _RecordFailure(Exception):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


def run(transform: Transform, records: Iterable[TransformRecord]) -> List[TransformRecord]:
    """Unit tests: pass ``records`` (made with :class:`TransformRecord`)
    through ``transform`` the way the component does (encoded into a
    batch, decoded, applied, encoded again) and return what comes out,
    decoded. A :class:`RecordError` comes back as one, its message
    starting with the record's index."""
    from types import SimpleNamespace

    src = _Output([], Reader(b"", []))
    for r in records:
        src.push(r, 0)
    batch = SimpleNamespace(
        data=bytes(src.data),
        key_lengths=src.key_lengths,
        value_lengths=src.value_lengths,
        topics=src.topics,
        topic_indices=src.topic_indices,
        partitions=src.partitions,
        timestamps=src.timestamps,
        offsets=src.offsets,
        header_counts=src.header_counts,
        header_key_lengths=src.header_key_lengths,
        header_value_lengths=src.header_value_lengths,
        schemas=src.table.nodes,
        key_schemas=src.key_schemas,
        value_schemas=src.value_schemas,
        header_schemas=src.header_schemas,
        origins=[],
    )
    try:
        out = _apply(transform, batch)
    except _RecordFailure as e:
        raise RecordError(f"record {e.index}: {e.message}") from None
    result = SimpleNamespace(
        data=bytes(out.data),
        key_lengths=out.key_lengths,
        value_lengths=out.value_lengths,
        topics=out.topics,
        topic_indices=out.topic_indices,
        partitions=out.partitions,
        timestamps=out.timestamps,
        offsets=out.offsets,
        header_counts=out.header_counts,
        header_key_lengths=out.header_key_lengths,
        header_value_lengths=out.header_value_lengths,
        schemas=out.table.nodes,
        key_schemas=out.key_schemas,
        value_schemas=out.value_schemas,
        header_schemas=out.header_schemas,
    )
    decoded = read_batch(result)
    for r in decoded:  # decode everything now, for plain comparisons
        r.key, r.value, r.headers  # noqa: B018
    return decoded


# -- the export -----------------------------------------------------------------------


def export_transform(transform: Type[Transform]) -> type:
    """The ``Transformer`` class to bind at the end of the app module:
    ``Transformer = export_transform(MyTransform)``. ``transform`` is
    instantiated without arguments."""
    host.install_log_handler()
    state: dict = {}

    def instance() -> Transform:
        t = state.get("t")
        if t is None:
            t = state["t"] = transform()
        return t

    class Transformer:
        """``copycat:transform/transformer``, implemented by ``transform``."""

        def describe(self) -> Any:
            from wit_world.exports import transformer as wt  # type: ignore[import-not-found]

            from .export import _config_keys

            info = instance().describe()
            return wt.TransformInfo(
                name=info.name,
                version=info.version,
                description=info.description,
                config_def=_config_keys(info.config_def),
            )

        def validate(self, config: List[Tuple[str, str]]) -> List[Any]:
            from .export import _problems

            return _problems(lambda: instance().validate(Config(config)))

        def configure(self, config: List[Tuple[str, str]]) -> None:
            try:
                instance().configure(Config(config))
            except Exception as e:
                raise _transform_error("configure", e) from None

        def apply(self, batch: Any) -> Any:
            from wit_world.exports import transformer as wt  # type: ignore[import-not-found]

            from .export import _wit_nodes

            try:
                out = _apply(instance(), batch)
            except _RecordFailure as e:
                from componentize_py_types import Err  # type: ignore[import-not-found]

                raise Err(wt.TransformError_Record((e.index, e.message))) from None
            except Exception as e:
                raise _transform_error("apply", e) from None
            n_in = len(batch.schemas)
            nodes = out.table.nodes
            return wt.RecordBatch(
                data=bytes(out.data),
                key_lengths=out.key_lengths,
                value_lengths=out.value_lengths,
                topics=out.topics,
                topic_indices=out.topic_indices,
                partitions=out.partitions,
                timestamps=out.timestamps,
                offsets=out.offsets,
                header_counts=out.header_counts,
                header_key_lengths=out.header_key_lengths,
                header_value_lengths=out.header_value_lengths,
                schemas=list(batch.schemas) + _wit_nodes(nodes[n_in:]),
                key_schemas=out.key_schemas,
                value_schemas=out.value_schemas,
                header_schemas=out.header_schemas,
                origins=out.origins,
            )

    return Transformer


def _transform_error(call: str, e: BaseException) -> Any:
    from componentize_py_types import Err  # type: ignore[import-not-found]
    from wit_world.exports import transformer as wt  # type: ignore[import-not-found]

    if isinstance(e, ConfigError):
        return Err(wt.TransformError_Config(e.message))
    if isinstance(e, ConnectorError):
        return Err(wt.TransformError_Fatal(e.message))
    host.error(f"{call} raised {type(e).__name__}:\n{''.join(traceback.format_exception(e)).rstrip()}")
    return Err(wt.TransformError_Fatal(f"{call}: {type(e).__name__}: {e}"))
