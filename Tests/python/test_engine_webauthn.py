"""WebAuthn through the Python binding: every algorithm and attestation format
from a software authenticator on ``cryptography``, the named errors, the
attestation trust (callback, configured roots checked by GnuTLS), hints."""

import json
import os

import pytest

from webauthn_authenticator import Authenticator, AttestationCA

import libmfa

Generator = libmfa.WebAuthnMultiFactorGenerator
CONFIG = {"state": "ENABLED", "providers": {"webauthn": "ENABLED", "totp": "ENABLED"},
          "webauthn": {"rpId": "example.com"}}
KINDS = [("ES256", "none"), ("ES256", "packed"), ("ES256", "packed-x5c"), ("ES256", "fido-u2f"),
         ("EdDSA", "none"), ("EdDSA", "packed"), ("RS256", "none"), ("RS256", "packed"), ("RS256", "packed-x5c")]


@pytest.fixture
def wa(make_kit):
    return make_kit(config=CONFIG)


def enroll(kit, user, authenticator, name="key"):
    mf = kit.ctx.multi_factor(user)
    options = Generator.registration_options(mf.session(), user.email)
    return mf.enroll(Generator.assertion_for_enrollment(authenticator.register(options)), name)


def sign_in(kit, user, authenticator, resolver=None, enrollment_id=None):
    resolver = resolver or kit.resolver(user)
    options = Generator.authentication_options(resolver, enrollment_id)
    return resolver.resolve_sign_in(Generator.assertion_for_sign_in(authenticator.assert_(options), enrollment_id))


@pytest.mark.parametrize("algorithm,fmt", KINDS, ids=["%s-%s" % kind for kind in KINDS])
def test_enroll_and_sign_in_every_algorithm_and_format(wa, algorithm, fmt):
    user = wa.user()
    key = Authenticator(algorithm, fmt)
    info = enroll(wa, user, key)
    assert info.factor_id == "webauthn" and info.kind == libmfa.FACTOR_WEBAUTHN and info.hint == "security key"
    result = sign_in(wa, user, key)
    assert result.factor_id == "webauthn" and result.enrollment_id == info.uid
    assert result.claims["webauthn_user_verified"] == "true"
    result = sign_in(wa, user, key, enrollment_id=info)
    assert [h.hint for h in wa.resolver(user).hints] == ["security key"]


def test_options_are_the_browsers_json(wa):
    user = wa.user()
    options = json.loads(Generator.registration_options(wa.ctx.multi_factor(user).session(), "alice@example.com",
                                                        "Alice"))
    assert options["rp"] == {"id": "example.com", "name": "example.com"}
    assert options["user"]["name"] == "alice@example.com" and options["user"]["displayName"] == "Alice"
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-7, -8, -257, -35, -36, -37]
    assert options["extensions"] == {"credProps": True}
    assert options["authenticatorSelection"] == {"residentKey": "discouraged", "requireResidentKey": False,
                                                 "userVerification": "preferred"}
    assert options["attestation"] == "none" and options["excludeCredentials"] == []


def test_passkey_hint(wa):
    key = Authenticator("ES256")
    key.backup_eligible = True
    assert enroll(wa, wa.user(), key).hint == "passkey"


def test_named_errors(wa):
    user = wa.user()
    key = Authenticator()
    key.origin = "https://example.org"
    with pytest.raises(libmfa.OriginMismatchError):
        enroll(wa, user, key)
    key.origin = "https://example.com"
    key.rp_id_override = "example.org"
    with pytest.raises(libmfa.RPIDMismatchError):
        enroll(wa, user, key)
    key.rp_id_override = None
    enroll(wa, user, key)
    key.origin = "https://login.example.com"
    with pytest.raises(libmfa.OriginMismatchError):
        sign_in(wa, user, key)
    key.origin = "https://example.com"
    key.rp_id_override = "login.example.com"
    with pytest.raises(libmfa.RPIDMismatchError):
        sign_in(wa, user, key)
    key.rp_id_override = None
    key.user_present = False
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        sign_in(wa, user, key)
    key.user_present = True
    sign_in(wa, user, key)
    key.sign_count = 0
    with pytest.raises(libmfa.CredentialClonedError):
        sign_in(wa, user, key)
    assert wa.events[-1].detail == "CREDENTIAL_CLONED" and wa.events[-1].kind_name == "SIGN_IN_FAILURE"


