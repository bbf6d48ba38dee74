"""Security keys and passkeys in the example web application, through Flask's test client.

The browser and its authenticator are played by the software authenticator
of the Python tests (``Tests/python/webauthn_authenticator.py``), which
answers the options on the pages and can misbehave: another origin, no user
verification, a counter reset. What the tests send to the new routes that a
browser never would: malformed JSON, a stale or foreign challenge, another
user's challenge, no CSRF token. (``test_browser_webauthn.py`` runs the
same pages in Chromium with its virtual authenticator.)
"""

from __future__ import annotations

import html
import json
import re
import sys

import pytest

import libmfa
from mfa_web import Settings, SettingsError, create_app

from client import REPO, PASSWORD, Browser, csrf_of, enroll_totp, flashes, settings_for
from client import alice, app, clock  # noqa: F401 (fixtures)

sys.path.insert(0, str(REPO / "Tests" / "python"))
from webauthn_authenticator import Authenticator  # noqa: E402

ORIGIN = "http://localhost"  # the test client's address, and the application's MFA_WEB_URL in these tests
ENROLL = "/factors/webauthn/enroll"
KEY = "A" * 43 + "="  # 32 bytes, base64


def options_of(response) -> dict:
    """The libmfa options a page hands to its script."""
    text = response.get_data(as_text=True)
    found = re.search(r'data-webauthn-options="([^"]+)"', text)
    assert found, text[:800]
    return json.loads(html.unescape(found.group(1)))


def key(**changes) -> Authenticator:
    authenticator = Authenticator(origin=ORIGIN)
    for name, value in changes.items():
        setattr(authenticator, name, value)
    return authenticator


def register(person, authenticator, name="YubiKey 5") -> object:
    """Open the page, answer its options, post the credential: the response."""
    options = options_of(person.get(ENROLL))
    return person.post(ENROLL, ENROLL, {"credential": json.dumps(authenticator.register(options)),
                                        "display_name": name})


def factors(app, person) -> list:
    with app.app_context():
        return app.extensions["mfa_web.libmfa"].multi_factor(libmfa.User(person.uid(), auth_time=0)).enrolled_factors()


def sign_in(person):
    """Sign out, wait a second, sign in with the password (to the hint chooser)."""
    person.post("/account", "/signout")
    later(person)
    assert person.sign_in().headers["Location"] == "/signin/second-factor"


def chooser_link(person, factor_id) -> str:
    page = person.get("/signin/second-factor").get_data(as_text=True)
    return re.search(r'href="(/factors/%s/sign-in/[^"]+)"' % factor_id, page).group(1)


def later(person, seconds=1):
    """Move the application's clock (a sign-in in the same millisecond as a revocation is revoked with it)."""
    person.app.extensions["mfa_web.clock"].advance(seconds)


def sign_in_with(person, authenticator, link=None):
    """The password, then the key (or just the key at ``link``): the response to the key's post."""
    if link is None:
        later(person)
        person.post("/account", "/signout")
        assert person.sign_in().headers["Location"] == "/signin/second-factor"
        link = chooser_link(person, "webauthn")
    options = options_of(person.get(link))
    return person.post(link, link, {"credential": json.dumps(authenticator.assert_(options))})


@pytest.fixture
def enrolled(alice):
    """Alice with a security key."""
    authenticator = key()
    assert register(alice, authenticator).headers["Location"] == "/account"
    return authenticator


# --- the happy paths -------------------------------------------------------------------------


def test_register_a_security_key_list_it_and_sign_in_with_it(app, alice):
    authenticator = key()
    page = alice.get(ENROLL).get_data(as_text=True)
    assert 'data-webauthn="create"' in page and "webauthn.js" in page and 'id="wrong-address"' not in page
    options = options_of(alice.get(ENROLL))
    assert options["rp"] == {"id": "localhost", "name": "libmfa example"}  # from the application's own URL
    assert options["user"]["name"] == alice.email
    response = register(alice, authenticator, "YubiKey 5")
    assert response.headers["Location"] == "/account"
    account = alice.get("/account").get_data(as_text=True)
    assert "YubiKey 5 (security key) is enrolled" in account
    row = re.search(r'<tr data-factor="webauthn".*?</tr>', account, re.S).group(0)
    assert "YubiKey 5" in row and "Security key" in row
    sign_in(alice)
    chooser = alice.get("/signin/second-factor").get_data(as_text=True)
    choice = re.search(r'<a class="choice[^"]*"[^>]*data-factor="webauthn">.*?</a>', chooser, re.S).group(0)
    assert "YubiKey 5" in choice and "Security key" in choice
    response = sign_in_with(alice, authenticator, chooser_link(alice, "webauthn"))
    assert response.headers["Location"] == "/account"
    assert alice.get("/account").status_code == 200


