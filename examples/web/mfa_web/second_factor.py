"""The second step of a sign-in (or of a step-up): pick a factor from the hints, prove it.

When the password is right and the user has second factors, libmfa answers
``SecondFactorRequired`` with a resolver: the hints and a pending credential
(opaque, expiring, single use). The pending credential stays in the
server-side session (:func:`begin`); the chooser shows the hints (display
name, kind, masked number or address, security key or passkey), the one the
user signed in with last time first, and recovery codes as a way out below
them; when that one is a security key or passkey, its prompt starts by
itself. Each kind's view builds its assertion and calls :func:`finish`,
which resolves the sign-in and then either starts the session (sign-in,
remembering the browser if the user asked) or records the step-up.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import flask
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response
import libmfa

from . import accounts, audit, devices, engine, factors, messages, sessions
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
    pending_resolver = resolver()
    result = pending_resolver.resolve_sign_in(assertion)
    session = sessions.current()
    session.pop("pending", None)
    for key in [key for key in session if key.startswith("factor:")]:
        del session[key]
    who: Optional[Account] = accounts.find(result.uid)
    if who is None or result.uid != state["uid"]:
        flask.abort(400)
    auth_time = int(str(state["auth_time"]))
    next_url = str(state.get("next") or flask.url_for("account.index"))
    device: Optional[libmfa.DeviceToken] = None
    if state["purpose"] == STEP_UP:
        if session.get("uid") != result.uid:
            flask.abort(400)
        engine.mark_stepped_up(auth_time)
    else:
        engine.start_session(who, auth_time)
        if flask.request.form.get("remember") == "yes" and devices.days() is not None:
            try:
                device = pending_resolver.remember_device(devices.label())
            except libmfa.MFAError as error:  # the sign-in stands; only remembering failed
                messages.flash(error)
    if result.used_recovery_code:
        flask.flash("You used a recovery code; %s left. Generate a new set if you are running low."
                    % result.claims.get("recovery_codes_remaining", "?"), "warning")
    response = flask.redirect(next_url)
    if device is not None:
        devices.keep(response, device)
    return response


def fail(error: libmfa.MFAError, retry: str, sentences: Optional[messages.Sentences] = None) -> Response:
    """Show a failed proof: retry on the same page, or start over when the sign-in is dead.

    ``sentences``: a kind's own wording of some errors (see :data:`mfa_web.messages.WEBAUTHN`).
    """
    if isinstance(error, (libmfa.InvalidSessionError, libmfa.UserTokenExpiredError, libmfa.TenantMismatchError)):
        return restart(error)
    messages.flash(error, sentences)
    return flask.redirect(retry)


def signing_in_as() -> str:
    """The email address of the account the pending sign-in is for ("" when none is pending)."""
    state = pending()
    who = accounts.find(str(state["uid"])) if state else None
    return who.email if who else ""


def remember_days() -> Optional[int]:
    """The days "Remember this browser" offers, or None (a step-up, or libmfa does not allow it)."""
    state = pending()
    if state is None or state.get("purpose") != SIGN_IN:
        return None
    return devices.days()


def ordered(hints: List[libmfa.MultiFactorInfo], last: str) -> List[libmfa.MultiFactorInfo]:
    """The hints with the factor signed in with last (enrollment id ``last``) first, the others in their order."""
    return sorted(hints, key=lambda item: item.uid != last)


@blueprint.get("/signin/second-factor")
def choose() -> ResponseReturnValue:
    """The hint chooser: the factor used last first, recovery codes as a way out below."""
    state = pending()
    if state is None:
        return flask.redirect(flask.url_for("auth.sign_in"))
    try:
        hints = resolver().hints
    except libmfa.MFAError as error:
        return restart(error)
    last = audit.last_factor(str(state["uid"]))
    hints = ordered(hints, last)
    main = [item for item in hints if item.factor_id != "recovery"] or hints
    fallback = next((item for item in hints if item.factor_id == "recovery" and item not in main), None)
    choices = [(item, factors.by_id(item.factor_id)) for item in main]
    auto: Optional[Tuple[libmfa.MultiFactorInfo, str]] = None
    first = main[0] if main else None
    if first is not None and first.factor_id == "webauthn" and first.uid == last and not state.get("auto_started"):
        # The security key signed in with last: its prompt starts by itself, once per sign-in.
        try:
            options = libmfa.WebAuthnMultiFactorGenerator.authentication_options(resolver(), first.uid)
        except libmfa.MFAError:
            options = None
        if options is not None:
            auto = (first, options)
            state["auto_started"] = True
            sessions.current()["pending"] = state
    return flask.render_template("second_factor/choose.html", choices=choices, fallback=fallback, auto=auto,
                                 last=last, step_up=state["purpose"] == STEP_UP)


@blueprint.post("/signin/second-factor/cancel")
def cancel() -> ResponseReturnValue:
    """Give up the pending sign-in."""
    state = pending() or {}
    sessions.current().pop("pending", None)
    if state.get("purpose") == STEP_UP:
        return flask.redirect(flask.url_for("account.index"))
    return flask.redirect(flask.url_for("auth.sign_in"))
