"""Alembic underneath the CLI: a new user never runs Alembic by hand."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from kb.resources import resource_dir


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    return config


def _run(engine: Engine, action: str, revision: str) -> None:
    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)


def upgrade(engine: Engine, revision: str = "head") -> None:
    _run(engine, "upgrade", revision)


def downgrade(engine: Engine, revision: str) -> None:
    _run(engine, "downgrade", revision)


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision(engine: Engine) -> str | None:
    return ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def ensure_latest(engine: Engine) -> None:
    """Bring the database to the latest migration when it is behind."""
    if current_revision(engine) != head_revision(engine):
        upgrade(engine)


def check(engine: Engine) -> None:
    """Raise when the models and the migrated database differ (``alembic check``)."""
    config = alembic_config(engine)
    with engine.connect() as connection:
        config.attributes["connection"] = connection
        command.check(config)
