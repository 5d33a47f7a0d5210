"""What changed, for each locale's feed and recent changes page, read from the store: rulings
newly linked to cards (a link's source says which import linked it, and when) and rulings'
texts edited (the revisions of ``kb edit ruling-text`` and ``kb revert``). The newest
FEED_LENGTH changes, in an order taken from the data alone: the same store gives the same
changes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.engine import Connection

from kb import schema as tables
from kb.batches import chunks
from kb.site.views import CardEntry, ChangeView, RecentChanges, SiteIndex, shown_name

FEED_LENGTH = 100
"""Changes a feed and a recent changes page show, the newest first."""


class _Change(NamedTuple):
    """A change found, before its cards are read."""

    order: tuple[Any, ...]
    """Its place, compared backwards: when, an edit before a link made at the same moment,
    then the latest publication date, the ruling, the source or revision."""
    key: str
    edited: bool
    at: dt.datetime
    ruling_id: int
    source_id: int | None
    text: str | None
    old_text: str | None
    published_on: dt.date | None


CardNames = dict[int, dict[str, str]]
"""Cards' names in every locale, by card id."""


def recent_changes(
    connection: Connection,
    index: SiteIndex,
    limit: int = FEED_LENGTH,
    known: CardNames | None = None,
) -> RecentChanges:
    """The newest ``limit`` changes of rulings that stand on a card of ``index``, newest
    first, and the store's first import. ``known``: the names of cards read before and
    unchanged since (a build that keeps running keeps them), left holding those of the
    changes' cards."""
    sources = tables.sources
    first = connection.execute(
        select(sources.c.sha256, sources.c.imported_at).order_by(sources.c.id).limit(1)
    ).one_or_none()
    origin = f"{first.sha256} at {first.imported_at.isoformat()}" if first else ""
    return RecentChanges(
        origin, first.imported_at if first else None, _changes(connection, index, limit, known)
    )


def _changes(
    connection: Connection, index: SiteIndex, limit: int, known: CardNames | None
) -> tuple[ChangeView, ...]:
    found = sorted([*_linked(connection, limit), *_edited(connection, limit)], reverse=True)
    ruling_ids = sorted({change.ruling_id for change in found})
    texts = _texts(connection, ruling_ids)
    links = _links(connection, ruling_ids)
    positions = index.positions
    wanted: dict[int, CardEntry] = {}
    changes: list[tuple[_Change, list[int]]] = []
    for change in found:
        if change.ruling_id not in texts:
            continue  # removed since
        on = links.get(change.ruling_id, [])
        card_ids = [
            card_id
            for card_id, source_id in on
            if card_id in positions and (change.edited or source_id == change.source_id)
        ]
        if not card_ids:
            continue  # a ruling on no card is on no page
        changes.append((change, card_ids))
        if len(changes) == limit:
            break
    for card_id in sorted({card_id for _change, ids in changes for card_id in ids}):
        card = index.cards[positions[card_id]]
        wanted[card_id] = CardEntry(card.name, {}, card.id, card.slug)
    _add_names(connection, wanted, known)
    return tuple(
        ChangeView(
            change.key,
            change.edited,
            change.at,
            change.ruling_id,
            change.text if change.text is not None else texts[change.ruling_id],
            change.old_text,
            change.published_on,
            tuple(wanted[card_id] for card_id in sorted(card_ids, key=positions.__getitem__)),
        )
        for change, card_ids in changes
    )


