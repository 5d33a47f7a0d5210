"""Which card names a scraped rulings page may not replace.

A page's title is what a reader copied from a web page: ``kb import page.txt --card X`` records
it as X's name in the page's locale, but a wrong title must not overwrite the name an official
source gave. Official here means the printed names as Wizards publishes them, through Scryfall
(``scryfall-cards``) and MTGJSON (``mtgjson``, kb's own MTGJSON export included), and kb's
catalog (``catalog``), which the project reviews; a name a community editor wrote with
``kb edit`` (no source file) stands as well. A name an earlier page gave may be replaced by a
later page. ``kb import --replace-name`` lets a page replace any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlalchemy import and_, select
from sqlalchemy.engine import Connection

from kb.formats import CATALOG, MTGJSON, SCRYFALL_CARDS
from kb.schema import card_names, sources

OFFICIAL_FORMATS: Final = frozenset({SCRYFALL_CARDS, MTGJSON, CATALOG})
EDITOR: Final = "an editor"


@dataclass(frozen=True)
class KeptName:
    name: str
    source: str
    """The format of the source that gave it, or EDITOR."""


def name_a_page_keeps(connection: Connection, card_id: int, locale: str) -> KeptName | None:
    """The card's name in ``locale`` when it comes from an official source or an editor."""
    query = (
        select(card_names.c.name, card_names.c.source_id, sources.c.format)
        .select_from(card_names.outerjoin(sources, sources.c.id == card_names.c.source_id))
        .where(and_(card_names.c.card_id == card_id, card_names.c.locale == locale))
    )
    row = connection.execute(query).first()
    if row is None:
        return None
    if row.source_id is None:
        return KeptName(row.name, EDITOR)
    if row.format in OFFICIAL_FORMATS:
        return KeptName(row.name, row.format)
    return None
