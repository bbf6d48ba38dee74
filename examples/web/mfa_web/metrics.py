"""``GET /metrics``: libmfa's metrics in Prometheus' text format, for Prometheus to scrape.

The page is one call, :meth:`libmfa.Context.metrics_text`: the sign-ins,
enrollments, SMS sends, backoffs and store latency of this process's
context, served as :data:`libmfa.PROMETHEUS_CONTENT_TYPE`.

Who may read it: the numbers name no user, but they tell an outsider how
often sign-ins fail, so the endpoint is protected by a bearer token when
``MFA_WEB_METRICS_TOKEN`` is set (Prometheus sends it from its scrape
configuration's ``authorization: {credentials_file: ...}``); a request
without it, or with another, gets 401. In production the endpoint exists
only with the token (404 otherwise); in development it is open unless a
token is set.
"""

from __future__ import annotations

import hmac

import flask
import libmfa
from flask.typing import ResponseReturnValue

from . import engine

blueprint = flask.Blueprint("metrics", __name__)


@blueprint.route("/metrics")
def scrape() -> ResponseReturnValue:
    """The metrics, for a request with the token (or with none needed)."""
    token = flask.current_app.config.get("MFA_WEB_METRICS_TOKEN")
    if token is None and not flask.current_app.config["MFA_WEB_DEVELOPMENT"]:
        flask.abort(404)
    if token is not None:
        scheme, _, sent = flask.request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(), token.encode()):
            return "a bearer token is required\n", 401, {"Content-Type": "text/plain; charset=utf-8",
                                                         "WWW-Authenticate": 'Bearer realm="metrics"'}
    return engine.context().metrics_text(), 200, {"Content-Type": libmfa.PROMETHEUS_CONTENT_TYPE}
