"""Alembic environment: kb.schema's metadata is the target; SQLite migrates in batch mode.

kb's schema is the one import of kb here: ``alembic check`` and autogenerate compare the
database with its tables, and a migration never reads them. Everything else is fixed in this
file, as the migrations fix their own SQL.
"""

from __future__ import annotations

import os
from typing import Any

from alembic import context
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine

from kb.schema import metadata

config = context.config
target_metadata = metadata


def database_url() -> str:
    """The database ``alembic`` run by hand migrates (kb's CLI passes its own connection)."""
    url = config.get_main_option("sqlalchemy.url")
    return url or os.environ.get("KB_DATABASE_URL") or "sqlite:///kb.sqlite"


def _enforce_foreign_keys(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("PRAGMA foreign_keys=ON")


def make_engine() -> Engine:
    """An engine as kb makes one: SQLite enforces foreign keys, so that a migration run with
    ``alembic`` by hand behaves as under ``kb db upgrade``."""
    engine = create_engine(database_url())
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _enforce_foreign_keys)
    return engine


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    # kb.migrate passes an open connection so that the CLI and tests share one engine.
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    engine = make_engine()
    with engine.connect() as connection:
        run_migrations(connection)
    engine.dispose()


if context.is_offline_mode():
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
