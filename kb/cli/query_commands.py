"""Editors' read-only SQL: ``kb sql``, the saved queries of ``kb query``, and ``kb schema``."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

import click

from kb import schema_doc
from kb.cli.app import App, KbError, clear_errors, pass_app, query_options
from kb.sql import (
    QueryError,
    format_result,
    query_text,
    run_query,
    saved_queries,
    saved_query_values,
)

REFUSED = (QueryError,)
"""Errors whose message is the line to show."""


def _run_and_print(
    app: App,
    sql: str,
    params: Mapping[str, str],
    time_limit: float,
    max_rows: int,
    style: str,
) -> None:
    with clear_errors(refused=REFUSED):
        result = run_query(app.engine(), sql, params, time_limit, max_rows)
    click.echo(format_result(result, style), nl=False)
    if result.truncated:
        click.echo(f"kb: only the first {max_rows} rows are shown (--max-rows)", err=True)


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
    with clear_errors(refused=REFUSED):
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
    with clear_errors(refused=REFUSED):
        queries = saved_queries()
    if list_queries or name is None:
        for saved in queries.values():
            parameters = "".join(f" -p {parameter} …" for parameter in saved.parameters)
            click.echo(f"{saved.name}{parameters}\n    {saved.title}. {saved.description}")
        return
    if name not in queries:
        raise KbError(f"no saved query {name!r}; kb query --list shows them")
    with clear_errors(refused=REFUSED):
        values = saved_query_values(queries[name], params, app.engine)
    _run_and_print(app, queries[name].sql, values, time_limit, max_rows, style)


@click.command("schema")
@click.option("--markdown", is_flag=True, help=f"Print {schema_doc.MARKDOWN_PATH} instead.")
def schema_command(markdown: bool) -> None:
    """Print the tables, columns, comments, references and views editors can query."""
    click.echo(schema_doc.markdown() if markdown else schema_doc.text(), nl=False)
