"""Security keys and passkeys through the example web application, in headless Chromium.

Chromium's virtual authenticator (the WebDriver virtual-authenticator
commands that selenium exposes) is the key: the pages' own script
(``static/webauthn.js``) hands libmfa's options to
``navigator.credentials.create()`` and ``.get()``, and the application
verifies what comes back through libmfa. CTAP2 and U2F keys, with and
without user verification; the configuration requiring it (refused by the
browser, or by libmfa when the browser was asked before the policy
changed); a passkey (a resident key on a platform authenticator); a cloned
key (its credential exported and put on another authenticator with its
counter back at 0) refused as ``CREDENTIAL_CLONED``, shown and audited.
On the embedded SQLite store and on PostgreSQL, with the application
started by ``scripts/web.sh`` and opened at its ``MFA_WEB_URL``
(``http://localhost:<port>``: a secure context, and a domain that can be
a relying party id).
"""

from __future__ import annotations

import base64
import pathlib
import secrets

import pytest
from selenium.webdriver.common.virtual_authenticator import Credential, VirtualAuthenticatorOptions

import libmfa
from person import Person

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --- the virtual authenticator -----------------------------------------------------------


def plug_in(driver, protocol="ctap2", uv=True, resident=False, platform=False, verifies=None) -> None:
    """Replace the browser's authenticator by a new one (with no credential).

    ``uv``: it can verify the user (a PIN or a fingerprint); ``verifies``:
    whether that verification succeeds (default: ``uv``); ``platform``: built
    into the device (a passkey provider) rather than a USB key.
    """
    unplug(driver)
    options = VirtualAuthenticatorOptions()
    options.protocol = (VirtualAuthenticatorOptions.Protocol.CTAP2 if protocol == "ctap2"
                        else VirtualAuthenticatorOptions.Protocol.U2F)
    options.transport = (VirtualAuthenticatorOptions.Transport.INTERNAL if platform
                         else VirtualAuthenticatorOptions.Transport.USB)
    options.has_resident_key = resident
    options.has_user_verification = uv
    options.is_user_verified = uv if verifies is None else verifies
    options.is_user_consenting = True
    driver.add_virtual_authenticator(options)


def unplug(driver) -> None:
    """Remove the browser's authenticator, if it has one (its credentials go with it)."""
    if driver.virtual_authenticator_id is not None:
        driver.remove_virtual_authenticator()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --- the people ----------------------------------------------------------------------------


def new_person(server, browser, label: str) -> Person:
    """A new account, signed up and verified, signed in, at the application's own address."""
    browser.delete_all_cookies()
    person = Person(browser, server.public_url, server.store_kind)
    person.sign_up("%s-%s@example.com" % (label, secrets.token_hex(4)))
    person.verify_email()
    assert person.find("#email-status").text == "verified"
    return person


def register(person: Person, name: str, fallback: bool = False) -> None:
    """Add a key from the account page, as a person does: the button, a name, the key's answer."""
    person.open("/account")
    person.click("#add-webauthn")
    assert person.path == "/factors/webauthn/enroll", person.flashes()
    person.type("#display-name", name)
    if fallback:
        drop_to_json(person)
    person.click("#register")


def sign_in(person: Person, name: str, kind: str, fallback: bool = False) -> None:
    """Sign out, the password, then the key (:func:`use_key`)."""
    person.sign_out()
    person.sign_in_password()
    use_key(person, name, kind, fallback)


def use_key(person: Person, name: str, kind: str, fallback: bool = False) -> None:
    """In the hint chooser, the key's hint (checked: its name and kind), then the key.

    When the key was the one signed in with last time, the chooser started
    its prompt by itself: then the key has answered already (checked: it
    was this key's prompt), unless the browser refused it.
    """
    person.after_auto_key()
    if person.path != "/signin/second-factor":
        return  # the prompt that started by itself was answered
    choice = [hint for hint in person.all('#hints a[data-factor="webauthn"]') if name in hint.text]
    assert choice and kind in choice[0].find_element("css selector", ".kind").text, person.text()
    person.follow(choice[0])
    assert person.path.startswith("/factors/webauthn/sign-in/")
    assert person.find("#credential-name").text == name
    if fallback:
        drop_to_json(person)
    person.click("#use-key")


def drop_to_json(person: Person) -> None:
    """Make the page's browser one without ``PublicKeyCredential.toJSON`` (the script then builds the JSON)."""
    person.driver.execute_script("delete PublicKeyCredential.prototype.toJSON;")
    assert person.driver.execute_script("return typeof PublicKeyCredential.prototype.toJSON") == "undefined"


