"""The A–Z pages a phone can open (kb.site.az): each index section a page, large sections cut
where the names' first letters change, in the locale's order; Japanese kanji by radical. On
names alone, and on a site built from real MTGJSON sets in every language."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from realdata import DATA, realdata
from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from kb import schema
from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import BY_CODE, LOCALES, Locale
from kb.site import az
from kb.site.build import BuildOptions, WatchState, build
from kb.site.collation import sectioned
from kb.site.other_pages import LocalizedCards
from kb.site.render import CardList, Page, Renderer
from kb.site.views import LocalizedCard, MechanicView

REAL_SETS = ("ELD.json.gz", "KHM.json.gz", "ISD.json.gz", "M21.json.gz")
MAX_PAGE = 200_000
SAFE_SECTION = re.compile(r"[a-z-]+/a-z/[0-9]+(-[0-9]+)?\.html")


def _cards(names: list[str], locale: Locale) -> tuple[list[LocalizedCard], list[int]]:
    """Cards of these names in the locale, as the site sorts and sections them."""
    cards = [LocalizedCard(f"Card {n}", name, n, f"card-{n}") for n, name in enumerate(names)]
    listed = sectioned(cards, lambda card: card.local or card.name, locale.code)
    return [card for _number, card in listed], [number for number, _card in listed]


def _german_names() -> list[str]:
    """300 German names, 180 of them under S, 60 of those under Sch."""
    names = [f"Sch{'aeilmnruwy'[n % 10]}{n:03} Wesen" for n in range(60)]
    names += [f"S{'aäeiptuw'[n % 8]}{n:03} Zauber" for n in range(120)]
    names += [f"{'ABDGKMTÄ'[n % 8]}{n:03} Karte" for n in range(120)]
    return names


def test_a_large_section_is_cut_at_its_names_second_letters() -> None:
    german = BY_CODE["de"]
    cards, numbers = _cards(_german_names(), german)
    found = az.sections(cards, numbers, german)
    assert az.limit(len(cards)) == 50  # a tenth of 300 is under the least a section is cut at
    assert max(len(section.cards) for section in found) <= 50
    # Nothing lost, nothing moved: the sections hold the cards in the locale's order.
    assert [card for section in found for card in section.cards] == cards
    s_parts = [section.link.label for section in found if section.letter == "S"]
    # Sch is more than a section holds: cut at the fourth letter ("Sä" counts as "Sa")
    assert s_parts == ["Sa–Schi", "Schl–Schy", "Se–Sp", "St–Sw"], s_parts
    assert all(section.split for section in found if section.letter == "S")
    assert [section.link.label for section in found if not section.split] == [
        "A",
        "B",
        "D",
        "G",
        "K",
        "M",
        "T",
    ]  # fmt: skip  (Ä is A in German; Sä is Sa)
    paths = [section.link.path for section in found]
    assert len(set(paths)) == len(paths) and all(map(SAFE_SECTION.fullmatch, paths))
    assert [path.rpartition("/")[2] for path in paths if "-" in path.rpartition("/")[2]] == [
        "19-1.html", "19-2.html", "19-3.html", "19-4.html",
    ]  # fmt: skip


def test_a_to_z_page_lists_each_letter_and_its_parts() -> None:
    german = BY_CODE["de"]
    found = az.sections(*_cards(_german_names(), german), german)
    letters = az.letters(found)
    assert [letter.letter for letter in letters] == ["A", "B", "D", "G", "K", "M", "S", "T"]
    split = next(letter for letter in letters if letter.letter == "S")
    assert split.split and [link.label for link in split.sections] == [
        "Sa–Schi", "Schl–Schy", "Se–Sp", "St–Sw",
    ]  # fmt: skip
    pages = az.contexts(found)
    assert pages[0]["previous"] is None and pages[-1]["following"] is None
    assert [page["following"] for page in pages[:-1]] == [page["section"] for page in pages[1:]]


def test_japanese_kanji_are_indexed_by_radical_and_kana_by_row() -> None:
    japanese = BY_CODE["ja"]
    names = [
        "海の神",
        "水の精",
        "火の玉",
        "炎の壁",
        "人間",
        "仕事人",
        "ゴブリン",
        "アーティファクト",
    ]
    found = az.sections(*_cards(names, japanese), japanese)
    by_letter = {section.letter: [card.local for card in section.cards] for section in found}
    assert by_letter == {
        "あ": ["アーティファクト"],
        "か": ["ゴブリン"],
        "人": ["人間", "仕事人"],  # 亻 is the radical 人
        "水": ["水の精", "海の神"],  # 氵 is 水; within a radical by strokes
        "火": ["火の玉", "炎の壁"],
    }
    assert list(by_letter) == ["あ", "か", "人", "水", "火"]  # kana rows, then radicals in order


def test_a_kana_row_is_cut_at_its_first_kana_labelled_in_hiragana() -> None:
    japanese = BY_CODE["ja"]
    names = [f"{kana}{n:03}" for n in range(12) for kana in "アイウエオ"]
    names += [f"カ{n:03}" for n in range(5)]
    found = az.sections(*_cards(names, japanese), japanese)
    rows = [(section.letter, section.link.label, len(section.cards)) for section in found]
    assert rows == [("あ", "あ–う", 36), ("あ", "え–お", 24), ("か", "か", 5)]


@pytest.fixture(scope="module")
def real_subset(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Path:
    """The site of four real sets, with their printings' names in every language."""
    sets = [realdata(f"mtgjson-sets-2022-05/{name}") for name in REAL_SETS]
    store = tmp_path_factory.mktemp("store") / "kb.sqlite"
    shutil.copy(migrated_sqlite, store)
    engine = make_engine(f"sqlite:///{store}")
    run_import(engine, sets)
    site = build(engine, tmp_path_factory.mktemp("site") / "site", BuildOptions(jobs=2)).out
    engine.dispose()
    return site


