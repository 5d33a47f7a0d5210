"""Keyword abilities, mined by aligning lines: where a printing's English line starts with one
of the card's keywords, the localized line of the same printing starts with its name.

"Flying, vigilance" is a list (each part a keyword, the localized parts in the same order);
reminder text in parentheses is left out; what follows the name ("Cycling {2}", "Bushido 1",
"Ward—Pay 3 life") is cut at the cost, the number or the dash. A keyword with an object
("Enchant creature", "Protection from red") is named by what its cards' localized lines share
across different objects: the words before the object, or after it where the language puts the
object first (Korean "생물 부여").
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from kb.mining.samples import Sample
from kb.mining.text import (
    CJK_LOCALES,
    display_form,
    is_hiragana,
    joined,
    list_parts,
    name_part,
    tokens,
    without_reminder,
)
from kb.mining.votes import Ballots, MinedName

OBJECT_SUPPORT: Final = 0.5
"""The share of a keyword's different objects whose lines a name with an object must start
(or end) with: "Verzaubert" stands before every object, "Verzaubert eine Kreatur" before one."""


_GLUED: Final = re.compile(r"(?<=[)）])(?=[^\s)）.,、。])")
"""Where a translation lost a line break: reminder text glued to the next line's start."""
MAX_OBJECT_WORDS: Final = 6
"""The most words an object has: "creature or planeswalker an opponent controls"."""


_PREPOSITIONS: Final = frozenset({"from", "for", "onto", "with", "to", "of", "a", "an"})
FUNCTION_WORDS: Final = {
    "de": frozenset(
        {"vor", "für", "von", "zu", "auf", "gegen", "mit", "ein", "eine", "einen", "einer"}
    ),
    "fr": frozenset(
        {
            "de",
            "d'un",
            "d'une",
            "du",
            "des",
            "un",
            "une",
            "le",
            "la",
            "les",
            "l'",
            "contre",
            "pour",
            "avec",
            "sur",
            "à",
            "au",
            "aux",
        }
    ),
    "it": frozenset(
        {
            "da",
            "di",
            "per",
            "con",
            "un",
            "una",
            "uno",
            "il",
            "la",
            "le",
            "i",
            "gli",
            "dal",
            "dalla",
            "dai",
            "dalle",
            "su",
            "a",
        }
    ),
    "es": frozenset(
        {
            "de",
            "del",
            "contra",
            "por",
            "para",
            "con",
            "un",
            "una",
            "el",
            "la",
            "los",
            "las",
            "a",
            "al",
            "sobre",
        }
    ),
    "pt-BR": frozenset(
        {
            "de",
            "do",
            "da",
            "dos",
            "das",
            "contra",
            "por",
            "para",
            "com",
            "um",
            "uma",
            "o",
            "a",
            "os",
            "as",
            "em",
            "sobre",
        }
    ),
    "ru": frozenset({"от", "с", "к", "на", "для"}),
    "ko": frozenset(),
}
"""Words that end a keyword's localized run when they begin its object: "Schutz vor" Rot."""
ARTICLES: Final = {
    "de": frozenset({"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einer"}),
    "fr": frozenset({"le", "la", "les", "l'", "un", "une", "des"}),
    "it": frozenset({"il", "lo", "la", "le", "i", "gli", "un", "una", "uno"}),
    "es": frozenset({"el", "la", "los", "las", "un", "una"}),
    "pt-BR": frozenset({"o", "a", "os", "as", "um", "uma"}),
}
"""Articles, which never end a keyword's name: they belong to its object."""


@dataclass(frozen=True, slots=True)
class _Object:
    card: str
    localized: tuple[str, ...]
    english_object: str
    released: str


class KeywordLines:
    """Collects the aligned lines of samples, then tallies a name per keyword and locale."""

    def __init__(self) -> None:
        self.plain = Ballots()
        self._english: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, str], ...]] = {}
        self._objects: dict[tuple[str, str], dict[str, _Object]] = defaultdict(dict)

    def add(self, sample: Sample) -> None:
        if not sample.keywords or not sample.english or not sample.localized:
            return
        keywords = tuple(sorted(sample.keywords, key=lambda keyword: (-len(keyword), keyword)))
        localized_lines = sample.localized
        if len(localized_lines) != len(sample.english):
            localized_lines = tuple(
                line for text in localized_lines for line in _GLUED.split(text) if line
            )
        # Where the lines differ in number (a translation whose line breaks were lost), only
        # the first lines are known to match.
        count = len(sample.english) if len(localized_lines) == len(sample.english) else 1
        for english, localized in zip(sample.english[:count], localized_lines[:count], strict=True):
            key = (english, keywords)
            # A card's English lines come once per locale: read them once.
            if key not in self._english:
                self._english[key] = _english_parts(english, keywords)
            parts = self._english[key]
            if parts:
                self._add_line(sample, parts, without_reminder(localized))

    def _add_line(self, sample: Sample, parts: tuple[tuple[str, str], ...], localized: str) -> None:
        if len(parts) > 1:
            localized_parts = list_parts(localized)
            if len(localized_parts) != len(parts):
                return
        else:
            localized_parts = [localized]
        for (keyword, english_object), localized_part in zip(parts, localized_parts, strict=True):
            name = name_part(localized_part)
            if not english_object:
                self.plain.cast(keyword, sample.locale, sample.card, name, sample.released)
            elif name and _is_object(english_object):
                votes = self._objects[(keyword, sample.locale)]
                if sample.card not in votes:
                    votes[sample.card] = _Object(
                        sample.card,
                        tokens(name, sample.locale),
                        english_object.casefold(),
                        sample.released,
                    )

    def results(self, minimum: int = 1) -> list[MinedName]:
        """A name per keyword and locale: the plain lines' vote where most of the keyword's
        lines are plain, else the name its lines with an object share."""
        mined = {(name.mechanic, name.locale): name for name in self.plain.results("line")}
        for key, objects in self._objects.items():
            plain = mined.get(key)
            if plain is not None and plain.voters >= len(objects) / 2:
                continue
            name = _shared_name(key[0], key[1], list(objects.values()))
            if name is not None:
                mined[key] = name
        return sorted(
            (name for name in mined.values() if name.voters >= minimum),
            key=lambda name: (name.mechanic, name.locale),
        )


