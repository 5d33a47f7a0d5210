"""Data into and out of the store: ``kb import``, ``kb sources``, ``kb backup``, ``kb export``."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from sqlalchemy import select

from kb.cli.app import LOCALE_CHOICE, LOCALE_LIST, App, KbError, clear_errors, pass_app
from kb.cli.import_summary import summary_lines
from kb.engine import sqlite_file
from kb.formats import EXPORT_FORMATS, IMPORT_FORMATS
from kb.store import new_sqlite_store, remove_sqlite_store


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--locale",
    type=LOCALE_CHOICE,
    help=f"Locale of rulings pages whose footer and title do not tell: {LOCALE_LIST}.",
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
    from kb.importing import ImportOptions, run_import
    from kb.parsing import early_parser, plan

    options = ImportOptions(
        locale=locale, card=card, format=format_, force=force, replace_name=replace_name
    )
    with clear_errors(), early_parser(paths) as parser:
        # Files read first: a misspelt path, or a file of no known format, makes no store.
        planned = plan(paths, format_)
        made = new_sqlite_store(app.database_url)
        try:
            engine = app.engine(create=True)
            with app.progress(planned.size, "importing") as advance:
                summary = run_import(
                    engine, paths, options, progress=advance, planned=planned, parser=parser
                )
        except BaseException:
            # A file that fails further in: the store this import made goes too, rather
            # than an empty kb.sqlite that later commands would take for the user's store.
            if made is not None:
                app.close()
                remove_sqlite_store(made)
            raise
    for line in summary_lines(summary, verbose):
        app.echo(line)


@click.command("sources")
@pass_app
def sources_command(app: App) -> None:
    """List the imported files: when, which format, their checksum, and what each added."""
    from kb.schema import sources  # only this command reads the table

    with clear_errors(), app.engine().connect() as connection:
        rows = connection.execute(select(sources).order_by(sources.c.id)).all()
    for source in rows:
        added = ", ".join(f"{count} {what}" for what, count in (source.stats or {}).items())
        click.echo(
            f"{source.id}  {source.imported_at:%Y-%m-%d %H:%M:%S}  {source.format}  "
            f"sha256:{source.sha256[:12]}  {source.uri}"
        )
        click.echo(f"    added: {added or 'nothing'}")


@click.command("backup")
@click.argument("path", type=click.Path(path_type=Path))
@pass_app
def backup_command(app: App, path: Path) -> None:
    """Copy the SQLite store to PATH, consistent while others read and write it."""
    from kb.backup import backup

    with clear_errors(path):
        store, size = backup(app.database_url, lambda: app.engine(migrated=False), path)
    app.echo(f"{store} copied to {path} ({size:,} bytes)")


@click.command("export")
@click.option(
    "--format",
    "format_",
    type=click.Choice(EXPORT_FORMATS),
    required=True,
    help="mtgjson: AtomicCards; scryfall-rulings: Scryfall's rulings file; csv: a row per link.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write (default: standard output).",
)
@pass_app
def export_command(app: App, format_: str, out: Path | None) -> None:
    """Write the store in an anchor's format: MTGJSON AtomicCards, Scryfall rulings, or CSV.

    The MTGJSON export holds every card, face, name, ruling and link: importing it into an empty
    store gives the same cards, faces, names, rulings and links. Printed texts, mined names,
    translations of rulings and the edit history are not in it: kb backup copies a whole
    SQLite store.
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
