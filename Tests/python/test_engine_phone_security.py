"""SMS codes at rest and under attack: no code or number in the store, brute force on one
verification id, concurrent guessing, and two OS processes racing for one code."""

import collections
import multiprocessing
import threading

import pytest

import libmfa
from conftest import APP_OK, ENGINE_KEY, ENGINE_T0, NUMBER, SMS_TEXT, Clock, PhoneKit, phone_config

HIGH = 1_000_000
OPEN = dict(smsResendCooldown=0, smsPerNumberHour=HIGH, smsPerNumberDay=HIGH, smsPerUserHour=HIGH,
            smsPerUserDay=HIGH, smsPerTenantHour=HIGH, smsPerTenantDay=HIGH, smsPerFactorHour=HIGH,
            smsPerFactorDay=HIGH, pendingCredentialLifetime=3600)
OTHER = "+442071838750"


def store_bytes(path):
    """The contents of the database file and its companions (-wal, -shm, -journal)."""
    data = b""
    for candidate in sorted(path.parent.glob(path.name + "*")):
        data += candidate.read_bytes()
    return data


def number_forms(number):
    """The forms a leaked phone number could take in the file."""
    digits = number[1:]
    return {
        "E.164": number.encode(),
        "digits": digits.encode(),
        "national": digits[1:].encode() if number.startswith("+1") else digits[2:].encode(),
        "UTF-16": number.encode("utf-16-le"),
        "integer": int(digits).to_bytes(8, "big"),
        "integer LE": int(digits).to_bytes(8, "little"),
    }


# --- nothing in the clear --------------------------------------------------------------


def test_store_holds_no_code_and_no_number(make_phone_kit, tmp_path):
    path = tmp_path / "mfa.sqlite3"
    kit = make_phone_kit(str(path), config=phone_config(**OPEN))
    alice, bob = kit.user("alice"), kit.user("bob")
    kit.enroll_phone(alice)  # enrolled and used
    info = kit.ctx.multi_factor(alice).enrolled_factors()[0]
    kit.start_enrollment(bob, OTHER)  # a code waiting to be used
    resolver = kit.resolver(alice)
    verification_id = kit.start_sign_in(resolver, info)
    kit.resolve_phone(resolver, verification_id, kit.inbox.code(NUMBER))  # a used sign-in code
    kit.start_sign_in(kit.resolver(alice), info)  # a pending sign-in code
    codes = {SMS_TEXT.match(message).group(1) for _, message in kit.inbox.messages}
    assert len(kit.inbox.messages) == 4
    data = store_bytes(path)
    assert len(data) > 4096  # the store really is there
    assert list(path.parent.glob(path.name + "-wal"))  # and its write-ahead log is included
    for number in (NUMBER, OTHER):
        for name, form in number_forms(number).items():
            assert form not in data, "%s is in the store as %s" % (number, name)
    for code in codes:
        assert code.encode() not in data, "an SMS code is in the store"
        assert code.encode("utf-16-le") not in data
    assert b"verification code" not in data


def test_store_after_close_holds_no_code_and_no_number(make_phone_kit, tmp_path):
    path = tmp_path / "mfa.sqlite3"
    kit = make_phone_kit(str(path), config=phone_config(**OPEN))
    kit.start_enrollment(kit.user(), NUMBER)
    code = kit.inbox.code()
    kit.ctx.close()  # checkpoints the log into the main file
    data = store_bytes(path)
    for name, form in number_forms(NUMBER).items():
        assert form not in data, name
    assert code.encode() not in data


# --- brute force on one verification id -----------------------------------------------


def guesses(code, count=10_000):
    """``count`` distinct guesses: five wrong ones, then the right code, then the rest."""
    wrong = ["%06d" % ((int(code) + k) % 1_000_000) for k in range(1, count)]
    return wrong[:5] + [code] + wrong[5:]


def test_ten_thousand_guesses_never_enroll(make_phone_kit):
    kit = make_phone_kit(config=phone_config(**OPEN))
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    verification_id = kit.start_enrollment(user)
    code = kit.inbox.code()
    tally = collections.Counter()
    for guess in guesses(code):
        try:
            mf.enroll(kit.assertion(verification_id, guess))
            tally["OK"] += 1
        except libmfa.MFAError as error:
            tally[error.name] += 1
    assert tally == {"INVALID_VERIFICATION_CODE": 5, "INVALID_SESSION": 9_995}
    assert mf.enrolled_factors() == []


