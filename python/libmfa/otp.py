"""One-time passwords: random secrets, HOTP (RFC 4226) and TOTP (RFC 6238).

HOTP and TOTP objects are immutable after construction and safe to share
between threads: every call allocates its own output buffers.
"""

from __future__ import annotations

import ctypes
import time

from . import _args, _ffi
from ._lib import ERR_INVALID_VERIFICATION_CODE, OK, lib
from ._otpauth import build_uri
from .errors import check, error_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from ._typing import Bytes, OptionalText, Text, UnixTime

_time = time.time


def random_secret(length: int = _ffi.MFA_SECRET_DEFAULT_BYTES) -> bytes:
    """A fresh random OTP secret from libsodium's CSPRNG.

    Args:
        length: bytes, ``SECRET_MIN_BYTES`` (16) to ``SECRET_MAX_BYTES`` (128);
            the default 20 (160 bits) is what RFC 4226 recommends.

    Returns:
        The secret as bytes.

    Raises:
        InvalidArgumentError: a length out of range.
        CryptoError: the CSPRNG failed.
    """
    length = _args.integer(length, _ffi.MFA_SECRET_MIN_BYTES, _ffi.MFA_SECRET_MAX_BYTES, "length")
    buffer = ctypes.create_string_buffer(length)
    check(lib.mfa_random_secret(buffer, length))
    return buffer.raw


def _key(secret: object) -> bytes:
    """A secret as bytes of an accepted length (1 to KEY_MAX_BYTES)."""
    key = _args.secret(secret)
    if not 1 <= len(key) <= _ffi.MFA_KEY_MAX_BYTES:
        raise _args.invalid("secret must be 1 to %d bytes, got %d" % (_ffi.MFA_KEY_MAX_BYTES, len(key)))
    return key


def _digits(digits: object) -> int:
    """A code length in ``DIGITS_MIN..DIGITS_MAX``."""
    return _args.integer(digits, _ffi.MFA_DIGITS_MIN, _ffi.MFA_DIGITS_MAX, "digits")


def _window(value: object, what: str) -> int:
    """A verification window or look-ahead in ``0..WINDOW_MAX``."""
    return _args.integer(value, 0, _ffi.MFA_WINDOW_MAX, what)


def _code(code: object) -> bytes:
    """A code to verify as NUL-free bytes (str or bytes; None is a TypeError)."""
    return _args.text(code, "code")


