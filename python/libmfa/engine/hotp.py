"""Event-based OATH tokens (RFC 4226 HOTP) as a second factor.

A hardware token is imported by an operator (:meth:`libmfa.Admin.import_pskc`,
:meth:`libmfa.Admin.import_token`, the users-file and otpauth importers),
assigned to its user (:meth:`libmfa.Admin.assign_token`) or claimed by the
user with a code from it::

    mf = ctx.multi_factor(user)
    info = mf.enroll(libmfa.HOTPMultiFactorGenerator.assertion_for_enrollment(
        mf.session(), serial="T-0001", one_time_password=code_from_the_token))

Signing in (the hint of kind ``FACTOR_HOTP``)::

    assertion = libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in(hint.uid, code)
    result = resolver.resolve_sign_in(assertion)

A token pressed many times away from the server (beyond ``hotp.lookAhead``)
is brought back by two consecutive codes, up to ``hotp.resyncWindow``
counters ahead: pass the next code as ``next_one_time_password``; the result
then has the claim ``hotp_resynchronized``.
"""

from __future__ import annotations

from .. import _args, _ffi
from ..models import HOTP_FACTOR_ID
from .flow import MultiFactorAssertion, MultiFactorSession, session_token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from .._typing import Text


class HOTPMultiFactorAssertion(MultiFactorAssertion):
    """Proof of an HOTP token: its code, and what it is for.

    Made by :class:`HOTPMultiFactorGenerator`: to sign in it names the
    enrolled factor (``enrollment_id``); to claim an unassigned token, the
    enrollment session (``session``) and the token's ``serial``. The codes
    and the session are left out of ``repr``.

    Attributes:
        one_time_password: the code the token shows.
        next_one_time_password: the code of the press after, for a resynchronization, or None.
        enrollment_id: the enrolled factor's id (sign-in), or None.
        session: the enrollment session's token (claiming a token), or None.
        serial: the token's serial number (claiming a token), or None.
        factor_id: always ``"hotp"``.
    """

    __slots__ = ("one_time_password", "next_one_time_password", "enrollment_id", "session", "serial")
    _hidden = frozenset(["one_time_password", "next_one_time_password", "session"])
    factor_id = HOTP_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_HOTP

    one_time_password: Text
    next_one_time_password: Optional[Text]
    enrollment_id: Optional[Text]
    session: Optional[Text]
    serial: Optional[Text]

    def __init__(self, one_time_password: Text, next_one_time_password: Optional[Text] = None,
                 enrollment_id: Optional[Text] = None, session: Optional[Text] = None,
                 serial: Optional[Text] = None) -> None:
        self._set(one_time_password=one_time_password, next_one_time_password=next_one_time_password,
                  enrollment_id=enrollment_id, session=session, serial=serial)

    def _enrollment(self) -> _ffi.mfa_assertion:
        if self.session is None or self.serial is None:
            raise _args.invalid("a sign-in assertion cannot enroll a factor; use assertion_for_enrollment")
        fields = self._fields()
        fields.session_info = _args.text(self.session, "session")
        fields.serial = _args.text(self.serial, "serial")
        fields.code = _args.code(self.one_time_password, "one_time_password")
        fields.next_code = _args.optional_text(self.next_one_time_password, "next_one_time_password")
        return fields

    def _sign_in(self) -> _ffi.mfa_assertion:
        if self.enrollment_id is None:
            raise _args.invalid("an enrollment assertion cannot resolve a sign-in; use assertion_for_sign_in")
        fields = self._fields()
        fields.enrollment_id = _args.text(self.enrollment_id, "enrollment id")
        fields.code = _args.code(self.one_time_password, "one_time_password")
        fields.next_code = _args.optional_text(self.next_one_time_password, "next_one_time_password")
        return fields


class HOTPMultiFactorGenerator:
    """Makes HOTP assertions, in the style of the other generators."""

    #: "hotp".
    FACTOR_ID = HOTP_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("HOTPMultiFactorGenerator has only static methods")

    @staticmethod
    def assertion_for_sign_in(enrollment_id: Text, one_time_password: Text,
                              next_one_time_password: Optional[Text] = None) -> HOTPMultiFactorAssertion:
        """An assertion that resolves a sign-in with the token ``enrollment_id``.

        With ``next_one_time_password`` (the code of the following press) it
        also resynchronizes a token pressed beyond the look-ahead window.
        """
        return HOTPMultiFactorAssertion(one_time_password, next_one_time_password, enrollment_id=enrollment_id)

    @staticmethod
    def assertion_for_enrollment(session: Union[MultiFactorSession, Text], serial: Text, one_time_password: Text,
                                 next_one_time_password: Optional[Text] = None) -> HOTPMultiFactorAssertion:
        """An assertion that claims the unassigned token ``serial`` for the user of ``session``."""
        return HOTPMultiFactorAssertion(one_time_password, next_one_time_password, session=session_token(session),
                                        serial=serial)
