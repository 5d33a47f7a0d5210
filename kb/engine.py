"""Connecting to the store: engines and their SQLite settings.

Apart from kb.db's models, so that a command that only reads the store through SQLAlchemy's
core (``kb build`` above all) does not load the ORM and the models: ~0.15 to 0.2 s of its
start on a slow machine.
"""

from __future__ import annotations

import os
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

DEFAULT_DATABASE_URL = "sqlite:///kb.sqlite"
SQLITE_CACHE_KIB = 64 * 1024


def database_url(url: str | None = None) -> str:
    return url or os.environ.get("KB_DATABASE_URL") or DEFAULT_DATABASE_URL


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # The default 2 MB page cache thrashes on the name and ruling indexes during a large import.
    cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
    cursor.close()


def sqlite_file(engine: Engine) -> str | None:
    """The SQLite store's file as the URL names it; None on another engine or in memory."""
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    return path if path and path != ":memory:" else None


def make_engine(url: str | None = None, **kwargs: Any) -> Engine:
    """An engine for ``url`` (or the default); SQLite gets foreign keys enforced."""
    engine = create_engine(database_url(url), **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _configure_sqlite)
    return engine
