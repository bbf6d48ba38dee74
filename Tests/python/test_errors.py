"""Status codes, constants and the exception classes."""

import ctypes
import pickle

import pytest

import libmfa
from libmfa import Status, constants
from libmfa._lib import lib
from libmfa._ffi import mfa_key_uri

from shared import header_defines, header_statuses

EXPECTED_CLASSES = {
    "INVALID_ARGUMENT": "InvalidArgumentError",
    "OPERATION_NOT_ALLOWED": "OperationNotAllowedError",
    "UNVERIFIED_EMAIL": "UnverifiedEmailError",
    "UNSUPPORTED_FIRST_FACTOR": "UnsupportedFirstFactorError",
    "REQUIRES_RECENT_LOGIN": "RequiresRecentLoginError",
    "INVALID_PHONE_NUMBER": "InvalidPhoneNumberError",
    "SECOND_FACTOR_EXISTS": "SecondFactorExistsError",
    "SECOND_FACTOR_LIMIT_EXCEEDED": "SecondFactorLimitExceededError",
    "MISSING_APP_CREDENTIAL": "MissingAppCredentialError",
    "INVALID_APP_CREDENTIAL": "InvalidAppCredentialError",
    "INVALID_VERIFICATION_CODE": "InvalidVerificationCodeError",
    "CODE_EXPIRED": "CodeExpiredError",
    "INVALID_SESSION": "InvalidSessionError",
    "MFA_ENROLLMENT_NOT_FOUND": "MFAEnrollmentNotFoundError",
    "SECOND_FACTOR_REQUIRED": "SecondFactorRequired",
    "ENROLLMENT_REQUIRED": "EnrollmentRequiredError",
    "TOO_MANY_ATTEMPTS_TRY_LATER": "TooManyAttemptsError",
    "QUOTA_EXCEEDED": "QuotaExceededError",
    "USER_TOKEN_EXPIRED": "UserTokenExpiredError",
    "TENANT_MISMATCH": "TenantMismatchError",
    "STORAGE_ERROR": "StorageError",
    "INVALID_BASE32": "InvalidBase32Error",
    "INVALID_URI": "InvalidURIError",
    "BUFFER_TOO_SMALL": "BufferTooSmallError",
    "OUT_OF_MEMORY": "OutOfMemoryError",
    "CRYPTO": "CryptoError",
    "INTERNAL": "InternalError",
    "SMS_SEND_FAILED": "SMSSendFailedError",
    "ORIGIN_MISMATCH": "OriginMismatchError",
    "RP_ID_MISMATCH": "RPIDMismatchError",
    "CREDENTIAL_CLONED": "CredentialClonedError",
    "ATTESTATION_NOT_TRUSTED": "AttestationNotTrustedError",
    "USER_VERIFICATION_REQUIRED": "UserVerificationRequiredError",
    "KEY_MISMATCH": "KeyMismatchError",
    "INVALID_EMAIL": "InvalidEmailError",
    "EMAIL_SEND_FAILED": "EmailSendFailedError",
    "DEVICE_NOT_FOUND": "DeviceNotFoundError",
    "TOKEN_NOT_FOUND": "TokenNotFoundError",
    "INVALID_PSKC": "InvalidPSKCError",
    "PSKC_KEY_MISMATCH": "PSKCKeyMismatchError",
    "KEY_PROVIDER_UNAVAILABLE": "KeyProviderUnavailableError",
    "KEY_PROVIDER_LOGIN": "KeyProviderLoginError",
    "KEY_PROVIDER_KEY_NOT_FOUND": "KeyProviderKeyNotFoundError",
}

ERROR_STATUSES = [status for status in Status if status != Status.OK]


def test_status_enum_matches_header():
    assert {status.name: int(status) for status in Status} == header_statuses()


def test_constants_match_header():
    defines = header_defines()
    python_names = [name for name in dir(constants) if name.isupper()]
    assert len(python_names) >= 20
    for name in python_names:
        assert getattr(constants, name) == defines[name], name
    for name, value in defines.items():
        if not name.startswith("VERSION_"):
            assert getattr(constants, name) == value, name


