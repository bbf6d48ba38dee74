"""The example web application's safety, through Flask's test client (no browser).

What a person cannot see in a browser, or what needs the clock moved:
cookie flags, CSRF refusals, the app check against scripts, step-up
windows, open redirects, password storage, error pages without stack
traces, production settings.
"""

from __future__ import annotations

import re
import sqlite3

import pytest

import libmfa
from mfa_web import Gateways, Settings, SettingsError, accounts, app_check, auth, create_app, sessions

from client import PASSWORD, Browser, csrf_of, enroll_totp, flashes, settings_for
from client import alice, app, clock  # noqa: F401 (fixtures)


# --- accounts and sessions ---------------------------------------------------------------


def test_the_password_is_stored_only_as_an_argon2id_hash(alice, tmp_path):
    with sqlite3.connect(tmp_path / "web.sqlite3") as db:
        (stored,) = db.execute("SELECT password_hash FROM web_accounts").fetchone()
    assert stored.startswith("$argon2id$")
    data = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.is_file())
    assert PASSWORD.encode() not in data


def test_a_wrong_password_and_an_unknown_email_get_the_same_answer(app, alice):
    wrong = Browser(app)
    wrong.email = alice.email
    first = wrong.post("/signin", "/signin", {"email": alice.email, "password": "not the password"})
    second = wrong.post("/signin", "/signin", {"email": "nobody@example.com", "password": "not the password"})
    assert first.status_code == second.status_code == 401
    assert "Wrong email or password." in first.get_data(as_text=True)
    assert "Wrong email or password." in second.get_data(as_text=True)


def test_sign_up_refuses_a_taken_email_and_a_short_password(app, alice):
    other = Browser(app)
    taken = other.post("/signup", "/signup", {"email": "ALICE@example.com ", "password": PASSWORD})
    assert taken.status_code == 400 and "already exists" in taken.get_data(as_text=True)
    short = other.post("/signup", "/signup", {"email": "bob@example.com", "password": "short"})
    assert short.status_code == 400 and "at least 8 characters" in short.get_data(as_text=True)


