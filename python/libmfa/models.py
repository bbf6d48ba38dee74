"""Plain values of the engine API: users, factors, secrets, assertions, results.

The names follow the Firebase SDKs (``MultiFactorInfo``, ``TOTPSecret``, ...)
in Python spelling. Everything here is data copied out of libmfa: no object
holds C memory. The objects bound to a :class:`libmfa.Context`
(``MultiFactor``, ``MultiFactorSession``, ``MultiFactorResolver``) live in
:mod:`libmfa.engine`.
"""

import ctypes
import dataclasses
from typing import Dict, Optional, Union

from . import _args, constants
from ._lib import lib
from ._types import mfa_totp_secret
from .errors import check
from .qr import qr_code

#: The factor id of TOTP second factors ("totp").
TOTP_FACTOR_ID = "totp"
#: The factor id of SMS second factors ("phone").
PHONE_FACTOR_ID = "phone"

_Text = Union[str, bytes]


def _check_text(value, what, optional=False):
    """TypeError unless ``value`` is str or bytes (or None when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, (str, bytes)):
        raise TypeError(
            "%s must be str%s, not %s" % (what, " or None" if optional else "", type(value).__name__)
        )


@dataclasses.dataclass
class User:
    """A user as the host knows them after the first factor (``mfa_user``).

    libmfa keeps no accounts: the host says who signed in, how and when, and
    libmfa decides what the second factor requires.

    Attributes:
        uid: the user's id, 1 to 128 bytes of UTF-8 (str, or UTF-8 bytes).
        tenant: the tenant id, or None for the project.
        email: the email address, or None.
        email_verified: whether the host verified the email (enrolling needs it).
        provider: the first-factor provider id: "password", "emailLink",
            "google.com", ... ("phone", "anonymous", "custom" and
            "gc.apple.com" cannot carry a second factor).
        auth_time: when the user passed the first factor, Unix seconds (an int,
            a float rounded down, or a datetime). Required: it is what the
            recent-login checks look at.

    Raises (on construction):
        TypeError: a field of the wrong type, or no ``auth_time``.
        InvalidArgumentError: an ``auth_time`` that does not fit int64.
    Lengths and contents (empty, overlong, NUL, invalid UTF-8) are checked
    when the user is passed to the engine, as InvalidArgumentError.
    """

    uid: _Text
    tenant: Optional[_Text] = None
    email: Optional[_Text] = None
    email_verified: bool = False
    provider: _Text = "password"
    auth_time: Optional[int] = None

    def __post_init__(self):
        self.validate()

    def validate(self):
        """Check the field types and normalize ``auth_time`` to an int (see the class doc)."""
        _check_text(self.uid, "uid")
        _check_text(self.tenant, "tenant", optional=True)
        _check_text(self.email, "email", optional=True)
        _check_text(self.provider, "provider")
        if not isinstance(self.email_verified, bool):
            raise TypeError("email_verified must be a bool, not %s" % type(self.email_verified).__name__)
        if self.auth_time is None:
            raise TypeError("auth_time is required: when the user passed the first factor (Unix seconds)")
        self.auth_time = _args.unix_time(self.auth_time)


@dataclasses.dataclass(frozen=True)
class MultiFactorInfo:
    """One enrolled second factor, as listed and as shown in sign-in hints.

    Attributes:
        uid: the enrollment id (28 URL-safe characters).
        factor_id: ``"totp"`` or ``"phone"``.
        display_name: the name the user gave the factor, or None.
        enrollment_time: when it was enrolled (Unix seconds).
        phone_number: for phone factors the number (masked in hints, e.g.
            ``+1******1234``), else None.
    """

    uid: str
    factor_id: str
    display_name: Optional[str]
    enrollment_time: int
    phone_number: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class TOTPSecret:
    """A fresh TOTP shared secret waiting for the user to prove they have it.

    Made by :meth:`libmfa.TOTPMultiFactorGenerator.generate_secret`. The
    secret is kept by libmfa, encrypted, until the enrollment finishes or
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

    shared_secret_key: str = dataclasses.field(repr=False)
    hashing_algorithm: str
    code_length: int
    code_interval_seconds: int
    enrollment_completion_deadline: int
    session_info: str = dataclasses.field(repr=False)

    def generate_qr_code_url(self, account_name, issuer=None):
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
        fields = mfa_totp_secret()
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
            return ctypes.string_at(out.value).decode("utf-8")
        finally:
            lib.mfa_free(out)

    def qr_png(self, account_name, issuer=None):
        """The QR code of :meth:`generate_qr_code_url` as a PNG image (bytes). It holds the secret."""
        return qr_code(self.generate_qr_code_url(account_name, issuer), "png")

    def qr_svg(self, account_name, issuer=None):
        """The QR code of :meth:`generate_qr_code_url` as an SVG document (str). It holds the secret."""
        return qr_code(self.generate_qr_code_url(account_name, issuer), "svg")

    def qr_text(self, account_name, issuer=None):
        """The QR code of :meth:`generate_qr_code_url` as terminal text (UTF-8 half blocks, str)."""
        return qr_code(self.generate_qr_code_url(account_name, issuer), "text")


@dataclasses.dataclass(frozen=True)
class TOTPMultiFactorAssertion:
    """Proof of a TOTP factor: a one-time password plus what it is for.

    Made by :class:`libmfa.TOTPMultiFactorGenerator`: for enrollment it names
    the pending secret (``session_info``), for sign-in the enrolled factor
    (``enrollment_id``); exactly one of the two is set. The password and the
    session info are left out of ``repr``.

    Attributes:
        one_time_password: the code from the authenticator app (str or bytes).
        session_info: the :class:`TOTPSecret`'s session info (enrollment), or None.
        enrollment_id: the enrolled factor's id (sign-in), or None.
        factor_id: always ``"totp"``.
    """

    one_time_password: _Text = dataclasses.field(repr=False)
    session_info: Optional[str] = dataclasses.field(default=None, repr=False)
    enrollment_id: Optional[str] = None
    factor_id: str = TOTP_FACTOR_ID

    @property
    def for_enrollment(self):
        """True for an enrollment assertion, False for a sign-in one."""
        return self.session_info is not None


