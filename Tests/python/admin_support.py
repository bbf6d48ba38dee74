"""The population the Python admin tests (test_admin_*.py) start from, on SQLite
and, when the test command started a server, on PostgreSQL.

    project  u-alice  TOTP "Alice's app" + phone +15105551234 "Alice's phone"
             u-bob    TOTP
             u-carol  recovery codes
    acme     u-alice  TOTP
             u-dave   phone +15105557777
"""

import pytest

import libmfa
from conftest import PhoneKit
from mfactl_support import fresh_store, store_kinds

ALL_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "phone": "ENABLED", "recovery": "ENABLED"}}
ACTOR = "ops:bob"
ALICE_PHONE = "+15105551234"
DAVE_PHONE = "+15105557777"

#: Actors every Admin refuses: empty, one byte too long, not UTF-8 (a stray byte, an overlong
#: NUL, a surrogate), a NUL inside.
BAD_ACTORS = ["", "a" * (libmfa.ACTOR_MAX_BYTES + 1), b"ops\xff", b"ops\xc0\x80", b"ops\xed\xa0\x80", "ops\0x"]
#: A uid, tenant or enrollment id one byte over the 128 bytes they may have.
LONG_ID = "i" * 129


class World:
    """A PhoneKit on a fresh store with the population above; ``admin`` is its Admin for ACTOR.

    Attributes:
        kit: the PhoneKit (``kit.events``: every audit event).
        admin: ``kit.ctx.admin(ACTOR)``.
        store: the store location.
        users: the libmfa.User of each (tenant, uid).
        factors: name -> MultiFactorInfo ("alice_totp", "alice_phone", "bob_totp",
            "carol_codes", "acme_alice_totp", "dave_phone").
        apps: name -> the libmfa.TOTP of each TOTP factor.
    """

    def __init__(self, store, clock):
        self.store = store
        self.kit = PhoneKit(store, clock=clock, config=ALL_ON)
        self.kit.ctx.set_config(ALL_ON, tenant="acme")
        self.admin = self.kit.ctx.admin(ACTOR)
        self.users = {}
        self.factors = {}
        self.apps = {}
        kit = self.kit
        alice, bob, carol = self.user("u-alice"), self.user("u-bob"), self.user("u-carol")
        acme_alice, dave = self.user("u-alice", "acme"), self.user("u-dave", "acme")
        self.factors["alice_totp"], self.apps["alice_totp"] = kit.enroll(alice, "Alice's app")
        kit.clock.advance(10)
        self.factors["alice_phone"] = kit.enroll_phone(self.user("u-alice"), ALICE_PHONE, "Alice's phone")
        kit.clock.advance(10)
        self.factors["bob_totp"], self.apps["bob_totp"] = kit.enroll(bob)
        codes = libmfa.RecoveryCodesMultiFactorGenerator.generate_codes(kit.ctx.multi_factor(carol).session())
        self.factors["carol_codes"] = codes.factor
        self.factors["acme_alice_totp"], self.apps["acme_alice_totp"] = kit.enroll(acme_alice)
        self.factors["dave_phone"] = kit.enroll_phone(dave, DAVE_PHONE)
        kit.clock.advance(60)
        kit.events.clear()

    def user(self, uid, tenant=None):
        """A User of (tenant, uid) who passed the first factor just now."""
        user = self.kit.user(uid, tenant=tenant, auth_time=self.kit.clock.now)
        self.users[(tenant, uid)] = user
        return user

    def events(self, kind):
        """The audit events of ``kind`` (an AUDIT_* number) so far."""
        return [event for event in self.kit.events if event.kind == kind]

    def close(self):
        self.kit.ctx.close()


@pytest.fixture(params=store_kinds())
def world(request, tmp_path, clock):
    """A :class:`World` on a new SQLite file, and on PostgreSQL when a server runs."""
    made = World(fresh_store(request.param, tmp_path), clock)
    yield made
    made.close()
