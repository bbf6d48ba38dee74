"""Plain values shared by every kind of second factor: users, factors, results, audit events.

The names follow the Firebase SDKs (``MultiFactorInfo``, ``SignInResult``,
...) in Python spelling. Everything here is data copied out of libmfa: no
object holds C memory. What belongs to one kind of factor (``TOTPSecret``,
``PhoneAuthCredential``, ``RecoveryCodes``, the assertions) lives in that
kind's module of :mod:`libmfa.engine`; the objects bound to a
:class:`libmfa.Context` (``MultiFactor``, ``MultiFactorSession``,
``MultiFactorResolver``) in :mod:`libmfa.engine.flow`.
"""

from __future__ import annotations

from . import _args, _ffi
from ._record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Iterable, Optional, Tuple, Union

    from ._callbacks import AuditFields
    from ._typing import OptionalText, Text, UnixTime

#: The factor id of TOTP second factors ("totp").
TOTP_FACTOR_ID = "totp"
#: The factor id of SMS second factors ("phone").
PHONE_FACTOR_ID = "phone"
#: The factor id of recovery-code sets ("recovery").
RECOVERY_CODES_FACTOR_ID = "recovery"
#: The factor id of WebAuthn credentials, security keys and passkeys ("webauthn").
WEBAUTHN_FACTOR_ID = "webauthn"
#: The factor id of email second factors ("email").
EMAIL_FACTOR_ID = "email"
#: The factor id of a sign-in that a remembered device finished ("remembered_device"): no kind's.
REMEMBERED_DEVICE_FACTOR_ID = "remembered_device"
#: The factor id of HOTP tokens ("hotp").
HOTP_FACTOR_ID = "hotp"
#: The factor id of YubiKeys typing Yubico OTPs ("yubico_otp").
YUBICO_OTP_FACTOR_ID = "yubico_otp"

#: The factor kinds (``FACTOR_*``) by factor id.
FACTOR_KINDS = {
    TOTP_FACTOR_ID: _ffi.MFA_FACTOR_TOTP,
    PHONE_FACTOR_ID: _ffi.MFA_FACTOR_PHONE,
    RECOVERY_CODES_FACTOR_ID: _ffi.MFA_FACTOR_RECOVERY_CODES,
    WEBAUTHN_FACTOR_ID: _ffi.MFA_FACTOR_WEBAUTHN,
    EMAIL_FACTOR_ID: _ffi.MFA_FACTOR_EMAIL,
    HOTP_FACTOR_ID: _ffi.MFA_FACTOR_HOTP,
    YUBICO_OTP_FACTOR_ID: _ffi.MFA_FACTOR_YUBICO_OTP,
}


def _check_text(value: object, what: str, optional: bool = False) -> None:
    """TypeError unless ``value`` is str or bytes (or None when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, (str, bytes)):
        raise TypeError("%s must be str%s, not %s" % (what, " or None" if optional else "", type(value).__name__))


class User(Record):
    """A user as the host knows them after the first factor (``mfa_user``).

    libmfa keeps no accounts: the host says who signed in, how and when, and
    libmfa decides what the second factor requires. Fields may be assigned
    (e.g. ``user.auth_time`` after a new sign-in); instances compare by value.

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

    __slots__ = ("uid", "tenant", "email", "email_verified", "provider", "auth_time")
    _mutable = True

    uid: Text
    tenant: OptionalText
    email: OptionalText
    email_verified: bool
    provider: Text
    auth_time: int

    def __init__(
        self,
        uid: Text,
        tenant: OptionalText = None,
        email: OptionalText = None,
        email_verified: bool = False,
        provider: Text = "password",
        auth_time: Optional[UnixTime] = None,
    ) -> None:
        self._set(uid=uid, tenant=tenant, email=email, email_verified=email_verified, provider=provider,
                  auth_time=auth_time)
        self.validate()

    def validate(self) -> None:
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


