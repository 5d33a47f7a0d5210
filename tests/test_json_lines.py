"""Scryfall's bulk files as JSON Lines (one object a line, gzip-compressed), and inputs that hold
more than their first JSON value: read whole as JSON Lines, or an error naming the line."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import scryfall_ruling
from realdata import DATA, realdata
from sqlalchemy import select
from sqlalchemy.engine import Engine

from benchmarks import synthetic
from kb import schema
from kb.cli import cli
from kb.cli.import_summary import summary_lines
from kb.importers import json_lines, recognise, scryfall, streams
from kb.importing import run_import
from kb.records import CardNameRecord, CardRecord, ParseError, RulingRecord

TSA = "scryfall_card_otj_75_three_steps_ahead.json"
WATCHDOG = "scryfall_card_m21_2_de_alpine_watchdog.json"
DEREVI = "scryfall_rulings_list_derevi.json"


def _lines(*values: object) -> bytes:
    return b"".join(json.dumps(value).encode() + b"\n" for value in values)


def _rulings(content: bytes, path: str = "rulings.jsonl") -> list[RulingRecord]:
    return list(scryfall.parse_rulings(io.BytesIO(content), path))


def _cards(content: bytes, path: str = "cards.jsonl") -> list[CardRecord | CardNameRecord]:
    return list(scryfall.parse_cards(io.BytesIO(content), path))


def _without_lines(records: list[Any]) -> list[Any]:
    """Records as the JSON array form gives them: its items have no line of their own."""
    import dataclasses

    return [dataclasses.replace(record, line=None) for record in records]


def _real_objects(name: str) -> list[dict[str, Any]]:
    value = json.loads(realdata(name).read_text(encoding="utf-8"))
    return list(value["data"]) if value.get("object") == "list" else [value]


def test_every_line_is_read_and_records_carry_their_line() -> None:
    content = _lines(
        scryfall_ruling("a"), scryfall_ruling("b"), scryfall_ruling("a", comment="second of a")
    )
    rulings = _rulings(content)
    assert [(r.card.oracle_id, r.position, r.line) for r in rulings] == [
        ("a", 0, 1),
        ("b", 0, 2),
        ("a", 1, 3),
    ]
    assert _without_lines(rulings) == _rulings(
        json.dumps(
            [
                scryfall_ruling("a"),
                scryfall_ruling("b"),
                scryfall_ruling("a", comment="second of a"),
            ]
        ).encode()
    )


def test_real_cards_as_json_lines_give_the_records_of_their_json_form() -> None:
    objects = _real_objects(TSA) + _real_objects(WATCHDOG)
    from_lines = _cards(_lines(*objects))
    from_array = _cards(json.dumps(objects).encode(), "cards.json")
    assert len(from_lines) == 4  # two cards, the German printed name and printed text
    assert _without_lines(from_lines) == from_array
    assert [record.line for record in from_lines] == [1, 2, 2, 2]


def test_real_rulings_as_json_lines_give_the_records_of_the_api_list() -> None:
    from_lines = _rulings(_lines(*_real_objects(DEREVI)))
    from_list = _rulings(realdata(DEREVI).read_bytes(), "derevi.json")
    assert len(from_lines) == 3
    assert _without_lines(from_lines) == from_list


def test_orjson_gives_the_records_json_loads_gives() -> None:
    """kb parses each line with orjson for speed; Python's own parser is the reference."""
    objects = _real_objects(TSA) + _real_objects(WATCHDOG)
    corpus = list(synthetic.cards_and_rulings(40, seed=3))
    objects += [card for cards, _ in corpus for card in cards]
    content = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()
    fast, _ = json_lines.open_lines(io.BytesIO(content), "x")
    plain, _ = json_lines.open_lines(io.BytesIO(content), "x", loads=json.loads)
    assert fast is not None and plain is not None
    fast_values, plain_values = list(fast), list(plain)
    assert len(fast_values) == len(objects)
    # repr, not ==: 3 == 3.0, but a float where the other gives an int would differ.
    assert repr(fast_values) == repr(plain_values)


def test_blank_lines_a_bom_and_no_final_newline_are_fine() -> None:
    content = (
        b"\xef\xbb\xbf\n"
        + _lines(scryfall_ruling("a"))
        + b"\n  \n"
        + json.dumps(scryfall_ruling("b")).encode()
    )
    assert [(r.card.oracle_id, r.line) for r in _rulings(content)] == [("a", 2), ("b", 5)]


