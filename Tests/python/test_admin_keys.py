"""libmfa.Admin's batched key rotation and seal check: a run stopped after its first
batch and resumed, progress after each batch, KEYS_ROTATED with the actor, a key
nobody gave, every bad input. On SQLite and PostgreSQL."""

import pytest

import libmfa
from conftest import ENGINE_T0, Clock
from mfactl_support import fresh_store, store_kinds

K1 = bytes(range(32))
K2 = bytes(range(100, 132))
K3 = bytes(range(200, 232))
USERS = 30
ACTOR = "ops:keys"


def secret(i):
    return "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 26]


class Store:
    """A store with USERS imported factors and a TOTP secret waiting for its enrollment, under k1."""

    def __init__(self, location):
        self.location = location
        self.clock = Clock(ENGINE_T0)
        self.events = []
        with self.open(("k1", K1)) as ctx:
            ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
            text = "".join("otpauth://totp/key-u%02d?secret=%s\n" % (i, secret(i)) for i in range(USERS))
            summary = ctx.admin(ACTOR).import_factors(text, "otpauth")
            assert summary.imported == USERS
            self.first = summary.reports[0].enrollment_id
            pending = libmfa.User("key-pending", email="p@example.com", email_verified=True, auth_time=ENGINE_T0)
            libmfa.TOTPMultiFactorGenerator.generate_secret(ctx.multi_factor(pending).session())
            self.total = ctx.admin(ACTOR).check_seals().checked
            assert self.total == USERS + 1

    def open(self, current, *previous):
        return libmfa.Context(self.location, master_key=current[1], key_id=current[0], previous_keys=list(previous),
                              clock=self.clock, audit=self.events.append)


@pytest.fixture(params=store_kinds())
def store(request, tmp_path):
    return Store(fresh_store(request.param, tmp_path))


def test_check_seals_with_the_new_key_alone(store):
    with store.open(("k2", K2)) as ctx:
        admin = ctx.admin(ACTOR)
        calls = []
        check = admin.check_seals(batch_size=8, progress=lambda done, total: calls.append((done, total)))
        assert check.checked == check.failed == store.total and not check.stopped
        assert len(check.failed_ids) == store.total and all(check.failed_ids)
        # Batches are per table: the factors in batches of 8, then the pending secret.
        assert len(calls) == (USERS + 7) // 8 + 1 and calls[-1] == (store.total, store.total)
        assert [done for done, _ in calls] == sorted(done for done, _ in calls)
        stopped = admin.check_seals(batch_size=8, progress=lambda done, total: False)
        assert stopped.stopped and stopped.checked == 8
        # Rotating without the old key: CRYPTO, nothing lost.
        with pytest.raises(libmfa.CryptoError):
            admin.rotate_keys(batch_size=10)
    with store.open(("k1", K1)) as ctx:
        check = ctx.admin(ACTOR).check_seals(batch_size=libmfa.ROTATION_BATCH_MAX)
        assert check == libmfa.SealCheck(store.total, 0, (), False)


def test_rotation_stopped_and_resumed(store):
    with store.open(("k2", K2), ("k1", K1)) as ctx:
        admin = ctx.admin(ACTOR)
        assert admin.check_seals().failed == 0
        store.events.clear()
        calls = []

        def stop_after_first(done, total):
            calls.append((done, total))
            return False

        first = admin.rotate_keys(batch_size=10, progress=stop_after_first)
        assert first == libmfa.KeyRotationResult(10, store.total - 10, True)
        assert calls == [(10, store.total)]
        rotated = [e for e in store.events if e.kind == libmfa.AUDIT_KEYS_ROTATED]
        assert len(rotated) == 1 and rotated[0].actor == ACTOR and rotated[0].kind_name == "KEYS_ROTATED"
        assert rotated[0].tenant is None and rotated[0].uid is None
        calls.clear()
        second = ctx.admin("ops:other").rotate_keys(batch_size=7, progress=lambda d, t: calls.append((d, t)))
        assert second == libmfa.KeyRotationResult(store.total - 10, 0, False)
        # Batches are per table: the factors left in batches of 7, then the pending secret.
        assert len(calls) == (USERS - 10 + 6) // 7 + 1 and calls[-1][0] == store.total - 10
        assert [e.actor for e in store.events if e.kind == libmfa.AUDIT_KEYS_ROTATED] == [ACTOR, "ops:other"]
        assert admin.rotate_keys(batch_size=libmfa.ROTATION_BATCH_MAX) == libmfa.KeyRotationResult(0, 0, False)
        assert admin.rotate_keys() == libmfa.KeyRotationResult(0, 0, False)
    # k2 alone opens everything now, and the factors sign in.
    with store.open(("k2", K2)) as ctx:
        assert ctx.admin(ACTOR).check_seals(batch_size=5) == libmfa.SealCheck(store.total, 0, (), False)
        store.clock.advance(30)
        user = libmfa.User("key-u00", email="u@example.com", email_verified=True, auth_time=store.clock.now)
        with pytest.raises(libmfa.SecondFactorRequired) as required:
            ctx.sign_in(user)
        code = libmfa.TOTP(libmfa.base32_decode(secret(0))).at(store.clock.now)
        assertion = libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(store.first, code)
        assert required.value.resolver.resolve_sign_in(assertion).enrollment_id == store.first
    # A key nobody gave (k3 current, k1 previous): k2's records are CRYPTO to rotate.
    with store.open(("k3", K3), ("k1", K1)) as ctx:
        with pytest.raises(libmfa.CryptoError):
            ctx.admin(ACTOR).rotate_keys(batch_size=10)


class Boom(Exception):
    pass


def test_raising_progress_stops_and_is_raised(store):
    with store.open(("k2", K2), ("k1", K1)) as ctx:
        admin = ctx.admin(ACTOR)

        def boom(done, total):
            raise Boom("%d of %d" % (done, total))

        with pytest.raises(Boom, match="5 of %d" % store.total):
            admin.rotate_keys(batch_size=5, progress=boom)
        assert admin.rotate_keys(batch_size=100).rotated == store.total - 5  # the first batch was done
        with pytest.raises(Boom):
            admin.check_seals(batch_size=5, progress=boom)


def test_bad_input(store):
    with store.open(("k2", K2), ("k1", K1)) as ctx:
        admin = ctx.admin(ACTOR)
        store.events.clear()
        for size in (0, -1, libmfa.ROTATION_BATCH_MAX + 1, -(2**31), 2**31 - 1):
            with pytest.raises(libmfa.InvalidArgumentError):
                admin.rotate_keys(batch_size=size)
            with pytest.raises(libmfa.InvalidArgumentError):
                admin.check_seals(batch_size=size)
        for size in (2**31, 2**64):
            with pytest.raises(libmfa.InvalidArgumentError):
                admin.rotate_keys(batch_size=size)
        for size in ("10", 1.0, None, True):
            with pytest.raises(TypeError):
                admin.rotate_keys(batch_size=size)
            with pytest.raises(TypeError):
                admin.check_seals(batch_size=size)
        for progress in ("no", 5):
            with pytest.raises(TypeError):
                admin.rotate_keys(progress=progress)
            with pytest.raises(TypeError):
                admin.check_seals(progress=progress)
        assert store.events == []
        assert admin.check_seals().failed == 0
        assert ctx.admin(ACTOR).rotate_keys(batch_size=100).rotated == store.total  # nothing was done before
