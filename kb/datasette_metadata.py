"""What Datasette shows of the store besides its rows: Datasette's metadata, built from kb's own
descriptions, so that the browser says what ``kb schema`` and ``kb query --list`` say.

- every table's and column's comment in kb/schema.py, and every view's description;
- the saved queries of queries/ as canned queries: title, description and parameters from
  their headers (kb.sql reads them, for ``kb query`` too);
- alembic_version hidden: the migrations' bookkeeping, not the editors' data.

Pure: no Datasette import, so a test (and ``kb datasette --metadata``) needs no server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kb.schema import metadata
from kb.schema_views import VIEWS
from kb.sql import SavedQuery

TITLE = "kb: Magic rulings"
DESCRIPTION = (
    "The kb store, read-only: cards, their names in every locale, shared rulings, mechanic "
    "tags and community translations. The saved queries are listed below the tables."
)
HIDDEN_TABLES = ("alembic_version",)


def table_metadata() -> dict[str, dict[str, Any]]:
    """Each table's description and its columns' (those that have a comment), then each
    view's description, by name: Datasette's ``tables`` block, which covers views too."""
    tables: dict[str, dict[str, Any]] = {}
    for table in sorted(metadata.tables.values(), key=lambda table: table.name):
        entry: dict[str, Any] = {"description": table.comment or ""}
        columns = {column.name: column.comment for column in table.columns if column.comment}
        if columns:
            entry["columns"] = columns
        tables[table.name] = entry
    for name, (description, _columns) in VIEWS.items():
        tables[name] = {"description": description}
    for name in HIDDEN_TABLES:
        tables[name] = {"hidden": True}
    return tables


def canned_query(saved: SavedQuery) -> dict[str, Any]:
    """A saved query as a Datasette canned query. Datasette shows no parameter's meaning
    beside its field, so the description ends with each one's, as ``kb query --list`` does."""
    description = saved.description
    if saved.parameters:
        meanings = "; ".join(f"{name}: {meaning}" for name, meaning in saved.parameters.items())
        description = f"{description} Parameters: {meanings}.".strip()
    return {
        "title": saved.title,
        "description": description,
        "sql": saved.sql,
        "params": list(saved.parameters),
    }


def datasette_metadata(database: str, queries: Mapping[str, SavedQuery]) -> dict[str, Any]:
    """Datasette's metadata for the store served as ``database`` (its name in Datasette's URLs),
    with ``queries`` (kb.sql.saved_queries()) as its canned queries."""
    return {
        "title": TITLE,
        "description": DESCRIPTION,
        "databases": {
            database: {
                "tables": table_metadata(),
                "queries": {name: canned_query(saved) for name, saved in sorted(queries.items())},
            }
        },
    }
