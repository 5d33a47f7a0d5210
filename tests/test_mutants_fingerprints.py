"""Incremental builds show every change: each field a page shows, changed in the store.

An incremental ``kb build`` rewrites a page only when its fingerprint changed. A field the
fingerprint misses is a silent wrong answer: the page keeps the old value. So each test changes
one field in the store (as any writer may: kb edit, a script, psql), builds the same folder
again, and requires the page to show the new value and the folder to be byte for byte what a
full build of the store writes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_kb
from sqlalchemy import text
from sqlalchemy.engine import Connection

from kb.engine import make_engine
from kb.site.data import CardView
from kb.site.fingerprints import Fingerprints, encoded
from kb.site.forms import Items
from kb.site.output import MANIFEST

THREE_STEPS = "Three Steps Ahead"
GERMAN = "de/cards/three-steps-ahead.html"
ENGLISH = "en/cards/three-steps-ahead.html"
SPREE_DE = "de/mechanics/spree.html"
SAME_MODE = "You can%t choose the same mode%"


def _card(connection: Connection, name: str = THREE_STEPS) -> int:
    return connection.execute(
        text("SELECT id FROM cards WHERE name = :n"), {"n": name}
    ).scalar_one()


def _ruling(connection: Connection, like: str = SAME_MODE) -> int:
    query = text("SELECT id FROM rulings WHERE text LIKE :like")
    return connection.execute(query, {"like": like}).scalar_one()


def _first_link(connection: Connection) -> tuple[int, int]:
    """Three Steps Ahead's first ruling on its page: (card id, ruling id)."""
    card_id = _card(connection)
    query = text("SELECT ruling_id FROM card_rulings WHERE card_id = :c ORDER BY position")
    return card_id, connection.execute(query, {"c": card_id}).scalars().first() or 0


def _sql(statement: str, **values: object) -> Callable[[Connection], None]:
    def change(connection: Connection) -> None:
        card_id, ruling_id = _first_link(connection)
        ids = {"card": card_id, "ruling": ruling_id, "shared": _ruling(connection)}
        connection.execute(text(statement), ids | values)

    return change


# Each change: what it does to the store, a page it changes and what that page then shows.
CHANGES: dict[str, tuple[Callable[[Connection], None], str, str]] = {
    "a ruling's date": (
        _sql(
            "UPDATE card_rulings SET published_on = :day WHERE card_id = :card",
            day="2031-07-09",
        ),
        GERMAN,
        "09.07.2031",
    ),
    "a ruling's text": (
        _sql("UPDATE rulings SET text = 'Mode text, changed.' WHERE id = :shared"),
        GERMAN,
        "Mode text, changed.",
    ),
    "a general ruling's text on the mechanic page": (
        _sql("UPDATE rulings SET text = 'Mode text, changed.' WHERE id = :shared"),
        SPREE_DE,
        "Mode text, changed.",
    ),
    "a reviewed translation": (
        _sql(
            "INSERT INTO ruling_translations (ruling_id, locale, text, status) "
            "VALUES (:ruling, 'de', 'Neu übersetzt.', 'reviewed')"
        ),
        GERMAN,
        "Neu übersetzt.",
    ),
    "a ruling's tag": (
        _sql(
            "INSERT INTO ruling_mechanics (ruling_id, mechanic_id) "
            "SELECT :ruling, id FROM mechanics WHERE slug = 'outlaw'"
        ),
        GERMAN,
        "gesetzlos",
    ),
    "a card's name in a locale": (
        _sql(
            "UPDATE card_names SET name = 'Drei Schritte weiter' WHERE card_id = :card "
            "AND locale = 'de'"
        ),
        GERMAN,
        "Drei Schritte weiter",
    ),
    "a card's name in the lists of its mechanic": (
        _sql(
            "UPDATE card_names SET name = 'Drei Schritte weiter' WHERE card_id = :card "
            "AND locale = 'de'"
        ),
        SPREE_DE,
        "Drei Schritte weiter",
    ),
    "a card's name in the A-Z list": (
        _sql(
            "UPDATE card_names SET name = 'Drei Schritte weiter' WHERE card_id = :card "
            "AND locale = 'de'"
        ),
        "de/a-z/4.html",  # the German A–Z section D
        "Drei Schritte weiter",
    ),
    "a card's English name": (
        _sql("UPDATE cards SET name = 'Three Steps Behind' WHERE id = :card"),
        "en/a-z/20.html",  # the English A–Z section T
        "three-steps-behind.html",  # its page's new name
    ),
    "a card's mana cost": (
        _sql("UPDATE cards SET mana_cost = '{7}{G}' WHERE id = :card"),
        ENGLISH,
        "7 and green",
    ),
    "a card's faces": (
        _sql(
            "INSERT INTO card_faces (card_id, position, name) "
            "VALUES (:card, 0, 'Fore'), (:card, 1, 'Aft')"
        ),
        ENGLISH,
        "<h3>Aft</h3>",
    ),
    "a mechanic's name": (
        _sql(
            "UPDATE mechanic_names SET name = 'Übermaß' WHERE locale = 'de' AND "
            "mechanic_id = (SELECT id FROM mechanics WHERE slug = 'spree')"
        ),
        GERMAN,
        "Übermaß",
    ),
    "a mechanic's rule": (
        _sql("UPDATE mechanics SET rule = '702.999' WHERE slug = 'spree'"),
        SPREE_DE,
        "702.999",
    ),
    "a ruling removed from a card": (
        _sql("DELETE FROM card_rulings WHERE card_id = :card AND ruling_id = :shared"),
        GERMAN,
        "",  # checked against the full build only
    ),
    "the order of a card's rulings": (
        _sql(
            "UPDATE card_rulings SET position = 1000 - position WHERE card_id = :card",
        ),
        GERMAN,
        "",
    ),
}


