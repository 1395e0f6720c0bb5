"""Kafka Connect's data model: schemas, structs, and dataclasses as schemas.

A typed key, value or header is a Python value with a :class:`Schema`
(Kafka Connect's ``SchemaAndValue``). The host turns it into bytes with
the connector's converters (JSON, Avro, ...), byte for byte as Kafka
Connect does, and hands a sink its records decoded the same way.

Schemas are immutable and compare (and hash) by value. Build them from the
constants and functions here, or from a dataclass with
:func:`schema_of`::

    from dataclasses import dataclass
    from typing import Annotated, Optional
    from copycat_sdk import INT32, connect_schema

    @connect_schema(name="com.example.Reading")
    @dataclass
    class Reading:
        sensor: str                      # string
        seq: int                         # int64 (Python's int)
        celsius: float                   # float64
        ok: bool                         # boolean
        note: Optional[str]              # optional string
        tags: list[str]                  # array of string
        extra: dict[str, int]            # map string -> int64
        port: Annotated[int, INT32]      # an explicit schema: int32

Type hints map as follows: ``int`` -> int64, ``str`` -> string, ``bool``
-> boolean, ``float`` -> float64, ``bytes`` -> bytes,
``datetime.date`` / ``datetime.time`` / ``datetime.datetime`` -> the
logical Date / Time / Timestamp, ``Optional[X]`` (or ``X | None``) ->
X's schema made optional, ``list[X]`` -> array, ``dict[K, V]`` -> map, a
nested dataclass -> a struct. ``Annotated[T, schema]`` (or
``field(metadata={"schema": schema})``) sets a field's schema
explicitly: :data:`INT8`, :data:`INT16`, :data:`INT32`, :data:`FLOAT32`,
:func:`decimal_schema` (``decimal.Decimal`` values), or any other.

A struct value may be a dataclass instance, a :class:`Struct`, or any
mapping from field names to values (a dict with an explicit schema).
"""

from __future__ import annotations

import collections.abc as _abc
import dataclasses
import datetime as _dt
import decimal as _decimal
import enum
import sys
import typing
from collections.abc import Mapping, MutableMapping
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from .errors import FatalError

__all__ = [
    "BOOLEAN",
    "BYTES",
    "DATE",
    "DataError",
    "FLOAT32",
    "FLOAT64",
    "Field",
    "INT16",
    "INT32",
    "INT64",
    "INT8",
    "MapItems",
    "SCHEMALESS",
    "STRING",
    "Schema",
    "Struct",
    "TIME",
    "TIMESTAMP",
    "Type",
    "array_schema",
    "connect_schema",
    "decimal_schema",
    "map_schema",
    "schema_of",
    "struct_schema",
]

DECIMAL_NAME = "org.apache.kafka.connect.data.Decimal"
DATE_NAME = "org.apache.kafka.connect.data.Date"
TIME_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_NAME = "org.apache.kafka.connect.data.Timestamp"


class DataError(FatalError):
    """A value that does not fit its schema, or a schema that cannot be
    built. Raised from a task it fails the task (``connector-error::fatal``)
    with its message, which names the record and field."""


