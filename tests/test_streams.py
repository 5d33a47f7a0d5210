from __future__ import annotations

import bz2
import gzip
import lzma
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from realdata import realdata, seed_page

from kb.importers import mtgjson, recognise, scryfall, streams
from kb.parsing import plan
from kb.records import ParseError

DEREVI = "scryfall_rulings_list_derevi.json"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (DEREVI, streams.SCRYFALL_RULINGS),
        ("scryfall_card_otj_75_three_steps_ahead.json", streams.SCRYFALL_CARDS),
        ("scryfall_card_m21_2_de_alpine_watchdog.json", streams.SCRYFALL_CARDS),
        ("mtgjson_OTJ_excerpt.json", streams.MTGJSON),
        ("mtgjson-sets-2022-05/10E.json.gz", streams.MTGJSON),
        ("MagicCompRules_20220429.txt", streams.COMPREHENSIVE_RULES),
        ("MagicCompRules_2024_excerpt_outlaw_spree.txt", streams.COMPREHENSIVE_RULES),
    ],
)
def test_detect_of_real_files(name: str, expected: str) -> None:
    assert recognise.detect(realdata(name)).format == expected


@pytest.mark.parametrize(
    ("content", "shape"),
    [
        (b'{"meta": {"version": "5"}, "data": {"baseSetSize": 1, "cards": []}}', streams.SET_FILE),
        (b'{"data": {"LEA": {"baseSetSize": 1, "cards": []}}}', streams.ALL_PRINTINGS),
        (b'{"data": {"Fire // Ice": [{"name": "Fire // Ice"}]}}', streams.ATOMIC_CARDS),
        (b'{"baseSetSize": 1, "cards": []}', streams.BARE_SET),
        (b'[{"object": "card", "name": "X"}]', None),
    ],
)
def test_recognising_mtgjson_reads_its_layout_for_the_parser(
    tmp_path: Path, content: bytes, shape: str | None
) -> None:
    """The parser of an MTGJSON file is handed the layout recognising it read (``plan`` keeps
    it), so it need not read the head's events again; it finds the same one itself."""
    path = tmp_path / "download"
    path.write_bytes(content)
    assert recognise.detect(path).shape == shape
    assert [item.shape for item in plan([path]).files] == [shape]
    if shape is not None:
        with path.open("rb") as stream:
            sniffed = list(mtgjson.parse(stream, path.name, shape))
        with path.open("rb") as stream:
            assert list(mtgjson.parse(stream, path.name)) == sniffed


@pytest.mark.parametrize("name", ["000_f9cb873814301985.txt", "001_8b142995f576fff8.txt"])
def test_seed_pages_are_seed_pages(name: str) -> None:
    assert recognise.detect(seed_page(name)).format == streams.SEED_PAGE


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'[{"object": "ruling", "oracle_id": "x"}]', streams.SCRYFALL_RULINGS),
        (b'[{"oracle_id": "x", "published_at": "2020-01-01", "comment": "c"}]', "scryfall-rulings"),
        (b'{"object": "list", "data": [{"object": "card", "name": "X"}]}', streams.SCRYFALL_CARDS),
        (b'[{"object": "card", "name": "X"}]', streams.SCRYFALL_CARDS),
        (b'{"meta": {"version": "5"}, "data": {"baseSetSize": 1, "cards": []}}', streams.MTGJSON),
        (b'{"data": {"LEA": {"baseSetSize": 1, "cards": []}}}', streams.MTGJSON),
        (b'{"data": {"Fire // Ice": [{"name": "Fire // Ice"}]}}', streams.MTGJSON),
        (b'{"baseSetSize": 1, "cards": []}', streams.MTGJSON),
        (b"\xef\xbb\xbf702.2. Deathtouch\n", streams.COMPREHENSIVE_RULES),
        ("Preso nel Fuoco Incrociato\n\nSe un effetto …".encode(), streams.SEED_PAGE),
    ],
)
def test_detect_sniffs_content(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "download"  # no extension: the name tells nothing
    path.write_bytes(content)
    assert recognise.detect(path).format == expected


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary content"),
        ("Gruß".encode("latin-1") + b"\n", "1: not valid UTF-8 (byte 0xdf)"),
        (b"", "1: the file is empty"),
        (b'{"something": "else"}', "JSON of no known shape"),
    ],
)
def test_detect_rejects_unknown_content(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    with pytest.raises(ParseError) as raised:
        recognise.detect(path)
    assert str(raised.value).startswith(f"{path}:")
    assert reason in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress), ("", bz2.compress)],
)
def test_compressed_files_are_read_decompressed(
    tmp_path: Path, suffix: str, compress: Callable[[bytes], bytes]
) -> None:
    path = tmp_path / f"rulings.json{suffix}"
    path.write_bytes(compress(realdata(DEREVI).read_bytes()))
    assert recognise.detect(path).format == streams.SCRYFALL_RULINGS
    with streams.open_input(path) as stream:
        assert len(list(scryfall.parse_rulings(stream, str(path)))) == 3


def test_each_zip_member_is_an_input(tmp_path: Path) -> None:
    archive = tmp_path / "sources.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(realdata(DEREVI), "rulings/derevi.json")
        zipped.writestr("rules.txt.gz", gzip.compress(b"702.2. Deathtouch\n"))
        zipped.writestr("__MACOSX/._derevi.json", b"\x00\x05\x16\x07")
        zipped.writestr(".hidden", b"x")
        zipped.writestr("empty-folder/", b"")
    inputs = list(streams.iter_inputs(archive))
    assert [source.name for source in inputs] == [
        f"{archive}!rulings/derevi.json",
        f"{archive}!rules.txt.gz",
    ]
    assert [recognise.detect(source).format for source in inputs] == [
        streams.SCRYFALL_RULINGS,
        streams.COMPREHENSIVE_RULES,
    ]


def test_folders_expand_sorted_recursively_without_hidden_files(tmp_path: Path) -> None:
    for name in ["b.json", "a/z.txt", "a/c.txt", ".git/config", "a/.DS_Store"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    names = [
        source.path.relative_to(tmp_path).as_posix() for source in streams.iter_inputs(tmp_path)
    ]
    assert names == ["a/c.txt", "a/z.txt", "b.json"]


def test_truncated_gzip_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "rulings.json.gz"
    path.write_bytes(gzip.compress(realdata(DEREVI).read_bytes())[:200])
    with (
        pytest.raises(ParseError, match="unreadable or truncated input"),
        streams.open_input(path) as stream,
    ):
        list(scryfall.parse_rulings(stream, str(path)))


def test_sniffing_reads_a_bounded_head(tmp_path: Path) -> None:
    # A huge bulk file is sniffed from its first SNIFF_BYTES only.
    path = tmp_path / "bulk.json"
    ruling = b'{"object": "ruling", "oracle_id": "x", "published_at": "2020-01-01", "comment": "c"}'
    path.write_bytes(b"[" + b",".join([ruling] * 20_000) + b"]")
    assert path.stat().st_size > 10 * streams.SNIFF_BYTES
    assert recognise.detect(path).format == streams.SCRYFALL_RULINGS
