"""kb datasette: the metadata it gives Datasette, its errors, the read-only connections, and the
SQLite copy of a store on either engine. tests/test_datasette_browser.py drives it in Chromium."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_kb, snapshot
from realdata import DATA
from sqlalchemy import func, select

from kb import schema, schema_views
from kb.datasette_metadata import datasette_metadata
from kb.datasette_server import datasette_app
from kb.engine import make_engine
from kb.importing import run_import
from kb.sql import saved_queries

pytest.importorskip("datasette", reason="Datasette is not installed: pip install -e '.[web]'")


def test_tables_columns_and_views_carry_the_schemas_descriptions() -> None:
    tables = datasette_metadata("kb", saved_queries())["databases"]["kb"]["tables"]
    assert (
        tables["cards"]["description"] == "One Oracle card, whatever its printings and languages."
    )
    assert tables["cards"]["columns"]["name"] == "English name."
    assert "id" not in tables["cards"]["columns"]  # no comment, no empty description
    for table in schema.metadata.tables.values():
        assert tables[table.name]["description"] == table.comment
        described = {column.name: column.comment for column in table.columns if column.comment}
        assert tables[table.name].get("columns", {}) == described
    for view, (description, _columns) in schema_views.VIEWS.items():
        assert tables[view] == {"description": description}
    assert tables["alembic_version"] == {"hidden": True}


def test_saved_queries_are_canned_queries_with_their_headers() -> None:
    queries = datasette_metadata("kb", saved_queries())["databases"]["kb"]["queries"]
    assert sorted(queries) == sorted(saved_queries())
    missing = queries["missing_names"]
    assert missing["title"] == "Cards of a mechanic missing a name in a locale"
    assert missing["description"] == (
        "Cards tagged with the mechanic that have no printed name in the locale yet. "
        "Parameters: mechanic: mechanic slug, e.g. spree; locale: locale code, e.g. it."
    )
    assert missing["params"] == ["mechanic", "locale"]
    assert missing["sql"] == Path("queries/missing_names.sql").read_text("utf-8")
    assert queries["most_shared_rulings"]["params"] == []
    assert "Parameters" not in queries["most_shared_rulings"]["description"]


def test_metadata_option_prints_it_for_the_stores_name(sqlite_url: str) -> None:
    """For the datasette command line: it names a database by its file's stem, as kb does."""
    result = run_kb(sqlite_url, "datasette", "--metadata")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == datasette_metadata("kb", saved_queries())  # the store is kb.sqlite


def test_a_postgresql_store_is_one_line_naming_the_copy() -> None:
    result = run_kb("postgresql+psycopg://nobody@127.0.0.1:1/none", "datasette")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "kb: error: Datasette reads SQLite files only: kb datasette --copy FILE copies this "
        "PostgreSQL store into a new SQLite file and serves that\n"
    )


def test_a_url_of_no_engine_kb_has_is_one_line() -> None:
    result = run_kb("mysql://editor@localhost/kb", "datasette")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("kb: error: mysql://editor@localhost/kb: kb has no driver")
    assert result.stderr.count("\n") == 1


def test_no_store_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    result = run_kb(f"sqlite:///{tmp_path / 'kb.sqlte'}", "datasette")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"kb: error: sqlite:///{tmp_path / 'kb.sqlte'}: no store here "
        "(kb import or kb db upgrade creates one)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_port_in_use_is_one_line(sqlite_url: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = run_kb(sqlite_url, "datasette", "--port", str(port))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"kb: error: 127.0.0.1:{port}: Address already in use\n"


