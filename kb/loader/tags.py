"""Tags: which mechanics a card or a ruling speaks of, added (never removed) by an import."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy import Table, func, select

from kb.batches import chunks
from kb.child_processes import Forked
from kb.loader.mechanics import IN_TEXT, LISTED, Mechanics, counted
from kb.loader.state import LoadState
from kb.loader.tables import (
    card_faces,
    card_mechanics,
    card_rulings,
    cards,
    ruling_mechanics,
    rulings,
)
from kb.tagging import MechanicMatcher
from kb.text import normalize

GENERAL_SHARE = 0.1
"""A mechanic's general ruling stands on at least this share of the mechanic's cards."""

FORKED_RULINGS = 5000
"""Fewer rulings are tagged in this process: a forked child would cost more than it saves."""


class Tags:
    """Adds the tags of what a run touched, from the mechanics' patterns and keywords."""

    def __init__(self, state: LoadState, mechanics: Mechanics) -> None:
        self.state = state
        self.mechanics = mechanics

    def add_to_cards(self, listed: dict[int, set[int]], in_text: dict[int, set[int]]) -> None:
        """Add the card tags that are missing, each with its origin: ``listed`` (the card's
        keywords) before ``in_text`` (read in its Oracle text). Tags are never removed by an
        import, and one an editor removed is not added back. A tag read in a text that a source
        then lists becomes listed: mining tells the actions no source lists by it."""
        columns = ("card_id", "mechanic_id", "origin")
        found = self.state.bulk.select_in(card_mechanics, columns, "card_id", {*listed, *in_text})
        origins = {(card_id, mechanic_id): origin for card_id, mechanic_id, origin in found}
        now_listed = [
            (LISTED, card_id, mechanic_id)
            for card_id, mechanic_ids in listed.items()
            for mechanic_id in sorted(mechanic_ids)
            if origins.get((card_id, mechanic_id)) == IN_TEXT
        ]
        if now_listed:
            self.state.bulk.update(
                card_mechanics, ("origin",), ("card_id", "mechanic_id"), now_listed
            )
        rows = self._missing(card_mechanics, listed, origins.keys(), (LISTED,))
        stored = origins.keys() | {(card_id, mechanic_id) for card_id, mechanic_id, _ in rows}
        rows += self._missing(card_mechanics, in_text, stored, (IN_TEXT,))
        self._insert(card_mechanics, columns, rows, "card tags new")

    def _missing(
        self,
        table: Table,
        wanted: dict[int, set[int]],
        existing: Collection[tuple[int, int]],
        values: tuple[str, ...],
    ) -> list[tuple[Any, ...]]:
        """The wanted tags not stored, nor removed by an editor, as rows ending in ``values``."""
        untagged = self.state.corrections()[table.name]
        return [
            (owner_id, mechanic_id, *values)
            for owner_id, mechanic_ids in wanted.items()
            for mechanic_id in sorted(mechanic_ids)
            if (owner_id, mechanic_id) not in existing
            and not untagged.get((owner_id, mechanic_id), False)
        ]

    def _insert(
        self, table: Table, columns: tuple[str, ...], rows: list[tuple[Any, ...]], counter: str
    ) -> None:
        if rows:
            self.state.bulk.insert(table, columns, rows)
            self.state.summary.counts[counter] += len(rows)

    def tag_touched(self, mined_texts: int = 0) -> RulingTags:
        """Tag the cards (after a mechanic changed) and the rulings this run touched (all of
        them after a mechanic changed), a chunk at a time.

        ``mined_texts``: how many printed texts the mining that follows reads. Where they
        outnumber the rulings (of a large run), the rulings are read at once and matched in a
        forked child meanwhile (``Forked``), and ``RulingTags.write()`` stores them once the
        mining is done. Only then: a child with nothing beside it saves nothing, and reading
        the rulings at once holds their texts (60 MB for 60,000 rulings), less than the
        mining holds after."""
        if self.state.retag_everything:
            if self.state.card_texts_stale:
                self._retag_cards()
            ruling_ids: Iterable[int] = self.state.connection.execute(
                select(rulings.c.id)
            ).scalars()
        else:
            ruling_ids = sorted(self.state.touched_rulings)
        connection = self.state.connection
        names = connection.execute(select(cards.c.name).union(select(card_faces.c.name)))
        kinds = self.mechanics.kinds()
        origin = card_mechanics.c.origin
        counts = select(card_mechanics.c.mechanic_id, origin, func.count()).group_by(
            card_mechanics.c.mechanic_id, origin
        )
        card_counts: Counter[int] = Counter()
        for mechanic_id, tagged_by, n in connection.execute(counts):
            if counted(kinds[mechanic_id], tagged_by):
                card_counts[mechanic_id] += n
        ids = list(ruling_ids)
        if FORKED_RULINGS <= len(ids) <= mined_texts:
            matcher_of = partial(self.mechanics.matcher, list(names.scalars()))
            read = [self._read(chunk, kinds) for chunk in chunks(ids)]
            matched = partial(_matched, read, matcher_of, card_counts)
            return RulingTags(self, Forked(matched, "ruling tags"))
        matcher = self.mechanics.matcher(names.scalars())
        for chunk in chunks(ids):
            self.write_ruling_tags(_wanted([self._read(chunk, kinds)], matcher, card_counts))
        return RulingTags(self, None)

    def _retag_cards(self) -> None:
        text_matcher = self.mechanics.text_matcher()
        wanted: dict[int, set[int]] = {}
        for row in self.state.connection.execute(select(cards.c.id, cards.c.oracle_text)):
            found = text_matcher.matches(row.oracle_text or "")
            if found:
                wanted[row.id] = found
        for chunk in chunks(wanted):
            self.add_to_cards({}, {k: wanted[k] for k in chunk})

    def _read(self, ruling_ids: list[int], kinds: dict[int, str]) -> _Read:
        """What tags these rulings: their texts, their cards, and those cards' tags."""
        bulk = self.state.bulk
        found = bulk.select_in(rulings, ("id", "text"), "id", ruling_ids)
        texts: dict[int, str] = dict(sorted(found))
        cards_of: dict[int, set[int]] = {}
        for ruling_id, card_id in bulk.select_in(
            card_rulings, ("ruling_id", "card_id"), "ruling_id", ruling_ids
        ):
            cards_of.setdefault(ruling_id, set()).add(card_id)
        tags_of_card: dict[int, set[int]] = {}
        all_cards = set().union(*cards_of.values()) if cards_of else set()
        for card_id, mechanic_id, origin in bulk.select_in(
            card_mechanics, ("card_id", "mechanic_id", "origin"), "card_id", all_cards
        ):
            if counted(kinds[mechanic_id], origin):
                tags_of_card.setdefault(card_id, set()).add(mechanic_id)
        return _Read(texts, cards_of, tags_of_card)

    def write_ruling_tags(self, wanted: dict[int, set[int]]) -> None:
        """Add the ruling tags that are missing."""
        columns = ("ruling_id", "mechanic_id")
        for chunk in chunks(wanted):
            existing = set(self.state.bulk.select_in(ruling_mechanics, columns, "ruling_id", chunk))
            rows = self._missing(ruling_mechanics, {k: wanted[k] for k in chunk}, existing, ())
            self._insert(ruling_mechanics, columns, rows, "ruling tags new")


