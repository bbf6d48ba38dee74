"""Hardware OATH tokens (HOTP): the code a key-fob shows when its button is pressed.

An operator imports the token (``mfactl tokens import``, :meth:`libmfa.Admin.import_token`)
and either assigns it to its user or leaves it unassigned; the user then claims it
from the account page with its serial number and a code from it. Signing in, the
token's hint (its name and serial) leads to a code form.
"""

from __future__ import annotations

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor
from ..auth import login_required
from . import FactorKind, display_name

blueprint = flask.Blueprint("hotp", __name__, url_prefix="/factors/hotp")
GENERATOR = libmfa.HOTPMultiFactorGenerator

KIND = FactorKind(factor_id="hotp", label="Hardware token", provider="hotp", blueprint=blueprint,
                  sign_in_endpoint="hotp.sign_in")

#: How the hardware-token forms word the errors that differ from the other kinds'.
SENTENCES: messages.Sentences = {
    libmfa.InvalidVerificationCodeError: "That code is not right, or it was already used, or no unassigned "
                                         "token has this serial number. Press the button and enter the new code.",
    libmfa.SecondFactorExistsError: "This token is already one of your second factors.",
    libmfa.TokenNotFoundError: "No unassigned token has this serial number. Check the number on the back of the token.",
}


def _code(field: str) -> str:
    return flask.request.form.get(field, "").strip().replace(" ", "")


@blueprint.post("/claim")
@login_required
def claim() -> ResponseReturnValue:
    """Claim an unassigned token: its serial number and the code it shows."""
    serial = flask.request.form.get("serial", "").strip()
    name = display_name(flask.request.form.get("display_name", ""), "Hardware token")
    others = engine.other_sessions()
    try:
        assertion = GENERATOR.assertion_for_enrollment(engine.enrollment_session(), serial, _code("code"))
        info = engine.multi_factor().enroll(assertion, name)
    except libmfa.MFAError as error:
        messages.flash(error, SENTENCES)
        return flask.redirect(flask.url_for("account.index"))
    engine.reissue_credential()
    flask.flash(engine.changed("%s is enrolled." % info.display_name, others), "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """The token's code, for the pending sign-in or step-up."""
    try:
        hint = second_factor.hint(enrollment_id, KIND.factor_id)
    except libmfa.MFAError as error:
        return second_factor.restart(error)
    if flask.request.method == "GET":
        return flask.render_template("factors/hotp/sign_in.html", hint=hint)
    try:
        return second_factor.finish(GENERATOR.assertion_for_sign_in(hint.uid, _code("code")))
    except libmfa.MFAError as error:
        return second_factor.fail(error, flask.url_for("hotp.sign_in", enrollment_id=enrollment_id), SENTENCES)
