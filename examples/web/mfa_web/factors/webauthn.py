"""Security keys and passkeys (WebAuthn): register one from the account page, sign in with it.

libmfa is the relying party: it makes the options that the browser's
``navigator.credentials.create()`` and ``.get()`` take, and verifies what
they return. The relying party id and the one allowed origin come from the
application's own address (``MFA_WEB_URL``, see
:attr:`mfa_web.settings.Settings.webauthn_config`).

Registering: the page carries libmfa's creation options (from an
enrollment session, so it needs a recent sign-in like every enrollment);
``static/webauthn.js`` turns them into the browser's call, and posts the
new credential's ``toJSON()`` form back with the name the user typed. The
challenge is a sealed libmfa token bound to this user and this enrollment
session: nothing waits in the server-side session between the two
requests, and a credential made for another user's or an older challenge
is refused (``INVALID_SESSION``).

A passkey ("Add a passkey", ``?passkey=1``): the options ask for a
discoverable credential that verifies the user
(``passkey_registration_options``); libmfa keeps what the browser says of
it (``credProps``), and such a passkey also signs its user in without a
password (:mod:`mfa_web.passkeys`).

Signing in: the hint chooser sends the user here with the credential's
enrollment id; the page carries libmfa's request options for that one
credential (the challenge bound to the pending sign-in), and the assertion
the browser returns resolves the sign-in. A key whose signature counter
went backwards (a copy) is refused as ``CREDENTIAL_CLONED`` and audited.
"""

from __future__ import annotations

import urllib.parse
from typing import Any, Dict

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor
from ..auth import login_required
from . import FactorKind, display_name

blueprint = flask.Blueprint("webauthn", __name__, url_prefix="/factors/webauthn")
GENERATOR = libmfa.WebAuthnMultiFactorGenerator

#: The longest credential JSON taken from a form (libmfa's own limit is 64 KiB).
MAX_CREDENTIAL = 32 * 1024


def _label(info: libmfa.MultiFactorInfo) -> str:
    """"Passkey" or "Security key": libmfa's hint for the credential ("synced passkey",
    "device-bound passkey", "passkey" or "security key"), as a kind."""
    return "Passkey" if "passkey" in info.hint else "Security key"


KIND = FactorKind(factor_id="webauthn", label="Security key or passkey", provider="webauthn", blueprint=blueprint,
                  sign_in_endpoint="webauthn.sign_in", label_for=_label)


def _credential() -> str:
    """The credential JSON the page's script put in the form ("" when there is none)."""
    value = flask.request.form.get("credential", "")
    return value if 0 < len(value) <= MAX_CREDENTIAL else ""


def _wrong_address() -> str:
    """The configured address when this page was opened at another host (WebAuthn cannot work there), else ""."""
    url = flask.current_app.config["MFA_WEB_URL"]
    if not url or urllib.parse.urlsplit(url).netloc == flask.request.host:
        return ""
    return str(url)


@blueprint.route("/enroll", methods=["GET", "POST"])
@login_required
def enroll() -> ResponseReturnValue:
    """The creation options for the browser; the credential it returns finishes the enrollment."""
    account = engine.require_account()
    passkey = flask.request.values.get("passkey") == "1"
    default = "Passkey" if passkey else "Security key"
    again: Dict[str, Any] = {"passkey": "1"} if passkey else {}
    if flask.request.method == "GET":
        try:
            if passkey:
                options = GENERATOR.passkey_registration_options(engine.enrollment_session(), account.email,
                                                                 hints=["client-device", "hybrid"])
            else:
                options = GENERATOR.registration_options(engine.enrollment_session(), account.email)
        except libmfa.MFAError as error:
            messages.flash(error)
            return flask.redirect(flask.url_for("account.index"))
        return flask.render_template("factors/webauthn/enroll.html", options=options, wrong_address=_wrong_address(),
                                     name=display_name(flask.request.args.get("name", ""), default), passkey=passkey)
    name = display_name(flask.request.form.get("display_name", ""), default)
    credential = _credential()
    if not credential:
        flask.flash("Your browser sent no credential. Try again, and use your security key or passkey when the "
                    "browser asks.", "error")
        return flask.redirect(flask.url_for("webauthn.enroll", name=name, **again))
    others = engine.other_sessions()
    try:
        info = engine.multi_factor().enroll(GENERATOR.assertion_for_enrollment(credential), name)
    except libmfa.MFAError as error:
        messages.flash(error, messages.WEBAUTHN)
        return flask.redirect(flask.url_for("webauthn.enroll", name=name, **again))  # a new challenge: try again
    engine.reissue_credential()
    signs_in = " You can sign in with it alone, without your password." if info.hint.endswith(" passkey") else ""
    flask.flash(engine.changed("%s (%s) is enrolled.%s" % (info.display_name, info.hint, signs_in), others), "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """The request options for the chosen credential; the assertion resolves the sign-in or step-up."""
    here = flask.url_for("webauthn.sign_in", enrollment_id=enrollment_id)
    try:
        hint = second_factor.hint(enrollment_id, KIND.factor_id)
    except libmfa.MFAError as error:
        return second_factor.restart(error)
    if flask.request.method == "GET":
        try:
            options = GENERATOR.authentication_options(second_factor.resolver(), hint.uid)
        except libmfa.MFAError as error:
            return second_factor.fail(error, flask.url_for("second_factor.choose"), messages.WEBAUTHN)
        return flask.render_template("factors/webauthn/sign_in.html", hint=hint, kind=_label(hint), options=options,
                                     wrong_address=_wrong_address())
    credential = _credential()
    if not credential:
        flask.flash("Your browser sent no credential. Try again, and use your security key or passkey when the "
                    "browser asks.", "error")
        return flask.redirect(here)
    try:
        return second_factor.finish(GENERATOR.assertion_for_sign_in(credential, hint.uid))
    except libmfa.InvalidSessionError as error:
        if second_factor.alive():
            messages.flash(error, messages.WEBAUTHN)  # an old or foreign challenge: the sign-in goes on
            return flask.redirect(here)
        return second_factor.restart(error)
    except libmfa.MFAError as error:
        return second_factor.fail(error, here, messages.WEBAUTHN)
