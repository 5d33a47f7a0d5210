"""The loader's bulk reads and writes (kb.loader.bulk): the fast way, through the DBAPI cursor
and remembering the cards a run placed, leaves every table exactly as the plain way, SQLAlchemy
Core statements that look every card up, does, on both engines.

The same imports run into two fresh stores, one each way: the demo data, real MTGJSON sets in an
order where later printings replace earlier texts and later files reuse rulings and date links,
the Comprehensive Rules (new mechanics: everything is tagged again), Scryfall rulings, and a
forced re-import that proves every record unchanged. Every row of every table must be the same,
ids included; only what is random or the clock's (a log row's nonce and transaction, an
import's time) is left out.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from realdata import DATA, realdata
from sqlalchemy import DateTime, select
from sqlalchemy.engine import Engine

from kb import schema
from kb.engine import make_engine
from kb.importing import ImportOptions, run_import
from kb.loader import bulk, mined_names
from kb.loader.bulk import FastBulk, PlainBulk, bulk_for

SETS = "mtgjson-sets-2022-05"
RANDOM_COLUMNS = {"nonce", "transaction_id"}
"""A log row's random nonce, and the PostgreSQL transaction that wrote it."""


def _imports() -> list[tuple[list[Path], ImportOptions]]:
    sets = realdata(SETS)

    def of(*codes: str) -> list[Path]:
        return [sets / f"{code}.json.gz" for code in codes]

    return [
        ([DATA], ImportOptions()),
        (of("M11", "4ED"), ImportOptions()),
        (of("M10", "CMD", "ELD"), ImportOptions()),
        ([realdata("scryfall_rulings_list_derevi.json")], ImportOptions()),
        ([realdata("MagicCompRules_20220429.txt")], ImportOptions()),
        (of("STA", "M10"), ImportOptions(force=True)),
    ]


