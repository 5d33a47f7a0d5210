"""The ``kb`` command line: wires options to the importers, the store and the site builder."""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import click
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from kb import migrate
from kb.engine import DEFAULT_DATABASE_URL, StoreError, sqlite_file
from kb.formats import EXPORT_FORMATS, IMPORT_FORMATS
from kb.locales import LOCALE_CODES, LOCALES, Locale
from kb.pipes import closed_pipe_ends_quietly
from kb.records import ParseError
from kb.site import WATCH_INTERVAL, OutputFolderError
from kb.store import close_store, open_store

if TYPE_CHECKING:  # kb.site.build is imported by the commands that build: it is slow to import
    from kb.site.build import BuildOptions, BuildResult, Kept

LOCALE_CHOICE = click.Choice(LOCALE_CODES, case_sensitive=False)
"""A locale code as an argument, in any case (``pt-br`` is ``pt-BR``)."""
DEMO_DATA = Path("data")
DEMO_SITE = Path("site")


@dataclass
class App:
    database_url: str
    quiet: bool
    _engine: Engine | None = field(default=None, repr=False)

    def engine(self, migrated: bool = True, create: bool = False) -> Engine:
        """The store's engine; brought to the latest migration first unless ``migrated`` is off.
        Only a command that writes passes ``create``: for the others, no store is an error."""
        if self._engine is None:
            with clear_errors():
                self._engine = open_store(self.database_url, migrated, create)
        return self._engine

    def close(self) -> None:
        """At the end of every command, whatever its outcome: the store's file left whole."""
        if self._engine is not None:
            note = close_store(self._engine)
            self._engine = None
            if note is not None:
                click.echo(f"kb: note: {note}", err=True)

    def echo(self, message: str) -> None:
        if not self.quiet:
            click.echo(message)

    @contextmanager
    def progress(self, length: int, label: str) -> Iterator[Callable[[int, int], None]]:
        """A progress bar on a terminal (never with --quiet), showing items done and their rate.

        Yields ``advance(steps, items)``: ``steps`` more of ``length`` are done, ``items`` so far.
        """
        if self.quiet or not sys.stderr.isatty():
            yield lambda _steps, _items: None
            return
        started = time.monotonic()

        def show(items: int | None) -> str:
            rate = (items or 0) / max(time.monotonic() - started, 1e-9)
            return f"{items or 0:,} records, {rate:,.0f}/s"

        with click.progressbar(
            length=length, label=label, file=sys.stderr, show_eta=True, item_show_func=show
        ) as bar:
            yield lambda steps, items: bar.update(steps, items)


class KbError(click.ClickException):
    """One line on stderr, exit status 1: never a traceback for bad input."""

    def show(self, file: Any = None) -> None:
        click.echo(f"kb: error: {self.format_message()}", err=True)


@contextmanager
def clear_errors(writing: Path | None = None) -> Iterator[None]:
    """Errors as one line; ``writing``: the file or folder a system error that names no file
    (a full disk) is told of."""
    try:
        yield
    except BrokenPipeError:
        raise  # a reader that stopped reading: see kb.pipes
    except (ParseError, SQLAlchemyError, OutputFolderError, StoreError, OSError) as error:
        raise KbError(_one_line(error, writing)) from None


def _one_line(error: Exception, writing: Path | None = None) -> str:
    """What went wrong, in one line: the database's own message for a database error, the
    file (else ``writing``) and the system's reason for a file that could not be written or
    read."""
    if isinstance(error, SQLAlchemyError):
        return "database: " + str(getattr(error, "orig", None) or error).splitlines()[0]
    if isinstance(error, OSError) and error.strerror is not None:
        where = error.filename if error.filename is not None else writing
        if where is not None:
            return f"{where}: {error.strerror}"
    return str(error)


pass_app = click.make_pass_decorator(App)


class _Commands(click.Group):
    """kb's commands. The editors' live in kb.editor_cli (which imports App and the helpers
    above), loaded when one of them is named or the commands are listed: other commands, kb build
    above all, start without it (~15 ms)."""

    def invoke(self, ctx: click.Context) -> Any:
        with closed_pipe_ends_quietly():  # kb export | head
            return super().invoke(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or self._editors().get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self._editors()])

    @staticmethod
    def _editors() -> dict[str, click.Command]:
        from kb.editor_cli import EDITOR_COMMANDS

        return {command.name: command for command in EDITOR_COMMANDS if command.name}


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
    ctx.call_on_close(ctx.obj.close)


