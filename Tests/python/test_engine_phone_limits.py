"""SMS abuse limits: resend cooldown, per-number / per-user / per-tenant caps per hour and day
(also under an 8-thread burst), failed sends that cost nothing, and test numbers."""

import threading

import pytest

import libmfa
from conftest import APP_OK, NUMBER, PHONE_ON, phone_config

HIGH = 1_000_000
#: Every cap out of the way and no cooldown: tests lower the one they look at.
NO_LIMITS = dict(smsResendCooldown=0, smsPerNumberHour=HIGH, smsPerNumberDay=HIGH, smsPerUserHour=HIGH,
                 smsPerUserDay=HIGH, smsPerTenantHour=HIGH, smsPerTenantDay=HIGH, smsPerFactorHour=HIGH,
                 smsPerFactorDay=HIGH)
HOUR, DAY = 3600, 86_400


def limits(**changes):
    """A phone configuration with no limits except ``changes``."""
    return phone_config(**dict(NO_LIMITS, **changes))


def numbers(count, start=0):
    """``count`` distinct valid numbers."""
    return ["+1555%07d" % index for index in range(start, start + count)]


class Sessions:
    """Enrollment sessions per (tenant, uid), reused for 5 minutes (a session may send many codes)."""

    def __init__(self, kit):
        self.kit = kit
        self.sessions = {}

    def send(self, uid, number, tenant=None):
        """Start an enrollment of ``number`` for ``uid``; return the verification id."""
        key = (tenant, uid, self.kit.clock.now // 300)  # sessions live 600 s
        if key not in self.sessions:
            user = self.kit.user(uid, tenant=tenant)
            self.sessions[key] = self.kit.ctx.multi_factor(user).session()
        return self.kit.provider.verify_phone_number(number, APP_OK, session=self.sessions[key])


def test_default_limits_are_the_documented_ones(phone_kit):
    config = phone_kit.ctx.config()
    assert config["phone"] == {"appVerification": "REQUIRED"}
    assert config["testPhoneNumbers"] == {}
    assert {key: value for key, value in config["limits"].items() if key.startswith("sms")} == {
        "smsCodeLifetime": 300, "smsMaxAttempts": 5, "smsResendCooldown": 30,
        "smsPerNumberHour": 5, "smsPerNumberDay": 10, "smsPerUserHour": 10, "smsPerUserDay": 20,
        "smsPerTenantHour": 1000, "smsPerTenantDay": 10000, "smsPerFactorHour": 5, "smsPerFactorDay": 10,
    }


# --- resend cooldown ---------------------------------------------------------------------


def test_resend_cooldown(phone_kit):
    kit = phone_kit
    sessions = Sessions(kit)
    start = kit.clock.now
    sessions.send("alice", NUMBER)
    for delay in (0, 1, 29):
        kit.clock.now = start + delay
        with pytest.raises(libmfa.TooManyAttemptsError) as caught:
            sessions.send("alice", NUMBER)
        assert caught.value.name == "TOO_MANY_ATTEMPTS_TRY_LATER"
    assert kit.inbox.to(NUMBER) == 1
    kit.clock.now = start + 30
    sessions.send("alice", NUMBER)
    assert kit.inbox.to(NUMBER) == 2


def test_cooldown_is_per_number(phone_kit):
    kit = phone_kit
    sessions = Sessions(kit)
    sessions.send("alice", NUMBER)
    sessions.send("alice", "+442071838750")  # another number: no cooldown
    with pytest.raises(libmfa.TooManyAttemptsError):
        sessions.send("bob", NUMBER)  # another user, the same number
    assert kit.inbox.to(NUMBER) == 1


def test_sign_in_cooldown_is_the_factors_own(phone_kit):
    """Changed on purpose (issue 8): sign-in codes to an enrolled factor have a resend
    cooldown of their own, apart from the number's enrollment sends (which once held
    them back for 30 s)."""
    kit = phone_kit
    user = kit.user()
    info = kit.enroll_phone(user)
    resolver = kit.resolver(user)
    kit.clock.advance(29)
    kit.start_sign_in(resolver, info)  # the enrollment send 29 s ago does not hold it back
    with pytest.raises(libmfa.TooManyAttemptsError):
        kit.start_sign_in(resolver, info)  # resending a sign-in code: the factor's cooldown
    kit.clock.advance(29)
    with pytest.raises(libmfa.TooManyAttemptsError):
        kit.start_sign_in(resolver, info)
    kit.clock.advance(1)
    kit.start_sign_in(resolver, info)
    assert kit.inbox.to(NUMBER) == 3


@pytest.mark.parametrize("cooldown", [0, 120])
def test_cooldown_is_configurable(make_phone_kit, cooldown):
    kit = make_phone_kit(config=phone_config(smsResendCooldown=cooldown))
    sessions = Sessions(kit)
    sessions.send("alice", NUMBER)
    if cooldown:
        kit.clock.advance(cooldown - 1)
        with pytest.raises(libmfa.TooManyAttemptsError):
            sessions.send("alice", NUMBER)
        kit.clock.advance(1)
    sessions.send("alice", NUMBER)
    assert kit.inbox.to(NUMBER) == 2


def test_refused_requests_are_not_counted(make_phone_kit):
    kit = make_phone_kit(config=limits(smsResendCooldown=30, smsPerNumberHour=2))
    sessions = Sessions(kit)
    sessions.send("alice", NUMBER)
    for _ in range(3):
        kit.clock.advance(5)
        with pytest.raises(libmfa.TooManyAttemptsError):
            sessions.send("alice", NUMBER)
    kit.clock.advance(15)
    sessions.send("alice", NUMBER)  # the refused ones did not use the hourly cap of 2
    kit.clock.advance(30)
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send("alice", NUMBER)


# --- caps per number, user and tenant, per hour and per day -------------------------------

SCOPES = {
    # scope: how the n-th request of a test is made (uid, number, tenant), all within one scope
    "number": lambda n: ("user%d" % n, NUMBER, None),
    "user": lambda n: ("alice", numbers(1, n)[0], None),
    "tenant": lambda n: ("user%d" % n, numbers(1, n)[0], "t1"),
}
CAP_NAMES = {"number": "smsPerNumber", "user": "smsPerUser", "tenant": "smsPerTenant"}
# what the same kind of request looks like outside the exhausted scope
OUTSIDE = {
    "number": ("user-x", "+442071838750", None),  # another number
    "user": ("bob", "+442071838750", None),  # another user
    "tenant": ("user-x", "+442071838750", "t2"),  # another tenant
}


@pytest.mark.parametrize("scope", sorted(SCOPES))
def test_hourly_cap(make_phone_kit, scope):
    kit = make_phone_kit(config=limits(**{CAP_NAMES[scope] + "Hour": 3}))
    sessions = Sessions(kit)
    make = SCOPES[scope]
    for n in range(3):
        sessions.send(*make(n)[:2], tenant=make(n)[2])
    with pytest.raises(libmfa.QuotaExceededError) as caught:
        sessions.send(*make(3)[:2], tenant=make(3)[2])
    assert caught.value.name == "QUOTA_EXCEEDED"
    assert len(kit.inbox.messages) == 3
    uid, number, tenant = OUTSIDE[scope]
    sessions.send(uid, number, tenant=tenant)  # other scopes are not affected
    kit.clock.advance(HOUR - 1)
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send(*make(4)[:2], tenant=make(4)[2])
    kit.clock.advance(1)  # an hour after the first three
    for n in range(5, 8):
        sessions.send(*make(n)[:2], tenant=make(n)[2])
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send(*make(8)[:2], tenant=make(8)[2])
    assert len(kit.inbox.messages) == 7


@pytest.mark.parametrize("scope", sorted(SCOPES))
def test_daily_cap(make_phone_kit, scope):
    kit = make_phone_kit(config=limits(**{CAP_NAMES[scope] + "Hour": 2, CAP_NAMES[scope] + "Day": 5}))
    sessions = Sessions(kit)
    make = SCOPES[scope]
    start = kit.clock.now
    counter = iter(range(1000))

    def send():
        n = next(counter)
        sessions.send(*make(n)[:2], tenant=make(n)[2])

    for hour in range(3):  # 2 + 2 + 1: the day's 5
        kit.clock.now = start + hour * HOUR
        for _ in range(2 if hour < 2 else 1):
            send()
    with pytest.raises(libmfa.QuotaExceededError):  # the hour still has room, the day has not
        send()
    for hour in range(3, 24):
        kit.clock.now = start + hour * HOUR
        with pytest.raises(libmfa.QuotaExceededError):
            send()
    assert len(kit.inbox.messages) == 5
    uid, number, tenant = OUTSIDE[scope]
    sessions.send(uid, number, tenant=tenant)
    kit.clock.now = start + DAY  # the first hour's two fall out of the day
    send()
    send()
    with pytest.raises(libmfa.QuotaExceededError):
        send()
    assert len(kit.inbox.messages) == 8


def test_default_per_number_cap(phone_kit):
    kit = phone_kit
    sessions = Sessions(kit)
    for n in range(5):  # 5 per hour, 30 s apart (the cooldown)
        sessions.send("user%d" % n, NUMBER)
        kit.clock.advance(30)
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send("user5", NUMBER)
    assert kit.inbox.to(NUMBER) == 5


def test_default_per_user_cap(phone_kit):
    kit = phone_kit
    sessions = Sessions(kit)
    for number in numbers(10):
        sessions.send("alice", number)
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send("alice", "+442071838750")
    sessions.send("bob", "+442071838750")
    assert len(kit.inbox.messages) == 11


def test_project_and_tenants_have_their_own_caps(make_phone_kit):
    kit = make_phone_kit(config=limits(smsPerTenantHour=2))
    sessions = Sessions(kit)
    for n, number in enumerate(numbers(2)):
        sessions.send("p%d" % n, number)
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send("p9", "+442071838750")
    for n, number in enumerate(numbers(2, 10)):
        sessions.send("t%d" % n, number, tenant="t1")
    with pytest.raises(libmfa.QuotaExceededError):
        sessions.send("t9", "+442071838751", tenant="t1")


def test_sign_in_sends_have_their_own_budget_per_factor(make_phone_kit):
    """Changed on purpose (issue 8): sign-in sends to an enrolled factor count toward the
    factor's own budget (smsPerFactorHour), not toward the per-number caps of enrollments,
    so nobody can spend a user's sign-in codes by enrolling their number elsewhere."""
    kit = make_phone_kit(config=limits(smsPerNumberHour=1, smsPerFactorHour=2, pendingCredentialLifetime=3600))
    user = kit.user()
    info = kit.enroll_phone(user)  # the number's one enrollment send of the hour
    resolver = kit.resolver(user)
    kit.start_sign_in(resolver, info)  # 1 of the factor's 2
    kit.start_sign_in(resolver, info)  # 2
    with pytest.raises(libmfa.QuotaExceededError):
        kit.start_sign_in(resolver, info)
    assert kit.inbox.to(NUMBER) == 3
    with pytest.raises(libmfa.QuotaExceededError):  # enrollments keep the per-number cap
        kit.start_enrollment(kit.user("bob"), NUMBER)


def test_per_number_limits_survive_a_master_key_rotation(make_phone_kit, tmp_path):
    """A number's cooldown and caps are counted under the names it has with every key in
    the keyring, so a context opened with a new master key (a rotation, or one server of
    a rolling rotation) still sees the sends made under the old one."""
    store = str(tmp_path / "mfa.sqlite3")
    old = make_phone_kit(store, config=limits(smsResendCooldown=30, smsPerNumberHour=1, smsPerNumberDay=1))
    old.start_enrollment(old.user("alice"), NUMBER)
    new = make_phone_kit(store, config=None, master_key=bytes(range(1, 33)), key_id="k2",
                         previous_keys={"k1": bytes(range(32))})
    with pytest.raises(libmfa.TooManyAttemptsError):  # the same number, 0 s later: the cooldown
        new.start_enrollment(new.user("bob"), NUMBER)
    new.clock.advance(60)
    with pytest.raises(libmfa.QuotaExceededError):  # the number's cap of 1 per hour
        new.start_enrollment(new.user("carol"), NUMBER)
    assert new.inbox.messages == []


# --- SMS_SEND_FAILED: nothing counted -------------------------------------------------------

STRICT = dict(smsResendCooldown=3600, smsPerNumberHour=1, smsPerNumberDay=1, smsPerUserHour=1, smsPerUserDay=1,
              smsPerTenantHour=1, smsPerTenantDay=1)


@pytest.mark.parametrize("error", [RuntimeError("gateway down"), ConnectionError(), ValueError("x"),
                                   KeyboardInterrupt(), SystemExit(3)])
def test_failed_send_costs_nothing(make_phone_kit, error, caplog):
    kit = make_phone_kit(config=phone_config(**STRICT))
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    kit.inbox.fail = error
    for _ in range(3):
        with pytest.raises(libmfa.SMSSendFailedError) as caught:
            kit.start_enrollment(user, session=session)
        assert caught.value.name == "SMS_SEND_FAILED"
    assert "SMS sender failed" in caplog.text and type(error).__name__ in caplog.text
    assert kit.inbox.messages == []
    sms_events = [event for event in kit.events if event.kind_name == "SMS_SENT"]
    assert [event.detail for event in sms_events] == ["SMS_SEND_FAILED"] * 3
    kit.inbox.fail = None  # the gateway is back: with every cap at 1 and a 1 h cooldown, one send still goes
    verification_id = kit.start_enrollment(user, session=session)
    info = kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, kit.inbox.code()))
    assert info.phone_number == NUMBER
    assert kit.events[-2].detail == "OK"
    kit.clock.advance(HOUR)
    with pytest.raises(libmfa.QuotaExceededError):  # and that one send was counted
        kit.start_enrollment(kit.user("bob", auth_time=kit.clock.now), "+442071838750")