class Type(enum.Enum):
    """Kafka Connect's ``Schema.Type`` (WIT ``schema-type``)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"


class Field(typing.NamedTuple):
    """A struct field: its name, schema and position."""

    name: str
    schema: "Schema"
    index: int


_NO_DEFAULT: Any = object()


class Schema:
    """A Kafka Connect schema (immutable; equal schemas compare and hash
    equal). Use the constants (:data:`INT64`, :data:`STRING`, ...) and
    functions (:func:`array_schema`, :func:`map_schema`, :func:`struct_schema`,
    :func:`decimal_schema`, :func:`schema_of`) rather than this constructor.
    """

    __slots__ = (
        "type",
        "optional",
        "name",
        "version",
        "doc",
        "parameters",
        "default",
        "fields",
        "key_schema",
        "value_schema",
        "_hash",
        "_index",
        "_encode",
        "_decode",
    )

    def __init__(
        self,
        type: Type,
        *,
        optional: bool = False,
        name: Optional[str] = None,
        version: Optional[int] = None,
        doc: Optional[str] = None,
        parameters: Iterable[Tuple[str, str]] = (),
        default: Any = _NO_DEFAULT,
        fields: Iterable[Tuple[str, "Schema"]] = (),
        key_schema: Optional["Schema"] = None,
        value_schema: Optional["Schema"] = None,
    ) -> None:
        type = Type(type)
        field_list = tuple(Field(n, s, i) for i, (n, s) in enumerate(fields))
        if field_list and type is not Type.STRUCT:
            raise DataError(f"a {type.value} schema has no fields")
        names = [f.name for f in field_list]
        if len(set(names)) != len(names):
            raise DataError(f"struct schema {name or ''} has a duplicate field name: {names}")
        for f in field_list:
            if not isinstance(f.name, str) or not isinstance(f.schema, Schema):
                raise DataError(f"a struct field is a (name, Schema) pair, not {f[:2]!r}")
        if type is Type.ARRAY and not isinstance(value_schema, Schema):
            raise DataError("an array schema needs its element schema")
        if type is Type.MAP and not (isinstance(key_schema, Schema) and isinstance(value_schema, Schema)):
            raise DataError("a map schema needs its key and value schemas")
        if type not in (Type.ARRAY, Type.MAP) and (key_schema is not None or value_schema is not None):
            raise DataError(f"a {type.value} schema has no key or value schema")
        s = object.__setattr__
        s(self, "type", type)
        s(self, "optional", bool(optional))
        s(self, "name", name)
        s(self, "version", version)
        s(self, "doc", doc)
        s(self, "parameters", tuple((str(k), str(v)) for k, v in parameters))
        s(self, "default", default)
        s(self, "fields", field_list)
        s(self, "key_schema", key_schema)
        s(self, "value_schema", value_schema)
        s(self, "_hash", None)
        s(self, "_index", {f.name: f.index for f in field_list})
        s(self, "_encode", None)
        s(self, "_decode", None)
        if default is not _NO_DEFAULT:
            from . import wire  # a default must encode under this schema

            wire.encode_default(self)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Schema is immutable: use its methods to make a changed copy")

    # -- copies -------------------------------------------------------------
    def _copy(self, **changes: Any) -> "Schema":
        args = dict(
            optional=self.optional,
            name=self.name,
            version=self.version,
            doc=self.doc,
            parameters=self.parameters,
            default=self.default,
            fields=[(f.name, f.schema) for f in self.fields],
            key_schema=self.key_schema,
            value_schema=self.value_schema,
        )
        args.update(changes)
        return Schema(self.type, **args)

    def as_optional(self) -> "Schema":
        """This schema, optional (null allowed)."""
        return self if self.optional else self._copy(optional=True)

    def as_required(self) -> "Schema":
        """This schema, not optional."""
        return self._copy(optional=False) if self.optional else self

    def with_default(self, value: Any) -> "Schema":
        """This schema with a default value (checked against it)."""
        return self._copy(default=value)

    def with_name(self, name: Optional[str], version: Optional[int] = None) -> "Schema":
        """This schema, named (and versioned)."""
        return self._copy(name=name, version=version if version is not None else self.version)

    def with_doc(self, doc: Optional[str]) -> "Schema":
        """This schema with documentation."""
        return self._copy(doc=doc)

    # -- queries ------------------------------------------------------------
    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT

    def field(self, name: str) -> Field:
        """The struct field called ``name`` (``KeyError`` if none)."""
        return self.fields[self._index[name]]

    def field_names(self) -> List[str]:
        return [f.name for f in self.fields]

    @property
    def parameter_map(self) -> Dict[str, str]:
        return dict(self.parameters)

    @property
    def logical(self) -> Optional[str]:
        """``"decimal"``, ``"date"``, ``"time"``, ``"timestamp"`` for
        Kafka Connect's logical types, else ``None``."""
        return _LOGICAL.get((self.name, self.type))

    def _key(self) -> tuple:
        return (
            self.type,
            self.optional,
            self.name,
            self.version,
            self.doc,
            self.parameters,
            tuple((f.name, f.schema) for f in self.fields),
            self.key_schema,
            self.value_schema,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema):
            return NotImplemented
        if hash(self) != hash(other) or self._key() != other._key():
            return False
        if self.has_default != other.has_default:
            return False
        if not self.has_default:
            return True
        from . import wire

        return wire.encode_default(self) == wire.encode_default(other)

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(self._key())
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        parts = [self.type.value]
        if self.name:
            parts.append(repr(self.name))
        if self.type is Type.STRUCT:
            parts.append("{" + ", ".join(f"{f.name}: {f.schema!r}" for f in self.fields) + "}")
        elif self.type is Type.ARRAY:
            parts.append(f"<{self.value_schema!r}>")
        elif self.type is Type.MAP:
            parts.append(f"<{self.key_schema!r}, {self.value_schema!r}>")
        if self.optional:
            parts.append("optional")
        return "Schema(" + " ".join(parts) + ")"


