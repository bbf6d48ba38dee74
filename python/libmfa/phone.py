"""Where the SMS factor's names were before the engine became a package.

Kept so that ``from libmfa.phone import ...`` goes on working: the phone
factor lives in :mod:`libmfa.engine.phone`, the development outbox readers
in :mod:`libmfa.outbox`. New code imports them from :mod:`libmfa`.
"""

from .engine.phone import PhoneAuthCredential, PhoneAuthProvider, PhoneMultiFactorAssertion, PhoneMultiFactorGenerator
from .outbox import outbox_code, read_outbox

__all__ = [
    "PhoneAuthCredential",
    "PhoneAuthProvider",
    "PhoneMultiFactorAssertion",
    "PhoneMultiFactorGenerator",
    "outbox_code",
    "read_outbox",
]