class MultiFactorInfo(Record):
    """One enrolled second factor, of any kind, as listed and as shown in sign-in hints.

    Attributes:
        uid: the enrollment id (28 URL-safe characters).
        factor_id: ``"totp"``, ``"phone"``, ``"recovery"``, ``"webauthn"`` or ``"email"``.
        display_name: the name the user gave the factor, or None.
        enrollment_time: when it was enrolled (Unix seconds).
        phone_number: for phone factors the number (masked in hints, e.g.
            ``+1******1234``), else None.
        kind: the factor kind, ``FACTOR_TOTP``, ``FACTOR_PHONE``,
            ``FACTOR_RECOVERY_CODES``, ``FACTOR_WEBAUTHN`` or ``FACTOR_EMAIL``
            (0 for a kind this binding does not know).
        hint: what identifies the factor to its user, never secret:
            ``"authenticator app"``, the masked number, ``"7 codes left"``,
            an email address (masked in hints: ``"j***@e******.com"``).
            Show it in the list the user picks a factor from.
        remaining_codes: for a recovery-code set, how many codes are left;
            None for other kinds.
    """

    __slots__ = ("uid", "factor_id", "display_name", "enrollment_time", "phone_number", "kind", "hint",
                 "remaining_codes")

    uid: str
    factor_id: str
    display_name: Optional[str]
    enrollment_time: int
    phone_number: Optional[str]
    kind: int
    hint: str
    remaining_codes: Optional[int]

    def __init__(
        self,
        uid: str,
        factor_id: str,
        display_name: Optional[str],
        enrollment_time: int,
        phone_number: Optional[str] = None,
        kind: Optional[int] = None,
        hint: str = "",
        remaining_codes: Optional[int] = None,
    ) -> None:
        self._set(uid=uid, factor_id=factor_id, display_name=display_name, enrollment_time=enrollment_time,
                  phone_number=phone_number, kind=FACTOR_KINDS.get(factor_id, 0) if kind is None else kind,
                  hint=hint, remaining_codes=remaining_codes)

    @property
    def email(self) -> Optional[str]:
        """For email factors the address (masked in hints, ``"j***@e******.com"``), else None."""
        return self.hint if self.factor_id == EMAIL_FACTOR_ID else None


class SignInResult(Record):
    """A finished sign-in.

    Attributes:
        uid: the user.
        tenant: the tenant, or None for the project.
        factor_id: the second factor used (``"totp"``, ``"phone"``,
            ``"recovery"``, ``"webauthn"``, ``"email"``), ``"remembered_device"``
            when a remembered device stood in for it, or None when no second
            factor was needed.
        enrollment_id: the enrollment id of the factor used (the device's id), or None.
        time: when the sign-in finished (Unix seconds; by the context's clock).
        kind: the kind of the factor used (``FACTOR_*``), or None.
    """

    __slots__ = ("uid", "tenant", "factor_id", "enrollment_id", "time", "kind", "_claims")

    uid: str
    tenant: Optional[str]
    factor_id: Optional[str]
    enrollment_id: Optional[str]
    time: int
    kind: Optional[int]
    _claims: Tuple[Tuple[str, str], ...]

    def __init__(
        self,
        uid: str,
        tenant: Optional[str],
        factor_id: Optional[str],
        enrollment_id: Optional[str],
        time: int,
        kind: Optional[int] = None,
        claims: Union[Dict[str, str], Iterable[Tuple[str, str]], None] = None,
    ) -> None:
        if claims is None:
            pairs: Tuple[Tuple[str, str], ...] = ()
            if factor_id is not None and enrollment_id is not None:
                pairs = (("sign_in_second_factor", factor_id), ("second_factor_identifier", enrollment_id))
        else:
            items = list(claims.items()) if isinstance(claims, dict) else list(claims)
            pairs = tuple((str(name), str(value)) for name, value in items)
        if kind is None and factor_id is not None:
            kind = FACTOR_KINDS.get(factor_id)
        self._set(uid=uid, tenant=tenant, factor_id=factor_id, enrollment_id=enrollment_id, time=time, kind=kind,
                  _claims=pairs)

    def __repr__(self) -> str:
        return "SignInResult(uid=%r, tenant=%r, factor_id=%r, enrollment_id=%r, time=%r, kind=%r, claims=%r)" % (
            self.uid, self.tenant, self.factor_id, self.enrollment_id, self.time, self.kind, self.claims)

    @property
    def claims(self) -> Dict[str, str]:
        """The claims a host puts in the credential it issues, as the service does (a new dict).

        ``{"sign_in_second_factor": factor_id, "second_factor_identifier":
        enrollment_id}`` and any the factor kind adds (a recovery code adds
        ``recovery_codes_remaining``, the number of codes left, as a str), or
        ``{}`` when no second factor was used.
        """
        return dict(self._claims)

    @property
    def used_remembered_device(self) -> bool:
        """Whether a remembered device stood in for the second factor (``enrollment_id`` is the device's id)."""
        return self.factor_id == REMEMBERED_DEVICE_FACTOR_ID

    @property
    def passkey(self) -> bool:
        """Whether the user signed in with a passkey alone (:meth:`libmfa.Context.sign_in_with_passkey`).

        Both factors were met at once: ``claims["amr"]`` says how
        (``"hwk user mfa"`` or ``"swk user mfa"``).
        """
        return self._claims_dict().get("sign_in_method") == "passkey"

    def _claims_dict(self) -> Dict[str, str]:
        return dict(self._claims)

    @property
    def used_recovery_code(self) -> bool:
        """Whether the user signed in with a recovery code.

        Warn them, and offer a new set (``claims["recovery_codes_remaining"]``
        says how many codes are left).
        """
        return self.factor_id == RECOVERY_CODES_FACTOR_ID


