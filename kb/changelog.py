"""The store's change log: which cards' pages a write may have changed, for incremental builds.

Triggers on every table the site shows add a row to ``site_changes`` for each card whose page a
written row may change (a ruling's cards when the ruling's text changes, or when the ruling
is deleted); a row with no card means that anything may have changed (a mechanic renamed; on
PostgreSQL, a TRUNCATE, which fires no row trigger). Every writer is logged, kb's own or not
(``kb edit``, a script, ``psql``), so an incremental build reads the cards changed since its
previous build instead of fingerprinting every card.

An import writes hundreds of thousands of rows in one transaction: it turns the triggers off
for that transaction (SQLite: drops and recreates them, which rolls back with the import;
PostgreSQL: a transaction-local setting the triggers' WHEN clause reads) and logs a single
"anything" row if it changed something; the next build then checks every card.

Positions in the log: on SQLite the last row's id (writers are serialized, so a later write
always gets a larger id); on PostgreSQL a snapshot (``pg_current_snapshot()``): rows whose
transaction it does not see are those to read next time, even if they were written before the
build but committed after it. Each names its store too: a copy of the store, edited apart,
reaches the same positions with other writes, and a site built from one is checked whole when
built from the other.
"""

from __future__ import annotations

import os

from sqlalchemy import text
from sqlalchemy.engine import Connection

BULK_LOAD_SETTING = "kb.bulk_load"
"""PostgreSQL: 'on' within an import's transaction, where the triggers stay silent."""

CARDS_OF_ROW = {
    "cards": "SELECT {row}.id",
    "card_names": "SELECT {row}.card_id",
    "card_faces": "SELECT {row}.card_id",
    "card_rulings": "SELECT {row}.card_id",
    "card_mechanics": "SELECT {row}.card_id",
    "printed_texts": "SELECT {row}.card_id",
    "rulings": "SELECT card_id FROM card_rulings WHERE ruling_id = {row}.id",
    "ruling_mechanics": "SELECT card_id FROM card_rulings WHERE ruling_id = {row}.ruling_id",
    "ruling_translations": "SELECT card_id FROM card_rulings WHERE ruling_id = {row}.ruling_id",
    # A mechanic's names and file name are on every card page that shows its tag.
    "mechanics": "SELECT CAST(NULL AS integer)",
    "mechanic_names": "SELECT CAST(NULL AS integer)",
}
"""For each table the site shows: the cards whose pages a row (NEW or OLD) is on, NULL for
"any card"."""

EVENTS = ("INSERT", "UPDATE", "DELETE")


def _rows(event: str) -> tuple[str, ...]:
    return {"INSERT": ("NEW",), "UPDATE": ("NEW", "OLD"), "DELETE": ("OLD",)}[event]


def _sqlite_trigger(table: str, event: str) -> str:
    cards = " UNION ".join(CARDS_OF_ROW[table].format(row=row) for row in _rows(event))
    return (
        f"CREATE TRIGGER site_changes_{table}_{event.lower()} AFTER {event} ON {table} "
        f"FOR EACH ROW BEGIN INSERT INTO site_changes (card_id) {cards}; END"
    )


_POSTGRESQL_TRANSACTION = "pg_current_xact_id()::text::bigint"
"""The writing transaction's id, as site_changes.transaction_id stores it."""
ANY_CARD = {
    "postgresql": "INSERT INTO site_changes (card_id, transaction_id) "
    f"VALUES (NULL, {_POSTGRESQL_TRANSACTION})",
    "sqlite": "INSERT INTO site_changes (card_id) VALUES (NULL)",
}
"""Per dialect: the statement that logs "any card may have changed"."""


def _postgresql_function(table: str) -> str:
    def insert(row: str) -> str:
        return (
            "INSERT INTO site_changes (card_id, transaction_id) "
            f"SELECT changed.card_id, {_POSTGRESQL_TRANSACTION} "
            f"FROM ({CARDS_OF_ROW[table].format(row=row)}) AS changed (card_id);"
        )

    return (
        f"CREATE FUNCTION site_changes_{table}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        "BEGIN\n"
        f"  IF TG_OP <> 'DELETE' THEN {insert('NEW')} END IF;\n"
        f"  IF TG_OP <> 'INSERT' THEN {insert('OLD')} END IF;\n"
        "  RETURN NULL;\n"
        "END $$"
    )


def _postgresql_trigger(table: str) -> str:
    return (
        f"CREATE TRIGGER site_changes_{table} AFTER {' OR '.join(EVENTS)} ON {table} "
        f"FOR EACH ROW WHEN (current_setting('{BULK_LOAD_SETTING}', true) IS DISTINCT FROM 'on') "
        f"EXECUTE FUNCTION site_changes_{table}()"
    )


# TRUNCATE (PostgreSQL only) fires no row trigger: it logs "any card".
_POSTGRESQL_TRUNCATED = (
    "CREATE FUNCTION site_changes_truncated() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "BEGIN\n"
    f"  {ANY_CARD['postgresql']};\n"
    "  RETURN NULL;\n"
    "END $$"
)


def create_triggers(dialect: str) -> list[str]:
    """The statements that create the log's triggers on this dialect."""
    if dialect == "postgresql":
        return [
            _POSTGRESQL_TRUNCATED,
            *(
                statement
                for table in CARDS_OF_ROW
                for statement in (
                    _postgresql_function(table),
                    _postgresql_trigger(table),
                    f"CREATE TRIGGER site_changes_{table}_truncate AFTER TRUNCATE ON {table} "
                    "FOR EACH STATEMENT EXECUTE FUNCTION site_changes_truncated()",
                )
            ),
        ]
    return [_sqlite_trigger(table, event) for table in CARDS_OF_ROW for event in EVENTS]


