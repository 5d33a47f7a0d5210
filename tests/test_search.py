"""Site search (kb.site.search): Pagefind's bundles, searched in headless Chromium through
``kb serve`` on the demo and on a real MTGJSON set, and kept safe when indexing fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CHROMEDRIVER, CHROMIUM, FLAGS
from realdata import DATA, realdata
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from kb import schema as tables
from kb.edits import set_card_name
from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import BY_CODE
from kb.site import SearchIndexError
from kb.site.build import BuildOptions, build
from kb.site.data import load_card_entries, load_cards, load_index
from kb.site.search import ENTRY, FOLDER, card_page

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="chromium and chromedriver are not installed (Debian: apt-get install chromium "
    "chromium-driver)",
)
REAL_SET = "KHM.json.gz"
"""Kaldheim: 400 cards with their names in every language, and shared rulings."""


class Site:
    """A built site served by ``kb serve``, searched from its pages in one browser."""

    def __init__(self, out: Path, driver: Any, address: str) -> None:
        self.out = out
        self.driver = driver
        self.address = address

    def search(self, page: str, query: str) -> list[tuple[str, str]]:
        """Type ``query`` into the box of ``page``: each result's (path, text shown)."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.get(f"{self.address}{page}")
        box = self.driver.find_element(By.CSS_SELECTOR, "form.site-search input")
        box.send_keys(query)
        WebDriverWait(self.driver, 20).until(
            lambda driver: (
                driver.execute_script(
                    "return document.querySelector('form.site-search').dataset.done"
                )
                == query
            )
        )
        return [
            (
                item.find_element(By.TAG_NAME, "a").get_attribute("href")[len(self.address) :],
                item.text,
            )
            for item in self.driver.find_elements(By.CSS_SELECTOR, ".search-results li")
        ]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("profile")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(
        options=options, service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    )
    yield browser
    browser.quit()


def _served(out: Path) -> Iterator[str]:
    """``kb serve`` on a free port, for as long as the caller needs it; its address."""
    server = subprocess.Popen(
        [sys.executable, "-m", "kb", "serve", "--out", str(out), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"on (http://127\.0\.0\.1:[0-9]+/)", line)
        assert found, line
        yield found[1]
    finally:
        server.terminate()
        server.wait(timeout=10)


def _store(tmp_path: Path, migrated_sqlite: Path, *inputs: Path) -> Engine:
    store = tmp_path / "kb.sqlite"
    store.write_bytes(migrated_sqlite.read_bytes())
    engine = make_engine(f"sqlite:///{store}")
    run_import(engine, list(inputs))
    return engine


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path, driver: Any
) -> Iterator[Site]:
    engine = _store(tmp_path_factory.mktemp("demo"), migrated_sqlite, DATA)
    out = build(engine, tmp_path_factory.mktemp("demo-site") / "site").out
    engine.dispose()
    for address in _served(out):
        yield Site(out, driver, address)


@needs_chromium
def test_a_german_name_on_a_german_page_gives_its_german_page_first(demo: Site) -> None:
    results = demo.search("de/cards/caught-in-the-crossfire.html", "Drei Schritte voraus")
    assert results[0] == (
        "de/cards/three-steps-ahead.html",
        "Drei Schritte voraus\nThree Steps Ahead",
    )


@needs_chromium
def test_an_english_name_on_a_japanese_page_gives_the_japanese_page(demo: Site) -> None:
    results = demo.search("ja/index.html", "Three Steps Ahead")
    assert results[0] == ("ja/cards/three-steps-ahead.html", "三歩先\nThree Steps Ahead")


@needs_chromium
def test_a_ruling_phrase_finds_the_cards_that_share_the_ruling(demo: Site) -> None:
    # "... serve only to remind players that the listed costs are additional costs." stands
    # on both Spree cards of the demo.
    results = demo.search("it/index.html", "remind players listed costs")
    assert sorted(path for path, _text in results) == [
        "it/cards/caught-in-the-crossfire.html",
        "it/cards/three-steps-ahead.html",
    ]


@needs_chromium
def test_a_mechanic_is_found_by_its_localized_name(demo: Site) -> None:
    assert demo.search("de/index.html", "Exzess")[0] == ("de/mechanics/spree.html", "Exzess\nSpree")
    assert demo.search("de/index.html", "Spree")[0] == ("de/mechanics/spree.html", "Exzess\nSpree")