class HOTP:
    """Counter-based one-time passwords (RFC 4226) for one secret.

    Args:
        secret: the raw shared secret, bytes (1 to ``KEY_MAX_BYTES``).
        digits: code length, 6 to 8.
        algorithm: "SHA1", "SHA256", "SHA512" (any case) or an ``ALG_*`` constant.

    Raises:
        TypeError: a str or other non-bytes secret, non-int digits.
        InvalidArgumentError: a value out of range or an unknown algorithm.
    """

    __slots__ = ("_key", "_key_len", "_digits", "_algorithm")

    def __init__(self, secret: Bytes, digits: int = _ffi.MFA_DIGITS_DEFAULT, algorithm: Union[str, int] = "SHA1") -> None:
        self._key = _key(secret)
        self._key_len = len(self._key)
        self._digits = _digits(digits)
        self._algorithm = _args.algorithm(algorithm)

    @property
    def secret(self) -> bytes:
        """The raw shared secret (bytes)."""
        return self._key

    @property
    def digits(self) -> int:
        """The code length."""
        return self._digits

    @property
    def algorithm(self) -> str:
        """The HMAC algorithm's name: "SHA1", "SHA256" or "SHA512"."""
        return _args.algorithm_name(self._algorithm)

    def __repr__(self) -> str:
        return "HOTP(digits=%d, algorithm=%r)" % (self._digits, self.algorithm)

    def at(self, counter: int) -> str:
        """The code for ``counter`` (0 to 2**64 - 1), as a str of digits."""
        counter = _args.uint64(counter, "counter")
        out = ctypes.create_string_buffer(_ffi.MFA_CODE_BUFFER_SIZE)
        check(lib.mfa_hotp_generate(out, len(out), self._key, self._key_len, counter, self._digits, self._algorithm))
        return out.value.decode("ascii")

    def verify(self, code: Text, counter: int, look_ahead: int = 0) -> bool:
        """Whether ``code`` is right for ``counter`` or up to ``look_ahead`` counters after it.

        Args:
            code: the code the user typed (str or bytes).
            counter: the next expected counter.
            look_ahead: 0 to ``WINDOW_MAX`` further counters to accept.

        Returns:
            True or False (a malformed code is False), also for counter 0.
            To move the counter on, use :meth:`match`, which says which
            counter matched.

        Raises:
            TypeError: a code that is not str or bytes.
            InvalidArgumentError: an embedded NUL, invalid UTF-8, a look-ahead
                out of range.
        """
        return self.match(code, counter, look_ahead) is not None

    def match(self, code: Text, counter: int, look_ahead: int = 0) -> Optional[int]:
        """Like :meth:`verify`, but return the counter that matched, or None.

        The next expected counter is the matched one plus one. Compare the
        result with None, not for truth: counter 0 is a match.
        """
        raw = _code(code)
        counter = _args.uint64(counter, "counter")
        look_ahead = _window(look_ahead, "look_ahead")
        matched = ctypes.c_uint64()
        status = lib.mfa_hotp_verify(
            ctypes.byref(matched), self._key, self._key_len, counter, look_ahead, self._digits, self._algorithm, raw
        )
        if status == OK:
            return int(matched.value)
        if status == ERR_INVALID_VERIFICATION_CODE:
            return None
        raise error_for(status)


