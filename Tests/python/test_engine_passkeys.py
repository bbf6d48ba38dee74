"""Passkeys through the Python binding: registering one (resident key and
user verification required, credProps kept), signing in with it alone
(``Context.passkey_sign_in_options`` / ``sign_in_with_passkey``), the result
and its claims, the listing, and the refusals that must not tell whether an
account or a credential exists."""

import json

import pytest

from webauthn_authenticator import Authenticator, b64

import libmfa

Generator = libmfa.WebAuthnMultiFactorGenerator
CONFIG = {"state": "ENABLED", "providers": {"webauthn": "ENABLED", "totp": "ENABLED"},
          "webauthn": {"rpId": "example.com", "passkeySignIn": True}}
NOT_ACCEPTED = "the passkey was not accepted: sign in another way, or use another passkey"


@pytest.fixture
def pk(make_kit):
    return make_kit(config=CONFIG)


def register(kit, authenticator, uid="alice", passkey=True, tenant=None, **options):
    authenticator.resident = passkey  # a passkey provider, or a security key
    user = kit.user(uid, tenant=tenant)
    mf = kit.ctx.multi_factor(user)
    make = Generator.passkey_registration_options if passkey else Generator.registration_options
    info = mf.enroll(Generator.assertion_for_enrollment(authenticator.register(make(mf.session(), user.email,
                                                                                     **options))), "passkey")
    kit.clock.advance(1)  # the enrollment revoked the user's earlier tokens in this second
    return info


def sign_in(kit, authenticator, tenant=None):
    options = kit.ctx.passkey_sign_in_options(tenant)
    return kit.ctx.sign_in_with_passkey(authenticator.assert_(options), tenant)


def test_passkey_registration_options_ask_for_a_discoverable_verified_credential(pk):
    mf = pk.ctx.multi_factor(pk.user())
    options = json.loads(Generator.passkey_registration_options(mf.session(), "alice@example.com",
                                                                hints=["client-device"],
                                                                authenticator_attachment="platform"))
    assert options["authenticatorSelection"] == {"residentKey": "required", "requireResidentKey": True,
                                                 "userVerification": "required",
                                                 "authenticatorAttachment": "platform"}
    assert options["extensions"] == {"credProps": True} and options["hints"] == ["client-device"]
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-7, -8, -257, -35, -36, -37]


def test_sign_in_with_a_passkey_alone(pk):
    key = Authenticator("ES256")
    info = register(pk, key)
    assert info.hint == "device-bound passkey"
    options = json.loads(pk.ctx.passkey_sign_in_options())
    assert options["allowCredentials"] == [] and options["userVerification"] == "required"
    assert options["rpId"] == "example.com"
    result = pk.ctx.sign_in_with_passkey(key.assert_(options))
    assert (result.uid, result.tenant, result.factor_id, result.enrollment_id) == ("alice", None, "webauthn", info.uid)
    assert result.passkey and result.kind == libmfa.FACTOR_WEBAUTHN
    assert result.claims == {"sign_in_second_factor": "webauthn", "second_factor_identifier": info.uid,
                             "sign_in_method": "passkey", "amr": "hwk user mfa", "webauthn_user_verified": "true",
                             "webauthn_key": "device-bound key", "webauthn_backed_up": "false"}
    assert pk.events[-1].kind == libmfa.AUDIT_PASSKEY_SIGN_IN_SUCCESS
    assert pk.events[-1].kind_name == "PASSKEY_SIGN_IN_SUCCESS" and pk.events[-1].uid == "alice"
    [listed] = pk.ctx.webauthn_credentials("alice")
    assert listed.passkey and listed.discoverable is True and listed.user_verified
    assert listed.backup == "device-bound key" and listed.last_used_at == pk.clock.now
    assert listed.credential_id == key.credential_id and listed.transports == ("usb",)


def test_a_synced_passkey_in_a_tenant_and_a_user_with_two(pk):
    phone, laptop = Authenticator("ES256"), Authenticator("EdDSA")
    phone.backup_eligible = True
    register(pk, phone, "bob", tenant="t1")
    register(pk, laptop, "bob", tenant="t1")
    result = sign_in(pk, phone, "t1")
    assert (result.uid, result.tenant) == ("bob", "t1")
    assert result.claims["amr"] == "swk user mfa" and result.claims["webauthn_key"] == "synced passkey"
    assert sign_in(pk, laptop, "t1").claims["webauthn_key"] == "device-bound key"
    assert [c.backup for c in pk.ctx.webauthn_credentials("bob", "t1")] == ["synced passkey", "device-bound key"]
    assert [f.hint for f in pk.ctx.multi_factor(pk.user("bob", tenant="t1")).enrolled_factors()] == [
        "synced passkey", "device-bound passkey"]


