"""Bulk reads and writes of the loader: rows as tuples, many at a time.

Every row the loader reads by key or writes in bulk goes through ``Bulk``: ``select_in`` (the
rows whose key is one of many), ``rows`` (a whole query's, as the mining reads the printed
texts), ``insert``, ``insert_ids`` (new rows' ids, in row order) and
``update`` (many rows, each by its key). Two ways do the same work:

- **fast** (the default): the DBAPI cursor of the import's connection, with SQL written once per
  table and columns: sqlite3's ``executemany`` with tuples, psycopg's ``executemany`` and
  ``= ANY(array)``. It skips what SQLAlchemy does per row and per statement (building and
  caching the statement, expanding each ``IN`` list, a dictionary of parameters per row), which
  was a quarter of an import's time. Only the column types that convert on the engine
  (SQLite's dates) convert, by the type's own processors, so the stored values are the same.
- **plain** (``KB_BULK=plain``): SQLAlchemy Core statements, as the loader wrote before.

tests/test_loader_bulk.py imports the same inputs both ways on both engines and requires the
same table contents, row for row, ids included.

New ids come from where the plain way's come from: on SQLite, a row's id is one more than the
largest (SQLite's rowid rule), and the import holds the store's one write lock from its first
write, so the ids of rows just inserted are the last ``n`` ids; on PostgreSQL, from the table's
sequence (``nextval``) before the rows are written, which concurrent editors share safely.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, Table, and_, bindparam, insert, select, update
from sqlalchemy.engine import Connection

from kb.batches import chunks

Row = tuple[Any, ...]
Processor = Callable[[Any], Any]
Converter = tuple[int, Processor]
"""A column's position in a row, and how its values convert."""
PLAIN_SETTING = "KB_BULK"
"""``KB_BULK=plain``: every bulk read and write by SQLAlchemy Core statements, and every card
looked up in the store again (``plain_way``)."""
SQLITE_IN_CHUNK = 900
"""Keys per ``IN`` list on SQLite (well under its bound-parameter limit)."""
ROWS_FETCHED = 5000
"""Rows ``rows`` fetches at a time: a whole table is never held at once."""
POSTGRESQL_IN_CHUNK = 10_000
"""Keys per ``= ANY(array)`` on PostgreSQL: one parameter, so only memory bounds it."""


def plain_way() -> bool:
    """Whether the loader takes the plain way (``KB_BULK=plain``): each bulk read and write a
    SQLAlchemy Core statement, and each card a batch names looked up in the store, where the
    fast way remembers the cards the run placed (kb.loader.cards, kb.loader.references); and
    the mining matches every card's text for the keyword actions no source lists, where the
    fast way reads a new store's text tags (kb.loader.mined_names). tests/test_loader_bulk.py
    proves the two ways equal."""
    return os.environ.get(PLAIN_SETTING) == "plain"


def bulk_for(connection: Connection) -> Bulk:
    """The fast way, or the plain one where ``KB_BULK=plain``."""
    return PlainBulk(connection) if plain_way() else FastBulk(connection)