def test_a_list_object_on_a_line_gives_its_data() -> None:
    page = {
        "object": "list",
        "has_more": False,
        "data": [scryfall_ruling("a"), scryfall_ruling("b")],
    }
    rulings = _rulings(_lines(scryfall_ruling("z"), page))
    assert [(r.card.oracle_id, r.line) for r in rulings] == [("z", 1), ("a", 2), ("b", 2)]


@pytest.mark.parametrize(
    "content,message",
    [
        (
            _lines(scryfall_ruling(), scryfall_ruling(published_at="12.04.2024")),
            "rulings.jsonl:2: published_at '12.04.2024' is not a date YYYY-MM-DD",
        ),
        (
            _lines(scryfall_ruling(), scryfall_ruling(comment=7)),
            "rulings.jsonl:2: comment 7 is not a string",
        ),
        (
            _lines(scryfall_ruling(), {"object": "card", "oracle_id": "a"}),
            "rulings.jsonl:2: object 'card' is not a ruling",
        ),
        (_lines(scryfall_ruling(), [1, 2]), "rulings.jsonl:2: [1, 2] is not a JSON object"),
        (_lines(scryfall_ruling(), "text"), "rulings.jsonl:2: 'text' is not a JSON object"),
        (
            _lines(scryfall_ruling())
            + b'{"object": "ruling", "oracle_id"\n'
            + _lines(scryfall_ruling()),
            "rulings.jsonl:2: invalid JSON: unexpected end of data (column 33)",
        ),
        (
            _lines(scryfall_ruling()) + json.dumps(scryfall_ruling()).encode()[:-9],
            "rulings.jsonl:2: truncated JSON: unexpected end of data",
        ),
        (
            _lines(scryfall_ruling()) + b"\n" + json.dumps(scryfall_ruling()).encode() + b" {}\n",
            "rulings.jsonl:3: more than one JSON value on the line (column",
        ),
        (
            _lines(scryfall_ruling()) + b'{"comment": "caf\xe9"}\n',
            "rulings.jsonl:2: not valid UTF-8 (byte 0xe9, column 17)",
        ),
        (
            _lines(
                scryfall_ruling(),
                {"object": "list", "data": [scryfall_ruling(), scryfall_ruling(comment=None)]},
            ),
            "rulings.jsonl:2: item 2: comment (missing) is not a string",
        ),
        (
            _lines(scryfall_ruling(), {"object": "list", "data": "x"}),
            "rulings.jsonl:2: list: data 'x' is not a list of objects",
        ),
        (
            _lines(
                scryfall_ruling(),
                {"object": "list", "data": [scryfall_ruling(), {"object": "set"}]},
            ),
            "rulings.jsonl:2: item 2: object 'set' is not a ruling",
        ),
    ],
)
def test_a_bad_line_is_named_by_its_number(content: bytes, message: str) -> None:
    with pytest.raises(ParseError) as raised:
        _rulings(content)
    assert str(raised.value).startswith(message)


def test_a_line_too_long_to_be_an_object_is_an_error() -> None:
    huge = {"object": "ruling", "comment": "x" * json_lines.MAX_LINE_BYTES}
    with pytest.raises(ParseError) as raised:
        _rulings(_lines(scryfall_ruling(), scryfall_ruling(), huge))
    assert str(raised.value) == "rulings.jsonl:3: a line longer than 4 MiB is not one JSON object"


def test_a_long_line_under_the_limit_is_read() -> None:
    long = scryfall_ruling("b", comment="x" * (json_lines.MAX_LINE_BYTES - 200))
    rulings = _rulings(_lines(scryfall_ruling("a"), long))
    assert [len(r.text) for r in rulings] == [len("ruling of a"), json_lines.MAX_LINE_BYTES - 200]


def test_a_multi_line_object_is_named_as_item_1() -> None:
    content = json.dumps(scryfall_ruling(comment=None), indent=1).encode()
    with pytest.raises(ParseError) as raised:
        _rulings(content, "ruling.json")
    assert str(raised.value) == "ruling.json: item 1: comment (missing) is not a string"


