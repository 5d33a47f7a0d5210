"""What the loader remembers within one import run (``LoadState.placed``): a card placed by
one file is not looked up again by the next, yet a later record still fills what the card left
empty, on both engines. tests/test_loader_bulk.py proves the whole of it equal to the plain way
on real sets; these cases are the ones real sets do not reach."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine

from kb import schema
from kb.importing import run_import
from kb.loader import bulk

BOLT = "4457ed35-7c10-48c8-9776-456485fdf070"


def _set(folder: Path, code: str, *cards: dict[str, Any]) -> Path:
    path = folder / f"{code}.json"
    document = {"data": {"code": code, "releaseDate": "2020-01-01", "cards": list(cards)}}
    path.write_text(json.dumps(document), "utf-8")
    return path


def _card(name: str, oracle_id: str | None = None, **fields: Any) -> dict[str, Any]:
    card = {"name": name, "type": "Instant", "layout": "normal", "text": f"{name} is here."}
    if oracle_id:
        card["identifiers"] = {"scryfallOracleId": oracle_id}
    return card | fields


@pytest.mark.parametrize("way", ["fast", "plain"])
def test_a_later_file_of_the_run_fills_what_a_card_left_empty(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    monkeypatch.setenv(bulk.PLAIN_SETTING, way)
    german = {"foreignData": [{"language": "German", "name": "Blitzschlag"}]}
    files = [
        _set(tmp_path, "AAA", _card("Lightning Bolt", BOLT), _card("Nameless")),
        # Fills the mana costs; a type line that differs is the first file's to give.
        _set(
            tmp_path,
            "BBB",
            _card("Lightning Bolt", BOLT, manaCost="{R}", type="Sorcery"),
            _card("Nameless", manaCost="{U}"),
        ),
        # Fills nothing: the cards are as they were, and the name finds its card.
        _set(tmp_path, "CCC", _card("Lightning Bolt", BOLT, **german), _card("Nameless")),
    ]
    summary = run_import(engine, files)
    with engine.connect() as connection:
        cards = schema.cards.c
        rows = connection.execute(
            select(cards.name, cards.oracle_id, cards.mana_cost, cards.type_line).order_by(
                cards.name
            )
        ).all()
        names = connection.execute(
            select(schema.card_names.c.locale, schema.card_names.c.name).where(
                schema.card_names.c.card_id
                == select(cards.id).where(cards.oracle_id == BOLT).scalar_subquery()
            )
        ).all()
    assert [tuple(row) for row in rows] == [
        ("Lightning Bolt", BOLT, "{R}", "Instant"),
        ("Nameless", None, "{U}", "Instant"),
    ]
    assert sorted(names) == [("de", "Blitzschlag"), ("en", "Lightning Bolt")]
    counts = summary.counts
    assert (counts["cards new"], counts["cards updated"], counts["cards unchanged"]) == (2, 2, 2)
