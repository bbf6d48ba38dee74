"""The development outboxes: reading back what a context with ``sms_outbox`` or ``email_outbox`` "sent".

A context opened with ``sms_outbox=path`` (or ``email_outbox=path``) appends
every SMS (or email) to ``path`` as one JSON line instead of sending it;
these functions read them back, so demos and tests can pick up codes without
a phone or a mailbox. Do not use an outbox in production: it holds live codes
in the clear.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Union

    from ._typing import Text

_CODE = r"^(\d{6}) is your verification code\.$"
_MAIL_CODE = r"^(\d{6}) is your verification code\b"


def read_outbox(path: Union[str, bytes, os.PathLike[str]]) -> List[Dict[str, Any]]:
    """The messages in an SMS or email outbox file, oldest first. A development aid.

    Args:
        path: the outbox file (str or path-like). A file that does not exist
            yet holds no message.

    Returns:
        A list of dicts: ``{"time": int, "to": str, "message": str, "code":
        str or None}`` for an SMS, ``{"time": int, "to": str, "subject": str,
        "body": str, "code": str or None}`` for an email; ``code`` is the
        six-digit code parsed from the message. An unfinished last line (a
        writer mid-way) is left out.

    Raises:
        ValueError: a finished line that is not such a JSON object.
        OSError: the file exists but cannot be read.
    """
    import json
    import re

    where = os.fsdecode(path)
    try:
        with open(where, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return []
    pattern = re.compile(_CODE)
    mail_pattern = re.compile(_MAIL_CODE)
    messages = []
    lines = data.split(b"\n")
    for number, line in enumerate(lines[:-1], 1):  # lines[-1] is "" or an unfinished line
        if not line.strip():
            continue
        try:
            entry = json.loads(line.decode("utf-8"))
        except ValueError as error:
            raise ValueError("%s:%d is not JSON: %s" % (where, number, error)) from None
        if (not isinstance(entry, dict) or not isinstance(entry.get("to"), str)
                or not isinstance(entry.get("time"), int)):
            raise ValueError("%s:%d is not an outbox entry {time, to, message}" % (where, number))
        if isinstance(entry.get("body"), str) and isinstance(entry.get("subject"), str):
            match = mail_pattern.match(entry["body"])
        elif isinstance(entry.get("message"), str):
            match = pattern.match(entry["message"])
        else:
            raise ValueError("%s:%d is not an outbox entry {time, to, message}" % (where, number))
        entry["code"] = match.group(1) if match else None
        messages.append(entry)
    return messages


def outbox_code(path: Union[str, bytes, os.PathLike[str]], phone_number: Optional[Text] = None) -> Optional[str]:
    """The code of the newest message in an outbox (to ``phone_number``, or an email address, if given), or None.

    A development aid; see :func:`read_outbox`.
    """
    if isinstance(phone_number, bytes):
        phone_number = phone_number.decode("utf-8", "replace")
    for entry in reversed(read_outbox(path)):
        if phone_number is None or entry["to"] == phone_number:
            code: Optional[str] = entry["code"]
            return code
    return None


__all__ = ["outbox_code", "read_outbox"]
