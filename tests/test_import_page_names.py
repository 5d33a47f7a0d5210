"""A scraped page's title never replaces a card's name from an official source (Scryfall,
MTGJSON, kb's catalog) or an editor, unless asked with --replace-name."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from realdata import DATA, realdata
from sqlalchemy import select
from sqlalchemy.engine import Engine

from kb import schema
from kb.cli import cli
from kb.cli.import_summary import summary_lines
from kb.importing import ImportOptions, run_import

CATALOG = DATA / "catalog.toml"
CARD = "Three Steps Ahead"
OFFICIAL_FR = "Trois coups d'avance"  # the catalog's, as Wizards printed it
KEPT = "1 kept from an official source (use --replace-name)"


def name_of(engine: Engine, locale: str, card: str = CARD) -> str | None:
    query = (
        select(schema.card_names.c.name)
        .join(schema.cards, schema.cards.c.id == schema.card_names.c.card_id)
        .where(schema.cards.c.name == card, schema.card_names.c.locale == locale)
    )
    with engine.connect() as connection:
        return connection.execute(query).scalar_one_or_none()


def rulings_of(engine: Engine, card: str = CARD) -> list[str]:
    query = (
        select(schema.rulings.c.text)
        .join(schema.card_rulings, schema.card_rulings.c.ruling_id == schema.rulings.c.id)
        .join(schema.cards, schema.cards.c.id == schema.card_rulings.c.card_id)
        .where(schema.cards.c.name == card)
    )
    with engine.connect() as connection:
        return sorted(connection.execute(query).scalars())


def page(tmp_path: Path, title: str, ruling: str = "A ruling from the page.") -> Path:
    path = tmp_path / f"page-{len(list(tmp_path.iterdir()))}.txt"
    path.write_text(f"{title}\n\n{ruling}\n", "utf-8")
    return path


def test_a_wrong_title_keeps_the_official_name(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [CATALOG])
    wrong = page(tmp_path, "Trois pas en avant")
    summary = run_import(engine, [wrong], ImportOptions(locale="fr", card=CARD))
    assert name_of(engine, "fr") == OFFICIAL_FR
    assert f"names: 0 new, 0 changed, 0 unchanged, {KEPT}" in summary_lines(summary)
    assert summary.warnings == [
        f"{wrong}:1: kept {OFFICIAL_FR!r} (fr, from catalog) over the title "
        "'Trois pas en avant' (--replace-name replaces it)"
    ]
    # The page's rulings are the named card's all the same.
    assert "A ruling from the page." in rulings_of(engine)


def test_replace_name_lets_the_title_replace_it(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [CATALOG])
    options = ImportOptions(locale="fr", card=CARD, replace_name=True)
    summary = run_import(engine, [page(tmp_path, "Trois pas en avant")], options)
    assert name_of(engine, "fr") == "Trois pas en avant"
    assert summary_lines(summary)[1] == "names: 0 new, 1 changed, 0 unchanged"


def test_the_right_title_is_no_conflict(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [CATALOG])
    summary = run_import(engine, [page(tmp_path, OFFICIAL_FR)], ImportOptions(card=CARD))
    assert name_of(engine, "fr") == OFFICIAL_FR
    assert not summary.warnings
    assert "kept" not in summary_lines(summary)[1]


def test_a_page_gives_a_missing_name_and_a_later_page_may_change_it(
    engine: Engine, tmp_path: Path
) -> None:
    run_import(engine, [CATALOG])
    assert name_of(engine, "ko") is None
    first = run_import(engine, [page(tmp_path, "세 걸음")], ImportOptions(locale="ko", card=CARD))
    assert summary_lines(first)[1] == "names: 1 new, 0 changed, 0 unchanged"
    later = ImportOptions(locale="ko", card=CARD)
    second = run_import(engine, [page(tmp_path, "세 걸음 앞서")], later)
    assert name_of(engine, "ko") == "세 걸음 앞서"
    assert summary_lines(second)[1] == "names: 0 new, 1 changed, 0 unchanged"


def test_a_name_from_mtgjson_is_kept(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [realdata("mtgjson_OTJ_excerpt.json")])
    official = name_of(engine, "fr")
    assert official is not None
    summary = run_import(engine, [page(tmp_path, "Mauvais titre")], ImportOptions("fr", CARD))
    assert name_of(engine, "fr") == official
    assert summary.warnings[0].endswith(
        f"kept {official!r} (fr, from mtgjson) over the title 'Mauvais titre' "
        "(--replace-name replaces it)"
    )


def test_a_name_from_scryfall_is_kept(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [realdata("scryfall_card_m21_2_de_alpine_watchdog.json")])
    assert name_of(engine, "de", "Alpine Watchdog") == "Alpiner Wachhund"
    options = ImportOptions("de", "Alpine Watchdog")
    summary = run_import(engine, [page(tmp_path, "Alpenwachhund")], options)
    assert name_of(engine, "de", "Alpine Watchdog") == "Alpiner Wachhund"
    assert "(de, from scryfall-cards)" in summary.warnings[0]


@pytest.fixture
def edited(engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch) -> Engine:
    run_import(engine, [CATALOG])
    monkeypatch.setenv("KB_EDITOR", "ann")
    result = CliRunner().invoke(
        cli, ["--db", database_url, "edit", "card-name", CARD, "ko", "세 발짝 앞서"]
    )
    assert result.exit_code == 0, result.output
    return engine


def test_an_editors_name_is_kept(edited: Engine, tmp_path: Path) -> None:
    options = ImportOptions(locale="ko", card=CARD)
    summary = run_import(edited, [page(tmp_path, "세 걸음")], options)
    assert name_of(edited, "ko") == "세 발짝 앞서"
    assert "(ko, from an editor)" in summary.warnings[0]


def test_kb_import_says_what_it_kept(sqlite_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", sqlite_url, "import", str(CATALOG)]).exit_code == 0
    wrong = page(tmp_path, "Trois pas en avant")
    args = ["--db", sqlite_url, "import", str(wrong), "--locale", "fr", "--card", CARD]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert result.output == (
        "cards: 0 new, 0 updated, 0 unchanged\n"
        f"names: 0 new, 0 changed, 0 unchanged, {KEPT}\n"
        "rulings: 1 new, 0 reused, 0 improved (damaged copies mended)\n"
        "links: 1 new, 0 dated, 0 unchanged\n"
        "mechanics: 0 new, 0 updated\n"
        "tags: 0 new on cards, 0 new on rulings\n"
        "warnings: 1 (--verbose)\n"
    )
    result = runner.invoke(cli, [*args, "--replace-name"])
    assert result.exit_code == 0, result.output
    assert "names: 0 new, 1 changed, 0 unchanged\n" in result.output
