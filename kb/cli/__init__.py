"""The ``kb`` command line: the root group and its global options. Each command lives in the
module COMMANDS names and is imported only when it is run or its own help is shown: kb build
starts without the editors' modules, kb sql without the site's."""

from __future__ import annotations

import gc
from typing import Any

import click

from kb.cli.app import App, database_option
from kb.cli.lazy_group import Lazy, LazyGroup
from kb.pipes import closed_pipe_ends_quietly

COMMANDS = {
    "backup": Lazy(
        "kb.cli.data_commands:backup_command",
        "Copy the SQLite store to PATH, consistent while others read and write it.",
    ),
    "build": Lazy(
        "kb.cli.site_commands:build_command",
        "Build the static site: home, A–Z index, card and mechanic pages per locale.",
    ),
    "card": Lazy(
        "kb.cli.card_commands:card_command",
        "Show the card NAME: its names, texts and rulings, in a locale.",
    ),
    "datasette": Lazy(
        "kb.cli.datasette_commands:datasette_command",
        "Browse the store read-only in Datasette, with the saved queries (Ctrl-C stops).",
    ),
    "db": Lazy(
        "kb.cli.db_commands:db_group",
        "Manage the store's schema (Alembic migrations underneath).",
    ),
    "demo": Lazy(
        "kb.cli.site_commands:demo_command",
        "Import data/ into the store, build site/, and show where the German page is.",
    ),
    "edit": Lazy(
        "kb.cli.edit_commands:edit_group",
        "Change the knowledge base; every change is recorded (kb history) and can be reverted.",
    ),
    "export": Lazy(
        "kb.cli.data_commands:export_command",
        "Write the store in an anchor's format: MTGJSON AtomicCards, Scryfall rulings, or CSV.",
    ),
    "history": Lazy(
        "kb.cli.edit_commands:history_command",
        "List the recorded changes, oldest first.",
    ),
    "import": Lazy(
        "kb.cli.data_commands:import_command",
        "Import files and folders into the store, in one transaction.",
    ),
    "query": Lazy(
        "kb.cli.query_commands:query_command",
        "Run the saved query NAME (queries/NAME.sql), or list them with --list.",
    ),
    "revert": Lazy(
        "kb.cli.edit_commands:revert_command",
        "Undo revision REVISION_ID (recorded as a new revision).",
    ),
    "schema": Lazy(
        "kb.cli.query_commands:schema_command",
        "Print the tables, columns, comments, references and views editors can query.",
    ),
    "serve": Lazy(
        "kb.cli.site_commands:serve_command",
        "Preview the built site on http://127.0.0.1:PORT/ (Ctrl-C stops).",
    ),
    "sources": Lazy(
        "kb.cli.data_commands:sources_command",
        "List the imported files: when, which format, their checksum, and what each added.",
    ),
    "sql": Lazy(
        "kb.cli.query_commands:sql_command",
        "Run one read-only SQL query (QUERY, '-' for stdin, or --file).",
    ),
    "translations": Lazy(
        "kb.cli.translation_commands:translations_group",
        "Rulings for PO editors: export, import, a glossary, term checks, coverage.",
    ),
}
"""Every kb command: where it is, and the first paragraph of its help."""


class _Commands(LazyGroup):
    def invoke(self, ctx: click.Context) -> Any:
        with closed_pipe_ends_quietly():  # kb export | head
            return super().invoke(ctx)


@click.group(
    cls=_Commands,
    lazy_subcommands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@database_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bars and no summaries.")
@click.version_option(package_name="kb")
@click.pass_context
def cli(ctx: click.Context, database_url: str, quiet: bool) -> None:
    """kb: a multilingual knowledge base of Magic: The Gathering rulings."""
    ctx.obj = App(database_url, quiet)
    ctx.call_on_close(ctx.obj.close)


def main() -> None:
    try:
        cli(prog_name="kb")
    finally:
        # The process ends here: the interpreter's shutdown would pass the garbage collector
        # over every object left (0.1 s or more with SQLAlchemy loaded), to free memory that
        # the system takes back whole anyway.
        gc.freeze()