def test_session_cookies_in_development_are_httponly_and_samesite_lax(app):
    cookie = app.test_client().get("/signin").headers["Set-Cookie"]
    assert cookie.startswith("mfa_session=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie


def test_production_cookies_are_secure_host_only_and_dev_pages_do_not_exist(tmp_path, clock):
    sent = []
    app = create_app(settings_for(tmp_path, development=False), clock=clock,
                     gateways=Gateways(mailer=lambda *message: sent.append(message),
                                       sms_sender=lambda *sms: sent.append(sms)))
    try:
        client = app.test_client()
        response = client.get("/signin", base_url="https://example.com")
        cookie = response.headers["Set-Cookie"]
        assert cookie.startswith("__Host-mfa_session=")
        for flag in ("Secure", "HttpOnly", "SameSite=Lax", "Path=/"):
            assert flag in cookie
        assert "Domain" not in cookie
        assert response.headers["Strict-Transport-Security"].startswith("max-age=")
        assert client.get("/dev/outbox", base_url="https://example.com").status_code == 404
        token = csrf_of(response)
        client.post("/signup", base_url="https://example.com",
                    data={"csrf_token": token, "email": "a@example.com", "password": PASSWORD})
        assert sent and sent[0][0] == "a@example.com" and "https://example.com/verify-email/" in sent[0][2]
    finally:
        app.extensions["mfa_web.libmfa"].close()


def test_production_needs_its_keys_and_its_gateways(tmp_path):
    with pytest.raises(SettingsError, match="MFA_WEB_SECRET_KEY is required"):
        Settings.from_env({"MFA_WEB_INSTANCE": str(tmp_path)})
    with pytest.raises(SettingsError, match="MFA_WEB_MASTER_KEY must hold 32 bytes"):
        Settings.from_env({"MFA_WEB_INSTANCE": str(tmp_path), "MFA_WEB_SECRET_KEY": "A" * 44,
                           "MFA_WEB_MASTER_KEY": "AAAA"})
    with pytest.raises(SettingsError, match="gateways"):
        create_app(settings_for(tmp_path, development=False))


def test_development_keys_are_made_once_and_kept(tmp_path):
    first = Settings.from_env({"MFA_WEB_ENV": "development", "MFA_WEB_INSTANCE": str(tmp_path)})
    second = Settings.from_env({"MFA_WEB_ENV": "development", "MFA_WEB_INSTANCE": str(tmp_path)})
    assert first.master_key == second.master_key and len(first.master_key) == 32
    assert first.secret_key == second.secret_key
    assert oct((tmp_path / "master-key").stat().st_mode & 0o777) == "0o600"


def test_the_session_lives_on_the_server_and_dies_at_sign_out(app, alice):
    cookie = alice.client.get_cookie("mfa_session")
    assert alice.email not in cookie.value and len(cookie.value) < 64
    assert alice.get("/account").status_code == 200
    alice.post("/account", "/signout")
    thief = app.test_client()
    thief.set_cookie("mfa_session", cookie.value)  # the cookie from before the sign-out
    assert thief.get("/account").headers["Location"].startswith("/signin")


def test_signing_in_gives_the_session_a_new_id(app, alice):
    alice.post("/account", "/signout")
    before = alice.client.get_cookie("mfa_session").value
    alice.sign_in()
    assert alice.client.get_cookie("mfa_session").value != before


# --- CSRF --------------------------------------------------------------------------------


def test_a_form_without_the_csrf_token_is_refused(app, alice):
    response = alice.client.post("/factors/totp/enroll/start")
    assert response.status_code == 400
    assert "security token" in response.get_data(as_text=True)
    other = Browser(app)
    stranger_token = csrf_of(other.get("/signin"))  # another session's token
    response = alice.client.post("/factors/totp/enroll/start", data={"csrf_token": stranger_token})
    assert response.status_code == 400
    response = alice.client.post("/app-check/token", json={"action": "enrollment"})
    assert response.status_code == 400


def test_sign_in_is_csrf_protected_too(app):
    client = app.test_client()
    client.get("/signin")
    assert client.post("/signin", data={"email": "a@example.com", "password": PASSWORD}).status_code == 400


# --- app check ---------------------------------------------------------------------------


def app_check_token(person, action="enrollment", page="/factors/phone/enroll"):
    token = csrf_of(person.get(page))
    response = person.client.post("/app-check/token", json={"action": action}, headers={"X-CSRF-Token": token})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["token"]


def sms_sent(app):
    return libmfa.read_outbox(app.config["MFA_WEB_SMS_OUTBOX"])


def send_enrollment_sms(person, number, credential):
    data = {"phone_number": number, "display_name": "Phone"}
    if credential is not None:
        data["app_credential"] = credential
    return person.post("/factors/phone/enroll", "/factors/phone/enroll", data)


def test_a_script_that_skips_the_page_sends_no_sms(app, alice):
    response = send_enrollment_sms(alice, "+15105550101", None)
    assert response.headers["Location"] == "/factors/phone/enroll"
    assert "MISSING_APP_CREDENTIAL" in flashes(alice)
    for forged in ("not-a-token", app_check_token(alice)[:-2] + "xx"):
        send_enrollment_sms(alice, "+15105550101", forged)
        assert "INVALID_APP_CREDENTIAL" in flashes(alice)
    assert sms_sent(app) == []


def test_an_app_check_token_works_once_for_its_action_and_session_only(app, alice, clock):
    other = Browser(app)
    other.sign_up("bob@example.com")
    borrowed = app_check_token(other)
    send_enrollment_sms(alice, "+15105550102", borrowed)
    assert "INVALID_APP_CREDENTIAL" in flashes(alice)
    expired = app_check_token(alice)
    clock.advance(121)  # app_check.TOKEN_LIFETIME is 120 s
    send_enrollment_sms(alice, "+15105550102", expired)
    assert "INVALID_APP_CREDENTIAL" in flashes(alice)
    assert sms_sent(app) == []
    good = app_check_token(alice)
    response = send_enrollment_sms(alice, "+15105550102", good)
    assert response.headers["Location"] == "/factors/phone/enroll/verify"
    assert [message["to"] for message in sms_sent(app)] == ["+15105550102"]
    send_enrollment_sms(alice, "+15105550103", good)  # the same token again
    assert "INVALID_APP_CREDENTIAL" in flashes(alice)
    assert len(sms_sent(app)) == 1


def test_the_verifier_checks_the_action_the_session_and_single_use(app):
    with app.test_request_context("/"):
        session = sessions.current()
        session.sid = "a session id"
        token = app_check.issue("sign_in")
        assert not app_check.verify(token, "enrollment")
        session.sid = "another session id"
        assert not app_check.verify(token, "sign_in")
        session.sid = "a session id"
        assert app_check.verify(token, "sign_in")
        assert not app_check.verify(token, "sign_in")
        assert not app_check.verify("", "sign_in")


def test_the_token_endpoint_wants_a_known_action_and_a_flow_in_progress(app, alice):
    token = csrf_of(alice.get("/account"))
    response = alice.client.post("/app-check/token", json={"action": "sign_in"}, headers={"X-CSRF-Token": token})
    assert response.status_code == 403  # no sign-in in progress
    response = alice.client.post("/app-check/token", json={"action": "anything"}, headers={"X-CSRF-Token": token})
    assert response.status_code == 400
    anonymous = app.test_client()
    token = csrf_of(anonymous.get("/signin"))
    response = anonymous.post("/app-check/token", json={"action": "enrollment"}, headers={"X-CSRF-Token": token})
    assert response.status_code == 403  # not signed in


# --- second factors, step-up, revocation ---------------------------------------------------


def test_an_email_link_expires_after_two_days(app, clock):
    bob = Browser(app)
    bob.sign_up("bob@example.com", verify=False)
    mail = app.extensions["mfa_web.mailer"].messages()
    link = re.search(r"http://localhost(/verify-email/\S+)", mail[-1]["body"]).group(1)
    clock.advance(2 * 24 * 3600 + 1)
    bob.client.get(link)
    assert "invalid or has expired" in bob.client.get("/signin").get_data(as_text=True)
    assert bob.client.get(link[:-3] + "abc").status_code == 302  # tampered: refused the same way
    bob.sign_in()
    assert "not verified" in bob.get("/account").get_data(as_text=True)


def test_enrolling_needs_a_verified_email(app):
    bob = Browser(app)
    bob.sign_up("bob@example.com", verify=False)
    bob.post("/account", "/factors/totp/enroll/start")
    text = flashes(bob)
    assert "Verify your email address before adding a second factor. (UNVERIFIED_EMAIL)" in text


def test_enrolling_after_libmfas_recent_login_limit_asks_for_the_password_again(app, alice, clock):
    clock.advance(301)  # limits.recentLoginMaxAge is 300 s
    response = alice.post("/account", "/factors/totp/enroll/start")
    assert response.headers["Location"].startswith("/reauth?next=/account")
    response = alice.post("/reauth", "/reauth?next=/account", {"password": PASSWORD, "next": "/account"})
    assert response.headers["Location"] == "/account"
    response = alice.post("/account", "/factors/totp/enroll/start")
    assert response.headers["Location"] == "/factors/totp/enroll"


def test_removing_a_factor_asks_for_both_factors_and_the_step_up_expires(app, alice, clock):
    app_totp = enroll_totp(alice, clock)
    remove = "/account/factors/%s/remove" % re.search(r'data-enrollment-id="([^"]+)"',
                                                      alice.get("/account").get_data(as_text=True)).group(1)
    assert alice.get(remove).headers["Location"].startswith("/reauth?next=/account/factors/")
    wrong = alice.post("/reauth?next=" + remove, "/reauth", {"password": "wrong password", "next": remove})
    assert wrong.status_code == 401
    response = alice.post("/reauth?next=" + remove, "/reauth", {"password": PASSWORD, "next": remove})
    assert response.headers["Location"] == "/signin/second-factor"
    assert alice.get(remove).headers["Location"].startswith("/reauth")  # the password alone is not enough
    page = alice.get("/signin/second-factor").get_data(as_text=True)
    sign_in = re.search(r'href="(/factors/totp/sign-in/[^"]+)"', page).group(1)
    clock.advance(30)
    response = alice.post(sign_in, sign_in, {"code": app_totp.at(clock())})
    assert response.headers["Location"] == remove
    assert alice.get(remove).status_code == 200
    clock.advance(301)
    assert alice.get(remove).headers["Location"].startswith("/reauth")  # the step-up is over


def test_a_session_revoked_by_the_server_is_refused_at_its_next_request(app, alice):
    assert alice.get("/account").status_code == 200
    app.extensions["mfa_web.libmfa"].revoke_tokens(alice.uid())  # e.g. an operator after a password reset
    response = alice.get("/account")
    assert response.headers["Location"] == "/signin"
    page = alice.get("/signin").get_data(as_text=True)
    assert "USER_TOKEN_EXPIRED" in page and "sign in again" in page


def test_enrolling_signs_out_the_other_sessions_but_not_this_one(app, alice, clock):
    laptop = Browser(app)
    laptop.email = alice.email
    laptop.sign_in()
    assert laptop.get("/account").status_code == 200
    enroll_totp(alice, clock)
    assert alice.get("/account").status_code == 200
    assert laptop.get("/account").headers["Location"] == "/signin"


def test_a_wrong_code_is_a_message_and_the_sign_in_goes_on(app, alice, clock):
    app_totp = enroll_totp(alice, clock)
    alice.post("/account", "/signout")
    assert alice.sign_in().headers["Location"] == "/signin/second-factor"
    page = alice.get("/signin/second-factor").get_data(as_text=True)
    sign_in = re.search(r'href="(/factors/totp/sign-in/[^"]+)"', page).group(1)
    assert alice.get(sign_in.replace("/totp/", "/phone/")).status_code == 404  # not a phone factor
    assert alice.get("/factors/totp/sign-in/no-such-factor").status_code == 404
    for code in ("12345", "abcdef", "1234567890", "\u0661\u0662\u0663\u0664\u0665\u0666"):
        response = alice.post(sign_in, sign_in, {"code": code})
        assert response.headers["Location"] == sign_in, code
        text = alice.get(sign_in).get_data(as_text=True)
        assert "INVALID_VERIFICATION_CODE" in text or "INVALID_ARGUMENT" in text, code
        assert "Traceback" not in text
    clock.advance(30)
    response = alice.post(sign_in, sign_in, {"code": app_totp.at(clock())})
    assert response.headers["Location"] == "/account"


# --- pages -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil.example",
                                    "javascript:alert(1)", "evil", ""])
