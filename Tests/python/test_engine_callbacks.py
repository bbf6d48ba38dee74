"""Host callbacks: audit events, injected randomness, the injected clock."""

import hashlib
import logging
import random

import pytest

import libmfa
from conftest import ENGINE_KEY, TOTP_ON, Clock

GEN = libmfa.TOTPMultiFactorGenerator


class Stream:
    """A deterministic random source: SHA-256 in counter mode over a seed; records its outputs."""

    def __init__(self, seed):
        self.seed = seed
        self.counter = 0
        self.outputs = []

    def __call__(self, n):
        out = b""
        while len(out) < n:
            out += hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
        self.outputs.append(out[:n])
        return out[:n]


# --- audit -----------------------------------------------------------------------------


def test_audit_events_of_the_whole_flow(kit):
    kit.events.clear()
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    secret = GEN.generate_secret(mf.session())
    totp = kit.totp_of(secret)
    enrollment_code = kit.code(totp)
    info = mf.enroll(GEN.assertion_for_enrollment(secret, enrollment_code), "phone")
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    rnd = random.Random(1)
    wrong_codes = []
    for _ in range(6):
        code = "%06d" % rnd.randrange(10**6)
        while totp.verify(code, at=kit.clock.now, window=5):
            code = "%06d" % rnd.randrange(10**6)
        wrong_codes.append(code)
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve(resolver, info.uid, code)
    locked = [e for e in kit.events if e.kind_name == "BACKOFF"][-1]
    kit.clock.now = int(locked.detail.split()[-1])
    good_code = kit.code(totp)
    kit.resolve(resolver, info.uid, good_code)
    user.auth_time = kit.clock.now
    mf.unenroll(info)
    kit.ctx.set_config(TOTP_ON)

    kinds = kit.kinds()
    assert kinds == ["ENROLL"] + ["SIGN_IN_FAILURE"] * 6 + ["BACKOFF", "SIGN_IN_SUCCESS", "UNENROLL", "CONFIG_CHANGE"]
    numbers = {
        "ENROLL": libmfa.AUDIT_ENROLL,
        "SIGN_IN_FAILURE": libmfa.AUDIT_SIGN_IN_FAILURE,
        "BACKOFF": libmfa.AUDIT_BACKOFF,
        "SIGN_IN_SUCCESS": libmfa.AUDIT_SIGN_IN_SUCCESS,
        "UNENROLL": libmfa.AUDIT_UNENROLL,
        "CONFIG_CHANGE": libmfa.AUDIT_CONFIG_CHANGE,
    }
    for event in kit.events:
        assert isinstance(event, libmfa.AuditEvent)
        assert event.kind == numbers[event.kind_name]
        assert event.tenant is None
    for event in kit.events[:-1]:
        assert event.uid == "alice"
        assert event.enrollment_id == info.uid
    for event in kit.events[:-2]:  # UNENROLL: see test_unenroll_event_names_the_factor
        assert event.factor_id == "totp"
    enroll, failure, success = kit.events[0], kit.events[1], kit.events[8]
    assert enroll.detail == "OK" and enroll.time == info.enrollment_time
    assert failure.detail == "INVALID_VERIFICATION_CODE"
    assert success.detail == "OK" and success.time == kit.clock.now
    assert kit.events[-1].uid is None and kit.events[-1].enrollment_id is None

    # Nothing secret in any event.
    secrets = [
        secret.shared_secret_key,
        secret.shared_secret_key.lower(),
        secret.session_info,
        resolver.session,
        enrollment_code,
        good_code,
        *wrong_codes,
        libmfa.base32_decode(secret.shared_secret_key).hex(),
    ]
    for event in kit.events:
        for field in type(event).__slots__:
            value = getattr(event, field)
            if isinstance(value, str):
                for secret_text in secrets:
                    assert secret_text not in value, (event, field)


def test_unenroll_event_names_the_factor(kit):
    """Library bug (commit 372dcb3): the UNENROLL event has factor_id "" because
    MFAContext.unenroll builds its AuditEvent without factorID, unlike every other
    event about a factor (mfa_types.h: "" only when no factor is involved)."""
    user = kit.user()
    info, _ = kit.enroll(user)
    kit.ctx.multi_factor(user).unenroll(info)
    event = kit.events[-1]
    assert event.kind_name == "UNENROLL" and event.enrollment_id == info.uid
    assert event.factor_id == "totp"


