"""An SQLite store stays available to other users' sign-ins (issue 45, items 10 and 13).

- A user with a security key who sends assertions that can never pass (a
  wrong rp id hash, an extension map of about 11,900 entries), without end,
  from four threads of another process, does not stall other users' TOTP
  sign-ins: they keep working, none fails with STORAGE_ERROR. Such
  responses are read and refused before any write lock, and refusals that
  are not counted are bounded (after a few, they count toward backoff).
- Opening a store whose schema is current takes no write lock: it opens,
  and reads (the factors, a first-factor sign-in, the configuration) work,
  while another process holds a write transaction open (a long import).

Each assertion is about what the calls answer, never about how long they
took: on the code before, both fail (STORAGE_ERROR after SQLite's 10 s busy
timeout).
"""

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import ENGINE_KEY, Clock
from shared import REPO
from webauthn_authenticator import Authenticator, b64

import libmfa

CONFIG = {"state": "ENABLED", "providers": {"totp": "ENABLED", "webauthn": "ENABLED"},
          "webauthn": {"rpId": "example.com"}}
ATTACKER = REPO / "Tests" / "python" / "availability_attacker.py"
#: How long the victim signs in while the attack runs: past SQLite's 10 s busy timeout,
#: which a stalled sign-in would reach.
VICTIM_SECONDS = 12.0
#: A generous bound on one sign-in under the attack: they take milliseconds (a few on a
#: loaded machine); stalled behind the attack's write transactions they took seconds each,
#: up to the 10 s busy timeout, and then failed.
SIGN_IN_BOUND = 2.0


def enroll_totp(context, clock, uid):
    """A TOTP factor for ``uid``: (its info, the app's TOTP)."""
    generator = libmfa.TOTPMultiFactorGenerator
    user = libmfa.User(uid, email=uid + "@example.com", email_verified=True, auth_time=clock.now)
    multi_factor = context.multi_factor(user)
    secret = generator.generate_secret(multi_factor.session())
    totp = libmfa.TOTP(libmfa.base32_decode(secret.shared_secret_key))
    info = multi_factor.enroll(generator.assertion_for_enrollment(secret, totp.at(clock.now)), "app")
    return info, totp


def totp_sign_in(context, clock, uid, info, totp):
    """A complete TOTP sign-in of ``uid`` at the clock's time; the SignInResult."""
    user = libmfa.User(uid, email=uid + "@example.com", email_verified=True, auth_time=clock.now)
    try:
        context.sign_in(user)
    except libmfa.SecondFactorRequired as required:
        assertion = libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(info.uid, totp.at(clock.now))
        return required.resolver.resolve_sign_in(assertion)
    raise AssertionError("a user with a factor signed in without it")


def test_webauthn_attack_does_not_stall_totp(tmp_path):
    store = str(tmp_path / "store.sqlite")
    with libmfa.Context(store, master_key=ENGINE_KEY) as setup:
        setup.set_config(CONFIG)
        mallory = libmfa.User("mallory", email="mallory@example.com", email_verified=True,
                              auth_time=int(time.time()))
        key = Authenticator("EdDSA", "none")
        multi_factor = setup.multi_factor(mallory)
        options = libmfa.WebAuthnMultiFactorGenerator.registration_options(multi_factor.session(), mallory.email)
        multi_factor.enroll(libmfa.WebAuthnMultiFactorGenerator.assertion_for_enrollment(key.register(options)))
    clock = Clock(int(time.time()) // 30 * 30)
    victim = libmfa.Context(store, master_key=ENGINE_KEY, clock=clock)
    info, totp = enroll_totp(victim, clock, "victor")

    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "python"), str(ATTACKER.parent)]))
    attacker = subprocess.Popen(
        [sys.executable, str(ATTACKER), store, b64(key.credential_id), str(VICTIM_SECONDS + 2), "4"],
        env=environment, stdout=subprocess.PIPE, text=True)
    try:
        assert attacker.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # the attack under way
        signed_in, failed, slow = 0, [], []
        end = time.monotonic() + VICTIM_SECONDS
        while time.monotonic() < end:
            clock.advance(30)  # a fresh time step for each code
            started = time.monotonic()
            try:
                result = totp_sign_in(victim, clock, "victor", info, totp)
                assert result.enrollment_id == info.uid
                signed_in += 1
            except libmfa.MFAError as error:
                failed.append(error.name)
            took = time.monotonic() - started
            if took > SIGN_IN_BOUND:
                slow.append(round(took, 1))
            time.sleep(0.05)
        output, _ = attacker.communicate(timeout=120)
    finally:
        if attacker.poll() is None:
            attacker.kill()
            attacker.wait()
        victim.close()
    answers = json.loads(output.strip().splitlines()[-1])
    assert attacker.returncode == 0
    # The victim's sign-ins kept working all along, none of them held up.
    assert failed == [] and signed_in > 0, (failed, signed_in, answers)
    assert slow == [], ("sign-ins that waited for the attack, in seconds", slow, answers)
    # The attack ran: refused for its rp id, never a storage failure, and counted after a
    # few refusals, so that backoff stopped it.
    assert answers.get("RP_ID_MISMATCH", 0) >= 1, answers
    assert answers.get("STORAGE_ERROR", 0) == 0, answers
    assert answers.get("TOO_MANY_ATTEMPTS_TRY_LATER", 0) >= 1, answers


def test_open_current_store_without_write_lock(tmp_path):
    store = str(tmp_path / "store.sqlite")
    clock = Clock()
    with libmfa.Context(store, master_key=ENGINE_KEY, clock=clock) as setup:
        setup.set_config(CONFIG)
        info, _ = enroll_totp(setup, clock, "victor")
    user = libmfa.User("victor", email="victor@example.com", email_verified=True, auth_time=clock.now)
    # Another process holds the store's write lock (an import batch, say), and keeps it.
    writer = sqlite3.connect(store, isolation_level=None, timeout=0)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            sqlite3.connect(store, isolation_level=None, timeout=0).execute("BEGIN IMMEDIATE")
        with libmfa.Context(store, master_key=ENGINE_KEY, clock=clock) as context:
            assert [factor.uid for factor in context.multi_factor(user).enrolled_factors()] == [info.uid]
            with pytest.raises(libmfa.SecondFactorRequired) as required:
                context.sign_in(user)
            assert [hint.uid for hint in required.value.resolver.hints] == [info.uid]
            assert context.config()["providers"]["totp"] == "ENABLED"
            context.check_token("victor", clock.now + 1)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
