"""Names in the order readers of each locale expect, and the letters an index groups them
under, from ICU (PyICU): the locale's collation, CLDR's tailoring of the Unicode Collation
Algorithm ("Éclair" with E; Spanish ñ after n; Simplified Chinese by pinyin, Traditional
Chinese by strokes; Japanese kana in gojūon order before kanji), and the locale's alphabetic
index (A–Z with Ñ in Spanish, А–Я, ㄱ–ㅎ, the kana rows あかさ…, pinyin letters, stroke counts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, TypeVar

import icu  # type: ignore[import-untyped]  # PyICU ships no type hints

T = TypeVar("T")

OTHER = "#"
"""The index letter of names that begin before the locale's first letter (digits, marks)."""


@cache
def _collator(locale: str) -> Any:
    return icu.Collator.createInstance(icu.Locale.forLanguageTag(locale))


@cache
def _index(locale: str) -> Any:
    """The locale's alphabetic index, with the Latin letters besides its own: pages in other
    scripts list the English names of cards that have no name in the locale."""
    index = icu.AlphabeticIndex(icu.Locale.forLanguageTag(locale))
    index.addLabels(icu.Locale.getEnglish())
    index.underflowLabel = OTHER
    return index.buildImmutableIndex()


def collated(items: Iterable[T], name: Callable[[T], str], locale: str) -> list[T]:
    """The items as the index of ``locale`` (a BCP 47 code: ``pt-BR``, ``zh-Hant``) lists
    their names: section by section (letter), in the locale's order within a section; items
    of equal names in their given order. (The order alone would not keep a section together:
    Chinese collation puts every Han character before the Latin letters, and the index lists
    a Latin name and a Han name of the same pinyin letter under that letter.)"""
    section = _index(locale).getBucketIndex
    key = _collator(locale).getSortKey

    def section_and_key(item: T) -> tuple[int, bytes]:
        text = name(item)
        return section(text), key(text)

    return sorted(items, key=section_and_key)


def letter(name: str, locale: str) -> tuple[int, str]:
    """The index section a name is listed under in the locale: its number, in the order of
    the locale's letters, and its label."""
    index = _index(locale)
    number: int = index.getBucketIndex(name)
    label: str = index.getBucket(number)[0]
    return number, label


def prepare(locales: Sequence[str]) -> None:
    """Open the locales' collators and indexes now (a build that keeps running opens them
    before the first change)."""
    for locale in locales:
        _collator(locale)
        _index(locale)
