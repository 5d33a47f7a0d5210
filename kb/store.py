"""The store as a command opens and leaves it: never created by a command that only reads, and
its main file complete when the command ends.

SQLite in WAL mode (kb edit puts a store in it) appends each commit to ``kb.sqlite-wal``; the
main file gets the changes only at a checkpoint. SQLite checkpoints when the last connection
closes, but a command's connections are not closed when its process ends, and another
editor's connection keeps them from being the last: so the command checkpoints itself.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from kb import migrate
from kb.engine import make_engine, sqlite_file, sqlite_path, store_url

CHECKPOINT_WAIT_MS = 1000
"""How long the checkpoint at the end of a command waits for other connections reading an
older state of the store (or writing) before it leaves the rest to a later command."""


def open_store(url: str, migrated: bool = True, create: bool = False) -> Engine:
    """The store's engine. ``migrated``: brought to the latest migration first. Unless
    ``create``, a SQLite file that is not there is NoStoreError and nothing is created (no
    file, no -wal, no -shm); so is, when ``migrated``, a database with no tables at all."""
    engine = make_engine(url)
    try:
        if not create and new_sqlite_store(url) is not None:
            raise migrate.NoStoreError(engine)
        if migrated:
            migrate.ensure_latest(engine, create=create)
    except BaseException:
        engine.dispose()
        raise
    return engine


def new_sqlite_store(url: str) -> Path | None:
    """The SQLite file ``url`` names where there is none yet (a command about to make the
    store); None where it is there, or on another engine."""
    path = sqlite_path(store_url(url))
    return Path(path) if path is not None and not Path(path).exists() else None


def remove_sqlite_store(path: Path) -> None:
    """Remove a SQLite store that a failed command made, with its -wal, -shm and -journal
    files, once its engine is closed."""
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        path.with_name(name).unlink(missing_ok=True)


def close_store(engine: Engine) -> str | None:
    """Checkpoint a SQLite store's write-ahead log into its main file, then close the
    engine's connections. Returns, for the user, why the main file may not hold every change
    yet: nothing is lost then (the changes are committed, in the -wal file, and the next kb
    command to end moves them); None when it holds every change."""
    try:
        return _checkpoint(engine)
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        return f"{sqlite_file(engine)}: the write-ahead log was not checkpointed: {reason}"
    finally:
        engine.dispose()


def _checkpoint(engine: Engine) -> str | None:
    path = sqlite_file(engine)
    if path is None:
        return None
    wal = Path(f"{path}-wal")
    if not wal.exists() or wal.stat().st_size == 0:  # nothing to move: not even a connection
        return None
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
        # TRUNCATE also empties the -wal file, so that the store's size is its main file's.
        busy, logged, moved = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
    if busy == 0 or logged == moved:  # moved all: only the truncation had to wait
        return None
    return (
        f"{path}: the last changes are still only in {wal.name}, as another program is "
        "reading the store; the next kb command to end after it moves them into the file "
        "(kb backup copies the store whole meanwhile)"
    )
