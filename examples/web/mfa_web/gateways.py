"""Where email and SMS go: development outboxes, or your providers.

In development, libmfa writes each SMS to ``<instance>/sms-outbox.jsonl``
(its ``sms_outbox`` option) and the application writes each email to
``<instance>/mail-outbox.jsonl``; ``/dev/outbox`` shows both. In production
pass real ones to :func:`mfa_web.create_app`::

    def send_sms(number: str, text: str) -> None: ...        # your SMS provider; raise on failure
    def send_mail(to: str, subject: str, body: str) -> None: ...  # your mail provider
    app = create_app(gateways=Gateways(mailer=send_mail, sms_sender=send_sms))

libmfa calls ``sms_sender`` with the strict E.164 number and the text
"<code> is your verification code."; if it raises, the send counts for no
quota and the user sees "the text message could not be sent". Email codes
(the email second factor) go through ``mailer`` too: libmfa writes the
subject and body; in development it appends them to the same outbox.
"""

from __future__ import annotations

import json
import os
import pathlib
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

Mailer = Callable[[str, str, str], None]
SMSSender = Callable[[str, str], None]


@dataclass
class Gateways:
    """The application's ways out: a mailer, and an SMS sender (None: the development outbox)."""

    mailer: Mailer
    sms_sender: Optional[SMSSender] = None


class MailOutbox:
    """A development mailer: appends each message to a JSON-lines file."""

    def __init__(self, path: pathlib.Path, clock: Callable[[], float]) -> None:
        self.path = path
        self.clock = clock
        self._lock = threading.Lock()

    def __call__(self, to: str, subject: str, body: str) -> None:
        line = json.dumps({"time": int(self.clock()), "to": to, "subject": subject, "body": body}) + "\n"
        with self._lock:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
                handle.write(line)

    def messages(self) -> List[Dict[str, Any]]:
        """Every message, oldest first."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]
