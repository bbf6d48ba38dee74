"""libmfa: TOTP/HOTP one-time passwords, base32, otpauth:// key URIs, and the
MFA engine (Firebase Authentication's multi-factor model with TOTP, SMS and
recovery-code second factors: enrollment, sign-in with a resolver, token
revocation).

A ctypes binding of libmfa's C interface (``include/mfa.h``). The shared
library is found through the ``LIBMFA_LIBRARY`` environment variable (its full
path), then ``libmfa.so`` / ``libmfa.so.0`` inside this package, then the
system's library path.

Quick start::

    import libmfa
    secret = libmfa.random_secret()
    totp = libmfa.TOTP(secret)
    print(totp.provisioning_uri("alice@example.com", issuer="ACME Co"))
    assert totp.verify(totp.now())

The engine (see :mod:`libmfa.engine`)::

    ctx = libmfa.Context("mfa.sqlite3", master_key=key)
    ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
    mf = ctx.multi_factor(libmfa.User("alice", email="a@example.com",
                                      email_verified=True, auth_time=now))
    secret = libmfa.TOTPMultiFactorGenerator.generate_secret(mf.session())
    ...

SMS factors (see :mod:`libmfa.engine.phone`): open the context with
``sms_sender`` (or ``sms_outbox``) and ``app_verifier``, then use
:class:`PhoneAuthProvider` and :class:`PhoneMultiFactorGenerator`. Recovery
codes (see :mod:`libmfa.engine.recovery_codes`):
:class:`RecoveryCodesMultiFactorGenerator`. Security keys and passkeys (see
:mod:`libmfa.engine.webauthn`): :class:`WebAuthnMultiFactorGenerator`, and
``libmfa.webauthn.verify_registration`` / ``verify_assertion`` for hosts
that keep their own credentials.

Every failure raises a subclass of :class:`MFAError`; wrong Python types
(including None where a value is required, and a str secret) raise TypeError.
"""

from .base32 import base32_decode, base32_encode
from .constants import (
    ALG_SHA1,
    ALG_SHA256,
    ALG_SHA512,
    APP_ACTION_ENROLLMENT,
    APP_ACTION_SIGN_IN,
    AUDIT_BACKOFF,
    AUDIT_CONFIG_CHANGE,
    AUDIT_ENROLL,
    AUDIT_INTEGRITY_FAILURE,
    AUDIT_SIGN_IN_FAILURE,
    AUDIT_SIGN_IN_SUCCESS,
    AUDIT_SMS_SENT,
    AUDIT_TOKENS_REVOKED,
    AUDIT_UNENROLL,
    ASSERTION_VERSION,
    BASE32_NO_PADDING,
    CODE_BUFFER_SIZE,
    DIGITS_DEFAULT,
    DIGITS_MAX,
    DIGITS_MIN,
    FACTOR_PHONE,
    FACTOR_RECOVERY_CODES,
    FACTOR_WEBAUTHN,
    WEBAUTHN_FLAG_BE,
    WEBAUTHN_FLAG_BS,
    WEBAUTHN_FLAG_UP,
    WEBAUTHN_FLAG_UV,
    FACTOR_TOTP,
    KEY_MAX_BYTES,
    KEY_URI_VERSION,
    MASTER_KEY_BYTES,
    OPTIONS_VERSION,
    OTP_HOTP,
    OTP_TOTP,
    PERIOD_DEFAULT,
    PERIOD_MAX,
    QR_PNG,
    QR_SVG,
    QR_TEXT,
    SECRET_DEFAULT_BYTES,
    SECRET_MAX_BYTES,
    SECRET_MIN_BYTES,
    STRING_MAX_BYTES,
    TOTP_PARAMS_VERSION,
    USER_VERSION,
    WINDOW_MAX,
    Status,
)
from .errors import (
    ERRORS,
    BufferTooSmallError,
    CodeExpiredError,
    CryptoError,
    EnrollmentRequiredError,
    InternalError,
    InvalidAppCredentialError,
    InvalidArgumentError,
    InvalidBase32Error,
    InvalidPhoneNumberError,
    InvalidSessionError,
    InvalidURIError,
    InvalidVerificationCodeError,
    MFAEnrollmentNotFoundError,
    MFAError,
    MissingAppCredentialError,
    OperationNotAllowedError,
    OutOfMemoryError,
    QuotaExceededError,
    RequiresRecentLoginError,
    SecondFactorExistsError,
    SecondFactorLimitExceededError,
    SecondFactorRequired,
    SMSSendFailedError,
    UserVerificationRequiredError,
    AttestationNotTrustedError,
    CredentialClonedError,
    RPIDMismatchError,
    OriginMismatchError,
    StorageError,
    TenantMismatchError,
    TooManyAttemptsError,
    UnsupportedFirstFactorError,
    UnverifiedEmailError,
    UserTokenExpiredError,
    check,
    errstr,
    status_name,
)
from .engine import (
    Context,
    MultiFactor,
    MultiFactorAssertion,
    MultiFactorResolver,
    MultiFactorSession,
    PhoneAuthCredential,
    PhoneAuthProvider,
    PhoneMultiFactorAssertion,
    PhoneMultiFactorGenerator,
    RecoveryCodeMultiFactorAssertion,
    RecoveryCodes,
    RecoveryCodesMultiFactorGenerator,
    TOTPMultiFactorAssertion,
    TOTPMultiFactorGenerator,
    TOTPSecret,
    WebAuthnAttestation,
    WebAuthnCredential,
    WebAuthnMultiFactorAssertion,
    WebAuthnMultiFactorGenerator,
)
from .engine import webauthn
from .library import library_path, version, version_string
from .models import (
    PHONE_FACTOR_ID,
    RECOVERY_CODES_FACTOR_ID,
    TOTP_FACTOR_ID,
    WEBAUTHN_FACTOR_ID,
    AuditEvent,
    MultiFactorInfo,
    SignInResult,
    User,
)
from .otp import HOTP, TOTP, random_secret
from .outbox import outbox_code, read_outbox
from .qr import qr_code
from .uri import KeyURI, build_uri, parse_uri

