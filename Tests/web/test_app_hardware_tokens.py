"""Hardware tokens in the example web application, through Flask's test client: an HOTP
token (codes from pyotp, checked against oathtool) and a YubiKey (OTPs made by Debian's
python3-yubiotp), assigned by an operator (libmfa.Admin, as mfactl does) or claimed from
the account page; the hint chooser lists them, their code forms sign in, and a wrong or
replayed code is refused with its error named."""

from __future__ import annotations

import base64
import pathlib
import re
import subprocess

import pyotp

import libmfa

from client import Browser
from client import alice, app, clock  # noqa: F401 (fixtures)

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "python" / "tools"
SECRET = b"12345678901234567890"  # RFC 4226's test key
HOTP = pyotp.HOTP(base64.b32encode(SECRET).decode("ascii"))
YUBIKEY = ("2b7e151628aed2a6abf7158809cf4f3c", "ca62baca62ba", "vvcccbhbkbgc")  # AES key, private id, public id


def yubikey_otps(session: int, counter: int, count: int) -> list[str]:
    """What the key types at ``count`` touches (python3-yubiotp, under Debian's python)."""
    key, private, public = YUBIKEY
    out = subprocess.run(["/usr/bin/python3", str(TOOLS / "yubikey_otps.py"), key, private, public, str(session),
                          str(counter), str(count)], check=True, capture_output=True, text=True)
    return out.stdout.split()


def admin(app) -> libmfa.Admin:
    return app.extensions["mfa_web.libmfa"].admin("ops:web-tests")


def password_step(person: Browser) -> str:
    """Sign out if signed in, sign in with the password; the chooser's page."""
    if person.get("/account").status_code == 200:
        person.post("/account", "/signout")
    assert person.sign_in().headers["Location"] == "/signin/second-factor"
    return person.get("/signin/second-factor").get_data(as_text=True)


def link_of(page: str, kind: str) -> str:
    return re.search(r'href="(/factors/%s/sign-in/[^"]+)"' % kind, page).group(1)


def errors(page: str) -> list[str]:
    """The names of the errors flashed on ``page``."""
    return re.findall(r'class="flash error"[^>]*>[^<]*\(([A-Z_]+)\)</p>', page)


def refused(person: Browser, link: str, data: dict, name: str) -> None:
    """The form refuses ``data``: back to the same form, the error named on it."""
    response = person.post(link, link, data)
    assert response.headers["Location"] == link
    assert "(%s)" % name in person.get(link).get_data(as_text=True)


def test_oathtool_agrees_with_the_codes_the_tests_use():
    out = subprocess.run(["oathtool", "--hotp", "-c", "5", SECRET.hex()], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == HOTP.at(5) == "254676"


def test_an_assigned_hotp_token_signs_in_and_wrong_and_replayed_codes_are_refused(app, alice, clock):
    operator = admin(app)  # as ``mfactl tokens import`` then ``mfactl tokens assign`` do
    operator.import_token("hotp", SECRET, serial="OT-0001")
    assert operator.assign_token("OT-0001", alice.uid(), display_name="Key fob").factor_id == "hotp"
    page = password_step(alice)
    assert 'data-factor="hotp"' in page and "Key fob" in page and "Hardware token" in page
    link = link_of(page, "hotp")
    form = alice.get(link).get_data(as_text=True)
    assert "Key fob" in form and 'name="code"' in form
    refused(alice, link, {"code": "000000" if HOTP.at(0) != "000000" else "111111"}, "INVALID_VERIFICATION_CODE")
    assert alice.post(link, link, {"code": HOTP.at(0)}).headers["Location"] == "/account"
    listed = alice.get("/account").get_data(as_text=True)
    assert re.search(r'<tr data-factor="hotp"[^>]*>.*?Key fob.*?Hardware token', listed, re.S)
    # The same code again (a replay) is refused; the token's next code signs in.
    clock.advance(1)
    link = link_of(password_step(alice), "hotp")
    refused(alice, link, {"code": HOTP.at(0)}, "INVALID_VERIFICATION_CODE")
    assert alice.post(link, link, {"code": HOTP.at(1)}).headers["Location"] == "/account"


def test_an_unassigned_hotp_token_is_claimed_by_serial_and_code(app, alice, clock):
    admin(app).import_token("hotp", SECRET, serial="OT-0002", counter=3)
    assert 'id="claim-hotp"' in alice.get("/account").get_data(as_text=True)
    # An unknown serial, then a wrong code: nothing is enrolled, the error is named.
    for serial, code in (("OT-9999", HOTP.at(3)), ("OT-0002", "999999" if HOTP.at(3) != "999999" else "888888")):
        response = alice.post("/account", "/factors/hotp/claim", {"serial": serial, "code": code})
        assert response.headers["Location"] == "/account"
        page = alice.get("/account").get_data(as_text=True)
        assert errors(page) and 'data-factor="hotp"' not in page
    response = alice.post("/account", "/factors/hotp/claim",
                          {"serial": "OT-0002", "code": HOTP.at(3), "display_name": "Desk token"})
    assert response.headers["Location"] == "/account"
    listed = alice.get("/account").get_data(as_text=True)
    assert "Desk token is enrolled." in listed and re.search(r'<tr data-factor="hotp"', listed)
    assert admin(app).list_tokens(libmfa.ALL_TENANTS).tokens == ()  # it left the inventory
    clock.advance(1)
    link = link_of(password_step(alice), "hotp")
    refused(alice, link, {"code": HOTP.at(3)}, "INVALID_VERIFICATION_CODE")  # the claiming code, replayed
    assert alice.post(link, link, {"code": HOTP.at(4)}).headers["Location"] == "/account"


def test_a_yubikey_is_claimed_with_a_touch_and_signs_in_and_a_replayed_touch_is_refused(app, alice, clock):
    key, private, public = YUBIKEY
    admin(app).import_token("yubico_otp", bytes.fromhex(key), public_id=public, private_id=bytes.fromhex(private))
    otps = yubikey_otps(3, 0, 4)
    assert all(len(otp) == 44 for otp in otps)
    response = alice.post("/account", "/factors/yubikey/claim", {"otp": "cccc", "display_name": "Blue key"})
    assert errors(alice.get("/account").get_data(as_text=True)) == ["INVALID_VERIFICATION_CODE"]  # not a touch
    response = alice.post("/account", "/factors/yubikey/claim", {"otp": otps[0], "display_name": "Blue key"})
    assert response.headers["Location"] == "/account"
    listed = alice.get("/account").get_data(as_text=True)
    assert "Blue key is enrolled." in listed and re.search(r'<tr data-factor="yubico_otp"[^>]*>.*?YubiKey', listed,
                                                           re.S)
    clock.advance(1)
    page = password_step(alice)
    assert 'data-factor="yubico_otp"' in page and "Blue key" in page
    link = link_of(page, "yubikey")
    assert 'name="otp"' in alice.get(link).get_data(as_text=True)
    refused(alice, link, {"otp": otps[0]}, "INVALID_VERIFICATION_CODE")  # the claiming touch, replayed
    assert alice.post(link, link, {"otp": otps[1]}).headers["Location"] == "/account"
    clock.advance(1)
    link = link_of(password_step(alice), "yubikey")
    refused(alice, link, {"otp": otps[1]}, "INVALID_VERIFICATION_CODE")  # replayed
    refused(alice, link, {"otp": "123456"}, "INVALID_VERIFICATION_CODE")  # typed digits, not a touch
    assert alice.post(link, link, {"otp": otps[3]}).headers["Location"] == "/account"
