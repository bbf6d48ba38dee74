"""Server-side sessions: the browser holds only a random id.

Flask's ``session`` is a dict kept in the ``web_sessions`` table, looked up
by the SHA-256 of the cookie's value; nothing the client holds can be read
or changed by it, and signing out deletes the row, so a copied cookie dies
with it. libmfa's opaque strings (pending credentials, verification ids,
TOTP session info) live here, never in the page.

The cookie is ``HttpOnly`` and ``SameSite=Lax``; outside development it is
also ``Secure`` and named with the ``__Host-`` prefix (no ``Domain``, path
``/``, HTTPS only). :func:`rotate` gives the session a new id on every
change of privilege (sign-in), so an id planted before cannot be used after.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any, Dict, List, Optional

import flask
from flask.sessions import SessionInterface, SessionMixin
from werkzeug.datastructures import CallbackDict

from . import database

#: A session unused for this long is gone (seconds).
IDLE_LIFETIME = 12 * 3600


def _hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("ascii")).hexdigest()


class ServerSession(CallbackDict[str, Any], SessionMixin):
    """The data of one session; ``modified`` is set by any change."""

    def __init__(self, data: Optional[dict[str, Any]] = None, sid: Optional[str] = None) -> None:
        def on_update(_self: CallbackDict[str, Any]) -> None:
            self.modified = True

        super().__init__(data or {}, on_update)
        self.sid = sid
        self.modified = False
        self.rotate = False

    @property
    def binding(self) -> str:
        """A value naming this session that does not reveal its id (for app-check tokens); "" if new."""
        return _hash(self.sid)[:32] if self.sid else ""


class ServerSessionInterface(SessionInterface):
    """Keeps :class:`ServerSession` data in ``web_sessions``."""

    def __init__(self, secure: bool, clock: Any) -> None:
        self.secure = secure
        self.clock = clock
        self.cookie_name = "__Host-mfa_session" if secure else "mfa_session"

    def open_session(self, app: flask.Flask, request: flask.Request) -> ServerSession:
        sid = request.cookies.get(self.cookie_name)
        if sid and len(sid) <= 128:
            row = database.get().one("SELECT data, expires_at FROM web_sessions WHERE id_hash = ?", (_hash(sid),))
            if row and int(row[1]) > self.clock():
                session = ServerSession(json.loads(row[0]), sid)
                if int(row[1]) - self.clock() < IDLE_LIFETIME - 300:
                    session.modified = True  # slide the expiry forward, at most every 5 minutes
                return session
        return ServerSession()

    def save_session(self, app: flask.Flask, session: SessionMixin, response: flask.Response) -> None:
        assert isinstance(session, ServerSession)
        db = database.get()
        if session.sid and (session.rotate or not session):
            db.execute("DELETE FROM web_sessions WHERE id_hash = ?", (_hash(session.sid),))
            if not session:
                response.delete_cookie(self.cookie_name, path="/", secure=self.secure, httponly=True,
                                       samesite="Lax")
            session.sid = None
        if not session:
            return
        expires = int(self.clock()) + IDLE_LIFETIME
        data = json.dumps(dict(session), separators=(",", ":"))
        if session.sid is None:
            session.sid = secrets.token_urlsafe(32)
            db.execute("INSERT INTO web_sessions (id_hash, data, expires_at) VALUES (?, ?, ?)",
                       (_hash(session.sid), data, expires))
            response.set_cookie(self.cookie_name, session.sid, path="/", secure=self.secure, httponly=True,
                                samesite="Lax")
        elif session.modified:
            db.execute("UPDATE web_sessions SET data = ?, expires_at = ? WHERE id_hash = ?",
                       (data, expires, _hash(session.sid)))
        response.vary.add("Cookie")


def current() -> ServerSession:
    """The current request's session."""
    session = flask.session
    assert isinstance(session, ServerSession)
    return session


def rotate() -> None:
    """Give the session a new id at the end of this request (its data is kept, its CSRF token renewed)."""
    session = current()
    session.rotate = True
    session.pop("csrf", None)
    session.modified = True


def of_user(uid: str) -> List[Dict[str, Any]]:
    """The data of the other sessions that name ``uid`` (signed in or signing in), this one left out."""
    this = current()
    quoted = json.dumps(uid)
    pattern = "%" + '"uid":' + "".join("\\" + c if c in "%_\\" else c for c in quoted) + "%"
    found = []
    for row in database.get().all("SELECT id_hash, data FROM web_sessions WHERE data LIKE ? ESCAPE '\\'",
                                  (pattern,)):
        if this.sid and row[0] == _hash(this.sid):
            continue
        data = json.loads(row[1])
        if isinstance(data, dict) and data.get("uid") == uid:
            found.append(data)
    return found


def purge_expired(now: int) -> None:
    """Delete sessions past their expiry (called now and then)."""
    database.get().execute("DELETE FROM web_sessions WHERE expires_at <= ?", (now,))
