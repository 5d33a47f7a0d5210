"""``kb translations status``: how far each locale's translations of the rulings have come.

Per locale: rulings translated (any status), reviewed (against the English text as it is now),
outdated (reviewed against an English text since reworded); the share of rulings translated,
and the share of card–ruling links whose ruling is translated, since a ruling on 124 cards
counts for more than one on a single card.
"""

from __future__ import annotations

from sqlalchemy import case, func, or_, select
from sqlalchemy.engine import Connection

from kb.locales import LOCALES
from kb.schema import card_rulings, ruling_translations, rulings
from kb.sql import QueryResult

COLUMNS = ["locale", "translated", "reviewed", "outdated", "rulings", "links"]


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "0.0%"


def status(connection: Connection) -> QueryResult:
    """One row per translation locale (every locale but English), in kb's locale order."""
    total_rulings = connection.execute(select(func.count()).select_from(rulings)).scalar_one()
    total_links = connection.execute(select(func.count()).select_from(card_rulings)).scalar_one()
    links = (
        select(card_rulings.c.ruling_id, func.count().label("links"))
        .group_by(card_rulings.c.ruling_id)
        .subquery()
    )
    translation = ruling_translations
    reviewed = translation.c.status == "reviewed"
    # As the site reads a review: it stands while the English keeps its key (or none recorded).
    current = or_(
        translation.c.reviewed_key.is_(None), translation.c.reviewed_key == rulings.c.text_key
    )
    query = (
        select(
            translation.c.locale,
            func.count(),
            func.sum(case((reviewed & current, 1), else_=0)),
            func.sum(case((reviewed & ~current, 1), else_=0)),
            func.sum(func.coalesce(links.c.links, 0)),
        )
        .join(rulings, rulings.c.id == translation.c.ruling_id)
        .outerjoin(links, links.c.ruling_id == translation.c.ruling_id)
        .group_by(translation.c.locale)
    )
    counts = {
        row[0]: tuple(int(value or 0) for value in row[1:]) for row in connection.execute(query)
    }
    rows = []
    for locale in LOCALES:
        if locale.code == "en":
            continue
        translated, done, outdated, linked = counts.get(locale.code, (0, 0, 0, 0))
        share, link_share = _share(translated, total_rulings), _share(linked, total_links)
        rows.append((locale.code, translated, done, outdated, share, link_share))
    return QueryResult(COLUMNS, rows, truncated=False)
