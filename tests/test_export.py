"""Exports in the anchors' formats import back into the same store."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from realdata import DATA, realdata
from sqlalchemy import select, text
from sqlalchemy.engine import Engine

from kb import migrate, schema
from kb.engine import make_engine
from kb.exporting import export, export_to_file
from kb.importing import run_import


def contents(engine: Engine) -> dict[str, object]:
    """The store's cards, faces, names, rulings and links, keyed by names and texts, not ids."""
    with engine.connect() as connection:
        cards = {
            row.id: (
                row.name,
                row.oracle_id,
                row.mana_cost,
                row.type_line,
                row.oracle_text,
                row.layout,
            )
            for row in connection.execute(select(schema.cards))
        }
        rulings = {
            r.id: r.text
            for r in connection.execute(select(schema.rulings.c.id, schema.rulings.c.text))
        }
        faces = sorted(
            (cards[r.card_id][0], r.position, r.name)
            for r in connection.execute(select(schema.card_faces))
        )
        names = sorted(
            (cards[r.card_id][0], r.locale, r.name)
            for r in connection.execute(select(schema.card_names))
        )
        links = connection.execute(select(schema.card_rulings)).all()
    by_card: dict[str, list[tuple[object, ...]]] = {}
    for link in links:
        by_card.setdefault(cards[link.card_id][0], []).append(
            (link.published_on is None, link.published_on, link.position, rulings[link.ruling_id])
        )
    # Positions are compared as page order: an export renumbers them from 0.
    page_order = {
        card: [(published_on, text) for _, published_on, _, text in sorted(items)]
        for card, items in by_card.items()
    }
    return {
        "cards": sorted(cards.values()),
        "faces": faces,
        "names": names,
        "rulings": sorted(rulings.values()),
        "links": page_order,
    }


def round_trip(engine: Engine, tmp_path: Path) -> Engine:
    exported = tmp_path / "export.json"
    with engine.connect() as connection, exported.open("w", encoding="utf-8") as out:
        export(connection, "mtgjson", out)
    copy = make_engine(f"sqlite:///{tmp_path / 'copy.sqlite'}")
    migrate.upgrade(copy)
    run_import(copy, [exported])
    return copy


def test_mtgjson_export_round_trips_the_demo_store(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [DATA])
    copy = round_trip(engine, tmp_path)
    assert contents(copy) == contents(engine)


def test_mtgjson_export_round_trips_real_multi_face_cards(engine: Engine, tmp_path: Path) -> None:
    sets = realdata("mtgjson-sets-2022-05")
    # Split (Who // What ...), adventure (ELD), flip (CHK), meld and transform (EMN).
    run_import(engine, [sets / "UST.json.gz", sets / "ELD.json.gz", sets / "EMN.json.gz"])
    copy = round_trip(engine, tmp_path)
    assert contents(copy) == contents(engine)


def test_scryfall_rulings_export_round_trips_links_and_origins(
    engine: Engine, tmp_path: Path
) -> None:
    run_import(engine, [DATA, realdata("scryfall_rulings_list_derevi.json")])
    buffer = io.StringIO()
    with engine.connect() as connection:
        export(connection, "scryfall-rulings", buffer)
    rulings = json.loads(buffer.getvalue())
    assert len(rulings) == 33  # Derevi is not a known card: its rulings were warned about
    assert {r["oracle_id"] for r in rulings} == {
        "282dfeaa-6243-4f92-838a-5cb54fa85184",
        "d262f3e1-b5bc-4dab-86c2-cd89c2419e54",
    }
    exported = tmp_path / "rulings.json"
    exported.write_text(buffer.getvalue(), encoding="utf-8")
    assert not run_import(engine, [exported]).changed


def test_csv_export_has_one_row_per_link(engine: Engine) -> None:
    run_import(engine, [DATA])
    buffer = io.StringIO()
    with engine.connect() as connection:
        assert export(connection, "csv", buffer) == 33
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue())))
    assert len(rows) == 33
    german = [row for row in rows if row["card"] == "Three Steps Ahead"]
    assert {row["published_on"] for row in german} == {"2024-04-12"}
    assert sum("spree" in row["mechanics"].split() for row in rows) == 24


DEREVI_ORACLE_ID = "afa49a09-146f-4439-850e-dd1938c93cef"


def test_every_scryfall_ruling_has_its_source(engine: Engine, tmp_path: Path) -> None:
    """Scryfall's own objects keep theirs; the pages' and MTGJSON's rulings are Wizards'."""
    derevi = tmp_path / "derevi.toml"
    derevi.write_text(
        f'[[cards]]\nname = "Derevi, Empyrial Tactician"\noracle_id = "{DEREVI_ORACLE_ID}"\n',
        encoding="utf-8",
    )
    excerpt = realdata("mtgjson_OTJ_excerpt.json")
    run_import(engine, [DATA, derevi, realdata("scryfall_rulings_list_derevi.json"), excerpt])
    buffer = io.StringIO()
    with engine.connect() as connection:
        written = export(connection, "scryfall-rulings", buffer)
    rulings = json.loads(buffer.getvalue())
    assert written == len(rulings)
    assert all(
        list(ruling) == ["object", "oracle_id", "source", "published_at", "comment"]
        for ruling in rulings
    )
    sources = [r["source"] for r in rulings if r["oracle_id"] == DEREVI_ORACLE_ID]
    assert sources == ["scryfall", "wotc", "wotc"]
    assert {r["source"] for r in rulings if r["oracle_id"] != DEREVI_ORACLE_ID} == {"wotc"}


def test_each_format_counts_what_it_wrote(engine: Engine, tmp_path: Path) -> None:
    lonely = tmp_path / "lonely.toml"  # a card with an oracle_id and no ruling
    lonely.write_text('[[cards]]\nname = "Lonely"\noracle_id = "0000"\n', encoding="utf-8")
    run_import(engine, [DATA, lonely])
    written = {}
    for format in ("mtgjson", "scryfall-rulings", "csv"):
        buffer = io.StringIO()
        with engine.connect() as connection:
            written[format] = (export(connection, format, buffer), buffer.getvalue())
    assert written["mtgjson"][0] == len(json.loads(written["mtgjson"][1])["data"]) == 3
    assert written["scryfall-rulings"][0] == len(json.loads(written["scryfall-rulings"][1])) == 33
    assert written["csv"][0] == len(list(csv.DictReader(io.StringIO(written["csv"][1])))) == 33


def test_an_export_to_a_file_is_whole_or_leaves_the_file_as_it_was(
    engine: Engine, tmp_path: Path
) -> None:
    run_import(engine, [DATA])
    (tmp_path / "export").mkdir()
    out = tmp_path / "export" / "links.csv"
    buffer = io.StringIO()
    with engine.connect() as connection:
        assert export_to_file(connection, "csv", out) == export(connection, "csv", buffer) == 33
    assert out.read_bytes() == buffer.getvalue().encode("utf-8")
    with engine.begin() as connection:
        connection.execute(text("ALTER TABLE rulings RENAME TO rulings_away"))
    with engine.connect() as connection, pytest.raises(Exception, match="rulings"):
        export_to_file(connection, "csv", out)
    assert out.read_bytes() == buffer.getvalue().encode("utf-8")
    assert [path.name for path in out.parent.iterdir()] == ["links.csv"]
