"""Editors' SQL: run one query read-only, with a time limit and a row limit.

Read-only is enforced by the connection, not by inspecting the SQL text:

- SQLite: a separate connection opens the file read-only (``mode=ro``), sets
  ``PRAGMA query_only``, and installs an authorizer that allows reading only (no ATTACH, which
  read-only mode alone would let create a file; no PRAGMA; no load_extension). The
  sqlite3 module refuses several statements in one call.
- PostgreSQL: the query runs in a read-only transaction, as the role ``kb_reader`` (``SET LOCAL
  ROLE``: it may only read kb's tables and views, so it cannot read server files or large
  objects), wrapped as ``DECLARE kb_query CURSOR FOR <query>``. The server accepts only a query
  there (SELECT, VALUES, WITH without data-modifying parts), never a utility statement such as
  ``RESET ROLE``, ``SET``, ``COPY`` or ``DO``; and the statement goes through the extended
  protocol (a prepared statement), which refuses a second statement after a ``;``. Migration
  0002 takes ``set_config`` away from ``kb_reader``, the one function that could switch the
  role back inside a query. The transaction is always rolled back. JIT compilation is off in
  it (see _run_postgresql).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import text
from sqlalchemy.engine import Engine
from wcwidth import wcswidth

from kb.engine import sqlite_file
from kb.locales import LOCALE_CODES
from kb.resources import resource_dir

if TYPE_CHECKING:
    import psycopg

READER_ROLE = "kb_reader"
CURSOR_NAME = "kb_query"
_DECLARE = f"DECLARE {CURSOR_NAME} NO SCROLL CURSOR FOR "

# Functions that reach outside the database (files, extensions, the tokenizer registry).
_SQLITE_DENIED_FUNCTIONS = frozenset(
    {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile"}
)
_SQLITE_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
)
# Opcodes between two checks of the clock: often enough to stop within milliseconds.
_PROGRESS_STEP = 10_000
_LEADING_COMMENTS = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)
_QUERY_KEYWORDS = frozenset({"select", "with", "values", "table"})


SAVED_QUERIES = "queries"
_HEADER_LINE = re.compile(r"--\s*(title|description|param\s+(\w+))\s*:\s*(.*)")


class QueryError(Exception):
    """A query that failed or was refused; the message is one line for the editor."""


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool
    """True when the query had more rows than the row limit."""


@dataclass(frozen=True)
class SavedQuery:
    """A query in queries/NAME.sql; its header comment says what it finds and what it needs::

    -- title: Rulings with no mechanic tag
    -- description: ...
    -- param locale: a locale code, e.g. it
    """

    name: str
    title: str
    description: str
    parameters: dict[str, str]
    sql: str


def parse_saved_query(name: str, sql: str) -> SavedQuery:
    fields: dict[str, str] = {}
    parameters: dict[str, str] = {}
    for line in sql.splitlines():
        header = _HEADER_LINE.match(line.strip())
        if header is None:
            break
        kind, parameter, value = header.groups()
        if parameter:
            parameters[parameter] = value
        else:
            fields[kind] = value
    return SavedQuery(
        name, fields.get("title", name), fields.get("description", ""), parameters, sql
    )


def saved_queries(folder: Path | None = None) -> dict[str, SavedQuery]:
    """The saved queries of ``folder`` (kb's queries/) by name: the file name without .sql."""
    folder = folder or resource_dir(SAVED_QUERIES)
    return {
        path.stem: parse_saved_query(path.stem, query_text(path.read_bytes(), str(path)))
        for path in sorted(folder.glob("*.sql"))
    }


def query_text(data: bytes, name: str) -> str:
    """A query read from a file or stdin (``name``), which must be UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise QueryError(f"{name}: not UTF-8 text (byte {error.start}: {error.reason})") from error


def run_query(
    engine: Engine,
    sql: str,
    params: Mapping[str, Any] | None = None,
    time_limit: float = 1.0,
    max_rows: int = 1000,
) -> QueryResult:
    """Run ``sql`` read-only with named ``:name`` parameters; raise QueryError on any failure."""
    _check_is_query(sql)
    check_parameters_used(sql, params or {})
    return execute_read_only(engine, sql, params, time_limit, max_rows)


def check_parameters_used(sql: str, params: Mapping[str, Any]) -> None:
    """A value given for no :name of the query is most likely a misspelt name (SQLite would
    ignore it): say so rather than answer a different question. A :name given no value is told
    the same way on both engines (their drivers' messages differ, one with a web address)."""
    used = text(sql).compile().params
    unused = sorted(name for name in params if name not in used)
    if unused:
        given = ", ".join(f"-p {name}" for name in unused)
        raise QueryError(
            f"{given}: the query has no {' or '.join(f':{n}' for n in unused)} parameter"
        )
    missing = sorted(name for name in used if name not in params)
    if missing:
        needed = ", ".join(f"-p {name} VALUE" for name in missing)
        raise QueryError(
            f"the query's {', '.join(f':{n}' for n in missing)} needs a value ({needed})"
        )


_LOCALES_IN_ANY_CASE = {code.lower(): code for code in LOCALE_CODES}


def saved_query_values(
    saved: SavedQuery, params: Sequence[tuple[str, str]], engine: Callable[[], Engine]
) -> dict[str, str]:
    """The values ``params`` (-p NAME VALUE, in order) give ``saved``, checked, or QueryError.

    Every parameter the query declares must have a value, and every value a parameter (the
    names before the values: a misspelt name is the likelier slip). A -p locale (in any case:
    pt-br) and a -p mechanic (a slug, in any case) must exist: a misspelt one would answer for
    a locale or a mechanic that does not, every card missing its name or none tagged, rather
    than say so. ``engine`` is asked for the store only when a check reads it."""
    missing = sorted(set(saved.parameters) - {parameter for parameter, _ in params})
    if missing:
        needed = ", ".join(f"-p {parameter} VALUE" for parameter in missing)
        raise QueryError(f"{saved.name} needs {needed}")
    check_parameters_used(saved.sql, dict(params))
    checked = {}
    for parameter, value in params:
        if parameter == "locale" and parameter in saved.parameters:
            code = _LOCALES_IN_ANY_CASE.get(value.lower())
            if code is None:
                raise QueryError(f"-p locale {value}: not one of {', '.join(LOCALE_CODES)}")
            value = code
        elif parameter == "mechanic" and parameter in saved.parameters:
            value = value.lower()  # every slug is lower case
            found = run_query(
                engine(), "SELECT 1 FROM mechanics WHERE slug = :slug", {"slug": value}
            )
            if not found.rows:
                raise QueryError(
                    f"-p mechanic {value}: no mechanic has this slug "
                    '(kb sql "SELECT slug FROM mechanics" lists them)'
                )
        checked[parameter] = value
    return checked


def execute_read_only(
    engine: Engine,
    sql: str,
    params: Mapping[str, Any] | None = None,
    time_limit: float = 1.0,
    max_rows: int = 1000,
) -> QueryResult:
    """Run ``sql`` on a connection that can only read, without run_query's friendly check of
    the statement: what the database itself refuses (tests use it to prove that)."""
    params = dict(params or {})
    if engine.dialect.name == "sqlite":
        return _run_sqlite(engine, sql, params, time_limit, max_rows)
    if engine.dialect.name == "postgresql":
        return _run_postgresql(engine, sql, params, time_limit, max_rows)
    raise QueryError(f"kb sql does not support {engine.dialect.name} databases")


def _check_is_query(sql: str) -> None:
    """A clear message for the common mistake; the connection is what enforces read-only."""
    words = re.split(r"[^\w]", _LEADING_COMMENTS.sub("", sql), maxsplit=1)
    first = words[0].lower()
    if first not in _QUERY_KEYWORDS:
        shown = first.upper() or "an empty query"
        raise QueryError(f"only queries can run here (SELECT, WITH, VALUES), not {shown}")


def _truncate(columns: list[str], rows: list[tuple[Any, ...]], max_rows: int) -> QueryResult:
    return QueryResult(columns, rows[:max_rows], truncated=len(rows) > max_rows)


def _sqlite_authorizer(
    action: int, _arg1: str | None, arg2: str | None, _db: str | None, _trigger: str | None
) -> int:
    """Reading and harmless functions only. Every PRAGMA is denied: even the pragma functions
    that describe the schema first ask to update sqlite_master; kb schema describes it."""
    if action in _SQLITE_ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in _SQLITE_DENIED_FUNCTIONS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def open_sqlite_reader(path: str) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path`` that can only read."""
    try:
        connection = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise QueryError(f"{path}: {error}") from None
    connection.execute("PRAGMA query_only = ON")
    connection.set_authorizer(_sqlite_authorizer)
    return connection


def _run_sqlite(
    engine: Engine, sql: str, params: dict[str, Any], time_limit: float, max_rows: int
) -> QueryResult:
    path = sqlite_file(engine)
    if path is None:
        raise QueryError("kb sql needs a SQLite file, not an in-memory database")
    connection = open_sqlite_reader(path)
    deadline = time.monotonic() + time_limit
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_STEP)
    try:
        cursor = connection.execute(sql, params)
        rows = cursor.fetchmany(max_rows + 1)
        columns = [column[0] for column in cursor.description or ()]
    except sqlite3.OperationalError as error:
        if str(error) == "interrupted":
            raise QueryError(_timeout_message(time_limit)) from None
        raise QueryError(_sqlite_message(error)) from None
    except (sqlite3.Error, sqlite3.Warning) as error:
        raise QueryError(_sqlite_message(error)) from None
    finally:
        connection.close()
    return _truncate(columns, rows, max_rows)


def _sqlite_message(error: Exception) -> str:
    message = str(error).splitlines()[0]
    if message == "not authorized":
        return "not authorized: kb sql can only read"
    return message


def _timeout_message(time_limit: float) -> str:
    return f"query stopped: it ran longer than the time limit of {time_limit:g} s (--time-limit)"


def _run_postgresql(
    engine: Engine, sql: str, params: dict[str, Any], time_limit: float, max_rows: int
) -> QueryResult:
    # text() turns :name parameters into the driver's %(name)s and escapes literal % signs.
    compiled = text(sql).compile(dialect=engine.dialect)
    bound = compiled.construct_params(params)  # every :name has a value (check_parameters_used)
    import psycopg  # only here: its import costs every kb command a tenth of a second

    with engine.connect() as connection:
        driver: psycopg.Connection[Any] = connection.connection.driver_connection  # type: ignore[assignment]
        cursor = driver.cursor()
        try:
            cursor.execute("SET TRANSACTION READ ONLY")
            # At least 1 ms: a statement_timeout of 0 would mean no limit at all.
            timeout_ms = max(1, round(time_limit * 1000))
            cursor.execute(f"SET LOCAL statement_timeout = {timeout_ms}")
            # Editors' queries run for milliseconds: a plan whose estimated cost passes
            # jit_above_cost (a report over every ruling on a larger store) would first be
            # compiled, and past jit_inline_above_cost that takes longer than the query.
            cursor.execute("SET LOCAL jit = off")
            cursor.execute(f"SET LOCAL ROLE {READER_ROLE}")
            # prepare=True: the extended protocol, which refuses more than one statement.
            cursor.execute(_DECLARE + compiled.string, bound, prepare=True)
            cursor.execute(f"FETCH FORWARD {max_rows + 1} FROM {CURSOR_NAME}")
            rows = cursor.fetchall()
            columns = [column.name for column in cursor.description or ()]
        except psycopg.errors.QueryCanceled:
            raise QueryError(_timeout_message(time_limit)) from None
        except psycopg.Error as error:
            raise QueryError(_postgresql_message(error)) from None
        finally:
            driver.rollback()
    return _truncate(columns, rows, max_rows)


def _postgresql_message(error: psycopg.Error) -> str:
    message = str(error).splitlines()[0]
    if message == "cannot insert multiple commands into a prepared statement":
        return "one statement at a time: remove the ';' and what follows it"
    if error.diag.statement_position:
        position = int(error.diag.statement_position) - len(_DECLARE)
        if position > 0:
            return f"{message} (at character {position})"
    return message


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def format_result(result: QueryResult, style: str) -> str:
    """The result as text: an aligned table, CSV, TSV, JSON (a list of objects) or Markdown."""
    cells = [[_cell(value) for value in row] for row in result.rows]
    if style in ("csv", "tsv"):
        out = io.StringIO()
        writer = csv.writer(out, delimiter="," if style == "csv" else "\t", lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows(cells)
        return out.getvalue()
    if style == "json":
        objects = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
        return json.dumps(objects, ensure_ascii=False, indent=2, default=_cell) + "\n"
    if style == "markdown":
        lines = [result.columns, ["---"] * len(result.columns)]
        escaped = [[cell.replace("|", "\\|").replace("\n", " ") for cell in row] for row in cells]
        return "".join(f"| {' | '.join(line)} |\n" for line in lines + escaped)
    flat = [[" ".join(cell.splitlines()) for cell in row] for row in cells]  # a row per line
    widths = [
        max([_columns(column), *(_columns(row[i]) for row in flat)])
        for i, column in enumerate(result.columns)
    ]
    lines = [result.columns, ["-" * width for width in widths], *flat]
    return "".join(
        "  ".join(
            cell + " " * (width - _columns(cell)) for cell, width in zip(line, widths, strict=True)
        ).rstrip()
        + "\n"
        for line in lines
    )


def _columns(text: str) -> int:
    """The terminal columns ``text`` takes: two for a wide (CJK) character, none for a
    combining mark; a character a terminal does not print counts one."""
    width = wcswidth(text)
    return width if width >= 0 else len(text)
