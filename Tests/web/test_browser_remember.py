"""End to end in headless Chromium: "Remember this browser", email codes through the
outbox, and the sign-in pages as people know them from the big sites, on the embedded
SQLite store and on PostgreSQL (``scripts/web.sh``).

One person per test. A second browser is a second headless Chromium with a profile of
its own (no cookie of the first). Screenshots go to ``build/web-artifacts/``.
"""

from __future__ import annotations

import pathlib
import re
import secrets
import time

import pytest
from selenium.webdriver.common.by import By

import chromium
from person import Person

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def new_person(server, browser, label: str) -> Person:
    """A new account, signed up and verified, with an authenticator app, signed in."""
    browser.delete_all_cookies()
    person = Person(browser, server.url, server.store_kind + "-" + label)
    person.sign_up("%s-%s@example.com" % (label, secrets.token_hex(4)))
    person.verify_email()
    person.click("#add-totp")
    person.scan_qr_code(person.screenshot("totp-enroll"))
    person.type("#display-name", "Pixel authenticator")
    person.enter_code(person.next_code())
    assert person.path == "/account", person.flashes()
    return person


def mailed_code(person: Person, address: str) -> str:
    """The newest code mailed to ``address``, read in the outbox (a new tab)."""
    original = person.driver.current_window_handle
    person.driver.switch_to.new_window("tab")
    try:
        person.open("/dev/outbox")
        bodies = [row.find_element(By.CSS_SELECTOR, ".message").text for row in person.all("#mail tbody tr")
                  if row.find_element(By.CSS_SELECTOR, ".to").text == address]
    finally:
        person.driver.close()
        person.driver.switch_to.window(original)
    assert bodies, "no email to %s" % address
    return re.match(r"(\d{6}) ", bodies[0]).group(1)


def test_remember_this_browser_here_and_not_in_another(server, browser):
    person = new_person(server, browser, "remember")
    assert "other session" not in " ".join(person.flashes("success")), "there was no other session"
    person.sign_out()
    person.sign_in_password()
    assert "Signing in as " + person.email in person.find("#signing-in-as").text
    person.choose("totp")
    assert "Remember this browser for 30 days" in person.find("label.check").text
    person.find("#remember").click()
    person.enter_code(person.next_code())
    assert person.path == "/account", person.flashes()
    row = person.find("#devices tr.this-browser")
    assert "Chrome on Linux" in row.text and "this browser" in row.text
    # The same browser: the password alone.
    person.sign_out()
    person.sign_in_password()
    assert person.path == "/account", "no second factor in the remembered browser"
    assert any("remembered browser" in message for message in person.flashes("info"))
    # Another browser (a profile of its own): the second factor is asked for.
    other = chromium.headless(1100, 900)
    try:
        elsewhere = Person(other, server.url, server.store_kind + "-elsewhere")
        elsewhere.email = person.email
        elsewhere.sign_in_password()
        assert elsewhere.path == "/signin/second-factor"
    finally:
        other.quit()
    # Forgotten from the account page: the second factor is back in this browser too.
    person.screenshot("remembered-browsers")
    person.follow(person.find("#devices tr.this-browser .forget"))
    assert any("Forgotten" in message for message in person.flashes("success"))
    assert not person.all("#devices")
    person.sign_out()
    person.sign_in_password()
    assert person.path == "/signin/second-factor"
    person.choose("totp")
    person.enter_code(person.next_code())
    assert person.path == "/account"


