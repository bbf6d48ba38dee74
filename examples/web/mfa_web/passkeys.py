"""Signing in with a passkey alone: from the email field's autofill, or with a button.

A passkey is registered from the account page ("Add a passkey": a
discoverable credential that verifies the user, see
:mod:`mfa_web.factors.webauthn`); ``webauthn.passkeySignIn`` lets it sign
its user in without a password. The sign-in page carries libmfa's request
options (``Context.passkey_sign_in_options``: no user named, empty
``allowCredentials``, user verification required, a fresh challenge), and
``static/webauthn.js`` asks the browser for a passkey two ways: with
``mediation: "conditional"``, so that the email field (``autocomplete=
"username webauthn"``) offers the passkeys the browser holds for this site;
and, with the "Sign in with a passkey" button, in the browser's own dialog.
The credential it returns is posted here; libmfa finds the credential by
its id, checks that its user handle is its user's, checks the signature,
the counter and the flags, and names the user: the session starts as
after a password and a second factor (both were met).

Every refusal that could tell whether an account exists reads the same
(libmfa answers them all one way, ``INVALID_VERIFICATION_CODE``); a user
without passkeys signs in with the password as always.
"""

from __future__ import annotations

import flask
from flask.typing import ResponseReturnValue
import libmfa

from . import accounts, engine, messages
from .auth import safe_next

blueprint = flask.Blueprint("passkeys", __name__)

#: The longest credential JSON taken from a form (libmfa's own limit is 64 KiB).
MAX_CREDENTIAL = 32 * 1024


def sign_in_options() -> str:
    """libmfa's request options for the sign-in page, or "" when passkey sign-in is off."""
    try:
        return engine.context().passkey_sign_in_options(hints=["client-device", "hybrid"])
    except libmfa.OperationNotAllowedError:
        return ""


@blueprint.post("/signin/passkey")
def sign_in() -> ResponseReturnValue:
    """The passkey the browser returned: libmfa names the user, and the session starts."""
    next_url = safe_next(flask.request.form.get("next"))
    credential = flask.request.form.get("credential", "")
    if not 0 < len(credential) <= MAX_CREDENTIAL:
        flask.flash("Your browser sent no passkey. Try again, or sign in with your email and password.", "error")
        return flask.redirect(flask.url_for("auth.sign_in", next=next_url))
    try:
        result = engine.context().sign_in_with_passkey(credential)
    except libmfa.MFAError as error:
        messages.flash(error, messages.PASSKEY)
        return flask.redirect(flask.url_for("auth.sign_in", next=next_url))
    who = accounts.find(result.uid)
    if who is None:  # the account was deleted since; libmfa's factors outlived it
        flask.flash(messages.PASSKEY[libmfa.InvalidVerificationCodeError], "error")
        return flask.redirect(flask.url_for("auth.sign_in", next=next_url))
    engine.start_session(who, result.time)
    engine.mark_stepped_up(result.time)  # a passkey is both factors: as fresh as a password and a second factor
    flask.flash("Signed in with your passkey.", "success")
    return flask.redirect(next_url)
