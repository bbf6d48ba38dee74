"""SPEC flow 5 (sign in) with phone factors, masked hints, phone + TOTP, and every sign-in error."""

import pytest

import libmfa
from conftest import APP_OK, NUMBER, NUMBER_MASKED, PHONE_ON, phone_config

GEN = libmfa.PhoneMultiFactorGenerator


def wrong(code):
    """A six-digit code that is not ``code``."""
    return "%06d" % ((int(code) + 1) % 1_000_000)


def flip(token, index=-5):
    """``token`` with one character changed."""
    char = token[index]
    return token[:index] + ("A" if char != "A" else "B") + token[index:][1:]


@pytest.fixture
def enrolled(phone_kit):
    """alice with NUMBER enrolled; the clock moved past the resend cooldown. Returns (user, info)."""
    user = phone_kit.user()
    info = phone_kit.enroll_phone(user, display_name="Mobile")
    phone_kit.clock.advance(60)
    user.auth_time = phone_kit.clock.now
    return user, info


# --- flow 5, step by step --------------------------------------------------------------


def test_sign_in_step_by_step(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    kit.verifier.calls.clear()
    # the host reports a successful first factor: "second factor required" with a resolver
    with pytest.raises(libmfa.SecondFactorRequired) as caught:
        kit.ctx.sign_in(user)
    assert caught.value.name == "SECOND_FACTOR_REQUIRED"
    resolver = caught.value.resolver
    assert resolver.uid == "alice" and resolver.tenant is None
    assert isinstance(resolver.session, str) and resolver.session
    # the hints: the phone factor, number masked
    [hint] = resolver.hints
    assert (hint.uid, hint.factor_id, hint.display_name, hint.enrollment_time) == (
        info.uid, "phone", "Mobile", info.enrollment_time)
    assert hint.phone_number == NUMBER_MASKED
    # the user picks the hint: an SMS goes to the factor's full number
    verification_id = kit.provider.verify_phone_number_for_sign_in(hint, resolver, app_credential=APP_OK)
    assert kit.verifier.calls == [(APP_OK, "sign_in")]
    assert kit.inbox.messages[-1][0] == NUMBER
    assert NUMBER not in verification_id
    code = kit.inbox.code()
    # code + verification id resolve the sign-in
    kit.clock.advance(20)
    result = resolver.resolve_sign_in(GEN.assertion(libmfa.PhoneAuthProvider.credential(verification_id, code)))
    assert isinstance(result, libmfa.SignInResult)
    assert (result.uid, result.tenant, result.factor_id, result.enrollment_id, result.time) == (
        "alice", None, "phone", info.uid, kit.clock.now)
    assert result.claims == {"sign_in_second_factor": "phone", "second_factor_identifier": info.uid}
    assert kit.ctx.passed_second_factor("alice", 0) is True
    assert kit.kinds()[-2:] == ["SMS_SENT", "SIGN_IN_SUCCESS"]
    # the pending credential and the code are used up
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(resolver, verification_id, code)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.clock.advance(60)
        kit.start_sign_in(resolver, hint)


def test_hint_by_enrollment_id(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info.uid)
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).enrollment_id == info.uid


