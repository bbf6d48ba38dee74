"""SMS second factors under the Firebase SDKs' names: PhoneAuthProvider and
PhoneMultiFactorGenerator, plus a reader for the development outbox.

Enrolling a phone (SPEC flow 3)::

    ctx = libmfa.Context("mfa.sqlite3", master_key=key, sms_sender=gateway.send,
                         app_verifier=lambda token, action: recaptcha_ok(token, action))
    ctx.set_config({"state": "ENABLED", "providers": {"phone": "ENABLED"}})
    mf = ctx.multi_factor(user)
    provider = libmfa.PhoneAuthProvider(ctx)
    verification_id = provider.verify_phone_number("+15105551234", app_credential=token,
                                                   session=mf.session())
    credential = provider.credential(verification_id, code_the_user_typed)
    info = mf.enroll(libmfa.PhoneMultiFactorGenerator.assertion(credential), "Work phone")

Signing in (SPEC flow 5)::

    try:
        ctx.sign_in(user)
    except libmfa.SecondFactorRequired as error:
        resolver = error.resolver
        hint = resolver.hints[0]            # hint.phone_number is masked: "+1******1234"
        verification_id = provider.verify_phone_number_for_sign_in(hint, resolver, app_credential=token)
        credential = provider.credential(verification_id, code_the_user_typed)
        result = resolver.resolve_sign_in(libmfa.PhoneMultiFactorGenerator.assertion(credential))
"""

import json
import os
import re

from .engine import Context, MultiFactorResolver, MultiFactorSession
from .models import PHONE_FACTOR_ID, MultiFactorInfo, PhoneAuthCredential, PhoneMultiFactorAssertion

_CODE = re.compile(r"^(\d{6}) is your verification code\.$")


def _text_or_bytes(value, what):
    """TypeError unless ``value`` is str or bytes."""
    if not isinstance(value, (str, bytes)):
        raise TypeError("%s must be str, not %s" % (what, type(value).__name__))
    return value


class PhoneAuthProvider:
    """Sends SMS codes for enrolling and signing in (Firebase's ``PhoneAuthProvider``).

    Every code is six random digits, valid for 5 minutes (``limits.
    smsCodeLifetime``), usable once, and dead after 5 wrong tries; only its
    keyed hash is stored. Sending goes through the context's ``sms_sender``
    (or ``sms_outbox``) after the context's ``app_verifier`` accepted the
    client's app credential (unless the configuration sets
    ``phone.appVerification`` to DISABLED), and within the resend cooldown
    and the per-number, per-user and per-tenant hourly and daily caps. Test
    phone numbers of the configuration never reach the sender, are not
    counted, and take their fixed code.

    Args:
        context: the :class:`libmfa.Context`.

    Attributes:
        context: the :class:`libmfa.Context`.
    """

    #: "phone", Firebase's ``PhoneAuthProvider.PROVIDER_ID``.
    PROVIDER_ID = PHONE_FACTOR_ID

    __slots__ = ("context",)

    def __init__(self, context):
        if not isinstance(context, Context):
            raise TypeError("context must be a libmfa.Context, not %s" % type(context).__name__)
        self.context = context

    def __repr__(self):
        return "<libmfa.PhoneAuthProvider %r>" % (self.context,)

    def verify_phone_number(self, phone_number, app_credential=None, session=None):
        """Send a code to a number the user wants to enroll; return the verification id.

        Args:
            phone_number: strict E.164: ``"+"`` then 7 to 15 digits, the
                first not 0, no spaces or punctuation (``"+15105551234"``).
            app_credential: the token the client's app verification produced
                (reCAPTCHA- or APNs-style), handed to the context's
                ``app_verifier`` with the action ``"enrollment"``.
            session: the user's :class:`libmfa.MultiFactorSession` (from
                :meth:`libmfa.MultiFactor.session`), or its token string.
                Required.

        Returns:
            The opaque verification id (str): combine it with the code the
            user received in :meth:`credential`.

        Raises:
            InvalidPhoneNumberError: not strict E.164.
            MissingAppCredentialError: no (or an empty) app credential while
                app verification is REQUIRED.
            InvalidAppCredentialError: the verifier rejected it.
            OperationNotAllowedError: phone factors disabled, or no verifier
                while the configuration requires one.
            SecondFactorExistsError: the number is already one of the user's factors.
            TooManyAttemptsError: a code was sent to this number less than
                ``smsResendCooldown`` (30) seconds ago.
            QuotaExceededError: an hourly or daily cap (number, user, tenant) is used up.
            SMSSendFailedError: the sender failed or none is configured
                (nothing was counted).
            InvalidSessionError: a tampered, expired or used session.
            TypeError, InvalidArgumentError, StorageError, CryptoError.
        """
        if session is None:
            raise TypeError("session is required: the user's MultiFactorSession")
        if isinstance(session, MultiFactorSession):
            token = session.token
        elif isinstance(session, (str, bytes)):
            token = session
        else:
            raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)
        _text_or_bytes(phone_number, "phone_number")
        if app_credential is not None:
            _text_or_bytes(app_credential, "app_credential")
        return self.context._start_phone_enrollment(token, phone_number, app_credential)

    def verify_phone_number_for_sign_in(self, hint, resolver, app_credential=None):
        """Send a code to the number of an enrolled factor chosen from the hints; return the verification id.

        The full number never leaves libmfa: the client only ever sees the
        masked hint.

        Args:
            hint: one of ``resolver.hints`` (a :class:`libmfa.MultiFactorInfo`
                of a phone factor), or its enrollment id (``hint.uid``).
            resolver: the :class:`libmfa.MultiFactorResolver` of this sign-in
                (from :class:`libmfa.SecondFactorRequired` or
                :meth:`libmfa.Context.resolver`); the verification id only
                works with its pending credential.
            app_credential: as in :meth:`verify_phone_number`; the verifier
                sees the action ``"sign_in"``.

        Returns:
            The opaque verification id (str).

        Raises:
            The errors of :meth:`verify_phone_number` (but not
            SecondFactorExistsError), plus MFAEnrollmentNotFoundError (no
            such factor), InvalidSessionError (a tampered, expired or used
            pending credential, or another user's factor),
            TenantMismatchError, TooManyAttemptsError (also the backoff after
            failed sign-ins), InvalidArgumentError (a TOTP factor).
        """
        if not isinstance(resolver, MultiFactorResolver):
            raise TypeError("resolver must be a MultiFactorResolver, not %s" % type(resolver).__name__)
        enrollment_id = hint.uid if isinstance(hint, MultiFactorInfo) else hint
        _text_or_bytes(enrollment_id, "hint")
        if app_credential is not None:
            _text_or_bytes(app_credential, "app_credential")
        return self.context._start_phone_sign_in(resolver.session, resolver.tenant, enrollment_id, app_credential)

    @staticmethod
    def credential(verification_id, verification_code):
        """The :class:`libmfa.PhoneAuthCredential` of a verification id and the code the user typed.

        Nothing is checked here: a wrong code fails when the assertion is used.

        Raises:
            TypeError: an id or code that is not str (or bytes).
        """
        _text_or_bytes(verification_id, "verification_id")
        _text_or_bytes(verification_code, "verification_code")
        return PhoneAuthCredential(verification_id, verification_code)


