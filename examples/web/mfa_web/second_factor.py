"""The second step of a sign-in (or of a step-up): pick a factor from the hints, prove it.

When the password is right and the user has second factors, libmfa answers
``SecondFactorRequired`` with a resolver: the hints and a pending credential
(opaque, expiring, single use). The pending credential stays in the
server-side session (:func:`begin`); the chooser shows the hints (display
name, kind, masked number, codes left, security key or passkey); each kind's view builds its
assertion and calls :func:`finish`, which resolves the sign-in and then
either starts the session (sign-in) or records the step-up.
"""

from __future__ import annotations

from typing import Optional

import flask
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response
import libmfa

from . import accounts, engine, factors, messages, sessions
from .accounts import Account

blueprint = flask.Blueprint("second_factor", __name__)

SIGN_IN = "sign_in"
STEP_UP = "step_up"


def begin(resolver: libmfa.MultiFactorResolver, purpose: str, auth_time: int, next_url: str) -> Response:
    """Keep the resolver's pending credential server-side and show the chooser."""
    session = sessions.current()
    session["pending"] = {"credential": resolver.session, "uid": resolver.uid, "purpose": purpose,
                          "auth_time": auth_time, "next": next_url}
    for key in [key for key in session if key.startswith("factor:")]:
        del session[key]  # a kind's state from an earlier attempt
    return flask.redirect(flask.url_for("second_factor.choose"))


def pending() -> Optional[dict[str, object]]:
    """The sign-in or step-up in progress, or None."""
    value = sessions.current().get("pending")
    return value if isinstance(value, dict) else None


def resolver() -> libmfa.MultiFactorResolver:
    """The resolver of the pending sign-in, rebuilt from its pending credential.

    Raises libmfa.InvalidSessionError (expired or used) or UserTokenExpiredError
    (revoked since); :func:`restart` handles both.
    """
    state = pending()
    if state is None:
        raise libmfa.InvalidSessionError(int(libmfa.Status.INVALID_SESSION), "no sign-in in progress")
    return engine.context().resolver(str(state["credential"]))


def alive() -> bool:
    """Whether the pending sign-in's credential still works (after a code or a challenge of it failed)."""
    try:
        resolver()
    except libmfa.MFAError:
        return False
    return True


def hint(enrollment_id: str, factor_id: str) -> libmfa.MultiFactorInfo:
    """The pending sign-in's hint with this id, of this kind; 404 if it has none."""
    for item in resolver().hints:
        if item.uid == enrollment_id and item.factor_id == factor_id:
            return item
    flask.abort(404)


def restart(error: libmfa.MFAError, sentences: Optional[messages.Sentences] = None) -> Response:
    """The pending sign-in cannot go on: say why and go back to its start."""
    state = pending() or {}
    sessions.current().pop("pending", None)
    messages.flash(error, sentences)
    if state.get("purpose") == STEP_UP:
        return flask.redirect(flask.url_for("auth.reauth", next=state.get("next") or "/account"))
    return flask.redirect(flask.url_for("auth.sign_in"))


def finish(assertion: libmfa.MultiFactorAssertion) -> Response:
    """Resolve the pending sign-in with ``assertion``; then sign in, or record the step-up.

    libmfa errors propagate: the kind's view shows them (a wrong code can be
    retried) or calls :func:`restart` (expired, used, revoked).
    """
    state = pending()
    if state is None:
        return flask.redirect(flask.url_for("auth.sign_in"))
    result = resolver().resolve_sign_in(assertion)
    session = sessions.current()
    session.pop("pending", None)
    for key in [key for key in session if key.startswith("factor:")]:
        del session[key]
    who: Optional[Account] = accounts.find(result.uid)
    if who is None or result.uid != state["uid"]:
        flask.abort(400)
    auth_time = int(str(state["auth_time"]))
    next_url = str(state.get("next") or flask.url_for("account.index"))
    if state["purpose"] == STEP_UP:
        if session.get("uid") != result.uid:
            flask.abort(400)
        engine.mark_stepped_up(auth_time)
    else:
        engine.start_session(who, auth_time)
    if result.used_recovery_code:
        flask.flash("You used a recovery code; %s left. Generate a new set if you are running low."
                    % result.claims.get("recovery_codes_remaining", "?"), "warning")
    return flask.redirect(next_url)


def fail(error: libmfa.MFAError, retry: str, sentences: Optional[messages.Sentences] = None) -> Response:
    """Show a failed proof: retry on the same page, or start over when the sign-in is dead.

    ``sentences``: a kind's own wording of some errors (see :data:`mfa_web.messages.WEBAUTHN`).
    """
    if isinstance(error, (libmfa.InvalidSessionError, libmfa.UserTokenExpiredError, libmfa.TenantMismatchError)):
        return restart(error)
    messages.flash(error, sentences)
    return flask.redirect(retry)


@blueprint.get("/signin/second-factor")
def choose() -> ResponseReturnValue:
    """The hint chooser."""
    state = pending()
    if state is None:
        return flask.redirect(flask.url_for("auth.sign_in"))
    try:
        hints = resolver().hints
    except libmfa.MFAError as error:
        return restart(error)
    choices = [(item, factors.by_id(item.factor_id)) for item in hints]
    return flask.render_template("second_factor/choose.html", choices=choices,
                                 step_up=state["purpose"] == STEP_UP)


@blueprint.post("/signin/second-factor/cancel")
def cancel() -> ResponseReturnValue:
    """Give up the pending sign-in."""
    state = pending() or {}
    sessions.current().pop("pending", None)
    if state.get("purpose") == STEP_UP:
        return flask.redirect(flask.url_for("account.index"))
    return flask.redirect(flask.url_for("auth.sign_in"))
