"""Helpers that tests/test_site_pages.py and tests/test_site_build.py share: a built site's files
and pages, the path of an A–Z section, and a card added to a store."""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy import insert
from sqlalchemy.engine import Engine

from kb import schema
from kb.site.output import MANIFEST


def _files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _pages(folder: Path) -> dict[str, bytes]:
    """The site's files, without the build's own record (which notes its folders' times)."""
    return {path: data for path, data in _files(folder).items() if path != MANIFEST}


def _section(site: Path, folder: str, letter: str) -> str:
    """The path of a locale's A–Z section of this letter, as its A–Z page links to it."""
    index = (site / folder / "cards" / "index.html").read_text("utf-8")
    found = re.search(rf'<li><a href="../../({folder}/a-z/\d+\.html)">{letter}</a></li>', index)
    assert found is not None, f"{folder}: no A–Z section {letter}"
    return found[1]


def _add_card(engine: Engine, name: str, **names: str) -> int:
    with engine.begin() as connection:
        card_id = connection.execute(
            insert(schema.cards).values(name=name).returning(schema.cards.c.id)
        ).scalar_one()
        for locale, localized in names.items():
            connection.execute(
                insert(schema.card_names).values(card_id=card_id, locale=locale, name=localized)
            )
    return card_id
