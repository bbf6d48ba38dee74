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
