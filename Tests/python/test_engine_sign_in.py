"""SPEC flow 5 (sign in with a resolver), replay, backoff and brute force, step-up."""

import random
import re
import threading

import pytest

import libmfa

GEN = libmfa.TOTPMultiFactorGenerator


def wrong_code(totp, at, window=5, rnd=None):
    """A six-digit code that is checked NOT to be valid at ``at`` within +-``window`` steps."""
    rnd = rnd or random.Random(0)
    while True:
        code = "%06d" % rnd.randrange(10**6)
        if not totp.verify(code, at=at, window=window):
            return code


@pytest.fixture
def enrolled(kit):
    """(user, info, totp) of alice with one TOTP factor, the clock 60 s after enrolling."""
    user = kit.user()
    info, totp = kit.enroll(user, "phone")
    kit.clock.advance(60)
    return user, info, totp


# --- flow 5 ----------------------------------------------------------------------------


def test_user_without_factors_is_signed_in(kit):
    result = kit.ctx.sign_in(kit.user("nofactor", tenant=None))
    assert isinstance(result, libmfa.SignInResult)
    assert (result.uid, result.tenant, result.factor_id, result.enrollment_id) == ("nofactor", None, None, None)
    assert result.time == kit.clock.now
    assert result.claims == {}


def test_user_without_factors_in_a_tenant(kit):
    result = kit.ctx.sign_in(kit.user("nofactor", tenant="t1"))
    assert (result.uid, result.tenant) == ("nofactor", "t1")


def test_second_factor_required_carries_a_resolver(kit, enrolled):
    user, info, totp = enrolled
    with pytest.raises(libmfa.SecondFactorRequired) as caught:
        kit.ctx.sign_in(user)
    error = caught.value
    assert isinstance(error, libmfa.MFAError)
    assert error.status == libmfa.Status.SECOND_FACTOR_REQUIRED
    assert error.name == "SECOND_FACTOR_REQUIRED"
    resolver = error.resolver
    assert isinstance(resolver, libmfa.MultiFactorResolver)
    assert resolver.uid == "alice"
    assert resolver.tenant is None
    assert resolver.hints == [info]
    assert isinstance(resolver.session, str) and resolver.session


def test_resolve_sign_in_with_totp(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    hint = resolver.hints[0]  # the user picks a hint
    assert hint.factor_id == "totp"
    result = resolver.resolve_sign_in(GEN.assertion_for_sign_in(hint.uid, kit.code(totp)))
    assert result.uid == "alice"
    assert result.tenant is None
    assert result.factor_id == "totp"
    assert result.enrollment_id == info.uid
    assert result.time == kit.clock.now
    assert result.claims == {"sign_in_second_factor": "totp", "second_factor_identifier": info.uid}


def test_assertion_for_sign_in_takes_the_hint_itself(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    result = resolver.resolve_sign_in(GEN.assertion_for_sign_in(resolver.hints[0], kit.code(totp)))
    assert result.enrollment_id == info.uid


def test_sign_in_in_a_tenant(kit):
    user = kit.user("tina", tenant="t1")
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    assert resolver.tenant == "t1"
    result = kit.resolve(resolver, info.uid, kit.code(totp))
    assert (result.uid, result.tenant) == ("tina", "t1")


def test_hints_list_every_factor_and_any_one_resolves(kit):
    user = kit.user()
    enrolled = []
    for index in range(3):
        enrolled.append(kit.enroll(user, "f%d" % index))
        kit.clock.advance(1)  # distinct enrollment times: hints are oldest first
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    assert [h.uid for h in resolver.hints] == [info.uid for info, _ in enrolled]
    assert [h.display_name for h in resolver.hints] == ["f0", "f1", "f2"]
    info, totp = enrolled[1]
    assert kit.resolve(resolver, info.uid, kit.code(totp)).enrollment_id == info.uid


def test_a_code_of_another_factor_of_the_same_user_is_wrong(kit):
    user = kit.user()
    (first, first_totp), (second, _) = kit.enroll(user), kit.enroll(user)
    kit.clock.advance(30)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), second.uid, kit.code(first_totp))


