"""Recovery codes, the third kind of second factor: generate a set, sign in with a code
once, replays refused, a new set replaces the old one, the set does not count toward the
factor limit, and hints say how many codes are left."""

import re

import pytest

import libmfa

from conftest import NUMBER, NUMBER_MASKED, PHONE_ON, TOTP_ON

RC = libmfa.RecoveryCodesMultiFactorGenerator
GEN = libmfa.TOTPMultiFactorGenerator
RECOVERY_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "recovery": "ENABLED"}}
#: "xxxx-xxxx-xx" in the alphabet without i, l, o, u.
CODE = re.compile(r"^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{2}$")


@pytest.fixture
def kit(make_kit):
    """An EngineKit with TOTP and recovery codes enabled."""
    return make_kit(config=RECOVERY_ON)


def generate(kit, user, display_name=None):
    """A new recovery-code set for ``user``."""
    return RC.generate_codes(kit.ctx.multi_factor(user).session(), display_name)


def sign_in_with(kit, user, code, enrollment_id=None):
    """A sign-in of ``user`` finished with a recovery code."""
    resolver = kit.resolver(user)
    return resolver.resolve_sign_in(RC.assertion_for_sign_in(code, enrollment_id))


# --- generating a set -------------------------------------------------------------------


def test_generate_codes_returns_the_codes_and_the_set_as_a_factor(kit):
    user = kit.user()
    codes = generate(kit, user, "on paper")
    assert len(codes.codes) == 10 and len(set(codes.codes)) == 10
    assert all(CODE.match(code) for code in codes.codes), codes.codes
    factor = codes.factor
    assert (factor.factor_id, factor.kind, factor.display_name) == ("recovery", libmfa.FACTOR_RECOVERY_CODES, "on paper")
    assert (factor.hint, factor.remaining_codes, factor.phone_number) == ("10 codes left", 10, None)
    assert kit.ctx.multi_factor(user).enrolled_factors() == [factor]
    assert RC.FACTOR_ID == libmfa.RECOVERY_CODES_FACTOR_ID == "recovery"
    assert [(e.kind_name, e.factor_id, e.enrollment_id) for e in kit.events[-1:]] == [("ENROLL", "recovery", factor.uid)]


def test_codes_are_shown_once_and_never_in_repr(kit):
    codes = generate(kit, kit.user())
    for code in codes.codes:
        assert code not in repr(codes)
        assert code not in repr(RC.assertion_for_sign_in(code))
        for event in kit.events:
            assert code not in repr(event)


def test_the_set_size_is_configurable(make_kit):
    kit = make_kit(config={**RECOVERY_ON, "recoveryCodes": {"count": 8}})
    assert len(generate(kit, kit.user()).codes) == 8
    for bad in (7, 17, "many"):
        with pytest.raises(libmfa.InvalidArgumentError) as caught:
            kit.ctx.update_config({"recoveryCodes": {"count": bad}})
        assert "recoveryCodes.count" in caught.value.message
    assert kit.ctx.config()["recoveryCodes"] == {"count": 8}


def test_disabled_recovery_codes_are_not_allowed(make_kit):
    kit = make_kit(config=TOTP_ON)
    with pytest.raises(libmfa.OperationNotAllowedError):
        generate(kit, kit.user())


def test_generate_codes_argument_types(kit):
    session = kit.ctx.multi_factor(kit.user()).session()
    with pytest.raises(TypeError):
        RC.generate_codes(session.token)
    with pytest.raises(TypeError):
        RC.generate_codes(session, display_name=5)
    with pytest.raises(TypeError):
        RC()
    for bad in (None, 123456):
        with pytest.raises(TypeError):
            RC.assertion_for_sign_in(bad)
    with pytest.raises(TypeError):
        RC.assertion_for_sign_in("abcd-efgh-jk", enrollment_id=5)
    with pytest.raises(libmfa.InvalidArgumentError):
        RC.generate_codes(session, display_name="n" * 257)


def test_a_session_is_single_use_for_codes_too(kit):
    session = kit.ctx.multi_factor(kit.user()).session()
    RC.generate_codes(session)
    with pytest.raises(libmfa.InvalidSessionError):
        RC.generate_codes(session)


# --- signing in -------------------------------------------------------------------------


def test_sign_in_with_a_code_once(kit):
    user = kit.user()
    codes = generate(kit, user)
    result = sign_in_with(kit, user, codes.codes[0])
    assert result.factor_id == "recovery" and result.kind == libmfa.FACTOR_RECOVERY_CODES
    assert result.used_recovery_code
    assert result.claims == {
        "sign_in_second_factor": "recovery",
        "second_factor_identifier": codes.factor.uid,
        "recovery_codes_remaining": "9",
    }
    assert kit.kinds()[-1] == "SIGN_IN_SUCCESS"


def test_a_used_code_is_refused(kit):
    user = kit.user()
    codes = generate(kit, user)
    sign_in_with(kit, user, codes.codes[0])
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        resolver.resolve_sign_in(RC.assertion_for_sign_in(codes.codes[0]))
    result = resolver.resolve_sign_in(RC.assertion_for_sign_in(codes.codes[1]))  # the resolver is still good
    assert result.claims["recovery_codes_remaining"] == "8"


def test_codes_are_read_forgivingly(kit):
    user = kit.user()
    codes = generate(kit, user)
    typed = [codes.codes[0].upper(), codes.codes[1].replace("-", ""), " ".join(codes.codes[2].split("-"))]
    for number, code in enumerate(typed):
        assert sign_in_with(kit, user, code).claims["recovery_codes_remaining"] == str(9 - number)
    for wrong in ("", "abcd", "zzzz-zzzz-zz", codes.codes[3] + "x"):
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            sign_in_with(kit, user, wrong)


