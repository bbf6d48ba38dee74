"""Numeric constants of libmfa's C interface (``mfa_types.h``), under Python names.

The values come from the generated ctypes layer (``libmfa._ffi``, made from
the header by ``scripts/gen_ctypes.py``), so they cannot drift from C; the
names drop the ``MFA_`` prefix.
"""

from __future__ import annotations

import enum

from . import _ffi

#: HMAC-SHA1, the default and what every authenticator app supports.
ALG_SHA1 = _ffi.MFA_ALG_SHA1
#: HMAC-SHA256.
ALG_SHA256 = _ffi.MFA_ALG_SHA256
#: HMAC-SHA512.
ALG_SHA512 = _ffi.MFA_ALG_SHA512

#: Time-based one-time password (RFC 6238).
OTP_TOTP = _ffi.MFA_OTP_TOTP
#: Counter-based one-time password (RFC 4226).
OTP_HOTP = _ffi.MFA_OTP_HOTP

#: Fewest digits in a code.
DIGITS_MIN = _ffi.MFA_DIGITS_MIN
#: Most digits in a code.
DIGITS_MAX = _ffi.MFA_DIGITS_MAX
#: Default number of digits.
DIGITS_DEFAULT = _ffi.MFA_DIGITS_DEFAULT
#: Default TOTP period in seconds.
PERIOD_DEFAULT = _ffi.MFA_PERIOD_DEFAULT
#: Longest TOTP period accepted, in seconds (one year).
PERIOD_MAX = _ffi.MFA_PERIOD_MAX
#: Largest verification window: +/- this many time steps (or counters ahead for HOTP).
WINDOW_MAX = _ffi.MFA_WINDOW_MAX
#: Size of a buffer that holds any code plus its NUL terminator.
CODE_BUFFER_SIZE = _ffi.MFA_CODE_BUFFER_SIZE
#: Longest HMAC key accepted, in bytes.
KEY_MAX_BYTES = _ffi.MFA_KEY_MAX_BYTES
#: Length in bytes of a secret made by :func:`libmfa.random_secret` by default.
SECRET_DEFAULT_BYTES = _ffi.MFA_SECRET_DEFAULT_BYTES
#: Shortest secret :func:`libmfa.random_secret` makes (RFC 4226: at least 128 bits).
SECRET_MIN_BYTES = _ffi.MFA_SECRET_MIN_BYTES
#: Longest secret :func:`libmfa.random_secret` makes.
SECRET_MAX_BYTES = _ffi.MFA_SECRET_MAX_BYTES
#: Longest string argument, in bytes, that any function reads.
STRING_MAX_BYTES = _ffi.MFA_STRING_MAX_BYTES

#: ``mfa_base32_encode()`` flag: leave out the ``=`` padding.
BASE32_NO_PADDING = _ffi.MFA_BASE32_NO_PADDING

#: Version of ``mfa_totp_params`` this binding fills in.
TOTP_PARAMS_VERSION = _ffi.MFA_TOTP_PARAMS_VERSION
#: Version of ``mfa_key_uri`` this binding fills in.
KEY_URI_VERSION = _ffi.MFA_KEY_URI_VERSION