def _linked(connection: Connection, limit: int) -> list[_Change]:
    """The newest links of a ruling to cards, one per ruling and source (the import that
    linked the ruling to those cards, or dated it on them): the latest import's first, then
    the latest published. Imports are read one moment at a time (every file of one ``kb
    import`` has its time), each one's newest links only (a ruling on several cards has
    several), more if those were too few: never a sort of every link of the store, which
    takes a build that keeps running tens of milliseconds on the real corpus."""
    links, sources = tables.card_rulings, tables.sources
    moments = connection.execute(
        select(sources.c.imported_at).distinct().order_by(sources.c.imported_at.desc())
    ).scalars()
    checksums = dict(connection.execute(select(sources.c.id, sources.c.sha256)).all())
    found: list[_Change] = []
    for moment in list(moments):
        query = (
            select(links.c.ruling_id, links.c.source_id, links.c.published_on)
            .where(
                links.c.source_id.in_(
                    select(sources.c.id).where(sources.c.imported_at == moment).scalar_subquery()
                )
            )
            .order_by(
                links.c.published_on.desc().nulls_last(),
                links.c.ruling_id.desc(),
                links.c.source_id.desc(),
            )
        )
        wanted = limit - len(found)
        rows = 2 * wanted
        while True:
            read = connection.execute(query.limit(rows)).all()
            # A pair's first link is its latest published.
            pairs: dict[tuple[int, int], dt.date | None] = {}
            for ruling_id, source_id, published_on in read:
                pairs.setdefault((ruling_id, source_id), published_on)
            if len(pairs) >= wanted or len(read) < rows:
                break
            rows *= 4
        for (ruling_id, source_id), published_on in list(pairs.items())[:wanted]:
            found.append(
                _Change(
                    (moment, False, published_on or dt.date.min, ruling_id, source_id),
                    f"ruling {ruling_id} linked by {checksums[source_id]} at {moment.isoformat()}",
                    False,
                    moment,
                    ruling_id,
                    source_id,
                    None,
                    None,
                    published_on,
                )
            )
        if len(found) == limit:
            break
    return found


def _edited(connection: Connection, limit: int) -> list[_Change]:
    """The newest edits of a ruling's text (an edit, or a revert of one)."""
    revisions = tables.revisions
    query = (
        select(
            revisions.c.id,
            revisions.c.made_at,
            revisions.c.ruling_id,
            revisions.c.old_value,
            revisions.c.new_value,
        )
        .where(revisions.c.table_name == tables.rulings.name, revisions.c.ruling_id.is_not(None))
        .order_by(revisions.c.made_at.desc(), revisions.c.id.desc())
        .limit(limit)
    )
    return [
        _Change(
            (row.made_at, True, dt.date.min, row.ruling_id, row.id),
            f"revision {row.id} of ruling {row.ruling_id} at {row.made_at.isoformat()}",
            True,
            row.made_at,
            row.ruling_id,
            None,
            row.new_value["text"],
            row.old_value["text"],
            None,
        )
        for row in connection.execute(query)
        if _text_of(row.old_value) and _text_of(row.new_value)
    ]


def _text_of(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("text"), str)


def _texts(connection: Connection, ruling_ids: Sequence[int]) -> dict[int, str]:
    rulings = tables.rulings
    texts: dict[int, str] = {}
    for chunk in chunks(ruling_ids):
        query = select(rulings.c.id, rulings.c.text).where(rulings.c.id.in_(chunk))
        texts.update((row_id, text) for row_id, text in connection.execute(query))
    return texts


def _links(connection: Connection, ruling_ids: Sequence[int]) -> dict[int, list[tuple[int, int]]]:
    """Each ruling's cards, with the source of each link."""
    links = tables.card_rulings
    found: dict[int, list[tuple[int, int]]] = {}
    for chunk in chunks(ruling_ids):
        query = select(links.c.ruling_id, links.c.card_id, links.c.source_id).where(
            links.c.ruling_id.in_(chunk)
        )
        for ruling_id, card_id, source_id in connection.execute(query):
            found.setdefault(ruling_id, []).append((card_id, source_id))
    return found


def _add_names(
    connection: Connection, cards: dict[int, CardEntry], known: CardNames | None
) -> None:
    """The cards' names in every locale: as ``known``, or read (a hundred changes' cards are
    thousands, and their 40,000 names a third of a ruling edit's build under ``kb build
    --watch``); ``known`` is left holding these cards' names alone."""
    if known is not None:
        for card_id, kept in known.items():
            if card_id in cards:
                cards[card_id].names = kept  # never changed: the watcher forgets a renamed card's
    missing = sorted(card_id for card_id, card in cards.items() if not card.names)
    names = tables.card_names
    for chunk in chunks(missing):
        query = (
            select(names.c.card_id, names.c.locale, names.c.name)
            .where(names.c.card_id.in_(chunk))
            .order_by(names.c.card_id, names.c.locale)
        )
        for card_id, locale, name in connection.execute(query):
            if shown_name(locale, name, cards[card_id].name):
                cards[card_id].names[locale] = name
    if known is not None:
        known.clear()
        known.update((card_id, card.names) for card_id, card in cards.items())
