"""Email codes as a second factor: EmailAuthProvider and EmailMultiFactorGenerator,
with their credential and assertion, and the :class:`EmailMessage` a sender receives.

Enrolling an address::

    ctx = libmfa.Context("mfa.sqlite3", master_key=key, email_sender=mail_gateway)
    ctx.set_config({"state": "ENABLED", "providers": {"email": "ENABLED"}})
    mf = ctx.multi_factor(user)
    provider = libmfa.EmailAuthProvider(ctx)
    verification_id = provider.send_verification_code("jane@example.com", session=mf.session())
    credential = provider.credential(verification_id, code_the_user_typed)
    info = mf.enroll(libmfa.EmailMultiFactorGenerator.assertion(credential), "Work mail")

Signing in::

    try:
        ctx.sign_in(user)
    except libmfa.SecondFactorRequired as error:
        resolver = error.resolver
        hint = resolver.hints[0]            # hint.hint is masked: "j***@e******.com"
        verification_id = provider.send_verification_code_for_sign_in(hint, resolver)
        credential = provider.credential(verification_id, code_the_user_typed)
        result = resolver.resolve_sign_in(libmfa.EmailMultiFactorGenerator.assertion(credential))

Codes are six random digits, valid for 10 minutes (``email.codeLifetime``),
usable once, dead after 5 wrong tries (``email.maxAttempts``); only their
keyed hash is stored. Sends are budgeted as SMS are: enrollment codes per
address across accounts, per user and per tenant, sign-in codes per factor,
with a resend cooldown. The development outbox (``email_outbox``) is read
with :func:`libmfa.read_outbox`.
"""

from __future__ import annotations

from .. import _args, _ffi, _lib
from .._lib import lib
from .._record import Record
from ..models import EMAIL_FACTOR_ID, MultiFactorInfo
from .flow import MultiFactorAssertion, MultiFactorResolver, _require_context, session_token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from .._typing import Text
    from .context import Context
    from .flow import MultiFactorSession

#: The C functions of the email second factor (checked when first used).
_EMAIL_FUNCTIONS = ("mfa_email_start_enrollment", "mfa_email_start_sign_in")


class EmailMessage(Record):
    """One email libmfa asks the host to send, as the context's ``email_sender`` receives it.

    Attributes:
        to: the address (the domain in lower case).
        subject: a subject line.
        body: a plain-text body that holds the code.
        code: the six-digit code alone, for a host that writes its own message.
        purpose: ``"enrollment"`` (proving an address being enrolled) or ``"sign_in"``.
    """

    __slots__ = ("to", "subject", "body", "code", "purpose")
    _hidden = frozenset(["to", "body", "code"])

    to: str
    subject: str
    body: str
    code: str
    purpose: str

    def __init__(self, to: str, subject: str, body: str, code: str, purpose: str) -> None:
        self._set(to=to, subject=subject, body=body, code=code, purpose=purpose)


class EmailAuthCredential(Record):
    """Proof of an address: the verification id and the code the user received by email.

    Made by :meth:`EmailAuthProvider.credential`; turned into an assertion by
    :meth:`EmailMultiFactorGenerator.assertion`. Both fields are left out of ``repr``.
    """

    __slots__ = ("verification_id", "verification_code")
    _hidden = frozenset(["verification_id", "verification_code"])

    #: "email".
    provider_id = EMAIL_FACTOR_ID

    verification_id: Text
    verification_code: Text

    def __init__(self, verification_id: Text, verification_code: Text) -> None:
        self._set(verification_id=verification_id, verification_code=verification_code)


class EmailMultiFactorAssertion(MultiFactorAssertion):
    """Proof of an email factor, for :meth:`libmfa.MultiFactor.enroll` or
    :meth:`libmfa.MultiFactorResolver.resolve_sign_in`.

    Either a mailed code (``credential``), or, to enroll only, the user's
    verified sign-in address with an enrollment session (``session``).

    Attributes:
        credential: the :class:`EmailAuthCredential`, or None.
        session: the enrollment session's token that enrolls the verified sign-in address, or None.
        factor_id: always ``"email"``.
    """

    __slots__ = ("credential", "session")
    _hidden = frozenset(["session"])
    factor_id = EMAIL_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_EMAIL

    credential: Optional[EmailAuthCredential]
    session: Optional[Text]

    def __init__(self, credential: Optional[EmailAuthCredential], session: Optional[Text] = None) -> None:
        self._set(credential=credential, session=session)

    def _proof(self) -> _ffi.mfa_assertion:
        fields = self._fields()
        if self.credential is None:
            raise TypeError("an email sign-in needs the verification id and the code (EmailAuthCredential)")
        fields.verification_id = _args.text(self.credential.verification_id, "verification_id")
        fields.code = _args.code(self.credential.verification_code, "verification_code")
        return fields

    def _enrollment(self) -> _ffi.mfa_assertion:
        if self.credential is not None:
            return self._proof()
        fields = self._fields()
        fields.session_info = _args.text(self.session, "session")
        return fields

    def _sign_in(self) -> _ffi.mfa_assertion:
        return self._proof()