#: Audit event: a second factor was enrolled.
AUDIT_ENROLL = _ffi.MFA_AUDIT_ENROLL
#: Audit event: a second factor was removed.
AUDIT_UNENROLL = _ffi.MFA_AUDIT_UNENROLL
#: Audit event: a sign-in finished with a second factor.
AUDIT_SIGN_IN_SUCCESS = _ffi.MFA_AUDIT_SIGN_IN_SUCCESS
#: Audit event: a second-factor attempt failed.
AUDIT_SIGN_IN_FAILURE = _ffi.MFA_AUDIT_SIGN_IN_FAILURE
#: Audit event: failures put a factor or user into backoff.
AUDIT_BACKOFF = _ffi.MFA_AUDIT_BACKOFF
#: Audit event: a project or tenant configuration changed.
AUDIT_CONFIG_CHANGE = _ffi.MFA_AUDIT_CONFIG_CHANGE
#: Audit event: an SMS code was sent.
AUDIT_SMS_SENT = _ffi.MFA_AUDIT_SMS_SENT
#: Audit event: a stored value failed its integrity check (a factor row altered, or moved to another user).
AUDIT_INTEGRITY_FAILURE = _ffi.MFA_AUDIT_INTEGRITY_FAILURE
#: Audit event: the host revoked a user's credentials and tokens (:meth:`libmfa.Context.revoke_tokens`).
AUDIT_TOKENS_REVOKED = _ffi.MFA_AUDIT_TOKENS_REVOKED
#: Audit event: an operator renamed a factor (:meth:`libmfa.Admin.rename`).
AUDIT_FACTOR_RENAMED = _ffi.MFA_AUDIT_FACTOR_RENAMED
#: Audit event: an operator reset a user: every factor removed, tokens revoked (:meth:`libmfa.Admin.reset_user`).
AUDIT_USER_RESET = _ffi.MFA_AUDIT_USER_RESET
#: Audit event: an operator deleted everything stored about a user (:meth:`libmfa.Admin.delete_user`).
AUDIT_USER_DELETED = _ffi.MFA_AUDIT_USER_DELETED
#: Audit event: stored secrets were re-encrypted under the current key (:meth:`libmfa.Admin.rotate_keys`).
AUDIT_KEYS_ROTATED = _ffi.MFA_AUDIT_KEYS_ROTATED
#: Audit event: a device was remembered (factor id ``"remembered_device"``, the device's id as enrollment id).
AUDIT_DEVICE_REMEMBERED = _ffi.MFA_AUDIT_DEVICE_REMEMBERED
#: Audit event: a device token given at sign-in was ignored; the detail says why.
AUDIT_DEVICE_REFUSED = _ffi.MFA_AUDIT_DEVICE_REFUSED
#: Audit event: a remembered device was forgotten; the detail says by what.
AUDIT_DEVICE_REVOKED = _ffi.MFA_AUDIT_DEVICE_REVOKED
#: Audit event: an email code was sent.
AUDIT_EMAIL_SENT = _ffi.MFA_AUDIT_EMAIL_SENT
#: Most records one :meth:`libmfa.Context.audit_records` returns.
TRAIL_READ_MAX = _ffi.MFA_TRAIL_READ_MAX
#: The version of ``mfa_trail_query`` this binding fills (the trail's reading calls).
TRAIL_QUERY_VERSION = _ffi.MFA_TRAIL_QUERY_VERSION
#: Audit event: a user signed in with a passkey alone (:meth:`libmfa.Context.sign_in_with_passkey`).
AUDIT_PASSKEY_SIGN_IN_SUCCESS = _ffi.MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS
#: Audit event: a passkey sign-in was refused (``uid`` is ``""`` when no credential of the tenant answered).
AUDIT_PASSKEY_SIGN_IN_FAILURE = _ffi.MFA_AUDIT_PASSKEY_SIGN_IN_FAILURE
#: Audit event: a hardware token was imported unassigned (its serial in the detail).
AUDIT_TOKEN_IMPORTED = _ffi.MFA_AUDIT_TOKEN_IMPORTED
#: Audit event: a hardware token became a user's factor (:meth:`libmfa.Admin.assign_token`, or claimed by its user).
AUDIT_TOKEN_ASSIGNED = _ffi.MFA_AUDIT_TOKEN_ASSIGNED
#: Audit event: an HOTP token's counter was brought forward by two consecutive codes.
AUDIT_TOKEN_RESYNCED = _ffi.MFA_AUDIT_TOKEN_RESYNCED
#: Audit event: an operator removed an unassigned hardware token (:meth:`libmfa.Admin.remove_token`).
AUDIT_TOKEN_REMOVED = _ffi.MFA_AUDIT_TOKEN_REMOVED

