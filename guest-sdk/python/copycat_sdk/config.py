"""Configurations and their definitions.

A :class:`Config` holds the key/value settings exactly as the operator wrote
them (every key is passed through, including the host's own: ``name``,
``tasks.max``, ``grants.*``). A :class:`ConfigKey` declares one key the
connector understands: its type, default and bounds. Declare the keys once,
in :meth:`PluginInfo <copycat_sdk.PluginInfo>`, and use them both to
``validate`` (one problem per bad key) and to ``parse`` the config in
``start`` (a :class:`~copycat_sdk.ConfigError` naming the first bad key)::

    TOPIC = ConfigKey.string("topic", required=True, doc="Kafka topic")
    STREAMS = ConfigKey.int("streams", default=1, min=1, doc="Streams")

    settings = parse(config, [TOPIC, STREAMS])   # {"topic": "t", "streams": 1}

Rules, the same as the host's and the Rust SDK's: a blank value counts as
absent (the default applies, or a required key is missing); numbers are
plain decimals (surrounding whitespace ignored; no ``_``, no ``0x``);
booleans are ``true``/``false`` in any case; lists are comma-separated,
items trimmed, empty items dropped; strings are kept exactly as written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from .errors import ConfigError

__all__ = [
    "Config",
    "ConfigKey",
    "ConfigType",
    "Importance",
    "Problem",
    "parse",
    "problems",
]

_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_I32 = (-(2**31), 2**31 - 1)
_I64 = (-(2**63), 2**63 - 1)


class ConfigType(Enum):
    """The type of a config value (WIT ``config-type``)."""

    STRING = "string"
    INT = "int"  # 32-bit signed
    LONG = "long"  # 64-bit signed
    DOUBLE = "double"
    BOOLEAN = "boolean"
    LIST = "list"  # comma-separated
    PASSWORD = "password"  # secret text: never logged or echoed


class Importance(Enum):
    """How much an operator should care about a key (WIT ``importance``)."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Problem(NamedTuple):
    """One problem found by ``validate``: the key at fault (``""`` for the
    config as a whole) and what is wrong (WIT ``config-problem``)."""

    key: str
    message: str


class Config(Mapping[str, str]):
    """A read-only mapping of config keys to their text values, with typed
    getters whose errors are :class:`~copycat_sdk.ConfigError` naming the key.

    Build one from a mapping or from ``(key, value)`` pairs; a later
    duplicate key replaces an earlier one. ``config | {"k": "v"}`` returns a
    new ``Config`` with keys added or replaced (handy for task configs).
    """

    __slots__ = ("_values",)

    def __init__(self, values: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = ()) -> None:
        self._values: Dict[str, str] = dict(values)

    # -- Mapping -----------------------------------------------------------
    def __getitem__(self, key: str) -> str:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Config({self._values!r})"

    def __or__(self, other: Mapping[str, Any]) -> "Config":
        merged = dict(self._values)
        merged.update((k, _text(v)) for k, v in other.items())
        return Config(merged)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Config):
            return self._values == other._values
        if isinstance(other, Mapping):
            return self._values == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # -- typed getters -----------------------------------------------------
    def require(self, key: str) -> str:
        """The value of ``key``, which must be set and not blank."""
        value = self._values.get(key)
        if value is None:
            raise ConfigError(f"config '{key}' is required but is not set", key)
        if not value.strip():
            raise ConfigError(f"config '{key}' is required but is empty", key)
        return value

    def get_int(
        self,
        key: str,
        default: Optional[int] = None,
        *,
        min: Optional[int] = None,
        max: Optional[int] = None,
    ) -> Optional[int]:
        """``key`` as a 64-bit integer within ``[min, max]``; ``default``
        when absent or blank."""
        return ConfigKey.long(key, default=default, min=min, max=max).parse(self)

    def get_float(self, key: str, default: Optional[float] = None) -> Optional[float]:
        """``key`` as a finite float; ``default`` when absent or blank."""
        return ConfigKey.double(key, default=default).parse(self)

    def get_bool(self, key: str, default: Optional[bool] = None) -> Optional[bool]:
        """``key`` as ``true``/``false``; ``default`` when absent or blank."""
        return ConfigKey.boolean(key, default=default).parse(self)

    def get_list(self, key: str) -> List[str]:
        """``key`` as a comma-separated list (``[]`` when absent)."""
        return _split_list(self._values.get(key, ""))

    def pairs(self) -> List[Tuple[str, str]]:
        """The ``(key, value)`` pairs, as exchanged with the host."""
        return list(self._values.items())