def test_a_passkey_is_listed_and_offered_as_a_passkey(app, alice):
    authenticator = key(backup_eligible=True)  # a synced passkey: libmfa calls it a passkey
    assert register(alice, authenticator, "Phone").headers["Location"] == "/account"
    row = re.search(r'<tr data-factor="webauthn".*?</tr>', alice.get("/account").get_data(as_text=True), re.S)
    assert "Passkey" in row.group(0)
    sign_in(alice)
    assert "Passkey" in alice.get("/signin/second-factor").get_data(as_text=True)
    link = chooser_link(alice, "webauthn")
    assert "Use your passkey" in alice.get(link).get_data(as_text=True)
    assert sign_in_with(alice, authenticator, link).headers["Location"] == "/account"


def test_removing_a_key_asks_for_the_password_and_a_key_again(app, alice, enrolled):
    info = factors(app, alice)[0]
    remove = "/account/factors/%s/remove" % info.uid
    assert alice.get(remove).headers["Location"].startswith("/reauth")
    response = alice.post("/reauth?next=" + remove, "/reauth", {"password": PASSWORD, "next": remove})
    assert response.headers["Location"] == "/signin/second-factor"
    assert sign_in_with(alice, enrolled, chooser_link(alice, "webauthn")).headers["Location"] == remove
    assert alice.post(remove, remove).headers["Location"] == "/account"
    assert factors(app, alice) == []


# --- registration: what a browser would never send ---------------------------------------


def test_registration_without_the_csrf_token_is_refused(app, alice):
    options = options_of(alice.get(ENROLL))
    response = alice.client.post(ENROLL, data={"credential": json.dumps(key().register(options))})
    assert response.status_code == 400 and "security token" in response.get_data(as_text=True)
    assert factors(app, alice) == []


MALFORMED = {"empty": "", "cut": "{", "array": "[]", "null": "null", "string": '"text"',
             "no-fields": '{"type": "public-key"}', "bad-base64": '{"type": "public-key", "rawId": "!!", "response": {}}',
             "huge": "x" * 40000,
             "lone-surrogate": '{"type": "public-key", "id": "\\ud800", "rawId": "AA", "response": {}}',
             "invalid-utf8": b"%FF%FE%7B"}


def test_malformed_registration_json_is_refused_by_name(app, alice):
    for label, credential in MALFORMED.items():
        if isinstance(credential, bytes):  # percent-encoded bytes that are not UTF-8, in a raw form body
            body = b"csrf_token=%s&display_name=Key&credential=" % csrf_of(alice.get(ENROLL)).encode()
            response = alice.client.post(ENROLL, data=body + credential,
                                         content_type="application/x-www-form-urlencoded")
        else:
            response = alice.post(ENROLL, ENROLL, {"credential": credential, "display_name": "Key"})
        assert response.headers["Location"] == ENROLL + "?name=Key", label  # back, with a new challenge
        text = flashes(alice)
        if credential and len(credential) <= 32 * 1024:
            assert "(INVALID_ARGUMENT)" in text, label
        else:
            assert "Your browser sent no credential" in text, label
        assert "Traceback" not in text
    assert factors(app, alice) == []


def test_a_registration_for_another_challenge_is_refused(app, alice):
    options = options_of(alice.get(ENROLL))
    options["challenge"] = "A" * 43  # not a libmfa token
    response = alice.post(ENROLL, ENROLL, {"credential": json.dumps(key().register(options))})
    assert response.headers["Location"].startswith(ENROLL + "?name=")
    assert "(INVALID_SESSION)" in flashes(alice)
    assert factors(app, alice) == []


def test_a_registration_answering_another_users_challenge_is_refused(app, alice):
    bob = Browser(app)
    bob.sign_up("bob@example.com")
    bobs = options_of(bob.get(ENROLL))
    response = alice.post(ENROLL, ENROLL, {"credential": json.dumps(key().register(bobs))})
    assert response.headers["Location"].startswith(ENROLL + "?name=")
    assert "(INVALID_SESSION)" in flashes(alice)
    assert factors(app, alice) == [] and factors(app, bob) == []


