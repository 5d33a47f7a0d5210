"""A SQLite copy of a store on any engine: what ``kb datasette --copy`` serves of a PostgreSQL
store, since Datasette reads SQLite files only.

The copy is a kb store like any other (built by the migrations, so its views and triggers are
SQLite's own), holding the rows of every table as one moment of the source saw them: one
REPEATABLE READ transaction on PostgreSQL. It is written beside the target, then renamed.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection, Engine

from kb.batches import chunks
from kb.engine import StoreError
from kb.schema import metadata, site_changes
from kb.store import close_store, open_store

ROWS_PER_INSERT = 1000


class CopyError(StoreError):
    """A copy that cannot be made as asked."""


def copy_to_sqlite(source: Engine, target: Path) -> int:
    """Copy every row of the store ``source`` into a new SQLite store at ``target`` (which must
    not exist); returns the number of rows copied."""
    if target.exists():
        raise CopyError(f"{target}: already exists; name a new file for the copy")
    if not target.parent.is_dir():
        raise CopyError(f"{target.parent}: no such folder")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)  # left by a copy killed before its rename
    copy = open_store(f"sqlite:///{partial}", migrated=True, create=True)
    try:
        options = (
            {"isolation_level": "REPEATABLE READ"} if source.dialect.name == "postgresql" else {}
        )
        with source.connect().execution_options(**options) as reading, copy.begin() as writing:
            # The migrations' own rows (the locales) are replaced by the source's; the triggers'
            # change log comes last, since every row inserted before it writes to it.
            tables = [table for table in metadata.sorted_tables if table is not site_changes]
            copied = sum(_copy_table(table, reading, writing) for table in tables)
            copied += _copy_table(site_changes, reading, writing)
        close_store(copy)
        partial.replace(target)
    finally:
        copy.dispose()
        partial.unlink(missing_ok=True)
    return copied


def _copy_table(table: Table, reading: Connection, writing: Connection) -> int:
    writing.execute(table.delete())
    rows = reading.execute(select(table).order_by(*table.primary_key.columns)).mappings()
    count = 0
    for batch in chunks(rows, ROWS_PER_INSERT):
        writing.execute(table.insert(), [dict(row) for row in batch])
        count += len(batch)
    return count