class RulingTags:
    """The tags of the rulings an import touched, where a forked child matches them (else
    none: they are written); ``write()`` stores them. Leaving the ``with`` block ends a child
    not waited for (the import failed)."""

    def __init__(self, tags: Tags, wanted: Forked[dict[int, set[int]]] | None) -> None:
        self._tags, self._wanted = tags, wanted

    def write(self) -> None:
        if self._wanted is not None:
            self._tags.write_ruling_tags(self._wanted.result())

    def __enter__(self) -> RulingTags:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._wanted is not None:
            self._wanted.__exit__(*exc_info)


@dataclass(frozen=True, slots=True)
class _Read:
    texts: dict[int, str]
    """Each ruling's text, by id, in order."""
    cards_of: dict[int, set[int]]
    tags_of_card: dict[int, set[int]]
    """The tags that count (``counted``) of each of the rulings' cards."""


def _matched(
    read: list[_Read], matcher_of: Callable[[], MechanicMatcher], card_counts: Counter[int]
) -> dict[int, set[int]]:
    """``_wanted`` with a matcher made here: in the child, beside the import's other work."""
    return _wanted(read, matcher_of(), card_counts)


def _wanted(
    read: list[_Read], matcher: MechanicMatcher, card_counts: Counter[int]
) -> dict[int, set[int]]:
    """Each ruling's tags, by id, in the order read: the mechanics its text speaks of, or its
    cards' shared mechanic for a general ruling."""
    wanted: dict[int, set[int]] = {}
    for part in read:
        for ruling_id, text in part.texts.items():
            tags = matcher.matches(normalize(text))
            linked = part.cards_of.get(ruling_id, set())
            # A ruling that stands on several cards, all of one mechanic, is its general ruling,
            # unless it names one of the mechanics they share (the disturb rulings of twelve
            # flying Spirits are about disturb, not flying) or stands on too few of the
            # mechanic's cards: the rulings that two partners or five Curses share are about
            # them, not about partner or enchant.
            if len(linked) >= 2:
                shared = set.intersection(*(part.tags_of_card.get(c, set()) for c in linked))
                if not tags & shared:
                    tags |= {
                        mechanic_id
                        for mechanic_id in shared
                        if len(linked) >= GENERAL_SHARE * card_counts.get(mechanic_id, 0)
                    }
            if tags:
                wanted[ruling_id] = tags
    return wanted