#: Longest ``actor`` of an administrative call, in bytes (:class:`libmfa.Admin`).
ACTOR_MAX_BYTES = _ffi.MFA_ACTOR_MAX_BYTES
#: Most users on one page of :meth:`libmfa.Admin.list_users`.
ADMIN_PAGE_MAX = _ffi.MFA_ADMIN_PAGE_MAX
#: ``mfa_admin_user_factors()`` flag: show phone numbers in full (``show_phone_numbers=True`` in Python).
ADMIN_SHOW_PHONE_NUMBERS = _ffi.MFA_ADMIN_SHOW_PHONE_NUMBERS
#: Version of ``mfa_import_options`` this binding fills in.
IMPORT_OPTIONS_VERSION = _ffi.MFA_IMPORT_OPTIONS_VERSION
#: :meth:`libmfa.Admin.import_factors` format: ``otpauth://totp/...`` URIs, one per line.
IMPORT_OTPAUTH = _ffi.MFA_IMPORT_OTPAUTH
#: :meth:`libmfa.Admin.import_factors` format: a pam_oath / liboath users file.
IMPORT_USERS_FILE = _ffi.MFA_IMPORT_USERS_FILE
#: :meth:`libmfa.Admin.import_factors` format: CSV ``uid,secret,issuer,digits,period,algorithm``.
IMPORT_CSV = _ffi.MFA_IMPORT_CSV
#: :meth:`libmfa.Admin.import_factors` format: the CSV YubiKeys are programmed with (unassigned tokens).
IMPORT_YUBIKEY_CSV = _ffi.MFA_IMPORT_YUBIKEY_CSV
#: Import outcome: a factor (or a recovery code) was stored.
IMPORT_IMPORTED = _ffi.MFA_IMPORT_IMPORTED
#: Import outcome: the user already has a factor with this secret (a re-run); nothing was stored.
IMPORT_ALREADY_IMPORTED = _ffi.MFA_IMPORT_ALREADY_IMPORTED
#: Import outcome: the line names something libmfa does not do (a key of an unknown algorithm); nothing was stored.
IMPORT_UNSUPPORTED = _ffi.MFA_IMPORT_UNSUPPORTED
#: Import outcome: the line is malformed or was refused; nothing was stored.
IMPORT_FAILED = _ffi.MFA_IMPORT_FAILED
#: Import outcome: how a setting maps onto libmfa (a google-authenticator option line).
IMPORT_NOTE = _ffi.MFA_IMPORT_NOTE
#: Longest text an import reads, in bytes (1 GiB).
IMPORT_MAX_BYTES = _ffi.MFA_IMPORT_MAX_BYTES
#: Lines per transaction of an import, by default.
IMPORT_BATCH_DEFAULT = _ffi.MFA_IMPORT_BATCH_DEFAULT
#: Most lines per transaction of an import.
IMPORT_BATCH_MAX = _ffi.MFA_IMPORT_BATCH_MAX
#: Most records per batch of :meth:`libmfa.Admin.rotate_keys` and :meth:`libmfa.Admin.check_seals`.
ROTATION_BATCH_MAX = _ffi.MFA_ROTATION_BATCH_MAX

#: App verification action: enrolling a phone number.
APP_ACTION_ENROLLMENT = _ffi.MFA_APP_ACTION_ENROLLMENT
#: App verification action: signing in with a phone factor.
APP_ACTION_SIGN_IN = _ffi.MFA_APP_ACTION_SIGN_IN

