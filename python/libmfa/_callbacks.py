"""Host callbacks (clock, random, audit, SMS sender, app verifier) as ctypes function pointers.

libmfa calls these from inside its C functions, on the thread that made the
call. A Python exception cannot cross the C frames, so every wrapper catches
everything and turns it into something libmfa understands:

* clock: the reading falls back to the system clock (``time.time()``) and the
  exception is logged on the ``libmfa`` logger. Falling back is the safe
  choice: a made-up value such as 0 would make every token look unexpired.
  A value that is not an integer (floats are rounded down) or does not fit an
  ``int64_t`` is handled the same way.
* random: the callback returns non-zero, which libmfa reports as
  ``CRYPTO`` (:class:`libmfa.CryptoError`) from the call that needed the
  bytes. Returning anything but exactly the number of bytes asked for counts
  as a failure too.
* audit: the exception is logged on the ``libmfa`` logger and ignored; the
  operation being audited has already been stored and goes on normally.
* SMS sender: the callback returns non-zero, which libmfa reports as
  ``SMS_SEND_FAILED`` (:class:`libmfa.SMSSendFailedError`) and counts neither
  the send nor any quota. The exception is logged (without the message text,
  which holds the code).
* email sender: as the SMS sender: ``EMAIL_SEND_FAILED``
  (:class:`libmfa.EmailSendFailedError`), nothing counted, the exception
  logged by its type only.
* app verifier: the credential is rejected (``INVALID_APP_CREDENTIAL``) and the
  exception is logged. Only a return value of exactly ``True`` accepts a
  credential: ``None`` (a forgotten ``return``), ``1`` or a string reject it.
* import report and progress (the administrative calls): the exception is kept
  in a :class:`Failure`, the call stops after the batch in progress (what was
  stored stays stored), and the exception is raised again once the C call has
  returned.

While a callback runs, the thread is marked (see :func:`inside`) so that the
engine refuses to be re-entered from it: libmfa forbids calling back into a
context from its callbacks, and doing so could deadlock.
"""

from __future__ import annotations

import ctypes
import math
import sys
import time

from . import _ffi

try:  # threading.local itself, without importing threading (the engine imports it when a context opens)
    from _thread import _local as _ThreadLocal
except ImportError:  # pragma: no cover - not CPython
    from threading import local as _ThreadLocal

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any, Callable, Dict, Optional, Union

    AuditFields = Dict[str, Union[int, str]]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_state = _ThreadLocal()


def log() -> logging.Logger:
    """The logger callback failures are reported on (``libmfa``); ``logging`` is imported on first use."""
    import logging

    return logging.getLogger("libmfa")


def inside() -> bool:
    """Whether the current thread is running a libmfa callback right now."""
    return getattr(_state, "depth", 0) > 0


class _Marked:
    """Marks the current thread as inside a callback for a ``with`` block."""

    __slots__ = ()

    def __enter__(self) -> None:
        _state.depth = getattr(_state, "depth", 0) + 1

    def __exit__(self, *exc: object) -> None:
        _state.depth -= 1


_MARK = _Marked()


def _system_now() -> int:
    """The system clock in whole Unix seconds."""
    return int(time.time())


def seconds(value: object) -> int:
    """A clock reading as an int64 number of seconds; ValueError/TypeError otherwise."""
    if isinstance(value, bool):
        raise TypeError("the clock returned a bool")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("the clock returned %r" % value)
        value = math.floor(value)
    if not isinstance(value, int):
        index = getattr(value, "__index__", None)
        if index is None:
            raise TypeError("the clock returned %s, not a number" % type(value).__name__)
        value = int(index())
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError("the clock returned %d, outside int64_t" % value)
    return value


def clock(function: Callable[[], object]) -> Any:
    """An ``mfa_clock_fn`` calling ``function()`` (Unix seconds: int or float).

    On an exception or an unusable value the system clock is used for that
    reading and the problem is logged.
    """

    def call(_context: object) -> int:
        with _MARK:
            try:
                return seconds(function())
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                log().exception("libmfa: the clock callback failed; using the system clock")
                return _system_now()

    return _ffi.mfa_clock_fn(call)


