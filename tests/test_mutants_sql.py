"""Editors' SQL from Python: the defaults (one second, a thousand rows), the refusals' exact
words, PostgreSQL's timeout setting, and the SQLite authorizer deciding for itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_mock_engine
from sqlalchemy.engine import Engine

from kb import sql
from kb.engine import make_engine, sqlite_file

ENDLESS = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
ROWS = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :last) "
    "SELECT i FROM n"
)


# run_query, and execute_read_only that tests call to see what the database itself refuses.
RUNS = {"run_query": sql.run_query, "execute_read_only": sql.execute_read_only}


@pytest.mark.parametrize("run", list(RUNS))
def test_the_default_row_limit_is_a_thousand(engine: Engine, run: str) -> None:
    exactly = RUNS[run](engine, ROWS, {"last": 1000})
    assert (len(exactly.rows), exactly.truncated) == (1000, False)
    more = RUNS[run](engine, ROWS, {"last": 1001})
    assert (len(more.rows), more.truncated) == (1000, True)
    assert more.rows[-1] == (1000,)


@pytest.mark.parametrize("run", list(RUNS))
def test_the_default_time_limit_is_one_second(engine: Engine, run: str) -> None:
    with pytest.raises(sql.QueryError) as raised:
        RUNS[run](engine, ENDLESS)
    assert str(raised.value) == (
        "query stopped: it ran longer than the time limit of 1 s (--time-limit)"
    )


# Python's sqlite3 enables none of the functions the authorizer denies (load_extension is off,
# readfile and the rest are not compiled in), so SQLite would refuse them anyway: to see the
# authorizer decide, the reader's connection is given functions of those names that would run.
DENIED_FUNCTIONS = ["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile"]


def _reader_with(sqlite_url: str, *names: str) -> sqlite3.Connection:
    path = sqlite_file(make_engine(sqlite_url))
    assert path is not None
    reader = sql.open_sqlite_reader(path)
    for name in names:
        reader.create_function(name, -1, lambda *arguments: "ran")
    return reader


@pytest.mark.parametrize("name", DENIED_FUNCTIONS)
def test_a_denied_function_is_refused_even_where_sqlite_has_it(sqlite_url: str, name: str) -> None:
    reader = _reader_with(sqlite_url, name, "harmless")
    try:
        assert reader.execute("SELECT harmless('x')").fetchall() == [("ran",)]
        # In any case: SQLite looks functions up without regard to it.
        for spelt in (name, name.upper()):
            with pytest.raises(sqlite3.DatabaseError) as refused:
                reader.execute(f"SELECT {spelt}('x')")
            # The authorizer's refusal, not SQLite's own "not authorized" of a disabled function.
            assert str(refused.value).lower() == f"not authorized to use function: {name}"
    finally:
        reader.close()


def test_the_authorizer_allows_reading_and_harmless_functions_only() -> None:
    allow, deny = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY
    decide = sql._sqlite_authorizer
    assert decide(sqlite3.SQLITE_SELECT, None, None, None, None) == allow
    assert decide(sqlite3.SQLITE_READ, "locales", "code", "main", None) == allow
    assert decide(sqlite3.SQLITE_RECURSIVE, None, None, None, None) == allow
    assert decide(sqlite3.SQLITE_FUNCTION, None, "lower", None, None) == allow
    assert decide(sqlite3.SQLITE_FUNCTION, None, None, None, None) == allow
    for name in DENIED_FUNCTIONS:
        assert decide(sqlite3.SQLITE_FUNCTION, None, name, None, None) == deny
        assert decide(sqlite3.SQLITE_FUNCTION, None, name.upper(), None, None) == deny
        # The function's name is the second argument, not the first.
        assert decide(sqlite3.SQLITE_FUNCTION, name, "lower", None, None) == allow
    for action in (
        sqlite3.SQLITE_INSERT,
        sqlite3.SQLITE_UPDATE,
        sqlite3.SQLITE_DELETE,
        sqlite3.SQLITE_PRAGMA,
        sqlite3.SQLITE_ATTACH,
        sqlite3.SQLITE_TRANSACTION,
        sqlite3.SQLITE_CREATE_TEMP_TABLE,
    ):
        assert decide(action, None, None, None, None) == deny


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_an_in_memory_sqlite_database_is_refused(url: str) -> None:
    """kb sql opens the store's file again, read-only: a database in memory has none."""
    engine = make_engine(url)
    assert sqlite_file(engine) is None
    with pytest.raises(sql.QueryError) as refused:
        sql.execute_read_only(engine, "SELECT 1")
    assert str(refused.value) == "kb sql needs a SQLite file, not an in-memory database"
    engine.dispose()


def test_a_missing_sqlite_file_is_named_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    engine = make_engine(f"sqlite:///{missing}")
    with pytest.raises(sql.QueryError) as refused:
        sql.execute_read_only(engine, "SELECT 1")
    assert str(refused.value) == f"{missing}: unable to open database file"
    assert not missing.exists()
    engine.dispose()


def test_sqlite_refuses_a_second_statement_in_its_own_words(sqlite_url: str) -> None:
    """Not an OperationalError: the sqlite3 module refuses it before SQLite runs anything."""
    engine = make_engine(sqlite_url)
    for statements in ("SELECT 1; SELECT 2", "SELECT 1; DELETE FROM locales"):
        with pytest.raises(sql.QueryError) as refused:
            sql.execute_read_only(engine, statements)
        assert str(refused.value) == "You can only execute one statement at a time."
    assert sql.execute_read_only(engine, "SELECT count(*) FROM locales").rows == [(11,)]
    engine.dispose()


def test_an_empty_query_is_told_so(engine: Engine) -> None:
    with pytest.raises(sql.QueryError) as refused:
        sql.run_query(engine, "  -- only a comment\n/* and another */")
    assert str(refused.value) == (
        "only queries can run here (SELECT, WITH, VALUES), not an empty query"
    )


def test_a_database_of_another_kind_is_named() -> None:
    # SQLAlchemy's MySQL dialect without its driver (not installed): only its name is read.
    mysql = create_mock_engine("mysql://", executor=lambda *arguments: None)
    with pytest.raises(sql.QueryError) as refused:
        sql.execute_read_only(mysql, "SELECT 1")
    assert str(refused.value) == "kb sql does not support mysql databases"


@pytest.mark.postgres
@pytest.mark.parametrize(("time_limit", "setting"), [(1.0, "1s"), (0.25, "250ms")])
def test_postgresql_times_the_query_out_after_the_time_limit_in_milliseconds(
    postgres_engine: Engine, time_limit: float, setting: str
) -> None:
    # Not under 1.5 ms (the floor of 1 ms): a query would race the server's timer.
    query = "SELECT current_setting('statement_timeout') AS timeout"
    assert sql.run_query(postgres_engine, query, time_limit=time_limit).rows == [(setting,)]


@pytest.mark.postgres
def test_a_postgresql_store_has_no_sqlite_file(postgres_engine: Engine) -> None:
    """Else its database's name would pass for a file: the build, the backup and the watcher
    ask sqlite_file where the store lies."""
    assert postgres_engine.url.database
    assert sqlite_file(postgres_engine) is None
