"""The flow every kind of second factor shares (Firebase's model).

* :class:`MultiFactorSession`: proof of a recent sign-in, needed to enroll;
* :class:`MultiFactor`: one user's factors: list, enroll (``mfa_enroll``), unenroll;
* :class:`MultiFactorResolver`: hints and pending credential of a sign-in
  that needs a second factor; resolves it (``mfa_resolve``);
* :class:`MultiFactorAssertion`: the base of every kind's assertion. Each
  kind's assertion builds the C ``mfa_assertion`` it stands for, so the flow
  never asks which kind it has.

The kinds live in :mod:`libmfa.engine.totp`, :mod:`libmfa.engine.phone` and
:mod:`libmfa.engine.recovery_codes`.
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi, _memory
from .._lib import lib
from .._record import Record
from ..errors import check
from ..models import MultiFactorInfo, SignInResult, User

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar, List, Optional, Union

    from .._typing import OptionalText, Text
    from .context import Context
    from .devices import DeviceToken


def _require_context(context: object) -> Context:
    """``context`` if it is a :class:`libmfa.Context`, else TypeError."""
    from .context import Context

    if not isinstance(context, Context):
        raise TypeError("context must be a libmfa.Context, not %s" % type(context).__name__)
    return context


def c_user(user: object) -> _ffi.mfa_user:
    """An ``mfa_user`` for a :class:`User` (its strings are kept alive by the struct)."""
    if not isinstance(user, User):
        raise TypeError("user must be a libmfa.User, not %s" % type(user).__name__)
    user.validate()
    fields = _ffi.mfa_user()
    check(lib.mfa_user_init(ctypes.byref(fields), _ffi.MFA_USER_VERSION))
    fields.uid = _args.text(user.uid, "uid")
    fields.tenant = _args.optional_text(user.tenant, "tenant")
    fields.email = _args.optional_text(user.email, "email")
    fields.email_verified = 1 if user.email_verified else 0
    fields.provider = _args.text(user.provider, "provider")
    fields.auth_time = user.auth_time
    return fields


def factor_info(fields: _ffi.mfa_factor_info) -> MultiFactorInfo:
    """A :class:`MultiFactorInfo` copied from an ``mfa_factor_info`` (of any kind)."""
    remaining = int(fields.remaining_codes)
    return MultiFactorInfo(
        uid=_memory.required(fields.uid),
        factor_id=_memory.required(fields.factor_id),
        display_name=_memory.optional(fields.display_name),
        enrollment_time=int(fields.enrollment_time),
        phone_number=_memory.optional(fields.phone_number),
        kind=int(fields.kind),
        hint=_memory.required(fields.hint),
        remaining_codes=remaining if remaining >= 0 else None,
    )


def sign_in_result(fields: _ffi.mfa_sign_in_result) -> SignInResult:
    """A :class:`SignInResult` copied from an ``mfa_sign_in_result``, with all its claims."""
    claims = [(_memory.required(fields.claims[index].name), _memory.required(fields.claims[index].value))
              for index in range(fields.claim_count)]
    return SignInResult(
        uid=_memory.required(fields.uid),
        tenant=_memory.optional(fields.tenant),
        factor_id=_memory.optional(fields.factor_id),
        enrollment_id=_memory.optional(fields.enrollment_id),
        time=int(fields.time),
        kind=int(fields.kind),
        claims=claims,
    )


def resolver(context: Context, fields: _ffi.mfa_resolver) -> MultiFactorResolver:
    """A :class:`MultiFactorResolver` copied from an ``mfa_resolver``."""
    hints = [factor_info(fields.hints[index]) for index in range(fields.hint_count)]
    return MultiFactorResolver(context, _memory.required(fields.session), _memory.required(fields.uid),
                               _memory.optional(fields.tenant), hints)


def session_token(session: object) -> Text:
    """The token of a :class:`MultiFactorSession` (or a token string); TypeError otherwise."""
    if isinstance(session, MultiFactorSession):
        return session.token
    if isinstance(session, (str, bytes)):
        return session
    raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)


class MultiFactorAssertion(Record):
    """Proof of a second factor, of any kind: the base of every kind's assertion.

    Made by a kind's generator (:class:`libmfa.TOTPMultiFactorGenerator`,
    :class:`libmfa.PhoneMultiFactorGenerator`,
    :class:`libmfa.RecoveryCodesMultiFactorGenerator`) and passed to
    :meth:`MultiFactor.enroll` or :meth:`MultiFactorResolver.resolve_sign_in`.

    Attributes:
        factor_id: the kind's factor id (``"totp"``, ``"phone"``, ``"recovery"``).
    """

    __slots__ = ()
    factor_id: ClassVar[str] = ""
    #: The kind's ``MFA_FACTOR_*`` number.
    _kind: ClassVar[int] = 0

    def _fields(self) -> _ffi.mfa_assertion:
        """An empty ``mfa_assertion`` of this kind (its strings are kept alive by the struct)."""
        fields = _ffi.mfa_assertion()
        check(lib.mfa_assertion_init(ctypes.byref(fields), _ffi.MFA_ASSERTION_VERSION))
        fields.kind = self._kind
        return fields

    def _enrollment(self) -> _ffi.mfa_assertion:
        """The ``mfa_assertion`` that enrolls this factor (``mfa_enroll``); InvalidArgumentError if it cannot."""
        raise _args.invalid("a %s assertion cannot enroll a factor" % self.factor_id)

    def _sign_in(self) -> _ffi.mfa_assertion:
        """The ``mfa_assertion`` that resolves a sign-in (``mfa_resolve``); InvalidArgumentError if it cannot."""
        raise _args.invalid("a %s assertion cannot resolve a sign-in" % self.factor_id)


class MultiFactorSession:
    """Proof that a user recently passed the first factor, needed to enroll.

    Attributes:
        token: the opaque, expiring token bound to the user (hand it to a
            client and rebuild the session with ``MultiFactorSession(token,
            context)`` later). Left out of ``repr``.
        context: the :class:`libmfa.Context` that minted it.
    """

    __slots__ = ("token", "context")

    def __init__(self, token: Text, context: Context) -> None:
        context = _require_context(context)
        if not isinstance(token, (str, bytes)):
            raise TypeError("token must be str, not %s" % type(token).__name__)
        self.token = token
        self.context = context

    def __repr__(self) -> str:
        return "<libmfa.MultiFactorSession>"


class MultiFactor:
    """One user's second factors: list, enroll, unenroll (Firebase's ``user.multiFactor``).

    Get one with :meth:`libmfa.Context.multi_factor`.

    Attributes:
        context: the :class:`libmfa.Context`.
        user: the :class:`libmfa.User`.
    """

    __slots__ = ("context", "user")

    def __init__(self, context: Context, user: User) -> None:
        context = _require_context(context)
        if not isinstance(user, User):
            raise TypeError("user must be a libmfa.User, not %s" % type(user).__name__)
        self.context = context
        self.user = user

    def __repr__(self) -> str:
        return "<libmfa.MultiFactor uid=%r tenant=%r>" % (self.user.uid, self.user.tenant)

    def session(self) -> MultiFactorSession:
        """A :class:`MultiFactorSession` for enrolling a new factor (or generating recovery codes).

        Raises:
            OperationNotAllowedError: MFA or every provider disabled.
            UnsupportedFirstFactorError: the user signed in with phone,
                anonymous, custom or gc.apple.com.
            UnverifiedEmailError: no email, or not verified.
            RequiresRecentLoginError: ``auth_time`` is too old.
            SecondFactorLimitExceededError: the user has the maximum (5) and
                no kind that does not count (recovery codes) is enabled.
            InvalidArgumentError, StorageError, CryptoError (random callback).
        """
        c_user_fields = c_user(self.user)
        token = self.context._string_call(lib.mfa_session_new, ctypes.byref(c_user_fields))
        return MultiFactorSession(token, self.context)

    def enrolled_factors(self) -> List[MultiFactorInfo]:
        """The enrolled factors of every kind, oldest first: a list of :class:`libmfa.MultiFactorInfo`."""
        fields = c_user(self.user)
        out = ctypes.POINTER(_ffi.mfa_factor_list)()
        err = ctypes.c_void_p()
        try:
            with self.context._use() as handle:
                check(lib.mfa_factors_list(handle, ctypes.byref(out), ctypes.byref(fields), ctypes.byref(err)), err)
            listing = out.contents
            return [factor_info(listing.items[index]) for index in range(listing.count)]
        finally:
            lib.mfa_factor_list_free(out)

    def enroll(self, assertion: MultiFactorAssertion, display_name: OptionalText = None) -> MultiFactorInfo:
        """Finish an enrollment, of any kind (``mfa_enroll``).

        Args:
            assertion: from :meth:`libmfa.TOTPMultiFactorGenerator.assertion_for_enrollment`,
                or from :meth:`libmfa.PhoneMultiFactorGenerator.assertion` with
                the verification id of
                :meth:`libmfa.PhoneAuthProvider.verify_phone_number` and the
                SMS code. (Recovery codes are generated, not enrolled: see
                :meth:`libmfa.RecoveryCodesMultiFactorGenerator.generate_codes`.)
            display_name: an optional name for the factor (at most 256 bytes).

        Returns:
            The new :class:`libmfa.MultiFactorInfo` (for a phone,
            ``phone_number`` is the full number). The user's earlier
            credentials and libmfa tokens are revoked (see
            :meth:`libmfa.Context.check_token`).

        Raises:
            InvalidVerificationCodeError: a wrong or malformed code (the user
                may retry; an SMS verification id dies after 5 wrong codes).
            CodeExpiredError: past the secret's enrollment deadline, or the
                SMS code's lifetime (5 minutes by default).
            InvalidSessionError: tampered, already used, or another user's;
                for SMS also a dead verification id, or one made for a sign-in.
            UserTokenExpiredError: the user's tokens were revoked since the
                session, secret or verification id was issued.
            TenantMismatchError: the secret was made for another tenant.
            SecondFactorExistsError: the number is already one of the user's factors.
            SecondFactorLimitExceededError, OperationNotAllowedError,
            InvalidArgumentError (a sign-in assertion, a recovery-code
            assertion), TypeError, StorageError.
        """
        if not isinstance(assertion, MultiFactorAssertion):
            raise TypeError("assertion must come from a MultiFactorGenerator (TOTP, phone), not %s"
                            % type(assertion).__name__)
        fields = assertion._enrollment()
        raw_name = _args.optional_text(display_name, "display_name")
        return self.context._factor_call(lib.mfa_enroll, self.user, ctypes.byref(fields), raw_name)

    def unenroll(self, factor: Union[MultiFactorInfo, Text]) -> None:
        """Remove a factor, by :class:`libmfa.MultiFactorInfo` or enrollment id; revokes earlier credentials.

        Raises:
            RequiresRecentLoginError: ``auth_time`` is too old.
            MFAEnrollmentNotFoundError: the user has no factor with this id.
            TypeError, InvalidArgumentError, StorageError.
        """
        enrollment_id = factor.uid if isinstance(factor, MultiFactorInfo) else factor
        if not isinstance(enrollment_id, (str, bytes)):
            raise TypeError("factor must be a MultiFactorInfo or an enrollment id, not %s" % type(factor).__name__)
        fields = c_user(self.user)
        raw_id = _args.text(enrollment_id, "enrollment id")
        err = ctypes.c_void_p()
        with self.context._use() as handle:
            check(lib.mfa_unenroll(handle, ctypes.byref(fields), raw_id, ctypes.byref(err)), err)


class MultiFactorResolver:
    """What a sign-in of a user with second factors gets: hints and a pending credential.

    Found on :class:`libmfa.SecondFactorRequired` as ``error.resolver``, or
    rebuilt with :meth:`libmfa.Context.resolver`.

    Attributes:
        hints: the user's factors of every kind (:class:`libmfa.MultiFactorInfo`;
            phone numbers masked, ``hint`` filled for each).
        session: the pending credential: opaque, expiring, single-use, bound
            to the user and tenant. Hand it to the client.
        uid: the user signing in.
        tenant: the tenant, or None.
        context: the :class:`libmfa.Context`.
    """

    __slots__ = ("context", "session", "uid", "tenant", "hints")

    def __init__(self, context: Context, session: str, uid: str, tenant: Optional[str],
                 hints: List[MultiFactorInfo]) -> None:
        self.context = context
        self.session = session
        self.uid = uid
        self.tenant = tenant
        self.hints = list(hints)

    def __repr__(self) -> str:
        return "<libmfa.MultiFactorResolver uid=%r tenant=%r hints=%d>" % (self.uid, self.tenant, len(self.hints))

    def resolve_sign_in(self, assertion: MultiFactorAssertion) -> SignInResult:
        """Finish the sign-in with a second factor of any kind (``mfa_resolve``).

        Args:
            assertion: from :meth:`libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in`;
                from :meth:`libmfa.PhoneMultiFactorGenerator.assertion` with
                the verification id of
                :meth:`libmfa.PhoneAuthProvider.verify_phone_number_for_sign_in`
                (for this resolver) and the SMS code; or from
                :meth:`libmfa.RecoveryCodesMultiFactorGenerator.assertion_for_sign_in`
                with a recovery code.

        Returns:
            A :class:`libmfa.SignInResult` naming the factor used, with all its
            ``claims``. The pending credential is used up, and so is the TOTP
            code's time step, the SMS code or the recovery code.

        Raises:
            InvalidVerificationCodeError: a wrong, malformed or replayed code
                (a recovery code already used).
            CodeExpiredError: an SMS code past its lifetime.
            InvalidSessionError: a tampered, expired or used pending
                credential, or another user's factor; for SMS also a used or
                dead code (5 wrong tries), or a verification id of another
                sign-in or of an enrollment.
            UserTokenExpiredError: the user's tokens were revoked since the
                sign-in started.
            TenantMismatchError, MFAEnrollmentNotFoundError (no such factor,
            no recovery codes), TooManyAttemptsError (backoff),
            InvalidArgumentError (an enrollment assertion, an assertion of
            another kind than the factor it names), TypeError, StorageError.
        """
        if not isinstance(assertion, MultiFactorAssertion):
            raise TypeError("assertion must come from a MultiFactorGenerator (TOTP, phone, recovery codes), not %s"
                            % type(assertion).__name__)
        fields = assertion._sign_in()
        raw = _args.text(self.session, "pending_credential")
        raw_tenant = _args.optional_text(self.tenant, "tenant")
        out = ctypes.POINTER(_ffi.mfa_sign_in_result)()
        err = ctypes.c_void_p()
        try:
            with self.context._use() as handle:
                check(lib.mfa_resolve(handle, ctypes.byref(out), raw, raw_tenant, ctypes.byref(fields),
                                      ctypes.byref(err)), err)
            return sign_in_result(out.contents)
        finally:
            lib.mfa_sign_in_result_free(out)


    def remember_device(self, label: OptionalText = None) -> DeviceToken:
        """Remember the device of this sign-in, after :meth:`resolve_sign_in` succeeded.

        See :meth:`libmfa.Context.remember_device`.
        """
        return self.context.remember_device(self, label)


__all__ = ["MultiFactor", "MultiFactorAssertion", "MultiFactorResolver", "MultiFactorSession"]
