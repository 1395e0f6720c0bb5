"""The value encoding of contract 0.3.0 (``wit/connector@0.3.0/batch.wit``)
and the flattened schema table: what the batches carry for typed keys,
values and headers. Bit-exact with ``copycat-data``'s ``wire`` module.

Little-endian throughout: an optional schema's value starts with a byte,
0 null (nothing follows) or 1; int8 and boolean take 1 byte; int16, int32,
int64 2, 4, 8; float32 and float64 are IEEE 754; string and bytes are a u32
length then the bytes; a Decimal is its unscaled value's big-endian two's
complement, as bytes; an array is a u32 count then the elements; a map a
u32 count then key, value, ...; a struct its fields in order. A schemaless
value has a tag byte before each value (0 null, 1 int8, 2 int16, 3 int32,
4 int64, 5 float32, 6 float64, 7 boolean, 8 string, 9 bytes, 10 array,
11 map).

Encoders and decoders are compiled once per schema (closures cached on the
:class:`~copycat_sdk.Schema`), so a batch of records of one schema pays
the dispatch on types once.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import decimal as _decimal
import operator
import struct as _struct
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .schema import DataError, MapItems, Schema, Struct, Type

__all__ = [
    "Node",
    "SchemaTable",
    "decode",
    "decode_dynamic",
    "encode",
    "encode_dynamic",
    "encoder",
    "read_nodes",
]

Encoder = Callable[[Any, bytearray], None]
Decoder = Callable[[bytes, int], Tuple[Any, int]]

_U32 = _struct.Struct("<I")
_PACK = {
    Type.INT8: _struct.Struct("<b"),
    Type.INT16: _struct.Struct("<h"),
    Type.INT32: _struct.Struct("<i"),
    Type.INT64: _struct.Struct("<q"),
    Type.FLOAT32: _struct.Struct("<f"),
    Type.FLOAT64: _struct.Struct("<d"),
}
_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MS_PER_DAY = 86_400_000

MAX_DEPTH = 100


def _describe(schema: Schema) -> str:
    return f"{schema.type.value} schema" + (f" ({schema.name})" if schema.name else "")


def _type_error(schema: Schema, value: Any) -> DataError:
    return DataError(f"a {type(value).__name__} value ({_short(value)}) for a {_describe(schema)}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- encoding ------------------------------------------------------------------


def encoder(schema: Schema) -> Encoder:
    """The compiled encoder of ``schema``: ``enc(value, out)`` appends
    ``value``'s encoding to the bytearray ``out`` (``None`` is null)."""
    e = schema._encode
    if e is None:
        e = _compile(schema, 0)
    return e


def encode(schema: Schema, value: Any, out: Optional[bytearray] = None) -> bytearray:
    """``value``'s encoding under ``schema``, appended to ``out`` (a new
    bytearray by default), which is returned."""
    if out is None:
        out = bytearray()
    encoder(schema)(value, out)
    return out


def encode_default(schema: Schema) -> Optional[bytes]:
    """The encoding of ``schema``'s default value (``None`` without one)."""
    if not schema.has_default:
        return None
    out = bytearray()
    try:
        if schema.default is None:
            _null(schema, out)
        else:
            encoder(schema)(schema.default, out)
    except DataError as e:
        raise DataError(f"the default of a {_describe(schema)}: {e}") from None
    return bytes(out)


def _null(schema: Schema, out: bytearray) -> None:
    if not schema.optional:
        raise DataError(f"null for a required {_describe(schema)}")
    out.append(0)


def _compile(schema: Schema, depth: int) -> Encoder:
    if depth > MAX_DEPTH:
        raise DataError(f"schema nested deeper than {MAX_DEPTH}")
    base = _base(schema, depth)
    if schema.optional:

        def enc(v: Any, out: bytearray) -> None:
            if v is None:
                out.append(0)
            else:
                out.append(1)
                base(v, out)

    elif schema.has_default and schema.default is not None:
        default = schema.default

        def enc(v: Any, out: bytearray) -> None:
            base(default if v is None else v, out)

    else:
        what = _describe(schema)

        def enc(v: Any, out: bytearray) -> None:
            if v is None:
                raise DataError(f"null for a required {what}")
            base(v, out)

    object.__setattr__(schema, "_encode", enc)
    return enc


