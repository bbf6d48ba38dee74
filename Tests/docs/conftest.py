"""pytest set-up for the documentation site (build/docs/site, built by scripts/docs.sh).

Provides:

* ``site``: the built site's folder (``MFA_DOCS_SITE``, else build/docs/site);
  the tests fail, never skip, when it has not been built;
* ``served``: the site's address, served by a static web server on loopback
  (port ``MFA_PG_PORT_BASE`` + 20), as a person's browser would get it;
* ``browser``: headless Chromium (Debian's chromium and chromium-driver)
  driven by selenium, ``--no-sandbox`` when running as root, as Tests/web does;
* ``ARTIFACTS``: where the screenshots go (build/docs-artifacts, or
  ``MFA_DOCS_ARTIFACTS``).
"""

from __future__ import annotations

import functools
import http.server
import os
import pathlib
import threading

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SITE = pathlib.Path(os.environ.get("MFA_DOCS_SITE") or REPO / "build" / "docs" / "site")
ARTIFACTS = pathlib.Path(os.environ.get("MFA_DOCS_ARTIFACTS") or REPO / "build" / "docs-artifacts")
PORT = int(os.environ.get("MFA_PG_PORT_BASE", "25432")) + 20
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


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
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--window-size=1280,900", "--disable-dev-shm-usage", "--disable-gpu",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
