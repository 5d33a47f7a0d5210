"""Real files from Scryfall, MTGJSON and Wizards import into one store where each ruling exists
once (../shared/realdata; skipped, saying why, where it is absent)."""

from __future__ import annotations

import gzip
import multiprocessing
import shutil
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from conftest import run_kb
from realdata import DATA, realdata
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from kb import migrate, parsing, schema
from kb.cli.import_summary import summary_lines
from kb.engine import make_engine
from kb.importers import streams
from kb.importing import ImportOptions, run_import
from kb.records import ParseError

TSA = "Three Steps Ahead"
CITC = "Caught in the Crossfire"
MENDED = "If the copied permanent has {X} in its mana cost, X is 0."


def scalar(engine: Engine, query: object) -> object:
    with engine.connect() as connection:
        return connection.execute(query).scalar_one()  # type: ignore[call-overload]


def rulings_where(engine: Engine, condition: Any) -> object:
    return scalar(engine, select(func.count()).select_from(schema.rulings).where(condition))


def card_dates(engine: Engine, name: str) -> list[str | None]:
    query = (
        select(schema.card_rulings.c.published_on)
        .join(schema.cards, schema.cards.c.id == schema.card_rulings.c.card_id)
        .where(schema.cards.c.name == name)
    )
    with engine.connect() as connection:
        return [d.isoformat() if d else None for d in connection.execute(query).scalars()]


def test_mtgjson_excerpt_with_the_seed_pages_keeps_one_ruling_each(engine: Engine) -> None:
    summary = run_import(engine, [DATA, realdata("mtgjson_OTJ_excerpt.json")])
    pair = select(schema.cards.c.id).where(schema.cards.c.name.in_([TSA, CITC]))
    rulings = select(func.count(func.distinct(schema.card_rulings.c.ruling_id))).where(
        schema.card_rulings.c.card_id.in_(pair)
    )
    assert scalar(engine, rulings) == 21
    assert rulings_where(engine, schema.rulings.c.text == MENDED) == 1
    assert rulings_where(engine, schema.rulings.c.text.contains("has in its mana cost")) == 0
    # MTGJSON (cards and rulings) goes before rulings pages: the good text came first.
    assert summary.counts["rulings improved"] == 0
    assert card_dates(engine, TSA) == ["2024-04-12"] * 18
    assert card_dates(engine, CITC) == ["2024-04-12"] * 15
    names = (
        select(func.count())
        .select_from(schema.card_names)
        .join(schema.cards)
        .where(schema.cards.c.name == TSA, schema.card_names.c.locale != "en")
    )
    assert scalar(engine, names) == 7


def test_the_mtgjson_excerpt_first_then_the_seed_pages(engine: Engine) -> None:
    run_import(engine, [realdata("mtgjson_OTJ_excerpt.json")])
    summary = run_import(engine, [DATA])
    assert summary.counts["rulings new"] == 0
    assert summary.counts["links new"] == 0
    assert rulings_where(engine, schema.rulings.c.text == MENDED) == 1
    assert rulings_where(engine, schema.rulings.c.text.contains("has in its mana cost")) == 0


def test_scryfall_cards_link_by_oracle_id_and_add_names(engine: Engine) -> None:
    run_import(engine, [DATA])
    run_import(
        engine,
        [
            realdata("scryfall_card_otj_75_three_steps_ahead.json"),
            realdata("scryfall_card_m21_2_de_alpine_watchdog.json"),
        ],
    )
    assert scalar(engine, select(func.count()).select_from(schema.cards)) == 3
    german = (
        select(schema.card_names.c.name)
        .join(schema.cards)
        .where(schema.cards.c.name == "Alpine Watchdog", schema.card_names.c.locale == "de")
    )
    assert scalar(engine, german) == "Alpiner Wachhund"


def test_scryfall_rulings_keep_their_origin(engine: Engine, tmp_path: Path) -> None:
    card = realdata("scryfall_rulings_list_derevi.json")
    summary = run_import(engine, [card])
    assert summary.counts["links new"] == 0
    assert len(summary.warnings) == 3
    assert (
        "a ruling for an unknown card: afa49a09-146f-4439-850e-dd1938c93cef"
        in (summary.warnings[0])
    )
    assert scalar(engine, select(func.count()).select_from(schema.rulings)) == 0
    catalog = tmp_path / "derevi.toml"
    catalog.write_text(
        '[[cards]]\nname = "Derevi, Empyrial Tactician"\n'
        'oracle_id = "afa49a09-146f-4439-850e-dd1938c93cef"\n',
        encoding="utf-8",
    )
    run_import(engine, [catalog, card])
    with engine.connect() as connection:
        origins = connection.execute(
            select(schema.rulings.c.origin).order_by(schema.rulings.c.id)
        ).scalars()
        assert list(origins) == ["scryfall", "wotc", "wotc"]