#: ``mfa_options.metrics``: metrics without a tenant label (``Context(metrics=True)``, the default).
METRICS_ON = _ffi.MFA_METRICS_ON
#: ``mfa_options.metrics``: no metrics (``Context(metrics=False)``).
METRICS_OFF = _ffi.MFA_METRICS_OFF
#: ``mfa_options.metrics``: metrics labelled by tenant (``Context(metrics_tenants=N)``).
METRICS_BY_TENANT = _ffi.MFA_METRICS_BY_TENANT
#: ``mfa_metric_family.type`` of a counter (:attr:`libmfa.MetricFamily.type` ``"counter"``).
METRIC_COUNTER = _ffi.MFA_METRIC_COUNTER
#: ``mfa_metric_family.type`` of a histogram (:attr:`libmfa.MetricFamily.type` ``"histogram"``).
METRIC_HISTOGRAM = _ffi.MFA_METRIC_HISTOGRAM
#: How many tenants a context's metrics label by default (``Context(metrics_tenants=...)``).
METRICS_TENANTS_DEFAULT = _ffi.MFA_METRICS_TENANTS_DEFAULT
#: Most tenants a context's metrics label.
METRICS_TENANTS_MAX = _ffi.MFA_METRICS_TENANTS_MAX

#: Length of a master key in bytes.
MASTER_KEY_BYTES = _ffi.MFA_MASTER_KEY_BYTES
#: Version of ``mfa_options`` this binding fills in.
OPTIONS_VERSION = _ffi.MFA_OPTIONS_VERSION
#: Version of ``mfa_user`` this binding fills in.
USER_VERSION = _ffi.MFA_USER_VERSION
#: Version of ``mfa_assertion`` this binding fills in.
ASSERTION_VERSION = _ffi.MFA_ASSERTION_VERSION

#: Factor kind: a TOTP authenticator app (factor id ``"totp"``), as in :attr:`libmfa.MultiFactorInfo.kind`.
FACTOR_TOTP = _ffi.MFA_FACTOR_TOTP
#: Factor kind: SMS codes to a phone number (factor id ``"phone"``).
FACTOR_PHONE = _ffi.MFA_FACTOR_PHONE
#: Factor kind: a set of single-use recovery codes (factor id ``"recovery"``).
FACTOR_RECOVERY_CODES = _ffi.MFA_FACTOR_RECOVERY_CODES
#: Factor kind: a WebAuthn security key or passkey (factor id "webauthn").
FACTOR_WEBAUTHN = _ffi.MFA_FACTOR_WEBAUTHN
#: Factor kind: codes sent by email (factor id ``"email"``).
FACTOR_EMAIL = _ffi.MFA_FACTOR_EMAIL
#: ``mfa_email_message`` purpose: proving an address being enrolled.
EMAIL_ENROLLMENT = _ffi.MFA_EMAIL_ENROLLMENT
#: ``mfa_email_message`` purpose: signing in with an enrolled address.
EMAIL_SIGN_IN = _ffi.MFA_EMAIL_SIGN_IN
#: Factor kind: an event-based OATH token, RFC 4226 HOTP (factor id ``"hotp"``).
FACTOR_HOTP = _ffi.MFA_FACTOR_HOTP
#: Factor kind: a YubiKey typing Yubico OTPs, checked locally (factor id ``"yubico_otp"``).
FACTOR_YUBICO_OTP = _ffi.MFA_FACTOR_YUBICO_OTP
#: Length of the OTP a YubiKey types with the usual 12-character public id.
YUBICO_OTP_LENGTH = _ffi.MFA_YUBICO_OTP_LENGTH
#: Longest HOTP resynchronization search, in counters.
HOTP_RESYNC_MAX = _ffi.MFA_HOTP_RESYNC_MAX
#: Version of ``mfa_token_seed`` this binding fills in (:meth:`libmfa.Admin.import_token`).
TOKEN_SEED_VERSION = _ffi.MFA_TOKEN_SEED_VERSION
#: Longest pre-shared key of a PSKC file, in bytes (AES-256).
PSKC_KEY_MAX_BYTES = _ffi.MFA_PSKC_KEY_MAX_BYTES
#: ``mfa_import_pskc()`` flag: every key unassigned, whatever its UserId (``ignore_users=True`` in Python).
PSKC_IGNORE_USERS = _ffi.MFA_PSKC_IGNORE_USERS
#: ``mfa_admin_tokens_list()`` flag: users' tokens too (``assigned=True`` in Python).
TOKENS_ASSIGNED = _ffi.MFA_TOKENS_ASSIGNED

