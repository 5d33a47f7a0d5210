"""kb datasette for real: the server started as an editor starts it, on a free port, and used in
headless Chromium (Debian's chromium and chromedriver, as tests/test_browser.py drives them)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import CHROMEDRIVER, CHROMIUM, run_kb, snapshot
from realdata import DATA

from kb.engine import make_engine
from kb.importing import run_import

pytest.importorskip("datasette", reason="Datasette is not installed: pip install -e '.[web]'")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="chromium and chromedriver are not installed (Debian: apt-get install chromium "
    "chromium-driver)",
)
STARTUP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def store(sqlite_url: str) -> str:
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    engine.dispose()
    return sqlite_url


@pytest.fixture
def server(store: str, tmp_path: Path) -> Iterator[str]:
    """``kb datasette`` in its own process; yields its base URL (http://127.0.0.1:PORT/kb).
    Its console (stderr) is left in tmp_path/server.log."""
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "kb", "--db", store, "datasette", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        path = store.removeprefix("sqlite:///")
        base = f"http://127.0.0.1:{port}/kb"
        assert line == f"serving {path} read-only on {base} (Ctrl-C stops)\n"
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{base}.json", timeout=5) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert process.poll() is None, (tmp_path / "server.log").read_text()
                assert time.monotonic() < deadline, "kb datasette did not answer in time"
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def test_an_editor_runs_a_saved_query_sees_descriptions_and_cannot_write(
    server: str, browser: object, store: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.wait import WebDriverWait

    assert isinstance(browser, WebDriver)
    engine = make_engine(store)
    before = snapshot(engine)

    # The saved query, its header's title and description, its parameters as a form.
    browser.get(f"{server}/missing_names")
    assert browser.find_element(By.TAG_NAME, "h1").text == (
        "Cards of a mechanic missing a name in a locale"
    )
    assert browser.find_element(By.CSS_SELECTOR, ".metadata-description").text == (
        "Cards tagged with the mechanic that have no printed name in the locale yet. "
        "Parameters: mechanic: mechanic slug, e.g. spree; locale: locale code, e.g. it."
    )
    browser.find_element(By.NAME, "mechanic").send_keys("spree")
    browser.find_element(By.NAME, "locale").send_keys("ko")
    browser.find_element(By.CSS_SELECTOR, "form.sql input[type=submit]").click()
    # The click only starts the navigation: on a loaded machine the old page is still shown.
    answer = f"{server}/missing_names?mechanic=spree&locale=ko"
    WebDriverWait(browser, STARTUP_SECONDS).until(lambda shown: shown.current_url == answer)
    cells = browser.find_elements(By.CSS_SELECTOR, "table.rows-and-columns tbody td.col-card")
    assert [cell.text for cell in cells] == ["Caught in the Crossfire", "Three Steps Ahead"]
    browser.save_screenshot(str(tmp_path / "missing_names.png"))

    # A write through the SQL box: Datasette's own check refuses a statement that is not a
    # query; a WITH that writes passes that check, and the read-only connection refuses it.
    browser.get(f"{server}?sql={quote('DELETE FROM cards')}")
    assert "Statement must be a SELECT" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(f"{server}?sql={quote('WITH x AS (SELECT 1) UPDATE cards SET name = 1')}")
    error = browser.find_element(By.CSS_SELECTOR, ".message-error")
    assert error.text == "attempt to write a readonly database"
    assert snapshot(engine) == before
    engine.dispose()

    # The schema's comments: a table's and its columns', and the views with theirs.
    browser.get(f"{server}/cards")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "One Oracle card, whatever its printings and languages." in body
    heading = browser.find_element(By.CSS_SELECTOR, "th.col-name")
    assert heading.get_attribute("data-column-description") == "English name."
    browser.get(server)
    views = browser.find_elements(By.CSS_SELECTOR, "#views + ul a")
    assert sorted(view.text for view in views) == [
        "card_rulings_view",
        "names_view",
        "near_duplicates_view",
        "printed_texts_view",
        "ruling_cards_view",
    ]
    assert "alembic_version" not in browser.find_element(By.TAG_NAME, "body").text
    browser.get(f"{server}/names_view")
    assert "A card's name in every locale" in browser.find_element(By.TAG_NAME, "body").text

    # The console tells of the refused write in a line, without Datasette's traceback.
    console = (tmp_path / "server.log").read_text()
    assert "attempt to write a readonly database" in console
    assert "Traceback" not in console


def test_an_edit_made_while_serving_shows_at_once(server: str, store: str) -> None:
    """Read-only is not immutable: kb edit writes (switching the store to WAL on its first
    edit) while Datasette reads, and the next answer has the change."""
    url = f"{server}/missing_names.json?mechanic=spree&locale=ko&_shape=array"

    def missing() -> list[str]:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return [row["card"] for row in json.load(answer)]

    assert missing() == ["Caught in the Crossfire", "Three Steps Ahead"]
    for card, name in (
        ("Three Steps Ahead", "세 발짝 앞서"),
        ("Caught in the Crossfire", "교차 사격"),
    ):
        edited = run_kb(store, "edit", "card-name", card, "ko", name, "--editor", "ann")
        assert edited.exit_code == 0, edited.output
        assert card not in missing()
    assert missing() == []
