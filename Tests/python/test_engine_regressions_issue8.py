"""Regression tests for the issue-8 items that show in the flows, through the Python binding.

Each test is named test_regression_<what>; the item of issue 8 it covers is in its
docstring. On the binding before issue 9 none of them could run: the calls did not
exist (revoke_tokens, update_config, check_token_ms) or the binding crashed on the
grown mfa_factor_info.
"""

import pytest

import libmfa

from conftest import NUMBER, TOTP_ON, phone_config

GEN = libmfa.TOTPMultiFactorGenerator
RC = libmfa.RecoveryCodesMultiFactorGenerator
RECOVERY_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "recovery": "ENABLED"}}


# --- item 7: the host revokes a user's credentials and tokens ----------------------------


def test_regression_revoke_tokens_ends_credentials_sessions_and_pending_credentials(kit):
    """Item 7: revoke_tokens(uid) ends the credentials issued before, the enrollment
    sessions and the pending credentials; factors stay; audited as TOKENS_REVOKED."""
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(10)
    resolver = kit.resolver(user)
    session = kit.ctx.multi_factor(user).session()
    issued = kit.clock.now
    kit.ctx.check_token("alice", issued)
    kit.ctx.revoke_tokens("alice")
    last = kit.events[-1]
    assert (last.kind, last.kind_name, last.uid, last.tenant) == (libmfa.AUDIT_TOKENS_REVOKED, "TOKENS_REVOKED",
                                                                  "alice", None)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", issued)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.resolve(resolver, info.uid, kit.code(totp, 30))
    with pytest.raises(libmfa.UserTokenExpiredError):
        GEN.generate_secret(session)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.resolver(resolver.session)
    assert kit.ctx.multi_factor(user).enrolled_factors() == [info]  # factors stay
    kit.clock.advance(30)
    fresh = kit.resolver(kit.user())
    assert kit.resolve(fresh, info.uid, kit.code(totp)).factor_id == "totp"
    kit.clock.advance(1)
    kit.ctx.check_token("alice", kit.clock.now)


def test_regression_revoke_tokens_of_one_tenant_only(kit):
    """Item 7: a revocation names one user of one tenant (the project is tenant None)."""
    issued = kit.clock.now
    kit.ctx.revoke_tokens("alice", tenant="t1")
    kit.ctx.check_token("alice", issued)  # the project's alice is someone else
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", issued, tenant="t1")


def test_regression_revoke_tokens_reaches_sms_verification_ids(phone_kit):
    """Item 7: an SMS verification id sent before a revocation no longer enrolls."""
    kit = phone_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code(NUMBER)
    kit.ctx.revoke_tokens("alice")
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, code))


@pytest.mark.parametrize(
    "uid,tenant,error",
    [("", None, libmfa.InvalidArgumentError), ("u", "", libmfa.InvalidArgumentError),
     ("u\0v", None, libmfa.InvalidArgumentError), ("x" * 129, None, libmfa.InvalidArgumentError),
     (None, None, TypeError), (5, None, TypeError), ("u", 5, TypeError)],
)
def test_regression_revoke_tokens_bad_input(kit, uid, tenant, error):
    """Item 7: bad arguments are named errors."""
    with pytest.raises(error):
        kit.ctx.revoke_tokens(uid, tenant=tenant)


# --- item 6: revocation reaches libmfa's own tokens; milliseconds ------------------------


def test_regression_session_minted_before_an_enroll_or_unenroll(make_kit):
    """Item 6: an enrollment session minted before an enroll or an unenroll no longer works."""
    kit = make_kit(config=RECOVERY_ON)
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    early = mf.session()
    info, _ = kit.enroll(user)
    with pytest.raises(libmfa.UserTokenExpiredError):
        GEN.generate_secret(early)
    before_unenroll = mf.session()
    mf.unenroll(info)
    with pytest.raises(libmfa.UserTokenExpiredError):
        RC.generate_codes(before_unenroll)
    RC.generate_codes(mf.session())


