"""RFC 4648 base32, the text form of OTP secrets, through libmfa."""

import ctypes

from . import _args
from ._lib import lib
from .constants import BASE32_NO_PADDING
from .errors import check


def base32_encode(data, padding=True):
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
    check(lib.mfa_base32_encode(ctypes.byref(out), raw, len(raw), 0 if padding else BASE32_NO_PADDING))
    try:
        return ctypes.string_at(out.value).decode("ascii")
    finally:
        lib.mfa_free(out)


def base32_decode(text):
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
        return ctypes.string_at(out.value, length.value)
    finally:
        lib.mfa_free(out)