class AuditEvent(Record):
    """One audit event, as passed to a :class:`libmfa.Context`'s ``audit`` callback.

    Events carry ids and outcomes, never a secret, a code or a token.

    Attributes:
        kind: ``AUDIT_ENROLL``, ``AUDIT_UNENROLL``, ``AUDIT_SIGN_IN_SUCCESS``,
            ``AUDIT_SIGN_IN_FAILURE``, ``AUDIT_BACKOFF``, ``AUDIT_CONFIG_CHANGE``,
            ``AUDIT_SMS_SENT``, ``AUDIT_INTEGRITY_FAILURE``,
            ``AUDIT_TOKENS_REVOKED``, or for the administrative calls
            (:class:`libmfa.Admin`) ``AUDIT_FACTOR_RENAMED``,
            ``AUDIT_USER_RESET``, ``AUDIT_USER_DELETED`` or
            ``AUDIT_KEYS_ROTATED``; for remembered devices
            ``AUDIT_DEVICE_REMEMBERED``, ``AUDIT_DEVICE_REFUSED``,
            ``AUDIT_DEVICE_REVOKED``; ``AUDIT_EMAIL_SENT`` (ints).
        kind_name: the kind's name: ``"ENROLL"``, ``"UNENROLL"``,
            ``"SIGN_IN_SUCCESS"``, ``"SIGN_IN_FAILURE"``, ``"BACKOFF"``,
            ``"CONFIG_CHANGE"``, ``"SMS_SENT"``, ``"INTEGRITY_FAILURE"``,
            ``"TOKENS_REVOKED"``, ``"FACTOR_RENAMED"``, ``"USER_RESET"``,
            ``"USER_DELETED"``, ``"KEYS_ROTATED"``, ``"DEVICE_REMEMBERED"``,
            ``"DEVICE_REFUSED"``, ``"DEVICE_REVOKED"``, ``"EMAIL_SENT"``.
        tenant: the tenant, or None for the project.
        uid: the user, or None when the event is not about one user.
        factor_id: ``"totp"``, ``"phone"``, ``"recovery"``, ``"webauthn"``,
            ``"email"``, ``"remembered_device"`` (a device's events) or None.
        enrollment_id: the factor's enrollment id (a device's id), or None.
        time: Unix time of the event (the context's clock).
        detail: the outcome's status name (``"OK"``,
            ``"INVALID_VERIFICATION_CODE"``, ...) or another detail
            (``"ADMIN"`` for an operator's unenroll, ``"IMPORTED"``,
            ``"locked until <time>"``).
        actor: who made the administrative call (the ``actor`` of the
            :class:`libmfa.Admin`, such as an operator's name), or None for
            the user's own actions.
    """

    __slots__ = ("kind", "kind_name", "tenant", "uid", "factor_id", "enrollment_id", "time", "detail", "actor")

    kind: int
    kind_name: str
    tenant: Optional[str]
    uid: Optional[str]
    factor_id: Optional[str]
    enrollment_id: Optional[str]
    time: int
    detail: str
    actor: Optional[str]

    def __init__(
        self,
        kind: int,
        kind_name: str,
        tenant: Optional[str],
        uid: Optional[str],
        factor_id: Optional[str],
        enrollment_id: Optional[str],
        time: int,
        detail: str,
        actor: Optional[str] = None,
    ) -> None:
        self._set(kind=kind, kind_name=kind_name, tenant=tenant, uid=uid, factor_id=factor_id,
                  enrollment_id=enrollment_id, time=time, detail=detail, actor=actor)

    @classmethod
    def _from_fields(cls, fields: AuditFields) -> AuditEvent:
        """Build an event from the copied C fields ("" becomes None where documented)."""

        def optional(name: str) -> Optional[str]:
            return str(fields[name]) or None

        return cls(
            kind=int(fields["kind"]),
            kind_name=str(fields["kind_name"]),
            tenant=optional("tenant"),
            uid=optional("uid"),
            factor_id=optional("factor_id"),
            enrollment_id=optional("enrollment_id"),
            time=int(fields["time"]),
            detail=str(fields["detail"]),
            actor=optional("actor"),
        )


