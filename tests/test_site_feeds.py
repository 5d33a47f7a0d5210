"""Each locale's Atom feed and recent changes page: valid Atom read by a real feed parser
(feedparser), stable ids, the same bytes from the same store, links to built pages, new
entries after an import or an edit (in a new build and in a build that keeps running)."""

from __future__ import annotations

import json
import queue
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import feedparser
import html5lib
import pytest
from conftest import scryfall_ruling
from markupsafe import Markup
from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from kb import edits, schema
from kb.importing import run_import
from kb.locales import LOCALES
from kb.site.build import BuildOptions, BuildResult, WatchState, build
from kb.site.changes import FEED_LENGTH, recent_changes
from kb.site.data import load_index
from kb.site.feed import KeptEntries
from kb.site.views import ChangeView
from kb.site.watch import watch

ATOM = "{http://www.w3.org/2005/Atom}"
PUBLISHED = "https://rulings.example.org/kb/"
THREE_STEPS_AHEAD = "282dfeaa-6243-4f92-838a-5cb54fa85184"
SPREE_MODES = "You can’t choose the same mode more than once."


@pytest.fixture(scope="module")
def published_site(demo_engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Path:
    options = BuildOptions(base_url=PUBLISHED)
    return build(demo_engine, tmp_path_factory.mktemp("published") / "site", options).out


def _parsed(site: Path, folder: str) -> Any:
    parsed = feedparser.parse((site / folder / "feed.atom").read_bytes())
    assert parsed.bozo == 0, f"{folder}: {parsed.get('bozo_exception')}"
    assert parsed.version == "atom10"
    return parsed


def _ids(site: Path, folder: str) -> list[str]:
    return [entry.id for entry in _parsed(site, folder).entries]


@pytest.mark.parametrize("locale", LOCALES, ids=lambda locale: locale.code)
def test_every_locales_feed_is_valid_atom(demo_site: Path, locale: Any) -> None:
    parsed = _parsed(demo_site, locale.folder)
    # 21 rulings; the 12 Spree rulings stand on both seed pages, each page its own source.
    assert len(parsed.entries) == 33
    assert parsed.feed.language == locale.code
    root = ET.parse(demo_site / locale.folder / "feed.atom").getroot()
    assert root.tag == f"{ATOM}feed"
    for entry in root.iter(f"{ATOM}entry"):
        for required in ("id", "title", "updated", "content"):
            assert entry.find(f"{ATOM}{required}") is not None, required
        assert (
            len([link for link in entry.iter(f"{ATOM}link") if link.get("rel") == "alternate"]) == 1
        )
    ids = [entry.id for entry in parsed.entries]
    assert len(set(ids)) == len(ids) and all(id.startswith("urn:uuid:") for id in ids)
    times = [entry.updated_parsed for entry in parsed.entries]
    assert times == sorted(times, reverse=True)


def test_entries_speak_the_locale_and_link_its_pages(demo_site: Path) -> None:
    german = _parsed(demo_site, "de")
    assert german.feed.title == "Magic-Klarstellungen: Letzte Änderungen"
    titles = {entry.title for entry in german.entries}
    assert titles == {
        "Neue Klarstellung zu Drei Schritte voraus",
        "Neue Klarstellung zu Im Kreuzfeuer",
    }
    japanese = _parsed(demo_site, "ja")
    assert {entry.link for entry in japanese.entries} == {
        "cards/three-steps-ahead.html",
        "cards/caught-in-the-crossfire.html",
    }
    page = (demo_site / "de/changes.html").read_text("utf-8")
    assert "<h1>Letzte Änderungen</h1>" in page
    assert "<p>Veröffentlicht am 12.04.2024</p>" in page  # the locale's date format
    assert '<a href="cards/three-steps-ahead.html">Drei Schritte voraus</a>' in page
    home = (demo_site / "de/index.html").read_text("utf-8")
    assert '<a class="button" href="../de/changes.html">Letzte Änderungen</a>' in home


def test_every_link_of_a_feed_and_its_page_resolves(demo_site: Path, published_site: Path) -> None:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for locale in LOCALES:
        folder = demo_site / locale.folder
        for site, base in ((demo_site, ""), (published_site, f"{PUBLISHED}{locale.folder}/")):
            root = ET.parse(site / locale.folder / "feed.atom").getroot()
            hrefs = [link.get("href", "") for link in root.iter(f"{ATOM}link")]
            for entry in _parsed(site, locale.folder).entries:
                content = parser.parseFragment(entry.content[0].value)
                hrefs += [anchor.get("href") for anchor in content.iter("a")]
            assert hrefs and all(href.startswith(base) for href in hrefs)
            for href in hrefs:
                assert (folder / href.removeprefix(base)).is_file(), f"{locale.folder}: {href}"
        page = parser.parse((folder / "changes.html").read_bytes())
        for anchor in page.iter("a"):
            assert (folder / anchor.get("href")).resolve().is_file(), anchor.get("href")


def test_every_page_links_its_locales_feed(demo_site: Path, published_site: Path) -> None:
    for page in sorted(demo_site.rglob("*.html")):
        text = page.read_text("utf-8")
        if page.parent == demo_site:  # the root pages: the first language's
            assert 'type="application/atom+xml" title="Recent changes"' in text
            continue
        folder = page.relative_to(demo_site).parts[0]
        link = '<link rel="alternate" type="application/atom+xml" title="'
        assert link in text, page
        href = text.split(link, 1)[1].split('href="', 1)[1].split('"', 1)[0]
        assert (page.parent / href).resolve() == demo_site / folder / "feed.atom", page
    not_found = (published_site / "404.html").read_text("utf-8")
    assert f'href="{PUBLISHED}en/feed.atom"' in not_found


def test_the_same_store_gives_the_same_feeds(demo_store: Engine, tmp_path: Path) -> None:
    first = build(demo_store, tmp_path / "first").out
    second = build(demo_store, tmp_path / "second", BuildOptions(full=True)).out
    for locale in LOCALES:
        for name in ("feed.atom", "changes.html"):
            path = f"{locale.folder}/{name}"
            assert (first / path).read_bytes() == (second / path).read_bytes(), path
    # Ids name the change, not the address: a site published elsewhere keeps them.
    published = build(demo_store, tmp_path / "published", BuildOptions(base_url=PUBLISHED)).out
    assert _ids(published, "de") == _ids(first, "de")
    assert _ids(first, "de") != _ids(first, "it")  # each feed its own entries


def test_an_edit_adds_an_entry_and_an_incremental_build_shows_it(
    demo_store: Engine, tmp_path: Path
) -> None:
    out = build(demo_store, tmp_path / "site").out
    before = _ids(out, "de")
    ruling_id = _ruling_id(demo_store, SPREE_MODES)
    edits.set_ruling_text(demo_store, "ann", ruling_id, "You can't choose a mode twice.")
    result = build(demo_store, out)
    # Both Spree cards' pages, Spree's, and the feeds and recent changes pages.
    assert result.written == 2 * 11 + 11 + 2 * 11
    parsed = _parsed(out, "de")
    newest = parsed.entries[0]
    assert newest.title == "Klarstellung zu Drei Schritte voraus und 1 weiteren Karte geändert"
    assert "You can't choose a mode twice." in newest.content[0].value
    assert f"<del>{SPREE_MODES}</del>" in newest.content[0].value
    assert [entry.id for entry in parsed.entries[1:]] == before  # the others keep their ids
    assert len(parsed.entries) == 34
    assert "Klarstellung zu Drei Schritte voraus und 1 weiteren Karte geändert" in (
        out / "de/changes.html"
    ).read_text("utf-8")
    again = build(demo_store, out)
    assert again.written == 0  # nothing changed since: the feeds are not rewritten


def test_an_import_that_links_a_ruling_is_the_newest_entry(
    demo_store: Engine, tmp_path: Path
) -> None:
    out = build(demo_store, tmp_path / "site").out
    rulings = tmp_path / "rulings.json"
    new = "Three Steps Ahead's token copy is a copy of the permanent as it is now."
    rulings.write_text(
        json.dumps([scryfall_ruling(THREE_STEPS_AHEAD, comment=new, published_at="2024-05-01")])
    )
    run_import(demo_store, [rulings])
    build(demo_store, out)
    newest = _parsed(out, "it").entries[0]
    assert newest.title == "Nuovo chiarimento su Tre Passi Avanti"
    assert new in newest.content[0].value
    assert "Pubblicato il 1 mag 2024" in newest.content[0].value


def test_a_feed_holds_the_newest_changes_only(demo_store: Engine, tmp_path: Path) -> None:
    rulings = tmp_path / "rulings.json"
    many = [
        scryfall_ruling(THREE_STEPS_AHEAD, comment=f"Ruling number {number}.")
        for number in range(FEED_LENGTH + 5)
    ]
    rulings.write_text(json.dumps(many))
    run_import(demo_store, [rulings])
    out = build(demo_store, tmp_path / "site").out
    entries = _parsed(out, "en").entries
    assert len(entries) == FEED_LENGTH
    assert {entry.title for entry in entries} == {"New ruling on Three Steps Ahead"}
    with demo_store.connect() as connection:
        index = load_index(connection)
        every = recent_changes(connection, index, limit=1000).changes
        assert recent_changes(connection, index).changes == every[:FEED_LENGTH]
    assert len(every) == 33 + FEED_LENGTH + 5


def test_a_ruling_an_import_links_to_many_cards_is_one_change(
    demo_store: Engine, tmp_path: Path
) -> None:
    """One entry per ruling and import, however many cards it linked; the newest first (more
    of an import's links are read when its newest hold too few changes)."""
    with demo_store.begin() as connection:
        connection.execute(
            schema.cards.insert(),
            [{"name": f"Card {number}", "oracle_id": f"card-{number}"} for number in range(6)],
        )
    shared = "Each of these six cards has this ruling."
    rulings = [
        scryfall_ruling(f"card-{n}", comment=shared, published_at="2024-06-01") for n in range(6)
    ]
    rulings.append(scryfall_ruling("card-0", comment="An older ruling.", published_at="2024-05-01"))
    (tmp_path / "rulings.json").write_text(json.dumps(rulings))
    run_import(demo_store, [tmp_path / "rulings.json"])
    with demo_store.connect() as connection:
        changes = recent_changes(connection, load_index(connection), limit=2).changes
    assert [(change.text, len(change.cards)) for change in changes] == [
        (shared, 6),
        ("An older ruling.", 1),
    ]
    assert [card.name for card in changes[0].cards] == [f"Card {n}" for n in range(6)]


def test_a_store_without_changes_has_an_empty_valid_feed(engine: Engine, tmp_path: Path) -> None:
    out = build(engine, tmp_path / "site").out
    parsed = _parsed(out, "fr")
    assert parsed.entries == [] and parsed.feed.updated == "1970-01-01T00:00:00Z"
    assert "<p>Aucune modification pour l’instant.</p>" in (out / "fr/changes.html").read_text()


def test_a_ruling_on_many_cards_names_twenty(demo_store: Engine, tmp_path: Path) -> None:
    with demo_store.begin() as connection:
        ruling_id = connection.execute(
            select(schema.rulings.c.id).where(schema.rulings.c.text == SPREE_MODES)
        ).scalar_one()
        for number in range(25):
            card_id = connection.execute(
                schema.cards.insert().values(name=f"Card {number:02}").returning(schema.cards.c.id)
            ).scalar_one()
            connection.execute(
                schema.card_rulings.insert().values(
                    card_id=card_id, ruling_id=ruling_id, position=0
                )
            )
    edits.set_ruling_text(demo_store, "ann", ruling_id, "Each mode once.")
    out = build(demo_store, tmp_path / "site").out
    newest = _parsed(out, "ru").entries[0]
    assert newest.title == "Изменено разъяснение к карте Card 00 и ещё 26 картам"
    assert newest.content[0].value.count("<li>") == 21
    assert "<li>и ещё 7 карт</li>" in newest.content[0].value


def test_a_watching_build_refreshes_the_feeds_after_an_edit(
    demo_store: Engine, tmp_path: Path
) -> None:
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    builds: queue.Queue[BuildResult] = queue.Queue()
    failures: queue.Queue[Exception] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(demo_store, out, BuildOptions(), kept, stop),
        kwargs={
            "built": lambda result, _seconds: builds.put(result),
            "failed": failures.put,
            "interval": 0.01,
        },
    )
    thread.start()
    try:
        ruling_id = _ruling_id(demo_store, SPREE_MODES)
        edits.set_ruling_text(demo_store, "ann", ruling_id, "One mode, once.")
        assert builds.get(timeout=60).written == 2 * 11 + 11 + 2 * 11
        newest = _parsed(out, "ja").entries[0]
        assert newest.title == "三歩先 ほか 1 枚の裁定が変更されました"
        with demo_store.begin() as connection:  # a name: the entries that show it
            connection.execute(
                update(schema.card_names)
                .where(schema.card_names.c.locale == "ja", schema.card_names.c.name == "三歩先")
                .values(name="三歩先へ")
            )
        builds.get(timeout=60)
        assert _parsed(out, "ja").entries[0].title == "三歩先へ ほか 1 枚の裁定が変更されました"
    finally:
        stop.set()
        thread.join(timeout=60)
    assert failures.empty()
    fresh = build(demo_store, tmp_path / "fresh", BuildOptions(full=True)).out
    for locale in LOCALES:
        path = f"{locale.folder}/feed.atom"
        assert (out / path).read_bytes() == (fresh / path).read_bytes()