def test_failed_sign_in_send_costs_nothing(make_phone_kit):
    kit = make_phone_kit(config=phone_config(**dict(STRICT, smsPerNumberHour=2, smsPerNumberDay=2,
                                                    smsPerUserHour=2, smsPerUserDay=2, smsPerTenantHour=2,
                                                    smsPerTenantDay=2, smsResendCooldown=0)))
    user = kit.user()
    info = kit.enroll_phone(user)
    resolver = kit.resolver(user)
    kit.inbox.fail = OSError("no route")
    for _ in range(5):
        with pytest.raises(libmfa.SMSSendFailedError):
            kit.start_sign_in(resolver, info)
    kit.inbox.fail = None
    verification_id = kit.start_sign_in(resolver, info)
    assert kit.resolve_phone(resolver, verification_id, kit.inbox.code()).factor_id == "phone"


def test_no_sender_configured(make_phone_kit):
    kit = make_phone_kit(sms_sender=None, config=phone_config(**STRICT))
    user = kit.user()
    with pytest.raises(libmfa.SMSSendFailedError):
        kit.start_enrollment(user)
    with pytest.raises(libmfa.SMSSendFailedError):  # not a cooldown: nothing was counted
        kit.start_enrollment(user)


def test_unwritable_outbox_fails_and_costs_nothing(make_phone_kit, tmp_path):
    outbox = tmp_path / "missing-dir" / "outbox.jsonl"
    kit = make_phone_kit(sms_outbox=str(outbox), config=phone_config(**STRICT))
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    with pytest.raises(libmfa.SMSSendFailedError):
        kit.start_enrollment(user, session=session)
    (tmp_path / "missing-dir").mkdir()
    verification_id = kit.start_enrollment(user, session=session)
    assert libmfa.read_outbox(outbox)[0]["to"] == NUMBER
    kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, libmfa.outbox_code(outbox, NUMBER)))


