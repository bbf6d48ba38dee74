"""The application under Flask's test client: fixtures and a person filling forms (no browser).

``clock`` (the application's and libmfa's clock, moved by the tests),
``app`` (a development application on a fresh SQLite instance folder, its
errors going through the error pages as in production) and ``alice`` (a
signed-up, verified user); :class:`Browser` posts forms with the CSRF token
of the page it read last.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import time

import pyotp
import pytest

from mfa_web import Settings, accounts, create_app

REPO = pathlib.Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple"


class Clock:
    """The application's clock (libmfa gets the same one); tests move it forward."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def settings_for(tmp_path, development=True):
    return Settings(development=development, instance=tmp_path, store=str(tmp_path / "mfa.sqlite3"),
                    secret_key=os.urandom(32), master_key=os.urandom(32),
                    url="http://localhost/" if development else "https://example.com/")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(tmp_path, clock):
    application = create_app(settings_for(tmp_path), clock=clock)
    application.config["TESTING"] = False  # errors go through the error pages, as in production
    yield application
    application.extensions["mfa_web.libmfa"].close()


def csrf_of(response) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', response.get_data(as_text=True))
    assert found, response.get_data(as_text=True)[:500]
    return found.group(1)


def flashes(person) -> str:
    """The text of the account page's (or any page's) messages, after a redirect."""
    return person.client.get("/account", follow_redirects=True).get_data(as_text=True)


class Browser:
    """A test client with the form-filling of a person (CSRF token from the last page)."""

    def __init__(self, app, base_url="http://localhost") -> None:
        self.app = app
        self.client = app.test_client()
        self.base_url = base_url  # where the person opened the application
        self.email = ""

    def get(self, path):
        return self.client.get(path, base_url=self.base_url)

    def post(self, page, path, data=None, **kwargs):
        token = csrf_of(self.get(page))
        return self.client.post(path, data=dict(data or {}, csrf_token=token), base_url=self.base_url, **kwargs)

    def sign_up(self, email="alice@example.com", verify=True):
        self.email = email
        response = self.post("/signup", "/signup", {"email": email, "password": PASSWORD})
        assert response.status_code == 302, response.get_data(as_text=True)
        if verify:
            mail = [json.loads(line) for line in (self.app_instance() / "mail-outbox.jsonl").read_text().splitlines()]
            link = re.search(r"https?://[^/\s]+(/verify-email/\S+)", mail[-1]["body"]).group(1)
            assert self.get(link).status_code == 302
        return response

    def sign_in(self):
        # Signed in already, /signin sends the person to the account page: its form's token serves.
        page = "/signin" if self.get("/signin").status_code == 200 else "/account"
        return self.post(page, "/signin", {"email": self.email, "password": PASSWORD})

    def app_instance(self):
        return self.app.extensions["mfa_web.mailer"].path.parent

    def uid(self):
        with self.app.app_context():
            return accounts.authenticate(self.email, PASSWORD).uid


@pytest.fixture
def alice(app):
    person = Browser(app)
    person.sign_up()
    return person


def enroll_totp(person, clock) -> pyotp.TOTP:
    assert person.post("/account", "/factors/totp/enroll/start").status_code == 302
    page = person.get("/factors/totp/enroll").get_data(as_text=True)
    key = re.search(r'id="totp-key">([A-Z2-7 ]+)<', page).group(1).replace(" ", "")
    app = pyotp.TOTP(key)
    response = person.post("/factors/totp/enroll", "/factors/totp/enroll",
                           {"code": app.at(clock()), "display_name": "App"})
    assert response.headers["Location"] == "/account"
    return app
