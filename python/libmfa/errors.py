"""Exceptions: one class per libmfa status code, all deriving from MFAError."""

from __future__ import annotations

import ctypes

from ._lib import lib
from .constants import Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Optional, Type

    from .engine.flow import MultiFactorResolver


def status_name(status: int) -> str:
    """The stable name of a status code ("OK", "INVALID_SESSION", ...; "UNKNOWN")."""
    return lib.mfa_status_name(_clamp(status)).decode("ascii")


def errstr(status: int) -> str:
    """A short human message for a status code ("unknown status code" if unknown)."""
    return lib.mfa_errstr(_clamp(status)).decode("utf-8", "replace")


def _clamp(status: int) -> int:
    """Map ints outside int32 to an unknown code instead of letting ctypes wrap them."""
    status = int(status)
    return status if -(2**31) <= status < 2**31 else -(2**31)


class MFAError(Exception):
    """A libmfa call failed.

    Attributes:
        status: the status code (a negative int).
        name: its stable name, e.g. ``"INVALID_ARGUMENT"``.
        message: the detailed message, or the library's short one.
    """

    status: int
    name: str
    message: str

    def __init__(self, status: int, message: Optional[str] = None) -> None:
        self.status = int(status)
        self.name = status_name(self.status)
        self.message = message if message else errstr(self.status)
        super().__init__(self.status, self.message)

    def __str__(self) -> str:
        return "%s: %s" % (self.name, self.message)

    def __repr__(self) -> str:
        return "%s(%d, %r)" % (type(self).__name__, self.status, self.message)


class InvalidArgumentError(MFAError, ValueError):
    """A NULL pointer, a length or value out of range, invalid UTF-8, an overlong string."""


class OperationNotAllowedError(MFAError):
    """MFA, or the factor asked for, is disabled in the project or tenant config."""


class UnverifiedEmailError(MFAError):
    """The user's email address is not verified; enrolling needs a verified email."""


class UnsupportedFirstFactorError(MFAError):
    """The first factor (phone, anonymous, custom token, Game Center) cannot carry MFA."""


class RequiresRecentLoginError(MFAError):
    """The user must have authenticated recently for this operation."""


class InvalidPhoneNumberError(MFAError, ValueError):
    """The phone number is not strict E.164."""


class SecondFactorExistsError(MFAError):
    """The user already has this second factor."""


class SecondFactorLimitExceededError(MFAError):
    """The user has the maximum number of second factors."""


class MissingAppCredentialError(MFAError):
    """App verification needs a credential and none was given."""


class InvalidAppCredentialError(MFAError):
    """The app verifier rejected the credential."""


class InvalidVerificationCodeError(MFAError):
    """The one-time code is wrong (or malformed)."""


class CodeExpiredError(MFAError):
    """The code or the secret being enrolled has expired."""


class InvalidSessionError(MFAError):
    """A session, pending credential or verification id is missing, tampered, expired or used."""


class MFAEnrollmentNotFoundError(MFAError):
    """No enrolled factor has this id."""


class SecondFactorRequired(MFAError):
    """The first factor passed; a second factor is required (a resolver is returned).

    Raised by :meth:`libmfa.Context.sign_in` with :attr:`resolver` set to the
    :class:`libmfa.MultiFactorResolver` (hints + pending credential) that
    finishes the sign-in, like Firebase JS's ``error.resolver``.

    Attributes:
        resolver: the :class:`libmfa.MultiFactorResolver`, or None when the
            exception was not raised by the engine API.
    """

    #: The MultiFactorResolver that finishes the sign-in (None if not set).
    resolver: Optional[MultiFactorResolver] = None

    def __reduce__(self) -> tuple[type, tuple[object, ...], dict[str, object]]:
        # The resolver is bound to a live Context and cannot be pickled; a
        # pickled copy keeps the status and message, with resolver None.
        state = {key: value for key, value in self.__dict__.items() if key != "resolver"}
        return (type(self), self.args, state)


