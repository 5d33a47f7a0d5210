"""Database URLs as users write them and the stores they name: engines kb has no driver for,
paths and databases that hold no store and which commands create one, and on PostgreSQL
percent-encoded passwords, socket folders and the pg_dump command kb backup gives."""

from __future__ import annotations

import getpass
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import POSTGRES_URL, PostgresDatabases
from realdata import DATA
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url
from store_helpers import EDITOR, dump, kb, ok

from kb.engine import make_engine

NO_STORE = "no store here (kb import or kb db upgrade creates one)"
SUPPORTED = "sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DATABASE"


# §3 Database URLs as users write them


@pytest.mark.parametrize(
    "url,reason",
    [
        (
            "mysql://kb:secret@localhost/kb",
            "mysql://kb:***@localhost/kb: kb has no driver for mysql",
        ),
        ("mssql+pyodbc://dsn", "mssql+pyodbc://dsn: kb has no driver for mssql+pyodbc"),
        ("oracle://scott@host/db", "oracle://scott@host/db: kb has no driver for oracle"),
        ("nonsense://", "nonsense://: kb has no driver for nonsense"),
        (
            "postgresql+psycopg2://h/db",
            "postgresql+psycopg2://h/db: kb has no driver for postgresql+psycopg2",
        ),
        (
            "sqlite+aiosqlite:///kb.sqlite",
            "sqlite+aiosqlite:///kb.sqlite: kb has no driver for sqlite+aiosqlite",
        ),
    ],
)
@pytest.mark.parametrize("command", [["sources"], ["sql", "SELECT 1"], ["import", "data"]])
def test_an_engine_kb_has_no_driver_for_is_one_line(
    workdir: Path, url: str, reason: str, command: list[str]
) -> None:
    result = kb(*command, db=url)
    assert (result.exit_code, result.stderr) == (1, f"kb: error: {reason}; it takes {SUPPORTED}\n")
    assert sorted(path.name for path in workdir.iterdir()) == ["data"]


def test_a_bare_path_is_told_how_to_write_it(workdir: Path) -> None:
    result = kb("sources", db="kb.sqlite")
    assert (result.exit_code, result.stderr) == (
        1,
        f"kb: error: kb.sqlite: not a database URL; kb takes {SUPPORTED} "
        "(sqlite:///kb.sqlite for this file)\n",
    )
    assert not (workdir / "kb.sqlite").exists()


