"""pytest fixtures of the FreeRADIUS tests (radius_harness.py has the helpers)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from radius_harness import Run  # noqa: E402

#: The store's configuration: every typed factor (hardware tokens too) and SMS; the widest TOTP window, since a test signs
#: a user in several times within a few time steps; backoff from the fourth failure in a row,
#: for 10 minutes (a success forgets earlier failures).
CONFIG = {"state": "ENABLED", "providers": {"totp": "ENABLED", "phone": "ENABLED", "recovery": "ENABLED",
                                                 "hotp": "ENABLED", "yubico_otp": "ENABLED"},
          "totp": {"adjacentIntervals": 10}, "limits": {"freeAttempts": 3, "backoffBase": 600}}


@pytest.fixture(scope="session")
def run():
    """The run: scratch folder, key file, SQLite store and outbox; stops what it started at the end."""
    r = Run()
    try:
        r.configure(CONFIG)
        yield r
    finally:
        r.close()


@pytest.fixture(scope="session")
def server(run):
    """A FreeRADIUS (threaded, -f) on the run's SQLite store: challenge-response on server.port, one field
    (no_factor = accept) on server.one_field_port."""
    return run.server("main", one_field=True, one_field_options={"no_factor": "accept"}).start()


@pytest.fixture(scope="session")
def pg_url(run):
    """A private PostgreSQL server of the run's own (stopped by the last tests), with the store's configuration."""
    url = run.pg_start()
    run.configure(CONFIG, store=url)
    return url