class PhoneMultiFactorGenerator:
    """Makes phone assertions, under the Firebase SDKs' names."""

    #: "phone".
    FACTOR_ID = PHONE_FACTOR_ID

    def __init__(self):
        raise TypeError("PhoneMultiFactorGenerator has only static methods")

    @staticmethod
    def assertion(credential):
        """A :class:`libmfa.PhoneMultiFactorAssertion` for ``MultiFactor.enroll`` or ``resolve_sign_in``.

        Raises:
            TypeError: ``credential`` is not a :class:`libmfa.PhoneAuthCredential`.
        """
        if not isinstance(credential, PhoneAuthCredential):
            raise TypeError("credential must be a PhoneAuthCredential, not %s" % type(credential).__name__)
        return PhoneMultiFactorAssertion(credential)


def read_outbox(path):
    """The messages in an SMS outbox file, oldest first. A development aid.

    A context opened with ``sms_outbox=path`` appends every SMS to ``path``
    as one JSON line instead of sending it; this reads them back, so demos
    and tests can pick up codes without a phone. Do not use an outbox in
    production: it holds live codes in the clear.

    Args:
        path: the outbox file (str or path-like). A file that does not exist
            yet holds no message.

    Returns:
        A list of dicts ``{"time": int, "to": str, "message": str, "code":
        str or None}``: ``code`` is the six-digit code parsed from the
        message. An unfinished last line (a writer mid-way) is left out.

    Raises:
        ValueError: a finished line that is not such a JSON object.
        OSError: the file exists but cannot be read.
    """
    try:
        with open(os.fspath(path), "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return []
    messages = []
    lines = data.split(b"\n")
    for number, line in enumerate(lines[:-1], 1):  # lines[-1] is "" or an unfinished line
        if not line.strip():
            continue
        try:
            entry = json.loads(line.decode("utf-8"))
        except ValueError as error:
            raise ValueError("%s:%d is not JSON: %s" % (path, number, error)) from None
        if (not isinstance(entry, dict) or not isinstance(entry.get("to"), str)
                or not isinstance(entry.get("message"), str) or not isinstance(entry.get("time"), int)):
            raise ValueError("%s:%d is not an outbox entry {time, to, message}" % (path, number))
        match = _CODE.match(entry["message"])
        entry["code"] = match.group(1) if match else None
        messages.append(entry)
    return messages


def outbox_code(path, phone_number=None):
    """The code of the newest message in an outbox (to ``phone_number`` if given), or None.

    A development aid; see :func:`read_outbox`.
    """
    for entry in reversed(read_outbox(path)):
        if phone_number is None or entry["to"] == phone_number:
            return entry["code"]
    return None


__all__ = [
    "PhoneAuthProvider",
    "PhoneMultiFactorGenerator",
    "outbox_code",
    "read_outbox",
]
