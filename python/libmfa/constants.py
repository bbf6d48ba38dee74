"""Numeric constants of libmfa's C interface (``mfa_types.h``).

Python cannot read C macros, so they are repeated here; the tests parse
``include/mfa_types.h`` and fail if the two ever drift apart.
"""

import enum

#: HMAC-SHA1, the default and what every authenticator app supports.
ALG_SHA1 = 1
#: HMAC-SHA256.
ALG_SHA256 = 2
#: HMAC-SHA512.
ALG_SHA512 = 3

#: Time-based one-time password (RFC 6238).
OTP_TOTP = 1
#: Counter-based one-time password (RFC 4226).
OTP_HOTP = 2

#: Fewest digits in a code.
DIGITS_MIN = 6
#: Most digits in a code.
DIGITS_MAX = 8
#: Default number of digits.
DIGITS_DEFAULT = 6
#: Default TOTP period in seconds.
PERIOD_DEFAULT = 30
#: Longest TOTP period accepted, in seconds (one year).
PERIOD_MAX = 31536000
#: Largest verification window: +/- this many time steps (or counters ahead for HOTP).
WINDOW_MAX = 10
#: Size of a buffer that holds any code plus its NUL terminator.
CODE_BUFFER_SIZE = 16
#: Longest HMAC key accepted, in bytes.
KEY_MAX_BYTES = 1024
#: Length in bytes of a secret made by :func:`libmfa.random_secret` by default.
SECRET_DEFAULT_BYTES = 20
#: Shortest secret :func:`libmfa.random_secret` makes (RFC 4226: at least 128 bits).
SECRET_MIN_BYTES = 16
#: Longest secret :func:`libmfa.random_secret` makes.
SECRET_MAX_BYTES = 128
#: Longest string argument, in bytes, that any function reads.
STRING_MAX_BYTES = 65536

#: ``mfa_base32_encode()`` flag: leave out the ``=`` padding.
BASE32_NO_PADDING = 1

#: Version of ``mfa_totp_params`` this binding fills in.
TOTP_PARAMS_VERSION = 1
#: Version of ``mfa_key_uri`` this binding fills in.
KEY_URI_VERSION = 1

#: Audit event: a second factor was enrolled.
AUDIT_ENROLL = 1
#: Audit event: a second factor was removed.
AUDIT_UNENROLL = 2
#: Audit event: a sign-in finished with a second factor.
AUDIT_SIGN_IN_SUCCESS = 3
#: Audit event: a second-factor attempt failed.
AUDIT_SIGN_IN_FAILURE = 4
#: Audit event: failures put a factor or user into backoff.
AUDIT_BACKOFF = 5
#: Audit event: a project or tenant configuration changed.
AUDIT_CONFIG_CHANGE = 6
#: Audit event: an SMS code was sent.
AUDIT_SMS_SENT = 7

#: App verification action: enrolling a phone number.
APP_ACTION_ENROLLMENT = 1
#: App verification action: signing in with a phone factor.
APP_ACTION_SIGN_IN = 2

#: Length of a master key in bytes.
MASTER_KEY_BYTES = 32
#: Version of ``mfa_options`` this binding fills in.
OPTIONS_VERSION = 1
#: Version of ``mfa_user`` this binding fills in.
USER_VERSION = 1

#: ``mfa_qr_encode()`` format: a PNG image.
QR_PNG = 1
#: ``mfa_qr_encode()`` format: an SVG document (UTF-8 text).
QR_SVG = 2
#: ``mfa_qr_encode()`` format: UTF-8 half-block text for a terminal.
QR_TEXT = 3


class Status(enum.IntEnum):
    """A libmfa status code: ``OK`` (0) or a negative ``MFA_ERR_*`` code.

    The member names are the stable names that ``mfa_status_name()`` returns.
    """

    OK = 0
    INVALID_ARGUMENT = -1
    OPERATION_NOT_ALLOWED = -2
    UNVERIFIED_EMAIL = -3
    UNSUPPORTED_FIRST_FACTOR = -4
    REQUIRES_RECENT_LOGIN = -5
    INVALID_PHONE_NUMBER = -6
    SECOND_FACTOR_EXISTS = -7
    SECOND_FACTOR_LIMIT_EXCEEDED = -8
    MISSING_APP_CREDENTIAL = -9
    INVALID_APP_CREDENTIAL = -10
    INVALID_VERIFICATION_CODE = -11
    CODE_EXPIRED = -12
    INVALID_SESSION = -13
    MFA_ENROLLMENT_NOT_FOUND = -14
    SECOND_FACTOR_REQUIRED = -15
    ENROLLMENT_REQUIRED = -16
    TOO_MANY_ATTEMPTS_TRY_LATER = -17
    QUOTA_EXCEEDED = -18
    USER_TOKEN_EXPIRED = -19
    TENANT_MISMATCH = -20
    STORAGE_ERROR = -21
    INVALID_BASE32 = -22
    INVALID_URI = -23
    BUFFER_TOO_SMALL = -24
    OUT_OF_MEMORY = -25
    CRYPTO = -26
    INTERNAL = -27
    SMS_SEND_FAILED = -28
