"""Helpers that the tests of printed texts share (tests/test_import_printed_texts.py,
tests/test_import_reread.py): the real corpus's set files, a card's printed texts as the store
holds them, and Lightning Bolt's German texts through the years."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from realdata import realdata
from sqlalchemy import text
from sqlalchemy.engine import Engine

SETS = "mtgjson-sets-2022-05"
WATCHDOG = "scryfall_card_m21_2_de_alpine_watchdog.json"
BOLT_1995 = "Der Blitz fügt einer Kreatur oder einem Spieler 3 Schadenspunkte zu."
BOLT_2009 = "Der Blitzschlag fügt einer Kreatur oder einem Spieler deiner Wahl 3 Schadenspunkte zu."
BOLT_2021 = "Der Blitzschlag fügt einem Ziel deiner Wahl 3 Schadenspunkte zu."


def sets(*codes: str) -> list[Path]:
    return [realdata(f"{SETS}/{code}.json.gz") for code in codes]


def printed(engine: Engine, card: str, locale: str = "de") -> list[dict[str, Any]]:
    """The card's printed texts in ``locale``, face by face, with the printing's source file."""
    query = text(
        "SELECT v.face, v.printed_name, v.printed_type_line, v.printed_text, v.oracle_type_line, "
        "v.oracle_text, v.english_printed_text, v.set_code, v.collector_number, v.released_on, "
        "s.uri AS source FROM printed_texts_view v JOIN printed_texts p ON p.card_id = v.card_id "
        "AND p.locale = v.locale AND p.face = v.face LEFT JOIN sources s ON s.id = p.source_id "
        "WHERE v.card = :card AND v.locale = :locale ORDER BY v.face"
    )
    with engine.connect() as connection:
        rows = connection.execute(query, {"card": card, "locale": locale}).mappings().all()
    # Dates as text: SQLite gives a view's dates so, PostgreSQL as dates.
    return [
        dict(row)
        | {
            "source": Path(row["source"]).name if row["source"] else None,
            "released_on": str(row["released_on"]) if row["released_on"] else None,
        }
        for row in rows
    ]