def _english_parts(line: str, keywords: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The keywords an English line names, each with its object ("" for none): one for a line
    that starts with a keyword, one a part for a list of them; none for any other line."""
    if not line.casefold().startswith(tuple(keyword.casefold() for keyword in keywords)):
        return ()
    english = without_reminder(line)
    parts = list_parts(english)
    matched = [_starting_keyword(part, keywords) for part in parts]
    if len(parts) > 1 and all(matched):
        pairs = list(zip(matched, parts, strict=True))
    else:
        keyword = _starting_keyword(english, keywords)
        if keyword is None:
            return ()
        pairs = [(keyword, english)]
    return tuple((keyword, name_part(part[len(keyword) :])) for keyword, part in pairs if keyword)


def _is_object(english: str) -> bool:
    """An object ("creature", "from red", "a Kithkin"), not a sentence: an ability word whose
    dash the printing's English lost ("Kinship At the beginning of your upkeep, ...")."""
    return len(english.split()) <= MAX_OBJECT_WORDS and "." not in english


def _starting_keyword(line: str, keywords: Iterable[str]) -> str | None:
    """The longest of the keywords the line starts with, as a whole word."""
    folded = line.casefold()
    for keyword in keywords:
        if folded.startswith(keyword.casefold()):
            following = line[len(keyword) : len(keyword) + 1]
            if not following.isalpha():
                return keyword
    return None


def _shared_name(keyword: str, locale: str, objects: list[_Object]) -> MinedName | None:
    """The longest run of words at the start (or end) of the lines that stands before (after)
    more than ``OBJECT_SUPPORT`` of the English objects; the run most cards share wins."""
    all_objects = {entry.english_object for entry in objects}
    candidates: dict[tuple[str, tuple[str, ...]], set[str]] = defaultdict(set)
    for entry in objects:
        words = tuple(word.casefold() for word in entry.localized)
        # The whole line too: a language may set the object apart (Japanese "エンチャント
        # （クリーチャー）" leaves no object once the parentheses go).
        for length in range(1, len(words) + 1):
            candidates[("prefix", words[:length])].add(entry.english_object)
            candidates[("suffix", words[-length:])].add(entry.english_object)
    supported = [
        candidate
        for candidate, english in candidates.items()
        if len(english) >= 2 and len(english) > OBJECT_SUPPORT * len(all_objects)
    ]
    if not supported:
        return None

    def cards_of(candidate: tuple[str, tuple[str, ...]]) -> list[_Object]:
        side, words = candidate
        return [
            entry
            for entry in objects
            if (
                tuple(word.casefold() for word in entry.localized[: len(words)])
                if side == "prefix"
                else tuple(word.casefold() for word in entry.localized[-len(words) :])
            )
            == words
        ]

    # The longest run (the whole name, not its first word), then the one most cards share.
    best = max(
        supported,
        key=lambda candidate: (
            len(candidate[1]),
            len(cards_of(candidate)),
            candidate[0] == "prefix",
            candidate[1],
        ),
    )
    voters = cards_of(best)
    side, words = best
    first_words = [entry.english_object.split()[0] for entry in objects]
    if side == "prefix" and locale not in CJK_LOCALES:
        # "Protection from red": the object's first word ("from", "for", "a") is in the
        # localized run ("Schutz vor", "Appui d'un"), not in the keyword's name ("Schutz").
        # An article before the object never is ("Défense talismanique contre le" blanc).
        prepositions = sum(word in _PREPOSITIONS for word in first_words)
        dropped = (
            FUNCTION_WORDS.get(locale, frozenset())
            if prepositions >= 0.8 * len(first_words)
            else ARTICLES.get(locale, frozenset())
        )
        kept = words
        while len(kept) > 1 and kept[-1] in dropped:
            kept = kept[:-1]
        if kept != words:
            words = kept
            voters = cards_of((side, words))
    elif side == "suffix" and locale == "ja":
        # "白からの呪禁", "Xとの共闘": the particles after the object are not the name.
        kept = words
        while len(kept) > 1 and is_hiragana(kept[0][:1]):
            kept = kept[1:]
        if kept != words:
            words = kept
            voters = cards_of((side, words))
    forms = [
        joined(
            entry.localized[: len(words)] if side == "prefix" else entry.localized[-len(words) :],
            locale,
        )
        for entry in voters
    ]
    return MinedName(
        mechanic=keyword,
        locale=locale,
        name=display_form(forms),
        cards=len(voters),
        voters=len(objects),
        method="line",
        examples=tuple(sorted(entry.card for entry in voters)[:3]),
    )