def test_regression_pending_credential_minted_before_an_unenroll(make_kit):
    """Item 6: a pending credential minted before an unenroll cannot finish with another factor."""
    kit = make_kit(config=RECOVERY_ON)
    user = kit.user()
    info, _ = kit.enroll(user)
    kit.clock.advance(1)
    codes = RC.generate_codes(kit.ctx.multi_factor(user).session())
    resolver = kit.resolver(user)
    kit.ctx.multi_factor(user).unenroll(info)
    with pytest.raises(libmfa.UserTokenExpiredError):
        resolver.resolve_sign_in(RC.assertion_for_sign_in(codes.codes[0]))


def test_regression_same_second_credential_and_milliseconds(kit):
    """Item 6: a credential issued in the revoking second is revoked (it was accepted);
    check_token_ms orders credentials and revocations to the millisecond."""
    user = kit.user()
    info, _ = kit.enroll(user)
    second = kit.clock.now
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", second)
    kit.ctx.check_token("alice", second + 1)
    kit.ctx.multi_factor(user).unenroll(info)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("alice", second)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token_ms("alice", second * 1000)
    kit.ctx.check_token_ms("alice", second * 1000 + 1)
    kit.ctx.check_token("never-revoked", 0)
    kit.ctx.check_token_ms("never-revoked", 0)


def test_regression_check_token_ms_arguments(kit):
    """Item 6: check_token_ms takes int milliseconds or a datetime; others are errors."""
    import datetime

    kit.ctx.revoke_tokens("alice")
    revoked = kit.clock.now
    later = datetime.datetime.fromtimestamp(revoked + 1, tz=datetime.timezone.utc)
    kit.ctx.check_token_ms("alice", later)
    kit.ctx.check_token_ms("alice", revoked * 1000 + 1.9)  # a float is milliseconds too, rounded down
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token_ms("alice", revoked * 1000 + 0.9)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token_ms("alice", datetime.datetime.fromtimestamp(revoked - 1, tz=datetime.timezone.utc))
    for bad in ("1", None, 1.5j):
        with pytest.raises(TypeError):
            kit.ctx.check_token_ms("alice", bad)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.check_token_ms("alice", 2**63)


# --- item 5: a used pending credential cannot rebuild a resolver -------------------------


def test_regression_resolver_from_used_credential(kit):
    """Item 5: Context.resolver() on a used pending credential is INVALID_SESSION (it
    rebuilt a resolver whose every use then failed)."""
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    kit.ctx.resolver(resolver.session)  # unused: rebuilds
    kit.resolve(resolver, info.uid, kit.code(totp))
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.resolver(resolver.session)


def test_regression_resolver_from_before_a_revocation(kit):
    """Item 5/7: Context.resolver() on a pending credential from before a revocation is
    USER_TOKEN_EXPIRED."""
    user = kit.user()
    kit.enroll(user)
    resolver = kit.resolver(user)
    kit.ctx.revoke_tokens("alice")
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.resolver(resolver.session)


# --- item 4: single use survives configuration changes and purges ------------------------


def test_regression_used_session_stays_used_after_shorter_lifetimes(make_kit):
    """Item 4: a used session stays used after the lifetimes are shortened and the store
    purged (the record of its use was purged with the new, shorter lifetime)."""
    kit = make_kit(config=RECOVERY_ON)
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    session = mf.session()
    kit.ctx.update_config({"limits": {"sessionLifetime": 10, "enrollmentDeadline": 10}})
    secret = GEN.generate_secret(session)
    mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    kit.clock.advance(60)
    kit.ctx.purge_expired()
    with pytest.raises(libmfa.InvalidSessionError):
        GEN.generate_secret(session)
    with pytest.raises(libmfa.InvalidSessionError):
        RC.generate_codes(session)


# --- item 17: configuration as the guides write it; updates ------------------------------


