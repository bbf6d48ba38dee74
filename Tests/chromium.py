"""Headless Chromium under selenium, as the browser suites drive it (Tests/web, Tests/docs).

Debian's chromium and chromium-driver (scripts/setup.sh installs them);
``--no-sandbox`` when running as root, where Chromium's sandbox refuses to run.
"""

from __future__ import annotations

import os

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def headless(width: int, height: int):
    """A new headless Chromium with a window of ``width`` x ``height``; quit() it when done."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--window-size=%d,%d" % (width, height), "--disable-dev-shm-usage",
                     "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    return driver
