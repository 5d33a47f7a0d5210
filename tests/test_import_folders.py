"""A folder holds sources and other files: those of no known format are skipped and listed, in
the same one transaction; a file named on the command line must be of a known format."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import snapshot
from realdata import DATA, realdata, seed_page
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from kb import schema
from kb.cli import cli
from kb.cli.import_summary import summary_lines
from kb.importers import recognise, streams
from kb.importers.streams import Input
from kb.importing import run_import
from kb.records import ParseError

README = "# Notes on these files\n\nWhere they come from.\n\n- `catalog.toml`: the catalog\n"
OTHERS = {
    "README.md": README.encode(),
    "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "package.json": b'{"name": "rulings", "version": "1.0.0"}\n',
    "notes/empty.txt": b"",
}
REASONS = {
    "README.md": ":1: '# Notes on these files' is markup, not a card's name: not a rulings page",
    "logo.png": ":3: binary content, not a known source format",
    "package.json": (": JSON of no known shape (not Scryfall rulings or cards, nor MTGJSON)"),
    "notes/empty.txt": ":1: the file is empty",
}


def counts(engine: Engine) -> dict[str, int]:
    tables = (
        schema.cards,
        schema.card_names,
        schema.rulings,
        schema.card_rulings,
        schema.mechanics,
        schema.ruling_mechanics,
    )
    with engine.connect() as connection:
        return {
            table.name: connection.execute(select(func.count()).select_from(table)).scalar_one()
            for table in tables
        }


def sources_and_others(tmp_path: Path) -> Path:
    folder = tmp_path / "sources"
    shutil.copytree(DATA, folder)
    for name, content in OTHERS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    return folder


def test_files_of_no_known_format_in_a_folder_are_skipped_and_listed(
    engine: Engine, tmp_path: Path
) -> None:
    folder = sources_and_others(tmp_path)
    summary = run_import(engine, [folder])
    assert summary.unknown_files == [f"{folder / name}{REASONS[name]}" for name in sorted(OTHERS)]
    assert "files: 4 of no known format skipped" in summary_lines(summary)
    assert not any("README.md" in line for line in summary_lines(summary))
    verbose = summary_lines(summary, verbose=True)
    at = verbose.index("files: 4 of no known format skipped")
    assert verbose[at + 1 : at + 5] == [f"  {line}" for line in summary.unknown_files]
    assert counts(engine)["rulings"] == 21
    assert counts(engine)["card_rulings"] == 33


def test_a_folder_with_others_imports_what_data_alone_imports(
    engine: Engine, tmp_path: Path
) -> None:
    run_import(engine, [sources_and_others(tmp_path)])
    with_others = counts(engine)
    assert not run_import(engine, [DATA]).changed
    assert counts(engine) == with_others


def test_a_broken_source_beside_others_still_aborts_the_whole_run(
    engine: Engine, tmp_path: Path
) -> None:
    folder = sources_and_others(tmp_path)
    broken = folder / "pages" / "zz-broken.txt"
    broken.write_text("Drei Schritte voraus\n\n• 31.02.2024Text.\n", "utf-8")
    before = snapshot(engine)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [folder])
    assert str(raised.value) == f"{broken}:3: '31.02.2024' is not a valid date"
    assert snapshot(engine) == before


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_a_file_named_itself_must_be_of_a_known_format(
    engine: Engine, tmp_path: Path, name: str
) -> None:
    path = tmp_path / Path(name).name
    path.write_bytes(OTHERS[name])
    before = snapshot(engine)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [DATA, path])
    assert str(raised.value) == f"{path}{REASONS[name]}"
    assert snapshot(engine) == before


def test_members_of_a_zip_are_as_files_in_a_folder(sqlite_url: str, tmp_path: Path) -> None:
    from kb.engine import make_engine

    archive = tmp_path / "sources.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(DATA / "catalog.toml", "catalog.toml")
        zipped.writestr("README.md", README)
    engine = make_engine(sqlite_url)
    summary = run_import(engine, [archive])
    engine.dispose()
    assert summary.unknown_files == [f"{archive}!README.md{REASONS['README.md']}"]


MARKDOWN = {
    "heading under the title": ("Title\n\nA ruling.\n\n## Usage\n", 5, "'## Usage' is markup"),
    "a list": ("Title\n\n* first\n* second\n", 3, "'* first' is markup, not a ruling"),
    "a table": ("Title\n\n| a | b |\n", 3, "'| a | b |' is markup"),
    "a fence": ("Title\n\n```sh\nkb demo\n```\n", 3, "'```sh' is markup"),
    "html": ("<!DOCTYPE html>\n<html>\n", 1, "'<!DOCTYPE html>' is markup, not a card's name"),
    "no title": ("\n\nA ruling.\n", 1, "no title: the first line must be the card's name"),
    "a long first line": ("L" * 501 + "\n\nA ruling.\n", 1, "a first line of 501 characters"),
}


@pytest.mark.parametrize("case", sorted(MARKDOWN))
def test_text_that_is_no_rulings_page(tmp_path: Path, case: str) -> None:
    content, line, reason = MARKDOWN[case]
    path = tmp_path / "file.txt"
    path.write_text(content, "utf-8")
    with pytest.raises(recognise.UnknownFormat) as raised:
        recognise.detect(Input(path))
    assert str(raised.value).startswith(f"{path}:{line}: {reason}")


@pytest.mark.parametrize(
    "content",
    [
        "Drei Schritte voraus\n\n• 12.04.2024Ein Text.\n\nOffizielle Klarstellungen.\n",
        "Preso nel Fuoco Incrociato\n\nUn paragrafo\nsu due righe.\n\nUn altro.\n",
        "+2 Mace\n\nA ruling - with a dash, #1 and a | bar inside.\n",
        "Title\n\nRulings only\n",
    ],
)
def test_pages_are_pages(tmp_path: Path, content: str) -> None:
    path = tmp_path / "page"
    path.write_text(content, "utf-8")
    assert recognise.detect(Input(path)).format == streams.SEED_PAGE


def test_the_data_pages_and_seed_pages_are_pages() -> None:
    pages = [*sorted((DATA / "pages").iterdir())]
    pages += [seed_page("000_f9cb873814301985.txt"), seed_page("001_8b142995f576fff8.txt")]
    assert [recognise.detect(Input(page)).format for page in pages] == [streams.SEED_PAGE] * 4


def test_kb_import_tells_the_skipped_files(sqlite_url: str, tmp_path: Path) -> None:
    folder = sources_and_others(tmp_path)
    runner = CliRunner()
    result = runner.invoke(cli, ["--db", sqlite_url, "import", str(folder)])
    assert result.exit_code == 0, result.output
    assert "files: 4 of no known format skipped\n" in result.output
    assert "README.md" not in result.output
    result = runner.invoke(cli, ["--db", sqlite_url, "import", "-v", str(folder)])
    assert result.exit_code == 0, result.output
    assert f"files: 4 of no known format skipped\n  {folder / 'README.md'}:1: " in result.output
    result = runner.invoke(cli, ["--db", sqlite_url, "import", str(folder / "README.md")])
    assert result.exit_code == 1
    assert result.output == f"kb: error: {folder / 'README.md'}{REASONS['README.md']}\n"


@pytest.mark.realdata
def test_kb_import_of_the_realdata_folder_skips_its_readme(sqlite_url: str) -> None:
    """The whole folder as it is, in one run (SQLite: the corpus itself is imported on both
    engines by test_import_real)."""
    folder = realdata()
    result = CliRunner().invoke(cli, ["--db", sqlite_url, "import", "-v", str(folder)])
    assert result.exit_code == 0, result.output
    readme = folder / "README.md"
    assert (
        f"files: 1 of no known format skipped\n  {readme}:1: '# Real third-party MTG data f…' "
        "is markup, not a card's name: not a rulings page\n"
    ) in result.output
    assert result.output.startswith("cards: 23711 new, ")


def test_another_tools_toml_is_no_catalog(engine: Engine, tmp_path: Path) -> None:
    folder = tmp_path / "sources"
    shutil.copytree(DATA, folder)
    pyproject = folder / "pyproject.toml"
    pyproject.write_text('[project]\nname = "kb"\n', "utf-8")
    summary = run_import(engine, [folder])
    reason = "TOML without [[mechanics]] or [[cards]]: not kb's catalog"
    assert summary.unknown_files == [f"{pyproject}: {reason}"]
    with pytest.raises(ParseError, match=r"^.*pyproject\.toml: TOML without"):
        run_import(engine, [pyproject])


def test_a_broken_catalog_is_still_an_error(engine: Engine, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text('[[cards]]\nname = "Card\n', "utf-8")
    with pytest.raises(ParseError, match=r"catalog\.toml:2: not valid TOML"):
        run_import(engine, [catalog])


def test_a_folder_of_nothing_known_says_so(engine: Engine, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "README.md").write_text(README, "utf-8")
    with pytest.raises(ParseError) as raised:
        run_import(engine, [folder])
    assert str(raised.value) == (
        f"{folder}: no files to import (1 of no known format, such as {folder / 'README.md'})"
    )


@pytest.mark.parametrize("code", ["10E", "ELD", "M21", "UST"])
def test_real_rulings_never_look_like_markup(tmp_path: Path, code: str) -> None:
    """A page of every ruling of a real set, one a paragraph, is a page."""
    import gzip
    import json

    from kb.importers.seed_pages import not_a_page

    path = realdata(f"mtgjson-sets-2022-05/{code}.json.gz")
    cards = json.loads(gzip.decompress(path.read_bytes()))["data"]["cards"]
    texts = [ruling["text"] for card in cards for ruling in card.get("rulings", [])]
    assert len(texts) > 10
    assert not_a_page("Title\n\n" + "\n\n".join(texts)) is None