def test_ten_thousand_guesses_never_sign_in(make_phone_kit):
    kit = make_phone_kit(config=phone_config(**OPEN))
    user = kit.user()
    info = kit.enroll_phone(user)
    resolver = kit.resolver(user)
    verification_id = kit.start_sign_in(resolver, info)
    code = kit.inbox.code()
    tally = collections.Counter()
    for guess in guesses(code):
        try:
            kit.resolve_phone(resolver, verification_id, guess)
            tally["OK"] += 1
        except libmfa.MFAError as error:
            tally[error.name] += 1
    assert tally == {"INVALID_VERIFICATION_CODE": 5, "INVALID_SESSION": 9_995}
    assert kit.ctx.passed_second_factor("alice", 3600) is False


class LockstepClock(Clock):
    """A clock that lines threads up: a thread that set ``armed`` waits in its next
    reading for all the others, so their calls enter libmfa at the same moment
    (every engine call reads the clock first)."""

    def __init__(self, threads):
        super().__init__()
        self.local = threading.local()
        self.barrier = threading.Barrier(threads)

    def arm(self):
        self.local.armed = True

    def __call__(self):
        if getattr(self.local, "armed", False):
            self.local.armed = False
            self.barrier.wait(timeout=30)
        return self.now


THREADS, ROUNDS_CONCURRENT = 8, 60


