"""Revisions: the audited change of one row, applied and recorded in one transaction.

Every edit is a change of one row from the state the editor saw (``old``, None when the row is
absent) to a new state (``new``, None to remove it). The write states the old values in its
WHERE clause, so when another editor changed the row in the meantime it affects no row and the
edit fails with a conflict instead of overwriting their work (optimistic concurrency). ``kb
revert`` applies a revision backwards through the same path. kb.edits holds the edits
themselves; kb.translations applies a PO file's changes through ``commit_changes``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, and_, delete, insert, select, true, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from kb import derived
from kb.derived import refresh_near_duplicates
from kb.schema import metadata, revisions

# Long enough for a queue of editors on one SQLite file; each edit holds the lock briefly.
SQLITE_BUSY_TIMEOUT_MS = 30_000

Values = dict[str, Any]


class EditError(Exception):
    """An edit that cannot be made; the message is one line for the editor."""


class ConflictError(EditError):
    """The row is no longer what the editor saw: someone else changed it first."""


@dataclass(frozen=True)
class Change:
    """One row going from ``old`` to ``new``; None means the row is absent."""

    table: str
    key: Values
    old: Values | None
    new: Values | None
    card_id: int | None = None
    ruling_id: int | None = None


@contextmanager
def edit_transaction(engine: Engine) -> Iterator[Connection]:
    """One write transaction; on SQLite in WAL mode, waiting for the write lock up front.

    ``BEGIN IMMEDIATE`` takes SQLite's write lock before the first read, so two editors queue
    (for up to the busy timeout) instead of failing with "database is locked" when both read
    and then try to write.
    """
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            connection.exec_driver_sql(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            _use_wal(connection)
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        yield connection
        connection.commit()  # on an exception, leaving the block rolls back


def _use_wal(connection: Connection) -> None:
    """Put the SQLite store in WAL mode (it stays so), waiting for other editors doing the same.

    Switching needs an exclusive lock, and SQLite answers "database is locked" at once, without
    waiting for the busy timeout, to the second of two connections that each hold a shared
    lock and want it (which would deadlock): several editors' first edits of a store switch it
    at the same moment. So the switch is tried again until the busy timeout."""
    if connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal":
        return
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            connection.exec_driver_sql("PRAGMA journal_mode = WAL")
            return
        except OperationalError as error:
            if "database is locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def table_named(name: str) -> Table:
    return metadata.tables[name]


def _derived(table: str, values: Values) -> Values:
    """Columns computed from the edited ones: a ruling's keys follow its text."""
    if table == "rulings" and "text" in values:
        return derived.ruling_keys(values["text"])
    return {}


def matches(table: Table, values: Mapping[str, Any]) -> Any:
    # true() first: a tag row's old state {} (the row exists) adds no condition.
    return and_(true(), *(table.c[column] == value for column, value in values.items()))


def apply_change(connection: Connection, change: Change) -> None:
    """Write ``change``; raise ConflictError when the row is not in its ``old`` state."""
    table = table_named(change.table)
    where = matches(table, change.key)
    try:
        if change.old is None:
            new = change.new or {}
            connection.execute(insert(table).values(change.key | new | _derived(change.table, new)))
            return
        expected = and_(where, matches(table, change.old))
        if change.new is None:
            result = connection.execute(delete(table).where(expected))
        else:
            values = change.new | _derived(change.table, change.new)
            result = connection.execute(update(table).where(expected).values(values))
    except IntegrityError as error:
        raise _integrity_error(change, error) from None
    if result.rowcount != 1:
        raise ConflictError(
            f"{change.table} {_describe_key(change.key)} was changed by someone else since you "
            "read it; nothing was written. Read it again and redo your edit."
        )
    if change.table == "rulings" and "text" in (change.new or {}):
        refresh_near_duplicates(connection, [change.key["id"]])


