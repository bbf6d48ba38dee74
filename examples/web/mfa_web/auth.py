"""The first factor: sign-up, sign-in, sign-out, email verification, step-up.

The password is the application's business; libmfa hears about it through
``Context.sign_in(user)`` once it is right. A user without second factors is
signed in there and then; one with factors gets the hint chooser
(:mod:`mfa_web.second_factor`).

Every request of a signed-in session checks its credential against libmfa's
revocations (:func:`load_user`): after a factor is enrolled or removed
elsewhere, the session is ended and the user signs in again.
"""

from __future__ import annotations

import functools
import urllib.parse
from typing import Any, Callable, Optional, TypeVar, cast

import flask
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response
import itsdangerous
import libmfa

from . import accounts, devices, engine, messages, second_factor, sessions, signing

blueprint = flask.Blueprint("auth", __name__)

F = TypeVar("F", bound=Callable[..., Any])

#: How long an email verification link works (seconds).
VERIFY_LINK_LIFETIME = 2 * 24 * 3600


def login_required(view: F) -> F:
    """Send visitors who are not signed in to the sign-in page."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if engine.account() is None:
            return flask.redirect(flask.url_for("auth.sign_in", next=flask.request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return cast(F, wrapped)


def step_up_required(view: F) -> F:
    """Ask for the password (and a second factor) again unless this session did so recently."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not engine.stepped_up():
            # A POST comes back as a GET of the same address: its confirmation page.
            return flask.redirect(flask.url_for("auth.reauth", next=flask.request.path))
        return view(*args, **kwargs)

    return cast(F, wrapped)


def safe_next(value: Optional[str], default: str = "/account") -> str:
    """``value`` if it is a path on this site, else ``default`` (no open redirects)."""
    if not value:
        return default
    parts = urllib.parse.urlsplit(value)
    if parts.scheme or parts.netloc or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return default
    return value


def load_user() -> Optional[Response]:
    """A ``before_request`` handler: the signed-in account, its credential checked against revocations."""
    session = sessions.current()
    uid = session.get("uid")
    if not isinstance(uid, str):
        return None
    found = accounts.find(uid)
    revoked: Optional[libmfa.MFAError] = None
    if found is not None:
        try:
            engine.check_credential()
            flask.g.account = found
            return None
        except libmfa.UserTokenExpiredError as error:
            revoked = error
    session.clear()
    sessions.rotate()
    if revoked is not None:
        messages.flash(revoked)
    if flask.request.endpoint in ("auth.sign_in", "static"):
        return None
    return flask.redirect(flask.url_for("auth.sign_in"))


def _serializer() -> itsdangerous.URLSafeTimedSerializer:
    return signing.serializer("libmfa-web email")


def send_verification(who: accounts.Account) -> None:
    """Mail the account a link that marks its email verified."""
    link = flask.url_for("auth.verify_email", token=_serializer().dumps({"uid": who.uid, "email": who.email}),
                         _external=True)
    mailer = flask.current_app.extensions["mfa_web.mailer"]
    mailer(who.email, "Verify your email address",
           "Open this link to verify your email address for the libmfa web example:\n%s\n" % link)


@blueprint.get("/")
def index() -> ResponseReturnValue:
    """The account page for a signed-in user, else the sign-in page."""
    return flask.redirect(flask.url_for("account.index" if engine.account() else "auth.sign_in"))


@blueprint.route("/signup", methods=["GET", "POST"])
def sign_up() -> ResponseReturnValue:
    """Create an account (email + password) and sign it in."""
    if flask.request.method == "GET":
        return flask.render_template("auth/signup.html")
    email = flask.request.form.get("email", "")
    password = flask.request.form.get("password", "")
    try:
        who = accounts.create(email, password, engine.now())
    except accounts.AccountError as error:
        flask.flash(str(error), "error")
        return flask.render_template("auth/signup.html", email=email), 400
    send_verification(who)
    engine.start_session(who, engine.now())
    flask.flash("Welcome! We sent a link to %s to verify it." % who.email, "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/signin", methods=["GET", "POST"])
