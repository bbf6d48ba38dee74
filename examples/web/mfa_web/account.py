"""The account page: the enrolled factors, adding one, removing one behind step-up, recent activity.

Removing a factor is the sensitive action of the guides: it asks for the
password and a second factor again (:func:`mfa_web.auth.step_up_required`),
then libmfa unenrolls it and revokes every credential issued before. This
session gets a new credential; every other session of the user is signed
out at its next request.

The page also lists the browsers libmfa remembers for the user ("Remember
this browser" at sign-in), each of which can be forgotten, and the user's
newest libmfa audit events
(:mod:`mfa_web.audit`): sign-ins, refused attempts, factors added and removed.

(Renaming a factor needs a call the Python package does not have yet: the
name given at enrollment stays.)
"""

from __future__ import annotations

import datetime

import flask
from flask.typing import ResponseReturnValue
import libmfa

from . import audit, devices, engine, factors, messages
from .auth import login_required, step_up_required

blueprint = flask.Blueprint("account", __name__)


def format_time(unix: int) -> str:
    """A Unix time as people read it (UTC)."""
    return datetime.datetime.fromtimestamp(unix, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _factor(enrollment_id: str) -> libmfa.MultiFactorInfo:
    for info in engine.multi_factor().enrolled_factors():
        if info.uid == enrollment_id:
            return info
    flask.abort(404)


@blueprint.get("/account")
@login_required
def index() -> ResponseReturnValue:
    """The enrolled factors and the ways to add one."""
    enrolled = engine.multi_factor().enrolled_factors()
    config = engine.context().config()
    rows = [(info, factors.by_id(info.factor_id)) for info in enrolled]
    kinds = [kind for kind in factors.KINDS if kind.enabled(config)]
    account = engine.require_account()
    names = {info.uid: info.display_name or info.hint for info in enrolled}
    labels = {info.uid: kind.label_of(info) for info, kind in rows if kind}  # "Passkey", "Security key", ...
    kind_labels = {kind.factor_id: kind.label for kind in factors.KINDS}
    activity = []
    for event in audit.recent(account.uid):
        sentence, label = audit.describe(event, names, labels, kind_labels)
        activity.append((event, sentence, label, audit.is_warning(event)))
    return flask.render_template("account/index.html", account=account, rows=rows, factors=enrolled, kinds=kinds,
                                 activity=activity, format_time=format_time, devices=devices.listed())


@blueprint.route("/account/factors/<enrollment_id>/remove", methods=["GET", "POST"])
@login_required
@step_up_required
def remove(enrollment_id: str) -> ResponseReturnValue:
    """Confirm, then unenroll the factor."""
    info = _factor(enrollment_id)
    if flask.request.method == "GET":
        return flask.render_template("account/remove.html", info=info, kind=factors.by_id(info.factor_id),
                                     format_time=format_time)
    others = engine.other_sessions()
    try:
        engine.multi_factor().unenroll(info)
    except libmfa.MFAError as error:
        messages.flash(error)
        return flask.redirect(flask.url_for("account.index"))
    engine.reissue_credential()
    flask.flash(engine.changed("Removed %s." % (info.display_name or info.hint), others), "success")
    return flask.redirect(flask.url_for("account.index"))


@blueprint.post("/account/devices/<device_id>/forget")
@login_required
def forget_device(device_id: str) -> ResponseReturnValue:
    """Forget one remembered browser: it asks for a second factor again."""
    try:
        engine.context().revoke_remembered_devices(engine.require_account().uid, device_id)
    except libmfa.DeviceNotFoundError:
        flask.flash("That browser is not remembered (any more).", "info")
        return flask.redirect(flask.url_for("account.index"))
    flask.flash("Forgotten: that browser will ask for a second factor at its next sign-in.", "success")
    response = flask.redirect(flask.url_for("account.index"))
    if device_id == devices.this_device():
        devices.drop(response)
    return response


@blueprint.post("/account/devices/forget")
@login_required
def forget_devices() -> ResponseReturnValue:
    """Forget every remembered browser of the user."""
    count = engine.context().revoke_remembered_devices(engine.require_account().uid)
    flask.flash("Forgot %d remembered browser%s." % (count, "" if count == 1 else "s"), "success")
    response = flask.redirect(flask.url_for("account.index"))
    devices.drop(response)
    return response
