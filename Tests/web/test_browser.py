"""End to end in headless Chromium: the example web application as a person uses it.

One person, one scenario, in order (each test goes on from where the
previous one left the browser), on the embedded SQLite store and then on
PostgreSQL. The application is started by the README's command
(``scripts/web.sh``; with ``MFA_WEB_STORE`` for PostgreSQL).
Screenshots of the main pages go to ``build/web-artifacts/``.
"""

from __future__ import annotations

import secrets
import time

import pytest

from person import Person

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def alice(server, browser):
    """The person, on this run's server; a second session cookie kept by the tests that need it."""
    browser.delete_all_cookies()
    person = Person(browser, server.url, server.store_kind)
    person.phone = "+1510555%04d" % secrets.randbelow(10000)
    person.saved = {}
    return person


def test_sign_up_and_verify_the_email(alice):
    alice.sign_up("alice-%s@example.com" % secrets.token_hex(4))
    assert alice.path == "/account"
    assert alice.find("#email-status").text == "not verified"
    assert alice.find("#add-totp").get_attribute("disabled") is not None
    alice.open("/dev/outbox")
    links = [row for row in alice.all("#mail tbody tr") if alice.email in row.text]
    assert links, alice.text()
    alice.click("#mail tbody tr .verify-link")
    assert alice.path == "/account"
    assert alice.find("#email-status").text == "verified"
    assert any("is verified" in message for message in alice.flashes("success"))


def test_enroll_totp_by_scanning_the_qr_code(alice):
    alice.click("#add-totp")
    assert alice.path == "/factors/totp/enroll"
    screenshot = alice.screenshot("totp-enroll")
    uri = alice.scan_qr_code(screenshot)
    assert uri.startswith("otpauth://totp/")
    assert alice.app.name == alice.email and alice.app.issuer == "libmfa example"
    assert alice.find("#totp-key").text.replace(" ", "") == alice.app.secret  # the key as text is the same key
    alice.type("#display-name", "Pixel authenticator")
    alice.enter_code(alice.next_code())
    assert alice.path == "/account", alice.flashes()
    row = alice.find('#factors tr[data-factor="totp"]')
    assert "Pixel authenticator" in row.text and "Authenticator app" in row.text
    assert time.strftime("%Y-%m-%d", time.gmtime()) in row.text


def test_sign_out_and_sign_in_with_the_app(alice):
    alice.sign_out()
    assert alice.path.startswith("/signin")
    alice.open("/account")
    assert alice.path.startswith("/signin")  # signed out for real
    alice.sign_in_password()
    assert alice.path == "/signin/second-factor"
    hints = alice.all("#hints a")
    assert len(hints) == 1 and "Pixel authenticator" in hints[0].text and "authenticator app" in hints[0].text
    alice.choose("totp")
    code = alice.next_code()
    alice.enter_code(code)
    assert alice.path == "/account"
    alice.saved["used_code"] = code


def test_a_wrong_code_is_shown_as_an_error(alice):
    alice.sign_out()
    alice.sign_in_password()
    alice.choose("totp")
    alice.enter_code(alice.wrong_code())
    assert alice.path.startswith("/factors/totp/sign-in/")
    errors = alice.flashes("error")
    assert errors and "not right" in errors[0] and "INVALID_VERIFICATION_CODE" in errors[0]


def test_a_replayed_code_is_refused(alice):
    alice.enter_code(alice.saved["used_code"])  # the code that signed in a moment ago
    assert alice.path.startswith("/factors/totp/sign-in/")
    assert "INVALID_VERIFICATION_CODE" in alice.flashes("error")[0]
    alice.enter_code(alice.next_code())
    assert alice.path == "/account"


