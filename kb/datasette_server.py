"""``kb datasette``: the SQLite store in a browser, through Datasette, read-only.

Datasette opens a file it may treat as changing with ``?mode=ro`` and an immutable one with
``?immutable=1``, and its SQL box runs only statements that start with SELECT or WITH. It also
keeps one writing connection per mutable file, for plugins and canned queries marked
``write``; kb configures neither, and a ``prepare_connection`` hook sets ``PRAGMA query_only``
on every connection to the store all the same, so nothing served can write to it.

Datasette is imported here only, and only by ``kb datasette``: it is an extra (``kb[web]``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kb.datasette_metadata import datasette_metadata
from kb.sql import saved_queries

if TYPE_CHECKING:
    from datasette.app import Datasette  # type: ignore[import-untyped]

PLUGIN_NAME = "kb-read-only"
INSTALL_HINT = "kb datasette needs Datasette: pip install 'kb[web]'"


class DatasetteMissing(Exception):
    """Datasette is not installed; the message says how to install it."""


def database_name(path: str) -> str:
    """The store's name in Datasette's URLs (``/kb/missing_names``): its file name's stem, as
    Datasette's own command line names it, so that ``kb datasette --metadata`` fits it too."""
    return Path(path).stem


def metadata_for(path: str) -> dict[str, Any]:
    return datasette_metadata(database_name(path), saved_queries())


def _register_read_only(store: str) -> None:
    """A Datasette plugin: every connection Datasette opens to ``store`` refuses to write."""
    from datasette import hookimpl  # type: ignore[import-untyped]
    from datasette.plugins import pm  # type: ignore[import-untyped]

    def prepare_connection(conn: sqlite3.Connection, database: str) -> None:
        if database == store:
            conn.execute("PRAGMA query_only = ON")

    previous = pm.get_plugin(PLUGIN_NAME)
    if previous is not None:  # a second app in one process (tests)
        pm.unregister(previous)
    plugin = ModuleType(PLUGIN_NAME)  # what Datasette's plugins are, and what it lists
    plugin.prepare_connection = hookimpl(prepare_connection)  # type: ignore[attr-defined]
    pm.register(plugin, PLUGIN_NAME)


def datasette_app(path: str, immutable: bool) -> Datasette:
    """Datasette serving the SQLite store at ``path`` read-only, with kb's metadata."""
    try:
        from datasette.app import Datasette
    except ImportError:
        raise DatasetteMissing(INSTALL_HINT) from None
    from datasette import handle_exception

    # Where rich is installed, Datasette prints every refused query's traceback with its
    # locals (the whole metadata) to the console; the editor sees the one-line error anyway.
    handle_exception.rich = None
    _register_read_only(database_name(path))
    files = {"immutables": [path]} if immutable else {"files": [path]}
    return Datasette(metadata=metadata_for(path), **files)


def serve(app: Datasette, host: str, port: int) -> None:
    """Serve ``app`` (datasette_app) until interrupted (Ctrl-C)."""
    import uvicorn  # Datasette's own server, installed with it

    # app.app() runs Datasette's startup hooks on the first request.
    uvicorn.run(app.app(), host=host, port=port, log_level="warning", lifespan="on")
