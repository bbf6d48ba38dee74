"""End to end in headless Chromium: a hardware HOTP token, imported by an operator
(libmfa.Admin on the application's store, as ``mfactl tokens import`` does), claimed
from the account page with its serial number and a code, then signing in through the
hint chooser and the token's code form; a replayed code is refused. One run, on the
embedded SQLite store, the application started by ``scripts/web.sh``."""

from __future__ import annotations

import base64
import secrets

import pyotp
import pytest

import libmfa
from conftest import Server
from person import Person

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = b"12345678901234567890"  # RFC 4226's test key
HOTP = pyotp.HOTP(base64.b32encode(SECRET).decode("ascii"))


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory):
    running = Server(tmp_path_factory.mktemp("web-tokens"), None)
    running.store_kind = "sqlite"
    yield running
    running.stop()


def import_unassigned(server: Server, serial: str) -> None:
    """The operator's import, on the running application's store and master key."""
    key = base64.b64decode((server.instance / "master-key").read_text().strip())
    with libmfa.Context(server.store, master_key=key, key_id="web-1") as context:
        context.admin("ops:browser-test").import_token("hotp", SECRET, serial=serial)


def test_claim_an_hotp_token_and_sign_in_with_it(sqlite_server, browser):
    browser.delete_all_cookies()
    person = Person(browser, sqlite_server.url, "sqlite-tokens")
    person.sign_up("tokens-%s@example.com" % secrets.token_hex(4))
    person.verify_email()
    import_unassigned(sqlite_server, "OT-4226")
    person.open("/account")
    person.type("#hotp-serial", "OT-4226")
    person.type("#hotp-code", HOTP.at(0))
    person.type("#hotp-name", "Key fob")
    person.click("#add-hotp")
    assert person.path == "/account", person.flashes()
    row = person.find('#factors tr[data-factor="hotp"]')
    assert "Key fob" in row.text and "Hardware token" in row.text
    person.sign_out()
    person.sign_in_password()
    assert person.path == "/signin/second-factor"
    hints = person.all("#hints a")
    assert len(hints) == 1 and "Key fob" in hints[0].text
    person.choose("hotp")
    person.screenshot("hotp-sign-in")
    person.enter_code(HOTP.at(1))
    assert person.path == "/account", person.flashes()
    # The same press again is refused on the form; the next press signs in.
    person.sign_out()
    person.sign_in_password()
    person.choose("hotp")
    form = person.path
    person.enter_code(HOTP.at(1))
    assert person.path == form and any("INVALID_VERIFICATION_CODE" in text for text in person.flashes("error"))
    person.enter_code(HOTP.at(2))
    assert person.path == "/account", person.flashes()