#: WebAuthn authenticator data flag: the user was present (UP).
WEBAUTHN_FLAG_UP = _ffi.MFA_WEBAUTHN_FLAG_UP
#: WebAuthn authenticator data flag: the user was verified (UV).
WEBAUTHN_FLAG_UV = _ffi.MFA_WEBAUTHN_FLAG_UV
#: WebAuthn authenticator data flag: the credential may be backed up, a synced passkey (BE).
WEBAUTHN_FLAG_BE = _ffi.MFA_WEBAUTHN_FLAG_BE
#: WebAuthn authenticator data flag: the credential is backed up (BS).
WEBAUTHN_FLAG_BS = _ffi.MFA_WEBAUTHN_FLAG_BS

#: COSE algorithm: ECDSA P-256 with SHA-256 (``"ES256"``), what nearly every authenticator makes.
COSE_ES256 = _ffi.MFA_COSE_ES256
#: COSE algorithm: EdDSA with Ed25519 (``"EdDSA"``).
COSE_EDDSA = _ffi.MFA_COSE_EDDSA
#: COSE algorithm: RSASSA-PKCS1-v1_5 with SHA-256 (``"RS256"``, Windows Hello).
COSE_RS256 = _ffi.MFA_COSE_RS256
#: COSE algorithm: ECDSA P-384 with SHA-384 (``"ES384"``).
COSE_ES384 = _ffi.MFA_COSE_ES384
#: COSE algorithm: ECDSA P-521 with SHA-512 (``"ES512"``).
COSE_ES512 = _ffi.MFA_COSE_ES512
#: COSE algorithm: RSASSA-PSS with SHA-256 (``"PS256"``).
COSE_PS256 = _ffi.MFA_COSE_PS256
#: Most algorithms one WebAuthn ceremony may offer (``algorithms=`` of the per-call options).
WEBAUTHN_ALGORITHMS_MAX = _ffi.MFA_WEBAUTHN_ALGORITHMS_MAX
#: Version of ``mfa_webauthn_options`` this binding fills in.
WEBAUTHN_OPTIONS_VERSION = _ffi.MFA_WEBAUTHN_OPTIONS_VERSION

#: ``mfa_qr_encode()`` format: a PNG image.
QR_PNG = _ffi.MFA_QR_PNG
#: ``mfa_qr_encode()`` format: an SVG document (UTF-8 text).
QR_SVG = _ffi.MFA_QR_SVG
#: ``mfa_qr_encode()`` format: UTF-8 half-block text for a terminal.
QR_TEXT = _ffi.MFA_QR_TEXT


