"""App verification: libmfa's ``app_verifier`` hook, checked for real.

libmfa sends no SMS unless the host's verifier accepts the app credential
the client sent with the request (the role reCAPTCHA or an APNs receipt
plays in the guides). Here the credential is a token the page's script
(``static/app_check.js``) obtains from ``POST /app-check/token`` just before
it submits an SMS form. The token is signed with the application's secret
key and names the action (``enrollment`` or ``sign_in``), the browser
session that asked for it, and a random nonce; :func:`verify` accepts it
only within :data:`TOKEN_LIFETIME` seconds, for that action and that
session, and once. A script that posts the SMS form without going through
the page has no token (``MISSING_APP_CREDENTIAL``); one that replays, forges
or borrows a token is refused (``INVALID_APP_CREDENTIAL``); either way no
SMS leaves.

In production, put your bot check where :func:`issue` is: verify the
reCAPTCHA / Turnstile / App Attest answer the page sends, then sign.
"""

from __future__ import annotations

import secrets
from typing import Any, Dict

import flask
import itsdangerous

from . import database, sessions, signing

#: How long a token is good for (seconds).
TOKEN_LIFETIME = 120
ACTIONS = ("enrollment", "sign_in")

blueprint = flask.Blueprint("app_check", __name__)


def _serializer() -> itsdangerous.URLSafeTimedSerializer:
    return signing.serializer("libmfa-web app check")


def issue(action: str) -> str:
    """A token for ``action`` bound to the current session."""
    session = sessions.current()
    if not session.sid:
        raise ValueError("no session")
    return str(_serializer().dumps({"a": action, "s": session.binding, "n": secrets.token_urlsafe(16)}))


def verify(credential: str, action: str) -> bool:
    """libmfa's ``app_verifier``: whether ``credential`` is a fresh, unused token of this session for ``action``."""
    if not flask.has_request_context():
        return False
    try:
        claims: Dict[str, Any] = _serializer().loads(credential, max_age=TOKEN_LIFETIME)
    except itsdangerous.BadData:
        return False
    if not isinstance(claims, dict) or claims.get("a") != action:
        return False
    binding = sessions.current().binding
    if not binding or claims.get("s") != binding or not isinstance(claims.get("n"), str):
        return False
    now = int(flask.current_app.extensions["mfa_web.clock"]())
    db = database.get()
    db.execute("DELETE FROM web_app_checks WHERE expires_at < ?", (now,))
    return db.insert_unique("INSERT INTO web_app_checks (nonce, expires_at) VALUES (?, ?)",
                            (claims["n"], now + TOKEN_LIFETIME + 60))


@blueprint.post("/app-check/token")
def token() -> flask.Response:
    """A token for the action the page names (the CSRF header is checked before this runs)."""
    payload = flask.request.get_json(silent=True)
    action = payload.get("action") if isinstance(payload, dict) else None
    session = sessions.current()
    if action not in ACTIONS or not session.sid:
        return flask.make_response(flask.jsonify(error="unknown action or no session"), 400)
    if action == "enrollment" and "uid" not in session:
        return flask.make_response(flask.jsonify(error="sign in first"), 403)
    if action == "sign_in" and "pending" not in session:
        return flask.make_response(flask.jsonify(error="no sign-in in progress"), 403)
    return flask.jsonify(token=issue(str(action)))
