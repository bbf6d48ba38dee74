"""otpauth:// key URIs (the Google Authenticator key URI format)."""

import ctypes
import dataclasses
from typing import Optional

from . import _args, constants
from ._lib import lib
from ._types import mfa_key_uri
from .errors import check
from .otp import HOTP, TOTP

_KINDS = {"totp": constants.OTP_TOTP, "hotp": constants.OTP_HOTP}
_KIND_NAMES = {number: name for name, number in _KINDS.items()}


def _kind(value):
    """A kind as "totp" or "hotp", from either name (any case) or ``OTP_*``."""
    if isinstance(value, str) and value.lower() in _KINDS:
        return value.lower()
    if isinstance(value, int) and not isinstance(value, bool) and value in _KIND_NAMES:
        return _KIND_NAMES[value]
    raise _args.invalid("kind must be 'totp' or 'hotp', got %r" % (value,))


@dataclasses.dataclass
class KeyURI:
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
    """

    kind: str
    issuer: Optional[str]
    account: str
    secret: bytes = dataclasses.field(repr=False)
    algorithm: str = "SHA1"
    digits: int = constants.DIGITS_DEFAULT
    period: int = constants.PERIOD_DEFAULT
    counter: int = 0

    def __post_init__(self):
        self.kind = _kind(self.kind)
        self.algorithm = _args.algorithm_name(_args.algorithm(self.algorithm))
        self.secret = _args.secret(self.secret)

    def to_uri(self):
        """Build the URI with ``mfa_key_uri_build``.

        Issuer and account are percent-encoded; the secret is written as
        unpadded base32.

        Raises:
            InvalidArgumentError: an empty, overlong or non-UTF-8 name, a name
                with a NUL, a secret length, digits or period out of range
                (the message says which).
        """
        key = _args.secret(self.secret)
        fields = mfa_key_uri()
        check(lib.mfa_key_uri_init(ctypes.byref(fields), constants.KEY_URI_VERSION))
        fields.type = _KINDS[_kind(self.kind)]
        fields.issuer = _args.optional_text(self.issuer, "issuer")
        fields.account = _args.text(self.account, "account")
        buffer = (ctypes.c_uint8 * len(key)).from_buffer_copy(key)
        fields.secret = buffer
        fields.secret_len = len(key)
        fields.algorithm = _args.algorithm(self.algorithm)
        fields.digits = _args.int32(self.digits, "digits")
        fields.period = _args.int64(self.period, "period")
        fields.counter = _args.uint64(self.counter, "counter")
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        try:
            check(lib.mfa_key_uri_build(ctypes.byref(out), ctypes.byref(fields), ctypes.byref(err)), err)
            return ctypes.string_at(out.value).decode("utf-8")
        finally:
            lib.mfa_free(out)
            ctypes.memset(buffer, 0, len(key))

    def to_otp(self):
        """A :class:`TOTP` or :class:`HOTP` object with this URI's secret and parameters.

        For HOTP the counter is not part of the object: pass :attr:`counter`
        to ``HOTP.verify``.
        """
        if self.kind == "hotp":
            return HOTP(self.secret, digits=self.digits, algorithm=self.algorithm)
        return TOTP(self.secret, digits=self.digits, period=self.period, algorithm=self.algorithm)


def build_uri(
    secret,
    account,
    issuer=None,
    kind="totp",
    algorithm="SHA1",
    digits=constants.DIGITS_DEFAULT,
    period=constants.PERIOD_DEFAULT,
    counter=0,
):
    """Build an otpauth:// key URI; shorthand for ``KeyURI(...).to_uri()``.

    Args:
        secret: the raw shared secret (bytes).
        account: the account name (not empty).
        issuer: the service's name, or None.
        kind: "totp" or "hotp".
        algorithm: "SHA1", "SHA256", "SHA512" or an ``ALG_*`` constant.
        digits: code length, 6 to 8.
        period: TOTP time step in seconds.
        counter: HOTP initial counter.

    Returns:
        The URI as str.
    """
    return KeyURI(kind, issuer, account, secret, algorithm, digits, period, counter).to_uri()


def parse_uri(text):
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
    out = ctypes.POINTER(mfa_key_uri)()
    err = ctypes.c_void_p()
    check(lib.mfa_key_uri_parse(ctypes.byref(out), raw, ctypes.byref(err)), err)
    try:
        fields = out.contents
        return KeyURI(
            kind=_KIND_NAMES[fields.type],
            issuer=None if fields.issuer is None else fields.issuer.decode("utf-8"),
            account=fields.account.decode("utf-8"),
            secret=ctypes.string_at(fields.secret, fields.secret_len),
            algorithm=_args.algorithm_name(fields.algorithm),
            digits=fields.digits,
            period=fields.period,
            counter=fields.counter,
        )
    finally:
        lib.mfa_key_uri_free(out)