def test_comprehensive_rules_give_every_keyword_and_the_2024_mechanics(engine: Engine) -> None:
    run_import(engine, [realdata("MagicCompRules_20220429.txt")])
    with engine.connect() as connection:
        abilities = dict(
            connection.execute(
                select(schema.mechanics.c.rule, schema.mechanics.c.slug).where(
                    schema.mechanics.c.kind == "keyword_ability"
                )
            ).all()
        )
    expected = {f"702.{number}" for number in range(2, 154)}
    assert set(abilities) == expected
    assert abilities["702.2"] == "deathtouch"
    assert abilities["702.153"] == "casualty"
    run_import(engine, [realdata("MagicCompRules_2024_excerpt_outlaw_spree.txt")])
    query = select(schema.mechanics.c.slug, schema.mechanics.c.kind, schema.mechanics.c.rule).where(
        schema.mechanics.c.slug.in_(["spree", "outlaw"])
    )
    with engine.connect() as connection:
        assert sorted(connection.execute(query).all()) == [
            ("outlaw", "term", "700.12"),
            ("spree", "keyword_ability", "702.172"),
        ]


@pytest.mark.parametrize("suffix", [".gz", ".xz", ".bz2", ".zip"])
def test_compressed_files_import_as_published(sqlite_url: str, tmp_path: Path, suffix: str) -> None:
    import bz2
    import lzma
    import zipfile

    source = realdata("mtgjson_OTJ_excerpt.json")
    target = tmp_path / f"OTJ.json{suffix}"
    openers = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}
    if suffix == ".zip":
        with zipfile.ZipFile(target, "w") as archive:
            archive.write(source, "OTJ.json")
    else:
        with source.open("rb") as plain, openers[suffix](target, "wb") as packed:
            shutil.copyfileobj(plain, packed)
    engine = make_engine(sqlite_url)
    summary = run_import(engine, [target])
    assert summary.counts["cards new"] == 6
    assert summary.counts["links new"] == 54  # the six cards' rulings, Spree ones shared
    assert summary.counts["rulings new"] == 42
    engine.dispose()


@pytest.mark.parametrize(
    "content,reason",
    [
        (b'[{"object": "ruling", "oracle_id": "x", "published_at": "2024-01-0', "truncated"),
        (
            b'[{"object": "ruling", "oracle_id": "x", "published_at": 5, "comment": "c"}]',
            "item 1: published_at 5 is not a date",
        ),
        (b'{"unknown": "shape"}', "JSON of no known shape"),
    ],
)
def test_invalid_source_aborts_the_whole_run(
    sqlite_url: str, tmp_path: Path, content: bytes, reason: str
) -> None:
    engine = make_engine(sqlite_url)
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [DATA, bad])
    assert str(raised.value).startswith(f"{bad}")
    assert reason in str(raised.value)
    assert scalar(engine, select(func.count()).select_from(schema.cards)) == 0
    engine.dispose()


BROKEN_JSON = b"""[
 {"object": "ruling", "oracle_id": "x",
  "published_at": "2024-01-01" "comment": "c"}
]
"""


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("bad.json", BROKEN_JSON, "bad.json:3: invalid JSON: Expecting ',' delimiter (column 32)"),
        (
            "bad.json.gz",
            gzip.compress(BROKEN_JSON, mtime=0),
            "bad.json.gz:3: invalid JSON: Expecting ',' delimiter (column 32)",
        ),
        (
            "cut.json",
            BROKEN_JSON[:62],
            "cut.json:3: truncated JSON: Unterminated string starting at (column 19)",
        ),
        (  # the damaged archive is what the error names, not the JSON it cuts short
            "cut.json.gz",
            gzip.compress(BROKEN_JSON, mtime=0)[:-12],
            "cut.json.gz: unreadable or truncated input",
        ),
    ],
)
def test_broken_json_is_located_by_line_and_column(
    sqlite_url: str, tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    engine = make_engine(sqlite_url)
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [bad])
    assert str(raised.value).removeprefix(f"{tmp_path}/").startswith(message)
    engine.dispose()


@pytest.mark.parametrize(
    "tail,line,reason",
    [
        (b'" x]\n', 0, "invalid JSON (lexical error: invalid char in json text.)"),
        (b'"}]\n\n{"more": 1}\n', 2, "content after the end of the JSON value"),
        (b'"}]\n\xff\n', 1, "not valid UTF-8 (byte 0xff)"),
        (b'"}', 0, "truncated JSON (parse error: premature EOF)"),
    ],
)
def test_broken_json_too_large_to_read_whole_is_located_line_by_line(
    sqlite_url: str, tmp_path: Path, tail: bytes, line: int, reason: str
) -> None:
    engine = make_engine(sqlite_url)
    bad = tmp_path / "large.json"
    # Rulings of a sane length (a single long one would stop at the text limit first), more
    # than JSON_LOCATE_BYTES of them, then the break on the line after the last one's start.
    filler = b'{"object": "ruling", "oracle_id": "x", "comment": "' + b"x" * 1000 + b'"},\n'
    count = streams.JSON_LOCATE_BYTES // len(filler) + 1
    head = b'[\n{"object": "ruling", "oracle_id": "x",\n"comment": "x'
    bad.write_bytes(b"[\n" + filler * count + head[2:] + tail)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [bad])
    assert str(raised.value) == f"{tmp_path}/large.json:{3 + count + line}: {reason}"
    engine.dispose()


