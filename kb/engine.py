"""Connecting to the store: which database URLs kb accepts, engines and their SQLite settings.

The tables are kb.schema's; an engine knows none of them.
"""

from __future__ import annotations

import os
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError

DEFAULT_DATABASE_URL = "sqlite:///kb.sqlite"
SQLITE_CACHE_KIB = 64 * 1024
SUPPORTED_URLS = "sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST/DATABASE"

# Backends kb has a driver for, each with the one it accepts; a PostgreSQL URL naming none
# (``postgresql://``, or ``postgres://`` as hosting services write it) gets the one kb installs
# rather than SQLAlchemy's default of the day (psycopg2 before SQLAlchemy 2.1).
_DRIVERS = {"sqlite": "pysqlite", "postgresql": "psycopg", "postgres": "psycopg"}


class StoreError(Exception):
    """The store cannot be opened as asked (one line for the user): a URL kb has no driver
    for, or no store where a command that only reads looks for one."""


def database_url(url: str | None = None) -> str:
    return url or os.environ.get("KB_DATABASE_URL") or DEFAULT_DATABASE_URL


def store_url(url: str | None = None) -> URL:
    """``url`` (or the default) parsed, with kb's driver named; StoreError for one kb cannot use."""
    given = database_url(url)
    try:
        parsed = make_url(given)
    except ArgumentError:
        hint = f" (sqlite:///{given} for this file)" if "://" not in given else ""
        raise StoreError(f"{given}: not a database URL; kb takes {SUPPORTED_URLS}{hint}") from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend not in _DRIVERS or driver not in ("", _DRIVERS[backend]):
        raise StoreError(
            f"{parsed.render_as_string()}: kb has no driver for {parsed.drivername}; "
            f"it takes {SUPPORTED_URLS}"
        )
    if backend == "sqlite":
        return parsed
    return parsed.set(drivername="postgresql+psycopg")


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # The default 2 MB page cache thrashes on the name and ruling indexes during a large import.
    cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
    cursor.close()


def sqlite_path(url: URL) -> str | None:
    """The SQLite file a URL names; None on another engine, in memory or for a ``file:`` URI."""
    if url.get_backend_name() != "sqlite" or url.query.get("uri") in ("true", "1"):
        return None
    path = url.database
    return path if path and path != ":memory:" else None


def sqlite_file(engine: Engine) -> str | None:
    """The SQLite store's file as the URL names it; None on another engine or in memory."""
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    return path if path and path != ":memory:" else None


def make_engine(url: str | None = None, **kwargs: Any) -> Engine:
    """An engine for ``url`` (or the default); SQLite gets foreign keys enforced."""
    engine = create_engine(store_url(url), **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _configure_sqlite)
    return engine