CARD_LINK = re.compile(r'<li><a href="\.\./\.\./[a-z-]+/cards/([a-z0-9-]+)\.html"')
SECTION_LINK = re.compile(r'<li><a href="\.\./\.\./([a-z-]+/a-z/[0-9-]+\.html)">([^<]+)</a></li>')


def test_real_a_to_z_pages_are_small_and_no_section_holds_a_tenth(real_subset: Path) -> None:
    cards = len(list((real_subset / "en" / "cards").glob("*.html"))) - 1  # the A–Z page
    assert cards > 900
    for locale in LOCALES:
        index = real_subset / locale.folder / "cards" / "index.html"
        assert index.stat().st_size <= MAX_PAGE
        links = SECTION_LINK.findall(index.read_text("utf-8"))
        on_disk = sorted(path.relative_to(real_subset).as_posix()
                         for path in (real_subset / locale.folder / "a-z").iterdir())  # fmt: skip
        assert sorted(path for path, _label in links) == on_disk, locale.code
        listed: list[str] = []
        for path, label in links:
            page = (real_subset / path).read_text("utf-8")
            assert len(page.encode("utf-8")) <= MAX_PAGE, path
            assert f"<h1>{label}</h1>" in page
            slugs = CARD_LINK.findall(page.partition("<main>")[2].partition("</main>")[0])
            assert 0 < len(slugs) <= cards // 10, (path, label, len(slugs))
            listed += slugs
        assert len(listed) == len(set(listed)) == cards, locale.code  # every card, once
    split = SECTION_LINK.findall((real_subset / "de/cards/index.html").read_text("utf-8"))
    assert [label for _path, label in split if "–" in label], "no German section was cut"


def test_real_japanese_kanji_names_are_under_their_radicals(real_subset: Path) -> None:
    index = (real_subset / "ja/cards/index.html").read_text("utf-8")
    letters = re.findall(
        r'<li><a href="[^"]+">([^<]+)</a></li>|<span class="letter">([^<]+)<', index
    )
    shown = [whole or split for whole, split in letters]
    assert "…" not in shown  # no section of names the index has no letter for
    assert {"あ", "か", "さ", "人", "水", "火", "心"} <= set(shown), shown
    radicals = [
        letter for letter in shown if "\u4e00" <= letter[0] <= "\u9fff" and "–" not in letter
    ]
    assert len(radicals) > 60