def _base(schema: Schema, depth: int) -> Encoder:
    """The encoder of a value of ``schema`` that is not null (no presence byte)."""
    t = schema.type
    logical = schema.logical
    if logical == "date":
        return _int_encoder(schema, _PACK[Type.INT32].pack, _dt.date, _date_days)
    if logical == "time":
        return _int_encoder(schema, _PACK[Type.INT32].pack, _dt.time, _time_ms)
    if logical == "timestamp":
        return _int_encoder(schema, _PACK[Type.INT64].pack, _dt.datetime, _timestamp_ms)
    if logical == "decimal":
        return _decimal_encoder(schema)
    if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return _int_encoder(schema, _PACK[t].pack, None, None)
    if t in (Type.FLOAT32, Type.FLOAT64):
        pack = _PACK[t].pack

        def enc_float(v: Any, out: bytearray) -> None:
            if (type(v) is not float and not isinstance(v, (int, float))) or isinstance(v, bool):
                raise _type_error(schema, v)
            try:
                out += pack(v)
            except (_struct.error, OverflowError):
                raise DataError(f"{v!r} is out of range for a {_describe(schema)}") from None

        return enc_float
    if t is Type.BOOLEAN:

        def enc_bool(v: Any, out: bytearray) -> None:
            if v is True:
                out.append(1)
            elif v is False:
                out.append(0)
            else:
                raise _type_error(schema, v)

        return enc_bool
    if t is Type.STRING:
        pack_len = _U32.pack

        def enc_str(v: Any, out: bytearray) -> None:
            if type(v) is not str and not isinstance(v, str):
                raise _type_error(schema, v)
            try:
                b = v.encode()
            except UnicodeEncodeError as e:
                raise DataError(f"a string that is not valid Unicode: {e}") from None
            out += pack_len(len(b))
            out += b

        return enc_str
    if t is Type.BYTES:
        pack_len = _U32.pack

        def enc_bytes(v: Any, out: bytearray) -> None:
            if not isinstance(v, (bytes, bytearray, memoryview)):
                raise _type_error(schema, v)
            out += pack_len(len(v))
            out += v

        return enc_bytes
    if t is Type.ARRAY:
        assert schema.value_schema is not None
        elem = _compile(schema.value_schema, depth + 1)
        pack_len = _U32.pack

        def enc_array(v: Any, out: bytearray) -> None:
            if isinstance(v, (str, bytes, bytearray, Mapping)) or not isinstance(v, (list, tuple, Sequence)):
                raise _type_error(schema, v)
            out += pack_len(len(v))
            for i, item in enumerate(v):
                try:
                    elem(item, out)
                except DataError as e:
                    raise DataError(f"[{i}]: {e}") from None

        return enc_array
    if t is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        kenc = _compile(schema.key_schema, depth + 1)
        venc = _compile(schema.value_schema, depth + 1)
        pack_len = _U32.pack

        def enc_map(v: Any, out: bytearray) -> None:
            if isinstance(v, Mapping) and not isinstance(v, Struct):
                items = v.items()
            elif isinstance(v, (list, tuple)):
                items = v  # (key, value) pairs, e.g. MapItems
            else:
                raise _type_error(schema, v)
            out += pack_len(len(items))
            for pair in items:
                k, x = pair
                try:
                    kenc(k, out)
                    venc(x, out)
                except DataError as e:
                    raise DataError(f"[{_short(k)}]: {e}") from None

        return enc_map
    if t is Type.STRUCT:
        return _struct_encoder(schema, depth)
    raise DataError(f"no encoder for {schema!r}")  # pragma: no cover


