"""Card references: which stored card a record names, by Oracle id, English name or a page's
localized title (``--card`` names it, and records the title as its name)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from kb.loader.names import Names
from kb.loader.state import LoadState
from kb.loader.tables import card_names, cards
from kb.official_names import name_a_page_keeps
from kb.records import CardRef, ParseError
from kb.suggest import close_names, did_you_mean

CARD_COLUMNS = tuple(column.name for column in cards.c)


class CardReferences:
    """Finds stored cards: by column for the cards part, by reference for every record."""

    def __init__(self, state: LoadState, names: Names) -> None:
        self.state = state
        self.names = names

    def cards_where(
        self, column: str, keys: set[Any], columns: Sequence[str] = CARD_COLUMNS
    ) -> dict[Any, dict[str, Any]]:
        """Rows of the cards whose ``column`` is one of ``keys`` (selecting ``columns``)."""
        at = columns.index(column)
        return {
            row[at]: dict(zip(columns, row, strict=True))
            for row in self.state.bulk.select_in(cards, columns, column, keys)
        }

    def resolve(self, refs: Sequence[CardRef]) -> dict[CardRef, int]:
        """Card ids for the references that name a known card: the cards this run placed by
        their Oracle ids (``LoadState.placed``), the others from the store."""
        placed = self.state.placed
        resolved: dict[CardRef, int] = {}
        unique: set[CardRef] = set()
        for ref in set(refs):
            found = placed.get(ref.oracle_id) if ref.oracle_id and not ref.localized_name else None
            if found is None:
                unique.add(ref)
            else:
                resolved[ref] = found.card_id
        if not unique:
            return resolved
        identity = ("id", "oracle_id", "name")
        by_oracle = self.cards_where("oracle_id", {r.oracle_id for r in unique}, identity)
        unresolved_names = {r.name for r in unique if r.oracle_id not in by_oracle}
        by_name = self.cards_where("name", unresolved_names, identity)
        for ref in unique:
            row = (by_oracle.get(ref.oracle_id) if ref.oracle_id else None) or by_name.get(ref.name)
            if ref.localized_name is not None:
                card_id = self._card_by_localized_name(ref, row)
                if card_id is not None:
                    resolved[ref] = card_id
            elif row is not None:
                resolved[ref] = row["id"]
        return resolved

    def _card_by_localized_name(self, ref: CardRef, named: dict[str, Any] | None) -> int | None:
        """The card a page's title names; ``--card`` (``named``) records the title as its name."""
        assert ref.localized_name is not None
        query = select(card_names.c.card_id, card_names.c.locale).where(
            card_names.c.name == ref.localized_name
        )
        matches = {
            row.card_id
            for row in self.state.connection.execute(query)
            if ref.locale is None or row.locale == ref.locale
        }
        if not matches:  # a name an editor corrected still names its card
            matches = {
                card_id
                for (card_id, locale), name in self.state.corrections()["card_names"].items()
                if name == ref.localized_name and (ref.locale is None or locale == ref.locale)
            }
        if named is not None:
            if (
                ref.locale is not None
                and named["id"] not in matches
                and not self._keeps_official_name(named["id"], ref)
            ):
                self.names.upsert(
                    card_names,
                    "card_id",
                    {(named["id"], ref.locale): ref.localized_name},
                    counter="names",
                )
            return int(named["id"])
        if ref.name is not None:
            raise ParseError(self.state.path, f"--card: no card named {ref.name!r} in the store")
        if len(matches) == 1:
            return int(matches.pop())
        if matches:
            raise ParseError(
                self.state.path, f"{ref.localized_name!r} names {len(matches)} cards: use --card", 1
            )
        raise ParseError(self.state.path, self._unknown_name_reason(ref), 1)

    def _keeps_official_name(self, card_id: int, ref: CardRef) -> bool:
        """Whether the card's name is official, so a page's title may not replace it (see
        kb.official_names); counted and told when so."""
        assert ref.locale is not None
        if self.state.replace_names:
            return False
        kept = name_a_page_keeps(self.state.connection, card_id, ref.locale)
        if kept is None:
            return False
        self.state.summary.counts["names kept official"] += 1
        self.state.warn(
            1,
            f"kept {kept.name!r} ({ref.locale}, from {kept.source}) over the title "
            f"{ref.localized_name!r} (--replace-name replaces it)",
        )
        return True

    def _unknown_name_reason(self, ref: CardRef) -> str:
        assert ref.localized_name is not None
        names = self.state.connection.execute(select(card_names.c.name).distinct()).scalars().all()
        hint = did_you_mean(close_names(ref.localized_name, names))
        where = f" in {ref.locale}" if ref.locale else ""
        return (
            f"unknown card name {ref.localized_name!r}{where}{hint}; "
            'name its card with --card "English name"'
        )

    def locale_of_name(self, name: str, must_exist: bool = True) -> str | None:
        """The locale of a printed name, when the store knows it in exactly one.

        A name the store does not know at all is an error (with close matches) when
        ``must_exist``: no ``--card`` names the page's card.
        """
        query = select(card_names.c.locale).where(card_names.c.name == name).distinct()
        found = self.state.connection.execute(query).scalars().all()
        if not found and must_exist:
            raise ParseError(
                self.state.path, self._unknown_name_reason(CardRef(localized_name=name)), 1
            )
        return found[0] if len(found) == 1 else None


def describe(ref: CardRef) -> str:
    return ref.name or ref.oracle_id or ref.localized_name or "?"