def test_a_watching_build_renders_only_the_new_entries(demo_store: Engine) -> None:
    kept = KeptEntries()
    rendered: list[str] = []

    def render(change: ChangeView) -> Markup:
        rendered.append(change.key)
        return Markup(change.key)

    def entries() -> list[Markup]:
        with demo_store.connect() as connection:
            recent = recent_changes(connection, load_index(connection))
        return kept.entries(("de/feed.atom", LOCALES, ""), recent, render)

    first = entries()
    assert len(rendered) == len(first) == 33
    edits.set_ruling_text(demo_store, "ann", _ruling_id(demo_store, SPREE_MODES), "Once.")
    rendered.clear()
    second = entries()
    # The edit, and the two links of that ruling, which show its text: the others are kept.
    assert rendered[0].startswith("revision ") and second[0] == rendered[0]
    assert sorted(rendered[1:]) == sorted(key for key in first if key.startswith("ruling 2 "))
    kept_ones = [entry for entry in second if entry not in rendered]
    assert len(second) == len(first) + 1 and len(kept_ones) == len(first) - 2
    assert all(any(entry is before for before in first) for entry in kept_ones)


def _ruling_id(engine: Engine, text: str) -> int:
    with engine.connect() as connection:
        ruling_id: int = connection.execute(
            select(schema.rulings.c.id).where(schema.rulings.c.text == text)
        ).scalar_one()
    return ruling_id


def test_recent_changes_read_only_the_names_they_are_not_given(demo_store: Engine) -> None:
    """A build that keeps running gives the names it read before (kb.site.feed.KeptEntries):
    those are shown, the others read, and what it keeps is the changes' cards' names."""
    with demo_store.connect() as connection:
        index = load_index(connection)
        known: dict[int, dict[str, str]] = {}
        read = recent_changes(connection, index, known=known)
        shown = {card.id: card.names for change in read.changes for card in change.cards}
        assert known == shown and all(names for names in shown.values())
        card_id = min(known)
        known[card_id] = {**known[card_id], "de": "Schon bekannt"}
        known[-1] = {"de": "Auf keiner Änderung"}
        again = recent_changes(connection, index, known=known)
        names = {card.id: card.names for change in again.changes for card in change.cards}
        assert names[card_id]["de"] == "Schon bekannt" and -1 not in known
        del known[card_id]
        fresh = recent_changes(connection, index, known=known)
    assert {card.id: card.names for change in fresh.changes for card in change.cards} == shown