class _Schemaless:
    """The marker for a schemaless key, value or header (Kafka Connect's
    ``null`` schema: what JsonConverter with ``schemas.enable=false``
    reads). See :data:`SCHEMALESS`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SCHEMALESS"

    def __reduce__(self) -> str:
        return "SCHEMALESS"


#: A key, value or header without a schema: on a source record, encode it
#: schemaless (a dict, list, str, int, float, bool, bytes or None); on a
#: sink record, what ``key_schema`` / ``value_schema`` is for such a value.
SCHEMALESS = _Schemaless()

INT8 = Schema(Type.INT8)
INT16 = Schema(Type.INT16)
INT32 = Schema(Type.INT32)
INT64 = Schema(Type.INT64)
FLOAT32 = Schema(Type.FLOAT32)
FLOAT64 = Schema(Type.FLOAT64)
BOOLEAN = Schema(Type.BOOLEAN)
STRING = Schema(Type.STRING)
BYTES = Schema(Type.BYTES)
#: Logical Date: int32 days since 1970-01-01; values ``datetime.date`` (or int).
DATE = Schema(Type.INT32, name=DATE_NAME, version=1)
#: Logical Time: int32 milliseconds of the day; values ``datetime.time`` (or int).
TIME = Schema(Type.INT32, name=TIME_NAME, version=1)
#: Logical Timestamp: int64 milliseconds since the epoch; values
#: ``datetime.datetime`` (naive ones are taken as UTC) or int.
TIMESTAMP = Schema(Type.INT64, name=TIMESTAMP_NAME, version=1)

_LOGICAL = {
    (DECIMAL_NAME, Type.BYTES): "decimal",
    (DATE_NAME, Type.INT32): "date",
    (TIME_NAME, Type.INT32): "time",
    (TIMESTAMP_NAME, Type.INT64): "timestamp",
}


def decimal_schema(scale: int) -> Schema:
    """Logical Decimal of ``scale`` (bytes: the unscaled value, big-endian
    two's complement); values ``decimal.Decimal`` (or int)."""
    if not isinstance(scale, int) or isinstance(scale, bool):
        raise DataError(f"a Decimal's scale is an integer, not {scale!r}")
    return Schema(Type.BYTES, name=DECIMAL_NAME, version=1, parameters=[("scale", str(scale))])


def array_schema(element: Schema, *, optional: bool = False) -> Schema:
    """An array of ``element``."""
    return Schema(Type.ARRAY, value_schema=element, optional=optional)


def map_schema(key: Schema, value: Schema, *, optional: bool = False) -> Schema:
    """A map from ``key`` to ``value``."""
    return Schema(Type.MAP, key_schema=key, value_schema=value, optional=optional)


def struct_schema(
    name: Optional[str] = None,
    fields: Union[Sequence[Tuple[str, Schema]], Mapping[str, Schema]] = (),
    *,
    optional: bool = False,
    version: Optional[int] = None,
    doc: Optional[str] = None,
) -> Schema:
    """A struct schema with ``fields`` in order: ``(name, schema)`` pairs
    or a dict. ``struct("com.example.Point", {"x": INT32, "y": INT32})``."""
    items = list(fields.items()) if isinstance(fields, Mapping) else list(fields)
    return Schema(Type.STRUCT, name=name, fields=items, optional=optional, version=version, doc=doc)


class Struct(MutableMapping):
    """A struct value: its schema and one value per field, in field order.
    A mapping from field names to values (``s["name"]``, ``s.get``,
    ``dict(s)``, iteration in field order); a field missing from the
    values given is ``None``. Sinks get typed struct values as these.
    """

    __slots__ = ("schema", "_values")

    def __init__(self, schema: Schema, values: Union[Mapping[str, Any], None] = None, **kwargs: Any) -> None:
        if not isinstance(schema, Schema) or schema.type is not Type.STRUCT:
            raise DataError(f"a Struct needs a struct schema, not {schema!r}")
        self.schema = schema
        self._values: List[Any] = [None] * len(schema.fields)
        for source in (values or {}, kwargs):
            for k, v in source.items():
                self[k] = v

    @classmethod
    def _of(cls, schema: Schema, values: List[Any]) -> "Struct":
        s = cls.__new__(cls)
        s.schema = schema
        s._values = values
        return s

    def __getitem__(self, name: str) -> Any:
        return self._values[self.schema._index[name]]

    def __setitem__(self, name: str, value: Any) -> None:
        i = self.schema._index.get(name)
        if i is None:
            raise KeyError(f"{name!r} is not a field of {self.schema.name or 'this struct'}")
        self._values[i] = value

    def __delitem__(self, name: str) -> None:
        raise TypeError("a struct's fields cannot be removed; set one to None")

    def __iter__(self) -> Iterator[str]:
        return (f.name for f in self.schema.fields)

    def __len__(self) -> int:
        return len(self._values)

    def values_in_order(self) -> List[Any]:
        """The field values, in field order."""
        return list(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Struct):
            return self.schema == other.schema and self._values == other._values
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={v!r}" for f, v in zip(self.schema.fields, self._values))
        return f"Struct({self.schema.name or ''}{': ' if self.schema.name else ''}{inner})"


class MapItems(list):
    """A decoded map whose keys Python cannot hash (arrays, maps or structs
    as keys): a list of ``(key, value)`` pairs, in the order sent. Maps
    with hashable keys decode to ``dict``."""


# -- dataclasses as schemas ------------------------------------------------------

_PLAIN = {
    int: INT64,
    str: STRING,
    bool: BOOLEAN,
    float: FLOAT64,
    bytes: BYTES,
    bytearray: BYTES,
    _dt.datetime: TIMESTAMP,
    _dt.date: DATE,
    _dt.time: TIME,
}


def connect_schema(
    cls: Any = None, *, name: Optional[str] = None, version: Optional[int] = None, doc: Optional[str] = None
) -> Any:
    """Class decorator: give a dataclass its struct schema's name (and
    version, doc). ``@connect_schema(name="com.example.Order")`` above
    ``@dataclass``. The schema is :func:`schema_of` the class."""

    def apply(c: Any) -> Any:
        if not dataclasses.is_dataclass(c):
            raise DataError(f"@connect_schema goes on a dataclass (above @dataclass), not {c!r}")
        c.__connect_schema__ = None
        c.__connect_schema_meta__ = (name, version, doc)
        c.__connect_schema__ = _build_dataclass_schema(c)
        return c

    return apply(cls) if cls is not None else apply


def schema_of(cls: Any) -> Schema:
    """The struct schema of a dataclass (see the module doc for how type
    hints map), built once and cached on the class."""
    if isinstance(cls, Schema):
        return cls
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise DataError(f"schema_of takes a dataclass, not {cls!r}")
    cached = cls.__dict__.get("__connect_schema__")
    if cached is None:
        cached = _build_dataclass_schema(cls)
        cls.__connect_schema__ = cached
    return cached


def _build_dataclass_schema(cls: type) -> Schema:
    name, version, doc = cls.__dict__.get("__connect_schema_meta__", (None, None, None))
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as e:  # an unresolvable forward reference
        raise DataError(f"{cls.__name__}: cannot read its type hints: {e}") from e
    fields = []
    for f in dataclasses.fields(cls):
        explicit = f.metadata.get("schema") if f.metadata else None
        try:
            s = explicit if isinstance(explicit, Schema) else _schema_for_hint(hints.get(f.name, Any))
        except DataError as e:
            raise DataError(f"{cls.__name__}.{f.name}: {e}") from None
        fields.append((f.name, s))
    return Schema(Type.STRUCT, name=name, version=version, doc=doc, fields=fields)


def _schema_for_hint(hint: Any) -> Schema:
    if isinstance(hint, Schema):
        return hint
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        for extra in hint.__metadata__:
            if isinstance(extra, Schema):
                inner = args[0]
                optional = _is_optional(inner)
                return extra.as_optional() if optional else extra
        return _schema_for_hint(args[0])
    if origin is Union or (sys.version_info >= (3, 10) and _is_union_type(hint)):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _schema_for_hint(rest[0]).as_optional()
        raise DataError(f"{hint!r}: only Optional[X] unions map to a schema")
    if origin in (list, _abc.Sequence) and origin is not None:
        if not args:
            raise DataError("a list needs its element type: list[X]")
        return array_schema(_schema_for_hint(args[0]))
    if origin in (dict, _abc.Mapping, _abc.MutableMapping) and origin is not None:
        if len(args) != 2:
            raise DataError("a dict needs its key and value types: dict[K, V]")
        return map_schema(_schema_for_hint(args[0]), _schema_for_hint(args[1]))
    if hint in _PLAIN:
        return _PLAIN[hint]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return schema_of(hint)
    if hint is _decimal.Decimal:
        raise DataError("a Decimal needs its scale: Annotated[Decimal, decimal_schema(scale)]")
    raise DataError(f"no Kafka Connect schema for the type {hint!r}")


def _is_optional(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is Union or (sys.version_info >= (3, 10) and _is_union_type(hint)):
        return type(None) in typing.get_args(hint)
    return False


def _is_union_type(hint: Any) -> bool:
    import types as _types

    return isinstance(hint, getattr(_types, "UnionType", ()))
