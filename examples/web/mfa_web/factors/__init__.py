"""The kinds of second factor the application offers, one module each.

A kind is a :class:`FactorKind`: libmfa's factor id, what people call it, a
blueprint with its own views (adding one from the account page, proving it
during a sign-in or step-up), and templates of its own under
``templates/factors/<factor_id>/``:

* ``account_actions.html``: the buttons on the account page that add one
  (it sees ``kind`` and ``factors``, the user's enrolled factors);
* whatever pages its views render (enrollment, sign-in).

The account page and the hint chooser know kinds only through
:data:`KINDS`: the chooser sends the user to the kind's ``sign_in_endpoint``
with the hint's enrollment id, and the kind's view finishes the sign-in with
:func:`mfa_web.second_factor.finish` and its own libmfa assertion. Adding a
kind (WebAuthn, say) is a new module here with its ``KIND``, appended to
:data:`KINDS`, and its templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import flask
import libmfa


@dataclass(frozen=True)
class FactorKind:
    """One kind of second factor."""

    #: libmfa's factor id ("totp", "phone", "email", "webauthn", "hotp", "yubico_otp", "recovery"), as in MultiFactorInfo.factor_id.
    factor_id: str
    #: What people call it ("Authenticator app").
    label: str
    #: Its key under the configuration's ``providers``.
    provider: str
    #: Its views.
    blueprint: flask.Blueprint
    #: The view that proves a factor of this kind during a sign-in or step-up (takes ``enrollment_id``).
    sign_in_endpoint: str
    #: What one factor of this kind is called, when that depends on the factor
    #: (a WebAuthn credential is a "Security key" or a "Passkey"); None: :attr:`label`.
    label_for: Optional[Callable[[libmfa.MultiFactorInfo], str]] = None

    def label_of(self, info: libmfa.MultiFactorInfo) -> str:
        """The kind of ``info`` as the account page and the hint chooser show it."""
        return self.label_for(info) if self.label_for is not None else self.label

    def enabled(self, config: Dict[str, object]) -> bool:
        """Whether libmfa's effective configuration lets users add this kind."""
        providers = config.get("providers")
        return isinstance(providers, dict) and providers.get(self.provider) == "ENABLED"

    @property
    def account_actions_template(self) -> str:
        """Its part of the account page."""
        return "factors/%s/account_actions.html" % self.factor_id


def display_name(form_value: str, default: str) -> str:
    """The display name typed in a form: trimmed, at most 64 characters (libmfa takes up to 256 bytes)."""
    name = " ".join(form_value.split())[:64]
    return name or default


def _kinds() -> List[FactorKind]:
    from . import email, hotp, phone, recovery_codes, totp, webauthn, yubico_otp

    return [totp.KIND, phone.KIND, email.KIND, webauthn.KIND, hotp.KIND, yubico_otp.KIND, recovery_codes.KIND]


#: Every kind, in the order the account page shows them.
KINDS: List[FactorKind] = _kinds()


def by_id(factor_id: str) -> Optional[FactorKind]:
    """The kind with this libmfa factor id, or None (a kind this application does not offer)."""
    for kind in KINDS:
        if kind.factor_id == factor_id:
            return kind
    return None
