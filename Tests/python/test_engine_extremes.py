"""Extreme times through the engine: an error or a result, never a crash.

Each case runs in a child process, so that a library crash (a Swift overflow
trap is SIGILL) fails the test instead of killing pytest. mfa.h promises
"libmfa never aborts on bad input".
"""

import os
import subprocess
import sys
import textwrap

import pytest

from shared import REPO

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
NOW = 1_700_000_010

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    import libmfa
    G = libmfa.TOTPMultiFactorGenerator
    step, clock_now, auth_time = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    ctx = libmfa.Context(master_key=bytes(32), clock=lambda: clock_now)
    ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
    user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=auth_time)
    try:
        if step == "session":
            G.generate_secret(ctx.multi_factor(user).session())
        elif step == "unenroll":
            ctx.multi_factor(user).unenroll("A" * 28)
        elif step == "sign_in":
            info = ctx.import_totp(user, bytes(20))
            try:
                ctx.sign_in(user)
            except libmfa.SecondFactorRequired as error:
                error.resolver.resolve_sign_in(G.assertion_for_sign_in(info.uid, "000000"))
        print("RESULT returned")
    except libmfa.MFAError as error:
        print("RESULT raised " + error.name)
    """
)


def run_case(step, clock_now, auth_time):
    """Run one case in a child process; return (returncode, RESULT line or output)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(REPO / "python"), step, str(clock_now), str(auth_time)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    return done.returncode, (lines[-1][7:] if lines else (done.stdout + done.stderr)[-500:])


@pytest.mark.parametrize(
    "step, clock_now, auth_time",
    [
        ("session", NOW, NOW),
        ("session", NOW, 0),
        ("session", NOW, NOW - 10**12),
        ("session", NOW, INT64_MAX),
        ("unenroll", NOW, 0),
        ("sign_in", NOW, NOW),
        ("sign_in", INT64_MIN, INT64_MIN),
    ],
)
def test_times_that_work(step, clock_now, auth_time):
    returncode, result = run_case(step, clock_now, auth_time)
    assert returncode == 0, result
    assert result.startswith(("returned", "raised ")), result


# Library bug (found with the build of commit 372dcb3): Swift integer overflow
# traps (SIGILL, returncode -4) instead of returning a status, in
#   - MFAContext.newSession / unenroll: `now - user.authTime` with auth_time = INT64_MIN;
#   - newSession: `now + limits.sessionLifetime` with a host clock at INT64_MAX;
#   - signIn: `now + limits.pendingCredentialLifetime` with a host clock at INT64_MAX;
#   - generateTOTPSecret (purgeExpired's time arithmetic) with a host clock at INT64_MIN.


def test_session_with_auth_time_int64_min_does_not_crash():
    """`now - user.authTime` in MFAContext.newSession."""
    returncode, result = run_case("session", NOW, INT64_MIN)
    assert returncode == 0, "process died with %d: %s" % (returncode, result)
    assert result in ("raised REQUIRES_RECENT_LOGIN", "raised INVALID_ARGUMENT"), result


def test_unenroll_with_auth_time_int64_min_does_not_crash():
    """`now - user.authTime` in MFAContext.unenroll."""
    returncode, result = run_case("unenroll", NOW, INT64_MIN)
    assert returncode == 0, "process died with %d: %s" % (returncode, result)
    assert result in ("raised REQUIRES_RECENT_LOGIN", "raised INVALID_ARGUMENT"), result


def test_session_with_clock_int64_max_does_not_crash():
    """`now + limits.sessionLifetime` when the host's clock says INT64_MAX."""
    returncode, result = run_case("session", INT64_MAX, INT64_MAX)
    assert returncode == 0, "process died with %d: %s" % (returncode, result)


def test_secret_with_clock_int64_min_does_not_crash():
    """generate_secret when the host's clock says INT64_MIN."""
    returncode, result = run_case("session", INT64_MIN, INT64_MIN)
    assert returncode == 0, "process died with %d: %s" % (returncode, result)


def test_sign_in_with_clock_int64_max_does_not_crash():
    """`now + limits.pendingCredentialLifetime` when the host's clock says INT64_MAX."""
    returncode, result = run_case("sign_in", INT64_MAX, INT64_MAX)
    assert returncode == 0, "process died with %d: %s" % (returncode, result)


def test_auth_time_far_in_the_future_is_not_recent():
    """A first-factor time in the future (beyond clock skew) must not pass the
    recent-login check forever: with commit 372dcb3, `now - authTime <= maxAge`
    accepts any future auth_time."""
    returncode, result = run_case("session", NOW, NOW + 10**6)
    assert returncode == 0, result
    assert result == "raised REQUIRES_RECENT_LOGIN", result
    returncode, result = run_case("unenroll", NOW, NOW + 10**6)
    assert returncode == 0, result
    assert result == "raised REQUIRES_RECENT_LOGIN", result


def test_auth_time_a_little_in_the_future_is_clock_skew():
    returncode, result = run_case("session", NOW, NOW + 60)
    assert (returncode, result) == (0, "returned")
