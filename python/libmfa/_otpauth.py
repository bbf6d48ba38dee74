"""Building otpauth:// key URIs: :func:`build_uri`, in a module of its own.

A leaf module (it needs only the C call), so that both :mod:`libmfa.otp`
(``TOTP.provisioning_uri``) and :mod:`libmfa.uri` (``KeyURI.to_uri``) can use
it without importing each other.
"""

from __future__ import annotations

import ctypes

from . import _args, _ffi, _memory
from ._lib import lib
from .errors import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    from ._typing import Bytes, OptionalText, Text

KINDS = {"totp": _ffi.MFA_OTP_TOTP, "hotp": _ffi.MFA_OTP_HOTP}
KIND_NAMES = {number: name for name, number in KINDS.items()}


def kind_name(value: object) -> str:
    """A kind as "totp" or "hotp", from either name (any case) or ``OTP_*``."""
    if isinstance(value, str) and value.lower() in KINDS:
        return value.lower()
    if isinstance(value, int) and not isinstance(value, bool) and value in KIND_NAMES:
        return KIND_NAMES[value]
    raise _args.invalid("kind must be 'totp' or 'hotp', got %r" % (value,))


def build_uri(
    secret: Bytes,
    account: Text,
    issuer: OptionalText = None,
    kind: Union[str, int] = "totp",
    algorithm: Union[str, int] = "SHA1",
    digits: int = _ffi.MFA_DIGITS_DEFAULT,
    period: int = _ffi.MFA_PERIOD_DEFAULT,
    counter: int = 0,
) -> str:
    """Build an otpauth:// key URI with ``mfa_key_uri_build``.

    Issuer and account are percent-encoded; the secret is written as
    unpadded base32.

    Args:
        secret: the raw shared secret (bytes).
        account: the account name (not empty).
        issuer: the service's name, or None.
        kind: "totp" or "hotp" (any case), or ``OTP_TOTP`` / ``OTP_HOTP``.
        algorithm: "SHA1", "SHA256", "SHA512" or an ``ALG_*`` constant.
        digits: code length, 6 to 8.
        period: TOTP time step in seconds.
        counter: HOTP initial counter.

    Returns:
        The URI as str.

    Raises:
        TypeError: a str secret, names that are not str or bytes.
        InvalidArgumentError: an empty, overlong or non-UTF-8 name, a name
            with a NUL, a secret length, digits or period out of range (the
            message says which).
    """
    key = _args.secret(secret)
    fields = _ffi.mfa_key_uri()
    check(lib.mfa_key_uri_init(ctypes.byref(fields), _ffi.MFA_KEY_URI_VERSION))
    fields.type = KINDS[kind_name(kind)]
    fields.issuer = _args.optional_text(issuer, "issuer")
    fields.account = _args.text(account, "account")
    buffer = (ctypes.c_uint8 * len(key)).from_buffer_copy(key)
    fields.secret = buffer
    fields.secret_len = len(key)
    fields.algorithm = _args.algorithm(algorithm)
    fields.digits = _args.int32(digits, "digits")
    fields.period = _args.int64(period, "period")
    fields.counter = _args.uint64(counter, "counter")
    out = ctypes.c_void_p()
    err = ctypes.c_void_p()
    try:
        check(lib.mfa_key_uri_build(ctypes.byref(out), ctypes.byref(fields), ctypes.byref(err)), err)
        return _memory.text(out)
    finally:
        lib.mfa_free(out)
        ctypes.memset(buffer, 0, len(key))