# --- test phone numbers ----------------------------------------------------------------------

TEST_NUMBER, TEST_CODE = "+15555550100", "123456"
TEST_NUMBERS = {TEST_NUMBER: TEST_CODE, "+15555550101": "000000"}


@pytest.fixture
def test_numbers_kit(make_phone_kit):
    """A kit whose caps are all 1 with a 1 h cooldown, and two test numbers."""
    return make_phone_kit(config=phone_config(dict(PHONE_ON, testPhoneNumbers=TEST_NUMBERS), **STRICT))


def test_test_numbers_never_reach_the_sender_and_are_not_counted(test_numbers_kit):
    kit = test_numbers_kit
    user = kit.user()
    session = kit.ctx.multi_factor(user).session()
    ids = [kit.start_enrollment(user, TEST_NUMBER, session=session) for _ in range(25)]  # beyond every cap
    ids += [kit.start_enrollment(user, "+15555550101", session=session) for _ in range(25)]
    assert kit.inbox.messages == []
    assert "SMS_SENT" not in kit.kinds()
    assert len(set(ids)) == 50
    # the user, tenant and numbers' caps are untouched: one real SMS still goes out
    kit.start_enrollment(user, NUMBER, session=session)
    assert kit.inbox.to(NUMBER) == 1
    with pytest.raises((libmfa.QuotaExceededError, libmfa.TooManyAttemptsError)):
        kit.start_enrollment(user, "+442071838750", session=session)
    # and test numbers still work after the real caps are used up
    verification_id = kit.start_enrollment(user, TEST_NUMBER, session=session)
    info = kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, TEST_CODE))
    assert info.phone_number == TEST_NUMBER


