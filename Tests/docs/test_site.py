"""The documentation site as a reader meets it: the home page and a guide in
headless Chromium (navigation, tables, highlighted code, images, search),
the API references behind its links, and the README's links into it.

Screenshots of both pages go to build/docs-artifacts/ (home.png, guide-pam.png).
"""

from __future__ import annotations

import re
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS, REPO

#: The top-level sections of mkdocs.yml's navigation, in order.
SECTIONS = ["Home", "Getting started", "Concepts", "Factors", "Guides", "Security model and defaults",
            "Availability under attack", "Performance", "Scaling and sizing", "Troubleshooting", "Reference"]


def open_page(browser, url):
    """Load ``url`` and wait until Material's script has set the page up."""
    browser.get(url)
    WebDriverWait(browser, 20).until(
        lambda driver: driver.execute_script("return document.readyState") == "complete"
        and driver.find_elements(By.CSS_SELECTOR, "nav.md-nav--primary"))


def screenshot(browser, name):
    """Save the whole page, as tall as it is (at most 9,000 pixels), as
    build/docs-artifacts/NAME.png; its path. The window is a laptop's again after."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / ("%s.png" % name)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(max(height, 900), 9000))
    try:
        browser.save_screenshot(str(path))
    finally:
        browser.set_window_size(1280, 900)
    return path


def nav_titles(browser):
    """The titles of the primary navigation's top level, as rendered."""
    items = browser.find_elements(By.CSS_SELECTOR, "nav.md-nav--primary > ul.md-nav__list > li.md-nav__item")
    return [item.get_attribute("textContent").strip().split("\n")[0].strip() for item in items]


def test_home_page(browser, served):
    open_page(browser, served + "/")
    assert screenshot(browser, "home").stat().st_size > 10_000
    assert browser.title.startswith("libmfa")
    assert browser.find_element(By.TAG_NAME, "h1").text == "libmfa"
    assert nav_titles(browser) == SECTIONS
    # The factor table is a table, with its five kinds, the hardware tokens and remembered devices as rows.
    tables = browser.find_elements(By.CSS_SELECTOR, "article table")
    factors = next(table for table in tables if "factor kind" in table.text)
    assert len(factors.find_elements(By.CSS_SELECTOR, "tbody tr")) == 7
    # The screenshot of the web example is there and loaded.
    image = browser.find_element(By.CSS_SELECTOR, "article img[src*='web-second-factor']")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) > 0
    # The two commands are a highlighted code block with a copy button.
    code = browser.find_element(By.CSS_SELECTOR, "article .highlight code")
    assert "./scripts/test.sh" in code.text
    assert browser.find_elements(By.CSS_SELECTOR, "article .highlight [data-md-type='copy']")


def test_guide_page(browser, served):
    open_page(browser, served + "/guides/pam/")
    assert screenshot(browser, "guide-pam").stat().st_size > 10_000
    assert browser.find_element(By.TAG_NAME, "h1").text == "PAM and sshd"
    # The guide's own table of contents lists its sections.
    toc = browser.find_element(By.CSS_SELECTOR, "nav.md-nav--secondary").get_attribute("textContent")
    for section in ("Install", "Enroll a user", "The PAM lines", "A store shared by several servers"):
        assert section in toc
    # Code blocks are highlighted; the options table is a table.
    assert len(browser.find_elements(By.CSS_SELECTOR, "article .highlight")) >= 5
    options = next(table for table in browser.find_elements(By.CSS_SELECTOR, "article table")
                   if "forward_pass" in table.text)
    assert options.find_element(By.CSS_SELECTOR, "thead").text.split() == ["option", "meaning"]
    # The page is the active entry of the navigation, under Guides.
    active = browser.find_element(By.CSS_SELECTOR, "nav.md-nav--primary .md-nav__link--active")
    assert active.get_attribute("textContent").strip() == "PAM and sshd"


def test_search_finds_a_page(browser, served):
    open_page(browser, served + "/")
    box = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    box.click()
    box.send_keys("backoff")  # results appear as one types (Enter would open the first)
    WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, ".md-search-result__item"))
    results = " ".join(item.get_attribute("textContent")
                       for item in browser.find_elements(By.CSS_SELECTOR, ".md-search-result__item"))
    assert "The resolver" in results


@pytest.mark.parametrize("path, text", [
    ("/api/c/index.html", "libmfa C API"),
    ("/api/python/libmfa.html", "TOTPMultiFactorGenerator"),
    ("/api/swift/data/documentation/mfa.json", "MFAContext"),
])
def test_api_references_are_part_of_the_site(served, path, text):
    with urllib.request.urlopen(served + path, timeout=10) as response:
        assert response.status == 200
        assert text in response.read().decode("utf-8", "replace")


def test_the_swift_reference_renders_under_the_site(browser, served):
    """DocC's pages are a script-driven site of their own: served under api/swift/ they must find their scripts."""
    browser.get(served + "/api/swift/documentation/mfa/")
    WebDriverWait(browser, 20).until(lambda driver: driver.find_elements(By.CSS_SELECTOR, "main h1"))
    assert browser.find_element(By.CSS_SELECTOR, "main h1").text == "MFA"
    assert "MFAContext" in browser.find_element(By.TAG_NAME, "main").text


def test_readme_links_resolve():
    """README.md is read where the repository is hosted: its relative links must name files that exist."""
    readme = (REPO / "README.md").read_text()
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    relative = [link for link in links if "://" not in link]
    assert relative, "README.md links to no page of docs/"
    missing = [link for link in relative if not (REPO / link).exists()]
    assert not missing, "README.md links to files that do not exist: %s" % missing


def test_readme_stays_a_front_door():
    """Details go to a page of the site, not into the README (issue 46: about 250 lines)."""
    lines = len((REPO / "README.md").read_text().splitlines())
    assert lines <= 300, "README.md has %d lines: move details to a page under docs/" % lines