def _int_encoder(schema: Schema, pack: Callable, logical_type: Any, convert: Any) -> Encoder:
    def enc_int(v: Any, out: bytearray) -> None:
        if type(v) is not int:
            if logical_type is not None and isinstance(v, logical_type):
                v = convert(schema, v)
            elif not isinstance(v, int) or isinstance(v, bool):
                raise _type_error(schema, v)
        try:
            out += pack(v)
        except _struct.error:
            raise DataError(f"{v} is out of range for a {_describe(schema)}") from None

    return enc_int


def _date_days(schema: Schema, v: _dt.date) -> int:
    if isinstance(v, _dt.datetime):
        raise DataError(f"a datetime ({v}) for a Date schema: pass its .date()")
    return (v - _EPOCH_DATE).days


def _time_ms(schema: Schema, v: _dt.time) -> int:
    if v.utcoffset():
        raise DataError(f"a Time is UTC; {v} has another offset")
    return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000


def _timestamp_ms(schema: Schema, v: _dt.datetime) -> int:
    if v.tzinfo is None:
        v = v.replace(tzinfo=_dt.timezone.utc)
    d = v - _EPOCH
    return d.days * _MS_PER_DAY + d.seconds * 1000 + d.microseconds // 1000


def _decimal_encoder(schema: Schema) -> Encoder:
    try:
        scale = int(schema.parameter_map["scale"])
    except (KeyError, ValueError):
        raise DataError(f"a Decimal schema without an integer scale: {schema.parameters}") from None
    pack_len = _U32.pack

    def enc_decimal(v: Any, out: bytearray) -> None:
        if isinstance(v, _decimal.Decimal):
            unscaled = unscaled_at(v, scale)
        elif isinstance(v, int) and not isinstance(v, bool):
            unscaled = v * 10**scale if scale >= 0 else None
            if unscaled is None:
                return enc_decimal(_decimal.Decimal(v), out)
        else:
            raise _type_error(schema, v)
        b = unscaled.to_bytes(_signed_len(unscaled), "big", signed=True)
        out += pack_len(len(b))
        out += b

    return enc_decimal


def unscaled_at(v: _decimal.Decimal, scale: int) -> int:
    """``v``'s unscaled value at ``scale`` (``v * 10**scale``), exactly;
    a :class:`DataError` when ``v`` has more decimal places than that."""
    if not v.is_finite():
        raise DataError(f"{v} is not a finite Decimal")
    sign, digits, exponent = v.as_tuple()
    n = int("".join(map(str, digits))) if digits else 0
    shift = exponent + scale  # type: ignore[operator]
    if shift >= 0:
        n *= 10**shift
    else:
        n, rest = divmod(n, 10**-shift)
        if rest:
            raise DataError(f"{v} has more than {scale} decimal places (the schema's scale)")
    return -n if sign else n


def decimal_of(unscaled: int, scale: int) -> _decimal.Decimal:
    """The Decimal ``unscaled * 10**-scale``, exactly (no rounding to the
    context's precision)."""
    return _decimal.Decimal((1 if unscaled < 0 else 0, tuple(map(int, str(abs(unscaled)))), -scale))


def _signed_len(n: int) -> int:
    """Bytes of the shortest big-endian two's complement of ``n`` (>= 1)."""
    return ((n if n >= 0 else ~n).bit_length()) // 8 + 1


