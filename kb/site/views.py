"""The views of what the site shows: plain dataclasses and named tuples with slots, which
kb.site.data fills from the store and the templates receive (see kb.site.stencils for what a
template may do with them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, NamedTuple

from kb.locales import LATIN_SCRIPT, in_latin_letters
from kb.site.card_texts import FaceView, PrintedView
from kb.site.forms import Items


@dataclass(frozen=True, slots=True)
class Tag:
    """A mechanic as a ruling's tag shows it."""

    NOT_SHOWN: ClassVar[tuple[str, ...]] = ("key",)
    key: str
    """The store's slug."""
    slug: str
    """The mechanic page's file name."""
    name: str
    names: dict[str, str]


@dataclass(frozen=True, slots=True)
class RulingView:
    id: int
    text: str
    published_on: dt.date | None
    tags: tuple[Tag, ...]
    """The mechanics the ruling is tagged with, by the store's slug."""
    translations: dict[str, str]
    """Reviewed community translations by locale code."""


def shown_name(locale: str, name: str | None, english: str) -> str | None:
    """A card's name in ``locale`` as its pages show it: none where it is the English name in a
    locale written in another script, a gap in the source (MTGJSON gives 153 Simplified
    Chinese names of Portal Three Kingdoms, a set printed in Chinese, in English). The pages
    then show the English name marked as English, which a screen reader says in English. In a
    locale written in Latin letters such a name is often the locale's own word or a proper
    name (German "Opposition", "Liliana Vess"): it stays. So does a name in Latin letters
    that is not the English one, except in those other scripts, where it is an older English
    spelling ("Æther Barrier" in Japanese) or other quotation marks (Chinese "Pang Tong,
    “Young Phoenix”")."""
    if locale in LATIN_SCRIPT or name is None:
        return name
    return None if name == english or in_latin_letters(name) else name


@dataclass(slots=True)
class Named:
    """Something with an English name and localized names."""

    SHOWN_PROPERTIES: ClassVar[tuple[str, ...]] = ("renamed",)
    name: str
    names: dict[str, str]

    @property
    def renamed(self) -> dict[str, bool]:
        """Whether each locale's name differs from the English name (templates compare no
        strings: see kb.site.stencils)."""
        return {code: name != self.name for code, name in self.names.items()}

    def name_in(self, locale: str) -> str | None:
        """The name in ``locale``, None where it has none (the page then shows the English
        name, marked as English)."""
        return self.names.get(locale) or (self.name if locale == "en" else None)


@dataclass(slots=True)
class CardEntry(Named):
    """A card as the pages that link to it know it: names (those of the locales loaded) and
    its page's file name."""

    id: int
    slug: str


@dataclass(slots=True)
class CardView(CardEntry):
    """A card whole, as its own page shows it."""

    mana_cost: str | None = None
    type_line: str | None = None
    oracle_text: str | None = None
    """The English Oracle text, faces joined by records.FACE_TEXT_SEPARATOR."""
    faces: tuple[str, ...] = ()
    """English face names of a split, double-faced, flip, adventure or meld card, in order."""
    oracle_faces: tuple[FaceView, ...] = ()
    """The same faces with their Oracle cost, type line and text."""
    printed: dict[str, tuple[PrintedView, ...]] = field(default_factory=dict)
    """By locale (English has none: its text is the Oracle's), the printed faces in order."""
    mechanics: Items = field(default_factory=Items)
    """Tags: the card's mechanics (card_mechanics), sorted by the store's slug as a ruling's
    tags. Items, so that a page's form does not depend on how many it has."""
    rulings: Items = field(default_factory=Items)
    """RulingViews, in publication order."""


@dataclass(slots=True)
class MechanicView(Named):
    NOT_SHOWN: ClassVar[tuple[str, ...]] = ("card_ids", "general_rulings")
    id: int
    key: str
    """The store's slug (``spree``)."""
    slug: str
    """The page's file name."""
    rule: str | None
    kind: str = "term"
    """keyword_ability, keyword_action or term (mechanics.kind)."""
    rule_text: str | None = None
    """The rule that defines it, in English (mechanics.rule_text)."""
    card_ids: list[int] = field(default_factory=list)
    general_rulings: list[RulingView] = field(default_factory=list)


@dataclass
class SiteIndex:
    cards: list[CardEntry]
    """Every card, sorted by English name, without localized names."""
    mechanics: dict[str, MechanicView]
    """By the store's slug, sorted."""
    ruling_count: int
    general_cards: dict[int, frozenset[int]] = field(default_factory=dict)
    """Each general ruling's cards, by ruling id: after an edit, the general rulings on no
    changed card are kept as they are."""

    def with_mechanics(
        self,
        mechanics: dict[str, MechanicView],
        ruling_count: int,
        general_cards: dict[int, frozenset[int]],
    ) -> SiteIndex:
        """The index of the same cards with these mechanics: what is derived from the cards
        alone is kept (a large site's slugs and positions take milliseconds to make)."""
        updated = SiteIndex(self.cards, mechanics, ruling_count, general_cards)
        for derived in ("slugs", "positions"):
            if derived in self.__dict__:
                updated.__dict__[derived] = self.__dict__[derived]
        return updated

    @cached_property
    def slugs(self) -> frozenset[str]:
        """The cards' file names."""
        return frozenset(card.slug for card in self.cards)

    @cached_property
    def positions(self) -> dict[int, int]:
        """Each card's position in ``cards``, by id."""
        return {card.id: number for number, card in enumerate(self.cards)}


class LocalizedCard(NamedTuple):
    """A card as a page listing it in one locale knows it. A tuple rather than a CardEntry
    with a dict of names: a large site's list of its 30,000 cards in one locale is ~5 MB
    smaller, and the main process peaks while it renders that list's A–Z page."""

    name: str
    local: str | None
    """Its name in the list's locale, if it has one."""
    id: int
    slug: str

    def name_in(self, _locale: str) -> str | None:
        """Its name in the list's locale (the only one it knows), as Named.name_in."""
        return self.local


@dataclass(frozen=True, slots=True)
class ChangeView:
    """One change of the recent changes page and the feed: a ruling newly on cards (linked by
    an import) or a ruling's text edited (a revision)."""

    key: str
    """What makes the change one (its feed entry's id is derived from it): the ruling and
    the source that linked it, or the revision, each with its time."""
    edited: bool
    """A text edited (a revision); else a ruling newly linked to these cards."""
    at: dt.datetime
    """When, in UTC: the source's import or the revision."""
    ruling_id: int
    text: str
    """The ruling's text: now (linked) or as the edit left it (edited)."""
    old_text: str | None
    """The text before the edit."""
    published_on: dt.date | None
    """The latest date the ruling was published for these cards (linked)."""
    cards: tuple[CardEntry, ...]
    """The cards linked (linked) or the ruling stands on (edited), by English name, with
    their names in every locale."""


@dataclass(frozen=True, slots=True)
class RecentChanges:
    """What the feeds and recent changes pages show."""

    origin: str
    """The store's first import (its checksum and time), which names the feeds: "" none."""
    origin_at: dt.datetime | None
    changes: tuple[ChangeView, ...]
    """The newest first."""


class SectionLink(NamedTuple):
    """A page of the A–Z (kb.site.az) as a link shows it."""

    label: str
    """The index section's letter ("S"), or the part of it the page holds ("Sa–Se")."""
    path: str
    """From the site's root."""


class LetterView(NamedTuple):
    """An index section on the A–Z page: its letter and its pages (one, unless ``split``)."""

    letter: str
    split: bool
    sections: Items
    """SectionLinks."""
