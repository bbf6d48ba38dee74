"""YubiKeys (Yubico OTP): a touch types a 44-character one-time password.

An operator imports the key (``mfactl tokens import``, the ``yubikey-csv``
import, :meth:`libmfa.Admin.import_token`) and assigns it, or leaves it
unassigned for its user to claim from the account page with a touch (the
OTP names its key). Signing in, the key's hint leads to a field the touch
fills; libmfa refuses an OTP whose counters do not rise (a replay).
"""

from __future__ import annotations

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor
from ..auth import login_required
from . import FactorKind, display_name

blueprint = flask.Blueprint("yubico_otp", __name__, url_prefix="/factors/yubikey")
GENERATOR = libmfa.YubicoOTPMultiFactorGenerator

KIND = FactorKind(factor_id="yubico_otp", label="YubiKey", provider="yubico_otp", blueprint=blueprint,
                  sign_in_endpoint="yubico_otp.sign_in")

#: How the YubiKey forms word the errors that differ from the other kinds'.
SENTENCES: messages.Sentences = {
    libmfa.InvalidVerificationCodeError: "That touch was not accepted: it was already used, or it is not from "
                                         "this YubiKey (or, claiming, from an unassigned one). Touch the key again.",
    libmfa.InvalidArgumentError: "That is not what a YubiKey types. Put the cursor in the field and touch the key.",
    libmfa.SecondFactorExistsError: "This YubiKey is already one of your second factors.",
    libmfa.TokenNotFoundError: "No unassigned YubiKey matches this touch. Ask your administrator to register it.",
}


def _otp() -> str:
    return flask.request.form.get("otp", "").strip()


@blueprint.post("/claim")
@login_required
def claim() -> ResponseReturnValue:
    """Claim an unassigned YubiKey with a touch."""
    name = display_name(flask.request.form.get("display_name", ""), "YubiKey")
    others = engine.other_sessions()
    try:
        info = engine.multi_factor().enroll(GENERATOR.assertion_for_enrollment(engine.enrollment_session(), _otp()),
                                            name)
    except libmfa.MFAError as error:
        messages.flash(error, SENTENCES)
        return flask.redirect(flask.url_for("account.index"))
    engine.reissue_credential()
    flask.flash(engine.changed("%s is enrolled." % info.display_name, others), "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """A touch of the key, for the pending sign-in or step-up."""
    try:
        hint = second_factor.hint(enrollment_id, KIND.factor_id)
    except libmfa.MFAError as error:
        return second_factor.restart(error)
    if flask.request.method == "GET":
        return flask.render_template("factors/yubico_otp/sign_in.html", hint=hint)
    try:
        return second_factor.finish(GENERATOR.assertion_for_sign_in(_otp(), hint.uid))
    except libmfa.MFAError as error:
        return second_factor.fail(error, flask.url_for("yubico_otp.sign_in", enrollment_id=enrollment_id),
                                  SENTENCES)
