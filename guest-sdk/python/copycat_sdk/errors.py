"""Errors a connector raises; the SDK returns them to the host as the WIT
``connector-error`` variants.

The host reacts to each variant differently:

=================== ========================= ===================================
Exception           WIT variant               Host reaction
=================== ========================= ===================================
``ConfigError``     ``connector-error::config``  task FAILED until the operator
                                               fixes the config
``RetriableError``  ``connector-error::retriable`` the same call is retried later
                                               with the same input
``FatalError``      ``connector-error::fatal``   task FAILED with the message
any other exception ``connector-error::fatal``   same, message
                                               ``"<call>: <Type>: <text>"``
=================== ========================= ===================================

An uncaught exception therefore never *traps* the component (a trap is a
bug: the task fails at once and is not retried); the SDK logs its traceback
and reports it as ``fatal``.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["ConnectorError", "ConfigError", "RetriableError", "FatalError", "io_error"]


class ConnectorError(Exception):
    """Base class of the errors the host understands. Raise a subclass."""

    #: Name of the WIT variant this class maps to.
    variant = "fatal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(ConnectorError):
    """The configuration is wrong: a missing key, a bad value.

    ``key`` names the key at fault; ``validate`` turns a ``ConfigError``
    into a problem on that key. The message should name the key too, since
    the host shows only the message for errors from ``start``.
    """

    variant = "config"

    def __init__(self, message: str, key: Optional[str] = None) -> None:
        super().__init__(message)
        self.key = key


class RetriableError(ConnectorError):
    """A transient problem (destination down, lock held): the host retries
    the same call later with the same input."""

    variant = "retriable"


class FatalError(ConnectorError):
    """An unrecoverable problem: the task fails with this message."""

    variant = "fatal"


def io_error(path: str, error: OSError, retriable: bool = False) -> ConnectorError:
    """A ``FatalError`` (or ``RetriableError``) for an I/O failure on
    ``path``: the message names the file and, when the file looks missing
    or forbidden, reminds that only granted directories are visible (through
    WASI a path outside every ``grants.fs.*`` directory looks missing)::

        try:
            f = open(path, "ab")
        except OSError as e:
            raise io_error(path, e) from e
    """
    reason = error.strerror or str(error)
    message = f"{path}: {reason}"
    if isinstance(error, (FileNotFoundError, PermissionError)):
        message += " (is its directory granted with grants.fs.write / grants.fs.read?)"
    return RetriableError(message) if retriable else FatalError(message)