def listed_kind(person: Person, name: str) -> str:
    """The kind the account page lists for the factor named ``name``."""
    person.open("/account")
    rows = [row for row in person.all('#factors tr[data-factor="webauthn"]')
            if row.find_element("css selector", ".name").text == name]
    assert rows, person.text()
    return rows[0].find_element("css selector", ".kind").text


def operator(server) -> libmfa.Context:
    """libmfa on the application's store, as an operator's tool opens it (the configuration is shared)."""
    key = base64.b64decode((pathlib.Path(server.instance) / "master-key").read_text())
    return libmfa.Context(server.store, master_key=key, key_id="web-1")


@pytest.fixture(autouse=True)
def no_authenticator_left(browser):
    yield
    unplug(browser)


# --- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol,uv,fallback", [("ctap2", True, False), ("ctap2", False, False),
                                                  ("u2f", False, True)],
                         ids=["ctap2-uv", "ctap2-no-uv", "u2f-without-toJSON"])
def test_register_a_security_key_and_sign_in_with_it(server, browser, protocol, uv, fallback):
    person = new_person(server, browser, protocol)
    plug_in(browser, protocol, uv=uv)
    register(person, "Key %s" % protocol.upper(), fallback)
    assert person.path == "/account", person.flashes()
    assert "Key %s (security key) is enrolled" % protocol.upper() in person.flashes("success")[0]
    assert listed_kind(person, "Key %s" % protocol.upper()) == "Security key"
    credentials = browser.get_credentials()
    assert len(credentials) == 1
    assert credentials[0].rp_id == ("localhost" if protocol == "ctap2" else None)  # U2F keys know no rp id
    sign_in(person, "Key %s" % protocol.upper(), "Security key", fallback)
    assert person.path == "/account", person.flashes()
    assert browser.get_credentials()[0].sign_count >= 1


def test_requiring_user_verification_refuses_a_key_without_it(server, browser):
    person = new_person(server, browser, "uv")
    with operator(server) as ctx:
        ctx.update_config({"webauthn": {"userVerification": "required"}})
        try:
            # The browser itself refuses: the options ask for verification the key cannot do.
            plug_in(browser, "u2f", uv=False)
            person.open("/factors/webauthn/enroll")
            person.press("#register")
            message = person.wait_for(".webauthn-error").text
            assert "requires a key that checks a PIN" in message and "(NotAllowedError)" in message
            assert browser.get_credentials() == []
            # Options made before the policy changed: the key answers without verification, libmfa refuses.
            plug_in(browser, "ctap2", uv=False)
            ctx.update_config({"webauthn": {"userVerification": "preferred"}})
            person.open("/factors/webauthn/enroll")
            ctx.update_config({"webauthn": {"userVerification": "required"}})
            person.type("#display-name", "Old key")
            person.click("#register")
            assert person.path == "/factors/webauthn/enroll?name=Old+key"
            assert person.find("#display-name").get_attribute("value") == "Old key"
            errors = person.flashes("error")
            assert errors and "checks it's you" in errors[0] and "(USER_VERIFICATION_REQUIRED)" in errors[0]
            person.screenshot("webauthn-uv-required")
            # A key that verifies the user registers and signs in under the same policy.
            plug_in(browser, "ctap2", uv=True)
            register(person, "Verifying key")
            assert person.path == "/account", person.flashes()
            sign_in(person, "Verifying key", "Security key")
            assert person.path == "/account", person.flashes()
            # ... and one whose verification fails (a wrong fingerprint) gets nowhere.
            credentials = browser.get_credentials()
            plug_in(browser, "ctap2", uv=True, verifies=False)
            browser.add_credential(credentials[0])
            person.sign_out()
            person.sign_in_password()
            person.choose("webauthn")
            person.press("#use-key")
            assert "(NotAllowedError)" in person.wait_for(".webauthn-error").text
            assert person.path.startswith("/factors/webauthn/sign-in/")
        finally:
            ctx.update_config({"webauthn": {"userVerification": "preferred"}})


