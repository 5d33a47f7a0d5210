"""The German page of Three Steps Ahead in headless Chromium, as a reader on a phone sees it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CHROMEDRIVER, CHROMIUM
from realdata import DATA

from kb.engine import make_engine
from kb.importing import run_import
from kb.site.build import build

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="chromium and chromedriver are not installed (Debian: apt-get install chromium "
    "chromium-driver)",
)
PHONE_WIDTH = 375


def test_german_page_in_a_phone_browser(browser: object, tmp_path: Path, sqlite_url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    site = build(engine, tmp_path / "site").out
    engine.dispose()

    browser.set_window_size(PHONE_WIDTH, 812)
    browser.get((site / "de/cards/three-steps-ahead.html").as_uri())
    assert browser.title == "Drei Schritte voraus"
    dates = [element.text for element in browser.find_elements(By.TAG_NAME, "time")]
    assert dates == ["12.04.2024"] * 18
    viewport = browser.execute_script("return document.documentElement.clientWidth")
    content = browser.execute_script("return document.documentElement.scrollWidth")
    assert content <= viewport <= PHONE_WIDTH, "the page overflows a phone screen"
    browser.save_screenshot(str(tmp_path / "de-phone.png"))

    browser.find_element(By.CSS_SELECTOR, "nav.languages a[hreflang='it']").click()
    assert browser.current_url.endswith("/it/cards/three-steps-ahead.html")
    assert browser.title == "Tre Passi Avanti"
    browser.save_screenshot(str(tmp_path / "it-phone.png"))


def test_a_to_z_section_in_a_phone_browser(
    browser: object, tmp_path: Path, sqlite_url: str
) -> None:
    """From the German A–Z page to a section's page, and on to a card, on a phone's screen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    site = build(engine, tmp_path / "site").out
    engine.dispose()

    def fits() -> bool:
        viewport = browser.execute_script("return document.documentElement.clientWidth")
        content = browser.execute_script("return document.documentElement.scrollWidth")
        return bool(content <= viewport <= PHONE_WIDTH)

    browser.set_window_size(PHONE_WIDTH, 812)
    browser.get((site / "de/cards/index.html").as_uri())
    assert browser.title == "Karten A–Z"
    letters = [link.text for link in browser.find_elements(By.CSS_SELECTOR, "nav.letters a")]
    assert letters == ["D", "I"]
    assert fits(), "the A–Z page overflows a phone screen"
    browser.find_element(By.LINK_TEXT, "D").click()
    assert browser.current_url.endswith("/de/a-z/4.html")
    assert browser.title == "D · Karten A–Z"
    assert browser.find_element(By.TAG_NAME, "h1").text == "D"
    assert fits(), "the section's page overflows a phone screen"
    browser.save_screenshot(str(tmp_path / "de-a-z-d.png"))
    browser.find_element(By.CSS_SELECTOR, "nav.neighbours a[rel='next']").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "I"
    browser.find_element(By.CSS_SELECTOR, "nav.neighbours a[rel='prev']").click()
    browser.find_element(By.LINK_TEXT, "Drei Schritte voraus").click()
    assert browser.title == "Drei Schritte voraus"
