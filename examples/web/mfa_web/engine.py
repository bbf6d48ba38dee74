"""libmfa in the application: the context, the signed-in user, session credentials.

One :class:`libmfa.Context` serves the whole process (it is thread-safe).
The application tells libmfa who passed the first factor and when
(:func:`current_user`); libmfa decides what the second factor requires.

Session credentials follow the guides' revocation model: each signed-in
session records when it was issued, to the millisecond (``issued_ms``), and
every request checks it with ``Context.check_token_ms``
(:func:`check_credential`). Enrolling, unenrolling and generating recovery
codes revoke every credential issued before; the session that made the
change gets a new one (:func:`reissue_credential`), every other session of
the user is refused and must sign in again.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Optional

import flask
import libmfa

from . import sessions
from .accounts import Account
from .gateways import MailOutbox, Mailer, SMSSender
from .settings import Settings

#: The first-factor provider of every account here (libmfa's provider id for email + password).
PROVIDER = "password"


class StepUpRequired(Exception):
    """The action needs a fresh sign-in: the password again, and a second factor if the user has one."""


def open_context(settings: Settings, clock: Callable[[], float], sms_sender: Optional[SMSSender],
                 app_verifier: Callable[[str, str], bool],
                 audit: Optional[Callable[[libmfa.AuditEvent], None]] = None,
                 mailer: Optional[Mailer] = None) -> libmfa.Context:
    """The libmfa context of the application, with its configuration applied.

    The configuration is the settings' ``mfa_config`` with the relying party
    of WebAuthn taken from the application's own address
    (:attr:`Settings.webauthn_config`), applied as one update. Email codes go
    through the application's ``mailer``; the development outbox is shared
    (libmfa appends to the same file, one line per message).
    """
    outbox = mailer.path if isinstance(mailer, MailOutbox) else None
    email_sender = None
    if mailer is not None and outbox is None:
        send = mailer

        def email_sender(message: libmfa.EmailMessage) -> None:
            send(message.to, message.subject, message.body)

    context = libmfa.Context(
        settings.store,
        **settings.key_options,
        clock=None if clock is time.time else (lambda: int(clock())),
        sms_sender=sms_sender,
        sms_outbox=settings.sms_outbox if sms_sender is None and settings.development else None,
        app_verifier=app_verifier,
        audit=audit,
        email_sender=email_sender,
        email_outbox=outbox,
    )
    context.update_config(merged(settings.mfa_config, settings.webauthn_config))
    context.purge_expired()  # pending secrets past their deadline, used-token records past their expiry
    return context


def merged(base: Dict[str, Any], extra: Dict[str, Any]) -> Dict[str, Any]:
    """``base`` with ``extra`` merged in, object by object (neither is changed)."""
    out = dict(base)
    for key, value in extra.items():
        current = out.get(key)
        out[key] = merged(current, value) if isinstance(current, dict) and isinstance(value, dict) else value
    return out


def context() -> libmfa.Context:
    """The application's libmfa context."""
    value: libmfa.Context = flask.current_app.extensions["mfa_web.libmfa"]
    return value


def now() -> int:
    """The application's clock, in Unix seconds."""
    return int(flask.current_app.extensions["mfa_web.clock"]())


def now_ms() -> int:
    """The application's clock, in Unix milliseconds."""
    return int(flask.current_app.extensions["mfa_web.clock"]() * 1000)


def account() -> Optional[Account]:
    """The signed-in account, or None."""
    value: Optional[Account] = flask.g.get("account")
    return value


def require_account() -> Account:
    """The signed-in account (views behind :func:`mfa_web.auth.login_required` only)."""
    value = account()
    if value is None:
        flask.abort(401)
    return value


def user_for(who: Account, auth_time: int) -> libmfa.User:
    """The libmfa user for an account that passed the password check at ``auth_time``."""
    return libmfa.User(who.uid, email=who.email, email_verified=who.email_verified, provider=PROVIDER,
                       auth_time=auth_time)


def current_user() -> libmfa.User:
    """The libmfa user of the signed-in session."""
    return user_for(require_account(), int(sessions.current()["auth_time"]))


def multi_factor() -> libmfa.MultiFactor:
    """The signed-in user's second factors."""
    return context().multi_factor(current_user())


def enrollment_session() -> libmfa.MultiFactorSession:
    """A libmfa session to enroll with; StepUpRequired when the sign-in is too old for libmfa."""
    try:
        return multi_factor().session()
    except libmfa.RequiresRecentLoginError:
        raise StepUpRequired() from None


def recent_login_max_age() -> int:
    """libmfa's limit on the age of a sign-in for sensitive actions (``limits.recentLoginMaxAge``)."""
    return int(context().config()["limits"]["recentLoginMaxAge"])


def start_session(who: Account, auth_time: int) -> None:
    """Sign ``who`` in: a new session id, a credential issued now."""
    session = sessions.current()
    sessions.rotate()
    for key in list(session):
        if key != "csrf":
            del session[key]
    session["uid"] = who.uid
    session["auth_time"] = auth_time
    session["issued_ms"] = now_ms()
    sessions.purge_expired(now())


def reissue_credential() -> None:
    """A new credential for this session after libmfa revoked the user's earlier ones.

    libmfa records a revocation to the millisecond and accepts credentials
    issued strictly after it; the change was made before this call, so a
    millisecond later than now is after it.
    """
    sessions.current()["issued_ms"] = now_ms() + 1


def check_credential() -> None:
    """Raise libmfa.UserTokenExpiredError if the session's credential was revoked."""
    session = sessions.current()
    context().check_token_ms(str(session["uid"]), int(session["issued_ms"]))


def other_sessions() -> int:
    """How many other sessions of the signed-in user are still signed in (before a change revokes them)."""
    session = sessions.current()
    uid = str(session.get("uid", ""))
    count = 0
    for data in sessions.of_user(uid):
        issued = data.get("issued_ms")
        if not isinstance(issued, int):
            continue
        try:
            context().check_token_ms(uid, issued)
        except libmfa.UserTokenExpiredError:
            continue
        count += 1
    return count


def changed(sentence: str, others: int) -> str:
    """``sentence``, and that the user's other sessions were signed out when there were some."""
    if others == 0:
        return sentence
    return "%s Your other session%s %s signed out." % (sentence, "" if others == 1 else "s",
                                                       "was" if others == 1 else "were")


def mark_stepped_up(auth_time: int) -> None:
    """Record a completed step-up: the password (and the second factor, if any) checked again now."""
    session = sessions.current()
    session["auth_time"] = auth_time
    session["step_up_at"] = now()


def stepped_up() -> bool:
    """Whether this session stepped up within libmfa's recent-login limit."""
    when = sessions.current().get("step_up_at")
    return isinstance(when, int) and now() - when <= recent_login_max_age()