def test_regression_update_config_merges(kit):
    """Item 17: update_config changes only what it names (set_config replaces the whole
    document); test numbers are replaced whole; a rejected update changes nothing."""
    kit.ctx.update_config({"totp": {"adjacentIntervals": 2}})
    config = kit.ctx.config()
    assert (config["state"], config["providers"]["totp"], config["totp"]["adjacentIntervals"]) == ("ENABLED",
                                                                                                  "ENABLED", 2)
    kit.ctx.update_config('{"multiFactorConfig": {"factorIds": ["phone"]}}')
    config = kit.ctx.config()
    assert (config["providers"]["phone"], config["providers"]["totp"], config["totp"]["adjacentIntervals"]) == (
        "ENABLED", "ENABLED", 2)
    kit.ctx.update_config({"testPhoneNumbers": {"+15555550100": "123456"}})
    kit.ctx.update_config({"testPhoneNumbers": {"+15555550101": "654321"}})
    assert kit.ctx.config()["testPhoneNumbers"] == {"+15555550101": "654321"}
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.update_config({"totp": {"adjacentIntervals": 12}})
    assert kit.ctx.config()["totp"]["adjacentIntervals"] == 2
    kit.ctx.update_config({"limits": {"maxFactors": 3}}, tenant="t")
    assert kit.ctx.config("t")["limits"]["maxFactors"] == 3
    assert kit.ctx.config("t")["totp"]["adjacentIntervals"] == 2  # a tenant still inherits
    kit.ctx.set_config({"totp": {"adjacentIntervals": 1}})
    assert kit.ctx.config()["state"] == "DISABLED"  # set replaces: no state is DISABLED
    assert "CONFIG_CHANGE" in kit.kinds()


def test_regression_update_config_argument_types(kit):
    """Item 17: update_config takes what set_config takes."""
    for bad in (None, 5, ["state"]):
        with pytest.raises(TypeError):
            kit.ctx.update_config(bad)
    with pytest.raises(TypeError):
        kit.ctx.update_config({}, tenant=5)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.update_config("{not json")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.update_config({"colour": "blue"})


