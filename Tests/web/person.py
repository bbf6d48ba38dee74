"""A person at the browser: what the end-to-end tests do with the pages.

Every step goes through the page as a person would: typing into the fields
a person sees, clicking the buttons, reading the messages. The only outside
help is what a person would have: an authenticator app (pyotp, set up from
the QR code on the screen, read with zbarimg) and a phone (the development
outbox page).
"""

from __future__ import annotations

import base64
import pathlib
import re
import subprocess
import time

import pyotp
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS

WAIT = 20


class Person:
    """One person with one browser, signing in to the application at ``base``."""

    def __init__(self, driver: WebDriver, base: str, label: str) -> None:
        self.driver = driver
        self.base = base
        self.label = label
        self.email = ""
        self.password = "correct horse battery staple"
        self.app: pyotp.TOTP | None = None
        self.last_step = 0
        self.phone = ""

    # --- pages -------------------------------------------------------------------------

    def open(self, path: str) -> None:
        """Go to a page of the application."""
        self.driver.get(self.base + path)
        self.wait_loaded()

    @property
    def path(self) -> str:
        """The path of the current page."""
        url = self.driver.current_url
        return url[len(self.base):] if url.startswith(self.base) else url

    def wait_loaded(self) -> None:
        WebDriverWait(self.driver, WAIT).until(
            lambda driver: driver.execute_script("return document.readyState") == "complete")

    def find(self, selector: str):
        """The element matching a CSS selector."""
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str):
        """Every element matching a CSS selector."""
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def type(self, selector: str, text: str) -> None:
        """Clear a field and type into it."""
        field = self.find(selector)
        field.clear()
        field.send_keys(text)

    def click(self, selector: str) -> None:
        """Click something that loads another page, and wait for that page."""
        self.follow(self.find(selector))

    def follow(self, element) -> None:
        """Click an element that loads another page, and wait for that page."""
        self.driver.execute_script("window.__before_click = true;")
        element.click()

        def new_page(driver: WebDriver) -> bool:
            try:
                return bool(driver.execute_script(
                    "return window.__before_click === undefined && document.readyState === 'complete';"))
            except WebDriverException:  # the old document went away in the middle of the call
                return False

        WebDriverWait(self.driver, WAIT).until(new_page)

    def press(self, selector: str) -> None:
        """Click something that runs a script on this page (no new page is awaited)."""
        self.find(selector).click()

    def wait_for(self, selector: str):
        """The first element matching a CSS selector once one is displayed."""
        def shown(driver: WebDriver):
            return next((element for element in driver.find_elements(By.CSS_SELECTOR, selector)
                         if element.is_displayed()), False)

        return WebDriverWait(self.driver, WAIT).until(shown)

    def flashes(self, category: str = "") -> list[str]:
        """The messages shown at the top of the page (of one category: error, success, ...)."""
        return [element.text for element in self.all(".flash" + ("." + category if category else ""))
                if element.is_displayed()]

    def text(self) -> str:
        """The visible text of the page."""
        return self.find("body").text

    def screenshot(self, name: str) -> pathlib.Path:
        """Save the page as a PNG in the test artifacts; its path."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / ("%s-%s.png" % (self.label, name))
        width, height = self.driver.execute_script(
            "return [document.documentElement.clientWidth,"
            " Math.ceil(document.querySelector('footer').getBoundingClientRect().bottom + window.scrollY) + 16];")
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    # --- accounts ----------------------------------------------------------------------

    def sign_up(self, email: str) -> None:
        self.email = email
        self.open("/signup")
        self.type("#email", email)
        self.type("#password", self.password)
        self.click("#submit")

    def verify_email(self) -> None:
        """Open the outbox and click the verification link of this person's email."""
        self.open("/dev/outbox")
        rows = [row for row in self.all("#mail tbody tr") if row.find_element(By.CSS_SELECTOR, ".to").text == self.email]
        assert rows, self.text()
        self.follow(rows[0].find_element(By.CSS_SELECTOR, ".verify-link"))

    def sign_in_password(self) -> None:
        """The first step of signing in (lands on the hint chooser, or the account page).

        When the chooser starts a security key's prompt by itself (the key
        signed in with last time), this waits for the prompt to end.
        """
        self.open("/signin")
        self.type("#email", self.email)
        self.type("#password", self.password)
        self.click("#submit")
        self.after_auto_key()

    def after_auto_key(self) -> None:
        """Wait until a security key prompt the page started by itself has ended: a new page, or a refusal shown."""
        def settled(driver: WebDriver) -> bool:
            try:
                state = driver.execute_script(
                    "return document.readyState !== 'complete' ? 'loading'"
                    " : (document.body.dataset.webauthnAuto || 'none');")
            except WebDriverException:  # the page is changing under the script
                return False
            return state in ("none", "failed")

        WebDriverWait(self.driver, WAIT).until(settled)

    def sign_out(self) -> None:
        self.click("#sign-out")

    def choose(self, factor_id: str) -> None:
        """Pick the first hint of a kind in the hint chooser (recovery codes: the way out below the hints)."""
        if factor_id == "recovery" and not self.all('#hints a[data-factor="recovery"]'):
            self.click("#use-recovery-code")
            return
        self.click('#hints a[data-factor="%s"]' % factor_id)

    def enter_code(self, code: str) -> None:
        self.type("#code", code)
        self.click("#submit")

    # --- the authenticator app -----------------------------------------------------------

    def scan_qr_code(self, screenshot: pathlib.Path) -> str:
        """Read the otpauth URI of the QR code in a screenshot (zbarimg) and set up the app with it."""
        output = subprocess.run(["zbarimg", "--quiet", "--raw", str(screenshot)], check=True,
                                capture_output=True, text=True).stdout.strip()
        self.app = pyotp.parse_uri(output)
        return output

    def next_code(self) -> str:
        """The code of the next time step no code has been used for (the app shows it now or within 30 s).

        libmfa accepts each time step once, and steps up to
        ``adjacentIntervals`` (5) away from now: a person who signs in twice
        within 30 s waits for the next code; this takes it early instead.
        """
        assert self.app is not None
        now_step = int(time.time()) // 30
        step = max(self.last_step + 1, now_step)
        if step > now_step + 4:
            time.sleep((step - 4) * 30 - time.time() + 1)
        self.last_step = step
        return self.app.at(step * 30)

    def wrong_code(self) -> str:
        """A code that matches no time step near now."""
        assert self.app is not None
        now_step = int(time.time()) // 30
        near = {self.app.at((now_step + offset) * 30) for offset in range(-8, 9)}
        candidate = 123456
        while "%06d" % candidate in near:
            candidate = (candidate * 7 + 1) % 1000000
        return "%06d" % candidate

    # --- the phone -----------------------------------------------------------------------

    def sms_count(self) -> int:
        """How many text messages the outbox holds for this person's phone."""
        return len(self._outbox_messages())

    def read_sms(self, before: int) -> str:
        """Open the outbox in a new tab, read the newest code sent to the phone (after ``before`` messages)."""
        messages = self._outbox_messages()
        assert len(messages) > before, "no new text message for %s" % self.phone
        found = re.search(r"\b(\d{6})\b", messages[0])
        assert found, messages[0]
        return found.group(1)

    def _outbox_messages(self) -> list[str]:
        original = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        try:
            self.open("/dev/outbox")
            return [row.find_element(By.CSS_SELECTOR, ".message").text for row in self.all("#sms tbody tr")
                    if row.find_element(By.CSS_SELECTOR, ".to").text == self.phone]
        finally:
            self.driver.close()
            self.driver.switch_to.window(original)

    # --- cookies -------------------------------------------------------------------------

    def session_cookie(self) -> dict:
        """The session cookie of this browser (to come back with it later)."""
        cookies = [cookie for cookie in self.driver.get_cookies() if cookie["name"].endswith("mfa_session")]
        assert len(cookies) == 1, cookies
        return cookies[0]

    def use_session_cookie(self, cookie: dict | None) -> None:
        """Replace the browser's cookies by ``cookie`` (None: no cookie at all)."""
        self.driver.delete_all_cookies()
        if cookie is not None:
            self.driver.add_cookie({key: cookie[key] for key in ("name", "value", "path", "httpOnly")})