def test_the_sets_enrollment_id_may_be_given(kit):
    user = kit.user()
    codes = generate(kit, user)
    resolver = kit.resolver(user)
    (hint,) = resolver.hints
    assert resolver.resolve_sign_in(RC.assertion_for_sign_in(codes.codes[0], hint)).enrollment_id == hint.uid
    result = sign_in_with(kit, user, codes.codes[1], hint.uid)
    assert result.enrollment_id == hint.uid


def test_a_code_against_another_kinds_factor_is_invalid(kit):
    user = kit.user()
    info, totp = kit.enroll(user)
    codes = generate(kit, user)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        resolver.resolve_sign_in(RC.assertion_for_sign_in(codes.codes[0], info.uid))
    assert "recovery assertion cannot resolve a totp factor" in caught.value.message
    with pytest.raises(libmfa.InvalidArgumentError):
        resolver.resolve_sign_in(GEN.assertion_for_sign_in(codes.factor.uid, kit.code(totp, 30)))
    kit.clock.advance(30)
    assert resolver.resolve_sign_in(GEN.assertion_for_sign_in(info.uid, kit.code(totp))).factor_id == "totp"


def test_a_user_without_codes(kit):
    user = kit.user()
    kit.enroll(user)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        resolver.resolve_sign_in(RC.assertion_for_sign_in("abcd-efgh-jk"))


def test_recovery_codes_cannot_be_enrolled(kit):
    mf = kit.ctx.multi_factor(kit.user())
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        mf.enroll(RC.assertion_for_sign_in("abcd-efgh-jk"))
    assert "generate_codes" in caught.value.message


def test_every_code_once_then_none_left(make_kit):
    kit = make_kit(config={**RECOVERY_ON, "recoveryCodes": {"count": 8}})
    user = kit.user()
    codes = generate(kit, user)
    for used, code in enumerate(codes.codes, 1):
        kit.clock.advance(1)
        assert sign_in_with(kit, user, code).claims["recovery_codes_remaining"] == str(8 - used)
        if used == 7:
            assert kit.resolver(user).hints[0].hint == "1 code left"
    (hint,) = kit.resolver(user).hints
    assert (hint.hint, hint.remaining_codes) == ("0 codes left", 0)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        sign_in_with(kit, user, codes.codes[0])


# --- a new set, revocation, the factor limit -----------------------------------------------


def test_a_new_set_replaces_the_old_one(kit):
    user = kit.user()
    old = generate(kit, user)
    sign_in_with(kit, user, old.codes[0])
    kit.clock.advance(1)
    new = generate(kit, user)
    assert set(new.codes).isdisjoint(old.codes)
    factors = kit.ctx.multi_factor(user).enrolled_factors()
    assert [(f.factor_id, f.remaining_codes) for f in factors] == [("recovery", 10)]
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        sign_in_with(kit, user, old.codes[1])
    assert sign_in_with(kit, user, new.codes[0]).enrollment_id == new.factor.uid


def test_generating_codes_revokes_earlier_credentials(kit):
    user = kit.user()
    issued = kit.clock.now
    kit.ctx.check_token("alice", issued)
    early = kit.ctx.multi_factor(user).session()
    kit.clock.advance(1)
    generate(kit, user)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", issued)
    with pytest.raises(libmfa.UserTokenExpiredError):
        GEN.generate_secret(early)
    kit.clock.advance(1)
    kit.ctx.check_token("alice", kit.clock.now)


def test_codes_do_not_count_toward_the_factor_limit(kit):
    user = kit.user()
    generate(kit, user)
    for index in range(5):
        kit.enroll(user, "app %d" % index)  # five TOTP factors beside the set
    mf = kit.ctx.multi_factor(user)
    assert len(mf.enrolled_factors()) == 6
    session = mf.session()  # still minted: a kind that does not count is enabled
    with pytest.raises(libmfa.SecondFactorLimitExceededError):
        GEN.generate_secret(session)
    assert len(RC.generate_codes(mf.session()).codes) == 10  # a new set at the limit
    assert len(mf.enrolled_factors()) == 6


def test_unenrolling_the_set(kit):
    user = kit.user()
    codes = generate(kit, user)
    kit.ctx.multi_factor(user).unenroll(codes.factor)
    assert kit.ctx.multi_factor(user).enrolled_factors() == []
    assert kit.ctx.sign_in(user).factor_id is None


# --- hints ------------------------------------------------------------------------------


def test_hints_of_every_kind(make_phone_kit):
    kit = make_phone_kit(config={**PHONE_ON, "providers": {**PHONE_ON["providers"], "recovery": "ENABLED"}})
    user = kit.user()
    totp_info, _ = kit.enroll(user, "app")
    kit.clock.advance(1)  # the list is oldest first
    phone_info = kit.enroll_phone(user, display_name="phone")
    kit.clock.advance(1)
    codes = generate(kit, user, "paper")
    hints = kit.resolver(user).hints
    assert [(h.uid, h.factor_id, h.kind, h.hint, h.remaining_codes) for h in hints] == [
        (totp_info.uid, "totp", libmfa.FACTOR_TOTP, "authenticator app", None),
        (phone_info.uid, "phone", libmfa.FACTOR_PHONE, NUMBER_MASKED, None),
        (codes.factor.uid, "recovery", libmfa.FACTOR_RECOVERY_CODES, "10 codes left", 10),
    ]
    assert hints[1].phone_number == NUMBER_MASKED and NUMBER not in repr(hints)
    listed = kit.ctx.multi_factor(user).enrolled_factors()
    assert [f.hint for f in listed] == ["authenticator app", NUMBER_MASKED, "10 codes left"]
    assert listed[1].phone_number == NUMBER  # the owner's own listing has the full number
