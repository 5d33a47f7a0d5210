"""``kb datasette``: the store in a browser, read-only, for editors who know Datasette."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import click

from kb.cli.app import App, KbError, clear_errors, pass_app
from kb.engine import sqlite_file, store_url
from kb.sql import QueryError

SQLITE_ONLY = (
    "Datasette reads SQLite files only: kb datasette --copy FILE copies this PostgreSQL store "
    "into a new SQLite file and serves that"
)


@click.command("datasette")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8001,
    show_default=True,
    help="The port to listen on.",
)
@click.option(
    "--immutable",
    is_flag=True,
    help="Open the file immutable: faster, but only for a copy nobody changes meanwhile "
    "(kb backup makes one); the store itself is opened read-only.",
)
@click.option(
    "--copy",
    "copy_to",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Copy the store into this new SQLite file first and serve the copy, immutable: how a "
    "PostgreSQL store is served.",
)
@click.option(
    "--metadata",
    "print_metadata",
    is_flag=True,
    help="Print Datasette's metadata for the store (JSON) and exit, for the datasette "
    "command line's --metadata.",
)
@pass_app
def datasette_command(
    app: App, host: str, port: int, immutable: bool, copy_to: Path | None, print_metadata: bool
) -> None:
    """Browse the store read-only in Datasette, with the saved queries (Ctrl-C stops).

    Tables, columns and views carry the schema's descriptions; queries/ are canned queries.
    Needs the web extra: pip install 'kb[web]'.
    """
    with clear_errors():
        backend = store_url(app.database_url).get_backend_name()
    if copy_to is not None:
        path = _copy(app, copy_to, err=print_metadata)  # the metadata alone on stdout
        immutable = True  # nobody writes the copy
    elif backend != "sqlite":  # kb's other engine
        raise KbError(SQLITE_ONLY)
    else:
        found = sqlite_file(app.engine())
        if found is None:
            raise KbError("kb datasette needs a SQLite file, not an in-memory database")
        path = found
    app.close()  # the store's file whole (checkpointed) before Datasette reads it
    from kb import datasette_server

    if print_metadata:
        with clear_errors(refused=(QueryError,)):
            metadata = datasette_server.metadata_for(path)
        click.echo(json.dumps(metadata, ensure_ascii=False, indent=2))
        return
    with clear_errors(refused=(QueryError, datasette_server.DatasetteMissing)):
        server = datasette_server.datasette_app(path, immutable)
    try:  # a port in use is one line here, not the server's log and exit
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family) as probe:
            # As uvicorn binds: SO_REUSEADDR, so that a port just freed is not "in use".
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise KbError(f"{host}:{port}: {error.strerror}") from None
    name = datasette_server.database_name(path)
    mode = "immutable" if immutable else "read-only"
    click.echo(f"serving {path} {mode} on http://{host}:{port}/{name} (Ctrl-C stops)")
    datasette_server.serve(server, host, port)
    app.echo("stopped")


def _copy(app: App, target: Path, err: bool) -> str:
    from kb.sqlite_copy import copy_to_sqlite

    with clear_errors(target):
        rows = copy_to_sqlite(app.engine(), target)
    if not app.quiet:
        click.echo(f"copied {rows:,} rows into {target}", err=err)
    return str(target)
