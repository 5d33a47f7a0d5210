"""The ``kb`` command line: wires options to the importers, the store and the site builder."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from kb import migrate
from kb.db import DEFAULT_DATABASE_URL, make_engine
from kb.importing import ImportOptions, run_import
from kb.locales import LOCALE_CODES
from kb.records import ParseError
from kb.site.build import build as build_site

DEMO_DATA = Path("data")
DEMO_SITE = Path("site")


@dataclass
class App:
    database_url: str
    quiet: bool
    _engine: Engine | None = field(default=None, repr=False)

    def engine(self, migrated: bool = True) -> Engine:
        """The store's engine; brought to the latest migration first unless ``migrated`` is off."""
        if self._engine is None:
            self._engine = make_engine(self.database_url)
            if migrated:
                migrate.ensure_latest(self._engine)
        return self._engine

    def echo(self, message: str) -> None:
        if not self.quiet:
            click.echo(message)

    @contextmanager
    def progress(self, length: int, label: str) -> Iterator[Callable[[int], None]]:
        """A progress bar on a terminal (never with --quiet); yields its update function."""
        if self.quiet or not sys.stderr.isatty():
            yield lambda _steps: None
            return
        with click.progressbar(
            length=length, label=label, file=sys.stderr, show_pos=True, show_eta=True
        ) as bar:
            yield bar.update


class KbError(click.ClickException):
    """One line on stderr, exit status 1: never a traceback for bad input."""

    def show(self, file: Any = None) -> None:
        click.echo(f"kb: error: {self.format_message()}", err=True)


@contextmanager
def clear_errors() -> Iterator[None]:
    try:
        yield
    except ParseError as error:
        raise KbError(str(error)) from None
    except SQLAlchemyError as error:
        message = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise KbError(f"database: {message}") from None


pass_app = click.make_pass_decorator(App)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "database_url",
    envvar="KB_DATABASE_URL",
    default=DEFAULT_DATABASE_URL,
    show_default=True,
    help="Database URL (env KB_DATABASE_URL): sqlite:///file or postgresql+psycopg://...",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bars and no summaries.")
@click.version_option(package_name="kb")
@click.pass_context
def cli(ctx: click.Context, database_url: str, quiet: bool) -> None:
    """kb: a multilingual knowledge base of Magic: The Gathering rulings."""
    ctx.obj = App(database_url, quiet)


@cli.group("db")
def db_group() -> None:
    """Manage the store's schema (Alembic migrations underneath)."""


@db_group.command("upgrade")
@click.argument("revision", default="head")
@pass_app
def db_upgrade(app: App, revision: str) -> None:
    """Upgrade the database to REVISION (default: the latest)."""
    with clear_errors():
        engine = app.engine(migrated=False)
        migrate.upgrade(engine, revision)
        app.echo(f"database at revision {migrate.current_revision(engine)}")


@db_group.command("downgrade")
@click.argument("revision")
@pass_app
def db_downgrade(app: App, revision: str) -> None:
    """Downgrade the database to REVISION ('base' removes every table)."""
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
        head = migrate.head_revision(engine)
        state = "latest" if current == head else f"behind: latest is {head}"
        click.echo(f"{current} ({state})")


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--locale",
    type=click.Choice(LOCALE_CODES),
    help="Locale of rulings pages whose footer and title do not tell.",
)
@click.option("--card", help="English name of the card of a page whose localized name is new.")
@click.option("-v", "--verbose", is_flag=True, help="List every warning.")
@pass_app
def import_command(
    app: App, paths: tuple[Path, ...], locale: str | None, card: str | None, verbose: bool
) -> None:
    """Import files and folders into the store, in one transaction.

    Reads kb's catalog (TOML) and rulings pages in either style. A bad file aborts the run and
    leaves the store exactly as it was.
    """
    options = ImportOptions(locale=locale, card=card)
    with clear_errors():
        engine = app.engine()
        summary = run_import(engine, paths, options)
    for line in summary.lines(verbose):
        app.echo(line)


@cli.command("build")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEMO_SITE,
    show_default=True,
    help="Output folder; replaced whole when the build succeeds.",
)
@pass_app
def build_command(app: App, out: Path) -> None:
    """Build the static ruling pages: one page per card per locale."""
    with clear_errors():
        result = build_site(app.engine(), out)
    app.echo(f"{result.pages} pages written to {result.out}")


@cli.command("demo")
@pass_app
def demo_command(app: App) -> None:
    """Import data/ into the store, build site/, and show where the German page is."""
    if not DEMO_DATA.is_dir():
        raise KbError(f"{DEMO_DATA}/: no such folder; run kb demo in the repository root")
    with clear_errors():
        engine = app.engine()
        summary = run_import(engine, [DEMO_DATA])
        result = build_site(engine, DEMO_SITE)
    for line in summary.lines():
        app.echo(line)
    german = result.out / "de" / "cards" / "three-steps-ahead.html"
    click.echo(f"{result.pages} pages in {result.out}; German page of Three Steps Ahead: {german}")


def main() -> None:
    cli(prog_name="kb")


# Editors' commands live in kb.editor_cli, which imports App and the helpers above.
from kb.editor_cli import EDITOR_COMMANDS  # noqa: E402

for editor_command in EDITOR_COMMANDS:
    cli.add_command(editor_command)
