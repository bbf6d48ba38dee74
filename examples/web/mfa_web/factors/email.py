"""Email codes: enroll an address (a code is mailed to it), sign in with a code mailed to it.

libmfa makes the code, keeps only its keyed hash and hands the message to
the application's mailer (in development, the outbox that ``/dev/outbox``
shows). The verification id waits in the server-side session until the
user types the code; the address is shown back (it is the user's own) and
masked in the hint chooser.
"""

from __future__ import annotations

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor, sessions
from ..auth import login_required
from . import FactorKind, display_name, sent_codes

blueprint = flask.Blueprint("email", __name__, url_prefix="/factors/email")
ENROLL = "factor:email:enroll"
SIGN_IN = "factor:email:sign_in"

KIND = FactorKind(factor_id="email", label="Email", provider="email", blueprint=blueprint,
                  sign_in_endpoint="email.sign_in")

#: What the errors shared with phones mean for an email address.
SENTENCES: messages.Sentences = {
    libmfa.SecondFactorExistsError: "This address is already one of your second factors.",
    libmfa.QuotaExceededError: "Too many emails were sent. Try again later.",
}


def _provider() -> libmfa.EmailAuthProvider:
    return libmfa.EmailAuthProvider(engine.context())


@blueprint.route("/enroll", methods=["GET", "POST"])
@login_required
def enroll() -> ResponseReturnValue:
    """The address and a name; mails the code."""
    state = sessions.current().get(ENROLL)
    if flask.request.method == "GET":
        return flask.render_template("factors/email/enroll.html", state=state if isinstance(state, dict) else {})
    address = flask.request.form.get("address", "").strip()
    name = display_name(flask.request.form.get("display_name", ""), "Email")
    try:
        verification_id = _provider().send_verification_code(address, session=engine.enrollment_session())
    except libmfa.MFAError as error:
        messages.flash(error, SENTENCES)
        sessions.current()[ENROLL] = {"address": address, "name": name}
        return flask.redirect(flask.url_for("email.enroll"))
    sessions.current()[ENROLL] = {"address": address, "name": name, "verification_id": verification_id}
    return flask.redirect(flask.url_for("email.verify"))


@blueprint.route("/enroll/verify", methods=["GET", "POST"])
@login_required
def verify() -> ResponseReturnValue:
    """The code from the email finishes the enrollment."""
    state = sessions.current().get(ENROLL)
    if not isinstance(state, dict) or "verification_id" not in state:
        return flask.redirect(flask.url_for("email.enroll"))
    if flask.request.method == "GET":
        return flask.render_template("factors/email/verify.html", address=state["address"])
    code = flask.request.form.get("code", "").strip().replace(" ", "")
    credential = libmfa.EmailAuthProvider.credential(state["verification_id"], code)
    others = engine.other_sessions()
    try:
        info = engine.multi_factor().enroll(libmfa.EmailMultiFactorGenerator.assertion(credential), state["name"])
    except libmfa.MFAError as error:
        messages.flash(error, SENTENCES)
        if isinstance(error, libmfa.InvalidVerificationCodeError):
            return flask.redirect(flask.url_for("email.verify"))
        del state["verification_id"]
        sessions.current()[ENROLL] = state
        return flask.redirect(flask.url_for("email.enroll"))
    sessions.current().pop(ENROLL, None)
    engine.reissue_credential()
    flask.flash(engine.changed("%s (%s) is enrolled." % (info.display_name, info.hint), others), "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.post("/enroll/cancel")
@login_required
def cancel() -> ResponseReturnValue:
    """Forget the address being enrolled."""
    sessions.current().pop(ENROLL, None)
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """Mail a code to the chosen address, then check it, for the pending sign-in or step-up."""
    return sent_codes.sign_in(
        KIND, enrollment_id, SIGN_IN,
        send=lambda hint: _provider().send_verification_code_for_sign_in(hint, second_factor.resolver()),
        assertion=lambda verification_id, code: libmfa.EmailMultiFactorGenerator.assertion(
            libmfa.EmailAuthProvider.credential(verification_id, code)),
        sentences=SENTENCES)