def _mtimes(site: Path) -> dict[str, int]:
    return {
        path.relative_to(site).as_posix(): path.stat().st_mtime_ns for path in site.rglob("*.html")
    }


def _rename_three_steps_ahead(engine: Engine) -> None:
    """Three Steps Ahead's German name edited, as any writer of the store would."""
    with engine.begin() as connection:
        connection.execute(
            update(schema.card_names)
            .where(schema.card_names.c.name == "Drei Schritte voraus")
            .values(name="Drei Schritte voraus!")
        )


def test_an_incremental_build_renders_only_the_sections_that_changed(
    sqlite_url: str, tmp_path: Path
) -> None:
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    out = build(engine, tmp_path / "site").out
    (out / "de/a-z/9.html").unlink()  # German I, whose cards stay as they are
    restored = build(engine, out)
    assert (restored.written, restored.rendered) == (1, 1) and (out / "de/a-z/9.html").is_file()

    before = _mtimes(out)
    (out / "de/a-z/9.html").unlink()
    _rename_three_steps_ahead(engine)
    renamed = build(engine, out)
    after = _mtimes(out)
    assert {path for path in after if after[path] != before.get(path)} == {
        "de/cards/three-steps-ahead.html", "de/mechanics/spree.html",
        "de/a-z/4.html",  # D, where the name changed
        "de/a-z/9.html",  # I: recorded unchanged, but its file was gone
        "de/changes.html",  # its rulings' recent changes name it
    }  # fmt: skip
    assert renamed.written == 5 + 1  # and the German feed
    assert "Drei Schritte voraus!" in (out / "de/a-z/4.html").read_text("utf-8")
    engine.dispose()


