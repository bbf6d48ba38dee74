"""pytest set-up for the documentation site (build/docs/site, built by scripts/docs.sh).

Provides:

* ``site``: the built site's folder (``MFA_DOCS_SITE``, else build/docs/site);
  the tests fail, never skip, when it has not been built;
* ``served``: the site's address, served by a static web server on loopback
  (port ``MFA_PG_PORT_BASE`` + 20), as a person's browser would get it;
* ``browser``: headless Chromium driven by selenium (Tests/chromium.py, as
  Tests/web drives it);
* ``ARTIFACTS``: where the screenshots go (build/docs-artifacts, or
  ``MFA_DOCS_ARTIFACTS``).
"""

from __future__ import annotations

import functools
import http.server
import os
import pathlib
import sys
import threading

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
import chromium  # noqa: E402  (Tests/chromium.py)

SITE = pathlib.Path(os.environ.get("MFA_DOCS_SITE") or REPO / "build" / "docs" / "site")
ARTIFACTS = pathlib.Path(os.environ.get("MFA_DOCS_ARTIFACTS") or REPO / "build" / "docs-artifacts")
PORT = int(os.environ.get("MFA_PG_PORT_BASE", "25432")) + 20


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site's files without logging every request to the test's output."""

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def site() -> pathlib.Path:
    """The built site; fails when scripts/docs.sh has not built it."""
    if not (SITE / "index.html").is_file():
        pytest.fail("no site in %s: build it with scripts/docs.sh" % SITE)
    return SITE


@pytest.fixture(scope="session")
def served(site):
    """The site's address on loopback."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % PORT
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium under selenium, a laptop's window."""
    driver = chromium.headless(1280, 900)
    yield driver
    driver.quit()