def test_test_number_enrolls_and_signs_in_with_its_fixed_code(test_numbers_kit):
    kit = test_numbers_kit
    user = kit.user()
    verification_id = kit.start_enrollment(user, TEST_NUMBER)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, "654321"))
    info = kit.ctx.multi_factor(user).enroll(kit.assertion(verification_id, TEST_CODE))
    for _ in range(20):  # far beyond the caps and the cooldown, at the same second
        resolver = kit.resolver(user)
        assert resolver.hints[0].phone_number == "+1******0100"
        verification_id = kit.start_sign_in(resolver, info)
        result = kit.resolve_phone(resolver, verification_id, TEST_CODE)
        assert result.claims == {"sign_in_second_factor": "phone", "second_factor_identifier": info.uid}
    assert kit.inbox.messages == []


def test_test_number_codes_are_single_use_too(test_numbers_kit):
    kit = test_numbers_kit
    user = kit.user()
    info = kit.enroll_phone(user, TEST_NUMBER, code=TEST_CODE)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    kit.resolve_phone(resolver, verification_id, TEST_CODE)
    with pytest.raises(libmfa.InvalidSessionError):
        kit.resolve_phone(kit.resolver(user), verification_id, TEST_CODE)


def test_test_numbers_need_no_sender(make_phone_kit):
    kit = make_phone_kit(sms_sender=None, config=dict(PHONE_ON, testPhoneNumbers=TEST_NUMBERS))
    user = kit.user()
    info = kit.enroll_phone(user, TEST_NUMBER, code=TEST_CODE)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    assert kit.resolve_phone(resolver, verification_id, TEST_CODE).factor_id == "phone"
    with pytest.raises(libmfa.SMSSendFailedError):  # a real number does need one
        kit.start_enrollment(kit.user("bob"), NUMBER)