class EnrollmentRequiredError(MFAError):
    """MFA is MANDATORY and the user has no factor: the user must enroll."""


class TooManyAttemptsError(MFAError):
    """Too many failed attempts: wait for the backoff to expire."""


class QuotaExceededError(MFAError):
    """A sending quota (per number, user or tenant) is used up."""


class UserTokenExpiredError(MFAError):
    """The user's credential was issued before its tokens were revoked."""


class TenantMismatchError(MFAError):
    """The token belongs to another tenant."""


class StorageError(MFAError):
    """The store failed (I/O, lost connection, corruption); nothing was half-written."""


class InvalidBase32Error(MFAError, ValueError):
    """A character outside the RFC 4648 base32 alphabet, or a malformed length or padding."""


class InvalidURIError(MFAError, ValueError):
    """The text is not a valid otpauth:// key URI."""


class BufferTooSmallError(MFAError):
    """The caller's output buffer is too small."""


class OutOfMemoryError(MFAError):
    """An allocation failed."""


class CryptoError(MFAError):
    """A cryptographic primitive failed (libsodium could not start, decryption failed)."""


class InternalError(MFAError):
    """A bug in libmfa: please report it."""


class SMSSendFailedError(MFAError):
    """The SMS sender failed, or none is configured; no attempt or quota was used."""


class OriginMismatchError(MFAError):
    """WebAuthn: the response was made on a page of an origin the configuration does not allow."""


class RPIDMismatchError(MFAError):
    """WebAuthn: the authenticator scoped its response to another relying party id."""


class CredentialClonedError(MFAError):
    """WebAuthn: the signature counter did not increase; the authenticator may have been cloned."""


class AttestationNotTrustedError(MFAError):
    """WebAuthn: the attestation is not trusted by the configured roots or the host's trust callback."""


class UserVerificationRequiredError(MFAError):
    """WebAuthn: user verification (PIN, biometrics) is required and the authenticator did not do it."""


class KeyMismatchError(MFAError):
    """Opening a store: it knows a master key by this id and the key given under that id is another one.

    The message names the key id. Nothing was read or written with the key.
    With an HSM: the key under the label the store's data keys are wrapped
    with does not unwrap them (it was replaced since)."""


class KeyProviderUnavailableError(MFAError):
    """The key provider cannot be used: the PKCS#11 module does not load, the token is not found, the HSM failed."""


class KeyProviderLoginError(MFAError):
    """The key provider (the HSM's token) refused the PIN: wrong, locked, or none given."""


class KeyProviderKeyNotFoundError(MFAError):
    """The HSM's token holds no AES key under the label the store's data keys are wrapped with (deleted)."""


class TokenNotFoundError(MFAError):
    """Hardware tokens: no unassigned token of the tenant has this serial (or public id)."""


class InvalidPSKCError(MFAError):
    """PSKC: not a PSKC 1.0 key container, or one holding a DTD, an entity or an external reference."""


class PSKCKeyMismatchError(MFAError):
    """PSKC: the values are encrypted and no key or password was given, or the one given does not open them."""


class InvalidEmailError(MFAError):
    """The email address is not one libmfa takes: local@domain in ASCII, at most 254 bytes, no display name."""


class EmailSendFailedError(MFAError):
    """The email sender failed, or none is configured; no attempt or quota was used."""


class DeviceNotFoundError(MFAError):
    """No remembered device of this user has this id."""