#: The audit kinds by number (``AUDIT_*`` -> name), for reference.
AUDIT_KINDS = {
    _ffi.MFA_AUDIT_ENROLL: "ENROLL",
    _ffi.MFA_AUDIT_UNENROLL: "UNENROLL",
    _ffi.MFA_AUDIT_SIGN_IN_SUCCESS: "SIGN_IN_SUCCESS",
    _ffi.MFA_AUDIT_SIGN_IN_FAILURE: "SIGN_IN_FAILURE",
    _ffi.MFA_AUDIT_BACKOFF: "BACKOFF",
    _ffi.MFA_AUDIT_CONFIG_CHANGE: "CONFIG_CHANGE",
    _ffi.MFA_AUDIT_SMS_SENT: "SMS_SENT",
    _ffi.MFA_AUDIT_INTEGRITY_FAILURE: "INTEGRITY_FAILURE",
    _ffi.MFA_AUDIT_TOKENS_REVOKED: "TOKENS_REVOKED",
    _ffi.MFA_AUDIT_FACTOR_RENAMED: "FACTOR_RENAMED",
    _ffi.MFA_AUDIT_USER_RESET: "USER_RESET",
    _ffi.MFA_AUDIT_USER_DELETED: "USER_DELETED",
    _ffi.MFA_AUDIT_KEYS_ROTATED: "KEYS_ROTATED",
    _ffi.MFA_AUDIT_DEVICE_REMEMBERED: "DEVICE_REMEMBERED",
    _ffi.MFA_AUDIT_DEVICE_REFUSED: "DEVICE_REFUSED",
    _ffi.MFA_AUDIT_DEVICE_REVOKED: "DEVICE_REVOKED",
    _ffi.MFA_AUDIT_EMAIL_SENT: "EMAIL_SENT",
    _ffi.MFA_AUDIT_TOKEN_IMPORTED: "TOKEN_IMPORTED",
    _ffi.MFA_AUDIT_TOKEN_ASSIGNED: "TOKEN_ASSIGNED",
    _ffi.MFA_AUDIT_TOKEN_RESYNCED: "TOKEN_RESYNCED",
    _ffi.MFA_AUDIT_TOKEN_REMOVED: "TOKEN_REMOVED",
}

#: Names that lived here before each factor kind got its module: name -> module of libmfa.engine.
_MOVED = {
    "TOTPSecret": "totp",
    "TOTPMultiFactorAssertion": "totp",
    "PhoneAuthCredential": "phone",
    "PhoneMultiFactorAssertion": "phone",
}


def __getattr__(name: str) -> object:
    """``from libmfa.models import TOTPSecret`` and the like keep working (the engine is imported then)."""
    if name in _MOVED:
        import importlib

        return getattr(importlib.import_module("libmfa.engine." + _MOVED[name]), name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


__all__ = [
    "AUDIT_KINDS",
    "EMAIL_FACTOR_ID",
    "FACTOR_KINDS",
    "HOTP_FACTOR_ID",
    "PHONE_FACTOR_ID",
    "RECOVERY_CODES_FACTOR_ID",
    "REMEMBERED_DEVICE_FACTOR_ID",
    "WEBAUTHN_FACTOR_ID",
    "TOTP_FACTOR_ID",
    "YUBICO_OTP_FACTOR_ID",
    "AuditEvent",
    "MultiFactorInfo",
    "SignInResult",
    "User",
]
