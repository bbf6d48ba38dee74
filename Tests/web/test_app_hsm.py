"""The example web application with its store's key in an HSM (issue 52), through
Flask's test client: MFA_WEB_HSM_MODULE, MFA_WEB_HSM_TOKEN (or _SLOT),
MFA_WEB_HSM_KEY and MFA_WEB_HSM_PIN_FILE, read with the other settings, open
a store wrapped by an AES key of a SoftHSM2 token the test makes; a person
signs up, enrolls an authenticator app and signs in with its code, and again
after the application is started anew (hsm_sign_in); the settings refuse an
HSM without its key label, PIN file or token, with a master key too, or a
malformed slot, and a wrong PIN stops the start with libmfa's named error,
never the PIN (hsm_settings_refused)."""

from __future__ import annotations

import sqlite3
import sys
import uuid

import pytest

import libmfa
from mfa_web import create_app
from mfa_web.settings import Settings, SettingsError

from client import REPO, Browser, enroll_totp
from client import clock  # noqa: F401 (fixture)
from test_app_sign_in import sign_in_with_totp

sys.path.insert(0, str(REPO / "Tests" / "python"))
from hsm_support import PIN, shared_hsm  # noqa: E402


@pytest.fixture(scope="module")
def hsm(tmp_path_factory):
    return shared_hsm(tmp_path_factory)


def hsm_env(hsm, tmp_path, key, **extra):
    env = {"MFA_WEB_ENV": "development", "MFA_WEB_INSTANCE": str(tmp_path), "MFA_WEB_HSM_MODULE": hsm.module,
           "MFA_WEB_HSM_TOKEN": hsm.token, "MFA_WEB_HSM_KEY": key, "MFA_WEB_HSM_PIN_FILE": str(hsm.pin_file)}
    env.update(extra)
    return {name: value for name, value in env.items() if value is not None}


def new_key(hsm):
    key = "kek-" + uuid.uuid4().hex[:8]
    hsm.new_key(hsm.token, key)
    return key


def test_hsm_sign_in(hsm, tmp_path, clock):
    key = new_key(hsm)
    env = hsm_env(hsm, tmp_path, key)
    settings = Settings.from_env(env)
    assert settings.master_key is None and settings.key_options["hsm_key"] == key
    app = create_app(settings, clock=clock)
    app.config["TESTING"] = False
    try:
        alice = Browser(app)
        alice.sign_up()
        app_totp = enroll_totp(alice, clock)
        assert sign_in_with_totp(alice, app_totp, clock).headers["Location"] == "/account"
    finally:
        app.extensions["mfa_web.libmfa"].close()
    with sqlite3.connect(settings.store) as db:
        rows = db.execute("SELECT provider, wrapping_label FROM mfa_data_keys").fetchall()
    assert rows == [("pkcs11", key)]
    # Started anew from the same settings: the HSM unwraps the store's key, alice signs in.
    again = create_app(Settings.from_env(env), clock=clock)
    again.config["TESTING"] = False
    try:
        person = Browser(again)
        person.email = alice.email
        assert sign_in_with_totp(person, app_totp, clock).headers["Location"] == "/account"
    finally:
        again.extensions["mfa_web.libmfa"].close()


def test_hsm_settings_refused(hsm, tmp_path, clock):
    key = new_key(hsm)
    cases = [
        ({"MFA_WEB_HSM_KEY": None}, "MFA_WEB_HSM_KEY and MFA_WEB_HSM_PIN_FILE"),
        ({"MFA_WEB_HSM_PIN_FILE": None}, "MFA_WEB_HSM_KEY and MFA_WEB_HSM_PIN_FILE"),
        ({"MFA_WEB_HSM_TOKEN": None}, "one of MFA_WEB_HSM_TOKEN or MFA_WEB_HSM_SLOT"),
        ({"MFA_WEB_HSM_SLOT": "0"}, "one of MFA_WEB_HSM_TOKEN or MFA_WEB_HSM_SLOT"),
        ({"MFA_WEB_HSM_TOKEN": None, "MFA_WEB_HSM_SLOT": "0x1"}, "decimal slot id"),
        ({"MFA_WEB_MASTER_KEY": "A" * 43 + "="}, "exclude each other"),
        ({"MFA_WEB_HSM_MODULE": None}, "need MFA_WEB_HSM_MODULE"),
    ]
    for extra, error in cases:
        with pytest.raises(SettingsError, match=error):
            Settings.from_env(hsm_env(hsm, tmp_path / "refused", key, **extra))
    wrong = tmp_path / "wrong.pin"
    wrong.write_text("86420975\n")
    with pytest.raises(libmfa.KeyProviderLoginError) as caught:
        create_app(Settings.from_env(hsm_env(hsm, tmp_path / "wrong", key, MFA_WEB_HSM_PIN_FILE=str(wrong))),
                   clock=clock)
    assert "86420975" not in str(caught.value) and PIN not in str(caught.value)