class Status(enum.IntEnum):
    """A libmfa status code: ``OK`` (0) or a negative ``MFA_ERR_*`` code.

    The member names are the stable names that ``mfa_status_name()`` returns.
    """

    OK = _ffi.MFA_OK
    INVALID_ARGUMENT = _ffi.MFA_ERR_INVALID_ARGUMENT
    OPERATION_NOT_ALLOWED = _ffi.MFA_ERR_OPERATION_NOT_ALLOWED
    UNVERIFIED_EMAIL = _ffi.MFA_ERR_UNVERIFIED_EMAIL
    UNSUPPORTED_FIRST_FACTOR = _ffi.MFA_ERR_UNSUPPORTED_FIRST_FACTOR
    REQUIRES_RECENT_LOGIN = _ffi.MFA_ERR_REQUIRES_RECENT_LOGIN
    INVALID_PHONE_NUMBER = _ffi.MFA_ERR_INVALID_PHONE_NUMBER
    SECOND_FACTOR_EXISTS = _ffi.MFA_ERR_SECOND_FACTOR_EXISTS
    SECOND_FACTOR_LIMIT_EXCEEDED = _ffi.MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED
    MISSING_APP_CREDENTIAL = _ffi.MFA_ERR_MISSING_APP_CREDENTIAL
    INVALID_APP_CREDENTIAL = _ffi.MFA_ERR_INVALID_APP_CREDENTIAL
    INVALID_VERIFICATION_CODE = _ffi.MFA_ERR_INVALID_VERIFICATION_CODE
    CODE_EXPIRED = _ffi.MFA_ERR_CODE_EXPIRED
    INVALID_SESSION = _ffi.MFA_ERR_INVALID_SESSION
    MFA_ENROLLMENT_NOT_FOUND = _ffi.MFA_ERR_MFA_ENROLLMENT_NOT_FOUND
    SECOND_FACTOR_REQUIRED = _ffi.MFA_ERR_SECOND_FACTOR_REQUIRED
    ENROLLMENT_REQUIRED = _ffi.MFA_ERR_ENROLLMENT_REQUIRED
    TOO_MANY_ATTEMPTS_TRY_LATER = _ffi.MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER
    QUOTA_EXCEEDED = _ffi.MFA_ERR_QUOTA_EXCEEDED
    USER_TOKEN_EXPIRED = _ffi.MFA_ERR_USER_TOKEN_EXPIRED
    TENANT_MISMATCH = _ffi.MFA_ERR_TENANT_MISMATCH
    STORAGE_ERROR = _ffi.MFA_ERR_STORAGE_ERROR
    INVALID_BASE32 = _ffi.MFA_ERR_INVALID_BASE32
    INVALID_URI = _ffi.MFA_ERR_INVALID_URI
    BUFFER_TOO_SMALL = _ffi.MFA_ERR_BUFFER_TOO_SMALL
    OUT_OF_MEMORY = _ffi.MFA_ERR_OUT_OF_MEMORY
    CRYPTO = _ffi.MFA_ERR_CRYPTO
    INTERNAL = _ffi.MFA_ERR_INTERNAL
    SMS_SEND_FAILED = _ffi.MFA_ERR_SMS_SEND_FAILED
    ORIGIN_MISMATCH = _ffi.MFA_ERR_ORIGIN_MISMATCH
    RP_ID_MISMATCH = _ffi.MFA_ERR_RP_ID_MISMATCH
    CREDENTIAL_CLONED = _ffi.MFA_ERR_CREDENTIAL_CLONED
    ATTESTATION_NOT_TRUSTED = _ffi.MFA_ERR_ATTESTATION_NOT_TRUSTED
    USER_VERIFICATION_REQUIRED = _ffi.MFA_ERR_USER_VERIFICATION_REQUIRED
    KEY_MISMATCH = _ffi.MFA_ERR_KEY_MISMATCH
    INVALID_EMAIL = _ffi.MFA_ERR_INVALID_EMAIL
    EMAIL_SEND_FAILED = _ffi.MFA_ERR_EMAIL_SEND_FAILED
    DEVICE_NOT_FOUND = _ffi.MFA_ERR_DEVICE_NOT_FOUND
    TOKEN_NOT_FOUND = _ffi.MFA_ERR_TOKEN_NOT_FOUND
    INVALID_PSKC = _ffi.MFA_ERR_INVALID_PSKC
    PSKC_KEY_MISMATCH = _ffi.MFA_ERR_PSKC_KEY_MISMATCH
    KEY_PROVIDER_UNAVAILABLE = _ffi.MFA_ERR_KEY_PROVIDER_UNAVAILABLE
    KEY_PROVIDER_LOGIN = _ffi.MFA_ERR_KEY_PROVIDER_LOGIN
    KEY_PROVIDER_KEY_NOT_FOUND = _ffi.MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND
