"""``kb db``: the store's schema, brought up or down through its Alembic migrations."""

from __future__ import annotations

import click

from kb import migrate
from kb.cli.app import App, clear_errors, pass_app


@click.group("db")
def db_group() -> None:
    """Manage the store's schema (Alembic migrations underneath)."""


@db_group.command("upgrade")
@click.argument("revision", default="head")
@pass_app
def db_upgrade(app: App, revision: str) -> None:
    """Upgrade the database to REVISION (default: the latest)."""
    with clear_errors():
        engine = app.engine(migrated=False, create=True)
        migrate.upgrade(engine, revision)
        app.echo(f"database at revision {migrate.current_revision(engine)}")


@db_group.command("downgrade")
@click.argument("revision")
@click.option(
    "--yes",
    is_flag=True,
    help="Do not ask first (a downgrade drops what later migrations added, with its data).",
)
@pass_app
def db_downgrade(app: App, revision: str, yes: bool) -> None:
    """Downgrade the database to REVISION ('base' removes every table)."""
    if not yes:
        click.confirm(
            f"Downgrading {app.database_url} to {revision} drops the tables and columns later "
            "migrations added, with their data. Go on?",
            abort=True,
            err=True,
        )
    with clear_errors():
        engine = app.engine(migrated=False)
        migrate.downgrade(engine, revision)
        app.echo(f"database at revision {migrate.current_revision(engine) or 'base'}")


@db_group.command("current")
@pass_app
def db_current(app: App) -> None:
    """Print the database's revision and the latest one."""
    with clear_errors():
        engine = app.engine(migrated=False)
        current = migrate.current_revision(engine) or "base"
        head = migrate.head_revision()
        state = "latest" if current == head else f"behind: latest is {head}"
        click.echo(f"{current} ({state})")
