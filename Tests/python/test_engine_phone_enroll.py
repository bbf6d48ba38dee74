"""SPEC flow 3 (enroll a phone) and every error of an SMS enrollment, with an injected clock."""

import re

import pytest

import libmfa
from conftest import APP_OK, NUMBER, PHONE_ON, SMS_TEXT, phone_config

GEN = libmfa.PhoneMultiFactorGenerator
ENROLLMENT_ID = re.compile(r"^[A-Za-z0-9_-]{28}$")


def flip(token, index=-5):
    """``token`` with one character changed."""
    char = token[index]
    return token[:index] + ("A" if char != "A" else "B") + token[index:][1:]


# --- flow 3, step by step --------------------------------------------------------------


def test_enroll_a_phone_step_by_step(phone_kit):
    kit = phone_kit
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    issued = kit.clock.now - 1  # a credential the host issued before

    # get a session
    session = mf.session()
    # start verification: app verification first, then an SMS through the host's sender
    verification_id = kit.provider.verify_phone_number(NUMBER, app_credential=APP_OK, session=session)
    assert isinstance(verification_id, str) and len(verification_id) > 40
    assert kit.verifier.calls == [(APP_OK, "enrollment")]
    assert len(kit.inbox.messages) == 1
    to, message = kit.inbox.messages[0]
    assert to == NUMBER
    code = SMS_TEXT.match(message).group(1)  # "<six digits> is your verification code."
    assert NUMBER not in verification_id and code not in verification_id
    # the user's code + the verification id make an assertion
    credential = libmfa.PhoneAuthProvider.credential(verification_id, code)
    assert isinstance(credential, libmfa.PhoneAuthCredential)
    assert credential.verification_id == verification_id and credential.verification_code == code
    assert code not in repr(credential) and verification_id not in repr(credential)
    assertion = GEN.assertion(credential)
    assert isinstance(assertion, libmfa.PhoneMultiFactorAssertion)
    assert assertion.factor_id == "phone" == GEN.FACTOR_ID == libmfa.PHONE_FACTOR_ID
    # finishing enrollment with an optional display name stores the factor
    kit.clock.advance(42)
    info = mf.enroll(assertion, "Work phone")
    assert ENROLLMENT_ID.match(info.uid)
    assert info.factor_id == "phone"
    assert info.display_name == "Work phone"
    assert info.enrollment_time == kit.clock.now
    assert info.phone_number == NUMBER  # the user's own listing shows the full number
    assert mf.enrolled_factors() == [info]
    # earlier tokens are revoked
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", issued)
    kit.ctx.check_token("alice", kit.clock.now + 1)
    # audit: the SMS, then the enrollment; no event holds the number or the code
    assert kit.kinds()[-2:] == ["SMS_SENT", "ENROLL"]
    sms_event, enroll_event = kit.events[-2:]
    assert (sms_event.factor_id, sms_event.uid, sms_event.detail) == ("phone", "alice", "OK")
    assert (enroll_event.factor_id, enroll_event.enrollment_id) == ("phone", info.uid)
    for event in kit.events:
        assert NUMBER not in repr(event) and NUMBER[1:] not in repr(event) and code not in repr(event)


def test_display_name_is_optional(phone_kit):
    info = phone_kit.enroll_phone(phone_kit.user())
    assert info.display_name is None and info.phone_number == NUMBER


def test_phone_only_configuration(make_phone_kit):
    kit = make_phone_kit(config={"state": "ENABLED", "providers": {"phone": "ENABLED"}})
    user = kit.user()
    kit.enroll_phone(user)
    with pytest.raises(libmfa.OperationNotAllowedError):  # TOTP stays disabled
        libmfa.TOTPMultiFactorGenerator.generate_secret(kit.ctx.multi_factor(user).session())


def test_session_token_string_is_accepted(phone_kit):
    kit = phone_kit
    user = kit.user()
    token = kit.ctx.multi_factor(user).session().token
    verification_id = kit.provider.verify_phone_number(NUMBER, APP_OK, session=token)
    kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))