def test_challenge_of_another_user_tenant_or_sign_in(wa):
    alice, bob, tenant_alice = wa.user(), wa.user("bob"), wa.user(tenant="t1")
    key, bob_key, tenant_key = Authenticator(), Authenticator(), Authenticator()
    enroll(wa, alice, key)
    enroll(wa, bob, bob_key)
    enroll(wa, tenant_alice, tenant_key)
    resolver = wa.resolver(alice)
    for other, error in ((wa.resolver(alice), libmfa.InvalidSessionError), (wa.resolver(bob), libmfa.InvalidSessionError),
                         (wa.resolver(tenant_alice), libmfa.TenantMismatchError)):
        answer = key.assert_(Generator.authentication_options(other))
        with pytest.raises(error):
            resolver.resolve_sign_in(Generator.assertion_for_sign_in(answer))
    answer = key.assert_(Generator.authentication_options(resolver))
    resolver.resolve_sign_in(Generator.assertion_for_sign_in(answer))
    with pytest.raises(libmfa.InvalidSessionError):  # replayed on the same sign-in
        resolver.resolve_sign_in(Generator.assertion_for_sign_in(answer))
    with pytest.raises(libmfa.InvalidSessionError):  # replayed on a later one
        wa.resolver(alice).resolve_sign_in(Generator.assertion_for_sign_in(answer))


def test_user_verification_required(make_kit):
    kit = make_kit(config=dict(CONFIG, webauthn={"rpId": "example.com", "userVerification": "required"}))
    key = Authenticator("EdDSA")
    key.user_verified = False
    with pytest.raises(libmfa.UserVerificationRequiredError):
        enroll(kit, kit.user(), key)


def direct(roots=()):
    return dict(CONFIG, webauthn={"rpId": "example.com", "attestation": "direct", "attestationRoots": list(roots)})


def test_attestation_roots_checked_by_gnutls(make_kit, clock):
    key = Authenticator("ES256", "packed-x5c")
    trusted = make_kit(config=direct([key.ca.root_pem]))
    enroll(trusted, trusted.user(), key)
    sign_in(trusted, trusted.user(), key)
    u2f = Authenticator("ES256", "fido-u2f")
    with pytest.raises(libmfa.AttestationNotTrustedError):  # another root
        enroll(trusted, trusted.user("bob"), u2f)
    other_root = make_kit(config=direct([AttestationCA(None).root_pem]))
    with pytest.raises(libmfa.AttestationNotTrustedError):
        enroll(other_root, other_root.user(), Authenticator("ES256", "packed-x5c"))
    for fmt in ("none", "packed"):  # none and self attestation are not trusted when attestation is asked for
        with pytest.raises(libmfa.AttestationNotTrustedError):
            enroll(trusted, trusted.user("carol"), Authenticator("ES256", fmt))
    clock.advance(80 * 365 * 86400)  # past the chain's validity
    late = Authenticator("ES256", "packed-x5c")
    expired = make_kit(config=direct([late.ca.root_pem]))
    with pytest.raises(libmfa.AttestationNotTrustedError):
        enroll(expired, expired.user(), late)


