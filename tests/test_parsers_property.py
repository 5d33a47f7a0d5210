"""Every parser, fed real files damaged at random, through the real ``kb import``.

The inputs are the real files (../shared/realdata, and data/ in the repository) after one or
more mutations: truncated, bytes flipped, lines duplicated, dropped or swapped, a value replaced
by one of the wrong JSON type, a huge line, content appended after the end. Whatever the input,
``kb import`` (click's CliRunner, a real migrated SQLite store) either imports it or stops with
exactly one line ``kb: error: FILE[:LINE]: reason`` and exit status 1: never a traceback. After
a failure the store file is byte for byte what it was. A success is never a silent partial read:
the input must then be UTF-8 and, for JSON formats, be wholly JSON (one document, or JSON Lines
whose every line is one).

The examples are bounded and derandomized (the "kb" hypothesis profile in conftest.py): the same
examples on every run, nothing written into the repository.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from realdata import DATA, realdata

from kb.cli import cli
from kb.importers import json_lines

EXAMPLES = int(os.environ.get("KB_PROPERTY_EXAMPLES", "10"))
"""Examples per input: 10 keeps the module near half a minute; raise it to search harder."""
HUGE_LINE_BYTES = json_lines.MAX_LINE_BYTES + 1024
"""Longer than any line kb accepts from a JSON Lines file."""
HUGE_TEXT_LINE_BYTES = 1024 * 1024 + 1
"""A line no page, rules file or catalog has (smaller than the above: it costs less time)."""

Mutation = Callable[[st.DataObject, bytes], bytes]


# ---- the mutations -------------------------------------------------------------------------


def truncate(data: st.DataObject, content: bytes) -> bytes:
    # Per mille of the length: integers() favours small values, which would mostly cut to "".
    per_mille = data.draw(st.integers(1, 999), label="cut at ‰")
    return content[: len(content) * per_mille // 1000]


def flip_bytes(data: st.DataObject, content: bytes) -> bytes:
    damaged = bytearray(content)
    for _ in range(data.draw(st.integers(1, 3), label="flips")):
        at = data.draw(st.integers(0, len(damaged) - 1), label="flip at")
        damaged[at] ^= data.draw(st.integers(1, 255), label="xor")
    return bytes(damaged)


def _split_lines(content: bytes) -> list[bytes]:
    return content.splitlines(keepends=True) or [b""]


def duplicate_line(data: st.DataObject, content: bytes) -> bytes:
    lines = _split_lines(content)
    at = data.draw(st.integers(0, len(lines) - 1), label="duplicate line")
    line = lines[at] if lines[at].endswith(b"\n") else lines[at] + b"\n"
    return b"".join([*lines[:at], line, *lines[at:]])


def drop_line(data: st.DataObject, content: bytes) -> bytes:
    lines = _split_lines(content)
    at = data.draw(st.integers(0, len(lines) - 1), label="drop line")
    return b"".join(lines[:at] + lines[at + 1 :])


def swap_lines(data: st.DataObject, content: bytes) -> bytes:
    lines = [line if line.endswith(b"\n") else line + b"\n" for line in _split_lines(content)]
    first = data.draw(st.integers(0, len(lines) - 1), label="swap")
    second = data.draw(st.integers(0, len(lines) - 1), label="with")
    lines[first], lines[second] = lines[second], lines[first]
    return b"".join(lines)


def huge_line(data: st.DataObject, content: bytes, json_form: bool) -> bytes:
    lines = _split_lines(content)
    at = data.draw(st.integers(0, len(lines)), label="huge line at")
    filler = data.draw(st.sampled_from([b"x", b"\xc3\xa9", b" ", b'"', b"{"]), label="filler")
    size = HUGE_LINE_BYTES if json_form else HUGE_TEXT_LINE_BYTES
    huge = filler * (size // len(filler)) + b"\n"
    return b"".join([*lines[:at], huge, *lines[at:]])


def append_content(data: st.DataObject, content: bytes) -> bytes:
    tail = data.draw(
        st.sampled_from(
            [b"\n{}", b"\n[]", b"garbage", b"\n" + content, b"\x00\x01", b"}", b"\n\n\n"]
        ),
        label="appended",
    )
    return content + tail


WRONG_VALUES: list[Any] = [
    None,
    0,
    -1,
    1.5,
    10**30,
    True,
    "",
    "x",
    "2024-13-45",
    [],
    [1],
    {},
    {"a": 1},
]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value that a mutation may replace."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found.extend(_paths(child, (*prefix, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.extend(_paths(child, (*prefix, index)))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replaced(copy[head], rest, new)
    return copy


def wrong_type_in_json(
    data: st.DataObject, content: bytes, dump: Callable[[Any], bytes], lines: bool
) -> bytes:
    """One value of the document (or of one JSON Lines line) replaced by a value of another
    type, the document written again in its form."""
    if lines:
        document: Any = [json.loads(line) for line in content.splitlines() if line.strip()]
    else:
        document = json.loads(content)
    path = data.draw(st.sampled_from(_paths(document) or [()]), label="value at")
    new = data.draw(st.sampled_from(WRONG_VALUES), label="replaced by")
    return dump(_replaced(document, path, new))


def _json_lines(values: list[Any]) -> bytes:
    return b"".join(json.dumps(value, ensure_ascii=False).encode() + b"\n" for value in values)


# ---- the inputs ----------------------------------------------------------------------------


def _objects(name: str) -> list[Any]:
    value = json.loads(realdata(name).read_bytes())
    return (
        list(value["data"])
        if isinstance(value, dict) and value.get("object") == "list"
        else [value]
    )


CARDS = [
    "scryfall_card_otj_75_three_steps_ahead.json",
    "scryfall_card_m21_2_de_alpine_watchdog.json",
]


def scryfall_cards_jsonl() -> bytes:
    return _json_lines([card for name in CARDS for card in _objects(name)])


def scryfall_cards_array() -> bytes:
    return json.dumps([card for name in CARDS for card in _objects(name)], indent=1).encode()


def scryfall_rulings_jsonl() -> bytes:
    return _json_lines(_objects("scryfall_rulings_list_derevi.json"))


def scryfall_rulings_list() -> bytes:
    return realdata("scryfall_rulings_list_derevi.json").read_bytes()


def mtgjson_set() -> bytes:
    return realdata("mtgjson_OTJ_excerpt.json").read_bytes()


def mtgjson_atomic_cards() -> bytes:
    """AtomicCards' layout ({"data": {name: [face, ...]}}) made of the real excerpt's cards."""
    cards = json.loads(mtgjson_set())["cards"]  # a bare set object
    atomic: dict[str, list[Any]] = {}
    for card in cards:
        atomic.setdefault(card["name"], []).append(card)
    return json.dumps({"meta": {"version": "5.2.2"}, "data": atomic}, indent=1).encode()


def mtgjson_set_file() -> bytes:
    """A whole real set file ({meta, data} wrapper), one value a line so that line mutations
    cut through it (MTGJSON writes it on one line)."""
    packed = realdata("mtgjson-sets-2022-05/PLG21.json.gz").read_bytes()
    return json.dumps(json.loads(gzip.decompress(packed)), indent=1).encode()


def rules() -> bytes:
    return realdata("MagicCompRules_2024_excerpt_outlaw_spree.txt").read_bytes()


def rules_2022_slice() -> bytes:
    """The 2022 rules' keyword abilities (702) in Wizards' indented copy, BOM and all."""
    text = realdata("MagicCompRules_20220429.txt").read_bytes()
    start = text.rindex(b"702. Keyword Abilities")  # the section, not its table-of-contents line
    return text[:3] + text[start : start + 40_000]


def page_style_a() -> bytes:
    return (DATA / "pages" / "de-three-steps-ahead.txt").read_bytes()


def page_style_b() -> bytes:
    return (DATA / "pages" / "it-caught-in-the-crossfire.txt").read_bytes()


def catalog() -> bytes:
    return (DATA / "catalog.toml").read_bytes()


JSON_DUMPS: dict[str, Callable[[Any], bytes]] = {
    "cards.jsonl": _json_lines,
    "cards.json": lambda value: json.dumps(value, indent=1).encode(),
    "rulings.jsonl": _json_lines,
    "rulings.json": lambda value: json.dumps(value, indent=2).encode(),
    "OTJ.json": lambda value: json.dumps(value, separators=(",", ":")).encode(),
    "AtomicCards.json": lambda value: json.dumps(value, indent=1).encode(),
    "PLG21.json": lambda value: json.dumps(value, indent=1).encode(),
}


# ---- running kb import ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> dict[str, Path]:
    """Templates: a migrated empty store, and one holding data/catalog.toml and Derevi (pages
    and rulings need their cards)."""
    folder = tmp_path_factory.mktemp("property-stores")
    empty = folder / "empty.sqlite"
    shutil.copy(migrated_sqlite, empty)
    with_cards = folder / "cards.sqlite"
    shutil.copy(migrated_sqlite, with_cards)
    derevi = folder / "derevi.toml"
    derevi.write_text(
        '[[cards]]\nname = "Derevi, Empyrial Tactician"\n'
        'oracle_id = "afa49a09-146f-4439-850e-dd1938c93cef"\n',
        encoding="utf-8",
    )
    arguments = [
        "--db",
        f"sqlite:///{with_cards}",
        "import",
        str(DATA / "catalog.toml"),
        str(derevi),
    ]
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code == 0, result.output
    return {"empty": empty, "catalog": with_cards}


WHOLE_FILE_REASONS = (
    "JSON of no known shape",  # what the file is, told from its first 64 KB
    "not an MTGJSON set, AllPrintings or AtomicCards file",
    "unreadable or truncated input",  # a damaged gzip stream: the archive, not a line, is bad
    "TOML without [[mechanics]] or [[cards]]",  # what the file is: kb's catalog or not
)
_ONE_ERROR_LINE = re.compile(r"kb: error: (?P<where>[^\n]*?): (?P<reason>[^\n]+)\n")


def check_import(work: Path, template: Path, name: str, content: bytes, json_form: bool) -> None:
    """Import ``content`` as a file called ``name`` into a copy of ``template`` and check the
    outcome against the properties above."""
    store = work / "kb.sqlite"
    shutil.copy(template, store)
    for leftover in work.glob("kb.sqlite-*"):
        leftover.unlink()
    source = work / name
    packed = gzip.compress(content, compresslevel=1, mtime=0) if name.endswith(".gz") else content
    source.write_bytes(packed)
    before = store.read_bytes()
    result = CliRunner().invoke(
        cli, ["--db", f"sqlite:///{store}", "--quiet", "import", str(source)]
    )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(
            f"kb import raised instead of a one-line error: {result.exception!r}"
        ) from result.exception
    if result.exit_code == 0:
        assert result.stderr == "", result.stderr
        assert_wholly_read(content, json_form)
        return
    assert result.exit_code == 1, result.output
    match = _ONE_ERROR_LINE.fullmatch(result.stderr)
    assert match is not None, f"not one error line: {result.stderr!r}"
    where, reason = match["where"], match["reason"]
    if where == str(source):  # no line: only a judgement on the whole file may name none
        assert reason.startswith(WHOLE_FILE_REASONS) or re.match(r"(item|card) \d+\b", reason), (
            f"an error that names no line: {result.stderr!r}"
        )
    else:
        assert re.fullmatch(re.escape(str(source)) + r":\d+", where), where
    assert store.read_bytes() == before, "a failed import changed the store"


def assert_wholly_read(content: bytes, json_form: bool) -> None:
    """A successful import read all of its input: it was UTF-8, and JSON to its end."""
    text = content.decode("utf-8")  # raises: kb imported bytes that are not text
    if not json_form:
        return
    try:
        json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                json.loads(line)
            except json.JSONDecodeError as error:
                raise AssertionError(
                    f"imported though line {number} is not JSON: {error}"
                ) from None


MUTATIONS: list[Mutation] = [
    truncate,
    flip_bytes,
    duplicate_line,
    drop_line,
    swap_lines,
    append_content,
]
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def mutated(data: st.DataObject, content: bytes, name: str, json_form: bool) -> bytes:
    """``content`` after one to three mutations; JSON formats may also get a value of the wrong
    type, and any input a huge line (rarely: each costs a 4 MiB file)."""
    choices = list(MUTATIONS)
    if name.removesuffix(".gz") in JSON_DUMPS:
        dump = JSON_DUMPS[name.removesuffix(".gz")]
        lines = ".jsonl" in name

        def wrong_type(data: st.DataObject, content: bytes) -> bytes:
            return wrong_type_in_json(data, content, dump, lines)

        choices.append(wrong_type)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        if data.draw(st.integers(0, 39), label="huge?") == 0:
            content = huge_line(data, content, json_form)
            continue
        mutation = data.draw(st.sampled_from(choices), label="mutation")
        # The wrong-type mutation needs JSON: an earlier mutation may have broken it.
        with contextlib.suppress(ValueError, UnicodeDecodeError):
            content = mutation(data, content)
        if not content:
            break
    return content


INPUTS: list[tuple[str, Callable[[], bytes], str, bool]] = [
    ("cards.jsonl", scryfall_cards_jsonl, "empty", True),
    ("cards.jsonl.gz", scryfall_cards_jsonl, "empty", True),
    ("cards.json", scryfall_cards_array, "empty", True),
    ("rulings.jsonl", scryfall_rulings_jsonl, "catalog", True),
    ("rulings.json", scryfall_rulings_list, "catalog", True),
    ("OTJ.json", mtgjson_set, "empty", True),
    ("AtomicCards.json", mtgjson_atomic_cards, "empty", True),
    ("PLG21.json.gz", mtgjson_set_file, "empty", True),
    ("rules.txt", rules, "empty", False),
    ("rules-2022.txt", rules_2022_slice, "empty", False),
    ("page-a.txt", page_style_a, "catalog", False),
    ("page-b.txt", page_style_b, "catalog", False),
    ("catalog.toml", catalog, "empty", False),
]


@pytest.mark.parametrize(
    ("name", "original", "store", "json_form"), INPUTS, ids=[i[0] for i in INPUTS]
)
def test_the_unmutated_input_imports(
    tmp_path: Path,
    stores: dict[str, Path],
    name: str,
    original: Callable[[], bytes],
    store: str,
    json_form: bool,
) -> None:
    """The starting points are good inputs: the damage is what the properties try."""
    store_path = tmp_path / "kb.sqlite"
    shutil.copy(stores[store], store_path)
    source = tmp_path / name
    content = original()
    source.write_bytes(gzip.compress(content, mtime=0) if name.endswith(".gz") else content)
    result = CliRunner().invoke(cli, ["--db", f"sqlite:///{store_path}", "import", str(source)])
    assert result.exit_code == 0, result.output
    assert "nothing changed" not in result.output


@pytest.mark.parametrize(
    ("name", "original", "store", "json_form"), INPUTS, ids=[i[0] for i in INPUTS]
)
@PROPERTY_SETTINGS
@given(data=st.data())
def test_damaged_input_imports_or_is_one_error_line_and_leaves_the_store(
    tmp_path: Path,
    stores: dict[str, Path],
    name: str,
    original: Callable[[], bytes],
    store: str,
    json_form: bool,
    data: st.DataObject,
) -> None:
    content = mutated(data, original(), name, json_form)
    check_import(tmp_path, stores[store], name, content, json_form)
