"""kb backup: a consistent copy of a SQLite store while others read and write it.

SQLite's online backup API copies the store as one snapshot (a read transaction over the whole
copy): in WAL mode writers go on meanwhile, and the copy holds what was committed when it
began, including what is still only in the -wal file. PostgreSQL has its own tool, pg_dump.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from sqlalchemy.engine import URL, Engine

from kb.engine import StoreError, sqlite_file, store_url


class BackupError(StoreError):
    """A backup that cannot be made as asked."""


def backup(url: str, store: Callable[[], Engine], target: Path) -> tuple[str, int]:
    """Back up the store at ``url`` (``store`` opens it) to ``target``: its file's name and
    the copy's size. A PostgreSQL store is BackupError, saying how pg_dump would do it."""
    parsed = store_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise BackupError(f"kb backup copies SQLite stores; use {pg_dump_command(parsed, target)}")
    engine = store()
    path = sqlite_file(engine)
    if path is None:
        raise BackupError(f"{parsed.render_as_string()}: an in-memory store has no file to copy")
    return path, backup_sqlite(engine, target)


def backup_sqlite(engine: Engine, target: Path) -> int:
    """Copy the SQLite store of ``engine`` to ``target``; returns the copy's size in bytes.

    Written beside ``target`` and renamed over it, so a failed backup leaves no half file. The
    copy is one file (journal mode DELETE): it needs no -wal beside it wherever it is sent."""
    store = Path(sqlite_file(engine) or ":memory:")
    if _same_file(target, store) or any(
        _same_file(target, Path(f"{store}{suffix}")) for suffix in ("-wal", "-shm", "-journal")
    ):
        raise BackupError(f"{target}: is the store itself; back up to another file")
    if target.is_dir():
        raise BackupError(f"{target}: is a folder; name the file to write")
    if not target.parent.is_dir():
        raise BackupError(f"{target.parent}: no such folder")
    partial = target.with_name(f".{target.name}.partial")
    # The engine's own connection, which only reads here: closed with the engine, it takes
    # the -wal and -shm files away as the last one, where a read-only connection would not.
    source = engine.raw_connection()
    reader = source.driver_connection
    assert isinstance(reader, sqlite3.Connection)  # pysqlite's, as the engine is SQLite's
    try:
        partial.unlink(missing_ok=True)  # left by a backup killed before its rename
        copy = sqlite3.connect(partial)
        try:
            copy.execute("PRAGMA busy_timeout = 5000")
            reader.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")
        finally:
            copy.close()
        _sync(partial)
        partial.replace(target)
        _sync(target.parent)
    except sqlite3.Error as error:
        raise BackupError(f"{target}: {error} (copying {store})") from None
    finally:
        source.close()
        partial.unlink(missing_ok=True)
    return target.stat().st_size


def pg_dump_command(url: URL, target: Path) -> str:
    """The pg_dump command that backs up the PostgreSQL store at ``url`` into ``target``,
    without the password (pg_dump asks for it, or takes it from PGPASSWORD or ~/.pgpass)."""
    user = quote(url.username or "", safe="")
    host = quote(url.host or "", safe="")
    port = f":{url.port}" if url.port else ""
    at = "@" if user else ""
    query = "&".join(
        f"{quote(key, safe='')}={quote(value, safe='')}"
        for key, values in sorted(url.query.items())
        for value in ((values,) if isinstance(values, str) else values)
    )
    database = quote(url.database or "", safe="")
    libpq = f"postgresql://{user}{at}{host}{port}/{database}" + (f"?{query}" if query else "")
    return f"pg_dump --format=custom --file={shlex.quote(str(target))} {shlex.quote(libpq)}"


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve() or (
            one.exists() and other.exists() and os.path.samefile(one, other)
        )
    except OSError:
        return False


def _sync(path: Path) -> None:
    """Flush ``path`` (a file, or a folder's entries) to the disk: the copy, then its name."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