def random(function: Callable[[int], object]) -> Any:
    """An ``mfa_random_fn`` calling ``function(n)``, which must return ``n`` bytes.

    An exception, or anything but exactly ``n`` bytes (bytes, bytearray or
    memoryview), makes the callback report a failure (libmfa's CRYPTO).
    """

    def call(_context: object, out: Any, length: int) -> int:
        with _MARK:
            try:
                data = function(int(length))
                if isinstance(data, memoryview):
                    data = data.tobytes()
                if not isinstance(data, (bytes, bytearray)):
                    raise TypeError("the random callback returned %s, not bytes" % type(data).__name__)
                if len(data) != length:
                    raise ValueError("the random callback returned %d bytes, %d were asked for" % (len(data), length))
                if length:
                    ctypes.memmove(out, bytes(data), length)
                return 0
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                log().exception("libmfa: the random callback failed; the operation fails with CRYPTO")
                return 1

    return _ffi.mfa_random_fn(call)


def _text(value: Optional[bytes]) -> str:
    """A borrowed C string as str ('' for NULL)."""
    return "" if value is None else value.decode("utf-8", "replace")


def audit(function: Callable[[Any], object], make_event: Callable[[AuditFields], Any]) -> Any:
    """An ``mfa_audit_fn`` calling ``function(make_event(fields))``.

    ``make_event`` builds the Python event from a dict of the C event's
    fields, copied (the C strings are only valid during the call).
    Exceptions are logged and ignored.
    """

    def call(_context: object, event: Any) -> None:
        with _MARK:
            try:
                fields = event.contents
                copied: AuditFields = {
                    "kind": int(fields.kind),
                    "kind_name": _text(fields.kind_name),
                    "tenant": _text(fields.tenant),
                    "uid": _text(fields.uid),
                    "factor_id": _text(fields.factor_id),
                    "enrollment_id": _text(fields.enrollment_id),
                    "time": int(fields.time),
                    "detail": _text(fields.detail),
                    "actor": _text(fields.actor),
                }
                function(make_event(copied))
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                log().exception("libmfa: the audit callback failed; the event is dropped")

    return _ffi.mfa_audit_fn(call)


#: The app verification actions by ``MFA_APP_ACTION_*`` number, as the names
#: the Python verifier receives.
APP_ACTIONS = {_ffi.MFA_APP_ACTION_ENROLLMENT: "enrollment", _ffi.MFA_APP_ACTION_SIGN_IN: "sign_in"}


def sms_sender(function: Callable[[str, str], object]) -> Any:
    """An ``mfa_sms_sender_fn`` calling ``function(phone_number, message)`` with two str.

    The return value of ``function`` is ignored; an exception makes the send
    fail (libmfa's SMS_SEND_FAILED, nothing counted) and is logged.
    """

    def call(_context: object, phone_number: Optional[bytes], message: Optional[bytes]) -> int:
        with _MARK:
            try:
                function(_text(phone_number), _text(message))
                return 0
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                # The traceback may quote the arguments (the code): log the type only.
                error = sys.exc_info()[1]
                log().error("libmfa: the SMS sender failed (%s); the send fails with SMS_SEND_FAILED",
                          type(error).__name__)
                return 1

    return _ffi.mfa_sms_sender_fn(call)


#: The purposes of an email (``MFA_EMAIL_*``), as the names the Python sender sees.
EMAIL_PURPOSES = {_ffi.MFA_EMAIL_ENROLLMENT: "enrollment", _ffi.MFA_EMAIL_SIGN_IN: "sign_in"}


def email_sender(function: Callable[[Any], object], make_message: Callable[..., Any]) -> Any:
    """An ``mfa_email_sender_fn`` calling ``function(message)`` with a copied message.

    ``make_message(to, subject, body, code, purpose)`` builds the message
    (``purpose`` ``"enrollment"`` or ``"sign_in"``). The return value of
    ``function`` is ignored; an exception makes the send fail (libmfa's
    EMAIL_SEND_FAILED, nothing counted) and is logged by its type only.
    """

    def call(_context: object, message: Any) -> int:
        with _MARK:
            try:
                fields = message.contents
                function(make_message(_text(fields.to), _text(fields.subject), _text(fields.body),
                                      _text(fields.code), EMAIL_PURPOSES.get(int(fields.purpose), "")))
                return 0
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                # The traceback may quote the message (the code, the address): log the type only.
                error = sys.exc_info()[1]
                log().error("libmfa: the email sender failed (%s); the send fails with EMAIL_SEND_FAILED",
                            type(error).__name__)
                return 1

    return _ffi.mfa_email_sender_fn(call)


