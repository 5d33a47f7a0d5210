"""Mechanics: upserted from the rules and catalog, added for a card's keyword, and the patterns
that tag cards and rulings with them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, update

from kb.loader.names import Names
from kb.loader.state import LoadState
from kb.loader.tables import mechanic_names, mechanics
from kb.records import MechanicRecord
from kb.tagging import RULES_VOCABULARY, MechanicMatcher, rule_pattern, slugify_mechanic


@dataclass
class KnownMechanic:
    id: int
    slug: str
    kind: str
    rule: str | None
    pattern: str | None
    rule_text: str | None


class Mechanics:
    """The store's mechanics, read once per import and kept in step with what it writes."""

    def __init__(self, state: LoadState, names: Names) -> None:
        self.state = state
        self.names = names
        self._known = {
            row.slug: KnownMechanic(
                row.id, row.slug, row.kind, row.rule, row.pattern, row.rule_text
            )
            for row in state.connection.execute(select(mechanics))
        }

    def upsert(self, record: MechanicRecord) -> None:
        known = self._known.get(record.slug)
        wanted: dict[str, Any] = {
            "kind": record.kind,
            "rule": record.rule,
            "pattern": record.pattern,
            "rule_text": record.rule_text,
        }
        if known is None:
            new_id = self.state.connection.execute(
                insert(mechanics).values(slug=record.slug, **wanted).returning(mechanics.c.id)
            ).scalar_one()
            known = self._known[record.slug] = KnownMechanic(new_id, record.slug, **wanted)
            self.state.summary.counts["mechanics new"] += 1
            self.state.retag_everything = True
        else:
            # A mechanic of the rules' vocabulary tags by no word, even where an older kb
            # stored a pattern for it: None is its pattern, not a pattern unknown.
            authoritative = {"pattern"} if record.slug in RULES_VOCABULARY else set()
            changes = {
                key: value
                for key, value in wanted.items()
                if (value is not None or key in authoritative) and getattr(known, key) != value
            }
            if changes:
                self.state.connection.execute(
                    update(mechanics).where(mechanics.c.id == known.id).values(**changes)
                )
                for key, value in changes.items():
                    setattr(known, key, value)
                self.state.summary.counts["mechanics updated"] += 1
                # The rule's text tags nothing: a new one leaves the tags as they are.
                self.state.retag_everything |= bool(changes.keys() - {"rule_text"})
        self.names.upsert(
            mechanic_names,
            "mechanic_id",
            {(known.id, locale): name for locale, name in record.names.items()},
            counter="mechanics updated",
        )

    def for_keyword(self, keyword: str) -> KnownMechanic:
        slug = slugify_mechanic(keyword)
        if slug not in self._known:
            self.upsert(
                MechanicRecord(
                    slug=slug,
                    kind="keyword",
                    names={"en": keyword},
                    pattern=rule_pattern("keyword", keyword),
                )
            )
        return self._known[slug]

    def matcher(self, names: Iterable[str] = ()) -> MechanicMatcher:
        """Tags rulings; ``names`` are the cards' names, which name no mechanic."""
        return MechanicMatcher(((m.id, m.pattern) for m in self._known.values()), names)

    def term_matcher(self) -> MechanicMatcher:
        """Patterns that tag cards by their Oracle text: terms such as outlaw. Keyword
        mechanics tag cards from the cards' keywords instead."""
        return MechanicMatcher(
            (m.id, m.pattern) for m in self._known.values() if not m.kind.startswith("keyword")
        )