@dataclass(frozen=True)
class ConfigKey:
    """One key of a connector's configuration definition (WIT ``config-key``)
    plus the checks the SDK applies: ``min``/``max`` for numbers, and an
    optional ``check`` callable that receives the parsed value and returns
    an error message (or ``None`` when the value is fine).

    Use the constructors named after the types: ``ConfigKey.string``,
    ``.int``, ``.long``, ``.double``, ``.boolean``, ``.list``,
    ``.password``. ``default`` may be given typed (``default=1``) or as
    text; it is declared to the host as text.
    """

    name: str
    type: ConfigType = ConfigType.STRING
    default: Optional[str] = None
    required: bool = False
    doc: str = ""
    importance: Importance = Importance.MEDIUM
    min: Optional[float] = None
    max: Optional[float] = None
    check: Optional[Callable[[Any], Optional[str]]] = None

    # -- constructors --------------------------------------------------------
    @classmethod
    def _make(cls, type_: ConfigType, name: str, default: Any, **kw: Any) -> "ConfigKey":
        return cls(name=name, type=type_, default=None if default is None else _text(default), **kw)

    @classmethod
    def string(cls, name: str, *, default: Optional[str] = None, required: bool = False, doc: str = "",
               importance: Importance = Importance.MEDIUM,
               check: Optional[Callable[[str], Optional[str]]] = None) -> "ConfigKey":
        """Any text."""
        return cls._make(ConfigType.STRING, name, default, required=required, doc=doc,
                         importance=importance, check=check)

    @classmethod
    def password(cls, name: str, *, default: Optional[str] = None, required: bool = False, doc: str = "",
                 importance: Importance = Importance.MEDIUM,
                 check: Optional[Callable[[str], Optional[str]]] = None) -> "ConfigKey":
        """Secret text; error messages never echo its value."""
        return cls._make(ConfigType.PASSWORD, name, default, required=required, doc=doc,
                         importance=importance, check=check)

    @classmethod
    def int(cls, name: str, *, default: Optional[int] = None, required: bool = False, doc: str = "",
            min: Optional[int] = None, max: Optional[int] = None,
            importance: Importance = Importance.MEDIUM,
            check: Optional[Callable[[int], Optional[str]]] = None) -> "ConfigKey":
        """A 32-bit signed integer."""
        return cls._make(ConfigType.INT, name, default, required=required, doc=doc, min=min, max=max,
                         importance=importance, check=check)

    @classmethod
    def long(cls, name: str, *, default: Optional[int] = None, required: bool = False, doc: str = "",
             min: Optional[int] = None, max: Optional[int] = None,
             importance: Importance = Importance.MEDIUM,
             check: Optional[Callable[[int], Optional[str]]] = None) -> "ConfigKey":
        """A 64-bit signed integer."""
        return cls._make(ConfigType.LONG, name, default, required=required, doc=doc, min=min, max=max,
                         importance=importance, check=check)

    @classmethod
    def double(cls, name: str, *, default: Optional[float] = None, required: bool = False, doc: str = "",
               min: Optional[float] = None, max: Optional[float] = None,
               importance: Importance = Importance.MEDIUM,
               check: Optional[Callable[[float], Optional[str]]] = None) -> "ConfigKey":
        """A finite 64-bit float."""
        return cls._make(ConfigType.DOUBLE, name, default, required=required, doc=doc, min=min, max=max,
                         importance=importance, check=check)

    @classmethod
    def boolean(cls, name: str, *, default: Optional[bool] = None, required: bool = False, doc: str = "",
                importance: Importance = Importance.MEDIUM) -> "ConfigKey":
        """``true`` or ``false``."""
        return cls._make(ConfigType.BOOLEAN, name, default, required=required, doc=doc,
                         importance=importance)

    @classmethod
    def list(cls, name: str, *, default: Optional[Sequence[str]] = None, required: bool = False,
             doc: str = "", importance: Importance = Importance.MEDIUM,
             check: Optional[Callable[[List[str]], Optional[str]]] = None) -> "ConfigKey":
        """A comma-separated list, parsed to ``list[str]``."""
        return cls._make(ConfigType.LIST, name, default, required=required, doc=doc,
                         importance=importance, check=check)

    # -- parsing ---------------------------------------------------------------
    def parse(self, config: Mapping[str, str]) -> Any:
        """This key's typed value in ``config``: the default when absent or
        blank (``None`` if there is none). Raises :class:`ConfigError`
        naming the key when a required key is missing or the value is bad."""
        raw = config.get(self.name)
        if raw is None or not raw.strip():
            if self.default is None:
                if self.required:
                    state = "not set" if raw is None else "empty"
                    raise ConfigError(f"config '{self.name}' is required but is {state}", self.name)
                return None
            raw = self.default
        textual = self.type in (ConfigType.STRING, ConfigType.PASSWORD)
        value, why = self._convert(raw if textual else raw.strip())
        if why is None and self.check is not None:
            why = self.check(value)
        if why is not None:
            shown = "(hidden)" if self.type is ConfigType.PASSWORD else repr(raw)
            raise ConfigError(f"config '{self.name}': invalid value {shown}: {why}", self.name)
        return value

    def _convert(self, text: str) -> Tuple[Any, Optional[str]]:
        t = self.type
        if t in (ConfigType.INT, ConfigType.LONG):
            if not _INTEGER.match(text):
                return None, "not an integer"
            n = int(text)
            lo, hi = _I32 if t is ConfigType.INT else _I64
            if not lo <= n <= hi:
                return None, f"out of range for a {t.value} ({lo}..{hi})"
            return n, self._bounds(n)
        if t is ConfigType.DOUBLE:
            try:
                x = float(text)
            except ValueError:
                return None, "not a number"
            if "_" in text or not math.isfinite(x):
                return None, "not a finite number"
            return x, self._bounds(x)
        if t is ConfigType.BOOLEAN:
            lowered = text.lower()
            if lowered not in ("true", "false"):
                return None, "must be true or false"
            return lowered == "true", None
        if t is ConfigType.LIST:
            return _split_list(text), None
        return text, None

    def _bounds(self, n: float) -> Optional[str]:
        if self.min is not None and n < self.min:
            return f"must be at least {_num(self.min)}"
        if self.max is not None and n > self.max:
            return f"must be at most {_num(self.max)}"
        return None


def parse(config: Mapping[str, str], keys: Iterable[ConfigKey]) -> Dict[str, Any]:
    """Every key's typed value, by name. Raises :class:`ConfigError` for the
    first bad key (use it in ``start``)."""
    return {key.name: key.parse(config) for key in keys}


def problems(config: Mapping[str, str], keys: Iterable[ConfigKey]) -> List[Problem]:
    """One :class:`Problem` per bad key, in declaration order (use it in
    ``validate``). The message does not repeat the key, which the host
    prints in front of it."""
    found = []
    for key in keys:
        try:
            key.parse(config)
        except ConfigError as e:
            found.append(Problem(key.name, _strip_key(key.name, e.message)))
    return found


def _strip_key(name: str, message: str) -> str:
    for prefix in (f"config '{name}': ", f"config '{name}' "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


def _split_list(text: str) -> List[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _text(value: Any) -> str:
    """A config value as text: ``True`` -> ``"true"``, lists joined by commas."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return str(value)
