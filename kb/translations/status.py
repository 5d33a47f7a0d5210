"""``kb translations status``: each locale's coverage (kb.translations.coverage) as a table.

Per locale: rulings translated, reviewed and outdated; the share of rulings translated, and the
share of card–ruling links whose ruling is translated.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

from kb.sql import QueryResult
from kb.translations.coverage import coverage

COLUMNS = ["locale", "translated", "reviewed", "outdated", "rulings", "links"]


def status(connection: Connection) -> QueryResult:
    """One row per translation locale (every locale but English), in kb's locale order."""
    rows = [
        (
            code,
            counts.translated,
            counts.reviewed,
            counts.outdated,
            f"{counts.rulings_share:.1%}",
            f"{counts.links_share:.1%}",
        )
        for code, counts in coverage(connection).items()
    ]
    return QueryResult(COLUMNS, rows, truncated=False)