def test_audit_of_a_failed_enrollment_code(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    kit.events.clear()
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, "000000" if kit.code(kit.totp_of(secret)) != "000000" else "111111"))
    assert [(e.kind_name, e.detail, e.uid) for e in kit.events] == [("SIGN_IN_FAILURE", "INVALID_VERIFICATION_CODE", "alice")]


def test_audit_events_in_a_tenant(kit):
    user = kit.user("tina", tenant="t1")
    kit.events.clear()
    info, _ = kit.enroll(user)
    assert kit.events[0].tenant == "t1" and kit.events[0].enrollment_id == info.uid


def test_a_raising_audit_callback_does_not_break_the_flow(clock, caplog):
    calls = []

    def audit(event):
        calls.append(event.kind_name)
        raise RuntimeError("audit sink is down")

    with libmfa.Context(master_key=ENGINE_KEY, clock=clock, audit=audit) as ctx:
        with caplog.at_level(logging.ERROR, logger="libmfa"):
            ctx.set_config(TOTP_ON)
            user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=clock.now)
            mf = ctx.multi_factor(user)
            secret = GEN.generate_secret(mf.session())
            totp = libmfa.TOTP(libmfa.base32_decode(secret.shared_secret_key))
            info = mf.enroll(GEN.assertion_for_enrollment(secret, totp.at(clock.now)))
            clock.advance(30)
            with pytest.raises(libmfa.SecondFactorRequired) as caught:
                ctx.sign_in(user)
            result = caught.value.resolver.resolve_sign_in(GEN.assertion_for_sign_in(info.uid, totp.at(clock.now)))
            assert result.enrollment_id == info.uid
            mf.unenroll(info)
    assert calls == ["CONFIG_CHANGE", "ENROLL", "SIGN_IN_SUCCESS", "UNENROLL"]
    logged = [record for record in caplog.records if record.name == "libmfa"]
    assert len(logged) == 4
    assert all(isinstance(record.exc_info[1], RuntimeError) for record in logged)


def test_audit_callback_must_not_reenter_the_context(clock, caplog):
    holder = {}
    seen = []

    def audit(event):
        seen.append(event.kind_name)
        holder["ctx"].config()  # forbidden: raises RuntimeError, logged and ignored

    ctx = libmfa.Context(master_key=ENGINE_KEY, clock=clock, audit=audit)
    holder["ctx"] = ctx
    with caplog.at_level(logging.ERROR, logger="libmfa"):
        ctx.set_config(TOTP_ON)
        assert ctx.config()["state"] == "ENABLED"  # the context is still usable
    assert seen == ["CONFIG_CHANGE"]
    assert any(record.exc_info and isinstance(record.exc_info[1], RuntimeError) for record in caplog.records)
    ctx.close()


def test_audit_callback_cannot_close_the_context(clock, caplog):
    holder = {}

    def audit(event):
        holder["ctx"].close()

    ctx = libmfa.Context(master_key=ENGINE_KEY, clock=clock, audit=audit)
    holder["ctx"] = ctx
    with caplog.at_level(logging.ERROR, logger="libmfa"):
        ctx.set_config(TOTP_ON)
    assert any(record.exc_info and isinstance(record.exc_info[1], RuntimeError) for record in caplog.records)
    assert not ctx.closed
    assert ctx.config()["state"] == "ENABLED"
    ctx.close()
    assert ctx.closed


# --- random ----------------------------------------------------------------------------


def _enroll_with(random_source, clock):
    with libmfa.Context(master_key=ENGINE_KEY, clock=clock, random=random_source) as ctx:
        ctx.set_config(TOTP_ON)
        user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=clock.now)
        mf = ctx.multi_factor(user)
        secret = GEN.generate_secret(mf.session())
        totp = libmfa.TOTP(libmfa.base32_decode(secret.shared_secret_key))
        info = mf.enroll(GEN.assertion_for_enrollment(secret, totp.at(clock.now)))
        return secret, info


def test_injected_random_is_deterministic():
    first_stream, second_stream = Stream(b"seed"), Stream(b"seed")
    first_secret, first_info = _enroll_with(first_stream, Clock())
    second_secret, second_info = _enroll_with(second_stream, Clock())
    assert first_secret.shared_secret_key == second_secret.shared_secret_key
    assert first_info.uid == second_info.uid
    assert first_stream.outputs == second_stream.outputs
    # The secret is exactly one of the 20-byte blocks the source handed out.
    assert libmfa.base32_decode(first_secret.shared_secret_key) in first_stream.outputs
    other_secret, other_info = _enroll_with(Stream(b"other seed"), Clock())
    assert other_secret.shared_secret_key != first_secret.shared_secret_key
    assert other_info.uid != first_info.uid


