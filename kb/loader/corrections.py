"""What community editors corrected that an import keeps: a source that still says what an
editor replaced or removed (``kb edit``, as the revisions record it) means the row as corrected.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from kb.loader.tables import revisions
from kb.text import text_key

EDITED_TABLES = ("rulings", "card_names", "card_mechanics", "ruling_mechanics", "printed_texts")
"""The tables whose editors' changes an import keeps."""


def read_corrections(connection: Connection) -> dict[str, dict[Any, Any]]:
    """What community editors replaced or removed, by table. ``rulings``: each replaced text's
    key → its ruling; ``card_names``: (card, locale) → the name replaced last; ``card_mechanics``
    and ``ruling_mechanics``: (owner, mechanic) → whether the tag's last edit removed it;
    ``printed_texts``: (card, locale, face) → each column an editor changed → every value
    it replaced there."""
    edits: dict[str, dict[Any, Any]] = {table: {} for table in EDITED_TABLES}
    query = (
        select(
            revisions.c.table_name,
            revisions.c.row_key,
            revisions.c.old_value,
            revisions.c.new_value,
        )
        .where(revisions.c.table_name.in_(EDITED_TABLES))
        .order_by(revisions.c.id)
    )
    for table, key, old, new in connection.execute(query):
        if table == "rulings" and old and old.get("text"):
            edits[table][text_key(old["text"])] = key["id"]
        elif table == "card_names" and old and old.get("name"):
            edits[table][key["card_id"], key["locale"]] = old["name"]
        elif table == "printed_texts" and old:
            replaced = edits[table].setdefault((key["card_id"], key["locale"], key["face"]), {})
            for column, value in old.items():
                replaced.setdefault(column, set()).add(value)
        elif table in ("card_mechanics", "ruling_mechanics"):
            owner = key["card_id"] if table == "card_mechanics" else key["ruling_id"]
            edits[table][owner, key["mechanic_id"]] = new is None
    return edits