class TOTP:
    """Time-based one-time passwords (RFC 6238) for one secret.

    The C parameter struct and the key are built once here, so that
    :meth:`verify` does a single C call with no per-call allocation beyond
    encoding the code.

    Args:
        secret: the raw shared secret, bytes (1 to ``KEY_MAX_BYTES``).
        digits: code length, 6 to 8.
        period: time step in seconds, 1 to ``PERIOD_MAX``.
        algorithm: "SHA1", "SHA256", "SHA512" (any case) or an ``ALG_*`` constant.
        t0: Unix time at which step 0 starts.

    Raises:
        TypeError: a str or other non-bytes secret, non-int numbers.
        InvalidArgumentError: a value out of range or an unknown algorithm.
    """

    __slots__ = ("_key", "_key_len", "_params", "_verify_fn")

    def __init__(
        self,
        secret: Bytes,
        digits: int = _ffi.MFA_DIGITS_DEFAULT,
        period: int = _ffi.MFA_PERIOD_DEFAULT,
        algorithm: Union[str, int] = "SHA1",
        t0: int = 0,
    ) -> None:
        self._key = _key(secret)
        self._key_len = len(self._key)
        params = _ffi.mfa_totp_params()
        check(lib.mfa_totp_params_init(ctypes.byref(params), _ffi.MFA_TOTP_PARAMS_VERSION))
        params.algorithm = _args.algorithm(algorithm)
        params.digits = _digits(digits)
        params.period = _args.integer(period, 1, _ffi.MFA_PERIOD_MAX, "period")
        params.t0 = _args.int64(t0, "t0")
        # Passed as is, ctypes hands the C function the struct's address
        # (cheaper per call than a pointer object).
        self._params = params
        self._verify_fn = lib.mfa_totp_verify

    @property
    def secret(self) -> bytes:
        """The raw shared secret (bytes)."""
        return self._key

    @property
    def digits(self) -> int:
        """The code length."""
        return self._params.digits

    @property
    def period(self) -> int:
        """The time step in seconds."""
        return self._params.period

    @property
    def algorithm(self) -> str:
        """The HMAC algorithm's name: "SHA1", "SHA256" or "SHA512"."""
        return _args.algorithm_name(self._params.algorithm)

    @property
    def t0(self) -> int:
        """The Unix time at which step 0 starts."""
        return self._params.t0

    def __repr__(self) -> str:
        return "TOTP(digits=%d, period=%d, algorithm=%r, t0=%d)" % (
            self.digits,
            self.period,
            self.algorithm,
            self.t0,
        )

    def timecode(self, unix_time: UnixTime) -> int:
        """The time step that contains ``unix_time``: ``(unix_time - t0) // period``."""
        return (_args.unix_time(unix_time) - self._params.t0) // self._params.period

    def at(self, unix_time: UnixTime) -> str:
        """The code for the time step that contains ``unix_time`` (int, float or datetime).

        Raises:
            InvalidArgumentError: a time before ``t0``.
        """
        when = _args.unix_time(unix_time)
        out = ctypes.create_string_buffer(_ffi.MFA_CODE_BUFFER_SIZE)
        check(lib.mfa_totp_generate(out, len(out), self._key, self._key_len, self._params, when))
        return out.value.decode("ascii")

    def now(self) -> str:
        """The code for the current time."""
        return self.at(int(time.time()))

    def verify(self, code: Text, at: Optional[UnixTime] = None, window: int = 1) -> bool:
        """Whether ``code`` is right at ``at``, give or take ``window`` time steps.

        Args:
            code: the code the user typed (str or bytes).
            at: Unix time (int, float or datetime); None for now.
            window: 0 to ``WINDOW_MAX`` adjacent steps accepted on each side.

        Returns:
            True or False (a malformed code, e.g. letters or the wrong length,
            is False). This is stateless: to make codes single-use, use
            :meth:`match` and refuse steps at or before the last accepted one.

        Raises:
            TypeError: a code that is not str or bytes.
            InvalidArgumentError: an embedded NUL, invalid UTF-8, a window out
                of range, a time before ``t0``.
        """
        if type(code) is str and "\0" not in code:
            try:
                raw = code.encode()
            except UnicodeEncodeError:
                raw = _code(code)
        else:
            raw = _code(code)
        # The hot path: literals instead of module constants (int64 range,
        # WINDOW_MAX = 10, MFA_OK = 0, INVALID_VERIFICATION_CODE = -11) save
        # lookups; anything unusual goes through the checked converters.
        if at is None:
            at = int(_time())
        elif type(at) is not int or not -0x8000000000000000 <= at <= 0x7FFFFFFFFFFFFFFF:
            at = _args.unix_time(at)
        if type(window) is not int or not 0 <= window <= 10:
            window = _window(window, "window")
        status = self._verify_fn(None, self._key, self._key_len, self._params, at, window, raw)
        if status == 0:
            return True
        if status == -11:
            return False
        raise error_for(status)

    def match(self, code: Text, at: Optional[UnixTime] = None, window: int = 1) -> Optional[int]:
        """Like :meth:`verify`, but return the time step that matched, or None.

        Store the step and refuse any code at or before it to make codes
        single-use (RFC 6238 section 5.2).
        """
        raw = _code(code)
        when = int(time.time()) if at is None else _args.unix_time(at)
        window = _window(window, "window")
        step = ctypes.c_int64()
        status = lib.mfa_totp_verify(ctypes.byref(step), self._key, self._key_len, self._params, when, window, raw)
        if status == OK:
            return int(step.value)
        if status == ERR_INVALID_VERIFICATION_CODE:
            return None
        raise error_for(status)

    def provisioning_uri(self, account: Text, issuer: OptionalText = None) -> str:
        """The otpauth://totp/ key URI for this secret (what a QR code holds).

        Args:
            account: the account name, usually an email address (not empty).
            issuer: the service's name, or None.

        Returns:
            The URI as str; issuer and account are percent-encoded.

        Raises:
            InvalidArgumentError: an empty account, or a ``t0`` other than 0
                (a key URI cannot carry it).
        """
        if self.t0 != 0:
            raise _args.invalid("a key URI cannot carry t0 = %d; only t0 = 0 can be provisioned" % self.t0)
        return build_uri(self._key, account, issuer, "totp", self.algorithm, self.digits, self.period)
