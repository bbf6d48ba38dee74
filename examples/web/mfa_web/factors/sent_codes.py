"""What the kinds that send codes (phones, email addresses) share: their sign-in page.

The chosen factor gets a code (a text message, an email) when the person
asks for one; the verification id waits in the server-side session until
the code is typed; a dead code (expired, used up) of a live sign-in is
dropped so that another can be sent.
"""

from __future__ import annotations

from typing import Callable, Optional

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .. import messages, second_factor, sessions
from . import FactorKind


def sign_in(kind: FactorKind, enrollment_id: str, state_key: str,
            send: Callable[[libmfa.MultiFactorInfo], str],
            assertion: Callable[[str, str], libmfa.MultiFactorAssertion],
            sentences: Optional[messages.Sentences] = None) -> ResponseReturnValue:
    """Send a code to the chosen factor, then check it, for the pending sign-in or step-up.

    ``send(hint)`` sends a code and returns its verification id;
    ``assertion(verification_id, code)`` makes the kind's assertion. The
    page is the kind's ``factors/<factor_id>/sign_in.html``.
    """
    here = flask.url_for(kind.sign_in_endpoint, enrollment_id=enrollment_id)
    try:
        hint = second_factor.hint(enrollment_id, kind.factor_id)
    except libmfa.MFAError as error:
        return second_factor.restart(error)
    state = sessions.current().get(state_key)
    sent = isinstance(state, dict) and state.get("enrollment_id") == enrollment_id
    if flask.request.method == "GET":
        return flask.render_template("factors/%s/sign_in.html" % kind.factor_id, hint=hint, sent=sent)
    if flask.request.form.get("action") == "send":
        try:
            verification_id = send(hint)
        except libmfa.MFAError as error:
            return second_factor.fail(error, here, sentences)
        sessions.current()[state_key] = {"enrollment_id": enrollment_id, "verification_id": verification_id}
        flask.flash("We sent a code to %s." % hint.hint, "info")
        return flask.redirect(here)
    if not sent or not isinstance(state, dict):
        return flask.redirect(here)
    code = flask.request.form.get("code", "").strip().replace(" ", "")
    try:
        return second_factor.finish(assertion(str(state["verification_id"]), code))
    except libmfa.MFAError as error:
        if isinstance(error, (libmfa.CodeExpiredError, libmfa.InvalidSessionError)) and second_factor.alive():
            sessions.current().pop(state_key, None)  # the code is dead, the sign-in is not: send another
            messages.flash(error)
            return flask.redirect(here)
        return second_factor.fail(error, here, sentences)