def test_without_datasette_it_says_how_to_install_it(sqlite_url: str) -> None:
    """As where the web extra is not installed: Datasette's import fails; the metadata, which
    needs no Datasette, is still printed."""
    script = (
        "import sys\nsys.modules['datasette'] = None  # import datasette fails\n"
        "from kb.cli import main\nsys.argv = ['kb', *sys.argv[1:]]\nmain()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "--db", sqlite_url, "datasette"],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "kb: error: kb datasette needs Datasette: pip install 'kb[web]'\n"
    printed = subprocess.run(
        [sys.executable, "-c", script, "--db", sqlite_url, "datasette", "--metadata"],
        capture_output=True,
        text=True,
    )
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == datasette_metadata("kb", saved_queries())


def _store_file(url: str) -> str:
    return url.removeprefix("sqlite:///")


@pytest.mark.parametrize("immutable", [False, True], ids=["read-only", "immutable"])
def test_a_write_that_datasettes_check_lets_through_is_refused(
    sqlite_url: str, immutable: bool
) -> None:
    """Datasette's SQL box takes any statement that starts with WITH; the connection refuses
    the write."""
    path = _store_file(sqlite_url)
    app = datasette_app(path, immutable)
    database = app.get_database("kb")
    with pytest.raises(sqlite3.OperationalError, match="attempt to write a readonly database"):
        asyncio.run(database.execute("WITH x AS (SELECT 1) DELETE FROM locales"))
    assert len(asyncio.run(database.execute("SELECT code FROM locales")).rows) == 11


def test_even_datasettes_writing_connection_is_query_only(sqlite_url: str) -> None:
    """Datasette keeps a writing connection (for plugins and write queries, which kb has not):
    kb's plugin makes it refuse to write too."""
    app = datasette_app(_store_file(sqlite_url), immutable=False)
    database = app.get_database("kb")

    def query_only(connection: sqlite3.Connection) -> int:
        return int(connection.execute("PRAGMA query_only").fetchone()[0])

    assert asyncio.run(database.execute_write_fn(query_only)) == 1
    with pytest.raises(sqlite3.OperationalError, match="attempt to write a readonly database"):
        asyncio.run(database.execute_write("DELETE FROM locales"))
    engine = make_engine(sqlite_url)
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(schema.locales)).scalar() == 11
    engine.dispose()


def triggers(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as connection:
        query = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        return connection.execute(query).fetchall()


def test_the_copy_holds_every_row_and_serves(
    demo_url: str, tmp_path: Path, migrated_sqlite: Path
) -> None:
    """On either engine: the copy is a SQLite store with the same rows, its views and
    revisions included, and kb datasette --copy serves it."""
    edited = run_kb(
        demo_url, "edit", "card-name", "Three Steps Ahead", "ko", "세 발짝 앞서", "--editor", "ann"
    )
    assert edited.exit_code == 0, edited.output
    copy = tmp_path / "copy" / "browse.sqlite"
    copy.parent.mkdir()
    result = run_kb(demo_url, "datasette", "--copy", str(copy), "--metadata")
    assert result.exit_code == 0, result.output
    assert result.stderr == f"copied 126 rows into {copy}\n"  # stdout: the metadata alone
    assert list(json.loads(result.stdout)["databases"]) == ["browse"]
    assert sorted(path.name for path in copy.parent.iterdir()) == ["browse.sqlite"]

    source, copied = make_engine(demo_url), make_engine(f"sqlite:///{copy}")
    assert snapshot(copied) == snapshot(source)
    for table in schema.metadata.sorted_tables:  # the revisions and the change log too
        with source.connect() as reading, copied.connect() as written:
            query = select(table).order_by(*table.primary_key.columns)
            assert written.execute(query).all() == reading.execute(query).all(), table.name
    source.dispose()
    copied.dispose()
    assert triggers(copy) == triggers(migrated_sqlite)  # turned off while copying, back on
    missing = run_kb(
        f"sqlite:///{copy}",
        "query",
        "missing_names",
        "-p",
        "mechanic",
        "spree",
        "-p",
        "locale",
        "ko",
    )
    assert missing.stdout.splitlines()[2:] == ["2        Caught in the Crossfire"]

    again = run_kb(demo_url, "datasette", "--copy", str(copy))
    assert (again.exit_code, again.stdout) == (1, "")
    assert again.stderr == f"kb: error: {copy}: already exists; name a new file for the copy\n"


def test_datasettes_own_command_line_serves_the_printed_metadata(
    sqlite_url: str, tmp_path: Path
) -> None:
    """docs/sql.md's two lines: kb datasette --metadata, then datasette serve --metadata."""
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    engine.dispose()
    printed = run_kb(sqlite_url, "datasette", "--metadata")
    metadata = tmp_path / "metadata.json"
    metadata.write_text(printed.stdout, "utf-8")
    datasette = Path(sys.executable).with_name("datasette")
    query = "/kb/missing_names.json?mechanic=spree&locale=ko&_shape=array"
    for immutable in ([], ["-i"]):
        args = [datasette, "serve", *immutable, _store_file(sqlite_url), "--metadata", metadata]
        served = subprocess.run([*args, "--get", query], capture_output=True, text=True)
        assert served.returncode == 0, served.stderr
        assert json.loads(served.stdout) == [
            {"card_id": 2, "card": "Caught in the Crossfire"},
            {"card_id": 1, "card": "Three Steps Ahead"},
        ]