def wrong_guesses_in_lockstep(make_phone_kit, start, attempt):
    """For ROUNDS_CONCURRENT fresh verification ids: 4 wrong codes one after the other, then
    THREADS wrong codes at once and the right code at once with them. Returns, per round,
    the outcome names of the concurrent calls, the right code's outcome last."""
    clock = LockstepClock(THREADS + 1)
    kit = make_phone_kit(clock=clock, config=phone_config(**OPEN))
    jobs = []
    for round_ in range(ROUNDS_CONCURRENT):
        job = start(kit, round_)  # (target, verification id, code)
        target, verification_id, code = job
        for k in range(4):
            with pytest.raises(libmfa.InvalidVerificationCodeError):
                attempt(kit, target, verification_id, "%06d" % ((int(code) + 1 + k) % 1_000_000))
        jobs.append(job)
    results = [[None] * (THREADS + 1) for _ in jobs]

    def worker(index):
        for round_, (target, verification_id, code) in enumerate(jobs):
            guess = code if index == THREADS else "%06d" % ((int(code) + 100 + index) % 1_000_000)
            clock.arm()
            try:
                attempt(kit, target, verification_id, guess)
                results[round_][index] = "OK"
            except libmfa.MFAError as error:
                results[round_][index] = error.name

    pool = [threading.Thread(target=worker, args=(index,)) for index in range(THREADS + 1)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return results


def check_five_tries(results):
    """Each round: one more wrong code may be judged (the fifth), the others are refused
    unjudged (INVALID_SESSION); the right code wins only if no fifth wrong code was judged before it."""
    over = []
    for round_, outcomes in enumerate(results):
        wrong_answers = outcomes[:-1].count("INVALID_VERIFICATION_CODE")
        won = outcomes[-1] == "OK"
        assert set(outcomes[:-1]) <= {"INVALID_VERIFICATION_CODE", "INVALID_SESSION"}, outcomes
        if wrong_answers + won > 1:  # more than 5 guesses were compared with the code
            over.append((round_, wrong_answers, outcomes[-1]))
    assert not over, "rounds where more than 5 codes were judged (round, wrong answers, right code's outcome): %r" % (
        over,)


def test_concurrent_guesses_at_sign_in_get_five_tries(make_phone_kit):
    def start(kit, round_):
        user = kit.user("user%d" % round_)  # a user each round: the backoff stays out of the way
        info = kit.enroll_phone(user, "+1555%07d" % round_)
        resolver = kit.resolver(user)
        verification_id = kit.start_sign_in(resolver, info)
        return resolver, verification_id, kit.inbox.code()

    def attempt(kit, resolver, verification_id, guess):
        kit.resolve_phone(resolver, verification_id, guess)

    check_five_tries(wrong_guesses_in_lockstep(make_phone_kit, start, attempt))


def test_concurrent_guesses_at_enrollment_get_five_tries(make_phone_kit):
    """Concurrent guesses at enrollment are judged and counted one at a time
    (MFAStore.judgeSMSCode), so a verification id gives exactly five wrong tries
    and the right code cannot win after them."""

    def start(kit, round_):
        user = kit.user("user%d" % round_)
        mf = kit.ctx.multi_factor(user)
        verification_id = kit.start_enrollment(user, "+1555%07d" % round_)
        return mf, verification_id, kit.inbox.code()

    def attempt(kit, mf, verification_id, guess):
        mf.enroll(kit.assertion(verification_id, guess))

    check_five_tries(wrong_guesses_in_lockstep(make_phone_kit, start, attempt))


def test_codes_are_six_uniform_digits(make_phone_kit):
    kit = make_phone_kit(config=phone_config(**OPEN))
    session = kit.ctx.multi_factor(kit.user()).session()
    for index in range(1000):
        kit.provider.verify_phone_number("+1555%07d" % index, APP_OK, session=session)
    codes = [SMS_TEXT.match(message).group(1) for _, message in kit.inbox.messages]
    assert len(codes) == 1000
    assert len(set(codes)) > 990
    assert 50 < sum(1 for code in codes if code.startswith("0")) < 160  # leading zeros kept (~10%)
    digits = collections.Counter("".join(codes))
    assert all(450 < digits[d] < 750 for d in "0123456789"), digits  # ~600 each (sd 23)


# --- two OS processes race for one code ---------------------------------------------------

ROUNDS = 30


def racer(store, commands, results, barrier):
    """A worker process: its own Context on ``store``; one attempt per command."""
    import libmfa as mfa  # a fresh interpreter (spawn)

    now = [0]
    with mfa.Context(store, master_key=ENGINE_KEY, clock=lambda: now[0]) as ctx:
        provider = mfa.PhoneAuthProvider(ctx)
        while True:
            command = commands.get()
            if command is None:
                return
            now[0], kind, first, verification_id, code = command
            assertion = mfa.PhoneMultiFactorGenerator.assertion(provider.credential(verification_id, code))
            try:
                if kind == "sign_in":
                    target = ctx.resolver(first)
                    attempt = lambda: target.resolve_sign_in(assertion)  # noqa: E731
                else:
                    user = mfa.User(first, email="x@example.com", email_verified=True, auth_time=now[0])
                    target = ctx.multi_factor(user)
                    attempt = lambda: target.enroll(assertion)  # noqa: E731
                outcome = None
            except mfa.MFAError as error:  # reported, not raced
                outcome = ("setup", error.name)
            barrier.wait(timeout=60)
            if outcome is None:
                try:
                    attempt()
                    outcome = ("won", "OK")
                except mfa.MFAError as error:
                    outcome = ("lost", error.name)
                except Exception as error:  # noqa: BLE001 - reported to the parent
                    outcome = ("crashed", repr(error))
            results.put(outcome)


def test_two_processes_race_for_one_sms_code(tmp_path):
    store = str(tmp_path / "race.sqlite3")
    kit = PhoneKit(store, config=phone_config(**OPEN))
    alice = kit.user()
    info = kit.enroll_phone(alice)

    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(2)
    results = spawn.Queue()
    queues = [spawn.Queue(), spawn.Queue()]
    workers = [spawn.Process(target=racer, args=(store, queue, results, barrier), daemon=True) for queue in queues]
    for worker in workers:
        worker.start()
    try:
        tally = []
        for round_ in range(ROUNDS):
            kit.clock.now = ENGINE_T0 + 10 * (round_ + 1)
            if round_ % 2 == 0:  # sign-in: one pending credential, one verification id, one code
                resolver = kit.resolver(alice)
                verification_id = kit.start_sign_in(resolver, info)
                command = (kit.clock.now, "sign_in", resolver.session, verification_id, kit.inbox.code())
            else:  # enrollment of a new user's phone
                uid = "user%d" % round_
                verification_id = kit.start_enrollment(kit.user(uid), OTHER)
                command = (kit.clock.now, "enroll", uid, verification_id, kit.inbox.code(OTHER))
            for queue in queues:
                queue.put(command)
            outcomes = sorted([results.get(timeout=60), results.get(timeout=60)])
            tally.append((round_, command[1], outcomes))
        for round_, kind, outcomes in tally:
            assert [k for k, _ in outcomes] == ["lost", "won"], (round_, kind, outcomes)
            assert outcomes[0][1] in ("INVALID_SESSION", "SECOND_FACTOR_EXISTS"), (round_, kind, outcomes)
        for round_ in range(1, ROUNDS, 2):
            factors = kit.ctx.multi_factor(kit.user("user%d" % round_)).enrolled_factors()
            assert [f.phone_number for f in factors] == [OTHER]
    finally:
        for queue in queues:
            queue.put(None)
        for worker in workers:
            worker.join(timeout=30)
        kit.ctx.close()