READING_COMMANDS = [
    ["sources"],
    ["sql", "SELECT 1"],
    ["query", "undated_links"],
    ["build", "--out", "site", "--jobs", "1"],
    ["export", "--format", "csv", "--out", "links.csv"],
    ["export", "--format", "mtgjson"],
    ["history"],
    ["card", "Three Steps Ahead"],
    ["db", "current"],
    ["backup", "copy.sqlite"],
]
# Commands that write, but only to a store that is there: on none there is nothing to change.
WRITING_TO_A_STORE = [
    ["edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR],
    ["edit", "tag", "spree", "--ruling", "6", *EDITOR],
    ["revert", "1", *EDITOR],
    ["db", "downgrade", "base", "--yes"],
]


@pytest.mark.parametrize("command", READING_COMMANDS + WRITING_TO_A_STORE, ids=" ".join)
def test_a_misspelt_sqlite_path_is_no_store_and_creates_nothing(
    workdir: Path, command: list[str]
) -> None:
    ok("import", "data")
    result = kb(*command, db="sqlite:///kb.sqlte")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"kb: error: sqlite:///kb.sqlte: {NO_STORE}\n"
    assert sorted(path.name for path in workdir.iterdir()) == ["data", "kb.sqlite"]


@pytest.mark.parametrize(
    "command", [c for c in READING_COMMANDS if c[0] not in ("db", "backup")], ids=" ".join
)
def test_a_database_without_tables_is_no_store_to_a_command_that_reads(
    workdir: Path, empty_database_url: str, command: list[str]
) -> None:
    """On SQLite the file is not there; on PostgreSQL the database is, with no table."""
    result = kb(*command, db=empty_database_url)
    shown = make_url(empty_database_url).render_as_string()
    assert (result.exit_code, result.stderr) == (1, f"kb: error: {shown}: {NO_STORE}\n")
    assert sorted(path.name for path in workdir.iterdir()) == ["data"]
    if empty_database_url.startswith("postgresql"):
        engine = make_engine(empty_database_url)
        assert inspect(engine).get_table_names() == []
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(
    not POSTGRES_URL, reason="KB_TEST_POSTGRES_URL is not set: no PostgreSQL server"
)
@pytest.mark.parametrize("command", [["sources"], ["import", "data"]], ids=" ".join)
def test_a_misspelt_postgresql_database_is_one_line(workdir: Path, command: list[str]) -> None:
    """The server makes no database for a connection: even kb import says there is none."""
    url = make_url(str(POSTGRES_URL)).set(database="kb_no_such_database")
    result = kb(*command, db=url.render_as_string(hide_password=False))
    assert result.exit_code == 1
    assert result.stderr.startswith("kb: error: database: connection failed: ")
    assert result.stderr.endswith('database "kb_no_such_database" does not exist\n')
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("name", "content", "error"),
    [
        ("nowhere.json", None, "nowhere.json: no such file or folder"),
        (
            "package.json",
            '{"name": "kb"}\n',
            "package.json: JSON of no known shape (not Scryfall rulings or cards, nor MTGJSON)",
        ),
    ],
)
def test_an_import_of_no_file_it_can_read_makes_no_store(
    workdir: Path, name: str, content: str | None, error: str
) -> None:
    """The files are recognised before the store is made: a typo in a path, or a file of no
    format kb reads, leaves no kb.sqlite behind."""
    if content is not None:
        (workdir / name).write_text(content, encoding="utf-8")
    result = kb("import", name)
    assert (result.exit_code, result.stderr) == (1, f"kb: error: {error}\n")
    assert not (workdir / "kb.sqlite").exists()


def test_a_first_import_that_fails_further_in_leaves_no_store(workdir: Path) -> None:
    """The file is recognised (Scryfall rulings), the store made, and its second line bad: the
    store this import made goes with the import, -wal and -shm too."""
    ruling = (
        '{"object": "ruling", "oracle_id": "0000", "source": "wotc", '
        '"published_at": "%s", "comment": "A ruling."}\n'
    )
    (workdir / "rulings.jsonl").write_text(ruling % "2024-01-01" + ruling % "soon", "utf-8")
    result = kb("import", "rulings.jsonl")
    assert result.exit_code == 1 and result.stderr.startswith("kb: error: rulings.jsonl:2: ")
    assert sorted(path.name for path in workdir.iterdir()) == ["data", "rulings.jsonl"]
    # A store that was there stays, as it was.
    ok("import", "data")
    before = dump(workdir / "kb.sqlite")
    assert kb("import", "rulings.jsonl").exit_code == 1
    assert dump(workdir / "kb.sqlite") == before


def test_kb_schema_and_the_saved_queries_list_need_no_store(workdir: Path) -> None:
    ok("schema")
    ok("query", "--list")
    assert sorted(path.name for path in workdir.iterdir()) == ["data"]


@pytest.mark.parametrize("command", [["import", "data"], ["db", "upgrade"], ["demo"]], ids=" ".join)
def test_the_commands_that_create_a_store(workdir: Path, command: list[str]) -> None:
    ok(*command, db="sqlite:///new.sqlite")
    assert ok("db", "current", db="sqlite:///new.sqlite").output == "0013 (latest)\n"