def test_format_option_forces_a_parser(sqlite_url: str, tmp_path: Path) -> None:
    engine = make_engine(sqlite_url)
    with pytest.raises(ParseError, match="is not a ruling"):
        run_import(
            engine,
            [realdata("scryfall_card_otj_75_three_steps_ahead.json")],
            ImportOptions(format="scryfall-rulings"),
        )
    engine.dispose()


@pytest.mark.realdata
def test_the_whole_2022_mtgjson_corpus_imports_in_one_run(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    summary = run_import(engine, [realdata("mtgjson-sets-2022-05")])
    count = lambda table: scalar(engine, select(func.count()).select_from(table))  # noqa: E731
    # 23,596 distinct non-empty texts in the files; 276 differ from another by typography alone
    # (straight or curly apostrophes), so 23,320 entries: never more than the 23,597 texts.
    assert count(schema.rulings) == 23_320
    # 45,080 links by MTGJSON card name; the 34 of reversible printings (keyed by name there, by
    # oracle id elsewhere) fall on their card, and one card had two typographic copies of a text.
    assert count(schema.card_rulings) == 45_045
    most_shared = (
        select(func.count())
        .select_from(schema.card_rulings)
        .group_by(schema.card_rulings.c.ruling_id)
        .order_by(func.count().desc())
        .limit(1)
    )
    assert scalar(engine, most_shared) == 124
    with engine.connect() as connection:
        locales = set(connection.execute(select(schema.card_names.c.locale).distinct()).scalars())
        faces = {
            name: layout
            for name, layout in connection.execute(
                select(schema.cards.c.name, schema.cards.c.layout).where(
                    schema.cards.c.id.in_(select(schema.card_faces.c.card_id))
                )
            )
        }
    assert locales == {
        "en",
        "de",
        "fr",
        "it",
        "es",
        "pt-BR",
        "ja",
        "ko",
        "ru",
        "zh-Hans",
        "zh-Hant",
    }
    assert set(summary.other_locales) == {
        "Phyrexian",
        "Sanskrit",
        "Latin",
        "Hebrew",
        "Arabic",
        "Ancient Greek",
    }
    assert faces["Who // What // When // Where // Why"] == "split"
    assert faces["Delver of Secrets // Insectile Aberration"] == "transform"
    assert faces["Bruna, the Fading Light"] == "meld"
    assert faces["Bushi Tenderfoot // Kenzo the Hardhearted"] == "flip"
    assert faces["Brazen Borrower // Petty Theft"] == "adventure"
    assert faces["Valki, God of Lies // Tibalt, Cosmic Impostor"] == "modal_dfc"
    assert not run_import(engine, [realdata("mtgjson-sets-2022-05")]).changed
    engine.dispose()


@pytest.mark.parametrize("bad", [False, True])
def test_parsing_in_a_second_process_gives_the_same_store(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: bool
) -> None:
    """Large inputs are parsed in a worker process; its records and errors arrive unchanged."""
    paths = [DATA, realdata("mtgjson_OTJ_excerpt.json")]
    if bad:
        broken = tmp_path / "rulings.json"
        broken.write_bytes(b'[{"object": "ruling", "oracle_id": "x", "published_at": 5}]')
        paths.append(broken)
    in_process = make_engine(f"sqlite:///{tmp_path / 'in-process.sqlite'}")
    early = make_engine(f"sqlite:///{tmp_path / 'early.sqlite'}")
    for engine in (in_process, early):
        migrate.upgrade(engine)
    worker = make_engine(sqlite_url)
    outcomes = []
    # In this process; in a parser process spawned by the import; in one started before the
    # files were recognised, as ``kb import`` starts it.
    for engine, threshold in ((in_process, 1 << 40), (worker, 0), (early, 0)):
        monkeypatch.setattr(parsing, "PARALLEL_PARSE_BYTES", threshold)
        try:
            started = parsing.early_parser(paths) if engine is early else nullcontext(None)
            with started as parser:
                assert (parser is not None) == (engine is early)
                outcomes.append(summary_lines(run_import(engine, paths, parser=parser)))
        except ParseError as error:
            outcomes.append([str(error)])
    assert outcomes[0] == outcomes[1] == outcomes[2]
    if bad:
        assert outcomes[1] == [f"{paths[-1]}: item 1: comment (missing) is not a string"]
    assert snapshot_rows(in_process) == snapshot_rows(worker) == snapshot_rows(early)
    assert not multiprocessing.active_children()  # each parser process ended
    for engine in (in_process, worker, early):
        engine.dispose()


def snapshot_rows(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as connection:
        query = (
            select(schema.cards.c.name, schema.rulings.c.text, schema.card_rulings.c.published_on)
            .join(schema.card_rulings, schema.card_rulings.c.card_id == schema.cards.c.id)
            .join(schema.rulings, schema.rulings.c.id == schema.card_rulings.c.ruling_id)
        )
        return sorted(connection.execute(query).all())


def test_an_unchanged_bulk_file_is_skipped_unless_forced(engine: Engine) -> None:
    excerpt = realdata("mtgjson_OTJ_excerpt.json")
    assert run_import(engine, [DATA, excerpt]).changed
    again = run_import(engine, [DATA, excerpt])
    assert again.counts["files skipped"] == 1
    assert "files: 1 skipped (imported before: same checksum; --force)" in summary_lines(again)
    forced = run_import(engine, [excerpt], ImportOptions(force=True))
    assert forced.counts["files skipped"] == 0
    assert forced.counts["links unchanged"] == 54
    assert not forced.changed


def german_name(engine: Engine, card: str, locale: str = "de") -> str:
    names = schema.card_names
    english = select(names.c.card_id).where(names.c.locale == "en", names.c.name == card)
    query = select(names.c.name).where(names.c.locale == locale, names.c.card_id.in_(english))
    return str(scalar(engine, query))


def import_sets(engine: Engine, codes: str, force: bool = False) -> Any:
    paths = [realdata(f"mtgjson-sets-2022-05/{code}.json.gz") for code in codes.split()]
    return run_import(engine, paths, ImportOptions(force=force))


@pytest.mark.realdata
@pytest.mark.parametrize("runs", [["HOU", "C19"], ["C19", "HOU"], ["C19 HOU"], ["HOU C19"]])
def test_a_translated_name_outranks_a_source_that_gives_the_english_one(
    engine: Engine, runs: list[str]
) -> None:
    """MTGJSON's German Farm // Market is "Feld // Markt" in Hour of Devastation (HOU) and
    "Farm // Market" in Commander 2019 (C19): the translation stands, in one run or two, in
    either order, and importing either set again changes nothing."""
    for run in runs:
        import_sets(engine, run)
        if run == runs[0] == "C19":  # no translation read yet: the English name stands
            assert german_name(engine, "Farm // Market") == "Farm // Market"
    assert german_name(engine, "Farm // Market") == "Feld // Markt"
    for code in ("C19", "HOU"):
        again = import_sets(engine, code, force=True)
        assert (again.counts["names new"], again.counts["names changed"]) == (0, 0)
    assert german_name(engine, "Farm // Market") == "Feld // Markt"


@pytest.mark.realdata
@pytest.mark.parametrize("runs", [["C13 C18"], ["C18 C13"], ["C13", "C18"], ["C18", "C13"]])
def test_a_cards_name_follows_its_most_recent_printing_as_its_text_does(
    engine: Engine, runs: list[str]
) -> None:
    """Aethermage's Touch is "Toucher de l'Aethermage" in French in Commander 2013 and "Toucher
    de l'Éthermage" in Commander 2018: the 2018 printing's name stands, beside its text, in
    one run or two, in either order, and importing either set again changes nothing."""
    for run in runs:
        import_sets(engine, run)
        if run == runs[0] == "C13":
            assert german_name(engine, "Aethermage's Touch", "fr") == "Toucher de l'Aethermage"
    assert german_name(engine, "Aethermage's Touch", "fr") == "Toucher de l'Éthermage"
    assert german_name(engine, "Aethermage's Touch") == "Berührung des Äthermagiers"
    for code in ("C13", "C18"):
        again = import_sets(engine, code, force=True)
        assert (again.counts["names new"], again.counts["names changed"]) == (0, 0)
    assert german_name(engine, "Aethermage's Touch", "fr") == "Toucher de l'Éthermage"


@pytest.mark.realdata
def test_an_editors_name_stands_against_a_later_printing(database_url: str) -> None:
    engine = make_engine(database_url)
    import_sets(engine, "C13")
    edit = ["edit", "card-name", "Aethermage's Touch", "fr", "Toucher de l'Éthermage (corrigé)"]
    edit += ["--editor", "ana"]
    assert run_kb(database_url, *edit).exit_code == 0
    import_sets(engine, "C18")
    assert german_name(engine, "Aethermage's Touch", "fr") == "Toucher de l'Éthermage (corrigé)"
    engine.dispose()