#: The version of this Python package (it tracks the C library's version).
__version__ = "0.2.0"

__all__ = [
    "ALG_SHA1",
    "ALG_SHA256",
    "ALG_SHA512",
    "APP_ACTION_ENROLLMENT",
    "APP_ACTION_SIGN_IN",
    "AUDIT_BACKOFF",
    "AUDIT_CONFIG_CHANGE",
    "AUDIT_ENROLL",
    "AUDIT_INTEGRITY_FAILURE",
    "AUDIT_SIGN_IN_FAILURE",
    "AUDIT_SIGN_IN_SUCCESS",
    "AUDIT_SMS_SENT",
    "AUDIT_TOKENS_REVOKED",
    "AUDIT_UNENROLL",
    "ASSERTION_VERSION",
    "BASE32_NO_PADDING",
    "CODE_BUFFER_SIZE",
    "DIGITS_DEFAULT",
    "DIGITS_MAX",
    "DIGITS_MIN",
    "ERRORS",
    "FACTOR_PHONE",
    "FACTOR_RECOVERY_CODES",
    "FACTOR_WEBAUTHN",
    "WEBAUTHN_FLAG_BE",
    "WEBAUTHN_FLAG_BS",
    "WEBAUTHN_FLAG_UP",
    "WEBAUTHN_FLAG_UV",
    "FACTOR_TOTP",
    "HOTP",
    "KEY_MAX_BYTES",
    "KEY_URI_VERSION",
    "MASTER_KEY_BYTES",
    "OPTIONS_VERSION",
    "OTP_HOTP",
    "OTP_TOTP",
    "PERIOD_DEFAULT",
    "PERIOD_MAX",
    "PHONE_FACTOR_ID",
    "QR_PNG",
    "QR_SVG",
    "QR_TEXT",
    "RECOVERY_CODES_FACTOR_ID",
    "SECRET_DEFAULT_BYTES",
    "SECRET_MAX_BYTES",
    "SECRET_MIN_BYTES",
    "STRING_MAX_BYTES",
    "TOTP",
    "TOTP_FACTOR_ID",
    "TOTP_PARAMS_VERSION",
    "USER_VERSION",
    "WINDOW_MAX",
    "AuditEvent",
    "BufferTooSmallError",
    "CodeExpiredError",
    "Context",
    "CryptoError",
    "EnrollmentRequiredError",
    "InternalError",
    "InvalidAppCredentialError",
    "InvalidArgumentError",
    "InvalidBase32Error",
    "InvalidPhoneNumberError",
    "InvalidSessionError",
    "InvalidURIError",
    "InvalidVerificationCodeError",
    "KeyURI",
    "MFAEnrollmentNotFoundError",
    "MFAError",
    "MissingAppCredentialError",
    "MultiFactor",
    "MultiFactorAssertion",
    "MultiFactorInfo",
    "MultiFactorResolver",
    "MultiFactorSession",
    "OperationNotAllowedError",
    "OutOfMemoryError",
    "PhoneAuthCredential",
    "PhoneAuthProvider",
    "PhoneMultiFactorAssertion",
    "PhoneMultiFactorGenerator",
    "QuotaExceededError",
    "RecoveryCodeMultiFactorAssertion",
    "RecoveryCodes",
    "RecoveryCodesMultiFactorGenerator",
    "WebAuthnAttestation",
    "WebAuthnCredential",
    "WebAuthnMultiFactorAssertion",
    "WebAuthnMultiFactorGenerator",
    "WEBAUTHN_FACTOR_ID",
    "webauthn",
    "RequiresRecentLoginError",
    "SecondFactorExistsError",
    "SecondFactorLimitExceededError",
    "SecondFactorRequired",
    "SignInResult",
    "SMSSendFailedError",
    "UserVerificationRequiredError",
    "AttestationNotTrustedError",
    "CredentialClonedError",
    "RPIDMismatchError",
    "OriginMismatchError",
    "Status",
    "StorageError",
    "TenantMismatchError",
    "TooManyAttemptsError",
    "TOTPMultiFactorAssertion",
    "TOTPMultiFactorGenerator",
    "TOTPSecret",
    "UnsupportedFirstFactorError",
    "UnverifiedEmailError",
    "User",
    "UserTokenExpiredError",
    "__version__",
    "base32_decode",
    "base32_encode",
    "build_uri",
    "check",
    "errstr",
    "library_path",
    "outbox_code",
    "parse_uri",
    "qr_code",
    "random_secret",
    "read_outbox",
    "status_name",
    "version",
    "version_string",
]