def test_a_registration_from_another_origin_is_refused(app, alice):
    response = register(alice, key(origin="https://evil.example"))
    assert response.headers["Location"] == ENROLL + "?name=YubiKey+5"
    page = alice.get(response.headers["Location"]).get_data(as_text=True)
    assert "(ORIGIN_MISMATCH)" in page and 'value="YubiKey 5"' in page  # the name typed is kept
    assert factors(app, alice) == []


def test_the_same_key_twice_is_refused(app, alice, enrolled):
    alice.post("/reauth?next=/account", "/reauth", {"password": PASSWORD, "next": "/account"})
    options = options_of(alice.get(ENROLL))
    assert [item["id"] for item in options["excludeCredentials"]]  # the browser is told to skip it
    response = alice.post(ENROLL, ENROLL, {"credential": json.dumps(enrolled.register(options))})
    assert "(SECOND_FACTOR_EXISTS)" in flashes(alice)
    assert response.headers["Location"].startswith(ENROLL + "?name=")


def test_registering_needs_a_verified_email_and_a_recent_sign_in(app, clock):
    bob = Browser(app)
    bob.sign_up("bob@example.com", verify=False)
    assert bob.get(ENROLL).headers["Location"] == "/account"
    assert "(UNVERIFIED_EMAIL)" in flashes(bob)
    carol = Browser(app)
    carol.sign_up("carol@example.com")
    clock.advance(301)
    assert carol.get(ENROLL).headers["Location"].startswith("/reauth?next=/factors/webauthn/enroll")


def test_user_verification_required_refuses_a_key_that_did_not_verify(app, alice):
    app.extensions["mfa_web.libmfa"].update_config({"webauthn": {"userVerification": "required"}})
    response = register(alice, key(user_verified=False))
    assert response.headers["Location"].startswith(ENROLL + "?name=")
    assert "(USER_VERIFICATION_REQUIRED)" in flashes(alice)
    assert factors(app, alice) == []
    assert register(alice, key()).headers["Location"] == "/account"


# --- sign-in: what a browser would never send --------------------------------------------


def test_sign_in_bad_inputs_are_refused_by_name_and_the_sign_in_goes_on(app, alice, enrolled):
    sign_in(alice)
    link = chooser_link(alice, "webauthn")
    assert alice.get(link.replace("/webauthn/", "/totp/")).status_code == 404  # not a TOTP factor
    assert alice.get("/factors/webauthn/sign-in/no-such-factor").status_code == 404
    options = options_of(alice.get(link))
    assert [item["id"] for item in options["allowCredentials"]] == [_b64(enrolled.credential_id)]
    response = alice.client.post(link, data={"credential": json.dumps(enrolled.assert_(options))})
    assert response.status_code == 400  # no CSRF token
    for credential in ("{", "[]", '{"type": "public-key"}', json.dumps({"type": "public-key", "rawId": "AA",
                                                                           "response": {"clientDataJSON": "AA"}})):
        response = alice.post(link, link, {"credential": credential})
        assert response.headers["Location"] == link, credential
        assert "(INVALID_ARGUMENT)" in alice.get(link).get_data(as_text=True)
    wrong = dict(options, challenge="A" * 43)
    response = alice.post(link, link, {"credential": json.dumps(enrolled.assert_(wrong))})
    assert response.headers["Location"] == link
    assert "(INVALID_SESSION)" in alice.get(link).get_data(as_text=True)
    response = alice.post(link, link, {"credential": json.dumps(enrolled.assert_(options_of(alice.get(link))))})
    assert response.headers["Location"] == "/account"  # the sign-in survived every bad input


def test_an_assertion_for_another_users_sign_in_is_refused(app, alice, enrolled):
    bob = Browser(app)
    bob.sign_up("bob@example.com")
    bobs_key = key()
    assert register(bob, bobs_key).headers["Location"] == "/account"
    sign_in(bob)
    bobs_options = options_of(bob.get(chooser_link(bob, "webauthn")))
    sign_in(alice)
    link = chooser_link(alice, "webauthn")
    alice.get(link)
    response = alice.post(link, link, {"credential": json.dumps(enrolled.assert_(bobs_options))})
    assert response.headers["Location"] == link
    assert "(INVALID_SESSION)" in alice.get(link).get_data(as_text=True)
    assert alice.client.get("/account").headers["Location"].startswith("/signin")  # not signed in