def test_two_numbers_for_one_user(phone_kit):
    kit = phone_kit
    user = kit.user()
    first = kit.enroll_phone(user, NUMBER, "one")
    kit.clock.advance(1)  # the listing is oldest first
    second = kit.enroll_phone(user, "+442071838750", "two")
    assert [f.phone_number for f in kit.ctx.multi_factor(user).enrolled_factors()] == [NUMBER, "+442071838750"]
    assert first.uid != second.uid


def test_phones_and_apps_enrolled_in_one_second_list_in_enrollment_order(phone_kit):
    kit = phone_kit
    for trial in range(4):
        user = kit.user("mixed-%d" % trial)
        enrolled = [kit.enroll(user, "app")[0].uid,
                    kit.enroll_phone(user, "+4420718387%02d" % (10 + trial), "home").uid,
                    kit.enroll(user, "second app")[0].uid,
                    kit.enroll_phone(user, "+4420718387%02d" % (50 + trial), "work").uid]
        listed = kit.ctx.multi_factor(user).enrolled_factors()
        assert [f.uid for f in listed] == enrolled
        assert [f.display_name for f in listed] == ["app", "home", "second app", "work"]
        assert [h.uid for h in kit.resolver(user).hints] == enrolled


def test_a_session_is_used_up_by_the_enrollment(phone_kit):
    kit = phone_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    verification_id = kit.start_enrollment(user, session=session)
    kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))
    with pytest.raises(libmfa.InvalidSessionError):
        kit.start_enrollment(user, "+442071838750", session=session)
    kit.start_enrollment(user, "+442071838750")  # a new session works


def test_one_session_may_send_to_several_numbers_before_enrolling(phone_kit):
    kit = phone_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    first = kit.start_enrollment(user, NUMBER, session=session)
    first_code = kit.inbox.code(NUMBER)
    second = kit.start_enrollment(user, "+442071838750", session=session)
    second_code = kit.inbox.code("+442071838750")
    info = kit.ctx.multi_factor(user).enroll(kit.assertion(second, second_code))
    assert info.phone_number == "+442071838750"
    with pytest.raises(libmfa.InvalidSessionError):  # the session went with the first enrollment
        kit.ctx.multi_factor(user).enroll(kit.assertion(first, first_code))


def test_session_expiry_is_checked_when_sending(phone_kit):
    kit = phone_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    kit.clock.advance(601)  # sessionLifetime 600
    with pytest.raises(libmfa.InvalidSessionError):
        kit.start_enrollment(user, session=session)
    assert kit.inbox.messages == []


# --- INVALID_PHONE_NUMBER ----------------------------------------------------------------

BAD_NUMBERS = [
    "+1 510 555 1234",  # spaces
    "+1-510-555-1234",  # dashes
    "+1.510.555.1234",  # dots
    "+1(510)5551234",  # brackets
    "15105551234",  # no '+'
    "0015105551234",  # international prefix instead of '+'
    "+05105551234",  # leading 0
    "+123456",  # 6 digits
    "+1234567890123456",  # 16 digits
    "+1510555ABCD",  # letters
    "+1510555123x",
    "+",
    "",
    "++15105551234",
    " +15105551234",
    "+15105551234 ",
    "+15105551234\n",
    "+\uff11\uff15\uff11\uff10\uff15\uff15\uff15\uff11\uff12\uff13\uff14",  # full-width digits
    "+\u0661\u0665\u0661\u0660\u0665\u0665\u0665\u0661\u0662\u0663\u0664",  # Arabic-Indic digits
]


@pytest.mark.parametrize("number", BAD_NUMBERS)
def test_invalid_phone_numbers(phone_kit, number):
    kit = phone_kit
    with pytest.raises(libmfa.InvalidPhoneNumberError) as caught:
        kit.start_enrollment(kit.user(), number)
    assert caught.value.name == "INVALID_PHONE_NUMBER"
    assert kit.inbox.messages == [] and kit.verifier.calls == []


@pytest.mark.parametrize("number", ["+6831234", "+15105551234", "+123456789012345", "+9999999"])
def test_valid_phone_number_lengths(phone_kit, number):
    kit = phone_kit
    kit.start_enrollment(kit.user(), number)
    assert kit.inbox.messages[-1][0] == number


