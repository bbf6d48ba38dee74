"""SMS second factors under the Firebase SDKs' names: PhoneAuthProvider and
PhoneMultiFactorGenerator, with their credential and assertion.

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

Each kind's module holds its values, its assertion (which builds the C
``mfa_assertion`` of kind ``MFA_FACTOR_PHONE``) and its own C calls
(``mfa_phone_start_enrollment``, ``mfa_phone_start_sign_in``). The
development outbox (``sms_outbox``) is read with :func:`libmfa.read_outbox`.
"""

from __future__ import annotations

from .. import _args, _ffi, _lib
from .._lib import lib
from .._record import Record
from ..models import PHONE_FACTOR_ID, MultiFactorInfo
from .flow import MultiFactorAssertion, MultiFactorResolver, _require_context, session_token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from .._typing import OptionalText, Text
    from .context import Context
    from .flow import MultiFactorSession

#: The C functions of the SMS second factor (checked when first used).
_PHONE_FUNCTIONS = ("mfa_phone_start_enrollment", "mfa_phone_start_sign_in")


class PhoneAuthCredential(Record):
    """Proof of a phone number: the verification id and the code the user received by SMS.

    Made by :meth:`PhoneAuthProvider.credential`; turned into an assertion by
    :meth:`PhoneMultiFactorGenerator.assertion`. Both fields are left out of
    ``repr``.

    Attributes:
        verification_id: the opaque id returned by
            :meth:`PhoneAuthProvider.verify_phone_number` or
            :meth:`PhoneAuthProvider.verify_phone_number_for_sign_in`.
        verification_code: the six-digit code from the SMS (str or bytes).
    """

    __slots__ = ("verification_id", "verification_code")
    _hidden = frozenset(["verification_id", "verification_code"])

    #: "phone".
    provider_id = PHONE_FACTOR_ID

    verification_id: Text
    verification_code: Text

    def __init__(self, verification_id: Text, verification_code: Text) -> None:
        self._set(verification_id=verification_id, verification_code=verification_code)


class PhoneMultiFactorAssertion(MultiFactorAssertion):
    """Proof of a phone factor, for :meth:`libmfa.MultiFactor.enroll` or
    :meth:`libmfa.MultiFactorResolver.resolve_sign_in`.

    Made by :meth:`PhoneMultiFactorGenerator.assertion`. Whether it enrolls
    or signs in is decided by the verification id inside, so the same class
    serves both (as in the Firebase SDKs).

    Attributes:
        credential: the :class:`PhoneAuthCredential`.
        factor_id: always ``"phone"``.
    """

    __slots__ = ("credential",)
    factor_id = PHONE_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_PHONE

    credential: PhoneAuthCredential

    def __init__(self, credential: PhoneAuthCredential) -> None:
        self._set(credential=credential)

    def _proof(self) -> _ffi.mfa_assertion:
        fields = self._fields()
        fields.verification_id = _args.text(self.credential.verification_id, "verification_id")
        fields.code = _args.code(self.credential.verification_code, "verification_code")
        return fields

    def _enrollment(self) -> _ffi.mfa_assertion:
        return self._proof()

    def _sign_in(self) -> _ffi.mfa_assertion:
        return self._proof()


