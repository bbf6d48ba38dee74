"""Recovery codes: a set of single-use codes for the day the phone is lost.

libmfa keeps only their keyed hashes, so the page shows them once, right
after they are generated; a new set replaces the old one. The set is one
factor, listed with the others, and one hint at sign-in ("7 codes left").
"""

from __future__ import annotations

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor, sessions
from ..auth import login_required
from . import FactorKind

blueprint = flask.Blueprint("recovery", __name__, url_prefix="/factors/recovery")
GENERATOR = libmfa.RecoveryCodesMultiFactorGenerator
SHOW_ONCE = "factor:recovery:codes"

KIND = FactorKind(factor_id="recovery", label="Recovery codes", provider="recovery", blueprint=blueprint,
                  sign_in_endpoint="recovery.sign_in")


@blueprint.post("/generate")
@login_required
def generate() -> ResponseReturnValue:
    """Generate a new set (replacing the old one) and show it once."""
    try:
        codes = GENERATOR.generate_codes(engine.enrollment_session(), "Recovery codes")
    except libmfa.MFAError as error:
        messages.flash(error)
        return flask.redirect(flask.url_for("account.index"))
    engine.reissue_credential()
    sessions.current()[SHOW_ONCE] = list(codes.codes)
    return flask.redirect(flask.url_for("recovery.show"))


@blueprint.get("/codes")
@login_required
def show() -> ResponseReturnValue:
    """The new codes, this once."""
    codes = sessions.current().pop(SHOW_ONCE, None)
    if not isinstance(codes, list):
        flask.flash("Recovery codes are shown only once. Generate a new set if you lost them.", "info")
        return flask.redirect(flask.url_for("account.index"))
    return flask.render_template("factors/recovery/codes.html", codes=codes)


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """A recovery code, for the pending sign-in or step-up."""
    try:
        hint = second_factor.hint(enrollment_id, KIND.factor_id)
    except libmfa.MFAError as error:
        return second_factor.restart(error)
    if flask.request.method == "GET":
        return flask.render_template("factors/recovery/sign_in.html", hint=hint)
    code = flask.request.form.get("code", "").strip()
    try:
        return second_factor.finish(GENERATOR.assertion_for_sign_in(code, hint.uid))
    except libmfa.MFAError as error:
        return second_factor.fail(error, flask.url_for("recovery.sign_in", enrollment_id=enrollment_id))