def test_a_name_edited_in_one_locale_sorts_that_locales_cards_alone(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each locale's A–Z pages are fingerprinted by its own names: a German rename sorts the
    German list of every card again (its sections may move), and no other locale's."""
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    out = build(engine, tmp_path / "site").out
    _rename_three_steps_ahead(engine)
    sorted_whole: list[str] = []
    every = LocalizedCards.every

    def spied(self: LocalizedCards, locale: Locale) -> CardList:
        sorted_whole.append(locale.code)
        return every(self, locale)

    monkeypatch.setattr(LocalizedCards, "every", spied)
    renamed = build(engine, out)
    assert sorted_whole == ["de"]
    assert "Drei Schritte voraus!" in (out / "de/a-z/4.html").read_text("utf-8")
    assert renamed.written == 5  # the card's page, spree's, D's, the changes page and feed
    engine.dispose()


def _names_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The locales whose whole list of names the builds read from now on, in order."""
    read: list[str] = []
    unsorted = LocalizedCards.unsorted

    def spied(self: LocalizedCards, locale: Locale) -> list[LocalizedCard]:
        if self._unsorted is None or self._unsorted[0] != locale:
            read.append(locale.code)
        return unsorted(self, locale)

    monkeypatch.setattr(LocalizedCards, "unsorted", spied)
    return read


def test_the_a_to_z_pages_names_are_read_only_when_a_name_changed(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every card's names digest is the A–Z pages' shortcut: a build after a ruling's edit
    reads no locale's list of names (on a large site, 11 reads of 30,000 names: most of that
    build's time), a build after a rename reads each locale's once to see whose pages changed,
    and a full build reads each locale's once, for its pages and their fingerprint alike."""
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    read = _names_read(monkeypatch)
    out = build(engine, tmp_path / "site").out
    assert read == [locale.code for locale in LOCALES]
    site = {path: path.read_bytes() for path in out.rglob("*.html")}

    read.clear()
    with engine.begin() as connection:
        connection.execute(
            update(schema.rulings)
            .where(schema.rulings.c.text.endswith("choose the same mode more than once."))
            .values(text=schema.rulings.c.text + " (Edited.)")
        )
    edited = build(engine, out)
    assert read == [] and edited.written > 0

    _rename_three_steps_ahead(engine)
    renamed = build(engine, out)
    assert read == [locale.code for locale in LOCALES]
    assert "Drei Schritte voraus!" in (out / "de/a-z/4.html").read_text("utf-8")
    assert renamed.written == 5

    read.clear()
    assert build(engine, out).written == 0 and read == []
    full = build(engine, tmp_path / "full").out
    after = {path.relative_to(out): path.read_bytes() for path in out.rglob("*.html")}
    assert after == {path.relative_to(full): path.read_bytes() for path in full.rglob("*.html")}
    assert after != {path.relative_to(out): data for path, data in site.items()}
    engine.dispose()


def _rename(engine: Engine, english: str, names: dict[str, str]) -> None:
    """A card's names edited in some locales, in one write."""
    with engine.begin() as connection:
        card_id = connection.execute(
            select(schema.cards.c.id).where(schema.cards.c.name == english)
        ).scalar_one()
        for locale, name in names.items():
            connection.execute(
                update(schema.card_names)
                .where(schema.card_names.c.card_id == card_id, schema.card_names.c.locale == locale)
                .values(name=name)
            )


def test_a_watching_build_reads_only_the_names_of_the_locales_renamed_in(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that keeps running keeps each locale's A–Z fingerprint with a term per card
    (kb.site.kept_names): after a rename it reads the changed cards in every locale, and the
    whole list of names of the locales they were renamed in alone (on the real corpus, 11 reads
    of 23,000 names were most of a German rename's time); the renamed card's mechanics' pages
    are rendered in those locales alone. Its pages stay a full build's."""
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    read = _names_read(monkeypatch)
    spree_pages: list[str] = []  # the locales of spree's pages rendered
    mechanic = Renderer.mechanic

    def spied_mechanic(self: Renderer, view: MechanicView, cards: CardList) -> Page:
        spree_pages.append(cards.locale.code)
        return mechanic(self, view, cards)

    monkeypatch.setattr(Renderer, "mechanic", spied_mechanic)
    kept = WatchState()
    out = build(engine, tmp_path / "site", kept=kept).out
    assert read == [locale.code for locale in LOCALES]
    with engine.connect() as connection:
        french, italian = (
            connection.execute(
                select(schema.card_names.c.name)
                .join(schema.cards, schema.cards.c.id == schema.card_names.c.card_id)
                .where(schema.cards.c.name == "Three Steps Ahead")
                .where(schema.card_names.c.locale == locale)
            ).scalar_one()
            for locale in ("fr", "it")
        )
    every = [locale.code for locale in LOCALES]
    edits = [  # Three Steps Ahead has spree: its mechanic page lists it in each locale
        ({"de": "Drei Schritte voraus!"}, ["de"], ["de"]),
        ({"de": "Drei Schritte voraus"}, ["de"], ["de"]),  # as it was: read again, the same
        ({"fr": f"{french} (fr)", "it": f"{italian} (it)"}, ["fr", "it"], ["fr", "it"]),
        ({"fr": french}, ["fr"], ["fr"]),
        ({}, [], every),  # a general ruling of spree edited: no name changed, no list read
    ]
    for number, (names, renamed_in, spree_in) in enumerate(edits):
        if names:
            _rename(engine, "Three Steps Ahead", names)
        else:
            with engine.begin() as connection:
                connection.execute(
                    update(schema.rulings)
                    .where(schema.rulings.c.text.endswith("choose the same mode more than once."))
                    .values(text=schema.rulings.c.text + " (Edited.)")
                )
        read.clear()
        spree_pages.clear()
        assert build(engine, out, kept=kept).written > 0
        assert (read, spree_pages) == (renamed_in, spree_in), names
        full = build(engine, tmp_path / f"full-{number}").out
        pages = {path.relative_to(out): path.read_bytes() for path in out.rglob("*.html")}
        assert pages == {path.relative_to(full): path.read_bytes() for path in full.rglob("*.html")}
    sections = [path.read_text("utf-8") for path in (out / "it/a-z").glob("*.html")]
    assert sum(f"{italian} (it)" in section for section in sections) == 1
    engine.dispose()