def app_verifier(function: Callable[[str, str], object]) -> Any:
    """An ``mfa_app_verifier_fn`` calling ``function(credential, action)``.

    ``action`` is ``"enrollment"`` or ``"sign_in"``. Returns 0 (accept) only
    when ``function`` returns exactly ``True``; anything else, an exception
    (logged) or an unknown action rejects the credential.
    """

    def call(_context: object, credential: Optional[bytes], action: int) -> int:
        with _MARK:
            try:
                name = APP_ACTIONS.get(int(action))
                if name is None:
                    log().error("libmfa: unknown app verification action %d; the credential is rejected", action)
                    return 1
                verdict = function(_text(credential), name)
                if verdict is True:
                    return 0
                if verdict is not False:
                    log().warning("libmfa: the app verifier returned %s, not a bool; the credential is rejected",
                                type(verdict).__name__)
                return 1
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                log().exception("libmfa: the app verifier failed; the credential is rejected")
                return 1

    return _ffi.mfa_app_verifier_fn(call)


def webauthn_trust(function: Callable[[Any], object], make_attestation: Callable[[Any], Any]) -> Any:
    """An ``mfa_webauthn_trust_fn`` calling ``function(attestation)``.

    Returns 0 (trusted) only when ``function`` returns exactly ``True``;
    anything else, or an exception (logged), refuses the credential.
    """

    def call(_context: object, attestation: Any) -> int:
        with _MARK:
            try:
                verdict = function(make_attestation(attestation.contents))
                if verdict is True:
                    return 0
                if verdict is not False:
                    log().warning("libmfa: the WebAuthn trust callback returned %s, not a bool; the credential "
                                  "is refused", type(verdict).__name__)
                return 1
            except BaseException:  # noqa: BLE001 - nothing may cross into C
                log().exception("libmfa: the WebAuthn trust callback failed; the credential is refused")
                return 1

    return _ffi.mfa_webauthn_trust_fn(call)


class Failure:
    """The first exception the Python callbacks of one long call raised.

    The callbacks cannot raise through C: they store the exception here and
    make the call stop; the caller raises it with :meth:`raise_if_any` once the
    C function has returned.
    """

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: Optional[BaseException] = None

    def catch(self, error: BaseException) -> None:
        """Keep ``error`` unless an earlier one is kept."""
        if self.error is None:
            self.error = error

    def raise_if_any(self) -> None:
        """Raise the kept exception, if any."""
        error, self.error = self.error, None
        if error is not None:
            raise error


def import_report(function: Callable[[Any], object], make_line: Callable[[Any], Any], failure: Failure) -> Any:
    """An ``mfa_import_report_fn`` calling ``function(make_line(line))``.

    ``make_line`` copies the C line (its strings are only valid during the
    call). After an exception (kept in ``failure``) the later lines are not
    passed on.
    """

    def call(_context: object, line: Any) -> None:
        with _MARK:
            if failure.error is not None:
                return
            try:
                function(make_line(line.contents))
            except BaseException as error:  # noqa: BLE001 - nothing may cross into C
                failure.catch(error)

    return _ffi.mfa_import_report_fn(call)


def progress(function: Optional[Callable[[int, int], object]], failure: Failure) -> Any:
    """An ``mfa_progress_fn`` calling ``function(done, total)`` after each batch.

    It stops the call (returns non-zero) when ``function`` returns exactly
    ``False`` or raises (the exception is kept in ``failure``), and when
    another callback of the same call raised before; anything else goes on.
    """

    def call(_context: object, done: int, total: int) -> int:
        with _MARK:
            if failure.error is not None:
                return 1
            if function is None:
                return 0
            try:
                return 1 if function(int(done), int(total)) is False else 0
            except BaseException as error:  # noqa: BLE001 - nothing may cross into C
                failure.catch(error)
                return 1

    return _ffi.mfa_progress_fn(call)
