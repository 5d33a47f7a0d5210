"""Alembic underneath the CLI: a new user never runs Alembic by hand.

Alembic is imported only when a migration runs or is inspected: its import costs a tenth of a
second, and every kb command first checks the store is at the latest migration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from kb.engine import StoreError
from kb.resources import resource_dir

if TYPE_CHECKING:
    from alembic.config import Config

LATEST = "0013"
"""The head of migrations/versions (a test checks it is Alembic's): a store at this revision
needs nothing, and Alembic is not even imported."""


VERSION_TABLE = "alembic_version"


def alembic_config() -> Config:
    """Alembic's configuration, without the database: the migrations get kb's open connection
    (``config.attributes``). A URL set in the configuration would go through its parser's
    ``%`` interpolation, which a percent-encoded password or socket folder breaks."""
    from alembic.config import Config

    config = Config()
    # %% is a literal % to that parser, for a folder whose name holds one.
    config.set_main_option("script_location", str(resource_dir("migrations")).replace("%", "%%"))
    return config


class SchemaError(StoreError):
    """The store's schema cannot be brought where asked: an unknown revision, or a database
    that holds tables of its own and no kb store (kb leaves it alone)."""


def _run(engine: Engine, action: str, revision: str) -> None:
    from alembic import command
    from alembic.util import CommandError

    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            # pysqlite opens a transaction only before a row is written, and runs DDL outside
            # one: a migration that fails would leave the tables it created until then.
            connection.exec_driver_sql("BEGIN")
        config.attributes["connection"] = connection
        try:
            getattr(command, action)(config, revision)
        except CommandError as error:
            raise SchemaError(str(error)) from None
        if action == "downgrade" and _version(connection) is None:
            # Alembic keeps its version table, empty, at base: kb would take that one table
            # for someone else's. Base is no table at all, as before the first upgrade.
            connection.exec_driver_sql(f"DROP TABLE IF EXISTS {VERSION_TABLE}")


def upgrade(engine: Engine, revision: str = "head") -> None:
    _run(engine, "upgrade", revision)


def downgrade(engine: Engine, revision: str) -> None:
    _run(engine, "downgrade", revision)


def _version(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return _version(connection)


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


class NoStoreError(StoreError):
    """No kb store where a command that only reads looks for one."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(
            f"{engine.url.render_as_string()}: no store here "
            "(kb import or kb db upgrade creates one)"
        )


def ensure_latest(engine: Engine, create: bool = True) -> None:
    """Bring the database to the latest migration when it is behind; refuse a database that
    holds other tables and no kb store (kb would add its tables to it), and, unless
    ``create``, one with no tables at all (NoStoreError: a command that only reads)."""
    recorded = _recorded_revision(engine)
    if recorded == LATEST:
        return
    if recorded is None:
        with engine.connect() as connection:
            # An empty version table alone is a store taken down to base by Alembic itself.
            tables = sorted(set(inspect(connection).get_table_names()) - {VERSION_TABLE})
        if tables:
            raise SchemaError(
                f"{engine.url.render_as_string()}: not a kb store (it holds other tables: "
                f"{', '.join(tables)}); use a new file or an empty database"
            )
        if not create:
            raise NoStoreError(engine)
    if current_revision(engine) != head_revision():
        upgrade(engine)


def _recorded_revision(engine: Engine) -> str | None:
    """The revision in Alembic's version table, read without Alembic; None without the table."""
    try:
        with engine.connect() as connection:
            return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
    except DBAPIError:
        return None


def check(engine: Engine) -> None:
    """Raise when kb.schema and the migrated database differ (``alembic check``)."""
    from alembic import command

    config = alembic_config()
    with engine.connect() as connection:
        config.attributes["connection"] = connection
        command.check(config)
