"""Values as compact JSON text: what a sink writes for a typed value when
it wants text (the file-sink of examples/SPEC.md does).

:func:`compact_json` renders what a :class:`~copycat_sdk.SinkBatch`
decodes: a struct as an object with its fields in schema order, a map as an
object (a string key as is, any other key as its compact JSON text), an
array as an array, text as a JSON string (``"``, ``\\`` and control
characters escaped, other characters as they are), integers, floats and
booleans as JSON numbers and booleans, bytes (and a Decimal's unscaled
bytes) as standard base64 with padding, ``None`` as ``null``. Logical
types render as their underlying value: a Date as its days since
1970-01-01, a Time as milliseconds of the day, a Timestamp as
milliseconds since the epoch.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
import json
from typing import Any, List

from .schema import DataError, MapItems, Struct
from .wire import _date_days, _signed_len, _time_ms, _timestamp_ms, unscaled_at

__all__ = ["compact_json"]

_string = json.JSONEncoder(ensure_ascii=False).encode


def compact_json(value: Any) -> str:
    """``value`` as compact JSON (no spaces)."""
    out: List[str] = []
    _render(value, out)
    return "".join(out)


def _render(v: Any, out: List[str]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, str):
        out.append(_string(v))
    elif isinstance(v, int):
        out.append(str(int(v)))
    elif isinstance(v, float):
        out.append(repr(v))
    elif isinstance(v, (bytes, bytearray, memoryview)):
        out.append('"' + base64.b64encode(bytes(v)).decode("ascii") + '"')
    elif isinstance(v, Struct):
        out.append("{")
        for i, (name, x) in enumerate(zip(v.schema.field_names(), v.values_in_order())):
            if i:
                out.append(",")
            out.append(_string(name))
            out.append(":")
            _render(x, out)
        out.append("}")
    elif isinstance(v, (dict, MapItems)):
        out.append("{")
        items = v.items() if isinstance(v, dict) else v
        for i, (k, x) in enumerate(items):
            if i:
                out.append(",")
            out.append(_string(k if isinstance(k, str) else compact_json(k)))
            out.append(":")
            _render(x, out)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _render(x, out)
        out.append("]")
    elif isinstance(v, _decimal.Decimal):
        exponent = v.as_tuple().exponent
        if not isinstance(exponent, int):
            raise DataError(f"{v} is not a finite Decimal")
        unscaled = unscaled_at(v, -exponent)
        raw = unscaled.to_bytes(_signed_len(unscaled), "big", signed=True)
        out.append('"' + base64.b64encode(raw).decode("ascii") + '"')
    elif isinstance(v, _dt.datetime):
        out.append(str(_timestamp_ms(None, v)))  # type: ignore[arg-type]
    elif isinstance(v, _dt.date):
        out.append(str(_date_days(None, v)))  # type: ignore[arg-type]
    elif isinstance(v, _dt.time):
        out.append(str(_time_ms(None, v)))  # type: ignore[arg-type]
    else:
        raise DataError(f"no JSON for a {type(v).__name__} value")
