"""What the site shows, read from the store.

The build never holds the whole store: ``load_index`` reads what every page that lists cards
needs (each card's English name and file name, the mechanics, counts), ``localized_cards`` one
locale's card names when its lists are rendered, and ``load_cards`` a share of the cards whole,
for their pages. The views are in kb.site.views; build workers inherit the index and read
their own shares.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import replace

from sqlalchemy import ColumnElement, Select, SQLColumnExpression, func, or_, select
from sqlalchemy.engine import Connection

from kb import schema as tables
from kb.site import card_texts
from kb.site.card_texts import CardFilter
from kb.site.forms import Items
from kb.site.paths import unique_slugs
from kb.site.views import (
    CardEntry,
    CardView,
    LocalizedCard,
    MechanicView,
    RulingView,
    SiteIndex,
    Tag,
    shown_name,
)

RESERVED_SLUGS = frozenset({"index"})
"""File names the site uses itself in the cards/ and mechanics/ folders."""
READ_BY_ID = 1000
"""Up to this many cards are read by their ids; more, by a range of ids (their localized names:
all of a locale's)."""
RULINGS_BY_ID = 10_000
"""Up to this many rulings are looked at again by id after an edit (an id is a bound parameter,
and SQLite allows 32,766 by default); with more, every general ruling is found again."""


def load_index(connection: Connection, cards: list[CardEntry] | None = None) -> SiteIndex:
    """Every card's English name and file name; every mechanic with its cards and general
    rulings. ``cards``: the cards' entries as read before, when none was added, removed or
    renamed since."""
    if cards is None:
        cards = load_card_entries(connection)
    mechanics = _load_mechanics(connection)
    by_id = {mechanic.id: mechanic for mechanic in mechanics.values()}
    for card_id, mechanic_id in connection.execute(
        select(tables.card_mechanics.c.card_id, tables.card_mechanics.c.mechanic_id).order_by(
            tables.card_mechanics.c.card_id
        )
    ):
        by_id[mechanic_id].card_ids.append(card_id)
    general, general_cards = _general_rulings(connection, by_id)
    _add_general_rulings(mechanics, general)
    return SiteIndex(cards, mechanics, _ruling_count(connection), general_cards)


def update_index(connection: Connection, index: SiteIndex, changed: set[int]) -> SiteIndex | None:
    """The index as ``load_index`` would read it now, from ``index`` read before and the cards
    the change log names since (``changed``), when none of those was added, removed or renamed
    (else None). The mechanics are those of ``index``: renaming or adding one logs "any card".
    Only the changed cards' tags are read, and only the rulings that stand on a changed card
    now or stood on one as general rulings: any other ruling kept its text, tags and cards."""
    if len(changed) > READ_BY_ID:
        return None
    ids = sorted(changed)
    kept_names = {card.id: card.name for card in index.cards if card.id in changed}
    if english_names(connection, ids) != kept_names:
        return None
    affected = set(
        connection.execute(
            select(tables.card_rulings.c.ruling_id).where(tables.card_rulings.c.card_id.in_(ids))
        ).scalars()
    )
    affected.update(
        ruling_id
        for ruling_id, cards in index.general_cards.items()
        if not cards.isdisjoint(changed)
    )
    if len(affected) > RULINGS_BY_ID:
        return load_index(connection, index.cards)
    mechanics = {
        key: replace(
            mechanic,
            card_ids=[card_id for card_id in mechanic.card_ids if card_id not in changed],
            general_rulings=[],
        )
        for key, mechanic in index.mechanics.items()
    }
    by_id = {mechanic.id: mechanic for mechanic in mechanics.values()}
    retagged = set()
    for card_id, mechanic_id in connection.execute(
        select(tables.card_mechanics.c.card_id, tables.card_mechanics.c.mechanic_id).where(
            tables.card_mechanics.c.card_id.in_(ids)
        )
    ):
        by_id[mechanic_id].card_ids.append(card_id)
        retagged.add(mechanic_id)
    for mechanic_id in retagged:
        by_id[mechanic_id].card_ids.sort()
    found, general_cards = _general_rulings(connection, by_id, sorted(affected))
    kept = {
        ruling.id: ruling
        for mechanic in index.mechanics.values()
        for ruling in mechanic.general_rulings
        if ruling.id not in affected
    }
    _add_general_rulings(mechanics, sorted([*kept.values(), *found], key=_general_order))
    general_cards.update((ruling_id, index.general_cards[ruling_id]) for ruling_id in kept)
    return index.with_mechanics(mechanics, _ruling_count(connection), general_cards)


def _add_general_rulings(mechanics: dict[str, MechanicView], rulings: list[RulingView]) -> None:
    for ruling in rulings:
        for tag in ruling.tags:
            mechanics[tag.key].general_rulings.append(ruling)


def _ruling_count(connection: Connection) -> int:
    """The rulings that stand on a card: the site shows no other (and the change log, which
    logs cards, does not see a ruling written with none)."""
    distinct_rulings = func.count(func.distinct(tables.card_rulings.c.ruling_id))
    return connection.execute(select(distinct_rulings)).scalar_one()


def load_card_entries(connection: Connection) -> list[CardEntry]:
    """Every card's English name and file name, sorted by English name."""
    rows = connection.execute(
        select(tables.cards.c.id, tables.cards.c.name).order_by(tables.cards.c.name)
    ).all()
    slugs = unique_slugs((name for _card_id, name in rows), reserved=RESERVED_SLUGS)
    return [CardEntry(name, {}, card_id, slugs[name]) for card_id, name in rows]


def english_names(connection: Connection, ids: Sequence[int]) -> dict[int, str]:
    """The English names of those of these cards that exist, by id."""
    query = select(tables.cards.c.id, tables.cards.c.name).where(tables.cards.c.id.in_(ids))
    return {card_id: name for card_id, name in connection.execute(query)}


def _general_rulings(
    connection: Connection,
    mechanics_by_id: dict[int, MechanicView],
    among: Sequence[int] | None = None,
) -> tuple[list[RulingView], dict[int, frozenset[int]]]:
    """The rulings a mechanic's page shows once: tagged with it and standing on two or more
    cards, oldest first, each with its first date; and each one's cards. ``among``: the ids of
    rulings that include every such ruling (the others are not looked at)."""
    # Every tagged ruling (of those): a superset of the shared ones that costs no second
    # aggregate.
    tagged = select(tables.ruling_mechanics.c.ruling_id)
    if among is not None:
        tagged = tagged.where(tables.ruling_mechanics.c.ruling_id.in_(among))
    shared = (
        select(
            tables.card_rulings.c.ruling_id,
            func.min(tables.card_rulings.c.published_on).label("first_published"),
        )
        .where(tables.card_rulings.c.ruling_id.in_(tagged))
        .group_by(tables.card_rulings.c.ruling_id)
        .having(func.count() >= 2)
        .subquery()
    )
    rows = connection.execute(
        select(shared.c.ruling_id, shared.c.first_published, tables.rulings.c.text).join(
            tables.rulings, tables.rulings.c.id == shared.c.ruling_id
        )
    ).all()
    tags = _ruling_tags(connection, tagged, mechanics_by_id)
    translations = _translations(connection, tagged)
    rulings = [
        RulingView(
            row.ruling_id,
            row.text,
            row.first_published,
            tags.get(row.ruling_id, ()),
            translations.get(row.ruling_id, {}),
        )
        for row in rows
    ]
    cards: dict[int, set[int]] = {ruling.id: set() for ruling in rulings}
    for ruling_id, card_id in connection.execute(  # read from the index alone
        select(tables.card_rulings.c.ruling_id, tables.card_rulings.c.card_id).where(
            tables.card_rulings.c.ruling_id.in_(tagged)
        )
    ):
        if ruling_id in cards:
            cards[ruling_id].add(card_id)
    general_cards = {ruling_id: frozenset(ids) for ruling_id, ids in cards.items()}
    return sorted(rulings, key=_general_order), general_cards


def _general_order(ruling: RulingView) -> tuple[dt.date, str, int]:
    return ruling.published_on or dt.date.max, ruling.text, ruling.id


RulingIds = Select[int]
"""A query of ruling ids (a subquery keeps the number of bound parameters small)."""


def _tags(
    pairs: Iterable[tuple[int, int]], mechanics_by_id: dict[int, MechanicView]
) -> dict[int, tuple[Tag, ...]]:
    """The mechanics of each ruling or card, from (its id, a mechanic's id) pairs, sorted by
    the store's slug."""
    tags: dict[int, list[Tag]] = {}
    made: dict[int, Tag] = {}
    for owner, mechanic_id in pairs:
        tag = made.get(mechanic_id)
        if tag is None:
            mechanic = mechanics_by_id[mechanic_id]
            tag = made[mechanic_id] = Tag(
                mechanic.key, mechanic.slug, mechanic.name, mechanic.names
            )
        tags.setdefault(owner, []).append(tag)
    return {owner: tuple(sorted(found, key=lambda tag: tag.key)) for owner, found in tags.items()}


def _ruling_tags(
    connection: Connection, ruling_ids: RulingIds, mechanics_by_id: dict[int, MechanicView]
) -> dict[int, tuple[Tag, ...]]:
    """The mechanics each ruling is tagged with, sorted by the store's slug."""
    pairs = select(tables.ruling_mechanics.c.ruling_id, tables.ruling_mechanics.c.mechanic_id)
    where = tables.ruling_mechanics.c.ruling_id.in_(ruling_ids)
    return _tags(connection.execute(pairs.where(where)), mechanics_by_id)


def _card_tags(
    connection: Connection, of_cards: CardFilter, mechanics_by_id: dict[int, MechanicView]
) -> dict[int, tuple[Tag, ...]]:
    """The mechanics of each card (card_mechanics), sorted as a ruling's tags."""
    pairs = select(tables.card_mechanics.c.card_id, tables.card_mechanics.c.mechanic_id)
    where = of_cards(tables.card_mechanics.c.card_id)
    return _tags(connection.execute(pairs.where(where)), mechanics_by_id)


def _translations(connection: Connection, ruling_ids: RulingIds) -> dict[int, dict[str, str]]:
    """Community translations of the rulings, by locale, reviewed against their English text
    as it is (a review of an earlier text waits for review again)."""
    translations: dict[int, dict[str, str]] = {}
    translation, english = tables.ruling_translations.c, tables.rulings.c
    for ruling_id, locale, text in connection.execute(
        select(translation.ruling_id, translation.locale, translation.text)
        .join(tables.rulings, english.id == translation.ruling_id)
        .where(
            translation.status == "reviewed",
            translation.ruling_id.in_(ruling_ids),
            or_(translation.reviewed_key.is_(None), translation.reviewed_key == english.text_key),
        )
        .order_by(translation.ruling_id, translation.locale)
    ):
        translations.setdefault(ruling_id, {})[locale] = text
    return translations


def localized_cards(
    connection: Connection, entries: Sequence[CardEntry], locales: Sequence[str]
) -> dict[str, list[LocalizedCard]]:
    """These cards with their names in each of ``locales`` (where they have one), by locale."""
    query = select(
        tables.card_names.c.card_id, tables.card_names.c.locale, tables.card_names.c.name
    ).where(tables.card_names.c.locale.in_(locales))
    if len(entries) <= READ_BY_ID:
        query = query.where(tables.card_names.c.card_id.in_([entry.id for entry in entries]))
    names: dict[str, dict[int, str]] = {locale: {} for locale in locales}
    for card_id, locale, name in connection.execute(query):
        names[locale][card_id] = name
    return {
        locale: [
            LocalizedCard(
                card.name,
                shown_name(locale, found.get(card.id), card.name)
                or (card.name if locale == "en" else None),
                card.id,
                card.slug,
            )
            for card in entries
        ]
        for locale, found in names.items()
    }


def load_cards(
    connection: Connection, entries: Sequence[CardEntry], mechanics: dict[str, MechanicView]
) -> list[CardView]:
    """These cards whole: names in every locale, Oracle and printed texts, faces, rulings in
    publication order.

    Read by id range, the cheapest query there is when the entries are all the store's cards in
    the range of their ids (a full build's shares are), or by id when they are few."""
    cards = {
        entry.id: CardView(name=entry.name, names={}, id=entry.id, slug=entry.slug)
        for entry in entries
    }
    if not cards:
        return []

    def of_these_cards(column: SQLColumnExpression[int]) -> ColumnElement[bool]:
        if len(cards) <= READ_BY_ID:
            return column.in_(sorted(cards))
        return column.between(min(cards), max(cards))

    card_columns = [
        tables.cards.c[name] for name in ("id", "mana_cost", "type_line", "oracle_text")
    ]
    for card_id, mana_cost, type_line, oracle_text in connection.execute(
        select(*card_columns).where(of_these_cards(tables.cards.c.id))
    ).all():
        if card_id in cards:
            cards[card_id].mana_cost = mana_cost
            cards[card_id].type_line = type_line
            cards[card_id].oracle_text = oracle_text
    for card_id, locale, name in connection.execute(
        select(tables.card_names.c.card_id, tables.card_names.c.locale, tables.card_names.c.name)
        .where(of_these_cards(tables.card_names.c.card_id))
        .order_by(tables.card_names.c.card_id, tables.card_names.c.locale)
    ).all():
        if card_id in cards and shown_name(locale, name, cards[card_id].name):
            cards[card_id].names[locale] = name
    for card_id, oracle_faces in card_texts.oracle_faces(connection, of_these_cards).items():
        if card_id in cards:
            cards[card_id].faces = tuple(face.name for face in oracle_faces)
            cards[card_id].oracle_faces = oracle_faces
    for (card_id, locale), texts in card_texts.printed(connection, of_these_cards).items():
        if card_id in cards:
            cards[card_id].printed[locale] = texts

    links = connection.execute(
        select(
            tables.card_rulings.c.card_id,
            tables.card_rulings.c.ruling_id,
            tables.card_rulings.c.published_on,
            tables.rulings.c.text,
        )
        .join(tables.rulings, tables.rulings.c.id == tables.card_rulings.c.ruling_id)
        .where(of_these_cards(tables.card_rulings.c.card_id))
        .order_by(
            tables.card_rulings.c.card_id,
            tables.card_rulings.c.published_on.is_(None),
            tables.card_rulings.c.published_on,
            tables.card_rulings.c.position,
            tables.card_rulings.c.ruling_id,
        )
    ).all()
    ruling_ids = select(tables.card_rulings.c.ruling_id).where(
        of_these_cards(tables.card_rulings.c.card_id)
    )
    by_id = {mechanic.id: mechanic for mechanic in mechanics.values()}
    for card_id, mechanics_of_card in _card_tags(connection, of_these_cards, by_id).items():
        if card_id in cards:
            cards[card_id].mechanics = Items(mechanics_of_card)
    tags = _ruling_tags(connection, ruling_ids, by_id)
    translations = _translations(connection, ruling_ids)
    # One view per ruling and date: the cards read together that show a ruling share its view.
    views: dict[tuple[int, dt.date | None], RulingView] = {}
    rulings: dict[int, list[RulingView]] = {}
    for card_id, ruling_id, published_on, text in links:
        if card_id not in cards:
            continue
        ruling = views.get((ruling_id, published_on))
        if ruling is None:
            ruling = views[ruling_id, published_on] = RulingView(
                ruling_id,
                text,
                published_on,
                tags.get(ruling_id, ()),
                translations.get(ruling_id, {}),
            )
        rulings.setdefault(card_id, []).append(ruling)
    for card_id, shown in rulings.items():
        cards[card_id].rulings = Items(shown)
    return [cards[entry.id] for entry in entries]


def _load_mechanics(connection: Connection) -> dict[str, MechanicView]:
    rows = connection.execute(
        select(
            tables.mechanics.c.id,
            tables.mechanics.c.slug,
            tables.mechanics.c.rule,
            tables.mechanics.c.kind,
            tables.mechanics.c.rule_text,
        ).order_by(tables.mechanics.c.slug)
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
            kind=row.kind,
            rule_text=row.rule_text,
        )
        for row in rows
    }
    by_id = {mechanic.id: mechanic for mechanic in mechanics.values()}
    for mechanic_id, locale, name in connection.execute(
        select(
            tables.mechanic_names.c.mechanic_id,
            tables.mechanic_names.c.locale,
            tables.mechanic_names.c.name,
        ).order_by(tables.mechanic_names.c.mechanic_id, tables.mechanic_names.c.locale)
    ):
        by_id[mechanic_id].names[locale] = name
    for mechanic in mechanics.values():
        mechanic.name = mechanic.names.get("en", mechanic.key)
    return mechanics