def test_a_cards_lean_page_holds_its_mechanics_in_the_locale(demo_store: Engine) -> None:
    """Pagefind indexes a card's page by its mechanics' names too (no browser needed)."""
    with demo_store.connect() as connection:
        index = load_index(connection)
        cards = load_cards(connection, index.cards, index.mechanics)
    [card] = [card for card in cards if card.name == "Three Steps Ahead"]
    assert card_page(card, BY_CODE["de"]).endswith("<p>Exzess</p></body></html>")
    assert card_page(card, BY_CODE["en"]).endswith("<p>Spree</p></body></html>")


@needs_chromium
def test_a_typo_or_missing_accents_still_find_the_card(demo: Site) -> None:
    # Pagefind 1.5 folds diacritics and tolerates a letter left out of a word (or more: it
    # finds "xylophonically" in the demo, a word it deems close); nonsense finds nothing.
    assert demo.search("pt-br/index.html", "Tres Passos")[0][0] == (
        "pt-br/cards/three-steps-ahead.html"
    )
    assert demo.search("de/index.html", "Schrite")[0][0] == "de/cards/three-steps-ahead.html"
    assert (
        demo.search("de/index.html", "Kreuzfeur")[0][0] == "de/cards/caught-in-the-crossfire.html"
    )
    assert demo.search("de/index.html", "qqqqqq") == []
    assert demo.driver.find_element("css selector", ".search-status").text == "Nichts gefunden."


@needs_chromium
def test_the_box_searches_on_the_page_s_thread_with_short_fragment_names(demo: Site) -> None:
    demo.search("fr/index.html", "Trois")
    # A worker's fetches would not be among the page's own.
    fetched = demo.driver.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)"
    )
    bundle = f"{demo.address}fr/{FOLDER}/"
    assert sum(name.startswith(bundle) and name.endswith(".pf_meta") for name in fetched) == 1
    fragments = [name[len(bundle) :] for name in fetched if name.startswith(f"{bundle}fragment/")]
    assert fragments
    for fragment in fragments:
        assert re.fullmatch(r"fragment/fr_[0-9a-f]+_[0-9a-z]{1,2}\.pf_fragment", fragment)
    assert not (demo.out / "fr" / FOLDER / "pagefind-worker.js").exists()


@needs_chromium
def test_from_a_folder_the_box_says_search_needs_the_site_served(demo: Site) -> None:
    demo.driver.get((demo.out / "fr/index.html").as_uri())
    status = demo.driver.find_element("css selector", ".search-status")
    assert status.text == (
        "La recherche a besoin que le site soit servi : kb serve, ou n’importe quel hébergeur web."
    )


def test_without_javascript_the_box_is_hidden_and_leads_to_the_a_z_page(tmp_path: Path) -> None:
    page = (Path(__file__).parent / "expected" / "de-three-steps-ahead.html").read_text("utf-8")
    form = re.search(r"<form class=\"site-search\"[^>]*>", page)
    assert form is not None
    assert " hidden " in form[0] and 'action="../../de/cards/index.html"' in form[0]
    assert '<script src="../../static/search.js" defer></script>' in page
    assert "http" not in form[0]  # nothing from elsewhere


@needs_chromium
@pytest.mark.realdata
def test_real_cards_are_found_by_name_and_ruling(
    tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path, driver: Any
) -> None:
    engine = _store(
        tmp_path_factory.mktemp("real"),
        migrated_sqlite,
        realdata(f"mtgjson-sets-2022-05/{REAL_SET}"),
    )
    german, english, ruling_words, sharing = _real_examples(engine)
    out = build(engine, tmp_path_factory.mktemp("real-site") / "site", BuildOptions(jobs=2)).out
    engine.dispose()
    for address in _served(out):
        site = Site(out, driver, address)
        slug = german[0]
        assert site.search("de/index.html", german[1])[0][0] == f"de/cards/{slug}.html"
        assert site.search("ja/index.html", english)[0][0] == f"ja/cards/{slug}.html"
        found = {path for path, _text in site.search("en/index.html", ruling_words)}
        assert {f"en/cards/{card}.html" for card in sharing} <= found


