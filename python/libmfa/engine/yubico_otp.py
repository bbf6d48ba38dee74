"""YubiKeys (Yubico OTP) as a second factor, checked locally.

A YubiKey types a 44-character OTP when touched: its public id (which names
the key), then a block encrypted with its AES-128 key. libmfa decrypts it,
checks its CRC and private id, and refuses any OTP whose counters do not
rise (a replay, or an older OTP arriving late), never asking Yubico's cloud.

Keys are imported by an operator (:meth:`libmfa.Admin.import_pskc`, the
``yubikey-csv`` import of ``ykman``'s or the Personalization Tool's CSV,
:meth:`libmfa.Admin.import_token`), then assigned, or claimed by a touch::

    mf = ctx.multi_factor(user)
    mf.enroll(libmfa.YubicoOTPMultiFactorGenerator.assertion_for_enrollment(mf.session(), otp))

Signing in::

    result = resolver.resolve_sign_in(libmfa.YubicoOTPMultiFactorGenerator.assertion_for_sign_in(otp))
"""

from __future__ import annotations

from .. import _args, _ffi
from ..models import YUBICO_OTP_FACTOR_ID
from .flow import MultiFactorAssertion, MultiFactorSession, session_token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Union

    from .._typing import Text

_MODHEX = frozenset("cbdefghijklnrtuvCBDEFGHIJKLNRTUV")


class YubicoOTPMultiFactorAssertion(MultiFactorAssertion):
    """Proof of a YubiKey: the OTP it typed.

    Made by :class:`YubicoOTPMultiFactorGenerator`. The OTP and the session
    are left out of ``repr``.

    Attributes:
        otp: the OTP the key typed.
        enrollment_id: the factor (sign-in; optional: the OTP names its key), or None.
        session: the enrollment session's token (claiming a key), or None.
        factor_id: always ``"yubico_otp"``.
    """

    __slots__ = ("otp", "enrollment_id", "session")
    _hidden = frozenset(["otp", "session"])
    factor_id = YUBICO_OTP_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_YUBICO_OTP

    otp: Text
    enrollment_id: Optional[Text]
    session: Optional[Text]

    def __init__(self, otp: Text, enrollment_id: Optional[Text] = None, session: Optional[Text] = None) -> None:
        self._set(otp=otp, enrollment_id=enrollment_id, session=session)

    def _enrollment(self) -> _ffi.mfa_assertion:
        if self.session is None:
            raise _args.invalid("a sign-in assertion cannot enroll a factor; use assertion_for_enrollment")
        fields = self._fields()
        fields.session_info = _args.text(self.session, "session")
        fields.code = _args.code(self.otp, "otp")
        return fields

    def _sign_in(self) -> _ffi.mfa_assertion:
        if self.session is not None:
            raise _args.invalid("an enrollment assertion cannot resolve a sign-in; use assertion_for_sign_in")
        fields = self._fields()
        fields.code = _args.code(self.otp, "otp")
        fields.enrollment_id = _args.optional_text(self.enrollment_id, "enrollment id")
        return fields


class YubicoOTPMultiFactorGenerator:
    """Makes Yubico OTP assertions, in the style of the other generators."""

    #: "yubico_otp".
    FACTOR_ID = YUBICO_OTP_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("YubicoOTPMultiFactorGenerator has only static methods")

    @staticmethod
    def is_otp(text: Text) -> bool:
        """Whether ``text`` has a Yubico OTP's shape (32 to 64 modhex characters, an even number).

        How a host tells a touch from a typed code.
        """
        value = text.decode("ascii", "replace") if isinstance(text, bytes) else text
        return 32 <= len(value) <= 64 and len(value) % 2 == 0 and all(c in _MODHEX for c in value)

    @staticmethod
    def assertion_for_sign_in(otp: Text, enrollment_id: Optional[Text] = None) -> YubicoOTPMultiFactorAssertion:
        """An assertion that resolves a sign-in with the YubiKey that typed ``otp``."""
        return YubicoOTPMultiFactorAssertion(otp, enrollment_id=enrollment_id)

    @staticmethod
    def assertion_for_enrollment(session: Union[MultiFactorSession, Text],
                                 otp: Text) -> YubicoOTPMultiFactorAssertion:
        """An assertion that claims the unassigned YubiKey that typed ``otp`` for the user of ``session``."""
        return YubicoOTPMultiFactorAssertion(otp, session=session_token(session))
