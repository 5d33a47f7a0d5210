"""Commands for community editors: read-only SQL, saved queries, audited edits, the schema."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from kb import edits, schema_doc
from kb.cli import LOCALE_CHOICE, App, KbError, clear_errors
from kb.sql import (
    OUTPUT_STYLES,
    QueryError,
    QueryResult,
    format_result,
    query_text,
    run_query,
    saved_queries,
    saved_query_values,
)

F = TypeVar("F", bound=Callable[..., Any])

# kb.cli and this module import each other, so its pass_app has no type yet for mypy here.
pass_app = click.make_pass_decorator(App)


STYLE_HELP = {
    "table": "an aligned table (default)",
    "csv": "CSV",
    "tsv": "tab-separated values",
    "json": "JSON, a list of objects",
    "markdown": "a Markdown table",
}


def output_options(command: F) -> F:
    """--table (default), --csv, --tsv, --json, --markdown: one ``style`` parameter.

    Each style is its own flag so that two of them given together are an error, not the last
    one silently winning."""

    @functools.wraps(command)
    def with_style(*args: Any, **kwargs: Any) -> Any:
        chosen = [style for style in OUTPUT_STYLES if kwargs.pop(f"as_{style}")]
        if len(chosen) > 1:
            flags = " and ".join(f"--{style}" for style in chosen)
            raise click.UsageError(f"choose one output style, not {flags}")
        return command(*args, style=chosen[0] if chosen else "table", **kwargs)

    for style in reversed(OUTPUT_STYLES):
        help_text = f"Print the result as {STYLE_HELP[style]}."
        with_style = click.option(f"--{style}", f"as_{style}", is_flag=True, help=help_text)(
            with_style
        )
    return cast(F, with_style)


def query_options(command: F) -> F:
    """Parameters and limits shared by kb sql and kb query."""
    options = [
        click.option(
            "-p",
            "--param",
            "params",
            nargs=2,
            multiple=True,
            metavar="NAME VALUE",
            help="Value of the :NAME parameter (repeatable).",
        ),
        click.option(
            "--time-limit",
            type=click.FloatRange(min=0.001),
            default=1.0,
            show_default=True,
            help="Seconds before the query is stopped.",
        ),
        click.option(
            "--max-rows",
            type=click.IntRange(min=1),
            default=1000,
            show_default=True,
            help="Rows printed at most.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return output_options(command)


def editor_option(command: F) -> F:
    return click.option(
        "--editor",
        envvar="KB_EDITOR",
        required=True,
        help="Who is editing (env KB_EDITOR); recorded with every change.",
    )(command)


@contextmanager
def edit_errors() -> Iterator[None]:
    with clear_errors():
        try:
            yield
        except (edits.EditError, QueryError) as error:
            raise KbError(str(error)) from None


def _print_result(result: QueryResult, style: str, max_rows: int | None = None) -> None:
    click.echo(format_result(result, style), nl=False)
    if result.truncated:
        click.echo(f"kb: only the first {max_rows} rows are shown (--max-rows)", err=True)


def _run_and_print(
    app: App,
    sql: str,
    params: Mapping[str, str],
    time_limit: float,
    max_rows: int,
    style: str,
) -> None:
    with edit_errors():
        result = run_query(app.engine(), sql, params, time_limit, max_rows)
    _print_result(result, style, max_rows)


@click.command("sql")
@click.argument("query", required=False)
@click.option(
    "--file",
    "query_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the query from a file.",
)
@query_options
@pass_app
def sql_command(
    app: App,
    query: str | None,
    query_file: Path | None,
    params: tuple[tuple[str, str], ...],
    time_limit: float,
    max_rows: int,
    style: str,
) -> None:
    """Run one read-only SQL query (QUERY, '-' for stdin, or --file).

    Named parameters are written :name and given with -p name value. The database refuses
    anything but reading; see docs/schema.md for the tables and views.
    """
    if (query is None) == (query_file is None):
        raise KbError("give a query, '-' to read it from stdin, or --file FILE")
    with edit_errors():
        if query_file is not None:
            sql = query_text(query_file.read_bytes(), str(query_file))
        elif query == "-":
            sql = query_text(sys.stdin.buffer.read(), "stdin")
        else:
            sql = str(query)
    _run_and_print(app, sql, dict(params), time_limit, max_rows, style)


@click.command("query")
@click.argument("name", required=False)
@click.option("--list", "list_queries", is_flag=True, help="List the saved queries.")
@query_options
@pass_app
def query_command(
    app: App,
    name: str | None,
    list_queries: bool,
    params: tuple[tuple[str, str], ...],
    time_limit: float,
    max_rows: int,
    style: str,
) -> None:
    """Run the saved query NAME (queries/NAME.sql), or list them with --list."""
    with edit_errors():
        queries = saved_queries()
    if list_queries or name is None:
        for saved in queries.values():
            parameters = "".join(f" -p {parameter} …" for parameter in saved.parameters)
            click.echo(f"{saved.name}{parameters}\n    {saved.title}. {saved.description}")
        return
    if name not in queries:
        raise KbError(f"no saved query {name!r}; kb query --list shows them")
    with edit_errors():
        values = saved_query_values(queries[name], params, app.engine)
    _run_and_print(app, queries[name].sql, values, time_limit, max_rows, style)


@click.group("edit")
def edit_group() -> None:
    """Change the knowledge base; every change is recorded (kb history) and can be reverted."""


def _done(revision_id: int) -> None:
    click.echo(f"revision {revision_id}")


@edit_group.command("ruling-text")
@click.argument("ruling_id", type=int)
@click.argument("text")
@click.option("--expect-text", help="The text you saw (default: the text now); else a conflict.")
@editor_option
@pass_app
def edit_ruling_text(
    app: App, ruling_id: int, text: str, expect_text: str | None, editor: str
) -> None:
    """Change the text of ruling RULING_ID, on every card that shares it. Its reviewed
    translations then wait for review again (unless only typography changed)."""
    with edit_errors():
        _done(edits.set_ruling_text(app.engine(), editor, ruling_id, text, expect_text))
        outdated = edits.reviews_outdated(app.engine(), ruling_id)
    if outdated:
        click.echo(
            f"its reviewed translations ({', '.join(outdated)}) wait for review again: "
            "the English text changed"
        )


@edit_group.command("card-name")
@click.argument("card")
@click.argument("locale", type=LOCALE_CHOICE)
@click.argument("name")
@click.option("--expect-name", help="The name you saw (default: the name now); else a conflict.")
@editor_option
@pass_app
def edit_card_name(
    app: App, card: str, locale: str, name: str, expect_name: str | None, editor: str
) -> None:
    """Add or change the name of CARD (id, English or localized name) in LOCALE."""
    with edit_errors():
        _done(edits.set_card_name(app.engine(), editor, card, locale, name, expect_name))


def _tag_command(tagged: bool) -> click.Command:
    verb = "tag" if tagged else "untag"

    @click.argument("mechanic")
    @click.option("--card", help="The card (id, English or localized name).")
    @click.option("--ruling", "ruling_id", type=int, help="The ruling id.")
    @editor_option
    @pass_app
    def command(
        app: App, mechanic: str, card: str | None, ruling_id: int | None, editor: str
    ) -> None:
        with edit_errors():
            _done(edits.set_tag(app.engine(), editor, mechanic, tagged, card, ruling_id))

    command.__doc__ = f"{verb.capitalize()} a card or a ruling with MECHANIC (its slug)."
    return click.command(verb)(command)


edit_group.add_command(_tag_command(tagged=True))
edit_group.add_command(_tag_command(tagged=False))


@edit_group.command("translation")
@click.argument("ruling_id", type=int)
@click.argument("locale", type=LOCALE_CHOICE)
@click.argument("text")
@editor_option
@pass_app
def edit_translation(app: App, ruling_id: int, locale: str, text: str, editor: str) -> None:
    """Add or change the LOCALE translation of ruling RULING_ID (a draft until reviewed)."""
    with edit_errors():
        _done(edits.set_translation(app.engine(), editor, ruling_id, locale, text))


@edit_group.command("review")
@click.argument("ruling_id", type=int)
@click.argument("locale", type=LOCALE_CHOICE)
@editor_option
@pass_app
def edit_review(app: App, ruling_id: int, locale: str, editor: str) -> None:
    """Mark the LOCALE translation of ruling RULING_ID as reviewed."""
    with edit_errors():
        _done(edits.set_translation(app.engine(), editor, ruling_id, locale, status="reviewed"))


@click.command("history")
@click.option("--card", help="Only changes about this card (id, English or localized name).")
@click.option("--ruling", "ruling_id", type=int, help="Only changes about this ruling.")
@click.option("--editor", help="Only this editor's changes.")
@output_options
@pass_app
def history_command(
    app: App, card: str | None, ruling_id: int | None, editor: str | None, style: str
) -> None:
    """List the recorded changes, oldest first."""
    with edit_errors():
        result = edits.history(app.engine(), card, ruling_id, editor)
    _print_result(result, style)


@click.command("revert")
@click.argument("revision_id", type=int)
@editor_option
@pass_app
def revert_command(app: App, revision_id: int, editor: str) -> None:
    """Undo revision REVISION_ID (recorded as a new revision)."""
    with edit_errors():
        _done(edits.revert(app.engine(), editor, revision_id))


@click.command("schema")
@click.option("--markdown", is_flag=True, help=f"Print {schema_doc.MARKDOWN_PATH} instead.")
def schema_command(markdown: bool) -> None:
    """Print the tables, columns, comments, references and views editors can query."""
    click.echo(schema_doc.markdown() if markdown else schema_doc.text(), nl=False)


EDITOR_COMMANDS = [
    sql_command,
    query_command,
    edit_group,
    history_command,
    revert_command,
    schema_command,
]