def drop_triggers(dialect: str) -> list[str]:
    """The statements that drop them."""
    if dialect == "postgresql":
        return [
            *(f"DROP FUNCTION site_changes_{table}() CASCADE" for table in CARDS_OF_ROW),
            "DROP FUNCTION site_changes_truncated() CASCADE",
        ]
    return [
        f"DROP TRIGGER site_changes_{table}_{event.lower()}"
        for table in CARDS_OF_ROW
        for event in EVENTS
    ]


def begin_bulk_load(connection: Connection) -> None:
    """Silence the triggers for the rest of this transaction (an import's)."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SET LOCAL {BULK_LOAD_SETTING} = 'on'")
        return
    # pysqlite opens a transaction only before the first row written; the triggers must be
    # dropped inside it, so that a failed import rolls their removal back.
    if not connection.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
        connection.exec_driver_sql("BEGIN")
    for statement in drop_triggers("sqlite"):
        connection.exec_driver_sql(statement)


def end_bulk_load(connection: Connection, changed: bool) -> None:
    """Turn the triggers back on; log "anything may have changed" if the import wrote rows."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        connection.exec_driver_sql(f"SET LOCAL {BULK_LOAD_SETTING} = 'off'")
    else:
        for statement in create_triggers(dialect):
            connection.exec_driver_sql(statement)
    if changed:
        connection.exec_driver_sql(ANY_CARD[dialect])


def position(connection: Connection) -> str:
    """The log's position now, as ``engine:store:value@last``; read it before the data a build
    renders. ``store`` tells this store from a copy of it, whose log may reach the same value
    with other writes; ``last`` is the log's last row (``id.nonce``, empty for an empty log),
    which tells this log from an older copy's put back in its place and written to since."""
    last = connection.execute(
        text("SELECT id, nonce FROM site_changes ORDER BY id DESC LIMIT 1")
    ).one_or_none()
    if connection.dialect.name == "postgresql":
        store, value = connection.execute(
            text(f"SELECT {_POSTGRESQL_STORE}, pg_current_snapshot()::text")
        ).one()
    else:  # the last row's id: SQLite serializes writers
        store, value = _sqlite_store(connection), last.id if last else 0
    row = f"{last.id}.{last.nonce}" if last else ""
    return f"{connection.dialect.name}:{store}:{value}@{row}"


_POSTGRESQL_STORE = (
    "(SELECT system_identifier FROM pg_control_system()) || '.' || "
    "(SELECT oid FROM pg_database WHERE datname = current_database())"
)
"""Which store this is on PostgreSQL: the cluster's system identifier and the database's oid
(a copy, or a restored dump, is a new database)."""


def _sqlite_store(connection: Connection) -> str:
    """Which store this is on SQLite: the file's device and inode (a copy is a new file),
    "memory" for a database in memory."""
    file = connection.execute(text("PRAGMA database_list")).first()
    if file is None or not file.file:
        return "memory"
    identity = os.stat(file.file)
    return f"{identity.st_dev}.{identity.st_ino}"


def _parts(position: str) -> tuple[str, str, str, str | None]:
    """A position's engine, store, value and last row (a PostgreSQL snapshot has colons of its
    own); the last row is None in a position written before kb recorded it."""
    engine, _, rest = position.partition(":")
    store, _, rest = rest.partition(":")
    value, at, last = rest.partition("@")
    return engine, store, value, last if at else None


def changed_cards(connection: Connection, since: str, now: str) -> set[int] | None:
    """The cards whose pages may have changed between the positions ``since`` and ``now``
    (this store's, read just before); None when any may have (an import, a mechanic renamed)
    or when ``since`` is not a position of this store's log: of another engine or store, or
    of a log that is no longer this one (an older copy of the store put back, even if written
    to since)."""
    engine, store, value, last = _parts(since)
    now_engine, now_store, _now_value, _now_last = _parts(now)
    if (engine, store) != (now_engine, now_store) or not _still_logged(connection, last):
        return None
    if engine == "postgresql":
        rows = connection.execute(
            text(
                "SELECT DISTINCT card_id FROM site_changes WHERE transaction_id >= "
                "pg_snapshot_xmin(CAST(:since AS pg_snapshot))::text::bigint AND NOT "
                "pg_visible_in_snapshot(CAST(transaction_id::text AS xid8), "
                "CAST(:since AS pg_snapshot))"
            ),
            {"since": value},
        )
    else:
        rows = connection.execute(
            text("SELECT DISTINCT card_id FROM site_changes WHERE id > :since"),
            {"since": int(value)},
        )
    cards = set(rows.scalars())
    return None if None in cards else cards


def _still_logged(connection: Connection, last: str | None) -> bool:
    """Whether the log still holds the row ``last`` (``id.nonce``; empty: the log was empty;
    None: not recorded)."""
    if last == "":
        return True
    row_id, _, nonce = (last or "").partition(".")
    if not row_id.isdigit():
        return False
    found = connection.execute(
        text("SELECT nonce FROM site_changes WHERE id = :id"), {"id": int(row_id)}
    ).scalar()
    return found == nonce