@pytest.mark.parametrize(
    "content",
    [
        json.dumps(scryfall_ruling(), indent=1).encode()
        + b"\n"
        + json.dumps(scryfall_ruling()).encode()
        + b"\n",
        json.dumps(scryfall_ruling(), indent=1).encode() + b"\ngarbage\n",
        json.dumps([scryfall_ruling()], indent=1).encode()
        + b"\n"
        + json.dumps([scryfall_ruling()]).encode(),
        json.dumps({"object": "list", "data": [scryfall_ruling()]}, indent=1).encode() + b"\n]",
    ],
    ids=["object then object", "object then garbage", "array then array", "list then ]"],
)
def test_content_after_a_multi_line_document_is_an_error(content: bytes) -> None:
    """A document that spans lines is not JSON Lines: what follows it is never left unread."""
    with pytest.raises(streams.InvalidJson):
        _rulings(content, "rulings.json")


def _import_cli(path: Path) -> Any:
    return CliRunner().invoke(cli, ["import", str(path)])


def test_the_issue_two_cards_in_a_jsonl_file_import_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: a .jsonl file of two different Scryfall cards imported one card, exit 0."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KB_DATABASE_URL", f"sqlite:///{tmp_path / 'kb.sqlite'}")
    cards = tmp_path / "cards.jsonl"
    cards.write_bytes(_lines(*_real_objects(TSA), *_real_objects(WATCHDOG)))
    result = _import_cli(cards)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [
        "cards: 2 new, 0 updated, 0 unchanged",
        "names: 3 new, 0 changed, 0 unchanged",
    ]


@pytest.mark.parametrize(
    "name,content,message",
    [
        (
            "set.json",
            b'{"meta": {}, "data": {"code": "X", "cards": []}}\n{"meta": {}}\n',
            "set.json:2: content after the end of the JSON value (column 1)",
        ),
        (
            "set.json",
            b'{\n "data": {"code": "X",\n  "cards": []}\n}\ngarbage',
            "set.json:5: content after the end of the JSON value (column 1)",
        ),
        (
            "card.json",
            json.dumps({"object": "card", "oracle_id": "a", "name": "A"}, indent=1).encode()
            + b"\n{}",
            "card.json:6: content after the end of the JSON value (column 1)",
        ),
        (
            "rulings.json",
            json.dumps([scryfall_ruling()]).encode()
            + b"\n"
            + json.dumps([scryfall_ruling()]).encode(),
            "rulings.json:2: content after the end of the JSON value (column 1)",
        ),
        (
            "rulings.jsonl.gz",
            gzip.compress(_lines(scryfall_ruling()) + b"{oops}\n", mtime=0),
            "rulings.jsonl.gz:2: invalid JSON: unexpected character, expected a string key"
            " (column 2)",
        ),
    ],
)
def test_a_second_value_is_an_error_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: bytes, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KB_DATABASE_URL", f"sqlite:///{tmp_path / 'kb.sqlite'}")
    (tmp_path / name).write_bytes(content)
    result = CliRunner().invoke(cli, ["import", name])
    assert result.exit_code == 1
    assert result.stderr == f"kb: error: {message}\n"