def test_resolver_rebuilt_from_the_pending_credential(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    pending = kit.resolver(user).session  # handed to the client, sent back later
    resolver = kit.ctx.resolver(pending)
    assert [hint.phone_number for hint in resolver.hints] == [NUMBER_MASKED]
    verification_id = kit.start_sign_in(resolver, resolver.hints[0])
    again = kit.ctx.resolver(pending)  # another request of the same client
    assert kit.resolve_phone(again, verification_id, kit.inbox.code()).factor_id == "phone"


def test_wrong_code_then_the_right_one(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    code = kit.inbox.code()
    for bad in (wrong(code), "", "abc", "1234567"):
        with pytest.raises(libmfa.InvalidVerificationCodeError) as caught:
            kit.resolve_phone(resolver, verification_id, bad)
        assert caught.value.name == "INVALID_VERIFICATION_CODE"
    assert kit.kinds().count("SIGN_IN_FAILURE") == 4
    assert kit.resolve_phone(resolver, verification_id, code).factor_id == "phone"


def test_sign_in_in_a_tenant(make_phone_kit):
    kit = make_phone_kit()
    kit.ctx.set_config({"state": "ENABLED", "providers": {"phone": "ENABLED"}}, tenant="t1")
    user = kit.user(tenant="t1")
    info = kit.enroll_phone(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    assert resolver.tenant == "t1"
    verification_id = kit.start_sign_in(resolver, info)
    result = kit.resolve_phone(resolver, verification_id, kit.inbox.code())
    assert (result.uid, result.tenant, result.enrollment_id) == ("alice", "t1", info.uid)
    with pytest.raises(libmfa.TenantMismatchError):  # the project's resolver cannot be rebuilt for t1's user
        kit.ctx.resolver(kit.resolver(user).session)


def test_mandatory_without_factors_requires_enrollment(make_phone_kit):
    kit = make_phone_kit(config={"state": "MANDATORY", "providers": {"phone": "ENABLED"}})
    user = kit.user()
    with pytest.raises(libmfa.EnrollmentRequiredError):
        kit.ctx.sign_in(user)
    info = kit.enroll_phone(user)  # enrolling is allowed
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).factor_id == "phone"


def test_user_without_factors_signs_in_directly(phone_kit):
    result = phone_kit.ctx.sign_in(phone_kit.user())
    assert result.factor_id is None and result.claims == {}


# --- masking -----------------------------------------------------------------------------


@pytest.mark.parametrize("number, masked", [
    ("+15105551234", "+1******1234"),
    ("+442071838750", "+4*******8750"),
    ("+6831234", "+6**1234"),
    ("+123456789012345", "+1**********2345"),
    ("+4915112345678", "+4********5678"),
])
def test_hints_are_masked(phone_kit, number, masked):
    kit = phone_kit
    user = kit.user()
    info = kit.enroll_phone(user, number)
    assert info.phone_number == number
    assert kit.ctx.multi_factor(user).enrolled_factors()[0].phone_number == number  # full for the user
    for resolver in (kit.resolver(user), kit.ctx.resolver(kit.resolver(user).session)):
        [hint] = resolver.hints
        assert hint.phone_number == masked
        assert len(hint.phone_number) == len(number)
        # The hidden digits appear nowhere in what the hints show (the random
        # enrollment id left out: it may hold any two digits by chance).
        assert number[2:-4] not in repr(resolver.hints).replace(hint.uid, "")


def test_hints_of_phone_and_totp(phone_kit):
    kit = phone_kit
    user = kit.user()
    phone = kit.enroll_phone(user, display_name="phone")
    kit.clock.advance(1)
    totp_info, totp = kit.enroll(user, "app")
    hints = kit.resolver(user).hints
    assert [(h.uid, h.factor_id, h.display_name, h.phone_number) for h in hints] == [
        (phone.uid, "phone", "phone", NUMBER_MASKED),
        (totp_info.uid, "totp", "app", None),
    ]


# --- phone + TOTP: sign in with either -------------------------------------------------


def test_phone_and_totp_sign_in_with_either(phone_kit):
    kit = phone_kit
    user = kit.user()
    phone = kit.enroll_phone(user)
    totp_info, totp = kit.enroll(user)
    # with the phone
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    assert {h.factor_id for h in resolver.hints} == {"phone", "totp"}
    hint = next(h for h in resolver.hints if h.factor_id == "phone")
    verification_id = kit.start_sign_in(resolver, hint)
    result = kit.resolve_phone(resolver, verification_id, kit.inbox.code())
    assert result.claims == {"sign_in_second_factor": "phone", "second_factor_identifier": phone.uid}
    # with TOTP
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    hint = next(h for h in resolver.hints if h.factor_id == "totp")
    result = kit.resolve(resolver, hint.uid, kit.code(totp))
    assert result.claims == {"sign_in_second_factor": "totp", "second_factor_identifier": totp_info.uid}


def test_sms_sent_but_user_finishes_with_totp(phone_kit):
    kit = phone_kit
    user = kit.user()
    phone = kit.enroll_phone(user)
    totp_info, totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, phone)
    code = kit.inbox.code()
    assert kit.resolve(resolver, totp_info.uid, kit.code(totp)).factor_id == "totp"
    with pytest.raises(libmfa.InvalidSessionError):  # the pending credential is used up
        kit.resolve_phone(resolver, verification_id, code)


def test_totp_hint_cannot_get_an_sms(phone_kit):
    kit = phone_kit
    user = kit.user()
    totp_info, _ = kit.enroll(user)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.start_sign_in(resolver, totp_info)
    assert kit.inbox.messages == []


def test_totp_assertion_for_a_phone_factor(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.resolve(resolver, info.uid, "123456")


# --- errors when sending ---------------------------------------------------------------


@pytest.mark.parametrize("credential", [None, ""])
def test_missing_app_credential(phone_kit, enrolled, credential):
    kit = phone_kit
    user, info = enrolled
    sent = len(kit.inbox.messages)
    with pytest.raises(libmfa.MissingAppCredentialError):
        kit.start_sign_in(kit.resolver(user), info, credential=credential)
    assert len(kit.inbox.messages) == sent


def test_invalid_app_credential(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    kit.verifier.calls.clear()
    sent = len(kit.inbox.messages)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_sign_in(resolver, info, credential="bot")
    assert kit.verifier.calls == [("bot", "sign_in")]
    assert len(kit.inbox.messages) == sent
    kit.start_sign_in(resolver, info)  # the resolver is still good


def test_verifier_sees_the_action(make_phone_kit):
    kit = make_phone_kit(app_verifier=lambda credential, action: action == "sign_in")
    user = kit.user()
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_enrollment(user)


def test_no_verifier_while_required_at_sign_in(make_phone_kit, tmp_path):
    store = str(tmp_path / "mfa.sqlite3")
    enroller = make_phone_kit(store)
    user = enroller.user()
    info = enroller.enroll_phone(user)
    enroller.clock.advance(60)
    other = make_phone_kit(store, app_verifier=None, config=None)  # same store, no verifier
    resolver = other.resolver(user)
    with pytest.raises(libmfa.OperationNotAllowedError):
        other.start_sign_in(resolver, info)
    assert other.inbox.messages == []


def test_verification_disabled_at_sign_in(make_phone_kit):
    config = dict(PHONE_ON, phone={"appVerification": "DISABLED"})
    kit = make_phone_kit(config=config, app_verifier=None)
    user = kit.user()
    info = kit.enroll_phone(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info, credential=None)
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).factor_id == "phone"


def test_unknown_enrollment_id(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        kit.start_sign_in(kit.resolver(user), "A" * 28)


def test_another_users_factor(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    bob = kit.user("bob")
    kit.enroll(bob)  # bob has a factor (TOTP), so he gets a resolver
    with pytest.raises(libmfa.InvalidSessionError):
        kit.start_sign_in(kit.resolver(bob), info)


def test_phone_sign_in_respects_the_backoff(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    kit.ctx.set_config(phone_config(smsResendCooldown=0, backoffBase=100, pendingCredentialLifetime=3600,
                                    smsPerNumberHour=100, smsPerUserHour=100, smsPerFactorHour=100))
    resolver = kit.resolver(user)
    for _ in range(6):  # 5 free failures, the 6th starts a 100 s backoff
        verification_id = kit.start_sign_in(resolver, info)
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve_phone(resolver, verification_id, wrong(kit.inbox.code()))
    assert "BACKOFF" in kit.kinds()
    kit.clock.advance(99)
    sent = len(kit.inbox.messages)
    with pytest.raises(libmfa.TooManyAttemptsError):  # no SMS while the factor is locked
        kit.start_sign_in(resolver, info)
    assert len(kit.inbox.messages) == sent
    kit.clock.advance(1)
    verification_id = kit.start_sign_in(resolver, info)
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).factor_id == "phone"


def test_expired_pending_credential(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    kit.clock.advance(301)  # pendingCredentialLifetime 300
    with pytest.raises(libmfa.InvalidSessionError):
        kit.start_sign_in(resolver, info)


def test_tampered_pending_credential(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    resolver.session = flip(resolver.session)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.start_sign_in(resolver, info)


# --- errors when resolving ---------------------------------------------------------------


def test_code_expired(make_phone_kit):
    kit = make_phone_kit(config=phone_config(pendingCredentialLifetime=3600))
    user = kit.user()
    info = kit.enroll_phone(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    code = kit.inbox.code()
    kit.clock.advance(301)
    with pytest.raises(libmfa.CodeExpiredError) as caught:
        kit.resolve_phone(resolver, verification_id, code)
    assert caught.value.name == "CODE_EXPIRED"
    verification_id = kit.start_sign_in(resolver, info)  # a new code for the same resolver
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).factor_id == "phone"


def test_code_valid_for_its_whole_lifetime(make_phone_kit):
    kit = make_phone_kit(config=phone_config(pendingCredentialLifetime=3600))
    user = kit.user()
    info = kit.enroll_phone(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    kit.clock.advance(300)
    kit.resolve_phone(resolver, verification_id, kit.inbox.code())


def test_pending_credential_expires_before_the_code(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    kit.clock.advance(200)
    verification_id = kit.start_sign_in(resolver, info)
    kit.clock.advance(101)  # the code has 199 s left, the pending credential none
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(resolver, verification_id, kit.inbox.code())


def test_used_code_with_a_new_resolver(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    code = kit.inbox.code()
    kit.resolve_phone(resolver, verification_id, code)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(kit.resolver(user), verification_id, code)


def test_dead_after_five_wrong_codes(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    code = kit.inbox.code()
    for _ in range(5):
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve_phone(resolver, verification_id, wrong(code))
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(resolver, verification_id, code)
    kit.clock.advance(30)
    verification_id = kit.start_sign_in(resolver, info)  # a new code works
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).factor_id == "phone"


@pytest.mark.parametrize("index", [0, 10, 40, -20, -5, -1])
def test_tampered_verification_id(phone_kit, enrolled, index):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(resolver, flip(verification_id, index), kit.inbox.code())
    kit.resolve_phone(resolver, verification_id, kit.inbox.code())


def test_verification_id_of_another_sign_in(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    first, second = kit.resolver(user), kit.resolver(user)
    verification_id = kit.start_sign_in(first, info)
    code = kit.inbox.code()
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(second, verification_id, code)
    assert kit.resolve_phone(first, verification_id, code).factor_id == "phone"


def test_verification_id_of_another_user(phone_kit, enrolled):
    kit = phone_kit
    alice, alice_info = enrolled
    bob = kit.user("bob")
    bob_info = kit.enroll_phone(bob, "+442071838750")
    kit.clock.advance(30)
    alice_resolver, bob_resolver = kit.resolver(alice), kit.resolver(bob)
    alice_id = kit.start_sign_in(alice_resolver, alice_info)
    alice_code = kit.inbox.code(NUMBER)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(bob_resolver, alice_id, alice_code)
    bob_id = kit.start_sign_in(bob_resolver, bob_info)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(alice_resolver, bob_id, kit.inbox.code("+442071838750"))
    assert kit.resolve_phone(alice_resolver, alice_id, alice_code).uid == "alice"


def test_verification_id_of_another_tenant(make_phone_kit):
    kit = make_phone_kit()
    home, away = kit.user("alice"), kit.user("alice", tenant="t1")
    home_info = kit.enroll_phone(home)
    kit.enroll_phone(away, "+442071838750")
    kit.clock.advance(30)
    home_resolver, away_resolver = kit.resolver(home), kit.resolver(away)
    verification_id = kit.start_sign_in(home_resolver, home_info)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(away_resolver, verification_id, kit.inbox.code(NUMBER))


def test_enrollment_verification_id_cannot_sign_in(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    verification_id = kit.start_enrollment(user, "+442071838750")
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(resolver, verification_id, kit.inbox.code())


def test_sign_in_verification_id_cannot_enroll(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    kit.ctx.multi_factor(user).unenroll(info)  # the number could be enrolled again
    kit.enroll(user)  # keep a factor so that sign-in gives a resolver
    kit.clock.advance(30)
    user.auth_time = kit.clock.now
    # re-enroll the phone so that a sign-in SMS can be sent, then try to use it to enroll
    phone = kit.enroll_phone(user, "+442071838750")
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, phone)
    kit.clock.advance(1)
    user.auth_time = kit.clock.now
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))


def test_pending_credential_is_not_a_verification_id(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    kit.start_sign_in(resolver, info)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(resolver, resolver.session, kit.inbox.code())


def test_resolver_types(phone_kit, enrolled):
    kit = phone_kit
    user, info = enrolled
    resolver = kit.resolver(user)
    with pytest.raises(TypeError):
        kit.provider.verify_phone_number_for_sign_in(info, resolver.session)
    with pytest.raises(TypeError):
        kit.provider.verify_phone_number_for_sign_in(None, resolver)
    with pytest.raises(TypeError):
        resolver.resolve_sign_in(libmfa.PhoneAuthProvider.credential("id", "123456"))
    with pytest.raises(TypeError):
        kit.provider.verify_phone_number(NUMBER, APP_OK)  # no session
    with pytest.raises(TypeError):
        kit.provider.verify_phone_number(NUMBER, APP_OK, session=resolver)
    with pytest.raises(TypeError):
        kit.provider.verify_phone_number(NUMBER, 123, session=kit.ctx.multi_factor(user).session())
    with pytest.raises(TypeError):
        libmfa.PhoneAuthProvider("not a context")
    with pytest.raises(TypeError):
        libmfa.PhoneMultiFactorGenerator()