def test_trust_callback_decides(make_kit):
    seen = []

    def trust(attestation):
        seen.append(attestation)
        return attestation.format == "fido-u2f"

    kit = make_kit(config=direct(), webauthn_trust=trust)
    u2f = Authenticator("ES256", "fido-u2f")
    enroll(kit, kit.user(), u2f)
    with pytest.raises(libmfa.AttestationNotTrustedError):
        enroll(kit, kit.user(), Authenticator("ES256", "packed"))
    assert seen[0].kind == "basic" and seen[0].certificates == (u2f.ca.leaf_der,) and not seen[0].chain_trusted
    assert seen[0].aaguid == bytes(16) and seen[0].uid == "alice" and seen[1].kind == "self"

    def broken(attestation):
        raise RuntimeError("the host's bug")

    failing = make_kit(config=direct(), webauthn_trust=broken)
    with pytest.raises(libmfa.AttestationNotTrustedError):
        enroll(failing, failing.user(), Authenticator())


def test_malformed_credentials_are_invalid_argument(wa):
    user = wa.user()
    mf = wa.ctx.multi_factor(user)
    for bad in ("", "{", "[]", {"type": "public-key"}, {"type": "public-key", "rawId": "AA", "response": {}}):
        with pytest.raises(libmfa.InvalidArgumentError):
            mf.enroll(Generator.assertion_for_enrollment(bad))
    with pytest.raises(TypeError):
        Generator.assertion_for_enrollment(42)
    with pytest.raises(libmfa.InvalidArgumentError):  # a sign-in assertion cannot enroll
        mf.enroll(Generator.assertion_for_sign_in("{}"))


def test_stateless_verify(wa):
    key = Authenticator("RS256", "packed")
    challenge = "Y2hhbGxlbmdlLWJ5dGVzLWZvci10aGUtaG9zdA"
    registered = libmfa.webauthn.verify_registration(
        key.register({"challenge": challenge, "rp": {"id": "example.com"}, "user": {"id": "AQ"}}),
        challenge, "example.com", "https://example.com")
    assert registered.credential_id == key.credential_id and registered.algorithm == -257
    assert registered.format == "packed" and registered.attestation_kind == "self"
    count, flags = libmfa.webauthn.verify_assertion(key.assert_({"challenge": challenge, "rpId": "example.com"}),
                                                    challenge, "example.com", "https://example.com",
                                                    registered.public_key, require_user_verification=True)
    assert count == 1 and flags & libmfa.WEBAUTHN_FLAG_UV


def test_gnutls_is_loaded_only_for_a_certificate(tmp_path):
    """libmfa maps GnuTLS with dlopen when an attestation it verifies first carries a certificate, not before:
    not for self attestation, and not for statements left unverified (conveyance none, no trust callback)."""
    import subprocess
    import sys

    program = tmp_path / "gnutls.py"
    program.write_text("""
import libmfa, time
from webauthn_authenticator import Authenticator
def mapped():
    return "libgnutls" in open("/proc/self/maps").read()
def enroll(ctx, user, key):
    mf = ctx.multi_factor(user)
    options = libmfa.WebAuthnMultiFactorGenerator.registration_options(mf.session(), "a@example.com")
    mf.enroll(libmfa.WebAuthnMultiFactorGenerator.assertion_for_enrollment(key.register(options)))
config = {"state": "ENABLED", "providers": {"webauthn": "ENABLED"}, "webauthn": {"rpId": "example.com"}}
user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=int(time.time()))
seen = []
with libmfa.Context(":memory:", master_key=bytes(32)) as ctx:
    ctx.set_config(config)
    enroll(ctx, user, Authenticator("ES256", "fido-u2f"))  # unverified: nobody judges it
    unjudged = mapped()
with libmfa.Context(":memory:", master_key=bytes(32), webauthn_trust=lambda a: seen.append(a) or True) as ctx:
    ctx.set_config(config)
    enroll(ctx, user, Authenticator("ES256", "packed"))  # self attestation: no certificate
    before = mapped()
    enroll(ctx, user, Authenticator("ES256", "fido-u2f"))
    print(unjudged, before, mapped(), [a.kind for a in seen])
""")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(here, "..", "..", "python"), here]))
    out = subprocess.run([sys.executable, str(program)], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True", "['self',", "'basic']"]
