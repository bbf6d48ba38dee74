"""pytest set-up for the example web application (examples/web).

Imports libmfa from <repo>/python and the application from examples/web,
finds a built library the way Tests/python does, and provides:

* ``server(store)``: the application started with the README's command,
  ``scripts/web.sh``, on a port of this run (``MFA_PG_PORT_BASE`` + 13 and
  up, one per server started) and a fresh instance folder; on
  PostgreSQL (``MFA_WEB_STORE``) in a new database of the test server named
  by ``MFA_TEST_POSTGRES_URL``; ``Server(instance, store, env)`` starts one
  with settings of its own (test_metrics_prometheus.py);
* ``browser``: headless Chromium (Debian's chromium and chromium-driver)
  driven by selenium, ``--no-sandbox`` when running as root;
* ``ARTIFACTS``: where screenshots go (``build/web-artifacts``, or
  ``MFA_WEB_ARTIFACTS``).
"""

from __future__ import annotations

import itertools
import os
import pathlib
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "examples" / "web"))
sys.path.insert(0, str(REPO / "Tests"))
import chromium  # noqa: E402  (Tests/chromium.py)
if not os.environ.get("LIBMFA_LIBRARY"):
    for candidate in (REPO / "build" / "libmfa.so", REPO / ".build" / "release" / "libmfa.so"):
        if candidate.exists():
            os.environ["LIBMFA_LIBRARY"] = str(candidate)
            break

ARTIFACTS = pathlib.Path(os.environ.get("MFA_WEB_ARTIFACTS") or REPO / "build" / "web-artifacts")
#: How long the server may take to start: web.sh runs the set-up and an (incremental) build first.
START_TIMEOUT = 300
#: The ports of the servers this run starts: MFA_PG_PORT_BASE + 13, + 14, ... (the test command's
#: PostgreSQL servers use the base and a few ports above it; see scripts/pg.sh and Tests/ha).
PORTS = itertools.count(int(os.environ.get("MFA_PG_PORT_BASE", "25432")) + 13)


def next_port() -> int:
    """The next port of this run, which nothing may listen on yet."""
    port = next(PORTS)
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise RuntimeError("port %d is taken: another run with MFA_PG_PORT_BASE=%s?"
                               % (port, os.environ.get("MFA_PG_PORT_BASE", "25432")))
    return port


def postgres_database(url: str, name: str) -> str:
    """A new, empty database ``name`` on the server of ``url``; its URL."""
    import psycopg

    parts = urllib.parse.urlsplit(url)
    with psycopg.connect(urllib.parse.urlunsplit(parts._replace(path="/postgres", query="")),
                         autocommit=True) as connection:
        connection.execute('DROP DATABASE IF EXISTS "%s"' % name)
        connection.execute('CREATE DATABASE "%s"' % name)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


class Server:
    """The application running under scripts/web.sh."""

    def __init__(self, instance: pathlib.Path, store: str | None, env: dict[str, str] | None = None) -> None:
        self.instance = instance
        self.store = store or str(instance / "mfa.sqlite3")  # libmfa's store (web.sh's default on SQLite)
        self.port = next_port()
        self.url = "http://127.0.0.1:%d" % self.port  # where web.sh listens
        self.public_url = "http://localhost:%d" % self.port  # its MFA_WEB_URL: where security keys work
        env = dict(os.environ, MFA_WEB_PORT=str(self.port), MFA_WEB_INSTANCE=str(instance), **(env or {}))
        if store:
            env["MFA_WEB_STORE"] = store
        self.log = instance / "server.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([str(REPO / "scripts" / "web.sh")], cwd=REPO, env=env, stdout=log,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the web application did not start:\n" + self.log.read_text(errors="replace"))
            time.sleep(0.2)

    def stop(self) -> None:
        """Stop the server (its whole process group: web.sh execs python)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """The application on the embedded SQLite store, then on PostgreSQL (skipped without a test server)."""
    store = None
    if request.param == "postgres":
        url = os.environ.get("MFA_TEST_POSTGRES_URL")
        if not url:
            if os.environ.get("CI") == "true":
                pytest.fail("MFA_TEST_POSTGRES_URL is not set: CI must run the PostgreSQL half too")
            pytest.skip("MFA_TEST_POSTGRES_URL is not set (scripts/test.sh starts a PostgreSQL server)")
        store = postgres_database(url, "libmfa_web_%s" % secrets.token_hex(4))
    running = Server(tmp_path_factory.mktemp("web-" + request.param), store)
    running.store_kind = request.param
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium under selenium (one per module)."""
    driver = chromium.headless(1100, 900)
    yield driver
    driver.quit()
