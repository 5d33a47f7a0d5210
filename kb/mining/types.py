"""Card types and subtypes, mined from type lines aligned with the English ones.

"Creature — Human Wizard" and "Kreatur — Mensch, Zauberer": the parts before and after the dash
align. A card with one English type votes for its whole localized left part ("Kreatur"); a card
with one subtype for its whole right part (unless it is a list), one with several for each word
where the counts match (German and Russian list subtypes with spaces or commas, Japanese with
"・", Chinese with "／", French joins the last two with "et"). A supertype ("Legendary") is what
remains of the left part once the type's mined name is taken off either end (Japanese "伝説の"
before "クリーチャー").
"""

from __future__ import annotations

import functools
import re
from typing import Final

from kb.mining.samples import Sample
from kb.mining.votes import Ballots, MinedName

TYPES: Final = frozenset(
    {
        "Artifact",
        "Battle",
        "Conspiracy",
        "Creature",
        "Dungeon",
        "Enchantment",
        "Instant",
        "Land",
        "Phenomenon",
        "Plane",
        "Planeswalker",
        "Scheme",
        "Sorcery",
        "Tribal",
        "Vanguard",
    }
)
SUPERTYPES: Final = frozenset({"Basic", "Legendary", "Ongoing", "Snow", "World", "Host"})
_DASH: Final = re.compile(r"\s*[—–―－~～:：]\s*|\s+-\s+")
_SUBTYPE_SEPARATOR: Final = re.compile(r"\s*[,，、・／/]\s*|\s+(?:et|e|y|и)\s+|\s+")
_LISTED: Final = re.compile(r"[,，、・／/]")
"""What separates subtypes in a list and never stands inside one subtype's name (as a space
may)."""


@functools.lru_cache(maxsize=1 << 16)
def _halves(type_line: str) -> tuple[str, str]:
    """Types and subtypes: a few thousand type lines stand on 166,000 samples."""
    parts = _DASH.split(type_line.strip(), maxsplit=1)
    return parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")


@functools.lru_cache(maxsize=1 << 16)
def _subtypes(localized: str) -> list[str]:
    return [part for part in _SUBTYPE_SEPARATOR.split(localized) if part]


def _aligned(
    subtypes: list[str], localized: list[str], locale: str, known: dict[tuple[str, str], str]
) -> list[tuple[str, str]]:
    """Subtypes paired with the localized words by the names the single subtypes gave
    (Spanish and Italian put them in another order: "Human Wizard", "Hechicero humano"); the
    one subtype left over takes the one word left over; in order where none is known. A name
    of two words that a single subtype gave stands for its two words (Russian "Зомби Летучая
    мышь"); words left over otherwise align nothing."""
    words = _known_words_joined(localized, subtypes, locale, known)
    if len(words) != len(subtypes):
        return []
    left = list(words)
    pairs, unknown = [], []
    for subtype in subtypes:
        name = known.get((subtype, locale))
        match = next((word for word in left if name is not None and word.casefold() == name), None)
        if match is None:
            unknown.append(subtype)
        else:
            left.remove(match)
            pairs.append((subtype, match))
    if not pairs:
        return list(zip(subtypes, words, strict=True))
    if len(unknown) == 1:
        pairs.append((unknown[0], left[0]))
    return pairs


def _known_words_joined(
    localized: list[str], subtypes: list[str], locale: str, known: dict[tuple[str, str], str]
) -> list[str]:
    """The localized words, a known name of several words joined into one where there are more
    words than subtypes ("Зомби", "Летучая мышь")."""
    if len(localized) == len(subtypes):
        return list(localized)
    words = list(localized)
    for subtype in subtypes:
        name = known.get((subtype, locale))
        size = 0 if name is None else name.count(" ") + 1
        if size < 2:
            continue
        for start in range(len(words) - size + 1):
            if " ".join(words[start : start + size]).casefold() == name:
                words[start : start + size] = [" ".join(words[start : start + size])]
                break
    return words


