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


def sort_key(name: str, locale: str) -> bytes:
    """The name's collation key in the locale (BCP 47 code: ``pt-BR``, ``zh-Hant``)."""
    key: bytes = _collator(locale).getSortKey(name)
    return key


def collated(items: Iterable[T], name: Callable[[T], str], locale: str) -> list[T]:
    """The items in the locale's order of their names; items of equal names in their given
    order."""
    key = _collator(locale).getSortKey
    return sorted(items, key=lambda item: key(name(item)))


def letter(name: str, locale: str) -> tuple[int, str]:
    """The index section a name is listed under in the locale: its number, in the locale's
    order, and its label. Names collated in the locale's order come section by section."""
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