def test_invalid_number_is_reported_before_the_app_credential(phone_kit):
    kit = phone_kit
    with pytest.raises(libmfa.InvalidPhoneNumberError):
        kit.start_enrollment(kit.user(), "5551234", credential=None)


def test_phone_number_types(phone_kit):
    kit = phone_kit
    user = kit.user()
    with pytest.raises(TypeError):
        kit.start_enrollment(user, 15105551234)
    with pytest.raises(TypeError):
        kit.start_enrollment(user, None)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.start_enrollment(user, "+1510\x005551234")
    kit.start_enrollment(user, NUMBER.encode())  # UTF-8 bytes are fine


# --- app verification ------------------------------------------------------------------


@pytest.mark.parametrize("credential", [None, ""])
def test_missing_app_credential(phone_kit, credential):
    kit = phone_kit
    with pytest.raises(libmfa.MissingAppCredentialError) as caught:
        kit.start_enrollment(kit.user(), credential=credential)
    assert caught.value.name == "MISSING_APP_CREDENTIAL"
    assert kit.inbox.messages == [] and kit.verifier.calls == []


def test_invalid_app_credential(phone_kit):
    kit = phone_kit
    with pytest.raises(libmfa.InvalidAppCredentialError) as caught:
        kit.start_enrollment(kit.user(), credential="forged")
    assert caught.value.name == "INVALID_APP_CREDENTIAL"
    assert kit.verifier.calls == [("forged", "enrollment")]
    assert kit.inbox.messages == []
    kit.start_enrollment(kit.user())  # a rejected request cost nothing: no cooldown started


def test_overlong_app_credential_is_rejected_without_asking_the_verifier(phone_kit):
    kit = phone_kit
    kit.verifier.accept.add("x" * 16385)
    kit.verifier.accept.add("y" * 16384)
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_enrollment(kit.user(), credential="x" * 16385)
    assert kit.verifier.calls == []
    kit.start_enrollment(kit.user(), credential="y" * 16384)


def test_phone_disabled_is_not_allowed(make_phone_kit):
    kit = make_phone_kit(config={"state": "ENABLED", "providers": {"totp": "ENABLED", "phone": "DISABLED"}})
    user = kit.user()
    with pytest.raises(libmfa.OperationNotAllowedError) as caught:
        kit.start_enrollment(user)
    assert caught.value.name == "OPERATION_NOT_ALLOWED"
    assert kit.inbox.messages == [] and kit.verifier.calls == []


def test_phone_disabled_between_sending_and_enrolling(phone_kit):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
    with pytest.raises(libmfa.OperationNotAllowedError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))


def test_mfa_disabled_is_not_allowed(phone_kit):
    kit = phone_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    kit.ctx.set_config({"state": "DISABLED", "providers": {"phone": "ENABLED"}})
    with pytest.raises(libmfa.OperationNotAllowedError):
        kit.start_enrollment(user, session=session)


def test_no_verifier_while_the_configuration_requires_one(make_phone_kit):
    kit = make_phone_kit(app_verifier=None)
    assert kit.ctx.config()["phone"]["appVerification"] == "REQUIRED"  # the default
    for credential in (APP_OK, None):
        with pytest.raises(libmfa.OperationNotAllowedError):
            kit.start_enrollment(kit.user(), credential=credential)
    assert kit.inbox.messages == []


def test_app_verification_disabled_works_without_a_verifier(make_phone_kit):
    config = dict(PHONE_ON, phone={"appVerification": "DISABLED"})
    kit = make_phone_kit(config=config, app_verifier=None)
    user = kit.user()
    verification_id = kit.start_enrollment(user, credential=None)
    info = kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))
    assert info.phone_number == NUMBER


def test_app_verification_disabled_never_asks_the_verifier(make_phone_kit):
    config = dict(PHONE_ON, phone={"appVerification": "DISABLED"})
    kit = make_phone_kit(config=config)
    kit.start_enrollment(kit.user(), credential="anything")
    kit.start_enrollment(kit.user("bob"), "+442071838750", credential=None)
    assert kit.verifier.calls == []
    assert len(kit.inbox.messages) == 2


# --- SECOND_FACTOR_EXISTS ----------------------------------------------------------------