@dataclasses.dataclass(frozen=True)
class PhoneAuthCredential:
    """Proof of a phone number: the verification id and the code the user received by SMS.

    Made by :meth:`libmfa.PhoneAuthProvider.credential`; turned into an
    assertion by :meth:`libmfa.PhoneMultiFactorGenerator.assertion`. Both
    fields are left out of ``repr``.

    Attributes:
        verification_id: the opaque id returned by
            :meth:`libmfa.PhoneAuthProvider.verify_phone_number` or
            :meth:`libmfa.PhoneAuthProvider.verify_phone_number_for_sign_in`.
        verification_code: the six-digit code from the SMS (str or bytes).
    """

    verification_id: _Text = dataclasses.field(repr=False)
    verification_code: _Text = dataclasses.field(repr=False)

    #: "phone".
    provider_id = PHONE_FACTOR_ID


@dataclasses.dataclass(frozen=True)
class PhoneMultiFactorAssertion:
    """Proof of a phone factor, for :meth:`libmfa.MultiFactor.enroll` or
    :meth:`libmfa.MultiFactorResolver.resolve_sign_in`.

    Made by :meth:`libmfa.PhoneMultiFactorGenerator.assertion`. Whether it
    enrolls or signs in is decided by the verification id inside, so the same
    class serves both (as in the Firebase SDKs).

    Attributes:
        credential: the :class:`PhoneAuthCredential`.
        factor_id: always ``"phone"``.
    """

    credential: PhoneAuthCredential
    factor_id: str = PHONE_FACTOR_ID


@dataclasses.dataclass(frozen=True)
class SignInResult:
    """A finished sign-in.

    Attributes:
        uid: the user.
        tenant: the tenant, or None for the project.
        factor_id: the second factor used (``"totp"``, ``"phone"``), or None
            when no second factor was needed.
        enrollment_id: the enrollment id of the factor used, or None.
        time: when the sign-in finished (Unix seconds; by the context's clock).
    """

    uid: str
    tenant: Optional[str]
    factor_id: Optional[str]
    enrollment_id: Optional[str]
    time: int

    @property
    def claims(self) -> Dict[str, str]:
        """The claims a host puts in the credential it issues, as the service does.

        ``{"sign_in_second_factor": factor_id, "second_factor_identifier":
        enrollment_id}``, or ``{}`` when no second factor was used.
        """
        if self.factor_id is None or self.enrollment_id is None:
            return {}
        return {"sign_in_second_factor": self.factor_id, "second_factor_identifier": self.enrollment_id}


@dataclasses.dataclass(frozen=True)
class AuditEvent:
    """One audit event, as passed to a :class:`libmfa.Context`'s ``audit`` callback.

    Events carry ids and outcomes, never a secret, a code or a token.

    Attributes:
        kind: ``AUDIT_ENROLL``, ``AUDIT_UNENROLL``, ``AUDIT_SIGN_IN_SUCCESS``,
            ``AUDIT_SIGN_IN_FAILURE``, ``AUDIT_BACKOFF``, ``AUDIT_CONFIG_CHANGE``
            or ``AUDIT_SMS_SENT`` (ints).
        kind_name: the kind's name: ``"ENROLL"``, ``"UNENROLL"``,
            ``"SIGN_IN_SUCCESS"``, ``"SIGN_IN_FAILURE"``, ``"BACKOFF"``,
            ``"CONFIG_CHANGE"``, ``"SMS_SENT"``.
        tenant: the tenant, or None for the project.
        uid: the user, or None when the event is not about one user.
        factor_id: ``"totp"``, ``"phone"`` or None.
        enrollment_id: the factor's enrollment id, or None.
        time: Unix time of the event (the context's clock).
        detail: the outcome's status name (``"OK"``,
            ``"INVALID_VERIFICATION_CODE"``, ...) or another detail
            (``"IMPORTED"``, ``"locked until <time>"``).
    """

    kind: int
    kind_name: str
    tenant: Optional[str]
    uid: Optional[str]
    factor_id: Optional[str]
    enrollment_id: Optional[str]
    time: int
    detail: str

    @classmethod
    def _from_fields(cls, fields):
        """Build an event from the copied C fields ("" becomes None where documented)."""
        return cls(
            kind=fields["kind"],
            kind_name=fields["kind_name"],
            tenant=fields["tenant"] or None,
            uid=fields["uid"] or None,
            factor_id=fields["factor_id"] or None,
            enrollment_id=fields["enrollment_id"] or None,
            time=fields["time"],
            detail=fields["detail"],
        )


#: The audit kinds by number (``AUDIT_*`` -> name), for reference.
AUDIT_KINDS = {
    constants.AUDIT_ENROLL: "ENROLL",
    constants.AUDIT_UNENROLL: "UNENROLL",
    constants.AUDIT_SIGN_IN_SUCCESS: "SIGN_IN_SUCCESS",
    constants.AUDIT_SIGN_IN_FAILURE: "SIGN_IN_FAILURE",
    constants.AUDIT_BACKOFF: "BACKOFF",
    constants.AUDIT_CONFIG_CHANGE: "CONFIG_CHANGE",
    constants.AUDIT_SMS_SENT: "SMS_SENT",
}
