"""SPEC flow 6 (unenroll) and token revocation (USER_TOKEN_EXPIRED)."""

import datetime

import pytest

import libmfa

GEN = libmfa.TOTPMultiFactorGenerator


def test_unenroll_by_id_and_by_info(kit):
    user = kit.user()
    first, _ = kit.enroll(user, "one")
    kit.clock.advance(1)
    second, _ = kit.enroll(user, "two")
    mf = kit.ctx.multi_factor(user)
    assert mf.enrolled_factors() == [first, second]
    mf.unenroll(first.uid)
    assert mf.enrolled_factors() == [second]
    mf.unenroll(second)
    assert mf.enrolled_factors() == []
    assert kit.kinds().count("UNENROLL") == 2


def test_unenrolled_user_signs_in_without_a_second_factor(kit):
    user = kit.user()
    info, _ = kit.enroll(user)
    kit.ctx.multi_factor(user).unenroll(info)
    result = kit.ctx.sign_in(user)
    assert result.factor_id is None and result.claims == {}


def test_pending_credential_of_a_removed_factor(kit):
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    kit.ctx.multi_factor(user).unenroll(info)
    # The unenroll revoked the pending credential: that is the answer, not the factor's absence.
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.resolve(resolver, info.uid, kit.code(totp))


def test_unenroll_unknown_factor(kit):
    user = kit.user()
    kit.enroll(user)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        kit.ctx.multi_factor(user).unenroll("B" * 28)
    info, _ = kit.enroll(user)
    kit.ctx.multi_factor(user).unenroll(info)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        kit.ctx.multi_factor(user).unenroll(info)  # twice


def test_cannot_unenroll_another_users_factor(kit):
    alice, bob = kit.user("alice"), kit.user("bob")
    info, _ = kit.enroll(alice)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        kit.ctx.multi_factor(bob).unenroll(info.uid)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        kit.ctx.multi_factor(kit.user("alice", tenant="t1")).unenroll(info.uid)  # same uid, other tenant
    assert kit.ctx.multi_factor(alice).enrolled_factors() == [info]


def test_unenroll_requires_a_recent_login(kit):
    user = kit.user()
    info, _ = kit.enroll(user)
    kit.clock.advance(301)
    with pytest.raises(libmfa.RequiresRecentLoginError):
        kit.ctx.multi_factor(user).unenroll(info)
    user.auth_time = kit.clock.now
    kit.ctx.multi_factor(user).unenroll(info)


def test_unenroll_wrong_types(kit):
    mf = kit.ctx.multi_factor(kit.user())
    with pytest.raises(TypeError):
        mf.unenroll(None)
    with pytest.raises(TypeError):
        mf.unenroll(42)
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.unenroll("")
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.unenroll("x" * 129)


# --- token revocation ------------------------------------------------------------------


def test_unenroll_revokes_earlier_tokens(kit):
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    issued = kit.clock.now  # the host issues a credential now
    kit.ctx.check_token("alice", issued)
    kit.clock.advance(100)
    user.auth_time = kit.clock.now
    kit.ctx.multi_factor(user).unenroll(info)
    with pytest.raises(libmfa.UserTokenExpiredError) as caught:
        kit.ctx.check_token("alice", issued)
    assert caught.value.name == "USER_TOKEN_EXPIRED"
    kit.ctx.check_token("alice", kit.clock.now + 1)  # a credential issued after re-authentication


def test_enrollment_revokes_earlier_tokens(kit):
    kit.ctx.check_token("alice", kit.clock.now - 1000)  # no revocation yet: anything goes
    issued = kit.clock.now - 1
    kit.enroll(kit.user())
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", issued)
    kit.ctx.check_token("alice", kit.clock.now + 1)


def test_revocation_is_per_user_and_tenant(kit):
    issued = kit.clock.now - 1
    kit.enroll(kit.user("alice"))
    kit.ctx.check_token("bob", issued)
    kit.ctx.check_token("alice", issued, tenant="t1")
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", issued)


def test_import_does_not_revoke_tokens(kit):
    issued = kit.clock.now - 1
    kit.ctx.import_totp(kit.user(), libmfa.random_secret())
    kit.ctx.check_token("alice", issued)


def test_check_token_accepts_datetimes_and_floats(kit):
    kit.enroll(kit.user())
    before = datetime.datetime.fromtimestamp(kit.clock.now - 5, tz=datetime.timezone.utc)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", before)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", kit.clock.now - 0.5)
    kit.ctx.check_token("alice", float(kit.clock.now + 1))


def test_check_token_bad_input(kit):
    with pytest.raises(TypeError):
        kit.ctx.check_token(None, 0)
    with pytest.raises(TypeError):
        kit.ctx.check_token("alice", None)
    with pytest.raises(TypeError):
        kit.ctx.check_token("alice", "yesterday")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.check_token("", 0)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.check_token("alice", 2**63)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.check_token("alice", float("nan"))