_ReadPair = tuple[
    list[tuple[str, str]], tuple[str, str, str] | None, tuple[list[str], list[str]] | None
]
"""What a pair of type lines (English, localized) votes for: the names cast at once, in
order, as (type, localized form); the supertyped line's (localized left half, supertype,
type); the several subtypes' (English, localized), aligned later."""


def _read_pair(english_type: str, localized_type: str) -> _ReadPair:
    if "//" in english_type or "//" in localized_type:
        return [], None, None
    english_left, english_right = _halves(english_type)
    localized_left, localized_right = _halves(localized_type)
    if bool(english_right) != bool(localized_right):
        return [], None, None
    casts: list[tuple[str, str]] = []
    supertyped = several = None
    words = english_left.split()
    if len(words) == 1 and words[0] in TYPES:
        casts.append((words[0], localized_left))
    elif len(words) == 2 and words[0] in SUPERTYPES and words[1] in TYPES:
        supertyped = (localized_left, words[0], words[1])
    if english_right:
        subtypes = english_right.split()
        localized = _subtypes(localized_right)
        if len(subtypes) == 1:
            # A list names no one subtype: MTGJSON gives Japanese printings of old "Summon
            # Legend" cards the type line クリーチャー — 人間・兵士.
            if not _LISTED.search(localized_right):
                casts.append((subtypes[0], localized_right))
        elif len(localized) >= len(subtypes):  # more words: a name of two, say
            several = (subtypes, localized)
    return casts, supertyped, several


class TypeLines:
    """Collects aligned type lines, then tallies a name per type and locale."""

    def __init__(self) -> None:
        self.types = Ballots()
        self._supertyped: list[tuple[str, str, str, str, str, str]] = []
        """(card, locale, released, localized left half, supertype, type) of the type lines of
        a supertype and a type: what their vote needs, not the whole sample (a sample holds its
        texts, and every tenth sample is of a legendary creature or a basic land)."""
        self._several: list[tuple[str, str, str, list[str], list[str]]] = []
        """Type lines of several subtypes: aligned once the single ones are named."""
        self._read: dict[tuple[str, str], _ReadPair] = {}
        """What each pair of type lines (English, localized) votes for."""

    def add(self, sample: Sample) -> None:
        if not sample.english_type or not sample.localized_type:
            return
        # A few ten thousand pairs of type lines stand on 166,000 samples: each read once.
        pair = (sample.english_type, sample.localized_type)
        read = self._read.get(pair)
        if read is None:
            read = self._read[pair] = _read_pair(*pair)
        casts, supertyped, several = read
        card, locale, released = sample.card, sample.locale, sample.released
        for mechanic, form in casts:
            self.types.cast(mechanic, locale, card, form, released)
        if supertyped is not None:
            self._supertyped.append((card, locale, released, *supertyped))
        if several is not None:
            self._several.append((card, locale, released, *several))

    def results(self, minimum: int = 1) -> list[MinedName]:
        single = self.types.winners()
        for card, locale, released, subtypes, localized in self._several:
            for subtype, name in _aligned(subtypes, localized, locale, single):
                self.types.cast(subtype, locale, card, name, released)
        types = {(name.mechanic, name.locale): name for name in self.types.results("type")}
        supertypes = Ballots()
        for card, locale, released, left, supertype, card_type in self._supertyped:
            known = types.get((card_type, locale))
            if known is None:
                continue
            folded, name = left.casefold(), known.name.casefold()
            if folded.endswith(name):
                rest = left[: len(left) - len(name)]
            elif folded.startswith(name):
                rest = left[len(name) :]
            else:
                continue
            supertypes.cast(supertype, locale, card, rest.strip(), released)
        mined = [*types.values(), *supertypes.results("type")]
        return sorted(
            (name for name in mined if name.voters >= minimum),
            key=lambda name: (name.mechanic, name.locale),
        )