def test_refusals_tell_nothing(pk):
    key, stranger, security_key = Authenticator("ES256"), Authenticator("ES256"), Authenticator("ES256")
    register(pk, key)
    register(pk, security_key, "bob", passkey=False)
    stranger.user_handle = key.user_handle
    removed = Authenticator("ES256")
    info = register(pk, removed, "carol")
    pk.ctx.multi_factor(pk.user("carol")).unenroll(info)
    wrong_handle = Authenticator("ES256")
    register(pk, wrong_handle, "dave")
    wrong_handle.user_handle_override = key.user_handle
    answers = []
    for authenticator in (stranger, security_key, removed, wrong_handle):
        with pytest.raises(libmfa.InvalidVerificationCodeError) as caught:
            sign_in(pk, authenticator)
        answers.append(str(caught.value))
    assert len(set(answers)) == 1 and NOT_ACCEPTED in answers[0]
    failures = [e for e in pk.events if e.kind == libmfa.AUDIT_PASSKEY_SIGN_IN_FAILURE]
    assert [e.uid for e in failures] == [None, None, None, "dave"]  # no user: the event names none


def test_the_named_refusals(pk):
    key = Authenticator("ES256")
    register(pk, key)
    key.user_verified = False
    with pytest.raises(libmfa.UserVerificationRequiredError):
        sign_in(pk, key)
    key.user_verified = True
    other_site = Authenticator("ES256")
    register(pk, other_site, "erin")
    other_site.rp_id_override = "example.org"
    with pytest.raises(libmfa.RPIDMismatchError):
        sign_in(pk, other_site)
    response = key.assert_(pk.ctx.passkey_sign_in_options())
    pk.ctx.sign_in_with_passkey(response)
    with pytest.raises(libmfa.InvalidSessionError):
        pk.ctx.sign_in_with_passkey(response)
    with pytest.raises(libmfa.TenantMismatchError):
        pk.ctx.sign_in_with_passkey(key.assert_(pk.ctx.passkey_sign_in_options("t1")))
    response = key.assert_(pk.ctx.passkey_sign_in_options())
    response["response"]["userHandle"] = None
    with pytest.raises(libmfa.InvalidArgumentError):
        pk.ctx.sign_in_with_passkey(response)
    pk.clock.advance(1)
    early = key.assert_(pk.ctx.passkey_sign_in_options())
    pk.clock.advance(1)
    pk.ctx.revoke_tokens("alice")
    with pytest.raises(libmfa.UserTokenExpiredError):
        pk.ctx.sign_in_with_passkey(early)
    pk.clock.advance(1)
    key.sign_count = 0
    with pytest.raises(libmfa.CredentialClonedError):
        sign_in(pk, key)
    with pytest.raises(TypeError):
        pk.ctx.sign_in_with_passkey(42)


def test_backoff_and_not_allowed(make_kit):
    kit = make_kit(config=CONFIG)
    key = Authenticator("ES256")
    register(kit, key)
    options = kit.ctx.passkey_sign_in_options()
    for _ in range(6):
        response = key.assert_(options)
        response["response"]["signature"] = b64(b"\x30\x06\x02\x01\x01\x02\x01\x01")
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.ctx.sign_in_with_passkey(response)
    with pytest.raises(libmfa.TooManyAttemptsError):
        sign_in(kit, key)
    kit.clock.advance(3600)
    assert sign_in(kit, key).uid == "alice"
    closed = make_kit(config={"state": "ENABLED", "providers": {"webauthn": "ENABLED"},
                              "webauthn": {"rpId": "example.com"}})
    with pytest.raises(libmfa.OperationNotAllowedError):
        closed.ctx.passkey_sign_in_options()


def test_authentication_options_per_call(pk):
    key = Authenticator("ES256")
    register(pk, key, passkey=False)
    resolver = pk.resolver(pk.user())
    options = json.loads(Generator.authentication_options(resolver, user_verification="required",
                                                          hints=["security-key"]))
    assert options["userVerification"] == "required" and options["hints"] == ["security-key"]
    key.user_verified = False
    with pytest.raises(libmfa.UserVerificationRequiredError):
        resolver.resolve_sign_in(Generator.assertion_for_sign_in(key.assert_(options)))
