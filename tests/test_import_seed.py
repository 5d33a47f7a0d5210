"""The seed pages and the catalog into one store: shared rulings, tags, idempotence, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_keys_and_pairs_follow_texts, snapshot
from realdata import DATA
from sqlalchemy import Table, func, select
from sqlalchemy.engine import Engine

from kb import schema
from kb.cli.import_summary import summary_lines
from kb.importing import ImportOptions, run_import
from kb.records import ParseError

CATALOG = DATA / "catalog.toml"
GERMAN_PAGE = DATA / "pages" / "de-three-steps-ahead.txt"
ITALIAN_PAGE = DATA / "pages" / "it-caught-in-the-crossfire.txt"
DAMAGED = "If the copied permanent has in its mana cost, X is 0."
MENDED = "If the copied permanent has {X} in its mana cost, X is 0."


def count(engine: Engine, table: Table) -> int:
    with engine.connect() as connection:
        return connection.execute(select(func.count()).select_from(table)).scalar_one()


def tagged(engine: Engine, slug: str) -> set[str]:
    query = (
        select(schema.rulings.c.text)
        .join(schema.ruling_mechanics, schema.ruling_mechanics.c.ruling_id == schema.rulings.c.id)
        .join(schema.mechanics, schema.mechanics.c.id == schema.ruling_mechanics.c.mechanic_id)
        .where(schema.mechanics.c.slug == slug)
    )
    with engine.connect() as connection:
        return set(connection.execute(query).scalars())


def shared_by_both(engine: Engine) -> set[str]:
    query = (
        select(schema.rulings.c.text)
        .join(schema.card_rulings, schema.card_rulings.c.ruling_id == schema.rulings.c.id)
        .group_by(schema.rulings.c.id, schema.rulings.c.text)
        .having(func.count() == 2)
    )
    with engine.connect() as connection:
        return set(connection.execute(query).scalars())


def test_seed_pages_make_one_store_of_shared_rulings(engine: Engine) -> None:
    summary = run_import(engine, [DATA])
    assert count(engine, schema.cards) == 2
    assert count(engine, schema.rulings) == 21
    assert count(engine, schema.card_rulings) == 33
    shared = shared_by_both(engine)
    assert len(shared) == 12
    assert tagged(engine, "spree") == shared
    assert len(tagged(engine, "outlaw")) == 3
    assert all("outlaw" in text.lower() for text in tagged(engine, "outlaw"))
    assert summary.counts["rulings new"] == 21
    assert summary.counts["links new"] == 33


def test_reimport_changes_nothing_and_says_so(engine: Engine) -> None:
    run_import(engine, [DATA])
    before = snapshot(engine)
    summary = run_import(engine, [DATA])
    assert snapshot(engine) == before
    assert not summary.changed
    assert summary_lines(summary)[-1] == "nothing changed: the store already held all of it"


def test_german_dates_are_read_with_the_locale_pattern(engine: Engine) -> None:
    run_import(engine, [DATA])
    query = (
        select(schema.card_rulings.c.published_on)
        .join(schema.cards, schema.cards.c.id == schema.card_rulings.c.card_id)
        .where(schema.cards.c.name == "Three Steps Ahead")
    )
    with engine.connect() as connection:
        dates = connection.execute(query).scalars().all()
    assert len(dates) == 18
    assert {day.isoformat() for day in dates} == {"2024-04-12"}


def test_damaged_copy_is_mended_whichever_arrives_first(engine: Engine, tmp_path: Path) -> None:
    page = tmp_path / "en-three-steps-ahead.txt"
    page.write_text(f"Three Steps Ahead\n\n{MENDED}\n", encoding="utf-8")
    run_import(engine, [DATA])
    assert DAMAGED in {r for r in tagged_texts(engine)}
    summary = run_import(engine, [page])
    texts = tagged_texts(engine)
    assert MENDED in texts and DAMAGED not in texts
    assert count(engine, schema.rulings) == 21
    assert summary.counts["rulings improved"] == 1
    assert_keys_and_pairs_follow_texts(engine)
    # The damaged copy arriving after the good text changes nothing.
    assert not run_import(engine, [GERMAN_PAGE]).changed
    assert MENDED in tagged_texts(engine)
    assert_keys_and_pairs_follow_texts(engine)


def tagged_texts(engine: Engine) -> set[str]:
    with engine.connect() as connection:
        return set(connection.execute(select(schema.rulings.c.text)).scalars())


def test_card_option_records_a_new_localized_name(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [CATALOG])
    page = tmp_path / "ko.txt"
    page.write_text("세 걸음 앞서\n\nYou can’t choose the same mode more than once.\n", "utf-8")
    with pytest.raises(ParseError, match="세 걸음 앞서"):
        run_import(engine, [page], ImportOptions(locale="ko"))
    run_import(engine, [page], ImportOptions(locale="ko", card="Three Steps Ahead"))
    query = select(schema.card_names.c.name).where(schema.card_names.c.locale == "ko")
    with engine.connect() as connection:
        assert connection.execute(query).scalars().all() == ["세 걸음 앞서"]
    # Now known, the name finds its card and its locale without options.
    assert not run_import(engine, [page]).changed


def test_unknown_name_suggests_close_matches(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [CATALOG])
    page = tmp_path / "page.txt"
    page.write_text("Drei Schritte vorau\n\n• 12.04.2024Some ruling.\n", "utf-8")
    with pytest.raises(ParseError) as raised:
        run_import(engine, [page])
    assert str(raised.value) == (
        f"{page}:1: unknown card name 'Drei Schritte vorau' "
        "(did you mean 'Drei Schritte voraus'?); name its card with --card \"English name\""
    )


BAD_PAGES = {
    "empty": (b"", "1: the file is empty"),
    "blank": (b"\n\n  \n", "1: the file is empty"),
    "invalid-utf8": (
        b"Drei Schritte voraus\n\n\xff\xfe broken\n",
        "3: not valid UTF-8 (byte 0xff)",
    ),
    "no-title": (b"\n\nYou can't choose the same mode more than once.\n", "1: no title"),
    "no-rulings": (
        b"Drei Schritte voraus\n\nOffizielle Klarstellungen von Wizards of the Coast, nur auf "
        b"Englisch.",
        "no rulings under the title",
    ),
    "bad-date": (
        "Drei Schritte voraus\n\n• 32.13.2024Text.\n".encode(),
        "3: '32.13.2024' is not a valid date",
    ),
    "no-date": (
        "Drei Schritte voraus\n\n• Text without a date.\n".encode(),
        "3: 'Text' does not start with a date in de format",
    ),
    "unknown-locale": (
        b"Nom inconnu\n\nUne clarification.\n",
        "1: unknown card name 'Nom inconnu'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_PAGES))
def test_bad_input_aborts_and_leaves_the_store_as_it_was(
    engine: Engine, tmp_path: Path, case: str
) -> None:
    data, reason = BAD_PAGES[case]
    run_import(engine, [CATALOG, GERMAN_PAGE])
    before = snapshot(engine)
    bad = tmp_path / f"{case}.txt"
    bad.write_bytes(data)
    # The good page is imported in the same run, before the bad one: all of it rolls back.
    with pytest.raises(ParseError) as raised:
        run_import(engine, [ITALIAN_PAGE, bad])
    assert str(raised.value).startswith(f"{bad}:")
    assert reason in str(raised.value)
    assert snapshot(engine) == before


def test_unknown_locale_option_is_an_error(engine: Engine) -> None:
    with pytest.raises(ParseError, match="unknown locale 'xx'"):
        run_import(engine, [GERMAN_PAGE], ImportOptions(locale="xx"))


def test_an_import_leaves_planner_statistics(engine: Engine) -> None:
    run_import(engine, [DATA])
    statistics = {
        "sqlite": "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'card_rulings'",
        "postgresql": "SELECT count(*) FROM pg_stats WHERE tablename = 'card_rulings'",
    }
    with engine.connect() as connection:
        query = statistics[connection.dialect.name]
        assert connection.exec_driver_sql(query).scalar_one() > 0
