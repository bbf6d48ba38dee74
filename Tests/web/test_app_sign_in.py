"""The example web application's sign-in as people know it from the big sites, through
Flask's test client: "Remember this browser" (the cookie, its flags, what it skips and
what it never skips), remembered browsers on the account page, email codes, the hint
chooser's order and its recovery-code way out, the account signing in shown, phone
numbers typed with punctuation, /signin while signed in, and "your other sessions
were signed out" only when there were some."""

from __future__ import annotations

import re

import pyotp

import libmfa

from client import PASSWORD, Browser, csrf_of, enroll_totp
from client import alice, app, clock  # noqa: F401 (fixtures)
from test_app import app_check_token, sms_sent


def chooser(person) -> str:
    return person.get("/signin/second-factor").get_data(as_text=True)


def sign_in_with_totp(person, app_totp, clock, remember=False):
    """The password, then the app's code on its page; the last response."""
    if person.get("/account").status_code == 200:
        person.post("/account", "/signout")
    assert person.sign_in().headers["Location"] == "/signin/second-factor"
    link = re.search(r'href="(/factors/totp/sign-in/[^"]+)"', chooser(person)).group(1)
    clock.advance(30)
    data = {"code": app_totp.at(clock())}
    if remember:
        data["remember"] = "yes"
    return person.post(link, link, data)


def device_cookie(person):
    return person.client.get_cookie("mfa_device")


def test_signin_while_signed_in_goes_to_the_account_page(app, alice):
    assert alice.get("/signin").headers["Location"] == "/account"
    assert alice.get("/signin?next=/account%23factors").headers["Location"] == "/account#factors"
    alice.post("/account", "/signout")
    assert alice.get("/signin").status_code == 200


def test_remember_this_browser(app, alice, clock):
    app_totp = enroll_totp(alice, clock)
    alice.post("/account", "/signout")
    alice.sign_in()
    link = re.search(r'href="(/factors/totp/sign-in/[^"]+)"', chooser(alice)).group(1)
    page = alice.get(link).get_data(as_text=True)
    assert "Remember this browser for 30 days" in page and 'id="signing-in-as"' in page and alice.email in page
    response = sign_in_with_totp(alice, app_totp, clock, remember=True)
    assert response.headers["Location"] == "/account"
    header = [value for value in response.headers.getlist("Set-Cookie") if value.startswith("mfa_device=")][0]
    for flag in ("HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"):
        assert flag in header
    listed = alice.get("/account").get_data(as_text=True)
    assert 'id="devices"' in listed and "this browser" in listed
    # The next sign-in in this browser needs the password alone ...
    alice.post("/account", "/signout")
    clock.advance(60)
    assert alice.sign_in().headers["Location"] == "/account"
    assert "remembered browser" in alice.get("/account").get_data(as_text=True)
    # ... but a step-up (removing a factor) still asks for a second factor.
    remove = "/account/factors/%s/remove" % re.search(r'data-enrollment-id="([^"]+)"', listed).group(1)
    clock.advance(301)
    response = alice.post("/reauth?next=" + remove, "/reauth", {"password": PASSWORD, "next": remove})
    assert response.headers["Location"] == "/signin/second-factor"
    assert "Remember this browser" not in alice.get(
        re.search(r'href="(/factors/totp/sign-in/[^"]+)"', chooser(alice)).group(1)).get_data(as_text=True)
    # Another browser (no cookie) is asked for the second factor.
    laptop = Browser(app)
    laptop.email = alice.email
    assert laptop.sign_in().headers["Location"] == "/signin/second-factor"
    # Forgotten from the account page: the cookie goes, and the second factor is back.
    device = re.search(r'data-device-id="([^"]+)"', alice.get("/account").get_data(as_text=True)).group(1)
    response = alice.post("/account", "/account/devices/%s/forget" % device)
    assert any(value.startswith("mfa_device=;") for value in response.headers.getlist("Set-Cookie"))
    assert 'id="devices"' not in alice.get("/account").get_data(as_text=True)
    alice.post("/account", "/signout")
    assert alice.sign_in().headers["Location"] == "/signin/second-factor"


def test_a_stale_remembered_cookie_is_dropped(app, alice, clock):
    app_totp = enroll_totp(alice, clock)
    sign_in_with_totp(alice, app_totp, clock, remember=True)
    assert device_cookie(alice) is not None
    clock.advance(1)
    app.extensions["mfa_web.libmfa"].revoke_tokens(alice.uid())  # a password change at the host
    clock.advance(1)
    response = alice.sign_in()
    assert response.headers["Location"] == "/signin/second-factor"
    assert any(value.startswith("mfa_device=;") for value in response.headers.getlist("Set-Cookie"))