def test_next_never_leaves_the_site(target):
    assert auth.safe_next(target) == "/account"


def test_next_keeps_a_local_path():
    assert auth.safe_next("/account/factors/x/remove") == "/account/factors/x/remove"


def test_an_unexpected_error_is_a_page_without_a_stack_trace(app, monkeypatch):
    def broken(*_args):
        raise RuntimeError("the database caught fire")

    monkeypatch.setattr(accounts, "authenticate", broken)
    client = app.test_client()
    token = csrf_of(client.get("/signin"))
    response = client.post("/signin", data={"csrf_token": token, "email": "a@example.com", "password": PASSWORD})
    text = response.get_data(as_text=True)
    assert response.status_code == 500
    assert "The server could not complete this request." in text
    assert "Traceback" not in text and "caught fire" not in text and "RuntimeError" not in text


def test_unknown_pages_and_methods_are_pages_too(app):
    client = app.test_client()
    assert "There is nothing at this address." in client.get("/nowhere").get_data(as_text=True)
    assert client.get("/signout").status_code == 405


def test_pages_carry_security_headers(app):
    response = app.test_client().get("/signin")
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Cache-Control"] == "no-store"


def test_healthz(app):
    assert app.test_client().get("/healthz").get_data(as_text=True) == "ok\n"