def test_enroll_a_phone_through_the_outbox(alice):
    alice.click("#add-phone")
    alice.type("#phone-number", "(510) 555-0123")  # not E.164: refused with a clear message
    alice.click("#send")
    assert "international format" in alice.flashes("error")[0]
    before = alice.sms_count()
    alice.type("#phone-number", alice.phone)
    alice.type("#display-name", "Work phone")
    alice.click("#send")  # the page fetches its app-check token first
    assert alice.path == "/factors/phone/enroll/verify", alice.flashes()
    alice.enter_code(alice.read_sms(before))
    assert alice.path == "/account", alice.flashes()
    row = alice.find('#factors tr[data-factor="phone"]')
    masked = "+1******%s" % alice.phone[-4:]
    assert "Work phone" in row.text and masked in row.text and alice.phone not in row.text


def test_sign_in_with_an_sms_code(alice):
    alice.sign_out()
    alice.sign_in_password()
    assert len(alice.all("#hints a")) == 2
    alice.choose("phone")
    before = alice.sms_count()
    alice.click("#send")
    assert "We sent a code" in alice.flashes("info")[0]
    alice.enter_code(alice.read_sms(before))
    assert alice.path == "/account", alice.flashes()


def test_recovery_codes_and_the_hint_chooser(alice):
    alice.click("#generate-recovery")
    codes = [element.text for element in alice.all("#recovery-codes code")]
    assert len(codes) == 10
    alice.click("#done")
    assert "10 codes left" in alice.find('#factors tr[data-factor="recovery"]').text
    alice.screenshot("account")
    alice.open("/factors/recovery/codes")
    assert alice.path == "/account"  # shown once only
    alice.sign_out()
    alice.sign_in_password()
    # The factor used last first (the phone); recovery codes are the way out below the hints.
    assert [a.get_attribute("data-factor") for a in alice.all("#hints a")] == ["phone", "totp"]
    assert "10 codes left" in alice.find("#recovery-fallback").text
    alice.screenshot("second-factor")
    alice.choose("recovery")
    alice.enter_code(codes[0])
    assert alice.path == "/account"
    assert "9 left" in alice.flashes("warning")[0]


def test_unenroll_behind_step_up_and_the_old_session_is_refused(alice):
    old = alice.session_cookie()  # this browser's session, kept as another device would keep it
    alice.use_session_cookie(None)
    alice.sign_in_password()  # a second session
    alice.choose("totp")
    alice.enter_code(alice.next_code())
    current = alice.session_cookie()
    assert current["value"] != old["value"]
    alice.click('#factors tr[data-factor="phone"] .remove')
    assert alice.path.startswith("/reauth"), "removing a factor asks to confirm it's you"
    alice.type("#password", alice.password)
    alice.click("#submit")
    assert alice.path == "/signin/second-factor"
    alice.choose("totp")
    alice.enter_code(alice.next_code())
    assert alice.path.startswith("/account/factors/") and alice.path.endswith("/remove")
    alice.click("#confirm-remove")
    assert alice.path == "/account"
    assert "Removed Work phone" in alice.flashes("success")[0]
    assert not alice.all('#factors tr[data-factor="phone"]')
    alice.open("/account")
    assert alice.path == "/account"  # this session got a new credential
    alice.use_session_cookie(old)
    alice.open("/account")
    assert alice.path.startswith("/signin"), "the session from before the unenrollment is refused"
    assert "USER_TOKEN_EXPIRED" in alice.flashes("error")[0]
    alice.use_session_cookie(current)
    alice.open("/account")
    assert alice.path == "/account"


def test_a_form_without_its_csrf_token_is_refused(alice):
    rows = len(alice.all("#factors tbody tr"))
    alice.driver.execute_script(
        "document.querySelectorAll('input[name=csrf_token]').forEach(function (e) { e.remove(); });")
    alice.click("#generate-recovery")
    assert alice.find("h1").text == "Form refused"
    assert "security token" in alice.find("#error-message").text
    assert "Traceback" not in alice.text()
    alice.open("/account")
    assert len(alice.all("#factors tbody tr")) == rows