class Bulk:
    """Reads and writes rows as tuples of the columns named, in the order named."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def select_in(
        self, table: Table, columns: Sequence[str], key: str, keys: Iterable[Any]
    ) -> list[Row]:
        """The rows (of ``columns``) whose ``key`` column is one of ``keys``; no order."""
        raise NotImplementedError

    def rows(self, query: Select[Any]) -> Iterator[Row]:
        """The rows of a whole-table ``query`` (one with no parameters), as they come."""
        raise NotImplementedError

    def insert(self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Insert ``rows``, each the values of ``columns``."""
        raise NotImplementedError

    def insert_ids(
        self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> list[int]:
        """Insert ``rows`` into a table keyed by ``id``; their new ids, in row order."""
        raise NotImplementedError

    def update(
        self,
        table: Table,
        columns: Sequence[str],
        keys: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        """Set ``columns`` of the row each of ``rows`` names: its values of ``columns``, then
        of ``keys``."""
        raise NotImplementedError


class PlainBulk(Bulk):
    """SQLAlchemy Core statements: the plain way, which the fast one must equal."""

    def select_in(
        self, table: Table, columns: Sequence[str], key: str, keys: Iterable[Any]
    ) -> list[Row]:
        selected = [table.c[name] for name in columns]
        found: list[Row] = []
        for chunk in chunks(set(keys)):
            query = select(*selected).where(table.c[key].in_(chunk))
            found.extend(tuple(row) for row in self.connection.execute(query))
        return found

    def rows(self, query: Select[Any]) -> Iterator[Row]:
        for row in self.connection.execute(query):
            yield tuple(row)

    def insert(self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.connection.execute(insert(table), _parameters(columns, rows))

    def insert_ids(
        self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> list[int]:
        if not rows:
            return []
        statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
        result = self.connection.execute(statement, _parameters(columns, rows))
        return list(result.scalars())

    def update(
        self,
        table: Table,
        columns: Sequence[str],
        keys: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        if not rows:
            return
        statement = (
            update(table)
            .where(and_(*(table.c[name] == bindparam(f"k_{name}") for name in keys)))
            .values({name: bindparam(f"v_{name}") for name in columns})
        )
        names = [f"v_{name}" for name in columns] + [f"k_{name}" for name in keys]
        self.connection.execute(statement, _parameters(names, rows))


def _parameters(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    return [dict(zip(names, row, strict=True)) for row in rows]


class FastBulk(Bulk):
    """The import connection's DBAPI cursor, SQL written once per table and columns."""

    def __init__(self, connection: Connection) -> None:
        super().__init__(connection)
        self.dialect = connection.dialect
        self.postgresql = self.dialect.name == "postgresql"
        self.placeholder = "%s" if self.postgresql else "?"
        self._sql: dict[tuple[Any, ...], str] = {}

    def _cursor(self) -> Any:
        # The connection's own DBAPI connection: the same transaction as every other statement.
        return self.connection.connection.cursor()

    def _processors(self, columns: Iterable[ColumnElement[Any]], bind: bool) -> list[Converter]:
        """(position, conversion) of the columns whose type converts values on this engine:
        the values written (``bind``) or the values read."""
        found: list[Converter] = []
        for position, column in enumerate(columns):
            kind = column.type
            process = (
                kind._cached_bind_processor(self.dialect)
                if bind
                else kind._cached_result_processor(self.dialect, None)
            )
            if process is not None:
                found.append((position, process))
        return found

    def _bound(
        self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> Sequence[Sequence[Any]]:
        binders = self._processors((table.c[name] for name in columns), bind=True)
        return [_converted(row, binders) for row in rows] if binders else rows

    def select_in(
        self, table: Table, columns: Sequence[str], key: str, keys: Iterable[Any]
    ) -> list[Row]:
        wanted = set(keys)
        wanted.discard(None)  # NULL equals nothing: the plain way's IN finds no row for it
        if not wanted:
            return []
        listed = ", ".join(columns)
        cursor = self._cursor()
        found: list[Row] = []
        if self.postgresql:
            sql = f"SELECT {listed} FROM {table.name} WHERE {key} = ANY(%s)"
            for chunk in chunks(wanted, POSTGRESQL_IN_CHUNK):
                cursor.execute(sql, (chunk,))
                found.extend(cursor.fetchall())
        else:
            for chunk in chunks(wanted, SQLITE_IN_CHUNK):
                marks = ", ".join("?" * len(chunk))
                cursor.execute(f"SELECT {listed} FROM {table.name} WHERE {key} IN ({marks})", chunk)
                found.extend(cursor.fetchall())
        cursor.close()
        processors = self._processors((table.c[name] for name in columns), bind=False)
        if processors:
            return [_converted(row, processors) for row in found]
        return [tuple(row) for row in found] if self.postgresql else found

    def rows(self, query: Select[Any]) -> Iterator[Row]:
        compiled = query.compile(dialect=self.dialect)
        if compiled.params:
            raise ValueError("Bulk.rows takes a query without parameters")
        processors = self._processors(query.selected_columns, bind=False)
        cursor = self._cursor()
        cursor.execute(str(compiled))
        while found := cursor.fetchmany(ROWS_FETCHED):
            for row in found:
                yield _converted(row, processors) if processors else tuple(row)
        cursor.close()

    def _insert_sql(self, table: Table, columns: Sequence[str]) -> str:
        cache_key = ("insert", table.name, *columns)
        sql = self._sql.get(cache_key)
        if sql is None:
            marks = ", ".join([self.placeholder] * len(columns))
            sql = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({marks})"
            self._sql[cache_key] = sql
        return sql

    def insert(self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        cursor = self._cursor()
        cursor.executemany(self._insert_sql(table, columns), self._bound(table, columns, rows))
        cursor.close()

    def insert_ids(
        self, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> list[int]:
        if not rows:
            return []
        cursor = self._cursor()
        bound = self._bound(table, columns, rows)
        if self.postgresql:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                (table.name, len(rows)),
            )
            ids = sorted(found for (found,) in cursor.fetchall())
            cursor.executemany(
                self._insert_sql(table, ("id", *columns)),
                [(new_id, *row) for new_id, row in zip(ids, bound, strict=True)],
            )
        else:
            cursor.executemany(self._insert_sql(table, columns), bound)
            # Each new rowid is one more than the largest; this transaction holds the write lock.
            cursor.execute(f"SELECT max(id) FROM {table.name}")
            (last,) = cursor.fetchone()
            ids = list(range(last - len(rows) + 1, last + 1))
        cursor.close()
        return ids

    def update(
        self,
        table: Table,
        columns: Sequence[str],
        keys: Sequence[str],
        rows: Sequence[Sequence[Any]],
    ) -> None:
        if not rows:
            return
        mark = self.placeholder
        assignments = ", ".join(f"{name} = {mark}" for name in columns)
        condition = " AND ".join(f"{name} = {mark}" for name in keys)
        cursor = self._cursor()
        cursor.executemany(
            f"UPDATE {table.name} SET {assignments} WHERE {condition}",
            self._bound(table, (*columns, *keys), rows),
        )
        cursor.close()


def _converted(row: Sequence[Any], processors: list[Converter]) -> Row:
    """The row with the values at the processors' positions converted."""
    values = list(row)
    for position, process in processors:
        values[position] = process(values[position])
    return tuple(values)