def test_same_number_twice_is_refused_when_sending(phone_kit):
    kit = phone_kit
    user = kit.user()
    kit.enroll_phone(user)
    kit.clock.advance(60)  # past the resend cooldown
    sent = len(kit.inbox.messages)
    with pytest.raises(libmfa.SecondFactorExistsError) as caught:
        kit.start_enrollment(user, NUMBER)
    assert caught.value.name == "SECOND_FACTOR_EXISTS"
    assert len(kit.inbox.messages) == sent  # nothing sent


def test_same_number_twice_is_refused_when_enrolling(phone_kit):
    kit = phone_kit
    user = kit.user()
    first = kit.start_enrollment(user)
    first_code = kit.inbox.code()
    kit.clock.advance(30)
    second = kit.start_enrollment(user)
    second_code = kit.inbox.code()
    kit.ctx.multi_factor(user).enroll(kit.assertion(first, first_code))
    # The first enrollment revoked the second's session (USER_TOKEN_EXPIRED); enrollments
    # judged at once end SECOND_FACTOR_EXISTS (test_engine_phone_race).
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(second, second_code))
    assert len(kit.ctx.multi_factor(user).enrolled_factors()) == 1


def test_another_user_may_enroll_the_same_number(phone_kit):
    kit = phone_kit
    kit.enroll_phone(kit.user("alice"))
    kit.clock.advance(30)
    assert kit.enroll_phone(kit.user("bob")).phone_number == NUMBER


def test_number_can_be_enrolled_again_after_unenrolling(phone_kit):
    kit = phone_kit
    user = kit.user()
    info = kit.enroll_phone(user)
    kit.ctx.multi_factor(user).unenroll(info)
    kit.clock.advance(30)
    user.auth_time = kit.clock.now
    assert kit.enroll_phone(user).phone_number == NUMBER


def test_at_most_five_factors_with_phones(phone_kit):
    kit = phone_kit
    user = kit.user()
    for index in range(5):
        kit.enroll_phone(user, "+1510555000%d" % index)
    with pytest.raises(libmfa.SecondFactorLimitExceededError):
        kit.ctx.multi_factor(user).session()


# --- INVALID_VERIFICATION_CODE and CODE_EXPIRED ------------------------------------------


def wrong(code):
    """A six-digit code that is not ``code``."""
    return "%06d" % ((int(code) + 1) % 1_000_000)


@pytest.mark.parametrize("bad", ["wrong", "", "12345", "1234567", "abcdef", " 12345", "１２３４５６"])
def test_wrong_or_malformed_code_then_the_right_one(phone_kit, bad):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    attempt = wrong(code) if bad == "wrong" else bad
    with pytest.raises(libmfa.InvalidVerificationCodeError) as caught:
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, attempt))
    assert caught.value.name == "INVALID_VERIFICATION_CODE"
    assert kit.ctx.multi_factor(user).enrolled_factors() == []
    info = kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, code))  # the user may retry
    assert info.phone_number == NUMBER


def test_code_as_bytes(phone_kit):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code().encode()))


def test_code_types(phone_kit):
    kit = phone_kit
    with pytest.raises(TypeError):
        libmfa.PhoneAuthProvider.credential("id", 123456)
    with pytest.raises(TypeError):
        libmfa.PhoneAuthProvider.credential(None, "123456")
    with pytest.raises(TypeError):
        GEN.assertion(("id", "123456"))
    with pytest.raises(TypeError):
        kit.ctx.multi_factor(kit.user()).enroll(libmfa.PhoneAuthProvider.credential("id", "123456"))


def test_code_expires_after_five_minutes(phone_kit):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    kit.clock.advance(301)
    with pytest.raises(libmfa.CodeExpiredError) as caught:
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, code))
    assert caught.value.name == "CODE_EXPIRED"


def test_code_is_valid_for_exactly_its_lifetime(phone_kit):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    kit.clock.advance(300)
    kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))


def test_code_lifetime_is_configurable(make_phone_kit):
    kit = make_phone_kit(config=phone_config(smsCodeLifetime=60))
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    kit.clock.advance(61)
    with pytest.raises(libmfa.CodeExpiredError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))


