"""The plain value classes: compared and hashed by value, read-only (User and KeyURI
excepted), picklable, secrets left out of repr; SignInResult's claims."""

import pickle

import pytest

import libmfa
from libmfa.models import FACTOR_KINDS

INFO = dict(uid="u" * 28, factor_id="totp", display_name="app", enrollment_time=1, hint="authenticator app")


def test_values_compare_and_hash_by_value():
    first, second = libmfa.MultiFactorInfo(**INFO), libmfa.MultiFactorInfo(**INFO)
    assert first == second and hash(first) == hash(second) and len({first, second}) == 1
    assert first != libmfa.MultiFactorInfo(**dict(INFO, display_name="other"))
    assert first != ("u" * 28, "totp")


def test_values_are_read_only():
    info = libmfa.MultiFactorInfo(**INFO)
    with pytest.raises(AttributeError):
        info.uid = "x"
    with pytest.raises(AttributeError):
        del info.uid
    with pytest.raises(AttributeError):
        info.colour = "blue"


def test_user_and_key_uri_may_be_changed_but_not_hashed():
    user = libmfa.User("alice", auth_time=1.9)
    assert user.auth_time == 1
    user.auth_time = 5
    assert user == libmfa.User("alice", auth_time=5)
    with pytest.raises(TypeError):
        hash(user)
    key = libmfa.KeyURI("totp", None, "alice", b"12345678901234567890")
    key.digits = 8
    assert "digits=8" in repr(key)


@pytest.mark.parametrize(
    "value",
    [
        libmfa.MultiFactorInfo(**INFO),
        libmfa.SignInResult("alice", None, "recovery", "e" * 28, 5, claims={"recovery_codes_remaining": "3"}),
        libmfa.User("alice", email="a@example.com", auth_time=5),
        libmfa.AuditEvent(1, "ENROLL", None, "alice", "totp", "e" * 28, 5, "OK"),
    ],
)
def test_values_pickle(value):
    assert pickle.loads(pickle.dumps(value)) == value


def test_multi_factor_info_kind_follows_the_factor_id():
    for factor_id, kind in FACTOR_KINDS.items():
        assert libmfa.MultiFactorInfo("u", factor_id, None, 0).kind == kind
    assert libmfa.MultiFactorInfo("u", "future", None, 0).kind == 0
    assert libmfa.MultiFactorInfo("u", "totp", None, 0).remaining_codes is None


def test_sign_in_result_claims():
    plain = libmfa.SignInResult("alice", None, None, None, 5)
    assert plain.claims == {} and plain.kind is None and not plain.used_recovery_code
    totp = libmfa.SignInResult("alice", None, "totp", "e" * 28, 5)
    assert totp.claims == {"sign_in_second_factor": "totp", "second_factor_identifier": "e" * 28}
    assert totp.kind == libmfa.FACTOR_TOTP
    totp.claims["x"] = "y"  # a copy
    assert "x" not in totp.claims
    pairs = libmfa.SignInResult("alice", None, "recovery", "e" * 28, 5, claims=[("a", "1"), ("b", "2")])
    assert pairs.claims == {"a": "1", "b": "2"} and pairs.used_recovery_code


def test_secrets_stay_out_of_repr():
    secret = libmfa.TOTPSecret("JBSWY3DPEHPK3PXP", "SHA1", 6, 30, 600, "v2.session-info")
    assert "JBSWY3DPEHPK3PXP" not in repr(secret) and "v2.session-info" not in repr(secret)
    codes = libmfa.RecoveryCodes(("abcd-efgh-jk",), libmfa.MultiFactorInfo(**INFO))
    assert "abcd-efgh-jk" not in repr(codes) and "1 codes" in repr(codes)
    assertion = libmfa.RecoveryCodesMultiFactorGenerator.assertion_for_sign_in("abcd-efgh-jk")
    assert "abcd" not in repr(assertion) and assertion.factor_id == "recovery"


def test_every_assertion_is_a_multi_factor_assertion():
    for cls in (libmfa.TOTPMultiFactorAssertion, libmfa.PhoneMultiFactorAssertion,
                libmfa.RecoveryCodeMultiFactorAssertion):
        assert issubclass(cls, libmfa.MultiFactorAssertion)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.MultiFactorAssertion()._sign_in()