def test_downgrade_to_base_leaves_no_table_and_kb_brings_it_back(empty_database_url: str) -> None:
    url = empty_database_url
    shown = make_url(url).render_as_string()
    ok("import", str(DATA), db=url)
    assert ok("db", "downgrade", "base", "--yes", db=url).output == "database at revision base\n"
    engine = make_engine(url)
    assert inspect(engine).get_table_names() == []
    result = kb("sources", db=url)
    assert result.stderr == f"kb: error: {shown}: {NO_STORE}\n"
    assert ok("db", "current", db=url).output == "base (behind: latest is 0013)\n"
    ok("import", str(DATA), db=url)
    assert "data/catalog.toml" in ok("sources", db=url).output
    engine.dispose()


def test_a_store_alembic_took_down_to_base_is_brought_back_up(empty_database_url: str) -> None:
    """Alembic itself keeps its version table at base, empty: that table alone is no one
    else's, and kb takes the database for its store."""
    url = empty_database_url
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)")
        )
    assert kb("sources", db=url).stderr.endswith(f": {NO_STORE}\n")
    ok("import", str(DATA), db=url)
    assert ok("db", "current", db=url).output == "0013 (latest)\n"
    engine.dispose()


@pytest.fixture
def postgres_role(postgres: PostgresDatabases) -> Iterator[tuple[str, str]]:
    """A new login role whose password holds @, / and % (a superuser, as kb's migrations
    create the read-only role), and its database: (name, password)."""
    name = f"kb_role_{uuid.uuid4().hex[:8]}"
    password = "p@ss/w%rd:50%"
    with postgres.admin.connect() as connection:
        connection.execute(text(f"CREATE ROLE {name} LOGIN SUPERUSER PASSWORD '{password}'"))
        connection.execute(text(f'CREATE DATABASE "{name}" OWNER {name}'))
    yield name, password
    with postgres.admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f"DROP ROLE IF EXISTS {name}"))


@pytest.mark.postgres
@pytest.mark.skipif(
    not POSTGRES_URL, reason="KB_TEST_POSTGRES_URL is not set: no PostgreSQL server"
)
def test_a_percent_encoded_password_works_in_every_command(
    workdir: Path, postgres: PostgresDatabases, postgres_role: tuple[str, str]
) -> None:
    name, password = postgres_role
    server = make_url(str(POSTGRES_URL))
    url = f"postgresql+psycopg://{name}:p%40ss%2Fw%25rd%3A50%25@{server.host}/{name}"
    assert make_url(url).password == password
    for command in (["db", "current"], ["db", "upgrade"], ["import", "data"]):
        ok(*command, db=url)
    counted = ok("sql", "--csv", "SELECT count(*) AS cards FROM cards", db=url)
    assert counted.output == "cards\n2\n"
    ok("query", "undated_links", db=url)
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR, db=url)
    assert ok("history", "--csv", db=url).output.count("\n") == 2
    ok("build", "--out", "site", "--jobs", "1", db=url)
    assert ok("db", "downgrade", "base", "--yes", db=url).output == "database at revision base\n"
    wrong = kb("sources", db=url.replace("%40", "%41"))
    assert wrong.exit_code == 1 and "password authentication failed" in wrong.stderr
    assert password not in wrong.stderr and "%25" not in wrong.stderr


@pytest.mark.postgres
@pytest.mark.skipif(
    not POSTGRES_URL, reason="KB_TEST_POSTGRES_URL is not set: no PostgreSQL server"
)
def test_postgresql_without_a_driver_named_is_psycopg(
    workdir: Path, postgres: PostgresDatabases
) -> None:
    url = postgres.create(migrated=True)
    bare = url.replace("postgresql+psycopg://", "postgresql://", 1)
    ok("import", "data", db=bare)
    assert ok("sql", "--csv", "SELECT count(*) AS n FROM cards", db=bare).output == "n\n2\n"
    heroku = url.replace("postgresql+psycopg://", "postgres://", 1)
    assert ok("db", "current", db=heroku).output == "0013 (latest)\n"