class PhoneAuthProvider:
    """Sends SMS codes for enrolling and signing in (Firebase's ``PhoneAuthProvider``).

    Every code is six random digits, valid for 5 minutes (``limits.
    smsCodeLifetime``), usable once, and dead after 5 wrong tries; only its
    keyed hash is stored. Sending goes through the context's ``sms_sender``
    (or ``sms_outbox``) after the context's ``app_verifier`` accepted the
    client's app credential (unless the configuration sets
    ``phone.appVerification`` to DISABLED). Enrollment sends are held to a
    resend cooldown per number and to per-number, per-user and per-tenant
    hourly and daily caps; sign-in sends to an enrolled factor have their own
    budget per factor (``limits.smsPerFactorHour`` 5, ``smsPerFactorDay`` 10)
    and resend cooldown, so nobody else's attempts can spend it. Test phone
    numbers of the configuration never reach the sender, are not counted,
    and take their fixed code.

    Args:
        context: the :class:`libmfa.Context`.

    Attributes:
        context: the :class:`libmfa.Context`.
    """

    #: "phone", Firebase's ``PhoneAuthProvider.PROVIDER_ID``.
    PROVIDER_ID = PHONE_FACTOR_ID

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = _require_context(context)

    def __repr__(self) -> str:
        return "<libmfa.PhoneAuthProvider %r>" % (self.context,)

    def verify_phone_number(
        self,
        phone_number: Text,
        app_credential: OptionalText = None,
        session: Union[MultiFactorSession, Text, None] = None,
    ) -> str:
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
        token = session_token(session)
        _args.text_or_bytes(phone_number, "phone_number")
        if app_credential is not None:
            _args.text_or_bytes(app_credential, "app_credential")
        _lib.require(_PHONE_FUNCTIONS, "SMS")
        return self.context._string_call(lib.mfa_phone_start_enrollment, _args.text(token, "session"),
                                         _args.text(phone_number, "phone_number"),
                                         _args.optional_text(app_credential, "app_credential"))

    def verify_phone_number_for_sign_in(
        self,
        hint: Union[MultiFactorInfo, Text],
        resolver: MultiFactorResolver,
        app_credential: OptionalText = None,
    ) -> str:
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
            TenantMismatchError, UserTokenExpiredError (tokens revoked since
            the sign-in started), TooManyAttemptsError (the factor's resend
            cooldown, or the backoff after failed sign-ins),
            QuotaExceededError (the factor's hourly or daily budget),
            InvalidArgumentError (a factor of another kind).
        """
        if not isinstance(resolver, MultiFactorResolver):
            raise TypeError("resolver must be a MultiFactorResolver, not %s" % type(resolver).__name__)
        enrollment_id = hint.uid if isinstance(hint, MultiFactorInfo) else hint
        _args.text_or_bytes(enrollment_id, "hint")
        if app_credential is not None:
            _args.text_or_bytes(app_credential, "app_credential")
        _lib.require(_PHONE_FUNCTIONS, "SMS")
        return self.context._string_call(lib.mfa_phone_start_sign_in,
                                         _args.text(resolver.session, "pending_credential"),
                                         _args.optional_text(resolver.tenant, "tenant"),
                                         _args.text(enrollment_id, "enrollment id"),
                                         _args.optional_text(app_credential, "app_credential"))

    @staticmethod
    def credential(verification_id: Text, verification_code: Text) -> PhoneAuthCredential:
        """The :class:`PhoneAuthCredential` of a verification id and the code the user typed.

        Nothing is checked here: a wrong code fails when the assertion is used.

        Raises:
            TypeError: an id or code that is not str (or bytes).
        """
        _args.text_or_bytes(verification_id, "verification_id")
        _args.text_or_bytes(verification_code, "verification_code")
        return PhoneAuthCredential(verification_id, verification_code)


class PhoneMultiFactorGenerator:
    """Makes phone assertions, under the Firebase SDKs' names."""

    #: "phone".
    FACTOR_ID = PHONE_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("PhoneMultiFactorGenerator has only static methods")

    @staticmethod
    def assertion(credential: PhoneAuthCredential) -> PhoneMultiFactorAssertion:
        """A :class:`PhoneMultiFactorAssertion` for ``MultiFactor.enroll`` or ``resolve_sign_in``.

        Raises:
            TypeError: ``credential`` is not a :class:`PhoneAuthCredential`.
        """
        if not isinstance(credential, PhoneAuthCredential):
            raise TypeError("credential must be a PhoneAuthCredential, not %s" % type(credential).__name__)
        return PhoneMultiFactorAssertion(credential)


__all__ = [
    "PhoneAuthCredential",
    "PhoneAuthProvider",
    "PhoneMultiFactorAssertion",
    "PhoneMultiFactorGenerator",
]