@cli.group("db")
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


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--locale",
    type=LOCALE_CHOICE,
    help="Locale of rulings pages whose footer and title do not tell.",
)
@click.option("--card", help="English name of the card of a page whose localized name is new.")
@click.option(
    "--format",
    "format_",
    type=click.Choice(IMPORT_FORMATS),
    help="Parse every file as this format instead of recognising it from its content.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Read bulk files again even when a file of the same checksum was imported before.",
)
@click.option(
    "--replace-name",
    is_flag=True,
    help="Let a page's title replace the card's name from Scryfall, MTGJSON, the catalog or an "
    "editor.",
)
@click.option("-v", "--verbose", is_flag=True, help="List every warning and skipped file.")
@pass_app
def import_command(
    app: App,
    paths: tuple[Path, ...],
    locale: str | None,
    card: str | None,
    format_: str | None,
    force: bool,
    replace_name: bool,
    verbose: bool,
) -> None:
    """Import files and folders into the store, in one transaction.

    Recognises each file's format from its content: kb's catalog (TOML), rulings pages in either
    style, Scryfall rulings and card files (JSON Lines or JSON), MTGJSON set files, AllPrintings
    and AtomicCards, and the Comprehensive Rules; compressed (.gz, .xz, .bz2, .zip) or not. A bad
    file aborts the run and leaves the store exactly as it was.
    """
    from kb.importing import ImportOptions, plan, run_import

    options = ImportOptions(
        locale=locale, card=card, format=format_, force=force, replace_name=replace_name
    )
    with clear_errors():
        engine = app.engine(create=True)
        planned = plan(paths, options)
        with app.progress(planned.size, "importing") as advance:
            summary = run_import(engine, paths, options, progress=advance, planned=planned)
    for line in summary.lines(verbose):
        app.echo(line)


@cli.command("sources")
@pass_app
def sources_command(app: App) -> None:
    """List the imported files: when, which format, their checksum, and what each added."""
    from kb import db  # the models load SQLAlchemy's ORM, which kb build does without

    with clear_errors(), app.engine().connect() as connection:
        rows = connection.execute(select(db.Source.__table__).order_by(db.Source.id)).all()
    for source in rows:
        added = ", ".join(f"{count} {what}" for what, count in (source.stats or {}).items())
        click.echo(
            f"{source.id}  {source.imported_at:%Y-%m-%d %H:%M:%S}  {source.format}  "
            f"sha256:{source.sha256[:12]}  {source.uri}"
        )
        click.echo(f"    added: {added or 'nothing'}")


@cli.command("backup")
@click.argument("path", type=click.Path(path_type=Path))
@pass_app
def backup_command(app: App, path: Path) -> None:
    """Copy the SQLite store to PATH, consistent while others read and write it."""
    from kb.backup import backup

    with clear_errors(path):
        store, size = backup(app.database_url, lambda: app.engine(migrated=False), path)
    app.echo(f"{store} copied to {path} ({size:,} bytes)")


@cli.command("export")
@click.option("--format", "format_", type=click.Choice(EXPORT_FORMATS), required=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write (default: standard output).",
)
@pass_app
def export_command(app: App, format_: str, out: Path | None) -> None:
    """Write the store in an anchor's format: MTGJSON AtomicCards, Scryfall rulings, or CSV.

    The MTGJSON export holds every card, face, name, ruling and link: importing it into an empty
    store gives the same store.
    """
    from kb.exporting import UNITS, export, export_to_file

    engine = app.engine()
    store = sqlite_file(engine)
    if out is not None and store is not None and out.resolve() == Path(store).resolve():
        raise KbError(f"{out}: is the store itself; export to another file")
    with clear_errors(out), engine.connect() as connection:
        if out is None:
            export(connection, format_, sys.stdout)
            return
        written = export_to_file(connection, format_, out)
    app.echo(f"{written} {UNITS[format_]} written to {out}")