def _pages(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def _build(url: str, out: Path, *options: str) -> None:
    result = run_kb(url, "-q", "build", "--out", str(out), *options)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("change", list(CHANGES))
def test_an_incremental_build_shows_the_change(demo_url: str, tmp_path: Path, change: str) -> None:
    write, page, shown = CHANGES[change]
    out = tmp_path / "site"
    _build(demo_url, out)
    before = _pages(out)
    assert shown not in before[page].decode() or not shown
    engine = make_engine(demo_url)
    with engine.begin() as connection:
        write(connection)
    engine.dispose()
    _build(demo_url, out)
    after = _pages(out)
    assert after[page] != before[page]
    assert shown in after[page].decode()
    _build(demo_url, tmp_path / "full")
    assert after == _pages(tmp_path / "full")


def test_a_date_changed_on_one_of_the_cards_sharing_a_ruling(demo_url: str, tmp_path: Path) -> None:
    """The cards sharing a ruling show it each on its own date."""
    out = tmp_path / "site"
    _build(demo_url, out)
    engine = make_engine(demo_url)
    with engine.begin() as connection:
        shared = _ruling(connection)
        for name, day in ((THREE_STEPS, "2031-07-09"), ("Caught in the Crossfire", "2032-08-10")):
            connection.execute(
                text(
                    "UPDATE card_rulings SET published_on = :day WHERE card_id = :c "
                    "AND ruling_id = :r"
                ),
                {"day": day, "c": _card(connection, name), "r": shared},
            )
    engine.dispose()
    _build(demo_url, out)
    assert "09.07.2031" in (out / GERMAN).read_text("utf-8")
    assert "10.08.2032" in (out / "de/cards/caught-in-the-crossfire.html").read_text("utf-8")
    _build(demo_url, tmp_path / "full")
    assert _pages(out) == _pages(tmp_path / "full")


def test_a_new_base_address_reaches_every_page(demo_url: str, tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(demo_url, out)
    _build(demo_url, out, "--base-url", "https://rulings.example/")
    assert "https://rulings.example/" in (out / "404.html").read_text("utf-8")
    _build(demo_url, tmp_path / "full", "--base-url", "https://rulings.example/")
    assert _pages(out) == _pages(tmp_path / "full")


def _card_view(names: dict[str, str]) -> CardView:
    return CardView(name="Opt", names=names, id=1, slug="opt", mana_cost="{U}")


def test_a_cards_fingerprint_is_of_its_view_not_of_the_order_its_names_were_read_in() -> None:
    """The same view gives the same fingerprint (dicts encoded by key): a store read in another
    order rebuilds no page. A changed name or code version changes it."""
    fingerprints = Fingerprints("v1")
    italian_first = fingerprints.card(_card_view({"it": "Scegli", "de": "Opt"}))
    assert fingerprints.card(_card_view({"de": "Opt", "it": "Scegli"})) == italian_first
    assert fingerprints.card(_card_view({"de": "Opt", "it": "Scelta"})) != italian_first
    assert Fingerprints("v2").card(_card_view({"de": "Opt", "it": "Scegli"})) != italian_first


def test_a_page_input_that_cannot_be_encoded_is_named() -> None:
    """A view given a field of a type the encoding does not know says which type, rather than
    letting orjson guess at it."""
    with pytest.raises(TypeError) as raised:
        encoded({"tags": {"spree"}})
    assert str(raised.value.__cause__) == "set in a page's input"
    # Items, a tuple's subclass, is a list like any tuple (orjson takes exact tuples only).
    assert encoded({"rulings": Items(("One.", "Two."))}) == b'{"rulings":["One.","Two."]}'
