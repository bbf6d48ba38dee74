"""Phones (SMS codes): enroll a number, sign in with a code sent to it.

Every SMS request carries the page's app-check token (``app_credential``,
see :mod:`mfa_web.app_check`); libmfa hands it to the verifier before it
sends anything. libmfa takes strict E.164 only; people type numbers with
spaces, dashes, dots and brackets, so the application takes those out
(:func:`normalized`) and shows the number back in E.164 before the code is
sent. The verification id libmfa returns waits in the server-side
session until the user types the code. In development the SMS goes to the
outbox that ``/dev/outbox`` shows.
"""

from __future__ import annotations

import re
from typing import Optional

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import engine, messages, second_factor, sessions
from ..auth import login_required
from . import FactorKind, display_name, sent_codes

blueprint = flask.Blueprint("phone", __name__, url_prefix="/factors/phone")
ENROLL = "factor:phone:enroll"
SIGN_IN = "factor:phone:sign_in"

KIND = FactorKind(factor_id="phone", label="Phone (SMS)", provider="phone", blueprint=blueprint,
                  sign_in_endpoint="phone.sign_in")


#: What people put between the digits of a phone number.
_PUNCTUATION = re.compile(r"[\s\-.()\u00a0\u2010-\u2015]")


def normalized(typed: str) -> Optional[str]:
    """The number in E.164 when ``typed`` is one with spaces, dashes, dots or brackets ("+1 (510) 555-1234"), else None."""
    number = _PUNCTUATION.sub("", typed)
    return number if re.fullmatch(r"\+[1-9][0-9]{6,14}", number) else None


def _provider() -> libmfa.PhoneAuthProvider:
    return libmfa.PhoneAuthProvider(engine.context())


def _app_credential() -> Optional[str]:
    return flask.request.form.get("app_credential") or None


@blueprint.route("/enroll", methods=["GET", "POST"])
@login_required
def enroll() -> ResponseReturnValue:
    """The number and a name; sends the code."""
    state = sessions.current().get(ENROLL)
    if flask.request.method == "GET":
        return flask.render_template("factors/phone/enroll.html", state=state if isinstance(state, dict) else {})
    typed = flask.request.form.get("phone_number", "")
    name = display_name(flask.request.form.get("display_name", ""), "Phone")
    number = normalized(typed) or "".join(typed.split())
    if number != typed.strip() and normalized(typed) and flask.request.form.get("confirmed") != number:
        # Shown back as libmfa takes it, before anything is sent.
        sessions.current()[ENROLL] = {"number": number, "name": name}
        return flask.render_template("factors/phone/confirm.html", number=number, typed=typed.strip(), name=name)
    try:
        verification_id = _provider().verify_phone_number(number, app_credential=_app_credential(),
                                                          session=engine.enrollment_session())
    except libmfa.MFAError as error:
        messages.flash(error)
        sessions.current()[ENROLL] = {"number": number, "name": name}
        return flask.redirect(flask.url_for("phone.enroll"))
    sessions.current()[ENROLL] = {"number": number, "name": name, "verification_id": verification_id}
    return flask.redirect(flask.url_for("phone.verify"))


@blueprint.route("/enroll/verify", methods=["GET", "POST"])
@login_required
def verify() -> ResponseReturnValue:
    """The code from the SMS finishes the enrollment."""
    state = sessions.current().get(ENROLL)
    if not isinstance(state, dict) or "verification_id" not in state:
        return flask.redirect(flask.url_for("phone.enroll"))
    if flask.request.method == "GET":
        return flask.render_template("factors/phone/verify.html", number=state["number"])
    code = flask.request.form.get("code", "").strip().replace(" ", "")
    credential = libmfa.PhoneAuthProvider.credential(state["verification_id"], code)
    others = engine.other_sessions()
    try:
        info = engine.multi_factor().enroll(libmfa.PhoneMultiFactorGenerator.assertion(credential), state["name"])
    except libmfa.MFAError as error:
        messages.flash(error)
        if isinstance(error, libmfa.InvalidVerificationCodeError):
            return flask.redirect(flask.url_for("phone.verify"))
        del state["verification_id"]
        sessions.current()[ENROLL] = state
        return flask.redirect(flask.url_for("phone.enroll"))
    sessions.current().pop(ENROLL, None)
    engine.reissue_credential()
    flask.flash(engine.changed("%s (%s) is enrolled." % (info.display_name, info.hint), others), "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.post("/enroll/cancel")
@login_required
def cancel() -> ResponseReturnValue:
    """Forget the number being enrolled."""
    sessions.current().pop(ENROLL, None)
    return flask.redirect(flask.url_for("account.index"))


@blueprint.route("/sign-in/<enrollment_id>", methods=["GET", "POST"])
def sign_in(enrollment_id: str) -> ResponseReturnValue:
    """Send a code to the chosen number, then check it, for the pending sign-in or step-up."""
    return sent_codes.sign_in(
        KIND, enrollment_id, SIGN_IN,
        send=lambda hint: _provider().verify_phone_number_for_sign_in(hint, second_factor.resolver(),
                                                                      app_credential=_app_credential()),
        assertion=lambda verification_id, code: libmfa.PhoneMultiFactorGenerator.assertion(
            libmfa.PhoneAuthProvider.credential(verification_id, code)))
