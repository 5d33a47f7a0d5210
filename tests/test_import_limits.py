"""Importers take data and only data: a name, a text and a line have a length kb accepts, the
same in every format, told as ``file:line: reason`` (``file: item N: reason`` for JSON)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import snapshot
from realdata import DATA
from sqlalchemy.engine import Engine

from kb.importers import limits
from kb.importers.limits import MAX_LINE_BYTES, MAX_NAME_CHARS, MAX_TEXT_CHARS
from kb.importing import ImportOptions, run_import
from kb.records import ParseError

CATALOG = DATA / "catalog.toml"
GERMAN_PAGE = DATA / "pages" / "de-three-steps-ahead.txt"
ORACLE_ID = "282dfeaa-6243-4f92-838a-5cb54fa85184"  # Three Steps Ahead, in the catalog


def refused(engine: Engine, path: Path, **options: str) -> str:
    """The one-line error importing ``path`` after the demo data gives; the store unchanged."""
    before = snapshot(engine)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [GERMAN_PAGE, path], ImportOptions(**options))
    assert snapshot(engine) == before
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.fixture
def demo(engine: Engine) -> Engine:
    run_import(engine, [DATA])
    return engine


def test_a_ruling_longer_than_the_limit_is_refused(demo: Engine, tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    # Style B: a paragraph of several lines, each well under the line limit.
    paragraph = "\n".join(["x" * 1000] * 11)
    page.write_text(f"Drei Schritte voraus\n\nA ruling.\n\n{paragraph}\n", "utf-8")
    assert refused(demo, page) == (
        f"{page}:5: a ruling's text of 11,010 characters ('{'x' * 40}'...): at most 10,000"
    )


def test_a_ruling_at_the_limit_is_imported(demo: Engine, tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_text(f"Drei Schritte voraus\n\n{'y' * MAX_TEXT_CHARS}\n", "utf-8")
    assert run_import(demo, [page]).counts["rulings new"] == 1


def test_a_page_of_one_huge_line_is_refused_at_its_line(demo: Engine, tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_bytes(b"Drei Schritte voraus\n\n" + b"z" * (30 * 1024 * 1024))
    assert refused(demo, page) == (
        f"{page}:3: a line of more than 65,536 bytes: not a source kb reads"
    )


def test_a_title_longer_than_a_name_is_refused(demo: Engine, tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    title = "T" * (MAX_NAME_CHARS + 1)
    page.write_text(f"{title}\n\nA ruling.\n", "utf-8")
    assert refused(demo, page, card="Three Steps Ahead", locale="de", format="seed-page") == (
        f"{page}:3: a card's name of 501 characters ('{'T' * 40}'...): at most 500"
    )


def test_the_comprehensive_rules_with_a_huge_line(demo: Engine, tmp_path: Path) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_bytes(b"702.2. Deathtouch\r\n\r\n702.3. Defender\r" + b"w" * (MAX_LINE_BYTES + 1))
    assert refused(demo, rules) == (
        f"{rules}:4: a line of more than 65,536 bytes: not a source kb reads"
    )


def test_scryfall_rulings_name_the_item(demo: Engine, tmp_path: Path) -> None:
    rulings = tmp_path / "rulings.json"
    items = [
        {"object": "ruling", "oracle_id": ORACLE_ID, "source": "wotc", "comment": text}
        | {"published_at": "2024-04-12"}
        for text in ("Short.", "r" * (MAX_TEXT_CHARS + 1))
    ]
    rulings.write_text(json.dumps(items), "utf-8")
    assert refused(demo, rulings) == (
        f"{rulings}: item 2: a ruling's text of 10,001 characters ('{'r' * 40}'...): at most 10,000"
    )


def test_scryfall_cards_name_the_item(demo: Engine, tmp_path: Path) -> None:
    cards = tmp_path / "cards.json"
    card = {"object": "card", "oracle_id": ORACLE_ID, "name": "Three Steps Ahead", "lang": "fr"}
    cards.write_text(json.dumps([card, card | {"printed_name": "n" * 600}]), "utf-8")
    assert refused(demo, cards) == (
        f"{cards}: item 2: a card's name of 600 characters ('{'n' * 40}'...): at most 500"
    )


def test_mtgjson_names_the_card(demo: Engine, tmp_path: Path) -> None:
    sets = tmp_path / "set.json"
    card = {"name": "Three Steps Ahead", "identifiers": {"scryfallOracleId": ORACLE_ID}}
    card["foreignData"] = [{"language": "German", "name": "Drei " * 120}]
    sets.write_text(json.dumps({"data": {"baseSetSize": 1, "cards": [card]}}), "utf-8")
    assert refused(demo, sets).startswith(
        f"{sets}: card 1 foreignData: a card's name of 600 characters ('Drei Drei"
    )


def test_the_catalog_names_its_entry(engine: Engine, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'[[cards]]\nname = "Card"\noracle_text = "{"o" * 10_001}"\n', "utf-8")
    with pytest.raises(ParseError) as raised:
        run_import(engine, [catalog])
    assert str(raised.value).startswith(
        f"{catalog}: cards[0]: a card's rules text of 10,001 characters"
    )


class Endless(io.RawIOBase):
    """A stream of one line that never ends, counting what was read of it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        buffer[:] = b"a" * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