def test_the_chooser_offers_the_last_factor_first_and_recovery_codes_below(app, alice, clock):
    app_totp = enroll_totp(alice, clock)
    assert alice.post("/account", "/factors/recovery/generate").status_code == 302
    alice.get("/factors/recovery/codes")
    clock.advance(1)
    email_factor(app, alice, clock, "alice.work@example.org")
    sign_in_with_totp(alice, app_totp, clock)
    alice.post("/account", "/signout")
    alice.sign_in()
    page = chooser(alice)
    kinds = re.findall(r'<a class="choice[^"]*" href="[^"]+" data-factor="([a-z]+)"', page)
    assert kinds == ["totp", "email"], "the factor used last first; recovery codes not a choice"
    assert 'id="use-recovery-code"' in page and "10 codes left" in page
    assert 'id="signing-in-as"' in page and alice.email in page
    # Signing in with email makes it the first one next time.
    link = re.search(r'href="(/factors/email/sign-in/[^"]+)"', page).group(1)
    clock.advance(31)
    alice.post(link, link, {"action": "send"})
    code = mailed_code(app, "alice.work@example.org")
    assert alice.post(link, link, {"action": "verify", "code": code}).headers["Location"] == "/account"
    alice.post("/account", "/signout")
    alice.sign_in()
    assert re.findall(r'data-factor="([a-z]+)"', chooser(alice))[:2] == ["email", "totp"]


def mailed_code(app, address):
    mail = [m for m in libmfa.read_outbox(app.extensions["mfa_web.mailer"].path) if m["to"] == address]
    assert mail and mail[-1]["code"], mail
    return mail[-1]["code"]


def email_factor(app, person, clock, address):
    response = person.post("/factors/email/enroll", "/factors/email/enroll",
                           {"address": address, "display_name": "Work mail"})
    assert response.headers["Location"] == "/factors/email/enroll/verify", person.get("/account").get_data(True)
    assert address in person.get("/factors/email/enroll/verify").get_data(as_text=True)
    local, domain = address.rsplit("@", 1)  # libmfa keeps the domain in lower case
    response = person.post("/factors/email/enroll/verify", "/factors/email/enroll/verify",
                           {"code": mailed_code(app, local + "@" + domain.lower())})
    assert response.headers["Location"] == "/account"


def test_email_codes(app, alice, clock):
    bad = alice.post("/factors/email/enroll", "/factors/email/enroll", {"address": "not an address"})
    assert bad.headers["Location"] == "/factors/email/enroll"
    assert "INVALID_EMAIL" in alice.get("/factors/email/enroll").get_data(as_text=True)
    email_factor(app, alice, clock, "Alice.Work@Example.ORG")
    listed = alice.get("/account").get_data(as_text=True)
    assert 'data-factor="email"' in listed and "Alice.Work@example.org" in listed
    alice.post("/account", "/signout")
    alice.sign_in()
    page = chooser(alice)
    assert "A*********@e******.org" in page and "Alice.Work" not in page
    link = re.search(r'href="(/factors/email/sign-in/[^"]+)"', page).group(1)
    clock.advance(31)
    alice.post(link, link, {"action": "send"})
    wrong = alice.post(link, link, {"action": "verify", "code": "000000" if mailed_code(
        app, "Alice.Work@example.org") != "000000" else "111111"})
    assert wrong.headers["Location"] == link
    code = mailed_code(app, "Alice.Work@example.org")
    assert alice.post(link, link, {"action": "verify", "code": code}).headers["Location"] == "/account"


def test_a_phone_number_with_punctuation_is_shown_back_in_e164_first(app, alice):
    typed = "+1 (510) 555-0142"
    response = alice.post("/factors/phone/enroll", "/factors/phone/enroll",
                          {"phone_number": typed, "display_name": "Phone", "app_credential": app_check_token(alice)})
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="e164-number">+15105550142<' in page
    assert not sms_sent(app), "nothing is sent before the person sees the number"
    token = app_check_token(alice)
    response = alice.client.post("/factors/phone/enroll", data={
        "csrf_token": csrf_of(alice.get("/factors/phone/enroll")), "phone_number": "+15105550142",
        "confirmed": "+15105550142", "display_name": "Phone", "app_credential": token})
    assert response.headers["Location"] == "/factors/phone/enroll/verify"
    assert [m["to"] for m in sms_sent(app)] == ["+15105550142"]
    for dotted in ("+1.510.555.0142", "+1 510 555 0142", "+1-510-555-0142"):
        page = alice.post("/factors/phone/enroll", "/factors/phone/enroll", {
            "phone_number": dotted, "display_name": "Phone",
            "app_credential": app_check_token(alice)}).get_data(as_text=True)
        assert 'id="e164-number">+15105550142<' in page
    refused = alice.post("/factors/phone/enroll", "/factors/phone/enroll", {
        "phone_number": "(510) 555-0142", "display_name": "Phone", "app_credential": app_check_token(alice)})
    assert refused.headers["Location"] == "/factors/phone/enroll"
    assert "international format" in alice.get("/factors/phone/enroll").get_data(as_text=True)


def test_other_sessions_are_mentioned_only_when_there_were_some(app, alice, clock):
    app_totp = enroll_totp(alice, clock)
    assert "other session" not in alice.get("/account").get_data(as_text=True), "there was none"
    laptop = Browser(app)
    laptop.email = alice.email
    clock.advance(1)
    assert laptop.sign_in().headers["Location"] == "/signin/second-factor"  # half signed in: not a session
    link = re.search(r'href="(/factors/totp/sign-in/[^"]+)"', chooser(laptop)).group(1)
    clock.advance(30)
    assert laptop.post(link, link, {"code": app_totp.at(clock())}).headers["Location"] == "/account"
    clock.advance(1)
    enroll_totp(alice, clock)
    assert "Your other session was signed out." in alice.get("/account").get_data(as_text=True)
    assert laptop.get("/account").headers["Location"] == "/signin"
