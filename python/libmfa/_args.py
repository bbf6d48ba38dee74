"""Turning Python arguments into what the C functions take, with early checks.

ctypes silently wraps integers that do not fit the C type (``-1`` becomes
``2**64 - 1`` for a ``uint64_t``), and a ``char *`` stops at the first NUL, so
both are checked here before a value reaches libmfa.
"""

from __future__ import annotations

import math
import sys

from . import _ffi
from .errors import InvalidArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1

_ALGORITHMS = {
    "SHA1": _ffi.MFA_ALG_SHA1,
    "SHA256": _ffi.MFA_ALG_SHA256,
    "SHA512": _ffi.MFA_ALG_SHA512,
}
_ALGORITHM_NAMES = {number: name for name, number in _ALGORITHMS.items()}


def invalid(message: str) -> InvalidArgumentError:
    """An InvalidArgumentError raised by the binding itself."""
    return InvalidArgumentError(_ffi.MFA_ERR_INVALID_ARGUMENT, message)


def secret(value: object, what: str = "secret") -> bytes:
    """A secret as bytes: bytes, bytearray or memoryview; str is a TypeError."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, memoryview):
        return value.tobytes()
    if isinstance(value, str):
        raise TypeError("%s must be bytes, not str (decode base32 text with base32_decode())" % what)
    raise TypeError("%s must be bytes, bytearray or memoryview, not %s" % (what, type(value).__name__))


def text(value: object, what: str = "text") -> bytes:
    """A text argument as NUL-free bytes: str is encoded as UTF-8, bytes pass as-is.

    Bytes are not decoded here: libmfa itself rejects invalid UTF-8 and
    overlong strings with INVALID_ARGUMENT.
    """
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError:
            raise invalid("%s is not encodable as UTF-8" % what) from None
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    elif isinstance(value, memoryview):
        data = value.tobytes()
    else:
        raise TypeError("%s must be str or bytes, not %s" % (what, type(value).__name__))
    if b"\0" in data:
        raise invalid("%s contains a NUL character" % what)
    return data


def optional_text(value: object, what: str = "text") -> Optional[bytes]:
    """Like :func:`text`, but None stays None (a NULL pointer)."""
    return None if value is None else text(value, what)


def text_or_bytes(value: object, what: str) -> None:
    """TypeError unless ``value`` is str or bytes."""
    if not isinstance(value, (str, bytes)):
        raise TypeError("%s must be str, not %s" % (what, type(value).__name__))


def code(value: object, what: str) -> bytes:
    """A one-time code as NUL-free bytes (str or bytes-like; anything else is a TypeError)."""
    if not isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError("%s must be str, not %s" % (what, type(value).__name__))
    return text(value, what)


def integer(value: object, low: int, high: int, what: str) -> int:
    """An int (not bool, not float) in ``low..high``, else TypeError / InvalidArgumentError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    if not low <= value <= high:
        raise invalid("%s must be %d to %d, got %d" % (what, low, high, value))
    return int(value)


def int32(value: object, what: str) -> int:
    """An int that fits an ``int32_t``; libmfa checks the real range."""
    return integer(value, INT32_MIN, INT32_MAX, what)


def int64(value: object, what: str) -> int:
    """An int that fits an ``int64_t``; libmfa checks the real range."""
    return integer(value, INT64_MIN, INT64_MAX, what)


def uint64(value: object, what: str) -> int:
    """An int that fits a ``uint64_t``."""
    return integer(value, 0, UINT64_MAX, what)


def _timestamp(value: object) -> object:
    """A ``datetime.datetime`` as its POSIX timestamp (float); anything else as is.

    ``datetime`` is not imported for this: a value can only be a datetime
    if the program has imported the module already.
    """
    module = sys.modules.get("datetime")
    if module is not None and isinstance(value, module.datetime):
        return value.timestamp()
    return value


def unix_time(value: object, what: str = "time") -> int:
    """Seconds since the epoch as an int from an int, a float or a datetime.

    Floats are rounded down; a naive datetime is taken as local time, as
    ``datetime.timestamp()`` does.
    """
    value = _timestamp(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise invalid("%s must be finite" % what)
        value = math.floor(value)
    return int64(value, what)


def unix_time_ms(value: object, what: str = "time") -> int:
    """Milliseconds since the epoch as an int, from an int or a float (milliseconds,
    rounded down) or a datetime."""
    seconds = _timestamp(value)
    if seconds is not value:  # a datetime, now its timestamp in seconds
        assert isinstance(seconds, float)
        value = seconds * 1000
    if isinstance(value, float):
        if not math.isfinite(value):
            raise invalid("%s must be finite" % what)
        value = math.floor(value)
    return int64(value, what)


def seconds(value: object, what: str) -> int:
    """A duration in seconds from an int or a ``datetime.timedelta``."""
    module = sys.modules.get("datetime")
    if module is not None and isinstance(value, module.timedelta):
        value = int(value.total_seconds())
    return int64(value, what)


def algorithm(value: object) -> int:
    """An algorithm as its ``MFA_ALG_*`` number, from a name ("sha256") or the number."""
    if isinstance(value, str):
        number = _ALGORITHMS.get(value.upper().replace("-", ""))
        if number is None:
            raise invalid("unknown algorithm %r (use SHA1, SHA256 or SHA512)" % value)
        return number
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _ALGORITHM_NAMES:
            raise invalid("unknown algorithm number %d" % value)
        return int(value)
    raise TypeError("algorithm must be a name or an ALG_* constant, not %s" % type(value).__name__)


def algorithm_name(number: int) -> str:
    """The name ("SHA1", ...) of an ``MFA_ALG_*`` number."""
    return _ALGORITHM_NAMES[number]