def _contents(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, in primary key order, without random or clock columns."""
    contents = {}
    with engine.connect() as connection:
        for table in schema.metadata.sorted_tables:
            columns = [
                column
                for column in table.c
                if column.name not in RANDOM_COLUMNS and not isinstance(column.type, DateTime)
            ]
            order = list(table.primary_key.columns) or columns
            query = select(*columns).order_by(*order)
            contents[table.name] = [tuple(row) for row in connection.execute(query)]
    return contents


def _import_all(engine: Engine, monkeypatch: pytest.MonkeyPatch, way: str) -> list[Any]:
    monkeypatch.setenv(bulk.PLAIN_SETTING, way)
    summaries = []
    for paths, options in _imports():
        summary = run_import(engine, paths, options)
        summaries.append((dict(summary.counts), summary.warnings))
    return summaries


@pytest.fixture
def other_engine(
    engine: Engine, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Engine]:
    """A second migrated, empty store on the engine of ``engine``."""
    if engine.dialect.name == "sqlite":
        path = tmp_path / "other.sqlite"
        shutil.copy(request.getfixturevalue("migrated_sqlite"), path)
        other = make_engine(f"sqlite:///{path}")
        yield other
        other.dispose()
        return
    databases = request.getfixturevalue("postgres")
    url = databases.create(migrated=True)
    other = make_engine(url)
    yield other
    other.dispose()
    databases.drop(url)


def test_the_fast_way_writes_what_the_plain_way_writes(
    engine: Engine, other_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _import_all(other_engine, monkeypatch, "plain")
    fast = _import_all(engine, monkeypatch, "fast")
    assert fast == plain
    plain_contents, fast_contents = _contents(other_engine), _contents(engine)
    assert plain_contents["printed_texts"] and plain_contents["ruling_mechanics"]
    assert plain_contents["mechanic_names"] and plain_contents["near_duplicates"]
    for table in plain_contents:
        assert fast_contents[table] == plain_contents[table], table


def test_the_setting_chooses_the_way(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    with engine.connect() as connection:
        monkeypatch.setenv(bulk.PLAIN_SETTING, "plain")
        assert isinstance(bulk_for(connection), PlainBulk)
        monkeypatch.delenv(bulk.PLAIN_SETTING)
        assert isinstance(bulk_for(connection), FastBulk)


@pytest.mark.parametrize("way", [PlainBulk, FastBulk])
def test_each_way_reads_writes_and_updates_rows_as_tuples(
    engine: Engine, way: type[bulk.Bulk]
) -> None:
    import datetime as dt

    with engine.begin() as connection:
        rows = way(connection)
        ids = rows.insert_ids(schema.cards, ("name", "oracle_id"), [("A", None), ("B", "b")])
        assert ids == [ids[0], ids[0] + 1]
        assert rows.insert_ids(schema.cards, ("name",), [("C",)]) == [ids[0] + 2]
        rulings = rows.insert_ids(
            schema.rulings,
            ("text", "text_key", "skeleton_key", "head_key"),
            [("t", "k", "s", "h")],
        )
        day = dt.date(2022, 5, 1)
        rows.insert(
            schema.card_rulings,
            ("card_id", "ruling_id", "published_on", "position"),
            [(ids[0], rulings[0], day, 0), (ids[1], rulings[0], None, 0)],
        )
        found = rows.select_in(
            schema.card_rulings, ("card_id", "published_on"), "card_id", [ids[0], ids[1], None]
        )
        assert sorted(found, key=lambda row: row[0]) == [(ids[0], day), (ids[1], None)]
        rows.update(
            schema.card_rulings,
            ("published_on", "position"),
            ("card_id", "ruling_id"),
            [(day, 3, ids[1], rulings[0])],
        )
        found = rows.select_in(
            schema.card_rulings, ("card_id", "published_on", "position"), "ruling_id", rulings
        )
        assert sorted(found) == [(ids[0], day, 0), (ids[1], day, 3)]
        assert rows.select_in(schema.cards, ("id",), "oracle_id", [None]) == []
        assert rows.select_in(schema.cards, ("name",), "oracle_id", ["b", "x"]) == [("B",)]
        assert rows.insert_ids(schema.cards, ("name",), []) == []
        rows.insert(schema.cards, ("name",), [])
        rows.update(schema.cards, ("name",), ("id",), [])


def test_a_new_stores_text_tags_give_the_mining_what_its_texts_give(
    engine: Engine, other_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mining takes the cards of the keyword actions no source lists (Counter) from a new
    store's text tags, where the plain way matches every card's text again
    (kb.loader.mined_names): the same cards, the same names."""
    monkeypatch.setattr(mined_names, "UNLISTED_MIN_CARDS", 4)
    said: list[dict[str, tuple[int, set[int]]]] = []
    unlisted = mined_names.MinedNames._unlisted_actions

    def kept(miner: mined_names.MinedNames) -> dict[str, tuple[int, set[int]]]:
        said.append(unlisted(miner))
        return said[-1]

    monkeypatch.setattr(mined_names.MinedNames, "_unlisted_actions", kept)
    matched = []  # each time the texts were matched again
    match = mined_names.MinedNames._said
    monkeypatch.setattr(
        mined_names.MinedNames,
        "_said",
        lambda miner, *args: matched.append(1) or match(miner, *args),
    )
    # Sets and rules alone: kb's catalog holds cards too, and read before the rules, their
    # text tags would not be whole (``card_texts_stale``).
    paths = [realdata(SETS) / "M10.json.gz"]
    for store, way in ((other_engine, "plain"), (engine, "fast")):
        monkeypatch.setenv(bulk.PLAIN_SETTING, way)
        run_import(store, [*paths, realdata("MagicCompRules_20220429.txt")])
    plain, fast = said
    assert matched == [1]  # by the plain way only
    assert {name: len(cards) for name, (_, cards) in fast.items()} == {
        "Counter": 5,
        "Regenerate": 5,
    }
    assert [cards for _, cards in plain.values()] == [cards for _, cards in fast.values()]
    assert _contents(engine) == _contents(other_engine)