def sign_in() -> ResponseReturnValue:
    """Check the password, then ask libmfa whether a second factor is needed.

    The browser's remembered-device token, if it holds one, goes with the
    first factor: libmfa signs the user in without a second factor when it
    still remembers the browser, and asks for one otherwise (then the
    stale cookie is dropped). Someone already signed in who opens the page goes
    to the account page (or ``next``).
    """
    next_url = safe_next(flask.request.values.get("next"))
    if flask.request.method == "GET":
        if engine.account() is not None:
            return flask.redirect(next_url)
        return _sign_in_page(next_url)
    email = flask.request.form.get("email", "")
    who = accounts.authenticate(email, flask.request.form.get("password", ""))
    if who is None:
        flask.flash("Wrong email or password.", "error")
        return _sign_in_page(next_url, email), 401
    auth_time = engine.now()
    token = devices.token()
    try:
        result = engine.context().sign_in(engine.user_for(who, auth_time), device_token=token)
    except libmfa.SecondFactorRequired as required:
        assert required.resolver is not None
        response = second_factor.begin(required.resolver, second_factor.SIGN_IN, auth_time, next_url)
        if token is not None:
            devices.drop(response)  # libmfa no longer remembers this browser
        return response
    except libmfa.MFAError as error:
        messages.flash(error)
        return _sign_in_page(next_url, email), 403
    engine.start_session(who, auth_time)
    if result.used_remembered_device:
        flask.flash("Signed in on a remembered browser: no second factor needed here until it is forgotten.",
                    "info")
    return flask.redirect(next_url)


def _sign_in_page(next_url: str, email: str = "") -> str:
    """The sign-in page: email and password, and a passkey (:mod:`mfa_web.passkeys`) when the server allows it."""
    from . import passkeys

    return flask.render_template("auth/signin.html", email=email, next=next_url,
                                 passkey_options=passkeys.sign_in_options())


@blueprint.post("/signout")
def sign_out() -> ResponseReturnValue:
    """End the session (its row is deleted: the cookie is worthless afterwards)."""
    sessions.current().clear()
    sessions.rotate()
    flask.flash("You are signed out.", "info")
    return flask.redirect(flask.url_for("auth.sign_in"))


@blueprint.get("/verify-email/<token>")
def verify_email(token: str) -> ResponseReturnValue:
    """The link of the verification email."""
    try:
        claims = _serializer().loads(token, max_age=VERIFY_LINK_LIFETIME)
        uid, email = str(claims["uid"]), str(claims["email"])
    except (itsdangerous.BadData, KeyError, TypeError):
        flask.flash("This verification link is invalid or has expired. Ask for a new one.", "error")
        return flask.redirect(flask.url_for("auth.index"))
    if accounts.mark_verified(uid, email):
        flask.flash("Your email address %s is verified." % email, "success")
    else:
        flask.flash("This verification link is for an email address the account no longer has.", "error")
    return flask.redirect(flask.url_for("auth.index"))


@blueprint.post("/verify-email/resend")
@login_required
def resend_verification() -> ResponseReturnValue:
    """Send the verification email again."""
    who = engine.require_account()
    if not who.email_verified:
        send_verification(who)
        flask.flash("We sent a new verification link to %s." % who.email, "info")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/reauth", methods=["GET", "POST"])
@login_required
def reauth() -> ResponseReturnValue:
    """Step-up: the password again, then a second factor if the user has one."""
    next_url = safe_next(flask.request.values.get("next"))
    who = engine.require_account()
    if flask.request.method == "GET":
        return flask.render_template("auth/reauth.html", next=next_url, email=who.email)
    if not accounts.check_password(who, flask.request.form.get("password", "")):
        flask.flash("Wrong password.", "error")
        return flask.render_template("auth/reauth.html", next=next_url, email=who.email), 401
    auth_time = engine.now()
    try:
        engine.context().sign_in(engine.user_for(who, auth_time))
    except libmfa.SecondFactorRequired as required:
        assert required.resolver is not None
        return second_factor.begin(required.resolver, second_factor.STEP_UP, auth_time, next_url)
    except libmfa.MFAError as error:
        messages.flash(error)
        return flask.redirect(flask.url_for("account.index"))
    engine.mark_stepped_up(auth_time)
    return flask.redirect(next_url)