def test_email_codes_through_the_outbox(server, browser):
    person = new_person(server, browser, "mail")
    address = "work-%s@example.org" % secrets.token_hex(3)
    person.click("#add-email")
    person.type("#address", address)
    person.type("#display-name", "Work mail")
    person.click("#send")
    assert person.path == "/factors/email/enroll/verify", person.flashes()
    person.enter_code(mailed_code(person, address))
    assert person.path == "/account", person.flashes()
    row = person.find('#factors tr[data-factor="email"]')
    assert "Work mail" in row.text and address in row.text and "Email" in row.text
    person.sign_out()
    person.sign_in_password()
    hint = person.find('#hints a[data-factor="email"]')
    assert address not in hint.text and re.search(r"w\*+@e\*+\.org", hint.text), hint.text
    person.choose("email")
    person.click("#send")
    assert "We sent a code" in person.flashes("info")[0]
    person.screenshot("email-sign-in")
    person.enter_code(mailed_code(person, address))
    assert person.path == "/account", person.flashes()
    # The email factor is now the one used last: it comes first.
    person.sign_out()
    person.sign_in_password()
    assert [a.get_attribute("data-factor") for a in person.all("#hints a")] == ["email", "totp"]
    person.choose("totp")
    person.enter_code(person.next_code())
    # Removed behind step-up, like any factor.
    person.click('#factors tr[data-factor="email"] .remove')
    person.type("#password", person.password)
    person.click("#submit")
    person.choose("totp")
    person.enter_code(person.next_code())
    person.click("#confirm-remove")
    assert "Removed Work mail" in person.flashes("success")[0]
    assert not person.all('#factors tr[data-factor="email"]')


def test_sign_in_pages_as_people_know_them(server, browser, tmp_path):
    person = new_person(server, browser, "polish")
    # /signin while signed in goes to the account page.
    person.open("/signin")
    assert person.path == "/account"
    # Recovery codes: Download, Copy and Print.
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path),
                                                            "eventsEnabled": True})
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url,
                                                          "permissions": ["clipboardReadWrite",
                                                                          "clipboardSanitizedWrite"]})
    person.click("#generate-recovery")
    codes = [element.text for element in person.all("#recovery-codes code")]
    person.press("#download-codes")
    downloaded = tmp_path / "recovery-codes.txt"
    deadline = time.monotonic() + 20
    while not downloaded.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert downloaded.exists() and all(code in downloaded.read_text() for code in codes)
    person.press("#copy-codes")
    person.wait_for("#keep-status")
    copied = browser.execute_async_script(
        "navigator.clipboard.readText().then(arguments[0], () => arguments[0](''));")
    assert all(code in copied for code in codes), person.find("#keep-status").text
    browser.execute_script("window.print = () => { window.__printed = true; };")
    person.press("#print-codes")
    assert browser.execute_script("return window.__printed === true;")
    person.screenshot("recovery-codes")
    person.click("#done")
    # A phone number typed with spaces, dashes, dots and brackets is shown back in E.164 first.
    digits = "510555%04d" % secrets.randbelow(10000)
    person.phone = "+1" + digits
    person.click("#add-phone")
    person.type("#phone-number", "+1 (%s) %s-%s" % (digits[:3], digits[3:6], digits[6:]))
    before = person.sms_count()
    person.click("#send")
    assert person.find("#e164-number").text == person.phone
    assert person.sms_count() == before, "nothing is sent before the number is shown back"
    person.screenshot("phone-e164")
    person.click("#send")
    assert person.path == "/factors/phone/enroll/verify", person.flashes()
    person.enter_code(person.read_sms(before))
    assert person.path == "/account"
    # The chooser: the factor used last first, recovery codes a way out below, the account named.
    person.sign_out()
    person.sign_in_password()
    assert [a.get_attribute("data-factor") for a in person.all("#hints a")] == ["totp", "phone"]
    assert "Use a recovery code" in person.find("#recovery-fallback").text
    assert person.email in person.find("#signing-in-as").text
    person.choose("phone")
    before = person.sms_count()
    person.click("#send")
    person.enter_code(person.read_sms(before))
    person.sign_out()
    person.sign_in_password()
    assert [a.get_attribute("data-factor") for a in person.all("#hints a")] == ["phone", "totp"]
    person.screenshot("second-factor-last-used-first")
    person.choose("recovery")
    person.enter_code(codes[0])
    assert person.path == "/account"
