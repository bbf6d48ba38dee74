"""WebAuthn in a real browser: headless Chromium's virtual authenticator
(the WebDriver virtual-authenticator commands that selenium exposes)
answers the options libmfa makes, through ``navigator.credentials.create``
and ``.get`` on a page of http://localhost (a secure context), and libmfa
verifies what the browser returns: CTAP2 and U2F authenticators, with and
without user verification, resident keys, ``none`` and ``direct``
attestation (packed and fido-u2f statements from Chromium's own keys), and
a cloned credential (its counter reset) refused.

The page is a static one served on loopback (port MFA_PG_PORT_BASE + 5);
the options go in and the credential's ``toJSON()`` comes out through
selenium's ``execute_async_script``. The web example's own browser tests
drive the same ceremonies through its pages.
"""

import base64
import http.server
import json
import os
import shutil
import threading
import time

import pytest

import libmfa

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PORT = int(os.environ.get("MFA_PG_PORT_BASE", "25432")) + 5
ORIGIN = "http://localhost:%d" % PORT
Gen = libmfa.WebAuthnMultiFactorGenerator

PAGE = b"""<!doctype html><title>libmfa WebAuthn test</title>
<script>
async function ceremony(kind, options) {
  try {
    const publicKey = kind === "create" ? PublicKeyCredential.parseCreationOptionsFromJSON(JSON.parse(options))
                                        : PublicKeyCredential.parseRequestOptionsFromJSON(JSON.parse(options));
    const credential = await navigator.credentials[kind]({publicKey});
    return JSON.stringify(credential.toJSON());
  } catch (error) {
    return "ERROR " + error.name + ": " + error.message;
  }
}
</script>"""


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the handler's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    if not (os.path.exists(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail("Chromium and chromedriver are needed (scripts/setup.sh installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(30)
    driver.get(ORIGIN + "/")
    yield driver
    driver.quit()
    server.shutdown()


def authenticator(driver, protocol="ctap2", uv=True, resident=False):
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions

    for existing in getattr(driver, "_libmfa_authenticators", []):
        driver.remove_virtual_authenticator()
    options = VirtualAuthenticatorOptions()
    options.protocol = (VirtualAuthenticatorOptions.Protocol.CTAP2 if protocol == "ctap2"
                        else VirtualAuthenticatorOptions.Protocol.U2F)
    options.transport = VirtualAuthenticatorOptions.Transport.USB
    options.has_resident_key = resident
    options.has_user_verification = uv
    options.is_user_verified = uv
    options.is_user_consenting = True
    driver.add_virtual_authenticator(options)
    driver._libmfa_authenticators = [options]


def run(driver, kind, options):
    answer = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; ceremony(arguments[0], arguments[1]).then(done);", kind, options)
    assert not answer.startswith("ERROR"), answer
    return answer


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def config(**webauthn):
    return {"state": "ENABLED", "providers": {"webauthn": "ENABLED"},
            "webauthn": dict({"rpId": "localhost", "origins": [ORIGIN]}, **webauthn)}


def resolver_of(ctx, user):
    with pytest.raises(libmfa.SecondFactorRequired) as required:
        ctx.sign_in(user)
    return required.value.resolver


def register(ctx, driver, user, name="key"):
    mf = ctx.multi_factor(user)
    credential = run(driver, "create", Gen.registration_options(mf.session(), user.email))
    return mf.enroll(Gen.assertion_for_enrollment(credential), name)


def sign_in(ctx, driver, user, hint=None):
    resolver = resolver_of(ctx, user)
    credential = run(driver, "get", Gen.authentication_options(resolver, hint))
    return resolver.resolve_sign_in(Gen.assertion_for_sign_in(credential, hint))


def new_context(**webauthn):
    seen = []

    def trust(attestation):  # Chromium's virtual keys have no root to check: record and accept
        seen.append(attestation)
        return True

    asked = webauthn.get("attestation", "none") != "none"
    ctx = libmfa.Context(":memory:", master_key=bytes(32), webauthn_trust=trust if asked else None)
    ctx.set_config(config(**webauthn))
    return ctx, seen


def user(uid="alice"):
    return libmfa.User(uid, email=uid + "@example.com", email_verified=True, auth_time=int(time.time()))


@pytest.mark.parametrize("protocol,uv", [("ctap2", True), ("ctap2", False), ("u2f", False)],
                         ids=["ctap2-uv", "ctap2-no-uv", "u2f"])
def test_register_and_sign_in(browser, protocol, uv):
    authenticator(browser, protocol, uv=uv)
    ctx, _ = new_context(userVerification="preferred")
    with ctx:
        alice = user()
        info = register(ctx, browser, alice)
        assert info.factor_id == "webauthn" and info.hint == "security key"
        for _ in range(2):
            result = sign_in(ctx, browser, alice, info)
            assert result.enrollment_id == info.uid
            assert result.claims["webauthn_user_verified"] == ("true" if uv else "false")


def test_user_verification_required(browser):
    ctx, _ = new_context(userVerification="required")
    with ctx:
        authenticator(browser, "ctap2", uv=True)
        alice = user()
        register(ctx, browser, alice)
        assert sign_in(ctx, browser, alice).claims["webauthn_user_verified"] == "true"
        authenticator(browser, "u2f", uv=False)  # a U2F key cannot verify the user
        mf = ctx.multi_factor(user("bob"))
        options = Gen.registration_options(mf.session(), "bob@example.com")
        answer = browser.execute_async_script(
            "const done = arguments[arguments.length - 1]; ceremony('create', arguments[0]).then(done);", options)
        if not answer.startswith("ERROR"):  # the browser may refuse by itself; if not, libmfa does
            with pytest.raises(libmfa.UserVerificationRequiredError):
                mf.enroll(Gen.assertion_for_enrollment(answer))


def test_resident_key_passkey(browser):
    authenticator(browser, "ctap2", uv=True, resident=True)
    ctx, _ = new_context(residentKey="required", userVerification="required")
    with ctx:
        alice = user()
        register(ctx, browser, alice)
        credentials = browser.get_credentials()
        assert len(credentials) == 1 and credentials[0].is_resident_credential
        assert sign_in(ctx, browser, alice).factor_id == "webauthn"


@pytest.mark.parametrize("protocol,fmt", [("ctap2", "packed"), ("u2f", "fido-u2f")])
def test_direct_attestation_from_chromium(browser, protocol, fmt):
    authenticator(browser, protocol, uv=protocol == "ctap2")
    ctx, seen = new_context(attestation="direct")
    with ctx:
        alice = user()
        register(ctx, browser, alice)
        assert seen and seen[0].format == fmt and seen[0].kind == "basic" and seen[0].certificates
        sign_in(ctx, browser, alice)


def test_cloned_credential_is_refused(browser):
    from selenium.webdriver.common.virtual_authenticator import Credential

    authenticator(browser, "ctap2")
    ctx, _ = new_context()
    with ctx:
        alice = user()
        register(ctx, browser, alice)
        sign_in(ctx, browser, alice)
        sign_in(ctx, browser, alice)
        original = browser.get_credentials()[0]
        assert original.sign_count >= 2
        # A copy of the key made earlier: the same private key, its counter back at 0.
        browser.remove_all_credentials()
        browser.add_credential(Credential.create_non_resident_credential(
            unb64(original.id), original.rp_id, unb64(original.private_key), 0))
        with pytest.raises(libmfa.CredentialClonedError):
            sign_in(ctx, browser, alice)