# --- /metrics ----------------------------------------------------------------------------


def test_metrics_in_development_are_open_and_in_prometheus_format(app, alice):
    response = app.test_client().get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == libmfa.PROMETHEUS_CONTENT_TYPE
    text = response.get_data(as_text=True)
    assert text.startswith("# HELP libmfa_") and "\nlibmfa_sign_ins_total{" in text
    assert "Set-Cookie" not in response.headers, "a scrape opens no session"
    assert alice.email not in text


def test_metrics_need_their_token_when_one_is_set(tmp_path, clock):
    import dataclasses

    token = "s3cret-metrics-token-0123"
    app = create_app(dataclasses.replace(settings_for(tmp_path), metrics_token=token), clock=clock)
    try:
        client = app.test_client()
        refused = client.get("/metrics")
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"] == 'Bearer realm="metrics"'
        assert "libmfa_" not in refused.get_data(as_text=True)
        for header in ("Bearer " + token[:-1], "Bearer " + token + "x", "Basic " + token, token, "Bearer"):
            assert client.get("/metrics", headers={"Authorization": header}).status_code == 401, header
        allowed = client.get("/metrics", headers={"Authorization": "Bearer " + token})
        assert allowed.status_code == 200 and allowed.get_data(as_text=True).startswith("# HELP libmfa_")
        assert client.get("/metrics", headers={"Authorization": "bearer  " + token}).status_code == 200
    finally:
        app.extensions["mfa_web.libmfa"].close()


def test_metrics_in_production_exist_only_with_a_token(tmp_path, clock):
    import dataclasses

    gateways = Gateways(mailer=lambda *message: None, sms_sender=lambda *sms: None)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    app = create_app(settings_for(tmp_path / "a", development=False), clock=clock, gateways=gateways)
    try:
        assert app.test_client().get("/metrics", base_url="https://example.com").status_code == 404
    finally:
        app.extensions["mfa_web.libmfa"].close()
    token = "production-metrics-token-1"
    settings = dataclasses.replace(settings_for(tmp_path / "b", development=False), metrics_token=token)
    app = create_app(settings, clock=clock, gateways=gateways)
    try:
        client = app.test_client()
        assert client.get("/metrics", base_url="https://example.com").status_code == 401
        assert client.get("/metrics", base_url="https://example.com",
                          headers={"Authorization": "Bearer " + token}).status_code == 200
    finally:
        app.extensions["mfa_web.libmfa"].close()


@pytest.mark.parametrize("token", ["short", " padded-metrics-token ", "line\nbreak-metrics-token"])
def test_a_weak_metrics_token_is_refused(tmp_path, token):
    with pytest.raises(SettingsError, match="MFA_WEB_METRICS_TOKEN"):
        Settings.from_env({"MFA_WEB_ENV": "development", "MFA_WEB_INSTANCE": str(tmp_path),
                           "MFA_WEB_METRICS_TOKEN": token})
