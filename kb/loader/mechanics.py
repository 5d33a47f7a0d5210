"""Mechanics: upserted from the rules and catalog, added for a card's keyword, and the patterns
that tag cards and rulings with them (their names mined from the printed texts:
``kb.loader.mined_names``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import insert, select, update

from kb.loader.names import Names
from kb.loader.state import LoadState
from kb.loader.tables import (
    cards,
    mechanic_names,
    mechanics,
)
from kb.records import MechanicRecord
from kb.tagging import RULES_VOCABULARY, MechanicMatcher, card_keyword, slugify_mechanic

SOURCE: Final = "source"
MINED: Final = "mined"
EDITOR: Final = "editor"
LISTED: Final = "listed"
"""A card tag's origin: a source lists the keyword on the card, or an editor tagged it."""
IN_TEXT: Final = "text"
"""A card tag's origin: kb read the mechanic in the card's Oracle text (``text_matcher``)."""
EVIDENCE: Final = ("cards", "voters", "method", "runner_up", "runner_up_cards")
"""The columns of a mined name's votes (mechanic_names, type_names)."""
_TEMPLATE: Final = re.compile(r'"\[type\]([a-z]+)', re.IGNORECASE)
"""A rule's template for keywords named by a type: '"[type]walk,"', '"[Type]cycling [cost]"'."""


def counted(kind: str, origin: str) -> bool:
    """Whether a card's tag, of a mechanic of this kind, votes in mining and makes a ruling
    general: all but a keyword action's read in a text, so that reading the texts changes no
    name and no ruling's tag. An action's cards count as the sources list them."""
    return origin == LISTED or kind != "keyword_action"


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
        self._text_matcher: MechanicMatcher | None = None
        """Shared by every batch of cards, until a mechanic is added or changed."""

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
            self._text_matcher = None
            if reads_texts(known.kind) and known.pattern:
                self._card_texts_changed()
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
                read_texts = reads_texts(known.kind)
                for key, value in changes.items():
                    setattr(known, key, value)
                self._text_matcher = None
                if changes.keys() & {"kind", "pattern"} and (read_texts or reads_texts(known.kind)):
                    self._card_texts_changed()
                self.state.summary.counts["mechanics updated"] += 1
                # The rule's text tags nothing: a new one leaves the tags as they are.
                self.state.retag_everything |= bool(changes.keys() - {"rule_text"})
        named = {(known.id, locale): name for locale, name in record.names.items()}
        origins: dict[str, str] = {
            locale: origin
            for locale, origin in self.state.connection.execute(
                select(mechanic_names.c.locale, mechanic_names.c.origin).where(
                    mechanic_names.c.mechanic_id == known.id
                )
            )
        }
        # An editor's name stays; a source's name replaces a mined one, and is the source's.
        named = {key: name for key, name in named.items() if origins.get(key[1]) != EDITOR}
        self.names.upsert(mechanic_names, "mechanic_id", named, counter="mechanics updated")
        mined = [locale for _, locale in named if origins.get(locale) == MINED]
        if mined:
            self.state.connection.execute(
                update(mechanic_names)
                .where(mechanic_names.c.mechanic_id == known.id, mechanic_names.c.locale.in_(mined))
                .values(origin=SOURCE, **dict.fromkeys(EVIDENCE))
            )

    def rules_by_template(self) -> None:
        """Give each card keyword that the rules define only by a template its template's rule:
        Islandwalk and Nonbasic landwalk that of Landwalk ("702.14a ... '[type]walk'"),
        Swampcycling and Basic landcycling that of Typecycling ("702.29e ... '[Type]cycling'").
        Whichever came first, the rules or the cards, and as the latest rules say, so it runs
        at each import's end (the store holds a few hundred mechanics); derived, so not
        counted as an update."""
        templates = {  # the rule's own mechanic: its subject ("702.14a Landwalk is"), not a copy
            found.group(1).lower(): known
            for known in self._known.values()
            if known.rule_text
            and (found := _TEMPLATE.search(known.rule_text))
            and slugify_mechanic(known.rule_text.partition(" ")[2].partition(" ")[0]) == known.slug
        }
        for known in self._known.values():
            suffix = next((end for end in templates if known.slug.endswith(end)), None)
            if known.kind != "keyword" or suffix is None:
                continue
            template = templates[suffix]
            if known is template or (known.rule, known.rule_text) == (
                template.rule,
                template.rule_text,
            ):
                continue  # the template's own, or as a new edition of the rules left it
            self.state.connection.execute(
                update(mechanics)
                .where(mechanics.c.id == known.id)
                .values(rule=template.rule, rule_text=template.rule_text)
            )
            known.rule, known.rule_text = template.rule, template.rule_text

    def for_keyword(self, keyword: str) -> KnownMechanic:
        slug = slugify_mechanic(keyword)
        if slug not in self._known:
            self.upsert(card_keyword(keyword))
        return self._known[slug]

    def matcher(self, names: Iterable[str] = ()) -> MechanicMatcher:
        """Tags rulings; ``names`` are the cards' names, which name no mechanic."""
        return MechanicMatcher(((m.id, m.pattern) for m in self._known.values()), names)

    def kinds(self) -> dict[int, str]:
        """Each mechanic's kind, by id."""
        return {m.id: m.kind for m in self._known.values()}

    def text_matcher(self) -> MechanicMatcher:
        """Patterns that tag cards by their Oracle text: terms such as outlaw, and keyword
        actions in the rule's sense ("counter target spell", not "+1/+1 counter"), which sources
        list on few cards (MTGJSON lists Scry) or none (Counter). Keyword abilities tag cards
        from the cards' keywords alone: a text names them in other cards' abilities too
        ("creatures with flying")."""
        if self._text_matcher is None:
            self._text_matcher = MechanicMatcher(
                (m.id, m.pattern) for m in self._known.values() if reads_texts(m.kind)
            )
        return self._text_matcher

    def _card_texts_changed(self) -> None:
        """The text matcher changed: the cards stored so far, if any, were read without it."""
        if not self.state.card_texts_stale:
            any_card = self.state.connection.execute(select(cards.c.id).limit(1)).first()
            self.state.card_texts_stale = any_card is not None


def reads_texts(kind: str) -> bool:
    """Whether a mechanic of this kind tags cards by their Oracle text (``text_matcher``)."""
    return kind == "keyword_action" or not kind.startswith("keyword")
