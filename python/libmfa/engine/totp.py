"""TOTP second factors (authenticator apps), under the Firebase SDKs' names.

Enrolling (SPEC flow 4)::

    multi_factor = ctx.multi_factor(user)
    secret = libmfa.TOTPMultiFactorGenerator.generate_secret(multi_factor.session())
    print(secret.qr_text("alice@example.com", "ACME"))   # or secret.generate_qr_code_url(...)
    assertion = libmfa.TOTPMultiFactorGenerator.assertion_for_enrollment(secret, code_from_the_app)
    info = multi_factor.enroll(assertion, "Work phone")

Signing in (SPEC flow 5)::

    try:
        ctx.sign_in(user)
    except libmfa.SecondFactorRequired as error:
        resolver = error.resolver
        assertion = libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(resolver.hints[0].uid, code)
        result = resolver.resolve_sign_in(assertion)

Each kind's module holds its values, its assertion (which builds the C
``mfa_assertion`` of kind ``MFA_FACTOR_TOTP``) and its own C calls
(``mfa_totp_generate_secret``, ``mfa_totp_secret_uri``, the imports).
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi, _memory
from .._lib import lib
from .._record import Record
from ..errors import check
from ..models import TOTP_FACTOR_ID, MultiFactorInfo, User
from ..otp import TOTP
from ..qr import qr_code
from .flow import MultiFactorAssertion, MultiFactorSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from .._typing import Bytes, OptionalText, Text
    from .context import Context


class TOTPSecret(Record):
    """A fresh TOTP shared secret waiting for the user to prove they have it.

    Made by :meth:`TOTPMultiFactorGenerator.generate_secret`. The secret is
    kept by libmfa, encrypted, until the enrollment finishes or
    ``enrollment_completion_deadline`` passes. ``shared_secret_key`` and
    ``session_info`` are left out of ``repr``.

    Attributes:
        shared_secret_key: the secret as RFC 4648 base32 without padding, for
            users who type it in (``base32_decode`` gives the raw bytes).
        hashing_algorithm: ``"SHA1"`` (what every authenticator app supports).
        code_length: digits per code (6).
        code_interval_seconds: the time step (30).
        enrollment_completion_deadline: Unix time by which the enrollment must finish.
        session_info: the opaque token naming this pending enrollment.
    """

    __slots__ = ("shared_secret_key", "hashing_algorithm", "code_length", "code_interval_seconds",
                 "enrollment_completion_deadline", "session_info")
    _hidden = frozenset(["shared_secret_key", "session_info"])

    shared_secret_key: str
    hashing_algorithm: str
    code_length: int
    code_interval_seconds: int
    enrollment_completion_deadline: int
    session_info: str

    def __init__(self, shared_secret_key: str, hashing_algorithm: str, code_length: int, code_interval_seconds: int,
                 enrollment_completion_deadline: int, session_info: str) -> None:
        self._set(shared_secret_key=shared_secret_key, hashing_algorithm=hashing_algorithm, code_length=code_length,
                  code_interval_seconds=code_interval_seconds,
                  enrollment_completion_deadline=enrollment_completion_deadline, session_info=session_info)

    def generate_qr_code_url(self, account_name: Text, issuer: OptionalText = None) -> str:
        """The ``otpauth://totp/...`` URI an authenticator app reads from a QR code.

        Issuer and account name are percent-encoded (spaces, colons, ``@``
        and non-ASCII are safe).

        Args:
            account_name: usually the user's email address (not empty).
            issuer: the service's name shown by the app, or None / "".

        Returns:
            The URI as str.

        Raises:
            TypeError: a name that is not str or bytes.
            InvalidArgumentError: an empty or overlong account name, a NUL.
        """
        account = _args.text(account_name, "account_name")
        issuer_raw = _args.optional_text(issuer, "issuer")
        fields = _ffi.mfa_totp_secret()
        fields.shared_secret_key = _args.text(self.shared_secret_key, "shared_secret_key")
        fields.algorithm = _args.algorithm(self.hashing_algorithm)
        fields.digits = _args.int32(self.code_length, "code_length")
        fields.period = _args.int64(self.code_interval_seconds, "code_interval_seconds")
        fields.deadline = _args.int64(self.enrollment_completion_deadline, "enrollment_completion_deadline")
        fields.session_info = _args.text(self.session_info, "session_info")
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        try:
            check(lib.mfa_totp_secret_uri(ctypes.byref(out), ctypes.byref(fields), account, issuer_raw,
                                          ctypes.byref(err)), err)
            return _memory.text(out)
        finally:
            lib.mfa_free(out)

    def qr_png(self, account_name: Text, issuer: OptionalText = None) -> bytes:
        """The QR code of :meth:`generate_qr_code_url` as a PNG image (bytes). It holds the secret."""
        image = qr_code(self.generate_qr_code_url(account_name, issuer), "png")
        assert isinstance(image, bytes)
        return image

    def qr_svg(self, account_name: Text, issuer: OptionalText = None) -> str:
        """The QR code of :meth:`generate_qr_code_url` as an SVG document (str). It holds the secret."""
        return str(qr_code(self.generate_qr_code_url(account_name, issuer), "svg"))

    def qr_text(self, account_name: Text, issuer: OptionalText = None) -> str:
        """The QR code of :meth:`generate_qr_code_url` as terminal text (UTF-8 half blocks, str)."""
        return str(qr_code(self.generate_qr_code_url(account_name, issuer), "text"))


class TOTPMultiFactorAssertion(MultiFactorAssertion):
    """Proof of a TOTP factor: a one-time password plus what it is for.

    Made by :class:`TOTPMultiFactorGenerator`: for enrollment it names the
    pending secret (``session_info``), for sign-in the enrolled factor
    (``enrollment_id``); exactly one of the two is set. To claim a TOTP
    hardware token an operator imported unassigned, ``session_info`` is the
    enrollment session and ``serial`` the token's. The password and the
    session info are left out of ``repr``.

    Attributes:
        one_time_password: the code from the authenticator app (str or bytes).
        session_info: the :class:`TOTPSecret`'s session info (enrollment), or None.
        enrollment_id: the enrolled factor's id (sign-in), or None.
        serial: a hardware token's serial number (claiming it), or None.
        factor_id: always ``"totp"``.
    """

    __slots__ = ("one_time_password", "session_info", "enrollment_id", "serial")
    _hidden = frozenset(["one_time_password", "session_info"])
    factor_id = TOTP_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_TOTP

    one_time_password: Text
    session_info: Optional[Text]
    enrollment_id: Optional[Text]
    serial: Optional[Text]

    def __init__(self, one_time_password: Text, session_info: Optional[Text] = None,
                 enrollment_id: Optional[Text] = None, serial: Optional[Text] = None) -> None:
        self._set(one_time_password=one_time_password, session_info=session_info, enrollment_id=enrollment_id,
                  serial=serial)

    @property
    def for_enrollment(self) -> bool:
        """True for an enrollment assertion, False for a sign-in one."""
        return self.session_info is not None

    def _enrollment(self) -> _ffi.mfa_assertion:
        if self.session_info is None:
            raise _args.invalid("a sign-in assertion cannot enroll a factor; use assertion_for_enrollment")
        fields = self._fields()
        fields.session_info = _args.text(self.session_info, "session_info")
        fields.code = _args.code(self.one_time_password, "one_time_password")
        fields.serial = _args.optional_text(self.serial, "serial")
        return fields

    def _sign_in(self) -> _ffi.mfa_assertion:
        if self.session_info is not None or self.enrollment_id is None:
            raise _args.invalid("an enrollment assertion cannot resolve a sign-in; use assertion_for_sign_in")
        fields = self._fields()
        fields.enrollment_id = _args.text(self.enrollment_id, "enrollment id")
        fields.code = _args.code(self.one_time_password, "one_time_password")
        return fields


class TOTPMultiFactorGenerator:
    """Makes TOTP secrets and assertions, under the Firebase SDKs' names."""

    #: "totp".
    FACTOR_ID = TOTP_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("TOTPMultiFactorGenerator has only static methods")

    @staticmethod
    def assertion_for_token(session: Union[MultiFactorSession, Text], serial: Text,
                            one_time_password: Text) -> TOTPMultiFactorAssertion:
        """An assertion that claims the unassigned TOTP hardware token ``serial`` for the user of ``session``."""
        token = session.token if isinstance(session, MultiFactorSession) else session
        return TOTPMultiFactorAssertion(one_time_password, session_info=token, serial=serial)

    @staticmethod
    def generate_secret(session: MultiFactorSession) -> TOTPSecret:
        """Generate a :class:`TOTPSecret` for the user of ``session``.

        The secret is kept, encrypted, until the enrollment finishes or its
        deadline passes.

        Raises:
            InvalidSessionError: a missing, tampered, expired or used session.
            UserTokenExpiredError: the user's tokens were revoked since the session was made.
            OperationNotAllowedError: TOTP is disabled.
            SecondFactorLimitExceededError: the user has the maximum number of factors.
            TypeError, CryptoError (random callback), StorageError.
        """
        if not isinstance(session, MultiFactorSession):
            raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)
        raw = _args.text(session.token, "session")
        out = ctypes.POINTER(_ffi.mfa_totp_secret)()
        err = ctypes.c_void_p()
        try:
            with session.context._use() as handle:
                check(lib.mfa_totp_generate_secret(handle, ctypes.byref(out), raw, ctypes.byref(err)), err)
            fields = out.contents
            return TOTPSecret(
                shared_secret_key=_memory.required(fields.shared_secret_key),
                hashing_algorithm=_args.algorithm_name(fields.algorithm),
                code_length=int(fields.digits),
                code_interval_seconds=int(fields.period),
                enrollment_completion_deadline=int(fields.deadline),
                session_info=_memory.required(fields.session_info),
            )
        finally:
            lib.mfa_totp_secret_free(out)

    @staticmethod
    def assertion_for_enrollment(secret: TOTPSecret, one_time_password: Text) -> TOTPMultiFactorAssertion:
        """An assertion that finishes enrolling ``secret`` with a code from the app.

        Raises:
            TypeError: ``secret`` is not a :class:`TOTPSecret`, the code is not str.
        """
        if not isinstance(secret, TOTPSecret):
            raise TypeError("secret must be a TOTPSecret, not %s" % type(secret).__name__)
        _args.code(one_time_password, "one_time_password")
        return TOTPMultiFactorAssertion(one_time_password=one_time_password, session_info=secret.session_info)

    @staticmethod
    def assertion_for_sign_in(enrollment_id: Union[MultiFactorInfo, Text],
                              one_time_password: Text) -> TOTPMultiFactorAssertion:
        """An assertion that resolves a sign-in with the enrolled factor ``enrollment_id``.

        Args:
            enrollment_id: the factor's id (a hint's ``uid``), or the
                :class:`libmfa.MultiFactorInfo` itself.
            one_time_password: the code from the app.

        Raises:
            TypeError: an id or code of the wrong type.
        """
        if isinstance(enrollment_id, MultiFactorInfo):
            enrollment_id = enrollment_id.uid
        if not isinstance(enrollment_id, (str, bytes)):
            raise TypeError("enrollment_id must be str, not %s" % type(enrollment_id).__name__)
        _args.code(one_time_password, "one_time_password")
        return TOTPMultiFactorAssertion(one_time_password=one_time_password, enrollment_id=enrollment_id)