@pytest.mark.postgres
@pytest.mark.skipif(
    not POSTGRES_URL, reason="KB_TEST_POSTGRES_URL is not set: no PostgreSQL server"
)
def test_a_backup_on_postgresql_gives_the_pg_dump_command_that_works(
    workdir: Path,
    postgres: PostgresDatabases,
    postgres_role: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name, password = postgres_role
    server = make_url(str(POSTGRES_URL))
    url = f"postgresql+psycopg://{name}:p%40ss%2Fw%25rd%3A50%25@{server.host}/{name}"
    ok("import", "data", db=url)
    result = kb("backup", "my backup.dump", db=url)
    command = (
        f"pg_dump --format=custom --file='my backup.dump' postgresql://{name}@{server.host}/{name}"
    )
    assert (result.exit_code, result.stderr) == (
        1,
        f"kb: error: kb backup copies SQLite stores; use {command}\n",
    )
    monkeypatch.setenv("PGPASSWORD", password)
    if shutil.which("pg_dump") is None:
        pytest.skip("pg_dump is not installed: the command given is not run")
    subprocess.run(command, shell=True, check=True, capture_output=True)
    listing = subprocess.run(
        ["pg_restore", "--list", "my backup.dump"], check=True, capture_output=True, text=True
    ).stdout
    assert "TABLE DATA public revisions" in listing and "TABLE DATA public cards" in listing
    restored = postgres.create(migrated=False)
    try:
        subprocess.run(
            [
                "pg_restore",
                "--no-owner",  # the restored store is kb_ci's: the backed-up role is dropped after
                "--dbname",
                make_url(restored)
                .set(drivername="postgresql")
                .render_as_string(hide_password=False),
                "my backup.dump",
            ],
            check=True,
            capture_output=True,
        )
        assert ok("sources", db=restored).output == ok("sources", db=url).output
        counted = ok("sql", "--csv", "SELECT count(*) AS n FROM cards", db=restored)
        assert counted.output == "n\n2\n"  # as the read-only role: its grants came back too
    finally:
        postgres.drop(restored)  # before the role its default privileges name


SOCKETS = Path("/var/run/postgresql")


@pytest.fixture
def socket_store(postgres: PostgresDatabases) -> Iterator[tuple[str, str]]:
    """A role and an empty database on the server's socket: (role, database). Peer
    authentication takes the system user's name as the role: one made for the test (a
    superuser, as kb's migrations create the read-only role), unless there is one."""
    if not (SOCKETS / ".s.PGSQL.5432").exists():
        pytest.skip(f"no PostgreSQL socket in {SOCKETS}")
    name = getpass.getuser()
    database = f"kb_socket_{uuid.uuid4().hex[:8]}"
    with postgres.admin.connect() as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_roles WHERE rolname = :name"), {"name": name}
        ).scalar()
        if not exists:
            connection.execute(text(f'CREATE ROLE "{name}" LOGIN SUPERUSER'))
        connection.execute(text(f'CREATE DATABASE "{database}"'))
    yield name, database
    with postgres.admin.connect() as connection:
        # The database first: its tables belong to the role.
        connection.execute(text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        if not exists:
            connection.execute(text(f'DROP ROLE IF EXISTS "{name}"'))


@pytest.mark.postgres
@pytest.mark.skipif(
    not POSTGRES_URL, reason="KB_TEST_POSTGRES_URL is not set: no PostgreSQL server"
)
def test_a_socket_folder_as_host(workdir: Path, socket_store: tuple[str, str]) -> None:
    role, database = socket_store
    url = f"postgresql+psycopg://{role}@/{database}?host=%2Fvar%2Frun%2Fpostgresql"
    ok("import", "data", db=url)
    assert ok("sql", "--csv", "SELECT count(*) AS n FROM cards", db=url).output == "n\n2\n"
    assert ok("db", "current", db=url).output == "0013 (latest)\n"
    result = kb("backup", "kb.dump", db=url)
    assert result.stderr == (
        "kb: error: kb backup copies SQLite stores; use pg_dump --format=custom "
        f"--file=kb.dump 'postgresql://{role}@/{database}?host=%2Fvar%2Frun%2Fpostgresql'\n"
    )