def test_test_numbers_of_a_tenant(make_phone_kit):
    kit = make_phone_kit(sms_sender=None)
    kit.ctx.set_config({"testPhoneNumbers": {TEST_NUMBER: "111111"}}, tenant="t1")
    away = kit.user(tenant="t1")
    verification_id = kit.start_enrollment(away, TEST_NUMBER)
    kit.ctx.multi_factor(away).enroll(kit.assertion(verification_id, "111111"))
    with pytest.raises(libmfa.SMSSendFailedError):  # not a test number for the project
        kit.start_enrollment(kit.user(), TEST_NUMBER)


# --- an 8-thread burst of 1,000 requests ----------------------------------------------------

THREADS, REQUESTS = 8, 1000


def burst(kit, request):
    """Run ``request(thread, n)`` REQUESTS times over THREADS threads at once; return the outcome names."""
    outcomes = []
    lock = threading.Lock()
    barrier = threading.Barrier(THREADS)

    def worker(thread):
        mine = []
        barrier.wait()
        for n in range(thread, REQUESTS, THREADS):
            try:
                request(thread, n)
                mine.append("OK")
            except libmfa.MFAError as error:
                mine.append(error.name)
        with lock:
            outcomes.extend(mine)

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == REQUESTS
    return outcomes


def sessions_per_thread(kit, uid_of, tenant=None):
    """One enrollment session per thread, for the user ``uid_of(thread)``."""
    return [kit.ctx.multi_factor(kit.user(uid_of(thread), tenant=tenant)).session() for thread in range(THREADS)]


