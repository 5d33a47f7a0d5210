"""What the site shows, read from the store in one pass of a few queries.

The views are plain dataclasses with slots (a full site holds some 100,000 of them); build
workers inherit them, never a connection.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from kb import db
from kb.site.paths import unique_slugs

RESERVED_SLUGS = frozenset({"index"})
"""File names the site uses itself in the cards/ and mechanics/ folders."""


@dataclass(frozen=True, slots=True)
class RulingView:
    id: int
    text: str
    published_on: dt.date | None
    mechanics: tuple[str, ...]
    """Slugs of the mechanics the ruling is tagged with, sorted."""
    translations: dict[str, str]
    """Reviewed community translations by locale code."""


@dataclass(slots=True)
class Named:
    """Something with an English name and localized names."""

    name: str
    names: dict[str, str]

    def name_in(self, locale: str) -> str | None:
        """The name in ``locale``, None where it has none (the page then shows the English
        name, marked as English)."""
        return self.names.get(locale) or (self.name if locale == "en" else None)


@dataclass(slots=True)
class CardView(Named):
    id: int
    slug: str
    mana_cost: str | None
    type_line: str | None
    faces: tuple[str, ...] = ()
    """English face names of a split, double-faced, flip, adventure or meld card, in order."""
    rulings: list[RulingView] = field(default_factory=list)


@dataclass(slots=True)
class MechanicView(Named):
    id: int
    key: str
    """The store's slug (``spree``)."""
    slug: str
    """The page's file name."""
    rule: str | None
    card_ids: list[int] = field(default_factory=list)
    general_rulings: list[RulingView] = field(default_factory=list)


@dataclass
class SiteData:
    cards: list[CardView]
    """Sorted by English name."""
    mechanics: dict[str, MechanicView]
    """By the store's slug, sorted."""
    ruling_count: int


def load_site(connection: Connection) -> SiteData:
    """Every card with its names and rulings, every mechanic with its cards and general rulings."""
    card_rows = connection.execute(
        select(db.Card.id, db.Card.name, db.Card.mana_cost, db.Card.type_line).order_by(
            db.Card.name
        )
    ).all()
    card_slugs = unique_slugs((row.name for row in card_rows), reserved=RESERVED_SLUGS)
    cards = {
        row.id: CardView(
            name=row.name,
            names={},
            id=row.id,
            slug=card_slugs[row.name],
            mana_cost=row.mana_cost,
            type_line=row.type_line,
        )
        for row in card_rows
    }
    for card_id, locale, name in connection.execute(
        select(db.CardName.card_id, db.CardName.locale, db.CardName.name).order_by(
            db.CardName.card_id, db.CardName.locale
        )
    ):
        cards[card_id].names[locale] = name
    faces: dict[int, list[str]] = {}
    for card_id, name in connection.execute(
        select(db.CardFace.card_id, db.CardFace.name).order_by(
            db.CardFace.card_id, db.CardFace.position
        )
    ):
        faces.setdefault(card_id, []).append(name)
    for card_id, names in faces.items():
        cards[card_id].faces = tuple(names)

    mechanics = _load_mechanics(connection)
    by_id = {mechanic.id: mechanic for mechanic in mechanics.values()}
    tags: dict[int, list[str]] = {}
    for ruling_id, mechanic_id in connection.execute(
        select(db.RulingMechanic.ruling_id, db.RulingMechanic.mechanic_id)
    ):
        tags.setdefault(ruling_id, []).append(by_id[mechanic_id].key)
    for card_id, mechanic_id in connection.execute(
        select(db.CardMechanic.card_id, db.CardMechanic.mechanic_id).order_by(
            db.CardMechanic.card_id
        )
    ):
        by_id[mechanic_id].card_ids.append(card_id)

    translations: dict[int, dict[str, str]] = {}
    for ruling_id, locale, text in connection.execute(
        select(
            db.RulingTranslation.ruling_id, db.RulingTranslation.locale, db.RulingTranslation.text
        )
        .where(db.RulingTranslation.status == "reviewed")
        .order_by(db.RulingTranslation.ruling_id, db.RulingTranslation.locale)
    ):
        translations.setdefault(ruling_id, {})[locale] = text

    rulings: dict[int, RulingView] = {}
    # One view per ruling and date: cards that share a ruling share its view (memory at scale).
    views: dict[tuple[int, dt.date | None], RulingView] = {}
    links = connection.execute(
        select(
            db.CardRuling.card_id,
            db.CardRuling.ruling_id,
            db.CardRuling.published_on,
            db.Ruling.text,
        )
        .join(db.Ruling, db.Ruling.id == db.CardRuling.ruling_id)
        .order_by(
            db.CardRuling.card_id,
            db.CardRuling.published_on.is_(None),
            db.CardRuling.published_on,
            db.CardRuling.position,
            db.CardRuling.ruling_id,
        )
    )
    first_published: dict[int, dt.date | None] = {}
    cards_per_ruling: Counter[int] = Counter()
    for card_id, ruling_id, published_on, text in links:
        ruling = views.get((ruling_id, published_on))
        if ruling is None:
            ruling = views[ruling_id, published_on] = RulingView(
                ruling_id,
                text,
                published_on,
                tuple(sorted(tags.get(ruling_id, ()))),
                translations.get(ruling_id, {}),
            )
        cards[card_id].rulings.append(ruling)
        rulings.setdefault(ruling_id, ruling)
        cards_per_ruling[ruling_id] += 1
        earliest = first_published.get(ruling_id)
        if published_on is not None and (earliest is None or published_on < earliest):
            first_published[ruling_id] = published_on

    # A mechanic's general rulings: tagged with it and standing on two or more cards, shown once,
    # oldest first.
    for ruling_id in sorted(
        (ruling_id for ruling_id, count in cards_per_ruling.items() if count >= 2),
        key=lambda ruling_id: (
            first_published.get(ruling_id) or dt.date.max,
            rulings[ruling_id].text,
        ),
    ):
        for key in rulings[ruling_id].mechanics:
            mechanics[key].general_rulings.append(rulings[ruling_id])

    ruling_count = connection.execute(select(func.count()).select_from(db.Ruling)).scalar_one()
    return SiteData(list(cards.values()), mechanics, ruling_count)


def _load_mechanics(connection: Connection) -> dict[str, MechanicView]:
    rows = connection.execute(
        select(db.Mechanic.id, db.Mechanic.slug, db.Mechanic.rule).order_by(db.Mechanic.slug)
    ).all()
    file_slugs = unique_slugs((row.slug for row in rows), reserved=RESERVED_SLUGS)
    mechanics = {
        row.slug: MechanicView(
            name=row.slug,
            names={},
            id=row.id,
            key=row.slug,
            slug=file_slugs[row.slug],
            rule=row.rule,
        )
        for row in rows
    }
    by_id = {mechanic.id: mechanic for mechanic in mechanics.values()}
    for mechanic_id, locale, name in connection.execute(
        select(db.MechanicName.mechanic_id, db.MechanicName.locale, db.MechanicName.name).order_by(
            db.MechanicName.mechanic_id, db.MechanicName.locale
        )
    ):
        by_id[mechanic_id].names[locale] = name
    for mechanic in mechanics.values():
        mechanic.name = mechanic.names.get("en", mechanic.key)
    return mechanics
