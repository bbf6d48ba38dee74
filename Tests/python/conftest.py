"""pytest setup: import libmfa from <repo>/python and find a built library.

``LIBMFA_LIBRARY`` is left alone when it is set; otherwise it is pointed at
``<repo>/.build/release/libmfa.so`` (SwiftPM) or ``<repo>/build/libmfa.so``
(CMake), whichever exists first. If neither exists the package's own lookup
(next to the package, then the system path) applies.
"""

import os
import sys

from shared import REPO

sys.path.insert(0, str(REPO / "python"))

if not os.environ.get("LIBMFA_LIBRARY"):
    for candidate in (REPO / ".build" / "release" / "libmfa.so", REPO / "build" / "libmfa.so"):
        if candidate.exists():
            os.environ["LIBMFA_LIBRARY"] = str(candidate)
            break


# --- Engine fixtures (Tests/python/test_engine_*.py) ----------------------------------

import pytest  # noqa: E402

#: A fixed start time for the injected clocks: the start of a 30 s time step.
ENGINE_T0 = 1_700_000_010
#: The master key the engine tests open their contexts with.
ENGINE_KEY = bytes(range(32))
#: The configuration that enables TOTP for the project.
TOTP_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED"}}


class Clock:
    """An injectable clock: calling it gives ``now``; tests move it with :meth:`advance`."""

    def __init__(self, now=ENGINE_T0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds):
        """Move the clock ``seconds`` forward (or back, if negative); return the new time."""
        self.now += seconds
        return self.now


class EngineKit:
    """A Context on an injected clock with an audit log, and shortcuts for the flows.

    Attributes:
        ctx: the libmfa.Context (closed at teardown).
        clock: its :class:`Clock`.
        events: every AuditEvent it reported, in order.
    """

    def __init__(self, store=":memory:", clock=None, config=TOTP_ON, **options):
        import libmfa

        self.libmfa = libmfa
        self.clock = clock or Clock()
        self.events = []
        options.setdefault("audit", self.events.append)
        self.ctx = libmfa.Context(store, master_key=options.pop("master_key", ENGINE_KEY), clock=self.clock,
                                  **options)
        if config is not None:
            self.ctx.set_config(config)

    def user(self, uid="alice", **fields):
        """A User who passed a password first factor just now, with a verified email."""
        if "email" not in fields:
            fields["email"] = "%s@example.com" % (uid if isinstance(uid, str) else "user")
        fields.setdefault("email_verified", True)
        fields.setdefault("auth_time", self.clock.now)
        return self.libmfa.User(uid, **fields)

    def totp_of(self, secret):
        """The authenticator app's view of a TOTPSecret: a libmfa.TOTP on its decoded key."""
        return self.libmfa.TOTP(self.libmfa.base32_decode(secret.shared_secret_key))

    def code(self, totp, offset=0):
        """The code an authenticator app shows at the clock's time + ``offset`` seconds."""
        return totp.at(self.clock.now + offset)

    def enroll(self, user, display_name=None):
        """Enroll a TOTP factor for ``user``; return (MultiFactorInfo, TOTP of the app)."""
        gen = self.libmfa.TOTPMultiFactorGenerator
        mf = self.ctx.multi_factor(user)
        secret = gen.generate_secret(mf.session())
        totp = self.totp_of(secret)
        info = mf.enroll(gen.assertion_for_enrollment(secret, self.code(totp)), display_name)
        return info, totp

    def resolver(self, user):
        """Sign ``user`` in with the first factor; return the resolver of SecondFactorRequired."""
        with pytest.raises(self.libmfa.SecondFactorRequired) as caught:
            self.ctx.sign_in(user)
        assert caught.value.resolver is not None
        return caught.value.resolver

    def resolve(self, resolver, enrollment_id, code):
        """resolve_sign_in with a TOTP sign-in assertion."""
        assertion = self.libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(enrollment_id, code)
        return resolver.resolve_sign_in(assertion)

    def kinds(self):
        """The kind names of the audit events so far."""
        return [event.kind_name for event in self.events]


@pytest.fixture
def clock():
    """A fresh injectable :class:`Clock` at ``ENGINE_T0``."""
    return Clock()


@pytest.fixture
def kit(clock):
    """An :class:`EngineKit` on an in-memory store with TOTP enabled."""
    made = EngineKit(clock=clock)
    yield made
    made.ctx.close()


@pytest.fixture
def make_kit(clock):
    """A factory of :class:`EngineKit` objects (all closed at teardown)."""
    made = []

    def factory(store=":memory:", **options):
        options.setdefault("clock", clock)
        item = EngineKit(store, **options)
        made.append(item)
        return item

    yield factory
    for item in made:
        item.ctx.close()


# --- Phone (SMS) fixtures (Tests/python/test_engine_phone_*.py) -----------------------

import copy  # noqa: E402
import re  # noqa: E402
import threading  # noqa: E402

