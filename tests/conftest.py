"""Shared fixtures: real databases (SQLite files, PostgreSQL when KB_TEST_POSTGRES_URL is set),
migrated once per session and copied for each test."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from itertools import combinations
from pathlib import Path
from typing import TypeVar

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir
from realdata import DATA
from sqlalchemy import select, text
from sqlalchemy.engine import Engine, make_url

from kb import derived, migrate, schema
from kb.cli import cli
from kb.engine import make_engine
from kb.importers import mtgjson
from kb.importing import run_import
from kb.records import CardNameRecord, CardRecord, PrintedTextRecord, RulingRecord
from kb.site.build import build

Record = CardNameRecord | CardRecord | RulingRecord | PrintedTextRecord
T = TypeVar("T")

POSTGRES_URL = os.environ.get("KB_TEST_POSTGRES_URL")

# Property tests (hypothesis) run the same examples on every run, CI's included, and keep no
# example database; what else hypothesis caches (the constants it collects from the code) goes to
# the temporary folder: nothing is written into the repository.
settings.register_profile("kb", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("kb")
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "kb-hypothesis")

ENGINES = [
    "sqlite",
    pytest.param(
        "postgresql",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(
                not POSTGRES_URL, reason="KB_TEST_POSTGRES_URL is not set: no PostgreSQL server"
            ),
        ],
    ),
]


class PostgresDatabases:
    """Creates throwaway databases on the test server, from a migrated template."""

    def __init__(self, admin_url: str) -> None:
        self.admin = make_engine(admin_url, isolation_level="AUTOCOMMIT")
        self.url = make_url(admin_url)
        self.template = f"kb_template_{uuid.uuid4().hex[:8]}"
        self.created: list[str] = [self.template]
        self._execute(f'CREATE DATABASE "{self.template}"')
        template_engine = make_engine(self.url_for(self.template))
        migrate.upgrade(template_engine)
        template_engine.dispose()

    def _execute(self, statement: str) -> None:
        with self.admin.connect() as connection:
            connection.execute(text(statement))

    def url_for(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def create(self, migrated: bool) -> str:
        name = f"kb_test_{uuid.uuid4().hex[:12]}"
        template = f' TEMPLATE "{self.template}"' if migrated else ""
        self._execute(f'CREATE DATABASE "{name}"{template}')
        self.created.append(name)
        return self.url_for(name)

    def copy(self, url: str) -> str:
        """A new database with the contents of ``url``'s (no one may be connected to it)."""
        name = f"kb_test_{uuid.uuid4().hex[:12]}"
        self._execute(f'CREATE DATABASE "{name}" TEMPLATE "{make_url(url).database}"')
        self.created.append(name)
        return self.url_for(name)

    def drop(self, url: str) -> None:
        name = make_url(url).database
        self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.created.remove(str(name))

    def close(self) -> None:
        for name in reversed(self.created):
            self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.admin.dispose()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresDatabases]:
    if not POSTGRES_URL:
        pytest.skip("KB_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    databases = PostgresDatabases(POSTGRES_URL)
    yield databases
    databases.close()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "kb.sqlite"
    engine = make_engine(f"sqlite:///{path}")
    migrate.upgrade(engine)
    engine.dispose()
    return path


def _database_url(request: pytest.FixtureRequest, tmp_path: Path, migrated: bool) -> Iterator[str]:
    if request.param == "sqlite":
        path = tmp_path / "kb.sqlite"
        if migrated:
            shutil.copy(request.getfixturevalue("migrated_sqlite"), path)
        yield f"sqlite:///{path}"
        return
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    url = databases.create(migrated)
    yield url
    databases.drop(url)


@pytest.fixture(params=ENGINES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of a migrated, empty store on each engine."""
    yield from _database_url(request, tmp_path, migrated=True)


@pytest.fixture(params=ENGINES)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of a database with no tables at all, on each engine."""
    yield from _database_url(request, tmp_path, migrated=False)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """A migrated, empty store on each engine."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path, migrated_sqlite: Path) -> str:
    """A migrated, empty SQLite store (for tests about one engine's behaviour)."""
    path = tmp_path / "kb.sqlite"
    shutil.copy(migrated_sqlite, path)
    return f"sqlite:///{path}"


@pytest.fixture
def postgres_engine(postgres: PostgresDatabases) -> Iterator[Engine]:
    """A migrated, empty store on PostgreSQL only."""
    url = postgres.create(migrated=True)
    engine = make_engine(url)
    yield engine
    engine.dispose()
    postgres.drop(url)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository-like folder with data/, as the working directory."""
    shutil.copytree(DATA, tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)
    monkeypatch.delenv("KB_EDITOR", raising=False)
    return tmp_path


def run_kb(database_url: str, *args: str, stdin: str | None = None) -> Result:
    """``kb --db URL ARGS...`` through click's runner (stdout and stderr apart)."""
    return CliRunner().invoke(cli, ["--db", database_url, *args], input=stdin)


def kb_card(database_url: str, *args: str) -> str:
    """What ``kb card ARGS...`` prints, which must succeed with nothing on stderr."""
    result = run_kb(database_url, "card", *args)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return result.stdout


@pytest.fixture(scope="module")
def demo_engine(
    tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path
) -> Iterator[Engine]:
    """The demo data in a SQLite store shared by a test module's tests, which only read it."""
    path = tmp_path_factory.mktemp("store") / "kb.sqlite"
    shutil.copy(migrated_sqlite, path)
    engine = make_engine(f"sqlite:///{path}")
    run_import(engine, [DATA])
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def demo_site(demo_engine: Engine, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store's site, built once per test module."""
    return build(demo_engine, tmp_path_factory.mktemp("built") / "site").out


@pytest.fixture
def demo_store(engine: Engine) -> Engine:
    """The demo data in a fresh store on each engine."""
    run_import(engine, [DATA])
    return engine


@pytest.fixture
def demo_url(database_url: str) -> str:
    """A store on each engine filled with the demo data (2 cards, 21 rulings, 33 links)."""
    engine = make_engine(database_url)
    run_import(engine, [DATA])
    engine.dispose()
    return database_url


WRITTEN_TABLES = [
    schema.cards,
    schema.card_names,
    schema.rulings,
    schema.card_rulings,
    schema.mechanics,
    schema.mechanic_names,
    schema.card_mechanics,
    schema.ruling_mechanics,
    schema.sources,
    schema.card_faces,
    schema.printed_texts,
]
"""The tables an import writes."""


def snapshot(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table kb writes, in a stable order."""
    with engine.connect() as connection:
        return {
            table.name: sorted((tuple(row) for row in connection.execute(select(table))), key=repr)
            for table in WRITTEN_TABLES
        }


def assert_keys_and_pairs_follow_texts(engine: Engine) -> None:
    """Every ruling's stored keys are those of its text (mended ones included), and the stored
    near-duplicate pairs are those of all the texts, found again from scratch."""
    with engine.connect() as connection:
        stored = connection.execute(select(schema.rulings)).all()
        pairs = connection.execute(select(schema.near_duplicates)).all()
    for ruling in stored:
        keys = derived.ruling_keys(ruling.text)
        assert {key: getattr(ruling, key) for key in keys} == keys, ruling.text
    expected = {}
    for a, b in combinations(sorted(stored, key=lambda ruling: ruling.id), 2):
        if (
            derived.ruling_keys(a.text)["skeleton_key"]
            == derived.ruling_keys(b.text)["skeleton_key"]
        ):
            expected[(a.id, b.id)] = "same without symbols"
        elif (
            derived.head_key(a.text) == derived.head_key(b.text)
            and abs(len(a.text) - len(b.text)) <= 10
        ):
            expected[(a.id, b.id)] = "same beginning"
    assert {(p.ruling_id, p.other_ruling_id): p.reason for p in pairs} == expected


def scryfall_ruling(oracle_id: str = "a", **fields: object) -> dict[str, object]:
    """A Scryfall ruling object, as the bulk file and the API give it, with ``fields`` changed."""
    return {
        "object": "ruling",
        "oracle_id": oracle_id,
        "source": "wotc",
        "published_at": "2024-04-12",
        "comment": f"ruling of {oracle_id}",
    } | fields


def parse_mtgjson(document: object, name: str = "cards.json") -> list[Record]:
    """What the MTGJSON parser makes of ``document``, written as JSON."""
    return list(mtgjson.parse(io.BytesIO(json.dumps(document).encode()), name))


def of_type(records: Iterable[object], kind: type[T]) -> list[T]:
    return [record for record in records if isinstance(record, kind)]


# Headless Chromium for the tests that meet the site and Datasette as readers and editors do.
CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
# No network, no updates, no first-run UI: the test must not download anything.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(
        options=options, service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    )
    yield driver
    driver.quit()
