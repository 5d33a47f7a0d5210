"""Errors name the line at fault in every format: the cases the property tests
(test_parsers_property.py) found naming no line or the wrong byte, through the real CLI."""

from __future__ import annotations

import codecs
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from realdata import DATA, realdata

from kb.cli import cli


def _import(tmp_path: Path, name: str, content: bytes) -> tuple[int, str]:
    (tmp_path / name).write_bytes(content)
    store = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", store, "import", str(tmp_path / name)])
    return result.exit_code, result.stderr.replace(f"{tmp_path}/", "")


def test_invalid_utf8_deep_in_the_rules_is_named_by_its_line(tmp_path: Path) -> None:
    rules = realdata("MagicCompRules_20220429.txt").read_bytes()  # 825 KB, starts with a BOM
    cut = rules.index(b"\n", 500_000) + 1
    line = rules[:cut].count(b"\n") + 1
    damaged = rules[:cut] + b"caf\xe9 au lait\n" + rules[cut:]
    assert _import(tmp_path, "rules.txt", damaged) == (
        1,
        f"kb: error: rules.txt:{line}: not valid UTF-8 (byte 0xe9)\n",
    )


@pytest.mark.parametrize("name", ["page.txt", "rules.txt"])
def test_invalid_utf8_after_a_bom_names_the_right_byte(tmp_path: Path, name: str) -> None:
    content = codecs.BOM_UTF8 + b"702.2. Deathtouch\n\n702.2a Dea\xf0th\n"
    assert _import(tmp_path, name, content) == (
        1,
        f"kb: error: {name}:3: not valid UTF-8 (byte 0xf0)\n",
    )


def test_binary_content_names_the_line_of_its_first_nul(tmp_path: Path) -> None:
    assert _import(tmp_path, "b.json", b'[{"object": "ruling"}]\n\n\x00') == (
        1,
        "kb: error: b.json:3: binary content, not a known source format\n",
    )


@pytest.mark.parametrize(
    "content,message",
    [
        (b'[[cards]]\nname = "X"\noracle_id = \n', "3: not valid TOML: Invalid value (column 13)"),
        (b"[[mechanics]]\nslug", "2: not valid TOML: Expected '=' after a key in a key/value pair"),
    ],
)
def test_toml_errors_name_their_line(tmp_path: Path, content: bytes, message: str) -> None:
    code, stderr = _import(tmp_path, "catalog.toml", content)
    assert code == 1
    assert stderr.startswith(f"kb: error: catalog.toml:{message}")
    assert stderr.count("\n") == 1


def test_the_real_catalog_cut_short_names_the_last_line(tmp_path: Path) -> None:
    catalog = (DATA / "catalog.toml").read_bytes()
    cut = catalog[: catalog.rindex(b" = ") + 1]  # "key" with no "= value": at the end
    line = cut.rstrip().count(b"\n") + 1
    code, stderr = _import(tmp_path, "catalog.toml", cut)
    assert (code, stderr) == (
        1,
        f"kb: error: catalog.toml:{line}: not valid TOML: Expected '=' after a key in a key/value"
        " pair (at the end)\n",
    )


def _huge_base_set_size() -> dict[str, object]:
    excerpt: dict[str, object] = json.loads(realdata("mtgjson_OTJ_excerpt.json").read_bytes())
    excerpt["baseSetSize"] = 10**30
    excerpt["code"] = "OTJ"
    return excerpt


def test_an_integer_past_64_bits_is_named_by_its_line(tmp_path: Path) -> None:
    """Valid JSON that ijson cannot hold: Python's parser takes it, so ijson locates it."""
    all_printings = {"meta": {}, "data": {"OTJ": _huge_base_set_size()}}
    content = json.dumps(all_printings, indent=1).encode()
    line = content[: content.index(b"1000000000000000000000000000000")].count(b"\n") + 1
    assert line > 1
    assert _import(tmp_path, "AllPrintings.json", content) == (
        1,
        f"kb: error: AllPrintings.json:{line}: a number too large to read"
        " (parse error: integer overflow)\n",
    )


def test_a_set_file_read_whole_takes_an_integer_past_64_bits(tmp_path: Path) -> None:
    """orjson, which reads a set file whole, holds the number as a float; kb reads no number."""
    content = json.dumps(_huge_base_set_size(), indent=1).encode()
    assert _import(tmp_path, "OTJ.json", content) == (0, "")
    store = tmp_path / "kb.sqlite"
    with closing(sqlite3.connect(store)) as connection:
        (cards,) = connection.execute("SELECT count(*) FROM cards").fetchone()
    assert cards > 0


@pytest.mark.parametrize(
    "line,reason",
    [
        (b'{"object": "ruling", "comment": NaN}', "invalid JSON: unexpected character"),
        (b'{"object": "ruling", "comment": "\\ud800"}', "invalid JSON: no low surrogate"),
    ],
)
def test_json_lines_refuse_what_the_store_could_not_hold(
    tmp_path: Path, line: bytes, reason: str
) -> None:
    first = json.dumps({"object": "ruling", "oracle_id": "a", "comment": "c"}).encode()
    code, stderr = _import(tmp_path, "rulings.jsonl", first + b"\n" + line + b"\n")
    assert code == 1
    assert stderr.startswith(f"kb: error: rulings.jsonl:2: {reason}")