#: Phone and TOTP enabled for the project; app verification REQUIRED (the default).
PHONE_ON = {"state": "ENABLED", "providers": {"phone": "ENABLED", "totp": "ENABLED"}}
#: The app credential the test verifiers accept.
APP_OK = "genuine-app-token"
#: A valid strict E.164 number (US) and its hint form.
NUMBER = "+15105551234"
NUMBER_MASKED = "+1******1234"
#: The documented SMS text: "<code> is your verification code."
SMS_TEXT = re.compile(r"^(\d{6}) is your verification code\.$")
_DEFAULT = object()


def phone_config(base=PHONE_ON, **limits):
    """A copy of ``base`` with ``limits`` (smsPerNumberHour=..., ...) set."""
    config = copy.deepcopy(base)
    if limits:
        config.setdefault("limits", {}).update(limits)
    return config


class Inbox:
    """A Python SMS sender that records every message (thread-safe).

    Set :attr:`fail` to an exception to make sends raise it.

    Attributes:
        messages: (number, message) pairs, in order.
        fail: None, or the exception each send raises.
    """

    def __init__(self):
        self.messages = []
        self.fail = None
        self.lock = threading.Lock()

    def __call__(self, number, message):
        if self.fail is not None:
            raise self.fail
        with self.lock:
            self.messages.append((number, message))

    def code(self, number=None):
        """The code of the last message (to ``number`` if given)."""
        for to, message in reversed(self.messages):
            if number is None or to == number:
                match = SMS_TEXT.match(message)
                assert match, message
                return match.group(1)
        raise AssertionError("no SMS was sent to %s" % number)

    def to(self, number):
        """How many messages went to ``number``."""
        return sum(1 for to, _ in self.messages if to == number)


class Verifier:
    """A Python app verifier accepting :data:`APP_OK` only; records its calls."""

    def __init__(self, accept=(APP_OK,)):
        self.accept = set(accept)
        self.calls = []

    def __call__(self, credential, action):
        self.calls.append((credential, action))
        return credential in self.accept


class PhoneKit(EngineKit):
    """An :class:`EngineKit` with phone enabled, a recording sender and verifier, and phone shortcuts.

    Attributes:
        inbox: the :class:`Inbox` (None when the kit has no Python sender).
        verifier: the :class:`Verifier` (None when the kit has none).
        provider: a libmfa.PhoneAuthProvider on ``ctx``.
    """

    def __init__(self, store=":memory:", clock=None, config=PHONE_ON, sms_sender=_DEFAULT, app_verifier=_DEFAULT,
                 **options):
        self.inbox = Inbox() if sms_sender is _DEFAULT and "sms_outbox" not in options else None
        self.verifier = Verifier() if app_verifier is _DEFAULT else None
        if sms_sender is _DEFAULT:
            sms_sender = self.inbox
        if app_verifier is _DEFAULT:
            app_verifier = self.verifier
        super().__init__(store, clock=clock, config=config, sms_sender=sms_sender, app_verifier=app_verifier,
                         **options)
        self.provider = self.libmfa.PhoneAuthProvider(self.ctx)

    def start_enrollment(self, user, number=NUMBER, credential=APP_OK, session=None):
        """verify_phone_number for ``user`` (a fresh session unless given); return the verification id."""
        if session is None:
            session = self.ctx.multi_factor(user).session()
        return self.provider.verify_phone_number(number, app_credential=credential, session=session)

    def assertion(self, verification_id, code):
        """A PhoneMultiFactorAssertion of a verification id and a code."""
        return self.libmfa.PhoneMultiFactorGenerator.assertion(self.provider.credential(verification_id, code))

    def enroll_phone(self, user, number=NUMBER, display_name=None, code=None):
        """Enroll ``number`` for ``user`` with the code it received (or ``code``); return the MultiFactorInfo."""
        verification_id = self.start_enrollment(user, number)
        if code is None:
            code = self.inbox.code(number)
        return self.ctx.multi_factor(user).enroll(self.assertion(verification_id, code), display_name)

    def start_sign_in(self, resolver, hint, credential=APP_OK):
        """verify_phone_number_for_sign_in; return the verification id."""
        return self.provider.verify_phone_number_for_sign_in(hint, resolver, app_credential=credential)

    def resolve_phone(self, resolver, verification_id, code):
        """resolve_sign_in with a phone assertion."""
        return resolver.resolve_sign_in(self.assertion(verification_id, code))


@pytest.fixture
def phone_kit(clock):
    """A :class:`PhoneKit` on an in-memory store (phone + TOTP enabled, verification REQUIRED)."""
    made = PhoneKit(clock=clock)
    yield made
    made.ctx.close()


@pytest.fixture
def make_phone_kit(clock):
    """A factory of :class:`PhoneKit` objects (all closed at teardown)."""
    made = []

    def factory(store=":memory:", **options):
        options.setdefault("clock", clock)
        item = PhoneKit(store, **options)
        made.append(item)
        return item

    yield factory
    for item in made:
        item.ctx.close()
