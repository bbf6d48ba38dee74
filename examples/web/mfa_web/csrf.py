"""CSRF protection: every state-changing request carries the session's token.

Each session has a random token; every form has it in a hidden
``csrf_token`` field (``{{ csrf_field() }}`` in a template) and scripts send
it in the ``X-CSRF-Token`` header. A POST without it, or with another
session's, is refused with 400 before any view runs. ``SameSite=Lax``
cookies are a second line, not the only one.
"""

from __future__ import annotations

import hmac
import secrets

import flask
from markupsafe import Markup, escape

from . import sessions

SAFE_METHODS = frozenset(["GET", "HEAD", "OPTIONS"])


class CSRFError(Exception):
    """A state-changing request without the session's CSRF token."""


def token() -> str:
    """The current session's CSRF token (made on first use)."""
    session = sessions.current()
    value = session.get("csrf")
    if not isinstance(value, str):
        value = secrets.token_urlsafe(32)
        session["csrf"] = value
    return value


def field() -> Markup:
    """The hidden form field holding the token."""
    return Markup('<input type="hidden" name="csrf_token" value="%s">') % escape(token())


def protect() -> None:
    """A ``before_request`` handler: raise CSRFError for an unsafe request without the right token."""
    if flask.request.method in SAFE_METHODS:
        return
    sent = flask.request.form.get("csrf_token") or flask.request.headers.get("X-CSRF-Token") or ""
    expected = sessions.current().get("csrf")
    if not isinstance(expected, str) or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise CSRFError()