def _struct_encoder(schema: Schema, depth: int) -> Encoder:
    names = [f.name for f in schema.fields]
    encs = [_compile(f.schema, depth + 1) for f in schema.fields]
    pairs = list(zip(names, encs))
    # How to get the field values from a value of each Python type met so
    # far: the dispatch on the value's type is paid once per type.
    getters: dict = {}

    def getter(v: Any) -> Callable[[Any], Sequence[Any]]:
        t = type(v)
        if isinstance(v, Struct):

            def from_struct(x: Any) -> Sequence[Any]:
                if x.schema is not schema and x.schema.field_names() != names:
                    raise DataError(
                        f"a struct of another schema ({x.schema.name or 'unnamed'}) for a {_describe(schema)}"
                    )
                return x._values

            get = from_struct
        elif isinstance(v, Mapping):

            def from_mapping(x: Any) -> Sequence[Any]:
                return [x.get(n) for n in names]

            get = from_mapping
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            missing = [n for n in names if n not in {f.name for f in dataclasses.fields(v)}]
            if missing:
                raise DataError(f"{t.__name__} has no field {missing[0]!r} of the {_describe(schema)}")
            if len(names) == 1:
                one = names[0]

                def from_one(x: Any) -> Sequence[Any]:
                    return (getattr(x, one),)

                get = from_one
            else:
                get = operator.attrgetter(*names)
        else:
            raise _type_error(schema, v)
        getters[t] = get
        return get

    def enc_struct(v: Any, out: bytearray) -> None:
        get = getters.get(type(v))
        if get is None:
            get = getter(v)
        values = get(v)
        try:
            for enc, x in zip(encs, values):
                enc(x, out)
        except DataError:
            for (name, enc), x in zip(pairs, values):  # again, to name the field
                try:
                    enc(x, bytearray())
                except DataError as e:
                    raise DataError(f"field {name}: {e}") from None
            raise

    return enc_struct


# -- schemaless --------------------------------------------------------------------

_I64 = _PACK[Type.INT64].pack
_F64 = _PACK[Type.FLOAT64].pack