def test_regression_guides_config_shapes(make_kit):
    """Item 17: the Admin SDK's multiFactorConfig and the REST API's mfa / mfaConfig are
    accepted, integers also as strings; malformed ones are INVALID_ARGUMENT."""
    kit = make_kit(config=None)
    kit.ctx.set_config({"multiFactorConfig": {"providerConfigs": [
        {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 3}}]}})
    config = kit.ctx.config()
    assert (config["state"], config["providers"]["totp"], config["totp"]["adjacentIntervals"]) == ("ENABLED",
                                                                                                  "ENABLED", 3)
    kit.enroll(kit.user())
    kit.ctx.set_config({"multiFactorConfig": {"state": "ENABLED", "factorIds": ["phone"], "providerConfigs": [
        {"totpProviderConfig": {"adjacentIntervals": 7}}]}, "testPhoneNumbers": {"+15555550100": "123456"}},
        tenant="tenant-a")
    tenant = kit.ctx.config("tenant-a")
    assert (tenant["providers"]["phone"], tenant["providers"]["totp"], tenant["totp"]["adjacentIntervals"]) == (
        "ENABLED", "ENABLED", 7)
    assert tenant["testPhoneNumbers"] == {"+15555550100": "123456"}
    kit.ctx.set_config({"mfa": {"state": "MANDATORY", "enabledProviders": ["PHONE_SMS"], "providerConfigs": [
        {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": "5"}}]}})
    config = kit.ctx.config()
    assert (config["state"], config["providers"]["phone"], config["providers"]["totp"]) == ("MANDATORY", "ENABLED",
                                                                                            "ENABLED")
    assert config["totp"]["adjacentIntervals"] == 5
    kit.ctx.set_config('{"mfaConfig":{"providerConfigs":[{"totpProviderConfig":{"adjacentIntervals":"2"}}]}}',
                       tenant="t")
    assert kit.ctx.config("t")["totp"]["adjacentIntervals"] == 2
    for bad in ({"mfa": {"state": "ON"}},
                {"mfa": {"providerConfigs": [{"totpProviderConfig": {"adjacentIntervals": "11"}}]}},
                {"mfa": {"enabledProviders": "PHONE_SMS"}}, {"mfa": {"colour": 1}},
                {"multiFactorConfig": {"providerConfigs": [{"totpProviderConfig": {"window": 1}}]}}):
        with pytest.raises(libmfa.InvalidArgumentError):
            kit.ctx.set_config(bad)


# --- items 11 to 16: sign-in ---------------------------------------------------------------


def test_regression_assertion_of_another_kind_is_invalid(phone_kit):
    """Issues 8 and 9 (one shape for every factor): a TOTP assertion naming a phone
    factor is INVALID_ARGUMENT, not a wrong code."""
    kit = phone_kit
    user = kit.user()
    phone = kit.enroll_phone(user)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        resolver.resolve_sign_in(GEN.assertion_for_sign_in(phone.uid, "123456"))
    assert "a totp assertion cannot resolve a phone factor" in caught.value.message


def test_regression_other_accounts_never_block_a_sign_in_sms(make_phone_kit):
    """Item 11: enrollment requests of other accounts to a number (its per-number caps
    used up) never block the SMS that signs its owner in."""
    kit = make_phone_kit(config=phone_config(smsResendCooldown=0, smsPerNumberHour=2, smsPerNumberDay=2))
    owner = kit.user()
    info = kit.enroll_phone(owner)
    kit.start_enrollment(kit.user("mallory"))  # the number's second enrollment send: the cap
    with pytest.raises(libmfa.QuotaExceededError):
        kit.start_enrollment(kit.user("eve"))
    resolver = kit.resolver(owner)
    verification_id = kit.start_sign_in(resolver, info)
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code(NUMBER)).factor_id == "phone"


def test_regression_mandatory_with_a_first_factor_without_mfa(make_kit):
    """Item 12: MANDATORY and a first factor that cannot carry MFA is
    UNSUPPORTED_FIRST_FACTOR at sign-in (it was ENROLLMENT_REQUIRED, an enrollment the
    user could never start)."""
    kit = make_kit(config={"state": "MANDATORY", "providers": {"totp": "ENABLED"}})
    for provider in ("phone", "anonymous", "custom", "gc.apple.com"):
        with pytest.raises(libmfa.UnsupportedFirstFactorError):
            kit.ctx.sign_in(kit.user(provider=provider))
    with pytest.raises(libmfa.EnrollmentRequiredError):
        kit.ctx.sign_in(kit.user())


def test_regression_provider_ids_without_regard_to_case(kit):
    """Item 13: provider ids are compared without regard to case and surrounding space."""
    kit.ctx.multi_factor(kit.user(provider=" Password ")).session()
    kit.ctx.multi_factor(kit.user(provider="GOOGLE.COM")).session()
    for provider in ("Phone", " ANONYMOUS", "Custom ", "GC.Apple.Com"):
        with pytest.raises(libmfa.UnsupportedFirstFactorError):
            kit.ctx.multi_factor(kit.user(provider=provider)).session()


def test_regression_expired_sms_sign_in_code_is_code_expired(phone_kit):
    """Item 14: an SMS sign-in code used after it expired is CODE_EXPIRED, even when the
    pending credential expired with it (it was INVALID_SESSION)."""
    kit = phone_kit
    user = kit.user()
    info = kit.enroll_phone(user)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    code = kit.inbox.code(NUMBER)
    kit.clock.advance(301)  # smsCodeLifetime 300, pendingCredentialLifetime 300
    with pytest.raises(libmfa.CodeExpiredError):
        kit.resolve_phone(resolver, verification_id, code)


def test_regression_config_errors_never_repeat_a_number_or_a_code(kit):
    """Item 15: validation errors name test numbers by their position, never by the
    number or the code."""
    numbers = {"+15555550100": "123456", "+15555550101": "12345x"}
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        kit.ctx.set_config({**TOTP_ON, "testPhoneNumbers": numbers})
    message = caught.value.message
    assert "entry 2" in message
    for text in ("5555550101", "12345x", "5555550100", "123456"):
        assert text not in message, message


def test_regression_replayed_totp_code_counts_as_a_failure(kit):
    """Item 16: a replayed TOTP code is refused and counted as a failed attempt (backoff),
    like a wrong code."""
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    code = kit.code(totp)
    kit.resolve(kit.resolver(user), info.uid, code)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(resolver, info.uid, code)
    failure = [e for e in kit.events if e.kind_name == "SIGN_IN_FAILURE"]
    assert [(e.factor_id, e.enrollment_id, e.detail) for e in failure] == [
        ("totp", info.uid, "INVALID_VERIFICATION_CODE")]
