"""Turning Python arguments into what the C functions take, with early checks.

ctypes silently wraps integers that do not fit the C type (``-1`` becomes
``2**64 - 1`` for a ``uint64_t``), and a ``char *`` stops at the first NUL, so
both are checked here before a value reaches libmfa.
"""

import datetime
import math

from . import constants
from .constants import Status
from .errors import InvalidArgumentError

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1

_ALGORITHMS = {
    "SHA1": constants.ALG_SHA1,
    "SHA256": constants.ALG_SHA256,
    "SHA512": constants.ALG_SHA512,
}
_ALGORITHM_NAMES = {number: name for name, number in _ALGORITHMS.items()}


def invalid(message):
    """An InvalidArgumentError raised by the binding itself."""
    return InvalidArgumentError(Status.INVALID_ARGUMENT, message)


def secret(value, what="secret"):
    """A secret as bytes: bytes, bytearray or memoryview; str is a TypeError."""
    if isinstance(value, bytes):
        return bytes(value)
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, memoryview):
        return value.tobytes()
    if isinstance(value, str):
        raise TypeError(
            "%s must be bytes, not str (decode base32 text with base32_decode())" % what
        )
    raise TypeError("%s must be bytes, bytearray or memoryview, not %s" % (what, type(value).__name__))


def text(value, what="text"):
    """A text argument as NUL-free bytes: str is encoded as UTF-8, bytes pass as-is.

    Bytes are not decoded here: libmfa itself rejects invalid UTF-8 and
    overlong strings with INVALID_ARGUMENT.
    """
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError:
            raise invalid("%s is not encodable as UTF-8" % what) from None
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    else:
        raise TypeError("%s must be str or bytes, not %s" % (what, type(value).__name__))
    if b"\0" in data:
        raise invalid("%s contains a NUL character" % what)
    return data


def optional_text(value, what="text"):
    """Like :func:`text`, but None stays None (a NULL pointer)."""
    return None if value is None else text(value, what)


def integer(value, low, high, what):
    """An int (not bool, not float) in ``low..high``, else TypeError / InvalidArgumentError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    if not low <= value <= high:
        raise invalid("%s must be %d to %d, got %d" % (what, low, high, value))
    return int(value)


def int32(value, what):
    """An int that fits an ``int32_t``; libmfa checks the real range."""
    return integer(value, INT32_MIN, INT32_MAX, what)


def int64(value, what):
    """An int that fits an ``int64_t``; libmfa checks the real range."""
    return integer(value, INT64_MIN, INT64_MAX, what)


def uint64(value, what):
    """An int that fits a ``uint64_t``."""
    return integer(value, 0, UINT64_MAX, what)


def unix_time(value):
    """Seconds since the epoch as an int from an int, a float or a datetime.

    Floats are rounded down; a naive datetime is taken as local time, as
    ``datetime.timestamp()`` does.
    """
    if isinstance(value, datetime.datetime):
        value = value.timestamp()
    if isinstance(value, float):
        if not math.isfinite(value):
            raise invalid("time must be finite")
        value = math.floor(value)
    return int64(value, "time")


def algorithm(value):
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


def algorithm_name(number):
    """The name ("SHA1", ...) of an ``MFA_ALG_*`` number."""
    return _ALGORITHM_NAMES[number]