def test_a_passkey_with_a_resident_key_and_removing_it_behind_step_up(server, browser):
    person = new_person(server, browser, "passkey")
    plug_in(browser, "ctap2", uv=True, resident=True, platform=True)
    register(person, "This laptop")
    assert person.path == "/account", person.flashes()
    # A resident key that verified the user: a passkey that also signs in without a password.
    assert "This laptop (device-bound passkey) is enrolled" in person.flashes("success")[0]
    assert listed_kind(person, "This laptop") == "Passkey"
    credentials = browser.get_credentials()
    assert len(credentials) == 1 and credentials[0].is_resident_credential  # a discoverable credential
    assert credentials[0].user_handle  # libmfa's user handle for this user, kept by the authenticator
    sign_in(person, "This laptop", "Passkey")
    assert person.path == "/account", person.flashes()
    # Removing it: the password, then a second factor again (this passkey), then the confirmation.
    person.click('#factors tr[data-factor="webauthn"] .remove')
    assert person.path.startswith("/reauth")
    person.type("#password", person.password)
    person.click("#submit")
    # The passkey signed in with last time: its prompt starts by itself, and it answers.
    person.after_auto_key()
    assert person.path.endswith("/remove"), person.flashes()
    person.click("#confirm-remove")
    assert "Removed This laptop" in person.flashes("success")[0]
    assert not person.all('#factors tr[data-factor="webauthn"]')


def test_a_cloned_key_is_refused_shown_and_audited(server, browser):
    person = new_person(server, browser, "clone")
    person.click("#generate-recovery")  # to come back in after the key is refused
    codes = [element.text for element in person.all("#recovery-codes code")]
    person.click("#done")
    plug_in(browser, "ctap2", uv=True)
    register(person, "Office key")
    assert person.path == "/account", person.flashes()
    for _ in range(2):
        sign_in(person, "Office key", "Security key")
        assert person.path == "/account", person.flashes()
    original = browser.get_credentials()[0]
    assert original.sign_count >= 2
    # A copy of the key made before those sign-ins: the same private key on another authenticator,
    # its counter back at 0.
    plug_in(browser, "ctap2", uv=True)
    browser.add_credential(Credential.create_non_resident_credential(
        unb64(original.id), original.rp_id, unb64(original.private_key), 0))
    sign_in(person, "Office key", "Security key")
    assert person.path.startswith("/factors/webauthn/sign-in/")
    errors = person.flashes("error")
    assert errors and "signature counter lower than before" in errors[0] and "(CREDENTIAL_CLONED)" in errors[0]
    person.screenshot("webauthn-cloned")
    # Audited: in the server's log, and on the account page once the person is back in.
    log = server.log.read_text(errors="replace")
    assert "mfa_web.audit INFO SIGN_IN_FAILURE" in log and "factor=webauthn" in log
    assert "detail=CREDENTIAL_CLONED" in log
    person.click(".aside a")  # "Use another method"
    person.choose("recovery")
    person.enter_code(codes[0])
    assert person.path == "/account", person.flashes()
    refused = [item for item in person.all("#activity li") if item.get_attribute("data-detail") == "CREDENTIAL_CLONED"]
    assert refused and "Refused a sign-in with Office key · Security key" in refused[0].text


def test_every_kind_in_the_hint_chooser(server, browser):
    """Every kind at once (five factors, the most a user may have), and the pages for the README:
    a security key being registered, the hint chooser and the account page."""
    person = new_person(server, browser, "dana")
    person.click("#add-totp")
    person.scan_qr_code(person.screenshot("totp-enroll-dana"))
    person.type("#display-name", "Pixel authenticator")
    person.enter_code(person.next_code())
    person.phone = "+1510555%04d" % secrets.randbelow(10000)
    person.click("#add-phone")
    person.type("#phone-number", person.phone)
    person.type("#display-name", "Work phone")
    before = person.sms_count()
    person.click("#send")
    person.enter_code(person.read_sms(before))
    assert person.path == "/account", person.flashes()
    plug_in(browser, "ctap2", uv=True)
    person.click("#add-webauthn")
    person.type("#display-name", "YubiKey 5 NFC")
    person.screenshot("webauthn-enroll")
    person.click("#register")
    assert person.path == "/account", person.flashes()
    plug_in(browser, "ctap2", uv=True, resident=True, platform=True)
    register(person, "This laptop")
    assert person.path == "/account", person.flashes()
    person.click("#generate-recovery")
    person.click("#done")
    person.sign_out()
    person.sign_in_password()
    # Oldest first; factors enrolled within the same second come in the order of their random ids.
    hints = {hint.find_element("css selector", "strong").text: (hint.get_attribute("data-factor"),
                                                                hint.find_element("css selector", ".kind").text)
             for hint in person.all("#hints a")}
    assert hints == {"Pixel authenticator": ("totp", "Authenticator app"), "Work phone": ("phone", "Phone (SMS)"),
                     "YubiKey 5 NFC": ("webauthn", "Security key"), "This laptop": ("webauthn", "Passkey")}
    assert "10 codes left" in person.find("#recovery-fallback").text  # a way out, not one of the choices
    person.screenshot("webauthn-second-factor")
    use_key(person, "This laptop", "Passkey")
    assert person.path == "/account", person.flashes()
    person.screenshot("webauthn-account")
