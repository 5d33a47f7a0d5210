"""Mined names in the store, on both engines: an import of printed texts mines them, with their
votes; an editor's name wins and survives the next import; a source's name replaces a mined one;
the saved query lists the names to check."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from conftest import run_kb
from realdata import realdata
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from tagging_sample import shown_tags

from kb import edits, migrate, revisions, schema
from kb.engine import make_engine
from kb.importing import run_import
from kb.loader import tags

pytestmark = pytest.mark.realdata

SETS = ("M21.json.gz", "ZNR.json.gz")


def names(engine: Engine, slug: str) -> dict[str, tuple[object, ...]]:
    query = (
        select(
            schema.mechanic_names.c.locale,
            schema.mechanic_names.c.name,
            schema.mechanic_names.c.origin,
            schema.mechanic_names.c.cards,
            schema.mechanic_names.c.voters,
            schema.mechanic_names.c.method,
        )
        .join(schema.mechanics, schema.mechanics.c.id == schema.mechanic_names.c.mechanic_id)
        .where(schema.mechanics.c.slug == slug)
    )
    with engine.connect() as connection:
        return {row[0]: tuple(row[1:]) for row in connection.execute(query)}


def test_an_import_mines_names_and_an_editor_wins(database_url: str) -> None:
    engine = make_engine(database_url)
    sets = realdata("mtgjson-sets-2022-05")
    run_import(engine, [sets / name for name in SETS])
    flying = names(engine, "flying")
    assert flying["en"][:2] == ("Flying", "source")
    assert flying["de"] == ("Fliegend", "mined", 46, 46, "line")
    assert flying["ja"][:2] == ("飛行", "mined")
    kicker = names(engine, "kicker")
    assert kicker["de"] == ("Bonus", "mined", 38, 38, "line")
    with engine.connect() as connection:
        rogue = connection.execute(
            select(schema.type_names.c.name, schema.type_names.c.cards).where(
                schema.type_names.c.type == "Rogue", schema.type_names.c.locale == "de"
            )
        ).one()
    assert tuple(rogue) == ("Räuber", 29)

    revision = edits.set_mechanic_name(engine, "ann", "kicker", "de", "Bonuskosten")
    assert names(engine, "kicker")["de"][:2] == ("Bonuskosten", "editor")
    run_import(engine, [sets / "KHM.json.gz"])
    assert names(engine, "kicker")["de"][:2] == ("Bonuskosten", "editor")
    revisions.revert(engine, "bob", revision)
    assert names(engine, "kicker")["de"][:2] == ("Bonus", "mined")
    # A confirmed name is the editor's too.
    edits.set_mechanic_name(engine, "ann", "flying", "de", "Fliegend")
    assert names(engine, "flying")["de"][:2] == ("Fliegend", "editor")
    engine.dispose()


def test_the_cli_confirms_a_name_and_the_query_lists_names_to_check(database_url: str) -> None:
    engine = make_engine(database_url)
    sets = realdata("mtgjson-sets-2022-05")
    run_import(engine, [sets / name for name in SETS])
    engine.dispose()
    done = run_kb(database_url, "edit", "mechanic-name", "mill", "de", "Mahlen", "--editor", "ann")
    assert done.exit_code == 0, done.output
    refused = run_kb(database_url, "edit", "mechanic-name", "nope", "de", "X", "--editor", "ann")
    assert (refused.exit_code, refused.stderr) == (1, "kb: error: no mechanic 'nope'\n")
    result = run_kb(database_url, "query", "--csv", "mined_names_to_check")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    listed = {(row["mechanic"], row["locale"]) for row in rows}
    assert ("mill", "fr") in listed and ("mill", "de") not in listed
    assert ("flying", "de") not in listed
    for row in rows:
        cards, voters = int(row["cards"]), int(row["voters"])
        assert voters < 5 or 4 * cards < 3 * voters or row["method"] == "contrast"


def test_an_import_that_changes_the_mechanics_mines_again(database_url: str) -> None:
    """The rules make keywords abilities or actions (and Counter is mined from its cards'
    Oracle texts): an import of them alone votes the names again, as one of printed texts."""
    engine = make_engine(database_url)
    sets = realdata("mtgjson-sets-2022-05")
    run_import(engine, [sets / name for name in SETS])
    with engine.begin() as connection:
        connection.execute(
            schema.mechanic_names.delete().where(schema.mechanic_names.c.origin == "mined")
        )
    run_import(engine, [realdata("MagicCompRules_20220429.txt")])
    assert names(engine, "flying")["de"] == ("Fliegend", "mined", 46, 46, "line")
    # Scry is an action by its lines, as before the rules said so.
    assert names(engine, "scry")["de"] == ("Hellsicht", "mined", 19, 19, "contrast")
    engine.dispose()


def test_rulings_tagged_beside_the_mining_get_the_tags_of_rulings_tagged_alone(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large import's rulings are matched in a forked child while it mines (FORKED_RULINGS
    lowered here, so that these few hundred are): the tags of an import that matches them in
    its own process, the child's only written by the import."""
    sets = realdata("mtgjson-sets-2022-05")
    files = [realdata("MagicCompRules_20220429.txt"), *(sets / name for name in SETS)]
    alone = make_engine(f"sqlite:///{tmp_path / 'alone.sqlite'}")
    migrate.upgrade(alone)
    run_import(alone, files)
    monkeypatch.setattr(tags, "FORKED_RULINGS", 1)
    beside = make_engine(database_url)
    summary = run_import(beside, files)
    with beside.connect() as connection:
        rulings, texts = (
            connection.execute(select(func.count()).select_from(table)).scalar_one()
            for table in (schema.rulings, schema.printed_texts)
        )
    assert 1 <= rulings <= texts  # so the child matched them
    expected = shown_tags(alone)
    assert len(expected) > 100
    assert shown_tags(beside) == expected
    assert summary.counts["ruling tags new"] == len(expected)
    alone.dispose()
    beside.dispose()
