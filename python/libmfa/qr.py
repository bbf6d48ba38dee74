"""QR codes of otpauth:// URIs (or any text) through ``mfa_qr_encode``."""

from __future__ import annotations

import ctypes

from . import _args, _ffi, _memory
from ._lib import lib
from .errors import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    from ._typing import Text

_FORMATS = {"png": _ffi.MFA_QR_PNG, "svg": _ffi.MFA_QR_SVG, "text": _ffi.MFA_QR_TEXT}


def qr_code(text: Text, format: str = "png") -> Union[bytes, str]:  # noqa: A002 - the documented keyword
    """Render ``text`` (usually an otpauth:// URI) as a QR code.

    Args:
        text: the content, str or UTF-8 bytes (not empty).
        format: ``"png"`` (an image, scale 8, quiet zone 4), ``"svg"`` (an
            SVG document) or ``"text"`` (UTF-8 half blocks for a terminal).

    Returns:
        bytes for ``"png"``; str for ``"svg"`` and ``"text"``. The image holds
        whatever ``text`` holds: for a key URI it is the secret, treat it as one.

    Raises:
        TypeError: ``text`` or ``format`` of the wrong type.
        InvalidArgumentError: an unknown format, empty or too-long text, an
            embedded NUL.
    """
    if not isinstance(format, str):
        raise TypeError("format must be 'png', 'svg' or 'text', not %s" % type(format).__name__)
    number = _FORMATS.get(format.lower())
    if number is None:
        raise _args.invalid("format must be 'png', 'svg' or 'text', got %r" % (format,))
    raw = _args.text(text, "text")
    out = ctypes.c_void_p()
    length = ctypes.c_size_t()
    try:
        check(lib.mfa_qr_encode(ctypes.byref(out), ctypes.byref(length), raw, number))
        data = _memory.data(out, length.value)
    finally:
        lib.mfa_free(out)
    return data if number == _ffi.MFA_QR_PNG else data.decode("utf-8")