class EmailAuthProvider:
    """Sends email codes for enrolling and signing in, through the context's ``email_sender``.

    Args:
        context: the :class:`libmfa.Context`.
    """

    #: "email".
    PROVIDER_ID = EMAIL_FACTOR_ID

    __slots__ = ("context",)

    def __init__(self, context: Context) -> None:
        self.context = _require_context(context)

    def __repr__(self) -> str:
        return "<libmfa.EmailAuthProvider %r>" % (self.context,)

    def send_verification_code(self, address: Text,
                               session: Union[MultiFactorSession, Text, None] = None) -> str:
        """Send a code to an address the user wants to enroll; return the verification id.

        Args:
            address: ``local@domain`` in ASCII, at most 254 bytes, without a
                display name (an internationalised domain in its ``xn--``
                form); the domain is kept in lower case.
            session: the user's :class:`libmfa.MultiFactorSession`, or its token. Required.

        Raises:
            InvalidEmailError: not an address libmfa takes (the message does not repeat it).
            SecondFactorExistsError: the address (in any case) is one of the user's factors.
            SecondFactorLimitExceededError, OperationNotAllowedError (email disabled),
            TooManyAttemptsError (resend cooldown), QuotaExceededError (the
            address's, user's or tenant's hourly or daily cap),
            EmailSendFailedError (the sender failed or none is configured;
            nothing counted), InvalidSessionError, UserTokenExpiredError,
            TypeError, InvalidArgumentError, StorageError.
        """
        if session is None:
            raise TypeError("session is required: the user's MultiFactorSession")
        token = session_token(session)
        _args.text_or_bytes(address, "address")
        _lib.require(_EMAIL_FUNCTIONS, "email")
        return self.context._string_call(lib.mfa_email_start_enrollment, _args.text(token, "session"),
                                         _args.text(address, "address"))

    def send_verification_code_for_sign_in(self, hint: Union[MultiFactorInfo, Text],
                                           resolver: MultiFactorResolver) -> str:
        """Send a code to the address of an enrolled factor chosen from the hints; return the verification id.

        The full address never leaves libmfa: the client only sees the masked hint.

        Args:
            hint: one of ``resolver.hints`` (an email factor), or its enrollment id.
            resolver: the :class:`libmfa.MultiFactorResolver` of this sign-in.

        Raises:
            The errors of :meth:`send_verification_code` (but not
            SecondFactorExistsError or InvalidEmailError), plus
            MFAEnrollmentNotFoundError, TenantMismatchError,
            TooManyAttemptsError (the factor's resend cooldown, or the backoff
            after failed sign-ins), QuotaExceededError (the factor's own
            budget), InvalidArgumentError (a factor of another kind).
        """
        if not isinstance(resolver, MultiFactorResolver):
            raise TypeError("resolver must be a MultiFactorResolver, not %s" % type(resolver).__name__)
        enrollment_id = hint.uid if isinstance(hint, MultiFactorInfo) else hint
        _args.text_or_bytes(enrollment_id, "hint")
        _lib.require(_EMAIL_FUNCTIONS, "email")
        return self.context._string_call(lib.mfa_email_start_sign_in,
                                         _args.text(resolver.session, "pending_credential"),
                                         _args.optional_text(resolver.tenant, "tenant"),
                                         _args.text(enrollment_id, "enrollment id"))

    @staticmethod
    def credential(verification_id: Text, verification_code: Text) -> EmailAuthCredential:
        """The :class:`EmailAuthCredential` of a verification id and the code the user typed.

        Raises:
            TypeError: an id or code that is not str (or bytes).
        """
        _args.text_or_bytes(verification_id, "verification_id")
        _args.text_or_bytes(verification_code, "verification_code")
        return EmailAuthCredential(verification_id, verification_code)


class EmailMultiFactorGenerator:
    """Makes email assertions."""

    #: "email".
    FACTOR_ID = EMAIL_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("EmailMultiFactorGenerator has only static methods")

    @staticmethod
    def assertion(credential: EmailAuthCredential) -> EmailMultiFactorAssertion:
        """An :class:`EmailMultiFactorAssertion` for ``MultiFactor.enroll`` or ``resolve_sign_in``.

        Raises:
            TypeError: ``credential`` is not an :class:`EmailAuthCredential`.
        """
        if not isinstance(credential, EmailAuthCredential):
            raise TypeError("credential must be an EmailAuthCredential, not %s" % type(credential).__name__)
        return EmailMultiFactorAssertion(credential)

    @staticmethod
    def assertion_for_verified_sign_in_email(session: Union[MultiFactorSession, Text]) -> EmailMultiFactorAssertion:
        """An assertion that enrolls the user's sign-in address without a code.

        Only when the configuration sets ``"email": {"enrollVerifiedSignInEmail":
        true}`` (off by default) and the user's email is verified
        (:attr:`libmfa.User.email_verified`); otherwise ``enroll`` raises
        OperationNotAllowedError or UnverifiedEmailError.
        """
        return EmailMultiFactorAssertion(None, session_token(session))


__all__ = [
    "EmailAuthCredential",
    "EmailAuthProvider",
    "EmailMessage",
    "EmailMultiFactorAssertion",
    "EmailMultiFactorGenerator",
]