def test_resolver_rebuilt_from_the_pending_credential(kit, enrolled):
    user, info, totp = enrolled
    pending = kit.resolver(user).session  # handed to the client, sent back later
    kit.clock.advance(20)
    resolver = kit.ctx.resolver(pending)
    assert resolver.uid == "alice" and resolver.hints == [info] and resolver.session == pending
    assert kit.resolve(resolver, info.uid, kit.code(totp)).uid == "alice"


def test_mandatory_user_without_factor_must_enroll(kit):
    kit.ctx.set_config({"state": "MANDATORY", "providers": {"totp": "ENABLED"}})
    user = kit.user()
    with pytest.raises(libmfa.EnrollmentRequiredError):
        kit.ctx.sign_in(user)
    kit.enroll(user)  # enrolling is still allowed in MANDATORY
    kit.clock.advance(30)
    with pytest.raises(libmfa.SecondFactorRequired):
        kit.ctx.sign_in(user)


@pytest.mark.parametrize("provider", ["phone", "anonymous", "custom", "gc.apple.com"])
def test_unsupported_first_factor_with_factors(kit, enrolled, provider):
    user, _, _ = enrolled
    user.provider = provider
    with pytest.raises(libmfa.UnsupportedFirstFactorError):
        kit.ctx.sign_in(user)


# --- codes -----------------------------------------------------------------------------


def test_wrong_code(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(resolver, info.uid, wrong_code(totp, kit.clock.now))
    kit.resolve(resolver, info.uid, kit.code(totp))  # a wrong code does not use up the credential


@pytest.mark.parametrize("code", ["", "12345", "1234567", "abcdef", "12345a", " 123456", "+12345", "１２３４５６"])
def test_malformed_codes(kit, enrolled, code):
    user, info, _ = enrolled
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, code)


def test_adjacent_intervals_window_at_sign_in(kit, enrolled):
    user, info, totp = enrolled
    kit.clock.advance(3000)
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(resolver, info.uid, kit.code(totp, -6 * 30))
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(resolver, info.uid, kit.code(totp, 6 * 30))
    kit.resolve(resolver, info.uid, kit.code(totp, -5 * 30))


def test_the_same_code_is_accepted_once(kit, enrolled):
    user, info, totp = enrolled
    code = kit.code(totp)
    kit.resolve(kit.resolver(user), info.uid, code)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, code)  # replayed on a fresh pending credential
    kit.clock.advance(10)  # same time step
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, code)


def test_codes_at_or_before_the_last_accepted_step_are_refused(kit, enrolled):
    user, info, totp = enrolled
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp, 60))  # a code two steps ahead
    for offset in (-60, -30, 0, 30, 60):
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve(kit.resolver(user), info.uid, kit.code(totp, offset))
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp, 90))


def test_the_enrollment_code_cannot_sign_in(kit):
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    secret = GEN.generate_secret(mf.session())
    totp = kit.totp_of(secret)
    code = kit.code(totp)
    info = mf.enroll(GEN.assertion_for_enrollment(secret, code))
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, code)
    kit.clock.advance(30)
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp))


# --- pending credentials ---------------------------------------------------------------


