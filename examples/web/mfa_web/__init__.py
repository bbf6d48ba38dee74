"""A small but complete auth server that embeds libmfa: the example web application.

Accounts with email and password (Argon2id hashes), email verification,
and second factors through libmfa's Python package, the way the guides use
Firebase: TOTP authenticator apps (QR code), phones (SMS), email codes,
recovery codes, security keys and passkeys (WebAuthn); sign-in with the hint
chooser (the factor used last first) and the resolver, and "remember this
browser"; unenrolling behind step-up, with the revocation of earlier
sessions; libmfa's audit events kept and shown to their user.

    app = create_app()            # settings from the environment (see settings.py)
    app.run()                     # or any WSGI server: mfa_web:create_app()

One module per concern: ``auth`` (first factor, step-up), ``second_factor``
(hint chooser, resolver), ``account`` (factor list, unenroll), ``devices``
(remembered browsers), one module
per factor kind under ``factors/``, ``app_check`` (libmfa's app verifier),
``audit`` (libmfa's audit callback), ``metrics`` (``/metrics`` for
Prometheus), ``csrf``, ``sessions`` (server-side), ``dev`` (``/dev/outbox``).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Optional

import flask
from flask.typing import ResponseReturnValue
import libmfa
import werkzeug.exceptions

from . import (account, app_check, audit, auth, csrf, database, engine, factors, messages, metrics, passkeys,
               second_factor, sessions)
from .gateways import Gateways, MailOutbox
from .settings import Settings, SettingsError

__all__ = ["Gateways", "Settings", "SettingsError", "create_app"]

_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; object-src 'none'")


def create_app(settings: Optional[Settings] = None, gateways: Optional[Gateways] = None,
               clock: Callable[[], float] = time.time) -> flask.Flask:
    """The application.

    Args:
        settings: None to read them from the environment (:meth:`Settings.from_env`).
        gateways: the mailer and SMS sender; required in production. In
            development None means the outboxes that ``/dev/outbox`` shows.
        clock: the time, in Unix seconds (a test may pass its own; libmfa
            gets the same one).
    """
    settings = settings or Settings.from_env()
    if gateways is None:
        if not settings.development:
            raise SettingsError("production needs a mailer and an SMS gateway: pass "
                                "gateways=Gateways(mailer=..., sms_sender=...) to create_app (see gateways.py)")
        gateways = Gateways(mailer=MailOutbox(settings.mail_outbox, clock))

    app = flask.Flask(__name__)
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MFA_WEB_SECRET=settings.secret_key,
        MFA_WEB_DEVELOPMENT=settings.development,
        MFA_WEB_ISSUER=settings.issuer,
        MFA_WEB_URL=settings.url,
        MFA_WEB_SMS_OUTBOX=str(settings.sms_outbox),
        MFA_WEB_METRICS_TOKEN=settings.metrics_token,
        MAX_CONTENT_LENGTH=64 * 1024,
        PREFERRED_URL_SCHEME="http" if settings.development else "https",
    )
    app.extensions["mfa_web.clock"] = clock
    app.extensions["mfa_web.mailer"] = gateways.mailer
    app.extensions["mfa_web.database"] = database.Database(settings.database)
    app.extensions["mfa_web.libmfa"] = engine.open_context(settings, clock, gateways.sms_sender, app_check.verify,
                                                           audit.recorder(app.extensions["mfa_web.database"]),
                                                           mailer=gateways.mailer)
    app.session_interface = sessions.ServerSessionInterface(secure=not settings.development, clock=clock)
    app.teardown_appcontext(database.close)

    app.before_request(auth.load_user)
    app.before_request(csrf.protect)
    app.after_request(_security_headers)
    for blueprint in (auth.blueprint, passkeys.blueprint, second_factor.blueprint, account.blueprint,
                      app_check.blueprint, metrics.blueprint):
        app.register_blueprint(blueprint)
    for kind in factors.KINDS:
        app.register_blueprint(kind.blueprint)
    if settings.development:
        from . import dev

        app.register_blueprint(dev.blueprint)

    app.add_url_rule("/healthz", "healthz", _healthz)
    app.jinja_env.globals.update(csrf_field=csrf.field, csrf_token=csrf.token, development=settings.development,
                                 signed_in=lambda: engine.account() is not None,
                                 signing_in_as=second_factor.signing_in_as, remember_days=second_factor.remember_days)
    _error_handlers(app)
    with app.app_context():
        sessions.purge_expired(int(clock()))
        audit.purge(int(clock()))
    return app


def _healthz() -> ResponseReturnValue:
    """Liveness: the application's tables and libmfa's store answer."""
    database.get().one("SELECT 1")
    engine.context().config()
    return "ok\n", 200, {"Content-Type": "text/plain"}


def _security_headers(response: flask.Response) -> flask.Response:
    response.headers.setdefault("Content-Security-Policy", _CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    if flask.request.endpoint != "static":
        response.headers["Cache-Control"] = "no-store"  # pages hold QR codes, recovery codes, CSRF tokens
    if not flask.current_app.config["MFA_WEB_DEVELOPMENT"]:
        response.headers["Strict-Transport-Security"] = "max-age=31536000"
    return response


def _error_handlers(app: flask.Flask) -> None:
    """Every failure as a page with a sentence for people: never a stack trace."""

    def page(status: int, title: str, message: str) -> ResponseReturnValue:
        return flask.render_template("errors/error.html", title=title, message=message), status

    @app.errorhandler(csrf.CSRFError)
    def csrf_refused(_error: csrf.CSRFError) -> ResponseReturnValue:
        return page(400, "Form refused", "This form was refused because its security token was missing or out "
                    "of date. Go back, reload the page and try again.")

    @app.errorhandler(engine.StepUpRequired)
    def step_up(_error: engine.StepUpRequired) -> ResponseReturnValue:
        target = flask.request.path if flask.request.method == "GET" else flask.url_for("account.index")
        return flask.redirect(flask.url_for("auth.reauth", next=target))

    @app.errorhandler(libmfa.MFAError)
    def mfa_error(error: libmfa.MFAError) -> ResponseReturnValue:
        if not isinstance(error, tuple(messages.MESSAGES)):
            app.logger.error("libmfa: %s", error)
        return page(400 if error.name != "STORAGE_ERROR" else 503, "Something went wrong",
                    "%s (%s)" % (messages.for_error(error), error.name))

    @app.errorhandler(werkzeug.exceptions.HTTPException)
    def http_error(error: werkzeug.exceptions.HTTPException) -> Any:
        code = error.code or 500
        texts = {404: "There is nothing at this address.", 405: "This address does not take that request.",
                 401: "Please sign in.", 413: "That request is too large."}
        return page(code, "%d %s" % (code, error.name), texts.get(code, "The request could not be handled."))

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> ResponseReturnValue:
        app.logger.exception("unexpected error")
        return page(500, "Something went wrong", "The server could not complete this request. Try again later.")

    logging.getLogger("libmfa").setLevel(logging.WARNING)