def test_a_new_code_after_expiry(phone_kit):
    kit = phone_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    old = kit.start_enrollment(user, session=session)
    old_code = kit.inbox.code()
    kit.clock.advance(301)
    new = kit.start_enrollment(user, session=session)
    new_code = kit.inbox.code()
    with pytest.raises(libmfa.CodeExpiredError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(old, old_code))
    kit.ctx.multi_factor(user).enroll(kit.assertion(new, new_code))


# --- INVALID_SESSION ---------------------------------------------------------------------


def test_used_code(phone_kit):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, code))
    with pytest.raises(libmfa.InvalidSessionError) as caught:
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, code), "again")
    assert caught.value.name == "INVALID_SESSION"


def test_dead_after_five_wrong_codes(phone_kit):
    kit = phone_kit
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    for _ in range(5):
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            mf.enroll(kit.assertion(verification_id, wrong(code)))
    for attempt in (code, wrong(code)):  # the right code no longer works; nor is anything counted
        with pytest.raises(libmfa.InvalidSessionError):
            mf.enroll(kit.assertion(verification_id, attempt))
    assert mf.enrolled_factors() == []


def test_four_wrong_codes_leave_one_try(phone_kit):
    kit = phone_kit
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    for _ in range(4):
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            mf.enroll(kit.assertion(verification_id, wrong(code)))
    mf.enroll(kit.assertion(verification_id, code))


def test_max_attempts_is_configurable(make_phone_kit):
    kit = make_phone_kit(config=phone_config(smsMaxAttempts=1))
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(kit.assertion(verification_id, wrong(code)))
    with pytest.raises(libmfa.InvalidSessionError):
        mf.enroll(kit.assertion(verification_id, code))


@pytest.mark.parametrize("index", [0, 10, 40, -20, -5, -1])
def test_tampered_verification_id(phone_kit, index):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(flip(verification_id, index), kit.inbox.code()))


@pytest.mark.parametrize("forged", ["", "x", "not-a-verification-id", "A" * 4000])
def test_garbage_verification_id(phone_kit, forged):
    kit = phone_kit
    with pytest.raises((libmfa.InvalidSessionError, libmfa.InvalidArgumentError)):
        kit.ctx.multi_factor(kit.user()).enroll(kit.assertion(forged, "123456"))


def test_truncated_verification_id(phone_kit):
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id[:-3], kit.inbox.code()))


def test_another_users_verification_id(phone_kit):
    kit = phone_kit
    alice, bob = kit.user("alice"), kit.user("bob")
    verification_id = kit.start_enrollment(alice)
    code = kit.inbox.code()
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.multi_factor(bob).enroll(kit.assertion(verification_id, code))
    assert kit.ctx.multi_factor(bob).enrolled_factors() == []
    kit.ctx.multi_factor(alice).enroll(kit.assertion(verification_id, code))  # still alice's


def test_another_tenants_verification_id(phone_kit):
    kit = phone_kit
    home, away = kit.user("alice"), kit.user("alice", tenant="t1")
    verification_id = kit.start_enrollment(home)
    with pytest.raises((libmfa.InvalidSessionError, libmfa.TenantMismatchError)):
        kit.ctx.multi_factor(away).enroll(kit.assertion(verification_id, kit.inbox.code()))
    assert kit.ctx.multi_factor(away).enrolled_factors() == []


def test_a_session_is_not_a_verification_id(phone_kit):
    kit = phone_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    kit.start_enrollment(user, session=session)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(session.token, kit.inbox.code()))


def test_a_totp_secret_is_not_a_verification_id(phone_kit):
    kit = phone_kit
    user = kit.user()
    secret = libmfa.TOTPMultiFactorGenerator.generate_secret(kit.ctx.multi_factor(user).session())
    code = kit.totp_of(secret).at(kit.clock.now)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(secret.session_info, code))


def test_a_verification_id_from_another_master_key(make_phone_kit):
    one = make_phone_kit()
    two = make_phone_kit(master_key=bytes(range(1, 33)))
    verification_id = one.start_enrollment(one.user())
    with pytest.raises(libmfa.InvalidSessionError):
        two.ctx.multi_factor(two.user()).enroll(two.assertion(verification_id, one.inbox.code()))
