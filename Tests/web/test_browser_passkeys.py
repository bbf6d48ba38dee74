"""Passkeys as the way in, through the example web application, in headless Chromium.

Chromium's virtual authenticator is a passkey provider here (CTAP2 on the
platform transport, with resident keys and user verification). A person
adds a passkey from the account page ("Add a passkey": libmfa's options ask
for a resident key and user verification) and then signs in with it alone:
from the email field, whose autofill offers the site's passkeys (the page
asks with ``mediation: "conditional"``; Chromium's virtual authenticator
picks its passkey for the site as a person would in the autofill), and with
the "Sign in with a passkey" button (the browser's own dialog). A person
with two passkeys on two devices signs in with either; a removed passkey is
refused, with the one answer that tells nothing; a passkey of another site
is never offered by the browser, and a response made for another rp id and
posted anyway is refused. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import secrets
import sys

import pytest
from selenium.webdriver.common.virtual_authenticator import Credential

from conftest import REPO
from person import Person
from test_browser_webauthn import new_person, plug_in, unplug, use_key  # noqa: F401

sys.path.insert(0, str(REPO / "Tests" / "python"))
from webauthn_authenticator import Authenticator  # noqa: E402  (Tests/python)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

NOT_ACCEPTED = "This passkey was not accepted."


@pytest.fixture(autouse=True)
def no_authenticator_left(browser):
    yield
    unplug(browser)


def passkey_device(browser) -> None:
    """A new device whose platform authenticator keeps passkeys and verifies its user."""
    plug_in(browser, "ctap2", uv=True, resident=True, platform=True)


def add_passkey(person: Person, name: str) -> None:
    """From the account page: "Add a passkey", a name, the device's answer."""
    person.open("/account")
    person.click("#add-passkey")
    assert person.path == "/factors/webauthn/enroll?passkey=1", person.flashes()
    person.type("#display-name", name)
    person.click("#register")
    assert person.path == "/account", person.flashes()
    assert "You can sign in with it alone" in person.flashes("success")[0]


def listed(person: Person) -> dict[str, tuple[str, str]]:
    """The account page's WebAuthn factors: name -> (kind, details)."""
    person.open("/account")
    return {row.find_element("css selector", ".name").text: (row.find_element("css selector", ".kind").text,
                                                            row.find_element("css selector", ".detail").text)
            for row in person.all('#factors tr[data-factor="webauthn"]')}


def with_the_button(person: Person) -> None:
    """The sign-in page's "Sign in with a passkey" button; waits for the page that follows."""
    person.open("/signin")
    person.click("#passkey-sign-in")


def from_the_email_field(person: Person) -> None:
    """A click in the email field: its autofill offers the passkey, which is taken."""
    person.open("/signin")
    assert person.find("#email").get_attribute("autocomplete") == "username webauthn"
    person.follow(person.find("#email"))


def test_sign_in_with_a_passkey_from_the_email_field_and_with_the_button(server, browser):
    person = new_person(server, browser, "passkey")
    passkey_device(browser)
    add_passkey(person, "This laptop")
    assert listed(person) == {"This laptop": ("Passkey", "device-bound passkey")}
    [credential] = browser.get_credentials()
    assert credential.is_resident_credential and credential.rp_id == "localhost"
    person.sign_out()
    from_the_email_field(person)
    assert person.path == "/account", person.flashes()
    assert person.flashes("success") == ["Signed in with your passkey."]
    assert person.find("#account-email").text == person.email
    person.screenshot("passkey-signed-in")
    person.sign_out()
    with_the_button(person)
    assert person.path == "/account", person.flashes()
    assert browser.get_credentials()[0].sign_count >= 2
    # Audited as a passkey sign-in, in the server's log.
    log = server.log.read_text(errors="replace")
    assert "PASSKEY_SIGN_IN_SUCCESS" in log
    # The password still works, and the passkey is a second factor there.
    person.sign_out()
    person.sign_in_password()
    use_key(person, "This laptop", "Passkey")
    assert person.path == "/account", person.flashes()