def _integrity_error(change: Change, error: IntegrityError) -> EditError:
    if change.old is None:
        return ConflictError(
            f"{change.table} {_describe_key(change.key)} already exists (someone added it)"
        )
    if change.table == "rulings":
        return EditError("another ruling already has this text; link the cards to that one")
    return EditError(str(error.orig).splitlines()[0])


def _describe_key(key: Values) -> str:
    return ", ".join(f"{column}={value}" for column, value in key.items())


def record_revision(
    connection: Connection, editor: str, action: str, change: Change, reverts: int | None = None
) -> int:
    revision_id: int = connection.execute(
        insert(revisions)
        .values(
            editor=editor,
            made_at=dt.datetime.now(dt.UTC).replace(tzinfo=None),
            action=action,
            table_name=change.table,
            row_key=change.key,
            old_value=change.old,
            new_value=change.new,
            card_id=change.card_id,
            ruling_id=change.ruling_id,
            reverts_id=reverts,
        )
        .returning(revisions.c.id)
    ).scalar_one()
    return revision_id


def commit_change(
    engine: Engine, editor: str, action: str, plan: Callable[[Connection], Change]
) -> int:
    """Read the row with ``plan(connection) -> Change``, write the change, record it."""
    if not editor.strip():
        raise EditError("say who you are: --editor NAME or env KB_EDITOR")
    with edit_transaction(engine) as connection:
        change = plan(connection)
        if change.old == change.new:
            raise EditError("nothing to change: the new value is the current one")
        apply_change(connection, change)
        return record_revision(connection, editor, action, change)


def commit_changes(
    engine: Engine, editor: str, plan: Callable[[Connection], list[tuple[str, Change]]]
) -> list[int]:
    """Read with ``plan(connection) -> [(action, Change)]``, write every change and record each
    as a revision, in one transaction: all or none (a translator's file). Rows added are
    inserted, and all revisions recorded, in batches: a file may add thousands."""
    if not editor.strip():
        raise EditError("say who you are: --editor NAME or env KB_EDITOR")
    with edit_transaction(engine) as connection:
        planned = plan(connection)
        added: dict[str, list[Values]] = {}
        for _action, change in planned:
            if change.old is None:
                new = change.new or {}
                values = change.key | new | _derived(change.table, new)
                added.setdefault(change.table, []).append(values)
            else:
                apply_change(connection, change)
        for table, rows in added.items():
            try:
                connection.execute(insert(table_named(table)), rows)
            except IntegrityError:
                raise ConflictError(
                    f"{table}: someone else added one of these rows meanwhile; nothing was "
                    "written. Do it again."
                ) from None
        if not planned:
            return []
        made_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        records = [_revision(editor, made_at, action, change) for action, change in planned]
        # Without sort_by_parameter_order: SQLite would then insert row by row. The ids are
        # these rows' whatever their order.
        query = insert(revisions).returning(revisions.c.id)
        return sorted(connection.execute(query, records).scalars())


def _revision(editor: str, made_at: dt.datetime, action: str, change: Change) -> Values:
    return {
        "editor": editor,
        "made_at": made_at,
        "action": action,
        "table_name": change.table,
        "row_key": change.key,
        "old_value": change.old,
        "new_value": change.new,
        "card_id": change.card_id,
        "ruling_id": change.ruling_id,
        "reverts_id": None,
    }


def revert(engine: Engine, editor: str, revision_id: int) -> int:
    """Undo one revision, when its row is still as that revision left it; recorded too."""
    if not editor.strip():
        raise EditError("say who you are: --editor NAME or env KB_EDITOR")
    with edit_transaction(engine) as connection:
        revision = connection.execute(
            select(revisions).where(revisions.c.id == revision_id)
        ).one_or_none()
        if revision is None:
            raise EditError(f"no revision {revision_id}")
        change = Change(
            revision.table_name,
            revision.row_key,
            revision.new_value,
            revision.old_value,
            revision.card_id,
            revision.ruling_id,
        )
        apply_change(connection, change)
        return record_revision(connection, editor, "revert", change, reverts=revision_id)
