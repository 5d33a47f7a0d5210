"""How far each locale's translations of the rulings have come: what ``kb translations status``
shows and each locale's home page states.

Per locale: rulings translated (any status), reviewed (against the English text as it is now),
outdated (reviewed against an English text since reworded); and the card–ruling links whose
ruling is translated, since a ruling on 124 cards counts for more than one on a single card.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, func, or_, select
from sqlalchemy.engine import Connection

from kb.locales import LOCALES
from kb.schema import card_rulings, ruling_translations, rulings


@dataclass(frozen=True)
class Coverage:
    """One locale's counts, with the store's totals they are shares of."""

    translated: int
    reviewed: int
    outdated: int
    links: int
    """Card–ruling links whose ruling is translated."""
    total_rulings: int
    total_links: int

    @property
    def rulings_share(self) -> float:
        return self.translated / self.total_rulings if self.total_rulings else 0.0

    @property
    def reviewed_share(self) -> float:
        return self.reviewed / self.total_rulings if self.total_rulings else 0.0

    @property
    def links_share(self) -> float:
        return self.links / self.total_links if self.total_links else 0.0


def coverage(connection: Connection) -> dict[str, Coverage]:
    """Every translation locale's (every locale but English), in kb's locale order."""
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
    found = {}
    for locale in LOCALES:
        if locale.code == "en":
            continue
        translated, done, outdated, linked = counts.get(locale.code, (0, 0, 0, 0))
        found[locale.code] = Coverage(
            translated, done, outdated, linked, int(total_rulings), int(total_links)
        )
    return found
