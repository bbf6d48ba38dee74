"""libmfa's audit events: kept in ``web_audit``, logged, and shown to their user.

libmfa stores no audit trail of its own; it hands each event (enrollment,
unenrollment, sign-in success or failure, backoff, SMS sent, revocation) to
the host's ``audit`` callback, after the change it reports is stored. This
application keeps the events in its own table for :data:`RETENTION` days,
writes each one to the ``mfa_web.audit`` logger (where a real server's
log pipeline picks it up), and the account page shows a user their own
recent ones: a refused sign-in with a cloned security key
(``CREDENTIAL_CLONED``) or too many wrong codes is there to see at the next
sign-in.

Events carry ids and outcomes, never a code, a secret or a token.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import flask
import libmfa

from . import database

#: How long events are kept (days).
RETENTION = 90

LOG = logging.getLogger("mfa_web.audit")


@dataclass(frozen=True)
class Event:
    """One stored event."""

    time: int
    kind: str
    factor_id: Optional[str]
    enrollment_id: Optional[str]
    detail: str


def recorder(db: database.Database) -> Callable[[libmfa.AuditEvent], None]:
    """libmfa's ``audit`` callback for the application whose tables are in ``db``."""

    def record(event: libmfa.AuditEvent) -> None:
        LOG.info("%s uid=%s tenant=%s factor=%s enrollment=%s detail=%s", event.kind_name, event.uid or "-",
                 event.tenant or "-", event.factor_id or "-", event.enrollment_id or "-", event.detail)
        if not event.uid:
            return  # configuration changes and the like: the log has them
        row = (event.time, event.uid, event.kind_name, event.factor_id, event.enrollment_id, event.detail[:200])
        sql = ("INSERT INTO web_audit (time, uid, kind, factor_id, enrollment_id, detail) "
               "VALUES (?, ?, ?, ?, ?, ?)")
        if flask.has_app_context():
            database.get().execute(sql, row)
        else:
            with db.connect() as connection:
                connection.execute(sql, row)

    return record


def recent(uid: str, limit: int = 6) -> List[Event]:
    """The user's newest events, newest first."""
    rows = database.get().all("SELECT time, kind, factor_id, enrollment_id, detail FROM web_audit WHERE uid = ? "
                              "ORDER BY time DESC, id DESC LIMIT ?", (uid, limit))
    return [Event(int(row[0]), str(row[1]), row[2], row[3], str(row[4])) for row in rows]


def last_factor(uid: str) -> str:
    """The enrollment id of the factor the user last signed in with ("" if none, or only a remembered browser)."""
    row = database.get().one("SELECT enrollment_id FROM web_audit WHERE uid = ? AND kind = 'SIGN_IN_SUCCESS' "
                             "AND factor_id IS NOT NULL AND factor_id <> 'remembered_device' "
                             "ORDER BY time DESC, id DESC LIMIT 1", (uid,))
    return str(row[0]) if row and row[0] else ""


def purge(now: int) -> None:
    """Forget events older than :data:`RETENTION` days."""
    database.get().execute("DELETE FROM web_audit WHERE time < ?", (now - RETENTION * 86400,))


#: What each kind of event says; ``{factor}`` is the factor's name, or "a second factor".
SENTENCES: Dict[str, str] = {
    "ENROLL": "Added {factor}",
    "UNENROLL": "Removed {factor}",
    "SIGN_IN_SUCCESS": "Signed in with {factor}",
    "SIGN_IN_FAILURE": "Refused a sign-in with {factor}",
    "BACKOFF": "Paused second-factor attempts after too many failures",
    "SMS_SENT": "Sent a code by text message",
    "TOKENS_REVOKED": "Signed out the other sessions",
    "INTEGRITY_FAILURE": "A stored second factor failed its integrity check",
    "EMAIL_SENT": "Sent a code by email",
    "DEVICE_REMEMBERED": "Remembered a browser",
    "DEVICE_REVOKED": "Forgot a remembered browser",
    "DEVICE_REFUSED": "Did not recognise a remembered browser",
}


def describe(event: Event, names: Dict[str, str], labels: Dict[str, str],
             kinds: Dict[str, str]) -> Tuple[str, str]:
    """A sentence for ``event``, and what kind of factor it was about ("" if none).

    ``names`` and ``labels`` map the enrollment ids of the user's factors to
    their display names and kinds ("Passkey"); ``kinds`` maps libmfa's
    factor ids to what people call them, for factors removed since.
    """
    kind = labels.get(event.enrollment_id or "") or kinds.get(event.factor_id or "", "")
    if event.kind == "ENROLL" and event.factor_id == "recovery":
        return "Generated recovery codes", ""
    if event.factor_id == "remembered_device":
        if event.kind == "SIGN_IN_SUCCESS":
            return "Signed in on a remembered browser", ""
        return SENTENCES.get(event.kind, event.kind), ""
    name = names.get(event.enrollment_id or "") or "a second factor"
    return SENTENCES.get(event.kind, event.kind).format(factor=name), kind


def is_warning(event: Event) -> bool:
    """Whether the event is one a user should look at twice (a refusal, a pause, a failed check)."""
    return event.kind in ("SIGN_IN_FAILURE", "BACKOFF", "INTEGRITY_FAILURE")