def test_system_random_differs_between_contexts():
    first, _ = _enroll_with(None, Clock())
    second, _ = _enroll_with(None, Clock())
    assert first.shared_secret_key != second.shared_secret_key


@pytest.mark.parametrize(
    "source",
    [
        lambda n: (_ for _ in ()).throw(OSError("entropy pool on fire")),
        lambda n: b"\0" * (n - 1),  # too short
        lambda n: b"\0" * (n + 1),  # too long
        lambda n: "x" * n,  # not bytes
        lambda n: None,
        lambda: b"",  # wrong signature: TypeError when called
    ],
)
def test_failing_random_is_a_crypto_error(clock, source, caplog):
    with libmfa.Context(master_key=ENGINE_KEY, clock=clock, random=source) as ctx:
        ctx.set_config(TOTP_ON)
        user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=clock.now)
        with caplog.at_level(logging.ERROR, logger="libmfa"):
            with pytest.raises(libmfa.CryptoError):
                ctx.multi_factor(user).session()
        assert any(record.name == "libmfa" for record in caplog.records)
        # The context stays usable for what needs no randomness.
        assert ctx.config()["state"] == "ENABLED"
        assert ctx.sign_in(user).factor_id is None


def test_random_failing_only_for_the_secret(clock):
    def source(n):
        if n == 20:
            raise ValueError("no secret for you")
        return bytes(n) if n != 16 else random.Random(n).randbytes(n)

    with libmfa.Context(master_key=ENGINE_KEY, clock=clock, random=source) as ctx:
        ctx.set_config(TOTP_ON)
        user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=clock.now)
        session = ctx.multi_factor(user).session()
        with pytest.raises(libmfa.CryptoError):
            GEN.generate_secret(session)


def test_random_accepts_bytearray_and_memoryview(clock):
    stream = Stream(b"views")
    with libmfa.Context(master_key=ENGINE_KEY, clock=clock, random=lambda n: memoryview(bytearray(stream(n)))) as ctx:
        ctx.set_config(TOTP_ON)
        user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=clock.now)
        secret = GEN.generate_secret(ctx.multi_factor(user).session())
        assert libmfa.base32_decode(secret.shared_secret_key) in stream.outputs


# --- clock -----------------------------------------------------------------------------


def test_injected_clock_drives_every_time(kit):
    kit.clock.now = 2_000_000_000
    user = kit.user()
    secret = GEN.generate_secret(kit.ctx.multi_factor(user).session())
    assert secret.enrollment_completion_deadline == 2_000_000_600
    assert kit.ctx.sign_in(kit.user("nobody")).time == 2_000_000_000


def test_float_clock_is_rounded_down(make_kit):
    kit = make_kit(clock=lambda: 1_700_000_010.9)
    assert kit.ctx.sign_in(libmfa.User("x", auth_time=0)).time == 1_700_000_010
    secret = GEN.generate_secret(
        kit.ctx.multi_factor(libmfa.User("x", email="x@e", email_verified=True, auth_time=1_700_000_010)).session()
    )
    assert secret.enrollment_completion_deadline == 1_700_000_610


@pytest.mark.parametrize("bad", [lambda: 1 / 0, lambda: "noon", lambda: None, lambda: 2**70, lambda: float("inf")])
def test_a_failing_clock_falls_back_to_the_system_clock(bad, caplog):
    import time

    with libmfa.Context(master_key=ENGINE_KEY, clock=bad) as ctx:
        with caplog.at_level(logging.ERROR, logger="libmfa"):
            ctx.set_config(TOTP_ON)
            now = int(time.time())
            user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=now)
            secret = GEN.generate_secret(ctx.multi_factor(user).session())
        assert abs(secret.enrollment_completion_deadline - (now + 600)) <= 5
        assert any("clock" in record.getMessage() for record in caplog.records)


def test_callbacks_must_be_callable():
    with pytest.raises(TypeError):
        libmfa.Context(master_key=ENGINE_KEY, clock=5)
    with pytest.raises(TypeError):
        libmfa.Context(master_key=ENGINE_KEY, random=b"random")
    with pytest.raises(TypeError):
        libmfa.Context(master_key=ENGINE_KEY, audit=[])
