"""SPEC flow 1 (enable MFA for the project or a tenant) and the configuration's checks."""

import json

import pytest

import libmfa
from conftest import TOTP_ON

GEN = libmfa.TOTPMultiFactorGenerator


def test_defaults_are_disabled_with_five_adjacent_intervals(make_kit):
    kit = make_kit(config=None)
    config = kit.ctx.config()
    assert config["state"] == "DISABLED"
    assert config["providers"] == {"totp": "DISABLED", "phone": "DISABLED", "recovery": "DISABLED",
                                   "webauthn": "DISABLED", "email": "DISABLED", "hotp": "DISABLED",
                                   "yubico_otp": "DISABLED"}
    assert config["rememberedDevices"] == {"state": "DISABLED", "days": 30, "sliding": False, "maxPerUser": 10}
    assert config["hotp"] == {"lookAhead": 10, "resyncWindow": 1000} and config["yubicoOtp"] == {}
    assert config["totp"] == {"adjacentIntervals": 5}
    assert config["testPhoneNumbers"] == {}
    assert config["limits"]["maxFactors"] == 5


def test_disabled_project_refuses_enrollment(make_kit):
    kit = make_kit(config=None)
    with pytest.raises(libmfa.OperationNotAllowedError):
        kit.ctx.multi_factor(kit.user()).session()


def test_enable_totp_for_the_project(make_kit):
    kit = make_kit(config=None)
    kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}, "totp": {"adjacentIntervals": 3}})
    config = kit.ctx.config()
    assert config["state"] == "ENABLED"
    assert config["providers"]["totp"] == "ENABLED"
    assert config["totp"]["adjacentIntervals"] == 3
    info, _ = kit.enroll(kit.user())
    assert info.factor_id == "totp"


def test_config_accepts_json_text_and_bytes(make_kit):
    kit = make_kit(config=None)
    kit.ctx.set_config(json.dumps(TOTP_ON))
    assert kit.ctx.config()["state"] == "ENABLED"
    kit.ctx.set_config(b'{"state": "MANDATORY"}')
    assert kit.ctx.config()["state"] == "MANDATORY"


def test_set_config_replaces_the_previous_document(kit):
    kit.ctx.set_config({"totp": {"adjacentIntervals": 2}})
    # The previous document (state ENABLED, totp ENABLED) is gone: defaults again.
    assert kit.ctx.config()["state"] == "DISABLED"
    assert kit.ctx.config()["totp"]["adjacentIntervals"] == 2


def test_phone_enabled_totp_disabled_refuses_totp_secret(make_kit):
    kit = make_kit(config={"state": "ENABLED", "providers": {"phone": "ENABLED", "totp": "DISABLED"}})
    session = kit.ctx.multi_factor(kit.user()).session()  # some provider is enabled
    with pytest.raises(libmfa.OperationNotAllowedError):
        GEN.generate_secret(session)


def test_disabling_totp_between_secret_and_enroll_refuses(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    kit.ctx.set_config({"state": "DISABLED", "providers": {"totp": "ENABLED"}})
    with pytest.raises(libmfa.OperationNotAllowedError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))


# --- tenants ---------------------------------------------------------------------------


def test_tenant_overrides_project_fields(kit):
    kit.ctx.set_config({"totp": {"adjacentIntervals": 0}, "limits": {"maxFactors": 2}}, tenant="t1")
    tenant = kit.ctx.config("t1")
    assert tenant["totp"]["adjacentIntervals"] == 0
    assert tenant["limits"]["maxFactors"] == 2
    assert tenant["state"] == "ENABLED"  # inherited from the project
    project = kit.ctx.config()
    assert project["totp"]["adjacentIntervals"] == 5
    assert project["limits"]["maxFactors"] == 5
    # An unconfigured tenant sees the project's configuration.
    assert kit.ctx.config("t2") == project


def test_tenant_adjacent_intervals_apply_to_its_users(kit):
    kit.ctx.set_config({"totp": {"adjacentIntervals": 0}}, tenant="t1")
    project_user = kit.user("pat")
    tenant_user = kit.user("tess", tenant="t1")
    project_info, project_totp = kit.enroll(project_user)
    tenant_info, tenant_totp = kit.enroll(tenant_user)
    kit.clock.advance(300)
    # A code two steps old: inside the project's +-5 window, outside the tenant's 0.
    kit.resolve(kit.resolver(project_user), project_info.uid, kit.code(project_totp, -60))
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(tenant_user), tenant_info.uid, kit.code(tenant_totp, -60))
    kit.resolve(kit.resolver(tenant_user), tenant_info.uid, kit.code(tenant_totp))


def test_tenant_can_disable_what_the_project_enables(kit):
    kit.ctx.set_config({"state": "DISABLED"}, tenant="t1")
    with pytest.raises(libmfa.OperationNotAllowedError):
        kit.ctx.multi_factor(kit.user(tenant="t1")).session()
    kit.ctx.multi_factor(kit.user()).session()


def test_tenant_can_enable_what_the_project_disables(make_kit):
    kit = make_kit(config=None)
    kit.ctx.set_config(TOTP_ON, tenant="acme")
    kit.enroll(kit.user(tenant="acme"))
    with pytest.raises(libmfa.OperationNotAllowedError):
        kit.ctx.multi_factor(kit.user()).session()


