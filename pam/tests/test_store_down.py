"""pam_mfa.so on a PostgreSQL store whose server is frozen or stopped: the
login service gets PAM_AUTHINFO_UNAVAIL within the store's deadline (the URL's
mfa_deadline_ms=1000 bounds each wait, connect_timeout=2 the connection),
never a hang, never a pass (not even under nullok), and nothing is lost when
the server comes back. The log says why (no answer within the deadline),
never the URL's password. These tests stop the run's private server: they run
last (pytest takes the files in name order)."""

import os
import re
import select
import subprocess
import time

import pytest

from pam_harness import AUTHINFO_UNAVAIL, SUCCESS, freeze_server, thaw_server

#: What a login may take with a dead store: a few deadlines of 1 s (open, sign-in,
#: resolve) and process start-up, far below what a hang would take.
BOUND = 8.0

#: A password in the store URL (the test server trusts loopback and ignores it): no log line may hold it.
URL_PASSWORD = "Url-pw-never-logged-31"


@pytest.fixture(scope="module")
def pg_user(run, pg_url):
    url = pg_url.replace("://postgres@", "://postgres:%s@" % URL_PASSWORD, 1)
    assert URL_PASSWORD in url
    run.configure('{"totp": {"adjacentIntervals": 10}}', store=url)
    user = run.user()
    app = run.enroll(user, store=url)
    service = run.service([run.store_words(store=url)])
    lenient = run.service([run.store_words(store=url) + " nullok"])
    status, out, _ = run.pam(service, user, app.next_code())
    assert status == 0 and SUCCESS in out, out
    return user, app, service, lenient


def test_frozen_server_is_authinfo_unavail_within_the_deadline(run, pg_user):
    user, app, service, lenient = pg_user
    freeze_server(run)
    try:
        for svc, name in ((service, user), (lenient, run.user())):
            status, out, seconds = run.pam(svc, name, app.next_code(), timeout=60)
            app.step -= 1  # not used
            assert status != 0 and AUTHINFO_UNAVAIL in out, out
            assert seconds < BOUND, f"{seconds:.1f} s"
    finally:
        thaw_server(run)
    assert run.pam(service, user, app.next_code())[0] == 0


def test_server_frozen_while_the_user_types(run, pg_user, syslog):
    """The server freezes between the sign-in and the code: the code's check
    fails at its deadline, and the code still works once the server is back.
    The log says why the code was not checked (issue 45: it said only
    STORAGE_ERROR), and never the URL's password."""
    user, app, service, _ = pg_user
    code = app.next_code()
    process = subprocess.Popen(["pamtester", service, user, "authenticate"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen = b""
    try:
        deadline = time.monotonic() + 20
        while b"Verification code" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        assert b"Verification code" in seen, seen
        freeze_server(run)
        start = time.monotonic()
        rest, _ = process.communicate(code.encode() + b"\n", timeout=60)
        seconds = time.monotonic() - start
    finally:
        thaw_server(run)
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0 and AUTHINFO_UNAVAIL.encode() in rest, rest
    assert seconds < BOUND, f"{seconds:.1f} s"
    log = syslog.text()
    line = next((line for line in log.splitlines() if f"second factor of user {user} not checked" in line), None)
    assert line and re.search(r"STORAGE_ERROR: postgres: .*no answer from the server within \d+ ms", line), log
    assert URL_PASSWORD not in log, log
    status, out, _ = run.pam(service, user, code)
    assert status == 0 and SUCCESS in out, out


def test_stopped_server_is_authinfo_unavail(run, pg_user, pg_url):
    user, app, service, lenient = pg_user
    run.pg_halt()
    for svc, name in ((service, user), (lenient, run.user())):
        status, out, seconds = run.pam(svc, name, app.next_code(), timeout=60)
        app.step -= 1
        assert status != 0 and AUTHINFO_UNAVAIL in out, out
        assert seconds < BOUND, f"{seconds:.1f} s"
    # Back up: nothing was lost.
    run.pg_start()
    status, out, _ = run.pam(service, user, app.next_code())
    assert status == 0 and SUCCESS in out, out
