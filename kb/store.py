"""The store as a command opens it: never created by a command that only reads."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

from kb import migrate
from kb.engine import make_engine, sqlite_path, store_url


def open_store(url: str, migrated: bool = True, create: bool = False) -> Engine:
    """The store's engine. ``migrated``: brought to the latest migration first. Unless
    ``create``, a SQLite file that is not there is NoStoreError and nothing is created (no
    file, no -wal, no -shm); so is, when ``migrated``, a database with no tables at all."""
    path = sqlite_path(store_url(url))
    engine = make_engine(url)
    try:
        if not create and path is not None and not Path(path).exists():
            raise migrate.NoStoreError(engine)
        if migrated:
            migrate.ensure_latest(engine, create=create)
    except BaseException:
        engine.dispose()
        raise
    return engine