def _locale_list(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> tuple[Locale, ...]:
    """``de,it`` → those locales, in kb's order; all of them when the option is absent. Codes
    are matched whatever their case (``pt-br``, as its folder is named, is ``pt-BR``)."""
    if value is None:
        return LOCALES
    codes = {code.strip().lower() for code in value.split(",") if code.strip()}
    if not codes:
        raise click.BadParameter("no locale given")
    unknown = sorted(codes - {code.lower() for code in LOCALE_CODES})
    if unknown:
        raise click.BadParameter(f"{', '.join(unknown)}: not one of {', '.join(LOCALE_CODES)}")
    return tuple(locale for locale in LOCALES if locale.code.lower() in codes)


def _base_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """An absolute http(s) address, ending with a slash; "" none, None not given."""
    if not value:
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or not value.isprintable():
        raise click.BadParameter(f"{value!r}: not an absolute http(s) address")
    return value if value.endswith("/") else f"{value}/"


@cli.command("build")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEMO_SITE,
    show_default=True,
    help="Output folder; a failed build leaves the previous site in place.",
)
@click.option("--full", is_flag=True, help="Rewrite every page, not only the changed ones.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default="the number of cores",
    help="Worker processes rendering card pages.",
)
@click.option(
    "--locale",
    "locales",
    callback=_locale_list,
    metavar="CODES",
    help="Build only these locales, comma-separated (de,it); the others' pages are kept.",
)
@click.option(
    "--base-url",
    callback=_base_url,
    help="Where the site is published, for sitemap.xml, robots.txt and 404.html; kept by the "
    "site for later builds ('' forgets it). Without one there is no sitemap.",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Keep running: build again, incrementally, whenever the store changes (Ctrl-C stops).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.01),
    default=WATCH_INTERVAL,
    show_default=True,
    help="With --watch: seconds between two looks at the store's change log.",
)
@pass_app
def build_command(
    app: App,
    out: Path,
    full: bool,
    jobs: int,
    locales: tuple[Locale, ...],
    base_url: str | None,
    watch: bool,
    interval: float,
) -> None:
    """Build the static site: home, A–Z index, card and mechanic pages per locale.

    Incremental: pages whose content did not change are not rewritten. With --watch, kb
    keeps what it read and builds again after each write to the store, in a fraction of the
    time a new kb build takes.
    """
    from kb.site.build import BuildOptions, Kept, build

    options = BuildOptions(locales=locales, jobs=jobs, full=full, base_url=base_url)
    engine = app.engine()
    kept = Kept() if watch else None
    with clear_errors(out), ExitStack() as stack:
        advance: list[Callable[[int, int], None]] = []
        done = 0

        def start_progress(pages: int) -> None:
            advance.append(stack.enter_context(app.progress(pages, "Rendering")))

        def rendered(pages: int) -> None:
            nonlocal done
            done += pages
            advance[0](pages, done)

        result = build(engine, out, options, rendered, start_progress, kept)
    app.echo(_built(result))
    if kept is not None:
        _keep_watching(app, engine, out, options, kept, interval)


def _keep_watching(
    app: App, engine: Engine, out: Path, options: BuildOptions, kept: Kept, interval: float
) -> None:
    """kb build --watch, after its first build: a line per build until stopped."""
    from kb.site.build import CodeChanged
    from kb.site.watch import unreachable, watch

    def rebuilt(result: BuildResult, seconds: float) -> None:
        app.echo(f"{time.strftime('%H:%M:%S')} {_built(result)} ({seconds:.2f} s)")

    def failed(error: Exception) -> None:
        waiting = "; building again once it can be reached" if unreachable(error) else ""
        click.echo(f"kb: error: {_one_line(error, out)}{waiting}", err=True)

    # Stopped by Ctrl-C, or by SIGTERM as a service manager stops it (and as a shell's
    # background job must be, its SIGINT ignored): the manifest is written either way.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda _signal, _frame: stop.set())
    app.echo("watching the store for changes (Ctrl-C stops)")
    with suppress(KeyboardInterrupt):
        try:
            watch(engine, out, options, kept, stop, rebuilt, failed, interval)
        except CodeChanged as error:
            raise KbError(str(error)) from None
    app.echo("stopped")


def _built(result: BuildResult) -> str:
    line = (
        f"{result.pages} pages in {result.out}: {result.written} written, "
        f"{result.unchanged} unchanged, {result.removed} removed"
    )
    if result.base_url_was is not None:
        line += f"; base URL {result.base_url or 'none'} (was {result.base_url_was or 'none'})"
    return line


@cli.command("serve")
@click.option(
    "--out",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=DEMO_SITE,
    show_default=True,
    help="The built site to serve.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@pass_app
def serve_command(app: App, out: Path, port: int) -> None:
    """Preview the built site on http://127.0.0.1:PORT/ (Ctrl-C stops)."""
    from kb.site.serve import preview_server

    try:
        server = preview_server(out, port)
    except OSError as error:  # the port taken, for one
        raise KbError(f"127.0.0.1:{port}: {error.strerror}") from None
    host, bound_port = server.server_address[:2]
    click.echo(f"serving {out} on http://{host!s}:{bound_port}/ (Ctrl-C stops)")
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            app.echo("stopped")


@cli.command("demo")
@pass_app
def demo_command(app: App) -> None:
    """Import data/ into the store, build site/, and show where the German page is."""
    if not DEMO_DATA.is_dir():
        raise KbError(f"{DEMO_DATA}/: no such folder; run kb demo in the repository root")
    from kb.importing import run_import
    from kb.site.build import build

    with clear_errors(DEMO_SITE):
        engine = app.engine(create=True)
        summary = run_import(engine, [DEMO_DATA])
        result = build(engine, DEMO_SITE)
    for line in summary.lines():
        app.echo(line)
    german = result.out / "de" / "cards" / "three-steps-ahead.html"
    click.echo(f"{result.pages} pages in {result.out}; German page of Three Steps Ahead: {german}")


def main() -> None:
    try:
        cli(prog_name="kb")
    finally:
        # The process ends here: the interpreter's shutdown would pass the garbage collector
        # over every object left (0.1 s or more with SQLAlchemy loaded), to free memory that
        # the system takes back whole anyway.
        gc.freeze()
