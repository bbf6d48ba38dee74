"""otpauth:// key URIs (the Google Authenticator key URI format)."""

from __future__ import annotations

import ctypes

from . import _args, _ffi, _memory
from ._lib import lib
from ._otpauth import KIND_NAMES, build_uri, kind_name
from ._record import Record
from .errors import check
from .otp import HOTP, TOTP

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from ._typing import Bytes, OptionalText, Text


class KeyURI(Record):
    """The fields of an otpauth:// key URI.

    Attributes:
        kind: "totp" or "hotp".
        issuer: the service's name, or None.
        account: the account name, usually an email address (not empty).
        secret: the raw shared secret (bytes; left out of ``repr``).
        algorithm: "SHA1", "SHA256" or "SHA512".
        digits: code length, 6 to 8.
        period: TOTP time step in seconds (ignored for HOTP).
        counter: HOTP initial counter (ignored for TOTP).

    The kind and algorithm are normalized on construction ("TOTP" becomes
    "totp", "sha256" or ``ALG_SHA256`` becomes "SHA256") and the secret is
    copied to bytes; the other values are checked by libmfa in :meth:`to_uri`.
    Fields may be assigned; instances compare by value.
    """

    __slots__ = ("kind", "issuer", "account", "secret", "algorithm", "digits", "period", "counter")
    _hidden = frozenset(["secret"])
    _mutable = True

    kind: str
    issuer: OptionalText
    account: Text
    secret: bytes
    algorithm: str
    digits: int
    period: int
    counter: int

    def __init__(
        self,
        kind: Union[str, int],
        issuer: OptionalText,
        account: Text,
        secret: Bytes,
        algorithm: Union[str, int] = "SHA1",
        digits: int = _ffi.MFA_DIGITS_DEFAULT,
        period: int = _ffi.MFA_PERIOD_DEFAULT,
        counter: int = 0,
    ) -> None:
        self.kind = kind_name(kind)
        self.issuer = issuer
        self.account = account
        self.secret = _args.secret(secret)
        self.algorithm = _args.algorithm_name(_args.algorithm(algorithm))
        self.digits = digits
        self.period = period
        self.counter = counter

    def to_uri(self) -> str:
        """Build the URI with ``mfa_key_uri_build`` (see :func:`build_uri`).

        Raises:
            InvalidArgumentError: an empty, overlong or non-UTF-8 name, a name
                with a NUL, a secret length, digits or period out of range
                (the message says which).
        """
        return build_uri(self.secret, self.account, self.issuer, self.kind, self.algorithm, self.digits,
                         self.period, self.counter)

    def to_otp(self) -> Union[TOTP, HOTP]:
        """A :class:`TOTP` or :class:`HOTP` object with this URI's secret and parameters.

        For HOTP the counter is not part of the object: pass :attr:`counter`
        to ``HOTP.verify``.
        """
        if self.kind == "hotp":
            return HOTP(self.secret, digits=self.digits, algorithm=self.algorithm)
        return TOTP(self.secret, digits=self.digits, period=self.period, algorithm=self.algorithm)


def parse_uri(text: Text) -> KeyURI:
    """Parse an otpauth:// key URI with ``mfa_key_uri_parse``.

    Args:
        text: the URI, str or UTF-8 bytes.

    Returns:
        A :class:`KeyURI` (``issuer`` is None when the URI has none).

    Raises:
        InvalidURIError: not a valid key URI (the message says why; it never
            contains the secret).
        InvalidArgumentError: an embedded NUL, invalid UTF-8 or overlong text.
    """
    raw = _args.text(text, "URI")
    out = ctypes.POINTER(_ffi.mfa_key_uri)()
    err = ctypes.c_void_p()
    check(lib.mfa_key_uri_parse(ctypes.byref(out), raw, ctypes.byref(err)), err)
    try:
        fields = out.contents
        issuer: Optional[str] = _memory.optional(fields.issuer)
        return KeyURI(
            kind=KIND_NAMES[fields.type],
            issuer=issuer,
            account=_memory.required(fields.account),
            secret=ctypes.string_at(fields.secret, fields.secret_len),
            algorithm=_args.algorithm_name(fields.algorithm),
            digits=fields.digits,
            period=fields.period,
            counter=fields.counter,
        )
    finally:
        lib.mfa_key_uri_free(out)


__all__ = ["KeyURI", "build_uri", "parse_uri"]
