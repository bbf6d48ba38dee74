"""What real devices send, through the engine: the tpm, android-key and apple
attestation formats (statements made by a test CA, Tests/python/webauthn_formats.py)
judged against configured roots or the host's trust callback, which sees the
format and the AAGUID; each tampered statement refused; under conveyance none
a format libmfa does not know registers unverified; the ES384, ES512 and
PS256 algorithms from registration to sign-in."""

import json

import pytest

from webauthn_authenticator import Authenticator

import libmfa

Generator = libmfa.WebAuthnMultiFactorGenerator
FORMATS = ["tpm", "android-key", "apple"]
KINDS = {"tpm": "attca", "android-key": "basic", "apple": "anonca"}


def config(attestation="none", roots=()):
    return {"state": "ENABLED", "providers": {"webauthn": "ENABLED"},
            "webauthn": {"rpId": "example.com", "attestation": attestation, "attestationRoots": list(roots)}}


def enroll(kit, authenticator, uid="alice"):
    user = kit.user(uid)
    mf = kit.ctx.multi_factor(user)
    options = Generator.registration_options(mf.session(), user.email)
    return mf.enroll(Generator.assertion_for_enrollment(authenticator.register(options)), "device")


def sign_in(kit, authenticator, uid="alice"):
    resolver = kit.resolver(kit.user(uid))
    return resolver.resolve_sign_in(
        Generator.assertion_for_sign_in(authenticator.assert_(Generator.authentication_options(resolver))))


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_format_chained_to_a_configured_root_registers(make_kit, fmt):
    key = Authenticator("ES256", fmt)
    kit = make_kit(config=config("direct", [key.ca.root_pem]))
    enroll(kit, key)
    listed = kit.ctx.webauthn_credentials("alice")
    assert [(c.attestation_format, c.attestation_kind) for c in listed] == [(fmt, KINDS[fmt])]
    assert listed[0].aaguid == key.aaguid
    assert sign_in(kit, key).factor_id == "webauthn"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_format_without_its_root_is_not_trusted_and_the_callback_decides(make_kit, fmt):
    key = Authenticator("ES256", fmt)
    strict = make_kit(config=config("direct", [Authenticator("ES256", fmt).ca.root_pem]))  # another root
    with pytest.raises(libmfa.AttestationNotTrustedError):
        enroll(strict, key)
    seen = []
    judged = make_kit(config=config("direct", [key.ca.root_pem]), webauthn_trust=lambda a: seen.append(a) or True)
    enroll(judged, key)
    assert [(a.format, a.kind, a.aaguid, a.chain_trusted) for a in seen] == [(fmt, KINDS[fmt], key.aaguid, True)]
    assert len(seen[0].certificates) == 1


def test_tampered_statements_are_refused(make_kit):
    for fmt in FORMATS:
        key = Authenticator("ES256", fmt)
        kit = make_kit(config=config("direct", [key.ca.root_pem]))
        mf = kit.ctx.multi_factor(kit.user())
        response = key.register(Generator.registration_options(mf.session(), "alice"))
        from fido2 import cbor
        from webauthn_authenticator import b64, unb64

        obj = cbor.decode(unb64(response["response"]["attestationObject"]))
        field = {"tpm": "certInfo", "android-key": "sig", "apple": "x5c"}[fmt]
        if field == "x5c":
            leaf = bytearray(obj["attStmt"]["x5c"][0])
            leaf[-20] ^= 1  # the CA's signature of the certificate: the chain no longer holds
            obj["attStmt"]["x5c"] = [bytes(leaf)]
        else:
            raw = bytearray(obj["attStmt"][field])
            raw[-5] ^= 1
            obj["attStmt"][field] = bytes(raw)
        response["response"]["attestationObject"] = b64(cbor.encode(obj))
        with pytest.raises((libmfa.InvalidVerificationCodeError, libmfa.AttestationNotTrustedError)):
            mf.enroll(Generator.assertion_for_enrollment(response), "tampered")
    # A TPM that certifies another key than the credential's, a keystore key for all applications or imported.
    for fmt, change in (("tpm", "other_area"), ("android-key", "all_applications"), ("android-key", "origin")):
        key = Authenticator("ES256", fmt)
        setattr(key.ca, change, 2 if change == "origin" else True)
        kit = make_kit(config=config("direct", [key.ca.root_pem]))
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            enroll(kit, key)


def test_an_unknown_format_registers_under_conveyance_none_and_is_refused_when_judged(make_kit):
    key = Authenticator("ES256", "tpm")
    kit = make_kit(config=config())
    mf = kit.ctx.multi_factor(kit.user())
    response = key.register(Generator.registration_options(mf.session(), "alice"))
    from fido2 import cbor
    from webauthn_authenticator import b64, unb64

    obj = cbor.decode(unb64(response["response"]["attestationObject"]))
    obj["fmt"] = "android-safetynet"
    obj["attStmt"] = {"ver": "23", "response": b"eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}
    response["response"]["attestationObject"] = b64(cbor.encode(obj))
    mf.enroll(Generator.assertion_for_enrollment(response), "old phone")
    [stored] = kit.ctx.webauthn_credentials("alice")
    assert (stored.attestation_format, stored.attestation_kind) == ("android-safetynet", "unverified")
    assert sign_in(kit, key).factor_id == "webauthn"
    judged = make_kit(config=config("direct", [key.ca.root_pem]))
    other = Authenticator("ES256", "tpm")
    mf = judged.ctx.multi_factor(judged.user())
    response = other.register(Generator.registration_options(mf.session(), "alice"))
    obj = cbor.decode(unb64(response["response"]["attestationObject"]))
    obj["fmt"] = "android-safetynet"
    response["response"]["attestationObject"] = b64(cbor.encode(obj))
    with pytest.raises(libmfa.AttestationNotTrustedError):
        mf.enroll(Generator.assertion_for_enrollment(response), "old phone")


@pytest.mark.parametrize("algorithm", ["ES384", "ES512", "PS256"])
def test_new_algorithms_register_and_sign_in(make_kit, algorithm):
    kit = make_kit(config=config())
    key = Authenticator(algorithm, "packed")
    enroll(kit, key)
    assert kit.ctx.webauthn_credentials("alice")[0].algorithm == libmfa.__dict__["COSE_" + algorithm]
    assert sign_in(kit, key).factor_id == "webauthn"
    assert sign_in(kit, key).factor_id == "webauthn"


def test_the_algorithms_offered_are_the_callers(make_kit):
    kit = make_kit(config=config())
    mf = kit.ctx.multi_factor(kit.user())
    options = json.loads(Generator.registration_options(mf.session(), "alice",
                                                        algorithms=[libmfa.COSE_ES384, libmfa.COSE_ES256]))
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-35, -7]
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.enroll(Generator.assertion_for_enrollment(Authenticator("EdDSA").register(options)), "key")
    with pytest.raises(libmfa.InvalidArgumentError):
        Generator.registration_options(mf.session(), "alice", algorithms=[-65535])
    with pytest.raises(libmfa.InvalidArgumentError):
        Generator.registration_options(mf.session(), "alice", hints=["usb"])
    with pytest.raises(libmfa.InvalidArgumentError):
        Generator.registration_options(mf.session(), "alice", authenticator_attachment="roaming")