def test_a_person_with_two_passkeys_signs_in_with_either(server, browser):
    person = new_person(server, browser, "two")
    passkey_device(browser)
    add_passkey(person, "Laptop")
    [laptop] = browser.get_credentials()
    passkey_device(browser)  # the phone: another device
    add_passkey(person, "Phone")
    [phone] = browser.get_credentials()
    assert laptop.id != phone.id
    assert listed(person) == {"Laptop": ("Passkey", "device-bound passkey"),
                              "Phone": ("Passkey", "device-bound passkey")}
    person.sign_out()
    with_the_button(person)  # on the phone
    assert person.path == "/account", person.flashes()
    person.sign_out()
    passkey_device(browser)  # back on the laptop
    browser.add_credential(laptop)
    from_the_email_field(person)
    assert person.path == "/account", person.flashes()
    assert browser.get_credentials()[0].sign_count >= 1


def test_a_removed_passkey_is_refused(server, browser):
    person = new_person(server, browser, "removed")
    passkey_device(browser)
    add_passkey(person, "Old phone")
    person.click('#factors tr[data-factor="webauthn"] .remove')
    assert person.path.startswith("/reauth")
    person.type("#password", person.password)
    person.click("#submit")
    use_key(person, "Old phone", "Passkey")
    person.click("#confirm-remove")
    assert "Removed Old phone" in person.flashes("success")[0]
    person.sign_out()
    # The device still holds the passkey and offers it; the site no longer knows it.
    with_the_button(person)
    assert person.path.startswith("/signin"), person.flashes()
    errors = person.flashes("error")
    assert errors and NOT_ACCEPTED in errors[0] and "(INVALID_VERIFICATION_CODE)" in errors[0]
    person.screenshot("passkey-removed")
    # A passkey the site never saw reads the same.
    passkey_device(browser)
    browser.add_credential(Credential.create_resident_credential(
        secrets.token_bytes(16), "localhost", secrets.token_bytes(32),
        Authenticator("ES256").key.private_bytes(*_pkcs8()), 0))
    with_the_button(person)
    assert person.flashes("error") == errors


def test_a_passkey_of_another_site_is_refused(server, browser):
    person = new_person(server, browser, "other-site")
    person.sign_out()
    passkey_device(browser)
    browser.add_credential(Credential.create_resident_credential(
        secrets.token_bytes(16), "example.org", secrets.token_bytes(32),
        Authenticator("ES256").key.private_bytes(*_pkcs8()), 0))
    # The browser never offers it here: nothing to pick, not signed in.
    with_the_button_no_page(person)
    message = person.wait_for("#passkey-form .webauthn-error").text
    assert "(NotAllowedError)" in message and person.path.startswith("/signin")
    # A response made for another rp id, posted anyway, is refused by libmfa.
    person.open("/signin")
    options = json.loads(person.find("#passkey-form").get_attribute("data-webauthn-options"))
    forged = Authenticator("ES256")
    forged.origin = server.public_url
    forged.rp_id_override = "example.org"
    forged.user_handle = secrets.token_bytes(32)
    response = json.dumps(forged.assert_(options))
    person.driver.execute_script(
        "const form = document.getElementById('passkey-form');"
        "form.querySelector('input[name=credential]').value = arguments[0]; form.submit();", response)
    person.wait_loaded()
    errors = person.flashes("error")
    assert errors and "belongs to another site" in errors[0] and "(RP_ID_MISMATCH)" in errors[0], errors


def with_the_button_no_page(person: Person) -> None:
    """The passkey button on a sign-in page that stays (the browser found no passkey)."""
    person.open("/signin")
    person.press("#passkey-sign-in")


def _pkcs8():
    from cryptography.hazmat.primitives import serialization

    return serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
