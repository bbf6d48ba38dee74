"""Reading what libmfa hands back through ``char **`` / ``uint8_t **`` out-parameters."""

from __future__ import annotations

import ctypes

from . import _ffi
from .errors import error_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional


def _address(out: ctypes.c_void_p) -> int:
    """The address in ``out``; NULL after a successful call is a libmfa bug (INTERNAL)."""
    address: Optional[int] = out.value
    if not address:
        raise error_for(_ffi.MFA_ERR_INTERNAL, "libmfa returned MFA_OK and a NULL result")
    return address


def text(out: ctypes.c_void_p) -> str:
    """The NUL-terminated UTF-8 string at ``out`` (not freed here)."""
    return ctypes.string_at(_address(out)).decode("utf-8")


def data(out: ctypes.c_void_p, length: int) -> bytes:
    """``length`` bytes at ``out`` (not freed here)."""
    return ctypes.string_at(_address(out), length)


def optional(value: Optional[bytes]) -> Optional[str]:
    """A C string field (bytes or None) as str or None."""
    return None if value is None else value.decode("utf-8", "replace")


def required(value: Optional[bytes]) -> str:
    """A C string field that libmfa always fills, as str ("" if it is NULL after all)."""
    return "" if value is None else value.decode("utf-8", "replace")
