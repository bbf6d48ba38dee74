"""``/dev/outbox``: the SMS and emails the application "sent", in development only.

The blueprint is registered only when ``MFA_WEB_ENV=development``: in
production the address does not exist (404). The outboxes hold live codes
and verification links in the clear.
"""

from __future__ import annotations

import re

import flask
from flask.typing import ResponseReturnValue
import libmfa

from .account import format_time
from .gateways import MailOutbox

blueprint = flask.Blueprint("dev", __name__, url_prefix="/dev")


@blueprint.get("/outbox")
def outbox() -> ResponseReturnValue:
    """Every SMS and email, newest first."""
    app = flask.current_app
    sms = list(reversed(libmfa.read_outbox(app.config["MFA_WEB_SMS_OUTBOX"])))
    mailer = app.extensions["mfa_web.mailer"]
    mail = list(reversed(mailer.messages())) if isinstance(mailer, MailOutbox) else []
    for message in mail:
        message["links"] = re.findall(r"https?://\S+", str(message.get("body", "")))
    return flask.render_template("dev/outbox.html", sms=sms, mail=mail, format_time=format_time)
