"""pytest fixtures of the PAM tests (pam_harness.py has the helpers)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from pam_harness import Run, SyslogCatcher  # noqa: E402


@pytest.fixture(scope="session")
def run():
    """The run: scratch folder, key file, SQLite store; removes what it made at the end."""
    r = Run()
    try:
        # Backoff starts at the fourth failure in a row and lasts 10 minutes: the
        # backoff test needs no wait (a success forgets earlier failures). Each
        # success claims a time step, and a test signs a user in several times
        # within a few steps: the widest window (+-10 steps) gives it room.
        r.configure('{"totp": {"adjacentIntervals": 10}, "limits": {"freeAttempts": 3, "backoffBase": 600}}')
        yield r
    finally:
        r.close()


@pytest.fixture(scope="session")
def pg_url(run):
    """A private PostgreSQL server of the run's own (stopped and frozen by the last tests)."""
    url = run.pg_start()
    return url + "?mfa_deadline_ms=1000&connect_timeout=2"


@pytest.fixture
def syslog():
    """What the module sends to syslog during one test (skipped where a syslog daemon owns /dev/log)."""
    if os.path.exists(SyslogCatcher.PATH):
        pytest.skip("/dev/log belongs to a syslog daemon here")
    catcher = SyslogCatcher()
    try:
        yield catcher
    finally:
        catcher.close()