def test_an_old_challenge_of_the_same_user_is_refused(app, alice, enrolled):
    sign_in(alice)
    old = options_of(alice.get(chooser_link(alice, "webauthn")))
    alice.sign_in()  # a new sign-in: the old pending credential is not this one
    link = chooser_link(alice, "webauthn")
    response = alice.post(link, link, {"credential": json.dumps(enrolled.assert_(old))})
    assert response.headers["Location"] == link
    assert "(INVALID_SESSION)" in alice.get(link).get_data(as_text=True)


def test_a_replayed_assertion_is_refused(app, alice, enrolled):
    sign_in(alice)
    link = chooser_link(alice, "webauthn")
    answer = json.dumps(enrolled.assert_(options_of(alice.get(link))))
    assert alice.post(link, link, {"credential": answer}).headers["Location"] == "/account"
    sign_in(alice)
    link = chooser_link(alice, "webauthn")
    alice.get(link)
    response = alice.post(link, link, {"credential": answer})
    assert response.headers["Location"] == link
    assert "(INVALID_SESSION)" in alice.get(link).get_data(as_text=True)


def test_a_cloned_key_is_refused_shown_and_audited(app, alice, clock, enrolled):
    app_totp = enroll_totp(alice, clock)  # a second factor to come back in with
    for _ in range(2):
        clock.advance(1)
        assert sign_in_with(alice, enrolled).headers["Location"] == "/account"
    enrolled.sign_count = 0  # a copy of the key made before those sign-ins
    link = None
    sign_in(alice)
    link = chooser_link(alice, "webauthn")
    response = sign_in_with(alice, enrolled, link)
    assert response.headers["Location"] == link
    page = alice.get(link).get_data(as_text=True)
    assert "signature counter lower than before" in page and "(CREDENTIAL_CLONED)" in page
    with app.app_context():
        from mfa_web import audit

        events = audit.recent(alice.uid(), limit=20)
    assert any(event.kind == "SIGN_IN_FAILURE" and event.detail == "CREDENTIAL_CLONED"
               and event.factor_id == "webauthn" for event in events)
    totp = chooser_link(alice, "totp")
    clock.advance(30)
    assert alice.post(totp, totp, {"code": app_totp.at(clock())}).headers["Location"] == "/account"
    activity = re.search(r'<ul class="activity".*?</ul>', alice.get("/account").get_data(as_text=True), re.S)
    assert "Refused a sign-in with YubiKey 5 <span class=\"kind\">· Security key</span>" in activity.group(0)
    assert "CREDENTIAL_CLONED" in activity.group(0)


# --- settings --------------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_the_relying_party_comes_from_the_applications_url(tmp_path):
    dev = Settings.from_env({"MFA_WEB_ENV": "development", "MFA_WEB_INSTANCE": str(tmp_path),
                             "MFA_WEB_PORT": "5123"})
    assert dev.url == "http://localhost:5123/"
    assert dev.webauthn_config == {"webauthn": {"rpId": "localhost", "rpName": "libmfa example",
                                                "origins": ["http://localhost:5123"]}}
    prod = Settings.from_env({"MFA_WEB_INSTANCE": str(tmp_path), "MFA_WEB_SECRET_KEY": KEY,
                              "MFA_WEB_MASTER_KEY": KEY, "MFA_WEB_URL": "https://Auth.Example.com:8443"})
    assert prod.url == "https://auth.example.com:8443/"
    assert prod.webauthn_config["webauthn"]["origins"] == ["https://auth.example.com:8443"]
    # The default port is not part of an origin as a browser writes it.
    default = Settings.from_env({"MFA_WEB_INSTANCE": str(tmp_path), "MFA_WEB_SECRET_KEY": KEY,
                                 "MFA_WEB_MASTER_KEY": KEY, "MFA_WEB_URL": "https://auth.example.com:443/"})
    assert default.webauthn_config["webauthn"]["origins"] == ["https://auth.example.com"]


@pytest.mark.parametrize("url", ["http://auth.example.com/", "https://127.0.0.1/", "https://auth.example.com/app",
                                 "ftp://auth.example.com", "https://user@auth.example.com/", "https://:99999/",
                                 "auth.example.com"])
