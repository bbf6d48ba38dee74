"""Recovery codes: a set of single-use codes for the user who lost their other factors.

A set is one factor (factor id ``"recovery"``, one hint saying how many
codes are left); it does not count toward the factor limit, and generating a
new set replaces the old one. libmfa keeps only the codes' keyed hashes:
show them to the user once. Enable it with ``"providers": {"recovery":
"ENABLED"}`` (and ``"recoveryCodes": {"count": 8..16}``, 10 by default).

Generating a set (from an enrollment session, like any enrollment)::

    codes = libmfa.RecoveryCodesMultiFactorGenerator.generate_codes(ctx.multi_factor(user).session())
    print("\\n".join(codes.codes))          # "xxxx-xxxx-xx", shown once
    codes.factor.hint                       # "10 codes left"

Signing in with one (SPEC flow 5, the hint of kind ``FACTOR_RECOVERY_CODES``)::

    assertion = libmfa.RecoveryCodesMultiFactorGenerator.assertion_for_sign_in(typed_code)
    result = resolver.resolve_sign_in(assertion)
    if result.used_recovery_code:
        warn(result.claims["recovery_codes_remaining"])   # offer a new set

Each kind's module holds its values, its assertion (which builds the C
``mfa_assertion`` of kind ``MFA_FACTOR_RECOVERY_CODES``) and its own C calls
(``mfa_recovery_codes_generate``).
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi, _lib, _memory
from .._lib import lib
from .._record import Record
from ..errors import check
from ..models import RECOVERY_CODES_FACTOR_ID, MultiFactorInfo
from .flow import MultiFactorAssertion, MultiFactorSession, factor_info

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Tuple, Union

    from .._typing import OptionalText, Text


class RecoveryCodes(Record):
    """A freshly generated recovery-code set.

    Show ``codes`` to the user once: libmfa keeps only their hashes, and the
    codes are left out of ``repr``.

    Attributes:
        codes: the codes, ``"xxxx-xxxx-xx"`` (a tuple of str; 10 by default).
        factor: the set as a :class:`libmfa.MultiFactorInfo` (factor id
            ``"recovery"``; its ``hint`` says how many codes are left, and so
            does ``remaining_codes``).
    """

    __slots__ = ("codes", "factor")
    _hidden = frozenset(["codes"])

    codes: Tuple[str, ...]
    factor: MultiFactorInfo

    def __init__(self, codes: Tuple[str, ...], factor: MultiFactorInfo) -> None:
        self._set(codes=tuple(codes), factor=factor)

    def __repr__(self) -> str:
        return "RecoveryCodes(%d codes, factor=%r)" % (len(self.codes), self.factor)


class RecoveryCodeMultiFactorAssertion(MultiFactorAssertion):
    """A recovery code, for :meth:`libmfa.MultiFactorResolver.resolve_sign_in`.

    Made by :meth:`RecoveryCodesMultiFactorGenerator.assertion_for_sign_in`.
    The code is left out of ``repr``. It cannot enroll anything: sets are
    generated (:meth:`RecoveryCodesMultiFactorGenerator.generate_codes`).

    Attributes:
        code: what the user typed (any case; dashes and spaces ignored).
        enrollment_id: the set's id (its hint's ``uid``), or None for the user's set.
        factor_id: always ``"recovery"``.
    """

    __slots__ = ("code", "enrollment_id")
    _hidden = frozenset(["code"])
    factor_id = RECOVERY_CODES_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_RECOVERY_CODES

    code: Text
    enrollment_id: Optional[Text]

    def __init__(self, code: Text, enrollment_id: Optional[Text] = None) -> None:
        self._set(code=code, enrollment_id=enrollment_id)

    def _enrollment(self) -> _ffi.mfa_assertion:
        raise _args.invalid("recovery codes are generated with RecoveryCodesMultiFactorGenerator.generate_codes, "
                            "not enrolled")

    def _sign_in(self) -> _ffi.mfa_assertion:
        fields = self._fields()
        fields.code = _args.code(self.code, "code")
        fields.enrollment_id = _args.optional_text(self.enrollment_id, "enrollment id")
        return fields


class RecoveryCodesMultiFactorGenerator:
    """Makes recovery-code sets and assertions, in the style of the other generators."""

    #: "recovery".
    FACTOR_ID = RECOVERY_CODES_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("RecoveryCodesMultiFactorGenerator has only static methods")

    @staticmethod
    def generate_codes(session: MultiFactorSession, display_name: OptionalText = None) -> RecoveryCodes:
        """Generate a new recovery-code set for the user of ``session``, replacing the previous set.

        The set does not count toward the factor limit. Like any enrollment,
        generating it revokes the user's earlier credentials and tokens (see
        :meth:`libmfa.Context.check_token`).

        Args:
            session: from :meth:`libmfa.MultiFactor.session`.
            display_name: an optional name for the set (at most 256 bytes).

        Returns:
            The :class:`RecoveryCodes`: the codes, to show once, and the set as a factor.

        Raises:
            OperationNotAllowedError: recovery codes are disabled.
            InvalidSessionError: a missing, tampered, expired or used session.
            UserTokenExpiredError: the user's tokens were revoked since the session was made.
            TypeError, InvalidArgumentError, CryptoError (random callback), StorageError.
        """
        if not isinstance(session, MultiFactorSession):
            raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)
        _lib.require(("mfa_recovery_codes_generate", "mfa_recovery_codes_free"), "recovery-code")
        raw = _args.text(session.token, "session")
        raw_name = _args.optional_text(display_name, "display_name")
        out = ctypes.POINTER(_ffi.mfa_recovery_codes)()
        err = ctypes.c_void_p()
        try:
            with session.context._use() as handle:
                check(lib.mfa_recovery_codes_generate(handle, ctypes.byref(out), raw, raw_name, ctypes.byref(err)),
                      err)
            fields = out.contents
            codes = tuple(_memory.required(fields.codes[index]) for index in range(fields.count))
            return RecoveryCodes(codes, factor_info(fields.factor))
        finally:
            lib.mfa_recovery_codes_free(out)

    @staticmethod
    def assertion_for_sign_in(code: Text,
                              enrollment_id: Union[MultiFactorInfo, Text, None] = None) -> RecoveryCodeMultiFactorAssertion:
        """An assertion that resolves a sign-in with a recovery code.

        Args:
            code: what the user typed (any case; dashes and spaces ignored;
                o reads as 0, i and l as 1).
            enrollment_id: the set's id (the hint's ``uid``), the hint itself,
                or None for the user's set.

        Raises:
            TypeError: a code or id of the wrong type.
        """
        if isinstance(enrollment_id, MultiFactorInfo):
            enrollment_id = enrollment_id.uid
        if enrollment_id is not None and not isinstance(enrollment_id, (str, bytes)):
            raise TypeError("enrollment_id must be str or None, not %s" % type(enrollment_id).__name__)
        _args.code(code, "code")
        return RecoveryCodeMultiFactorAssertion(code, enrollment_id)


__all__ = ["RecoveryCodeMultiFactorAssertion", "RecoveryCodes", "RecoveryCodesMultiFactorGenerator"]
