"""Authenticator apps (TOTP): enroll from a QR code, sign in with a code.

Enrolling (the guides' TOTP flow): an enrollment session from libmfa, a new
secret, its QR code (a PNG made by libmfa, inlined in the page) and its key
as text, then the code the app shows, which finishes the enrollment. The
secret's session info waits in the server-side session until then.
"""

from __future__ import annotations

import base64

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor, sessions
from ..auth import login_required
from . import FactorKind, display_name

blueprint = flask.Blueprint("totp", __name__, url_prefix="/factors/totp")
GENERATOR = libmfa.TOTPMultiFactorGenerator
STATE = "factor:totp:enroll"

KIND = FactorKind(factor_id="totp", label="Authenticator app", provider="totp", blueprint=blueprint,
                  sign_in_endpoint="totp.sign_in")


def _secret() -> libmfa.TOTPSecret | None:
    state = sessions.current().get(STATE)
    if not isinstance(state, dict):
        return None
    return libmfa.TOTPSecret(**state)


@blueprint.post("/enroll/start")
@login_required
def start() -> ResponseReturnValue:
    """Generate a secret and show it."""
    try:
        secret = GENERATOR.generate_secret(engine.enrollment_session())
    except libmfa.MFAError as error:
        messages.flash(error)
        return flask.redirect(flask.url_for("account.index"))
    sessions.current()[STATE] = {
        "shared_secret_key": secret.shared_secret_key,
        "hashing_algorithm": secret.hashing_algorithm,
        "code_length": secret.code_length,
        "code_interval_seconds": secret.code_interval_seconds,
        "enrollment_completion_deadline": secret.enrollment_completion_deadline,
        "session_info": secret.session_info,
    }
    return flask.redirect(flask.url_for("totp.enroll"))


@blueprint.route("/enroll", methods=["GET", "POST"])
@login_required
def enroll() -> ResponseReturnValue:
    """The QR code and the key; the code from the app finishes the enrollment."""
    secret = _secret()
    if secret is None:
        return flask.redirect(flask.url_for("account.index"))
    if flask.request.method == "POST":
        code = flask.request.form.get("code", "").strip().replace(" ", "")
        name = display_name(flask.request.form.get("display_name", ""), "Authenticator app")
        others = engine.other_sessions()
        try:
            info = engine.multi_factor().enroll(GENERATOR.assertion_for_enrollment(secret, code), name)
        except libmfa.MFAError as error:
            messages.flash(error)
            if isinstance(error, (libmfa.CodeExpiredError, libmfa.InvalidSessionError,
                                  libmfa.UserTokenExpiredError)):
                sessions.current().pop(STATE, None)
                return flask.redirect(flask.url_for("account.index"))
            return flask.redirect(flask.url_for("totp.enroll"))
        sessions.current().pop(STATE, None)
        engine.reissue_credential()
        flask.flash(engine.changed("%s is enrolled." % info.display_name, others), "success")
        return flask.redirect(flask.url_for("account.index"))
    account = engine.require_account()
    issuer = flask.current_app.config["MFA_WEB_ISSUER"]
    png = secret.qr_png(account.email, issuer)
    qr = base64.b64encode(png).decode("ascii")
    width = int.from_bytes(png[16:20], "big") // 2  # libmfa draws 8 pixels a module: show 4, still sharp
    key = secret.shared_secret_key
    grouped = " ".join(key[index:index + 4] for index in range(0, len(key), 4))
    minutes = max(0, (secret.enrollment_completion_deadline - engine.now()) // 60)
    return flask.render_template("factors/totp/enroll.html", qr=qr, width=width, key=grouped, minutes=minutes,
                                 digits=secret.code_length)


@blueprint.post("/enroll/cancel")
@login_required
def cancel() -> ResponseReturnValue:
    """Forget the secret being enrolled."""
    sessions.current().pop(STATE, None)
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """The code from the app, for the pending sign-in or step-up."""
    try:
        hint = second_factor.hint(enrollment_id, KIND.factor_id)
    except libmfa.MFAError as error:
        return second_factor.restart(error)
    if flask.request.method == "GET":
        return flask.render_template("factors/totp/sign_in.html", hint=hint)
    code = flask.request.form.get("code", "").strip().replace(" ", "")
    try:
        return second_factor.finish(GENERATOR.assertion_for_sign_in(hint.uid, code))
    except libmfa.MFAError as error:
        return second_factor.fail(error, flask.url_for("totp.sign_in", enrollment_id=enrollment_id))