def test_pending_credential_is_single_use(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    kit.resolve(resolver, info.uid, kit.code(totp))
    kit.clock.advance(30)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve(resolver, info.uid, kit.code(totp))


def test_pending_credential_expires(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    kit.clock.advance(301)  # pendingCredentialLifetime is 300 s
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve(resolver, info.uid, kit.code(totp))
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.resolver(resolver.session)


def test_tampered_pending_credential(kit, enrolled):
    user, info, totp = enrolled
    pending = kit.resolver(user).session
    for index in (0, 5, len(pending) // 2, len(pending) - 1):
        flipped = pending[:index] + ("A" if pending[index] != "A" else "B") + pending[index + 1 :]
        with pytest.raises(libmfa.InvalidSessionError):
            kit.ctx.resolver(flipped)
        forged = libmfa.MultiFactorResolver(kit.ctx, flipped, "alice", None, [])
        with pytest.raises(libmfa.InvalidSessionError):
            kit.resolve(forged, info.uid, kit.code(totp))
    for bogus in ("", "x", pending[:-3], pending + "A"):
        with pytest.raises(libmfa.InvalidSessionError):
            kit.ctx.resolver(bogus)


def test_enrollment_session_is_not_a_pending_credential(kit, enrolled):
    user, info, totp = enrolled
    token = kit.ctx.multi_factor(user).session().token
    with pytest.raises(libmfa.InvalidSessionError):
        kit.ctx.resolver(token)


def test_pending_credential_of_another_tenant(kit):
    user = kit.user("tina", tenant="t1")
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    pending = kit.resolver(user).session
    with pytest.raises(libmfa.TenantMismatchError):
        kit.ctx.resolver(pending)  # served for the project
    with pytest.raises(libmfa.TenantMismatchError):
        kit.ctx.resolver(pending, tenant="t2")
    forged = libmfa.MultiFactorResolver(kit.ctx, pending, "tina", "t2", [])
    with pytest.raises(libmfa.TenantMismatchError):
        kit.resolve(forged, info.uid, kit.code(totp))
    assert kit.ctx.resolver(pending, tenant="t1").uid == "tina"


def test_another_users_factor_is_an_invalid_session(kit):
    alice, bob = kit.user("alice"), kit.user("bob")
    alice_info, alice_totp = kit.enroll(alice)
    bob_info, bob_totp = kit.enroll(bob)
    kit.clock.advance(30)
    resolver = kit.resolver(alice)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve(resolver, bob_info.uid, kit.code(bob_totp))
    kit.resolve(resolver, alice_info.uid, kit.code(alice_totp))


def test_unknown_enrollment_id(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        kit.resolve(resolver, "A" * 28, kit.code(totp))
    kit.resolve(resolver, info.uid, kit.code(totp))


def test_enrollment_assertion_cannot_resolve(kit, enrolled):
    user, _, _ = enrolled
    resolver = kit.resolver(user)
    secret = GEN.generate_secret(kit.ctx.multi_factor(user).session())
    with pytest.raises(libmfa.InvalidArgumentError):
        resolver.resolve_sign_in(GEN.assertion_for_enrollment(secret, "123456"))
    with pytest.raises(TypeError):
        resolver.resolve_sign_in("123456")


# --- backoff and brute force -----------------------------------------------------------


def backoff_until(kit):
    """The lock end named by the last BACKOFF audit event."""
    details = [e.detail for e in kit.events if e.kind_name == "BACKOFF"]
    assert details, "no BACKOFF event"
    return int(re.search(r"(\d+)\s*$", details[-1]).group(1))


def test_backoff_after_the_free_attempts(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    rnd = random.Random(5)
    for _ in range(6):  # five free failures, the sixth starts the backoff
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve(resolver, info.uid, wrong_code(totp, kit.clock.now, rnd=rnd))
    assert kit.kinds().count("BACKOFF") == 1
    until = backoff_until(kit)
    assert until > kit.clock.now
    # During the backoff even the right code is refused, and is not used up.
    with pytest.raises(libmfa.TooManyAttemptsError):
        kit.resolve(resolver, info.uid, kit.code(totp))
    kit.clock.now = until
    assert kit.resolve(resolver, info.uid, kit.code(totp)).uid == "alice"


def test_backoff_grows_and_is_per_user(kit):
    user = kit.user()
    first, first_totp = kit.enroll(user)
    second, second_totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    rnd = random.Random(6)
    delays = []
    for _ in range(8):  # 5 free failures, then 3 that each start a longer backoff
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve(resolver, first.uid, wrong_code(first_totp, kit.clock.now, rnd=rnd))
        if kit.kinds().count("BACKOFF") > len(delays):
            until = backoff_until(kit)
            delays.append(until - kit.clock.now)
            kit.clock.now = until  # wait it out
    assert delays == [1, 2, 4]  # backoffBase 1 s, doubling
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(resolver, first.uid, wrong_code(first_totp, kit.clock.now, rnd=rnd))
    # The user is locked as a whole: the other factor is refused too, even with its right code.
    with pytest.raises(libmfa.TooManyAttemptsError):
        kit.resolve(resolver, second.uid, kit.code(second_totp))
    assert backoff_until(kit) - kit.clock.now == 8
    kit.clock.now = backoff_until(kit)
    kit.resolve(resolver, second.uid, kit.code(second_totp))


def test_brute_force_never_succeeds_and_is_mostly_refused(kit, enrolled):
    user, info, totp = enrolled
    resolver = kit.resolver(user)
    assertion_for = GEN.assertion_for_sign_in
    rnd = random.Random(20240601)
    outcomes = {"won": 0, "checked": 0, "refused": 0}
    attempts = 10_000
    for index in range(attempts):
        if index and index % 50 == 0:
            kit.clock.advance(1)  # 200 s in all: within the pending credential's lifetime
        code = wrong_code(totp, kit.clock.now, rnd=rnd)
        try:
            resolver.resolve_sign_in(assertion_for(info.uid, code))
            outcomes["won"] += 1
        except libmfa.InvalidVerificationCodeError:
            outcomes["checked"] += 1
        except libmfa.TooManyAttemptsError:
            outcomes["refused"] += 1
    assert outcomes["won"] == 0
    assert outcomes["checked"] + outcomes["refused"] == attempts
    assert outcomes["refused"] >= attempts - 50, outcomes  # backoff refuses almost every guess
    assert outcomes["checked"] == kit.kinds().count("SIGN_IN_FAILURE")
    # The right code is refused too while locked ...
    with pytest.raises(libmfa.TooManyAttemptsError):
        resolver.resolve_sign_in(assertion_for(info.uid, kit.code(totp)))
    # ... and works once the clock passes the backoff.
    kit.clock.now = backoff_until(kit)
    user.auth_time = kit.clock.now
    result = kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    assert result.enrollment_id == info.uid


def test_failures_are_forgotten(kit, enrolled):
    user, info, totp = enrolled
    rnd = random.Random(9)
    resolver = kit.resolver(user)
    for _ in range(5):
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            kit.resolve(resolver, info.uid, wrong_code(totp, kit.clock.now, rnd=rnd))
    kit.clock.advance(3601)  # failureMemory is 3600 s
    resolver = kit.resolver(user)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(resolver, info.uid, wrong_code(totp, kit.clock.now, rnd=rnd))
    assert "BACKOFF" not in kit.kinds()  # the count started over


# --- step-up ---------------------------------------------------------------------------


def test_passed_second_factor(kit, enrolled):
    user, info, totp = enrolled
    assert kit.ctx.passed_second_factor("alice", 600) is False
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    assert kit.ctx.passed_second_factor("alice", 0) is True
    kit.clock.advance(120)
    assert kit.ctx.passed_second_factor("alice", 120) is True
    assert kit.ctx.passed_second_factor("alice", 119) is False
    import datetime

    assert kit.ctx.passed_second_factor("alice", datetime.timedelta(minutes=5)) is True
    assert kit.ctx.passed_second_factor("alice", 600, tenant="t1") is False
    assert kit.ctx.passed_second_factor("bob", 600) is False
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.passed_second_factor("alice", -1)


# --- threads ---------------------------------------------------------------------------


def test_one_context_shared_by_threads(kit):
    users = [kit.user("u%d" % index) for index in range(8)]
    factors = {user.uid: kit.enroll(user) for user in users}
    kit.clock.advance(30)
    errors = []
    results = []

    def worker(user):
        try:
            for round_ in range(4):
                info, totp = factors[user.uid]
                resolver = kit.resolver(user)
                results.append(kit.resolve(resolver, info.uid, totp.at(kit.clock.now + 30 * round_)))
                kit.ctx.multi_factor(user).enrolled_factors()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(results) == 32


def test_second_factor_required_pickles_without_its_resolver(kit, enrolled):
    import pickle

    user, _, _ = enrolled
    with pytest.raises(libmfa.SecondFactorRequired) as caught:
        kit.ctx.sign_in(user)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is libmfa.SecondFactorRequired
    assert (copy.status, copy.name, copy.message) == (caught.value.status, caught.value.name, caught.value.message)
    assert copy.resolver is None
    assert caught.value.resolver is not None