def store_contents(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    """What an import put in the store, without ids or where it came from."""
    queries = {
        "cards": select(
            schema.cards.c.name,
            schema.cards.c.oracle_id,
            schema.cards.c.mana_cost,
            schema.cards.c.type_line,
            schema.cards.c.oracle_text,
            schema.cards.c.layout,
        ),
        "names": select(
            schema.cards.c.name, schema.card_names.c.locale, schema.card_names.c.name
        ).join(schema.card_names),
        "rulings": select(schema.rulings.c.text, schema.rulings.c.origin),
        "links": select(
            schema.cards.c.name,
            schema.rulings.c.text,
            schema.card_rulings.c.published_on,
            schema.card_rulings.c.position,
        )
        .join(schema.card_rulings, schema.card_rulings.c.card_id == schema.cards.c.id)
        .join(schema.rulings, schema.rulings.c.id == schema.card_rulings.c.ruling_id),
        "faces": select(
            schema.cards.c.name, schema.card_faces.c.position, schema.card_faces.c.name
        ).join(schema.card_faces, schema.card_faces.c.card_id == schema.cards.c.id),
    }
    with engine.connect() as connection:
        return {key: sorted(connection.execute(query).all()) for key, query in queries.items()}


def _derevi_catalog(folder: Path) -> Path:
    catalog = folder / "derevi.toml"
    catalog.write_text(
        '[[cards]]\nname = "Derevi, Empyrial Tactician"\n'
        'oracle_id = "afa49a09-146f-4439-850e-dd1938c93cef"\n',
        encoding="utf-8",
    )
    return catalog


@pytest.mark.parametrize("compressed", [False, True], ids=["jsonl", "jsonl.gz"])
def test_real_scryfall_files_as_json_lines_import_as_their_json(
    database_url: str, tmp_path: Path, compressed: bool
) -> None:
    from kb import migrate
    from kb.engine import make_engine

    as_json = [realdata(TSA), realdata(WATCHDOG), realdata(DEREVI)]
    cards = _lines(*_real_objects(TSA), *_real_objects(WATCHDOG))
    rulings = _lines(*_real_objects(DEREVI))
    suffix = ".jsonl.gz" if compressed else ".jsonl"
    as_lines = [tmp_path / f"all-cards{suffix}", tmp_path / f"rulings{suffix}"]
    for path, content in zip(as_lines, (cards, rulings), strict=True):
        path.write_bytes(gzip.compress(content, mtime=0) if compressed else content)
    catalog = _derevi_catalog(tmp_path)
    reference = make_engine(f"sqlite:///{tmp_path / 'reference.sqlite'}")
    migrate.upgrade(reference)
    reference_summary = run_import(reference, [DATA, catalog, *as_json])
    engine = make_engine(database_url)
    summary = run_import(engine, [DATA, catalog, *as_lines])
    assert summary_lines(summary) == summary_lines(reference_summary)
    contents = store_contents(engine)
    assert contents == store_contents(reference)
    assert ("Alpine Watchdog", "de", "Alpiner Wachhund") in contents["names"]
    assert len([link for link in contents["links"] if link[0].startswith("Derevi")]) == 3
    reference.dispose()
    engine.dispose()


@pytest.mark.parametrize("parse_in_worker", [False, True])
def test_the_synthetic_corpus_as_json_lines_imports_as_its_arrays(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parse_in_worker: bool
) -> None:
    from kb import migrate, parsing
    from kb.engine import make_engine

    arrays = synthetic.generate(tmp_path / "arrays", 60, seed=5)
    lines = synthetic.generate(tmp_path / "lines", 60, seed=5, jsonl=True)
    assert [path.name for path in lines] == ["cards.jsonl", "rulings.jsonl"]
    cards_in_lines = lines[0].read_text(encoding="utf-8").splitlines()
    assert len(cards_in_lines) == 60 * len(synthetic.SCRYFALL_LANGS)
    assert [json.loads(line) for line in cards_in_lines] == json.loads(arrays[0].read_bytes())
    if parse_in_worker:
        monkeypatch.setattr(parsing, "PARALLEL_PARSE_BYTES", 0)
    reference = make_engine(f"sqlite:///{tmp_path / 'reference.sqlite'}")
    migrate.upgrade(reference)
    reference_summary = run_import(reference, list(arrays))
    engine = make_engine(sqlite_url)
    summary = run_import(engine, list(lines))
    assert summary.counts["cards new"] == 60
    assert summary_lines(summary) == summary_lines(reference_summary)
    assert store_contents(engine) == store_contents(reference)
    reference.dispose()
    engine.dispose()


@pytest.mark.parametrize(
    "name,compressed,expected",
    [
        ("download", False, streams.SCRYFALL_RULINGS),
        ("rulings.txt", True, streams.SCRYFALL_RULINGS),
        ("all-cards", True, streams.SCRYFALL_CARDS),
    ],
)
def test_json_lines_are_told_by_content_under_any_name(
    tmp_path: Path, name: str, compressed: bool, expected: str
) -> None:
    content = (
        _lines(*_real_objects(TSA), *_real_objects(WATCHDOG))
        if expected == streams.SCRYFALL_CARDS
        else _lines(*_real_objects(DEREVI))
    )
    path = tmp_path / name
    path.write_bytes(gzip.compress(content, mtime=0) if compressed else content)
    assert recognise.detect(path).format == expected