#: Status -> exception class, for every error status.
ERRORS: Dict[Status, Type[MFAError]] = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.OPERATION_NOT_ALLOWED: OperationNotAllowedError,
    Status.UNVERIFIED_EMAIL: UnverifiedEmailError,
    Status.UNSUPPORTED_FIRST_FACTOR: UnsupportedFirstFactorError,
    Status.REQUIRES_RECENT_LOGIN: RequiresRecentLoginError,
    Status.INVALID_PHONE_NUMBER: InvalidPhoneNumberError,
    Status.SECOND_FACTOR_EXISTS: SecondFactorExistsError,
    Status.SECOND_FACTOR_LIMIT_EXCEEDED: SecondFactorLimitExceededError,
    Status.MISSING_APP_CREDENTIAL: MissingAppCredentialError,
    Status.INVALID_APP_CREDENTIAL: InvalidAppCredentialError,
    Status.INVALID_VERIFICATION_CODE: InvalidVerificationCodeError,
    Status.CODE_EXPIRED: CodeExpiredError,
    Status.INVALID_SESSION: InvalidSessionError,
    Status.MFA_ENROLLMENT_NOT_FOUND: MFAEnrollmentNotFoundError,
    Status.SECOND_FACTOR_REQUIRED: SecondFactorRequired,
    Status.ENROLLMENT_REQUIRED: EnrollmentRequiredError,
    Status.TOO_MANY_ATTEMPTS_TRY_LATER: TooManyAttemptsError,
    Status.QUOTA_EXCEEDED: QuotaExceededError,
    Status.USER_TOKEN_EXPIRED: UserTokenExpiredError,
    Status.TENANT_MISMATCH: TenantMismatchError,
    Status.STORAGE_ERROR: StorageError,
    Status.INVALID_BASE32: InvalidBase32Error,
    Status.INVALID_URI: InvalidURIError,
    Status.BUFFER_TOO_SMALL: BufferTooSmallError,
    Status.OUT_OF_MEMORY: OutOfMemoryError,
    Status.CRYPTO: CryptoError,
    Status.INTERNAL: InternalError,
    Status.SMS_SEND_FAILED: SMSSendFailedError,
    Status.ORIGIN_MISMATCH: OriginMismatchError,
    Status.RP_ID_MISMATCH: RPIDMismatchError,
    Status.CREDENTIAL_CLONED: CredentialClonedError,
    Status.ATTESTATION_NOT_TRUSTED: AttestationNotTrustedError,
    Status.USER_VERIFICATION_REQUIRED: UserVerificationRequiredError,
    Status.KEY_MISMATCH: KeyMismatchError,
    Status.INVALID_EMAIL: InvalidEmailError,
    Status.EMAIL_SEND_FAILED: EmailSendFailedError,
    Status.DEVICE_NOT_FOUND: DeviceNotFoundError,
    Status.TOKEN_NOT_FOUND: TokenNotFoundError,
    Status.INVALID_PSKC: InvalidPSKCError,
    Status.PSKC_KEY_MISMATCH: PSKCKeyMismatchError,
    Status.KEY_PROVIDER_UNAVAILABLE: KeyProviderUnavailableError,
    Status.KEY_PROVIDER_LOGIN: KeyProviderLoginError,
    Status.KEY_PROVIDER_KEY_NOT_FOUND: KeyProviderKeyNotFoundError,
}


_BY_NUMBER: Dict[int, Type[MFAError]] = {int(status): cls for status, cls in ERRORS.items()}


def error_for(status: int, message: Optional[str] = None) -> MFAError:
    """The exception (not raised) for a failed status: its class from :data:`ERRORS`."""
    return _BY_NUMBER.get(status, MFAError)(status, message)


def take_message(err: Optional[ctypes.c_void_p]) -> Optional[str]:
    """Read and free the message in a ``char **err`` out-parameter (a ``c_void_p``).

    Returns the text, or None when libmfa left it NULL.
    """
    if err is None or not err.value:
        return None
    address = err.value
    try:
        return ctypes.string_at(address).decode("utf-8", "replace")
    finally:
        lib.mfa_free(address)
        err.value = None


def check(status: int, err_ptr: Optional[ctypes.c_void_p] = None) -> None:
    """Return None for MFA_OK; otherwise raise the status's exception class.

    ``err_ptr`` is the ``c_void_p`` passed (by reference) as a function's
    ``char **err``; its message, if any, becomes the exception's message and is
    freed with ``mfa_free`` either way.
    """
    message = take_message(err_ptr)
    if status != 0:
        raise error_for(status, message)