def import_totp(context: Context, user: User, secret: Union[Bytes, TOTP],
                display_name: OptionalText = None) -> MultiFactorInfo:
    """Import a TOTP factor the user already has elsewhere, without a code (``mfa_totp_import``).

    An administrative call: the host decides who may make it. Only
    ``user.uid`` and ``user.tenant`` are used; earlier credentials are not
    revoked. Also :meth:`libmfa.Context.import_totp`.

    Args:
        context: the :class:`libmfa.Context`.
        user: the :class:`libmfa.User`.
        secret: the raw secret (10 to 128 bytes; SHA1, 6 digits, 30 s) or a
            :class:`libmfa.TOTP` carrying its own parameters (t0 must be 0).
            A base32 str is a TypeError: decode it with ``base32_decode``.
        display_name: an optional name (at most 256 bytes).

    Returns:
        The new :class:`libmfa.MultiFactorInfo`.

    Raises:
        InvalidArgumentError: secret length, parameters, t0.
        SecondFactorLimitExceededError, StorageError, TypeError.
    """
    if not isinstance(user, User):
        raise TypeError("user must be a libmfa.User, not %s" % type(user).__name__)
    params = None
    if isinstance(secret, TOTP):
        params = _ffi.mfa_totp_params()
        check(lib.mfa_totp_params_init(ctypes.byref(params), _ffi.MFA_TOTP_PARAMS_VERSION))
        params.algorithm = _args.algorithm(secret.algorithm)
        params.digits = secret.digits
        params.period = secret.period
        params.t0 = secret.t0
        raw = secret.secret
    else:
        raw = _args.secret(secret)
    raw_name = _args.optional_text(display_name, "display_name")
    buffer = (ctypes.c_char * max(len(raw), 1)).from_buffer_copy(raw or b"\0")
    try:
        return context._factor_call(lib.mfa_totp_import, user, ctypes.cast(buffer, ctypes.c_char_p), len(raw),
                                    None if params is None else ctypes.byref(params), raw_name)
    finally:
        ctypes.memset(buffer, 0, len(buffer))


def import_uri(context: Context, user: User, uri: Text, display_name: OptionalText = None) -> MultiFactorInfo:
    """Import a TOTP factor from an ``otpauth://totp/...`` URI (see :func:`import_totp`).

    Raises:
        InvalidURIError: not a key URI.
        InvalidArgumentError: an HOTP URI, a secret length.
        SecondFactorLimitExceededError, StorageError, TypeError.
    """
    if not isinstance(user, User):
        raise TypeError("user must be a libmfa.User, not %s" % type(user).__name__)
    raw = _args.text(uri, "uri")
    raw_name = _args.optional_text(display_name, "display_name")
    return context._factor_call(lib.mfa_totp_import_uri, user, raw, raw_name)


__all__ = [
    "TOTPMultiFactorAssertion",
    "TOTPMultiFactorGenerator",
    "TOTPSecret",
    "import_totp",
    "import_uri",
]