def test_tenant_replaces_test_phone_numbers_as_a_whole(kit):
    kit.ctx.set_config({**TOTP_ON, "testPhoneNumbers": {"+15555550100": "123456", "+15555550101": "654321"}})
    kit.ctx.set_config({"testPhoneNumbers": {"+15555550199": "000000"}}, tenant="t1")
    assert kit.ctx.config("t1")["testPhoneNumbers"] == {"+15555550199": "000000"}
    assert len(kit.ctx.config()["testPhoneNumbers"]) == 2


# --- validation ------------------------------------------------------------------------


@pytest.mark.parametrize("value", [-1, 11, 100, -(2**40), "11", "five", 5.5, None, True])
def test_adjacent_intervals_outside_0_to_10_is_invalid(kit, value):
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        kit.ctx.set_config({**TOTP_ON, "totp": {"adjacentIntervals": value}})
    assert "adjacentIntervals" in caught.value.message
    assert kit.ctx.config()["totp"]["adjacentIntervals"] == 5  # nothing was stored


@pytest.mark.parametrize("value", [0, 1, 5, 10, "7"])
def test_adjacent_intervals_0_to_10_are_accepted(kit, value):
    """Integers may be given as strings (changed on purpose, issue 8: "5" was refused)."""
    kit.ctx.set_config({**TOTP_ON, "totp": {"adjacentIntervals": value}})
    assert kit.ctx.config()["totp"]["adjacentIntervals"] == int(value)  # written back as a number


def _numbers(count):
    return {"+1555555%04d" % index: "%06d" % index for index in range(count)}


def test_ten_test_numbers_are_accepted_eleven_are_not(kit):
    kit.ctx.set_config({**TOTP_ON, "testPhoneNumbers": _numbers(10)})
    assert len(kit.ctx.config()["testPhoneNumbers"]) == 10
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        kit.ctx.set_config({**TOTP_ON, "testPhoneNumbers": _numbers(11)})
    assert "testPhoneNumbers" in caught.value.message
    assert len(kit.ctx.config()["testPhoneNumbers"]) == 10


@pytest.mark.parametrize("code", ["12345", "1234567", "12a456", "", " 123456", "１２３４５６", 123456, None])
def test_malformed_test_codes_are_invalid(kit, code):
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.set_config({**TOTP_ON, "testPhoneNumbers": {"+15555550100": code}})


@pytest.mark.parametrize("number", ["15555550100", "+1 555 555 0100", "+0123456789", "+1", "phone"])
def test_test_numbers_must_be_e164(kit, number):
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.set_config({**TOTP_ON, "testPhoneNumbers": {number: "123456"}})


@pytest.mark.parametrize(
    "document",
    [
        {"stat": "ENABLED"},
        {"state": "ENABLED", "extra": 1},
        {"providers": {"totp": "ENABLED", "carrier-pigeon": "ENABLED"}},
        {"email": {"codeLifetime": 59}},
        {"rememberedDevices": {"days": 0}},
        {"totp": {"adjacentIntervals": 5, "window": 1}},
        {"limits": {"maxFactor": 3}},
        {"state": "ON"},
        {"state": "enabled"},
        {"providers": {"totp": True}},
        {"providers": []},
        {"limits": {"maxFactors": 11}},
        {"limits": {"maxFactors": 0}},
    ],
)
def test_unknown_fields_and_bad_values_are_invalid(kit, document):
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        kit.ctx.set_config(document)
    assert caught.value.message  # the message names the problem
    assert kit.ctx.config()["state"] == "ENABLED"  # the old document is still in force


@pytest.mark.parametrize("text", ["", "{", "[]", "null", "42", '"ENABLED"', "{'state': 'ENABLED'}", '{"state": "ENABLED"} x'])
def test_malformed_json_is_invalid(kit, text):
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.set_config(text)


def test_error_message_names_the_unknown_field(kit):
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        kit.ctx.set_config({"totp": {"adjacentIntervals": 5, "bogusField": 1}})
    assert "bogusField" in str(caught.value)


def test_bad_tenant_config_is_invalid_and_leaves_the_tenant_alone(kit):
    kit.ctx.set_config({"totp": {"adjacentIntervals": 1}}, tenant="t1")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.set_config({"totp": {"adjacentIntervals": 11}}, tenant="t1")
    assert kit.ctx.config("t1")["totp"]["adjacentIntervals"] == 1


def test_config_change_is_audited(kit):
    kit.events.clear()
    kit.ctx.set_config(TOTP_ON, tenant="t9")
    assert [(e.kind, e.kind_name, e.tenant) for e in kit.events] == [(libmfa.AUDIT_CONFIG_CHANGE, "CONFIG_CHANGE", "t9")]
    kit.ctx.set_config(TOTP_ON)
    assert kit.events[-1].kind_name == "CONFIG_CHANGE" and kit.events[-1].tenant is None


def test_config_wrong_python_types(kit):
    with pytest.raises(TypeError):
        kit.ctx.set_config(None)
    with pytest.raises(TypeError):
        kit.ctx.set_config(42)
    with pytest.raises(TypeError):
        kit.ctx.set_config([("state", "ENABLED")])
    with pytest.raises(TypeError):
        kit.ctx.set_config({"state": object()})  # not JSON-serializable
    with pytest.raises(TypeError):
        kit.ctx.set_config(TOTP_ON, tenant=7)
    with pytest.raises(TypeError):
        kit.ctx.config(tenant=1.5)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.set_config('{"state": "ENABLED"}\0')
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.set_config(TOTP_ON, tenant="")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.config(tenant="t" * 129)
