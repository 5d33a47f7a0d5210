"""A SQLite copy of a store on any engine: what ``kb datasette --copy`` serves of a PostgreSQL
store, since Datasette reads SQLite files only.

The copy is a kb store like any other (built by the migrations, so its views and triggers are
SQLite's own), holding the rows of every table as one moment of the source saw them (one
REPEATABLE READ transaction on PostgreSQL, one read transaction on SQLite). It is written
beside the target, then renamed.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection, Engine

from kb.changelog import begin_bulk_load, end_bulk_load
from kb.engine import StoreError
from kb.schema import metadata
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
        with _snapshot(source) as reading, copy.begin() as writing:
            # The change log is copied as it is: the triggers that would add to it are off.
            begin_bulk_load(writing)
            copied = sum(_copy_table(table, reading, writing) for table in metadata.sorted_tables)
            end_bulk_load(writing, changed=False)
        close_store(copy)
        partial.replace(target)
    finally:
        copy.dispose()
        partial.unlink(missing_ok=True)
    return copied


def _snapshot(source: Engine) -> Connection:
    """A connection that reads the store as it is now, whatever is written meanwhile."""
    if source.dialect.name == "postgresql":
        return source.connect().execution_options(isolation_level="REPEATABLE READ")
    reading = source.connect()
    # pysqlite begins no transaction for reads: each SELECT would see the store of its moment.
    reading.exec_driver_sql("BEGIN")
    return reading


def _copy_table(table: Table, reading: Connection, writing: Connection) -> int:
    """Replace the copy's rows of ``table`` (the locales, which a migration writes) with the
    source's, in primary key order (a revision refers to the earlier one it reverts)."""
    writing.execute(table.delete())
    query = select(table).order_by(*table.primary_key.columns)
    rows = reading.execute(query.execution_options(yield_per=ROWS_PER_INSERT)).mappings()
    count = 0
    for batch in rows.partitions():
        writing.execute(table.insert(), [dict(row) for row in batch])
        count += len(batch)
    return count