def encode_dynamic(value: Any, out: Optional[bytearray] = None, depth: int = 0) -> bytearray:
    """A schemaless value's encoding (a tag before each value), appended to
    ``out``: ``None``, ``bool``, ``int`` (int64), ``float`` (float64),
    ``str``, bytes-likes, lists and tuples, and mappings. Structs and
    decimals need a schema."""
    if out is None:
        out = bytearray()
    if depth > MAX_DEPTH:
        raise DataError(f"value nested deeper than {MAX_DEPTH}")
    if value is None:
        out.append(0)
    elif value is True or value is False:
        out.append(7)
        out.append(1 if value else 0)
    elif isinstance(value, int):
        out.append(4)
        try:
            out += _I64(value)
        except _struct.error:
            raise DataError(f"{value} does not fit a schemaless int64") from None
    elif isinstance(value, float):
        out.append(6)
        out += _F64(value)
    elif isinstance(value, str):
        b = value.encode()
        out.append(8)
        out += _U32.pack(len(b))
        out += b
    elif isinstance(value, (bytes, bytearray, memoryview)):
        out.append(9)
        out += _U32.pack(len(value))
        out += value
    elif isinstance(value, Struct) or isinstance(value, _decimal.Decimal) or dataclasses.is_dataclass(value):
        raise DataError(f"a {type(value).__name__} needs a schema")
    elif isinstance(value, Mapping):
        out.append(11)
        out += _U32.pack(len(value))
        for k, v in value.items():
            encode_dynamic(k, out, depth + 1)
            encode_dynamic(v, out, depth + 1)
    elif isinstance(value, MapItems):
        out.append(11)
        out += _U32.pack(len(value))
        for k, v in value:
            encode_dynamic(k, out, depth + 1)
            encode_dynamic(v, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        out.append(10)
        out += _U32.pack(len(value))
        for v in value:
            encode_dynamic(v, out, depth + 1)
    else:
        raise DataError(f"a {type(value).__name__} has no schemaless encoding (give it a schema)")
    return out


# -- decoding --------------------------------------------------------------------


class _Malformed(Exception):
    pass


def decoder(schema: Schema) -> Decoder:
    """The compiled decoder of ``schema``: ``dec(buf, pos)`` returns the
    value at ``pos`` and the position after it."""
    d = schema._decode
    if d is None:
        d = _compile_decoder(schema, 0)
    return d


def decode(schema: Schema, buf: bytes, start: int = 0, end: Optional[int] = None) -> Any:
    """The value ``buf[start:end]`` encodes under ``schema``; every byte
    must be used."""
    end = len(buf) if end is None else end
    try:
        value, pos = decoder(schema)(buf, start)
    except (_struct.error, IndexError, UnicodeDecodeError, _Malformed) as e:
        raise DataError(f"malformed value of a {_describe(schema)}: {e}") from None
    if pos != end:
        raise DataError(f"malformed value of a {_describe(schema)}: {end - pos} bytes left over")
    return value


def decode_dynamic(buf: bytes, start: int = 0, end: Optional[int] = None) -> Any:
    """The schemaless value ``buf[start:end]`` encodes."""
    end = len(buf) if end is None else end
    try:
        value, pos = _dyn(buf, start, 0)
    except (_struct.error, IndexError, UnicodeDecodeError, _Malformed) as e:
        raise DataError(f"malformed schemaless value: {e}") from None
    if pos != end:
        raise DataError(f"malformed schemaless value: {end - pos} bytes left over")
    return value


def _check_len(buf: bytes, pos: int, n: int) -> None:
    if pos + n > len(buf):
        raise _Malformed(f"{n} bytes announced at {pos}, {len(buf) - pos} left")


def _compile_decoder(schema: Schema, depth: int) -> Decoder:
    base = _base_decoder(schema, depth)
    if schema.optional:

        def dec(buf: bytes, pos: int) -> Tuple[Any, int]:
            flag = buf[pos]
            if flag == 0:
                return None, pos + 1
            if flag != 1:
                raise _Malformed(f"presence byte {flag} at {pos}")
            return base(buf, pos + 1)

    else:
        dec = base
    object.__setattr__(schema, "_decode", dec)
    return dec


def _base_decoder(schema: Schema, depth: int) -> Decoder:
    if depth > MAX_DEPTH:
        raise DataError(f"schema nested deeper than {MAX_DEPTH}")
    t = schema.type
    logical = schema.logical
    if t in _PACK:
        s = _PACK[t]
        unpack, size = s.unpack_from, s.size
        convert = _LOGICAL_DECODE.get(logical) if logical else None

        if convert is None:

            def dec_num(buf: bytes, pos: int) -> Tuple[Any, int]:
                return unpack(buf, pos)[0], pos + size

            return dec_num

        def dec_logical(buf: bytes, pos: int) -> Tuple[Any, int]:
            return convert(unpack(buf, pos)[0]), pos + size

        return dec_logical
    if t is Type.BOOLEAN:

        def dec_bool(buf: bytes, pos: int) -> Tuple[Any, int]:
            b = buf[pos]
            if b > 1:
                raise _Malformed(f"boolean byte {b} at {pos}")
            return b == 1, pos + 1

        return dec_bool
    if t in (Type.STRING, Type.BYTES):
        unpack_len = _U32.unpack_from
        if t is Type.STRING:

            def dec_str(buf: bytes, pos: int) -> Tuple[Any, int]:
                (n,) = unpack_len(buf, pos)
                pos += 4
                _check_len(buf, pos, n)
                return str(buf[pos : pos + n], "utf-8"), pos + n

            return dec_str
        if logical == "decimal":
            try:
                scale = int(schema.parameter_map["scale"])
            except (KeyError, ValueError):
                raise DataError(f"a Decimal schema without an integer scale: {schema.parameters}") from None

            def dec_decimal(buf: bytes, pos: int) -> Tuple[Any, int]:
                (n,) = unpack_len(buf, pos)
                pos += 4
                _check_len(buf, pos, n)
                if n == 0:
                    raise _Malformed("a Decimal without bytes")
                unscaled = int.from_bytes(buf[pos : pos + n], "big", signed=True)
                return decimal_of(unscaled, scale), pos + n

            return dec_decimal

        def dec_bytes(buf: bytes, pos: int) -> Tuple[Any, int]:
            (n,) = unpack_len(buf, pos)
            pos += 4
            _check_len(buf, pos, n)
            return bytes(buf[pos : pos + n]), pos + n

        return dec_bytes
    if t is Type.ARRAY:
        assert schema.value_schema is not None
        elem = _sub_decoder(schema.value_schema, depth)
        unpack_len = _U32.unpack_from

        def dec_array(buf: bytes, pos: int) -> Tuple[Any, int]:
            (n,) = unpack_len(buf, pos)
            pos += 4
            if n > len(buf) - pos + 4096:
                raise _Malformed(f"{n} elements announced at {pos}")
            items = []
            append = items.append
            for _ in range(n):
                v, pos = elem(buf, pos)
                append(v)
            return items, pos

        return dec_array
    if t is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        kdec = _sub_decoder(schema.key_schema, depth)
        vdec = _sub_decoder(schema.value_schema, depth)
        unpack_len = _U32.unpack_from

        def dec_map(buf: bytes, pos: int) -> Tuple[Any, int]:
            (n,) = unpack_len(buf, pos)
            pos += 4
            if n > len(buf) - pos + 4096:
                raise _Malformed(f"{n} entries announced at {pos}")
            pairs = []
            for _ in range(n):
                k, pos = kdec(buf, pos)
                v, pos = vdec(buf, pos)
                pairs.append((k, v))
            return _as_map(pairs), pos

        return dec_map
    if t is Type.STRUCT:
        decs = [_sub_decoder(f.schema, depth) for f in schema.fields]
        make = Struct._of

        def dec_struct(buf: bytes, pos: int) -> Tuple[Any, int]:
            values = []
            append = values.append
            for d in decs:
                v, pos = d(buf, pos)
                append(v)
            return make(schema, values), pos

        return dec_struct
    raise DataError(f"no decoder for {schema!r}")  # pragma: no cover


def _sub_decoder(schema: Schema, depth: int) -> Decoder:
    d = schema._decode
    return d if d is not None else _compile_decoder(schema, depth + 1)


def _as_map(pairs: List[Tuple[Any, Any]]) -> Any:
    try:
        out = dict(pairs)
    except TypeError:  # an unhashable key (array, map, struct)
        return MapItems(pairs)
    if len(out) != len(pairs):  # equal keys (e.g. 1 and 1.0): keep every entry
        return MapItems(pairs)
    return out


def _days_to_date(n: int) -> Any:
    try:
        return _EPOCH_DATE + _dt.timedelta(days=n)
    except OverflowError:
        return n  # beyond datetime.date's years 1..9999: kept as the number of days


def _ms_to_time(n: int) -> Any:
    if not 0 <= n < _MS_PER_DAY:
        return n  # not a time of day: kept as milliseconds
    s, ms = divmod(n, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return _dt.time(h, m, s, ms * 1000)


def _ms_to_datetime(n: int) -> Any:
    try:
        return _EPOCH + _dt.timedelta(milliseconds=n)
    except OverflowError:
        return n  # beyond datetime's years 1..9999: kept as milliseconds


_LOGICAL_DECODE = {"date": _days_to_date, "time": _ms_to_time, "timestamp": _ms_to_datetime}

_DYN_NUM = {
    1: _PACK[Type.INT8],
    2: _PACK[Type.INT16],
    3: _PACK[Type.INT32],
    4: _PACK[Type.INT64],
    5: _PACK[Type.FLOAT32],
    6: _PACK[Type.FLOAT64],
}


def _dyn(buf: bytes, pos: int, depth: int) -> Tuple[Any, int]:
    if depth > MAX_DEPTH:
        raise _Malformed(f"value nested deeper than {MAX_DEPTH}")
    tag = buf[pos]
    pos += 1
    if tag == 0:
        return None, pos
    s = _DYN_NUM.get(tag)
    if s is not None:
        return s.unpack_from(buf, pos)[0], pos + s.size
    if tag == 7:
        b = buf[pos]
        if b > 1:
            raise _Malformed(f"boolean byte {b} at {pos}")
        return b == 1, pos + 1
    if tag in (8, 9, 10, 11):
        (n,) = _U32.unpack_from(buf, pos)
        pos += 4
        if tag == 8 or tag == 9:
            _check_len(buf, pos, n)
            raw = buf[pos : pos + n]
            return (str(raw, "utf-8") if tag == 8 else bytes(raw)), pos + n
        if n > len(buf) - pos:
            raise _Malformed(f"{n} items announced at {pos}")
        if tag == 10:
            items = []
            for _ in range(n):
                v, pos = _dyn(buf, pos, depth + 1)
                items.append(v)
            return items, pos
        pairs = []
        for _ in range(n):
            k, pos = _dyn(buf, pos, depth + 1)
            v, pos = _dyn(buf, pos, depth + 1)
            pairs.append((k, v))
        return _as_map(pairs), pos
    raise _Malformed(f"unknown schemaless tag {tag} at {pos - 1}")


# -- the schema table ----------------------------------------------------------------


class Node(NamedTuple):
    """One node of a flattened schema (WIT ``schema-node``)."""

    type: Type
    optional: bool
    name: Optional[str]
    version: Optional[int]
    doc: Optional[str]
    parameters: List[Tuple[str, str]]
    default: Optional[bytes]
    children: List[int]
    field_names: List[str]


class SchemaTable:
    """A batch's schema nodes: equal schemas share nodes, every node after
    its children. ``start`` holds nodes already in the table (a
    transform's input), with the schemas they were read as."""

    __slots__ = ("nodes", "_index")

    def __init__(self, start: Sequence[Any] = (), schemas: Sequence[Schema] = ()) -> None:
        self.nodes: List[Any] = list(start)
        self._index: Dict[Schema, int] = {}
        for i, s in enumerate(schemas):
            self._index.setdefault(s, i)

    def add(self, schema: Schema) -> int:
        """The index of ``schema``'s root node, adding nodes if needed."""
        i = self._index.get(schema)
        if i is not None:
            return i
        children: List[int] = []
        names: List[str] = []
        if schema.type is Type.ARRAY:
            children.append(self.add(schema.value_schema))  # type: ignore[arg-type]
        elif schema.type is Type.MAP:
            children.append(self.add(schema.key_schema))  # type: ignore[arg-type]
            children.append(self.add(schema.value_schema))  # type: ignore[arg-type]
        elif schema.type is Type.STRUCT:
            for f in schema.fields:
                children.append(self.add(f.schema))
                names.append(f.name)
        node = Node(
            schema.type,
            schema.optional,
            schema.name,
            schema.version,
            schema.doc,
            list(schema.parameters),
            encode_default(schema),
            children,
            names,
        )
        i = len(self.nodes)
        self.nodes.append(node)
        self._index[schema] = i
        return i

    def __len__(self) -> int:
        return len(self.nodes)


def read_nodes(nodes: Sequence[Any]) -> List[Schema]:
    """The schemas of a node table (WIT ``schema-node``s or :class:`Node`s),
    one per node. A node refers only to earlier ones."""
    built: List[Schema] = []
    for i, n in enumerate(nodes):
        t = Type[n.type.name]

        def at(c: int) -> Schema:
            if not 0 <= c < i:
                raise DataError(f"schema node {i} refers to node {c}: a node may refer only to earlier ones")
            return built[c]

        try:
            kw: Dict[str, Any] = dict(
                optional=n.optional,
                name=n.name,
                version=n.version,
                doc=n.doc,
                parameters=list(n.parameters),
            )
            if t is Type.ARRAY:
                kw["value_schema"] = at(n.children[0])
            elif t is Type.MAP:
                kw["key_schema"] = at(n.children[0])
                kw["value_schema"] = at(n.children[1])
            elif t is Type.STRUCT:
                kw["fields"] = [(name, at(c)) for name, c in zip(n.field_names, n.children)]
            s = Schema(t, **kw)
            if n.default is not None:
                s = s.with_default(decode(s, n.default))
        except (IndexError, DataError) as e:
            raise DataError(f"schema node {i}: {e}") from None
        built.append(s)
    return built