BURST_CAPS = {
    # scope: (hour cap, day cap)
    "number": (7, 10),
    "user": (9, 13),
    "tenant": (25, 31),
}


@pytest.mark.parametrize("scope", sorted(BURST_CAPS))
def test_caps_hold_under_a_burst(make_phone_kit, tmp_path, scope):
    hour_cap, day_cap = BURST_CAPS[scope]
    config = limits(**{CAP_NAMES[scope] + "Hour": hour_cap, CAP_NAMES[scope] + "Day": day_cap})
    kit = make_phone_kit(str(tmp_path / "burst.sqlite3"), config=config)
    tenant = "t1" if scope == "tenant" else None
    start = kit.clock.now
    round_ = [0]
    sessions = []

    def request(thread, n):
        number = NUMBER if scope == "number" else numbers(1, round_[0] * REQUESTS + n)[0]
        kit.provider.verify_phone_number(number, APP_OK, session=sessions[thread])

    expected_total = 0
    # the hour's cap; an hour later what the day has left; a day later the hour's cap again
    for when, expected in ((start, hour_cap), (start + HOUR, day_cap - hour_cap), (start + DAY, hour_cap)):
        kit.clock.now = when
        if scope == "user":  # one user, eight sessions (sessions expire: new ones each round)
            sessions[:] = sessions_per_thread(kit, lambda thread: "alice")
        else:
            sessions[:] = sessions_per_thread(kit, lambda thread: "user%d" % thread, tenant)
        outcomes = burst(kit, request)
        round_[0] += 1
        expected_total += expected
        assert outcomes.count("OK") == expected, (when - start, sorted(set(outcomes)))
        assert outcomes.count("QUOTA_EXCEEDED") == REQUESTS - expected
        assert len(kit.inbox.messages) == expected_total  # exactly what reached the Python sender
    if scope == "number":
        assert kit.inbox.to(NUMBER) == expected_total
    else:
        assert len({to for to, _ in kit.inbox.messages}) == expected_total


def test_cooldown_holds_under_a_burst(make_phone_kit):
    kit = make_phone_kit(config=phone_config(smsPerNumberHour=HIGH, smsPerUserHour=HIGH, smsPerNumberDay=HIGH,
                                             smsPerUserDay=HIGH))
    sessions = sessions_per_thread(kit, lambda thread: "user%d" % thread)
    outcomes = burst(kit, lambda thread, n: kit.provider.verify_phone_number(NUMBER, APP_OK,
                                                                             session=sessions[thread]))
    assert outcomes.count("OK") == 1
    assert outcomes.count("TOO_MANY_ATTEMPTS_TRY_LATER") == REQUESTS - 1
    assert kit.inbox.messages and len(kit.inbox.messages) == 1


def test_test_numbers_under_a_burst(make_phone_kit):
    kit = make_phone_kit(sms_sender=None,
                         config=phone_config(dict(PHONE_ON, testPhoneNumbers=TEST_NUMBERS), **STRICT))
    sessions = sessions_per_thread(kit, lambda thread: "user%d" % thread)
    outcomes = burst(kit, lambda thread, n: kit.provider.verify_phone_number(TEST_NUMBER, APP_OK,
                                                                             session=sessions[thread]))
    assert outcomes == ["OK"] * REQUESTS