def test_a_url_webauthn_cannot_work_at_is_refused(tmp_path, url):
    with pytest.raises(SettingsError, match="MFA_WEB_URL"):
        Settings.from_env({"MFA_WEB_INSTANCE": str(tmp_path), "MFA_WEB_SECRET_KEY": KEY,
                           "MFA_WEB_MASTER_KEY": KEY, "MFA_WEB_URL": url})


def test_production_needs_its_url(tmp_path):
    with pytest.raises(SettingsError, match="MFA_WEB_URL is required in production"):
        Settings.from_env({"MFA_WEB_INSTANCE": str(tmp_path), "MFA_WEB_SECRET_KEY": KEY,
                           "MFA_WEB_MASTER_KEY": KEY})


def test_without_a_url_keys_are_not_offered(tmp_path, clock):
    settings = settings_for(tmp_path)
    settings.url = None
    app = create_app(settings, clock=clock)
    try:
        person = Browser(app)
        person.sign_up()
        assert 'id="add-webauthn"' not in person.get("/account").get_data(as_text=True)
        assert person.get(ENROLL).headers["Location"] == "/account"
        assert "(OPERATION_NOT_ALLOWED)" in flashes(person)
    finally:
        app.extensions["mfa_web.libmfa"].close()


def test_a_page_opened_at_another_address_says_where_keys_work(app):
    numeric = Browser(app, base_url="http://127.0.0.1:5000")  # the address web.sh listens on, not MFA_WEB_URL
    numeric.sign_up()
    page = numeric.get(ENROLL).get_data(as_text=True)
    assert 'id="wrong-address"' in page and 'href="http://localhost/"' in page


# --- passkeys: signing in without a password -----------------------------------------------


def test_a_passkey_signs_in_without_a_password_and_refusals_read_the_same(alice):
    passkey = key(resident=True)
    options = options_of(alice.get(ENROLL + "?passkey=1"))
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    response = alice.post(ENROLL + "?passkey=1", ENROLL, {"credential": json.dumps(passkey.register(options)),
                                                         "display_name": "Laptop", "passkey": "1"})
    assert response.headers["Location"] == "/account"
    assert [f.hint for f in factors(alice.app, alice)] == ["device-bound passkey"]
    later(alice)
    alice.post("/account", "/signout")
    page = alice.get("/signin").get_data(as_text=True)
    assert 'autocomplete="username webauthn"' in page and 'id="passkey-sign-in"' in page
    sign_in_options = options_of(alice.get("/signin"))
    assert sign_in_options["allowCredentials"] == [] and sign_in_options["userVerification"] == "required"
    response = alice.post("/signin", "/signin/passkey",
                          {"credential": json.dumps(passkey.assert_(sign_in_options)), "next": "/account"})
    assert response.headers["Location"] == "/account"
    assert alice.get("/account").status_code == 200  # signed in
    # Refused, each in the one way that tells nothing: an unknown passkey, another user handle, a security key.
    alice.post("/account", "/signout")
    refusals = []
    stranger = key(resident=True)
    stranger.user_handle = passkey.user_handle
    renamed = key(resident=True)
    renamed.credential_id, renamed.key, renamed.user_handle = passkey.credential_id, passkey.key, b"\x01" * 32
    renamed.sign_count = passkey.sign_count
    for authenticator in (stranger, renamed):
        later(alice)
        response = alice.post("/signin", "/signin/passkey",
                              {"credential": json.dumps(authenticator.assert_(options_of(alice.get("/signin"))))})
        assert response.headers["Location"].startswith("/signin")
        refusals.append(errors_on(alice, response))
    assert refusals[0] == refusals[1] and "This passkey was not accepted" in refusals[0][0]
    # No credential at all, and a malformed one.
    response = alice.post("/signin", "/signin/passkey", {"credential": ""})
    assert "sent no passkey" in errors_on(alice, response)[0]
    response = alice.post("/signin", "/signin/passkey", {"credential": "{}"})
    assert "(INVALID_ARGUMENT)" in errors_on(alice, response)[0]


def errors_on(person, response) -> list:
    """The error messages of the page a response redirects to."""
    page = person.get(response.headers["Location"]).get_data(as_text=True)
    return [html.unescape(text) for text in re.findall(r'<p class="flash error" role="alert">([^<]*)</p>', page)]
