"""A locale's cards A–Z as pages a phone can open: each section of the locale's index (its
letters, kana rows, radicals, stroke counts) a page of its own, a large one split where the
names' first letters change ("Sa–Se", "Sf–Sp"), and the list of them on the A–Z page. Pure:
the locale's sorted cards in, sections out; the order is the locale's, never changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from kb.locales import Locale
from kb.site.collation import label, primary_key
from kb.site.forms import Items
from kb.site.views import LetterView, LocalizedCard, SectionLink

FOLDER = "a-z"
"""The sections' folder in a locale's folder: its own, so no card's file name can be one."""
SHARE = 10
"""A section holds at most a tenth of the locale's cards..."""
MAX_SECTION = 1_000
"""... and at most this many (a page of about 90 KB: a tenth of 30,000 cards would be 250 KB)."""
MIN_SECTION = 50
"""A section of this many cards or fewer is never split (a tenth of a small site's cards would
make a page of every card)."""
MAX_DEPTH = 12
"""Letters compared at most; a run of names alike that far is cut by count."""


class Section(NamedTuple):
    """One page of the A–Z: its cards, in the locale's order."""

    letter: str
    """The index section's label ("S", "あ", "水", "8劃")."""
    split: bool
    """Whether the index section is cut into several pages."""
    link: SectionLink
    cards: list[LocalizedCard]


def limit(total: int) -> int:
    """The most cards a section of a locale of ``total`` cards may hold."""
    return max(MIN_SECTION, min(MAX_SECTION, total // SHARE))


def section_path(locale: Locale, section: int, part: int | None) -> str:
    """``de/a-z/19.html``, or ``de/a-z/19-2.html`` for the second part of a split section: the
    index section's number (stable for a locale and ICU version) and digits only."""
    name = str(section) if part is None else f"{section}-{part}"
    return f"{locale.folder}/{FOLDER}/{name}.html"


def sections(
    cards: Sequence[LocalizedCard], numbers: Sequence[int], locale: Locale
) -> list[Section]:
    """The A–Z pages of these cards, sorted and sectioned as collation.sectioned gives them
    (``numbers``: each card's index section)."""
    most = limit(len(cards))
    key = primary_key(locale.code)
    found: list[Section] = []
    start = 0
    while start < len(cards):
        number = numbers[start]
        end = start
        while end < len(numbers) and numbers[end] == number:
            end += 1
        letter = label(number, locale.code)
        run = cards[start:end]
        if len(run) <= most:
            link = SectionLink(letter, section_path(locale, number, None))
            found.append(Section(letter, False, link, list(run)))
        else:
            names = [card.local or card.name for card in run]
            for part, (first, last, shown) in enumerate(_split(names, most, key), start=1):
                link = SectionLink(shown, section_path(locale, number, part))
                found.append(Section(letter, True, link, list(run[first:last])))
        start = end
    return found


def letters(found: Sequence[Section]) -> list[LetterView]:
    """The A–Z page's list: each index section with its pages."""
    grouped: list[LetterView] = []
    links: list[SectionLink] = []
    for number, section in enumerate(found):
        links.append(section.link)
        if number + 1 == len(found) or found[number + 1].letter != section.letter:
            grouped.append(LetterView(section.letter, section.split, Items(links)))
            links = []
    return grouped


def contexts(found: Sequence[Section]) -> list[dict[str, Any]]:
    """What each section's page receives (render.SectionContext), in order."""
    last = len(found) - 1
    return [
        {
            "letter": section.letter,
            "split": section.split,
            "section": section.link,
            "cards": Items(section.cards),
            "count": len(section.cards),
            "previous": found[number - 1].link if number else None,
            "following": found[number + 1].link if number < last else None,
        }
        for number, section in enumerate(found)
    ]


Run = tuple[int, int, str, str]
"""Names [start, end) and the prefixes shown for its first and last."""


def _split(names: list[str], most: int, key: Callable[[str], bytes]) -> list[tuple[int, int, str]]:
    """Cut a section's names into parts of at most ``most`` names each, where the first letters
    change, and about as large as each other: (start, end, label) per part."""
    runs = _runs(names, 0, len(names), 1, most, key)
    parts = -(-len(names) // most)
    target = -(-len(names) // parts)
    packed: list[Run] = []
    for run in runs:
        if packed:
            first, end, shown, _last = packed[-1]
            size = end - first
            if size < target and size + run[1] - run[0] <= most:
                packed[-1] = (first, run[1], shown, run[3])
                continue
        packed.append(run)
    return [
        (first, end, shown if shown == last else f"{shown}–{last}")
        for first, end, shown, last in packed
    ]


def _runs(
    names: list[str], start: int, end: int, depth: int, most: int, key: Callable[[str], bytes]
) -> list[Run]:
    """The names [start, end) as runs that begin alike in their first ``depth`` letters (at
    the primary level: "Sä" with "Sa"), a run of more than ``most`` cut further: an alphabet's
    section ("S") at its second letter, a kana row, a radical or a stroke count at its names'
    first character, then at the next."""
    runs: list[Run] = []
    first = start
    while first < end:
        prefix = key(names[first][:depth])
        after = first + 1
        while after < end and key(names[after][:depth]) == prefix:
            after += 1
        shown = _shown(names[first][:depth])
        if after - first <= most:
            runs.append((first, after, shown, shown))
        elif depth < MAX_DEPTH:
            runs += _runs(names, first, after, depth + 1, most, key)
        else:
            runs += [
                (cut, min(cut + most, after), shown, shown) for cut in range(first, after, most)
            ]
        first = after
    return runs


_KATAKANA = {code: code - 0x60 for code in range(0x30A1, 0x30F7)}
"""Katakana to hiragana: the index's kana rows are labelled in hiragana."""


def _shown(prefix: str) -> str:
    """A prefix as a label shows it: "sch" → "Sch", "ア" → "あ"."""
    prefix = prefix.rstrip(" -,.'’:").translate(_KATAKANA) or prefix
    upper = prefix[:1].upper()
    return (upper if len(upper) == 1 else prefix[:1]) + prefix[1:].lower()
