"""Saved queries (queries/*.sql): listed, documented, and right on the demo store (and, for the
printed texts, on a set of the real corpus)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from conftest import assert_keys_and_pairs_follow_texts, run_kb
from realdata import realdata
from sqlalchemy import select, true
from sqlalchemy.engine import Engine

from kb import edits, revisions, schema
from kb.engine import make_engine
from kb.importing import run_import
from kb.site.card_texts import printed
from kb.sql import QueryError, run_query, saved_queries, saved_query_values


def rows(database_url: str, *args: str) -> list[dict[str, str]]:
    result = run_kb(database_url, "query", "--csv", *args)
    assert result.exit_code == 0, result.output
    return list(csv.DictReader(io.StringIO(result.stdout)))


def test_every_saved_query_has_a_title_and_description() -> None:
    queries = saved_queries()
    assert {
        "missing_names",
        "untagged_rulings",
        "most_shared_rulings",
        "undated_links",
        "near_duplicate_rulings",
        "translations_to_review",
        "mined_names_to_check",
        "printed_texts_to_check",
    } <= set(queries)
    for query in queries.values():
        assert query.title and query.description
    assert queries["missing_names"].parameters == {
        "mechanic": "mechanic slug, e.g. spree",
        "locale": "locale code, e.g. it",
    }


def test_a_saved_query_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    (tmp_path / "latin1.sql").write_bytes("-- title: Éclair\nSELECT 1".encode("latin-1"))
    with pytest.raises(QueryError) as raised:
        saved_queries(tmp_path)
    assert str(raised.value) == (
        f"{tmp_path / 'latin1.sql'}: not UTF-8 text (byte 10: invalid continuation byte)"
    )


def test_list_shows_names_parameters_and_titles(database_url: str) -> None:
    output = run_kb(database_url, "query", "--list").stdout
    assert "missing_names -p mechanic … -p locale …\n    Cards of a mechanic missing" in output


def test_missing_parameter_and_unknown_query_are_one_line_errors(database_url: str) -> None:
    missing = run_kb(database_url, "query", "missing_names", "-p", "locale", "it")
    assert missing.stderr == "kb: error: missing_names needs -p mechanic VALUE\n"
    unknown = run_kb(database_url, "query", "nope")
    assert unknown.stderr == "kb: error: no saved query 'nope'; kb query --list shows them\n"


def test_a_misspelt_locale_or_mechanic_is_an_error_not_an_answer(demo_url: str) -> None:
    def stderr(mechanic: str, locale: str) -> str:
        args = ["missing_names", "-p", "mechanic", mechanic, "-p", "locale", locale]
        return run_kb(demo_url, "query", *args).stderr

    assert stderr("spree", "xx") == (
        "kb: error: -p locale xx: not one of en, de, fr, it, es, pt-BR, ja, ko, ru, zh-Hans, "
        "zh-Hant\n"
    )
    assert stderr("sprey", "ko") == (
        "kb: error: -p mechanic sprey: no mechanic has this slug "
        '(kb sql "SELECT slug FROM mechanics" lists them)\n'
    )
    # Any case is the same locale or mechanic.
    korean = rows(demo_url, "missing_names", "-p", "mechanic", "Spree", "-p", "locale", "KO")
    assert len(korean) == 2


def test_saved_query_values_are_checked_in_order_and_read_the_store_last(
    demo_url: str,
) -> None:
    missing_names = saved_queries()["missing_names"]
    engine = make_engine(demo_url)
    opened: list[str] = []

    def store() -> Engine:
        opened.append("store")
        return engine

    def refused(*params: tuple[str, str]) -> str:
        with pytest.raises(QueryError) as raised:
            saved_query_values(missing_names, params, store)
        return str(raised.value)

    assert refused(("locale", "it")) == "missing_names needs -p mechanic VALUE"
    assert refused(("locale", "xx"), ("mechanic", "spree"), ("lcoale", "it")) == (
        "-p lcoale: the query has no :lcoale parameter"
    )
    assert refused(("mechanic", "spree"), ("locale", "xx"), ("locale", "it")).startswith(
        "-p locale xx: not one of en, de,"
    )
    assert opened == ["store"]  # the mechanic was looked up, once, before the bad locale
    assert refused(("locale", "pt-br"), ("mechanic", "Sprey")).startswith("-p mechanic sprey:")
    values = saved_query_values(missing_names, [("locale", "PT-br"), ("mechanic", "Spree")], store)
    assert values == {"locale": "pt-BR", "mechanic": "spree"}
    engine.dispose()


def test_missing_names(demo_url: str) -> None:
    korean = rows(demo_url, "missing_names", "-p", "mechanic", "spree", "-p", "locale", "ko")
    assert [row["card"] for row in korean] == ["Caught in the Crossfire", "Three Steps Ahead"]
    assert rows(demo_url, "missing_names", "-p", "mechanic", "spree", "-p", "locale", "it") == []


def test_untagged_rulings(demo_url: str) -> None:
    untagged = rows(demo_url, "untagged_rulings")
    assert len(untagged) == 6
    assert all(row["card_count"] == "1" for row in untagged)
    assert untagged[0]["ruling"].startswith("The token copies exactly what was printed")


def test_most_shared_rulings(demo_url: str) -> None:
    shared = rows(demo_url, "most_shared_rulings")
    assert [row["card_count"] for row in shared[:12]] == ["2"] * 12
    assert shared[12]["card_count"] == "1"
    assert shared[0]["cards"] == "Caught in the Crossfire, Three Steps Ahead"


def test_undated_links(demo_url: str) -> None:
    undated = rows(demo_url, "undated_links")
    assert {row["card"] for row in undated} == {"Caught in the Crossfire"}
    assert len(undated) == 15  # the Italian page is undated; 18 German links are dated


def test_near_duplicate_rulings(demo_url: str) -> None:
    assert rows(demo_url, "near_duplicate_rulings") == []
    engine = make_engine(demo_url)
    # Ruling 16 is a damaged copy (its {X} was lost); ruling 21 edited into the good text.
    good = "If the copied permanent has {X} in its mana cost, X is 0."
    edits.set_ruling_text(engine, "ann", 21, good)
    assert_keys_and_pairs_follow_texts(engine)
    with engine.connect() as connection:
        damaged = connection.execute(
            select(schema.rulings.c.text).where(schema.rulings.c.id == 16)
        ).scalar_one()
    engine.dispose()
    pairs = rows(demo_url, "near_duplicate_rulings")
    assert [tuple(row.values()) for row in pairs] == [
        ("16", "21", "same without symbols", damaged, good)
    ]


def test_near_duplicates_begin_alike_once_typography_is_folded(demo_url: str) -> None:
    engine = make_engine(demo_url)
    with engine.connect() as connection:
        token = connection.execute(
            select(schema.rulings.c.text).where(schema.rulings.c.id == 6)
        ).scalar_one()
    assert "’" in token[:60]
    # Ruling 10 edited to ruling 6's beginning with a straight apostrophe: kb's heads are
    # folded, so the pair is found; the revert restores ruling 10's key with its text.
    edits.set_ruling_text(engine, "ann", 10, token.replace("’", "'") + " (707.2)")
    assert_keys_and_pairs_follow_texts(engine)
    pairs = rows(demo_url, "near_duplicate_rulings")
    assert [(row["ruling_id"], row["other_ruling_id"], row["reason"]) for row in pairs] == [
        ("6", "10", "same beginning")
    ]
    revisions.revert(engine, "bob", 1)
    assert_keys_and_pairs_follow_texts(engine)
    engine.dispose()
    assert rows(demo_url, "near_duplicate_rulings") == []


def test_translations_to_review(demo_url: str) -> None:
    engine = make_engine(demo_url)
    edits.set_translation(
        engine, "ann", 2, "it", "Non puoi scegliere lo stesso modo più di una volta."
    )
    edits.set_translation(engine, "ann", 3, "it", "Ogni costo addizionale…")
    edits.set_translation(engine, "bob", 3, "it", status="reviewed")

    def waiting() -> list[tuple[str, str, str]]:
        found = rows(demo_url, "translations_to_review", "-p", "locale", "it")
        return [(row["ruling_id"], row["waiting"], row["translation"]) for row in found]

    draft = ("2", "draft", "Non puoi scegliere lo stesso modo più di una volta.")
    assert waiting() == [draft]
    assert rows(demo_url, "translations_to_review", "-p", "locale", "de") == []
    # The review was of ruling 3's English as it was: a change of its wording reopens it, a
    # change of typography alone (its key stays) does not, and a revert closes it again.
    with engine.connect() as connection:
        english = connection.execute(
            select(schema.rulings.c.text).where(schema.rulings.c.id == 3)
        ).scalar_one()
    edits.set_ruling_text(engine, "cy", 3, english.replace(" ", "  ", 1))
    assert waiting() == [draft]
    reworded = edits.set_ruling_text(engine, "cy", 3, english + " (See rule 702.172.)")
    assert waiting() == [draft, ("3", "English text changed", "Ogni costo addizionale…")]
    revisions.revert(engine, "cy", reworded)
    assert waiting() == [draft]
    engine.dispose()


@pytest.mark.realdata
def test_printed_texts_to_check(database_url: str) -> None:
    """MTGJSON's Korean texts of M12 lost lines and symbols: Archon of Justice reads
    "비행정의의 집정관이 ..." for "Flying" and "When Archon of Justice dies, ...", Alabaster Mage
    ": 당신이 조종하는 ..." for "{1}{W}: Target creature you control ..."."""
    engine = make_engine(database_url)
    run_import(engine, [realdata("mtgjson-sets-2022-05/M12.json.gz")])
    engine.dispose()
    korean_rows = rows(database_url, "printed_texts_to_check", "-p", "locale", "ko")
    korean = {row["card"]: row for row in korean_rows}
    assert korean["Archon of Justice"]["why"] == "lines run together"
    assert korean["Archon of Justice"]["text"].startswith("비행정의의 집정관이 죽을 때")
    assert korean["Alabaster Mage"]["why"] == "symbols lost"
    assert (korean["Alabaster Mage"]["set_code"], korean["Alabaster Mage"]["collector_number"]) == (
        "M12",
        "2",
    )
    assert korean["Llanowar Elves"]["text"] == ": 를 당신의 마나풀에 담는다."  # {T} and {G}
    assert "Lava Axe" not in korean and "Shock" not in korean  # whole, as printed
    assert 40 <= len(korean) <= 100
    german = rows(database_url, "printed_texts_to_check", "-p", "locale", "de")
    assert len(german) < len(korean) / 4
    # The card pages and kb card flag exactly the faces the query lists.
    engine = make_engine(database_url)
    with engine.connect() as connection:
        names = dict(connection.execute(select(schema.cards.c.id, schema.cards.c.name)).all())
        flagged = {
            (names[card_id], str(face.face))
            for (card_id, locale), faces in printed(connection, lambda _card: true()).items()
            for face in faces
            if locale == "ko" and face.damaged_in_source
        }
    engine.dispose()
    listed = {(row["card"], row["face"]) for row in korean_rows}
    assert flagged == listed and len(listed) == len(korean_rows)


@pytest.mark.realdata
def test_a_break_after_an_english_opening_quote_is_no_line(database_url: str) -> None:
    """MTGJSON breaks Urza's Saga's English inside the token's quoted ability ("with ‘" then
    "This creature gets +1/+1 ..."), and prints its translations whole: neither the saved
    query nor the card pages take them for lines run together."""
    engine = make_engine(database_url)
    run_import(engine, [realdata("mtgjson-sets-2022-05/MH2.json.gz")])
    with engine.connect() as connection:
        saga = connection.execute(
            select(schema.cards.c.id).where(schema.cards.c.name == "Urza's Saga")
        ).scalar_one()
        english = connection.execute(
            select(schema.printed_texts.c.english_text).where(
                schema.printed_texts.c.card_id == saga, schema.printed_texts.c.locale == "de"
            )
        ).scalar_one()
        faces = printed(connection, lambda card_id: card_id == saga)
    engine.dispose()
    assert "with ‘\nThis creature" in english
    assert {locale for _card, locale in faces} >= {"de", "ko", "ja"}
    assert not [face for found in faces.values() for face in found if face.damaged_in_source]
    for locale in ("de", "ko", "ja"):
        listed = rows(database_url, "printed_texts_to_check", "-p", "locale", locale)
        assert "Urza's Saga" not in {row["card"] for row in listed}


@pytest.mark.parametrize("name", sorted(saved_queries()))
def test_every_saved_query_runs_on_an_empty_store(database_url: str, name: str) -> None:
    saved = saved_queries()[name]
    engine = make_engine(database_url)
    result = run_query(engine, saved.sql, dict.fromkeys(saved.parameters, "it"))
    assert result.rows == []
    engine.dispose()