def _real_examples(engine: Engine) -> tuple[tuple[str, str], str, str, list[str]]:
    """A card's (slug, German name) and English name, differing; and a ruling shared by
    several cards: some of its words, and its cards' slugs."""
    with engine.connect() as connection:
        slugs = {card.id: card.slug for card in load_card_entries(connection)}
        card_id, german, english = connection.execute(
            select(tables.cards.c.id, tables.card_names.c.name, tables.cards.c.name)
            .join(tables.card_names, tables.card_names.c.card_id == tables.cards.c.id)
            .where(
                tables.card_names.c.locale == "de",
                tables.card_names.c.name != tables.cards.c.name,
            )
            .order_by(tables.cards.c.name)
            .limit(1)
        ).one()
        ruling_id, text = connection.execute(
            select(tables.rulings.c.id, tables.rulings.c.text)
            .join(tables.card_rulings, tables.card_rulings.c.ruling_id == tables.rulings.c.id)
            .group_by(tables.rulings.c.id, tables.rulings.c.text)
            .having(func.count().between(2, 4))  # the box shows ten results
            .order_by(func.length(tables.rulings.c.text).desc(), tables.rulings.c.id)
            .limit(1)
        ).one()
        sharing = connection.execute(
            select(tables.card_rulings.c.card_id).where(
                tables.card_rulings.c.ruling_id == ruling_id
            )
        ).scalars()
        shared = sorted(slugs[card] for card in sharing)
    words = " ".join(re.findall(r"[A-Za-z]{6,}", text)[:4])
    return (slugs[card_id], german), english, words, shared


def test_an_incremental_build_indexes_again_only_the_locales_that_changed(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    engine = _store(tmp_path, migrated_sqlite, DATA)
    out = tmp_path / "site"
    assert build(engine, out).indexed == tuple(BY_CODE.values())
    before = {
        folder.name: (folder / FOLDER / ENTRY).stat().st_ino
        for folder in out.iterdir()
        if (folder / FOLDER).is_dir()
    }
    assert len(before) == 11
    assert build(engine, out).indexed == ()
    set_card_name(engine, "ann", "Three Steps Ahead", "de", "Drei Schritte weiter")
    assert build(engine, out).indexed == (BY_CODE["de"],)
    after = {folder: (out / folder / FOLDER / ENTRY).stat().st_ino for folder in before}
    assert [folder for folder in before if before[folder] != after[folder]] == ["de"]
    engine.dispose()


def test_a_build_that_fails_while_indexing_leaves_the_old_site_and_index(
    tmp_path: Path, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _store(tmp_path, migrated_sqlite, DATA)
    out = tmp_path / "site"
    build(engine, out)
    old = _files(out)
    set_card_name(engine, "ann", "Three Steps Ahead", "de", "Drei Schritte weiter")
    broken = tmp_path / "pagefind"
    broken.write_text("#!/bin/sh\necho 'no index today' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(broken))
    for full in (False, True):
        with pytest.raises(SearchIndexError, match=r"^search index: pagefind stopped$"):
            build(engine, out, BuildOptions(full=full))
        assert _files(out) == old
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".site")] == []
    monkeypatch.delenv("PAGEFIND_BINARY_PATH")
    assert build(engine, out).indexed == (BY_CODE["de"],)
    assert "Drei Schritte weiter" in (out / "de/cards/three-steps-ahead.html").read_text("utf-8")
    engine.dispose()


@pytest.mark.parametrize("what", ["missing", "not a program"])
def test_a_pagefind_binary_that_cannot_run_is_one_line(
    tmp_path: Path, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    from click.testing import CliRunner

    from kb.cli import cli

    engine = _store(tmp_path, migrated_sqlite, DATA)
    engine.dispose()
    binary = tmp_path / "bin" / "pagefind"
    if what == "not a program":
        binary.parent.mkdir()
        binary.write_text("no program\n")  # not executable
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(binary))
    args = ["--db", f"sqlite:///{tmp_path / 'kb.sqlite'}", "build", "--out", str(tmp_path / "s")]
    failed = CliRunner().invoke(cli, args)
    reason = "No such file or directory" if what == "missing" else "Permission denied"
    assert (failed.exit_code, failed.output) == (
        1,
        f"kb: error: search index: cannot run pagefind {binary}: {reason}"
        " (PAGEFIND_BINARY_PATH, or pip install 'pagefind[extended]')\n",
    )
    assert not (tmp_path / "s").exists()


def _files(folder: Path) -> dict[str, bytes]:
    return {
        os.path.relpath(path, folder): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_kb_build_says_in_one_line_that_indexing_failed(
    tmp_path: Path, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from kb.cli import cli

    engine = _store(tmp_path, migrated_sqlite, DATA)
    engine.dispose()
    args = ["--db", f"sqlite:///{tmp_path / 'kb.sqlite'}", "build", "--out", str(tmp_path / "s")]
    pages_alone = CliRunner().invoke(cli, [*args, "--no-search"])
    assert pages_alone.exit_code == 0, pages_alone.output
    assert not (tmp_path / "s" / "de" / FOLDER).exists()
    broken = tmp_path / "pagefind"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(broken))
    failed = CliRunner().invoke(cli, args)
    assert (failed.exit_code, failed.output) == (1, "kb: error: search index: pagefind stopped\n")
    assert not (tmp_path / "s" / "de" / FOLDER).exists()
