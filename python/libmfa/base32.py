"""RFC 4648 base32, the text form of OTP secrets, through libmfa."""

from __future__ import annotations

import ctypes

from . import _args, _ffi, _memory
from ._lib import lib
from .errors import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._typing import Bytes, Text


def base32_encode(data: Bytes, padding: bool = True) -> str:
    """Encode bytes as upper-case RFC 4648 base32 text.

    Args:
        data: bytes, bytearray or memoryview (str is a TypeError).
        padding: write the trailing ``=`` padding (authenticator URIs leave it out).

    Returns:
        The base32 text as str.

    Raises:
        InvalidArgumentError: more than ``STRING_MAX_BYTES // 2`` bytes.
    """
    raw = _args.secret(data, "data")
    out = ctypes.c_void_p()
    check(lib.mfa_base32_encode(ctypes.byref(out), raw, len(raw), 0 if padding else _ffi.MFA_BASE32_NO_PADDING))
    try:
        return _memory.text(out)
    finally:
        lib.mfa_free(out)


def base32_decode(text: Text) -> bytes:
    """Decode RFC 4648 base32 text, in either case, with or without padding.

    Args:
        text: str, or bytes holding ASCII.

    Returns:
        The decoded bytes.

    Raises:
        InvalidBase32Error: a character outside the alphabet (spaces included),
            misplaced padding or an impossible length.
        InvalidArgumentError: an embedded NUL, invalid UTF-8 or overlong text.
    """
    raw = _args.text(text, "base32 text")
    out = ctypes.c_void_p()
    length = ctypes.c_size_t()
    check(lib.mfa_base32_decode(ctypes.byref(out), ctypes.byref(length), raw))
    try:
        return _memory.data(out, length.value)
    finally:
        lib.mfa_free(out)