def test_a_huge_line_is_refused_before_it_is_read_whole() -> None:
    endless = Endless()
    with pytest.raises(ParseError, match=r"^x\.txt:1: a line of more than 65,536 bytes"):
        limits.line_limited(io.BufferedReader(endless), "x.txt").read()
    assert endless.read_bytes <= 3 * MAX_LINE_BYTES


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("read_size", [1, 7, 8192, 1 << 20])
def test_line_ends_and_reads_of_every_size(newline: bytes, read_size: int) -> None:
    longest = b"b" * MAX_LINE_BYTES
    content = newline.join([b"short", longest, b"", longest, b"c" * (MAX_LINE_BYTES + 1), b"d"])
    stream = limits.line_limited(io.BytesIO(content), "x.txt")
    with pytest.raises(ParseError) as raised:
        while stream.read(read_size):
            pass
    assert str(raised.value) == "x.txt:5: a line of more than 65,536 bytes: not a source kb reads"
    # Lines at the limit pass, whatever their ends and however they are read.
    fine = limits.line_limited(io.BytesIO(content[: content.index(b"c")]), "x.txt")
    while fine.read(read_size):
        pass


def test_a_huge_line_in_a_large_input_is_told_from_the_parser_process(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Over 16 MB, parsing runs in a second process: its error comes back whole."""
    from kb.engine import make_engine
    from kb.parsing import PARALLEL_PARSE_BYTES

    rules = tmp_path / "rules.txt"
    line = b"A line of a rule's text.\n"  # no rule heading: nothing for the loader to do
    count = PARALLEL_PARSE_BYTES // len(line) + 1
    rules.write_bytes(b"702.2. Deathtouch\n" + line * count + b"x" * (MAX_LINE_BYTES + 1))
    engine = make_engine(sqlite_url)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [rules])
    engine.dispose()
    assert str(raised.value) == (
        f"{rules}:{count + 2}: a line of more than 65,536 bytes: not a source kb reads"
    )


def test_a_large_import_that_fails_while_planning_ends_its_early_parser(
    tmp_path: Path,
) -> None:
    """Over 16 MB, kb import starts its parser process before it recognises the files; a file
    of no known format then stops it in one line, with no store made and no process left."""
    import multiprocessing

    from click.testing import CliRunner

    from kb.cli import cli
    from kb.parsing import PARALLEL_PARSE_BYTES

    rules = tmp_path / "rules.txt"
    rules.write_bytes(b"702.2. Deathtouch\n" + b"A rule.\n" * (PARALLEL_PARSE_BYTES // 8 + 1))
    unknown = tmp_path / "picture.png"
    unknown.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    store = tmp_path / "kb.sqlite"
    result = CliRunner().invoke(
        cli, ["--db", f"sqlite:///{store}", "import", str(rules), str(unknown)]
    )
    assert result.output == (f"kb: error: {unknown}:3: binary content, not a known source format\n")
    assert result.exit_code == 1
    assert not store.exists()
    assert not multiprocessing.active_children()


def test_kb_import_tells_the_limit_in_one_line(sqlite_url: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kb.cli import cli

    page = tmp_path / "page.txt"
    page.write_bytes(b"Drei Schritte voraus\n\n" + b"z" * (1024 * 1024))
    result = CliRunner().invoke(cli, ["--db", sqlite_url, "import", str(DATA), str(page)])
    assert result.exit_code == 1
    assert result.output == (
        f"kb: error: {page}:3: a line of more than 65,536 bytes: not a source kb reads\n"
    )
