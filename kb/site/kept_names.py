"""Each locale's A–Z names, as a build that keeps running (``kb build --watch``) keeps them.

Why: a locale's A–Z pages are fingerprinted by every card's name in that locale. A card renamed
in one locale changes the digest of every card's names (the families' shortcut), and each
locale's fingerprint was then taken again by reading its 23,000 names: on the real corpus, 11
reads that took 0.8 s of the 1.2 s between a German rename and its pages (3.6 % of a full
build; the target is 2 %). The watcher keeps, for each locale, the fingerprint it took with a
term per card (the hash of the card as the locale's A–Z list holds it). After an edit, only the
cards the change log names are read, in every locale at once; a locale whose terms for them
are unchanged keeps its fingerprint, and only the others' names are read whole. The same terms
tell which locales' mechanic pages list a renamed card under another name (kb.site.other_pages).

A record is of the index's cards it was read with (its positions): a build that reads another
index (cards added, removed or renamed in English) reads every locale again. Records are
adopted when a build finishes: a build that fails leaves the last finished one's."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kb.locales import Locale
from kb.site.views import CardEntry, LocalizedCard, SiteIndex

ReadChanged = Callable[[Sequence[CardEntry]], dict[str, list[LocalizedCard]]]
"""Reads these cards in every locale built (kb.site.data.localized_cards)."""


@dataclass(frozen=True)
class _Record:
    fingerprint: str
    """The locale's A–Z fingerprint, taken from the names whose terms follow."""
    terms: array[int]
    """hash() of each card's LocalizedCard in the locale, by position in ``cards``: in-process
    only (strings' hashes differ from one process to the next), as the records are."""
    cards: list[CardEntry]
    """The index's cards (the object itself) the positions are of."""


@dataclass
class KeptNames:
    """The locales' A–Z fingerprints and terms as of the last finished build (see the module)."""

    _kept: dict[str, _Record] = field(default_factory=dict)
    _building: dict[str, _Record] = field(default_factory=dict)
    """This build's records: taken, or found unchanged."""
    _index: SiteIndex | None = None
    _changed: set[int] | None = None
    _locales: frozenset[str] = frozenset()
    _read: dict[str, list[LocalizedCard]] | None = None
    """The changed cards in every locale built, once read."""
    _renamed_in: dict[str, set[int]] = field(default_factory=dict)

    def begin(self, index: SiteIndex, changed: set[int] | None, locales: Sequence[Locale]) -> None:
        """A build of ``index``'s cards in ``locales`` starts; ``changed``: the cards the change
        log names since the last finished build (None: unknown, so no record is trusted)."""
        self._building = {}
        self._index, self._changed = index, changed
        self._locales = frozenset(locale.code for locale in locales)
        self._read, self._renamed_in = None, {}

    def missing(self, locale: Locale) -> bool:
        """Whether no record of the locale is kept for this build's cards: its fingerprint is
        then taken even if no name changed (a watcher's first build finds nothing to do; its
        first rename would read every locale's names)."""
        record = self._kept.get(locale.code)
        return record is None or not self._of_this_index(record)

    def _of_this_index(self, record: _Record) -> bool:
        """Whether the record's positions are those of this build's cards."""
        return self._index is not None and record.cards is self._index.cards

    def unchanged(self, locale: Locale, read: ReadChanged) -> str | None:
        """The locale's kept fingerprint if none of the changed cards changed in it (then kept
        for this build too); None if one did, or nothing is kept."""
        renamed = self._renamed(locale, read)
        if renamed is None or renamed:
            return None
        record = self._building[locale.code] = self._kept[locale.code]
        return record.fingerprint

    def none_renamed(self, locale: Locale, card_ids: Iterable[int], read: ReadChanged) -> bool:
        """Whether none of these cards changed in the locale since the last finished build
        (False if that is not known): a page that lists them in the locale alone, and whose
        other input is the same, is still as that build left it."""
        renamed = self._renamed(locale, read)
        return renamed is not None and renamed.isdisjoint(card_ids)

    def _renamed(self, locale: Locale, read: ReadChanged) -> set[int] | None:
        """The changed cards whose entry in the locale is not the kept one (None: unknown)."""
        if self.missing(locale) or self._changed is None:  # any card may have changed
            return None
        found = self._renamed_in.get(locale.code)
        if found is None:
            index, terms = self._index, self._kept[locale.code].terms
            assert index is not None
            changed = sorted((index.positions[card], card) for card in self._changed)
            if self._read is None:  # every locale's at once
                self._read = read([index.cards[position] for position, _card in changed])
            now = self._read[locale.code]
            found = self._renamed_in[locale.code] = {
                card
                for (position, card), entry in zip(changed, now, strict=True)
                if terms[position] != hash(entry)
            }
        return found

    def taken(self, locale: Locale, fingerprint: str, cards: list[LocalizedCard]) -> None:
        """The locale's fingerprint was taken from ``cards`` (its whole list, in the index's
        order)."""
        assert self._index is not None
        terms = array("q", map(hash, cards))
        self._building[locale.code] = _Record(fingerprint, terms, self._index.cards)

    def finished(self) -> None:
        """The build finished: its records are kept, and those of the locales it built whose
        fingerprint it did not need (no name changed) stay kept."""
        kept = {
            code: record
            for code, record in self._kept.items()
            if code in self._locales and self._of_this_index(record)
        }
        kept.update(self._building)
        self._kept, self._building, self._index = kept, {}, None
        self._read, self._renamed_in = None, {}