@pytest.mark.parametrize("status", list(Status), ids=lambda s: s.name)
def test_status_name_and_errstr_for_every_status(status):
    assert lib.mfa_status_name(status) == status.name.encode()
    assert libmfa.status_name(status) == status.name
    message = libmfa.errstr(status)
    assert message and message != "unknown status code"
    assert lib.mfa_errstr(status).decode() == message


@pytest.mark.parametrize("status", [1, 42, -50, -1000, 2**31 - 1, -(2**31), 2**40, -(2**40)])
def test_unknown_status_codes(status):
    assert libmfa.status_name(status) == "UNKNOWN"
    assert libmfa.errstr(status) == "unknown status code"


def test_one_class_per_error_status_with_the_expected_name():
    assert set(libmfa.ERRORS) == set(ERROR_STATUSES)
    assert {Status(s).name: cls.__name__ for s, cls in libmfa.ERRORS.items()} == EXPECTED_CLASSES
    assert len(set(libmfa.ERRORS.values())) == len(ERROR_STATUSES)
    for cls in libmfa.ERRORS.values():
        assert issubclass(cls, libmfa.MFAError)
        assert getattr(libmfa, cls.__name__) is cls
        assert cls.__doc__


def test_value_errors_are_value_errors():
    for cls in (libmfa.InvalidArgumentError, libmfa.InvalidBase32Error, libmfa.InvalidURIError):
        assert issubclass(cls, ValueError)
    assert not issubclass(libmfa.StorageError, ValueError)


@pytest.mark.parametrize("status", ERROR_STATUSES, ids=lambda s: s.name)
def test_check_raises_the_class_of_each_status(status):
    with pytest.raises(libmfa.ERRORS[status]) as caught:
        libmfa.check(int(status))
    error = caught.value
    assert error.status == status
    assert error.name == libmfa.status_name(status)
    assert error.message == libmfa.errstr(status)
    assert str(error) == "%s: %s" % (error.name, error.message)


def test_check_ok_returns_none():
    assert libmfa.check(0) is None


def test_check_unknown_status_raises_the_base_class():
    with pytest.raises(libmfa.MFAError) as caught:
        libmfa.check(-99)
    assert type(caught.value) is libmfa.MFAError
    assert caught.value.name == "UNKNOWN"


def test_check_takes_and_frees_the_detailed_message():
    out = ctypes.POINTER(mfa_key_uri)()
    err = ctypes.c_void_p()
    status = lib.mfa_key_uri_parse(ctypes.byref(out), b"otpauth://totp/alice", ctypes.byref(err))
    assert status == Status.INVALID_URI
    assert not out
    assert err.value
    with pytest.raises(libmfa.InvalidURIError) as caught:
        libmfa.check(status, err)
    assert "secret" in caught.value.message
    assert err.value is None


def test_errors_pickle():
    error = libmfa.InvalidURIError(Status.INVALID_URI, "secret is missing")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is libmfa.InvalidURIError
    assert (copy.status, copy.name, copy.message) == (-23, "INVALID_URI", "secret is missing")


def test_audit_kinds_of_issue_8():
    assert (libmfa.AUDIT_INTEGRITY_FAILURE, libmfa.AUDIT_TOKENS_REVOKED) == (8, 9)
    from libmfa.models import AUDIT_KINDS

    assert AUDIT_KINDS[libmfa.AUDIT_INTEGRITY_FAILURE] == "INTEGRITY_FAILURE"
    assert AUDIT_KINDS[libmfa.AUDIT_TOKENS_REVOKED] == "TOKENS_REVOKED"
    # and issue 12's four admin kinds, issue 47's (remembered devices, email codes), issue 48's (tokens)
    assert sorted(AUDIT_KINDS) == list(range(1, 14)) + [16, 17, 18, 19] + list(range(20, 24))
