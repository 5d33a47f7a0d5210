"""Tags: which mechanics a card or a ruling speaks of, added (never removed) by an import."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Table, func, select

from kb.batches import chunks
from kb.loader.mechanics import Mechanics
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


class Tags:
    """Adds the tags of what a run touched, from the mechanics' patterns and keywords."""

    def __init__(self, state: LoadState, mechanics: Mechanics) -> None:
        self.state = state
        self.mechanics = mechanics

    def add(self, table: Table, owner: str, wanted: dict[int, set[int]], counter: str) -> None:
        """Add (owner, mechanic) tags that are missing; tags are never removed by an import, and
        one an editor removed is not added back."""
        columns = (owner, "mechanic_id")
        existing = set(self.state.bulk.select_in(table, columns, owner, wanted))
        untagged = self.state.corrections()[table.name]
        new_rows = [
            (owner_id, mechanic_id)
            for owner_id, mechanic_ids in wanted.items()
            for mechanic_id in sorted(mechanic_ids)
            if (owner_id, mechanic_id) not in existing
            and not untagged.get((owner_id, mechanic_id), False)
        ]
        if new_rows:
            self.state.bulk.insert(table, columns, new_rows)
            self.state.summary.counts[counter] += len(new_rows)

    def tag_touched(self) -> None:
        """Tag the rulings this run touched (all of them, and the cards, after a mechanic
        changed)."""
        if self.state.retag_everything:
            self._retag_cards()
            ruling_ids: Iterable[int] = self.state.connection.execute(
                select(rulings.c.id)
            ).scalars()
        else:
            ruling_ids = sorted(self.state.touched_rulings)
        connection = self.state.connection
        names = connection.execute(select(cards.c.name).union(select(card_faces.c.name)))
        matcher = self.mechanics.matcher(names.scalars())
        counts = select(card_mechanics.c.mechanic_id, func.count()).group_by(
            card_mechanics.c.mechanic_id
        )
        card_counts = {mechanic_id: n for mechanic_id, n in connection.execute(counts)}
        for chunk in chunks(list(ruling_ids)):
            self._tag_rulings(chunk, matcher, card_counts)

    def _retag_cards(self) -> None:
        term_matcher = self.mechanics.term_matcher()
        wanted: dict[int, set[int]] = {}
        for row in self.state.connection.execute(select(cards.c.id, cards.c.oracle_text)):
            found = term_matcher.matches(row.oracle_text or "")
            if found:
                wanted[row.id] = found
        for chunk in chunks(wanted):
            self.add(
                card_mechanics, "card_id", {k: wanted[k] for k in chunk}, counter="card tags new"
            )

    def _tag_rulings(
        self, ruling_ids: list[int], matcher: MechanicMatcher, card_counts: dict[int, int]
    ) -> None:
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
        for card_id, mechanic_id in bulk.select_in(
            card_mechanics, ("card_id", "mechanic_id"), "card_id", all_cards
        ):
            tags_of_card.setdefault(card_id, set()).add(mechanic_id)
        wanted: dict[int, set[int]] = {}
        for ruling_id, text in texts.items():
            tags = matcher.matches(normalize(text))
            linked = cards_of.get(ruling_id, set())
            # A ruling that stands on several cards, all of one mechanic, is its general ruling,
            # unless it names one of the mechanics they share (the disturb rulings of twelve
            # flying Spirits are about disturb, not flying) or stands on too few of the
            # mechanic's cards: the rulings that two partners or five Curses share are about
            # them, not about partner or enchant.
            if len(linked) >= 2:
                shared = set.intersection(*(tags_of_card.get(c, set()) for c in linked))
                if not tags & shared:
                    tags |= {
                        mechanic_id
                        for mechanic_id in shared
                        if len(linked) >= GENERAL_SHARE * card_counts.get(mechanic_id, 0)
                    }
            if tags:
                wanted[ruling_id] = tags
        self.add(ruling_mechanics, "ruling_id", wanted, counter="ruling tags new")
