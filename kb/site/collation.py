"""Names in the order readers of each locale expect, and the letters an index groups them
under, from ICU (PyICU): the locale's collation, CLDR's tailoring of the Unicode Collation
Algorithm ("Éclair" with E; Spanish ñ after n; Simplified Chinese by pinyin, Traditional
Chinese by strokes; Japanese kana in gojūon order, then kanji by radical and strokes), and the
locale's alphabetic index (A–Z with Ñ in Spanish, А–Я, ㄱ–ㅎ, the kana rows あかさ…, pinyin
letters, stroke counts, the Kangxi radicals).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from operator import itemgetter
from typing import Any, TypeVar

import icu  # type: ignore[import-untyped]  # PyICU ships no type hints

T = TypeVar("T")

OTHER = "#"
"""The index letter of names that begin before the locale's first letter (digits, marks)."""


RADICAL_STROKE = {"ja": "ja-u-co-unihan"}
"""Locales whose names that begin with a kanji are ordered and indexed by radical, then by
strokes (ICU's ``unihan`` collation, as a kanji dictionary's radical index): Japanese has no
other order for them (the default puts 15,896 of 21,402 real names in one "…" section). Its kana
keep their gojūon rows, in the same order as the default collation."""
MAX_LABELS = 1000
"""Room for the 214 radicals besides the kana rows and the Latin letters (ICU's default, 99,
would leave out most of them)."""


def _icu_locale(locale: str) -> Any:
    return icu.Locale.forLanguageTag(RADICAL_STROKE.get(locale, locale))


@cache
def _collator(locale: str) -> Any:
    return icu.Collator.createInstance(_icu_locale(locale))


@cache
def _primary(locale: str) -> Any:
    collator = icu.Collator.createInstance(_icu_locale(locale))
    collator.setStrength(icu.Collator.PRIMARY)
    return collator


@cache
def _index(locale: str) -> Any:
    """The locale's alphabetic index, with the Latin letters besides its own: pages in other
    scripts list the English names of cards that have no name in the locale."""
    index = icu.AlphabeticIndex(_icu_locale(locale))
    if locale in RADICAL_STROKE:  # the radicals come with the collation, the kana with the locale
        index.maxLabelCount = MAX_LABELS
        index.addLabels(icu.Locale.forLanguageTag(locale))
    index.addLabels(icu.Locale.getEnglish())
    index.underflowLabel = OTHER
    return index.buildImmutableIndex()


def sectioned(items: Iterable[T], name: Callable[[T], str], locale: str) -> list[tuple[int, T]]:
    """The items as the index of ``locale`` (a BCP 47 code: ``pt-BR``, ``zh-Hant``) lists
    their names, each with its section's number (see ``label``): section by section, in the
    locale's order within a section; items of equal names in their given order. (The order
    alone would not keep a section together: Chinese collation puts every Han character
    before the Latin letters, and the index lists a Latin name and a Han name of the same
    pinyin letter under that letter.)"""
    section = _index(locale).getBucketIndex
    key = _collator(locale).getSortKey
    keyed = []
    for item in items:
        text = name(item)
        keyed.append((section(text), key(text), item))
    keyed.sort(key=_SECTION_AND_KEY)
    return [(number, item) for number, _key, item in keyed]


_SECTION_AND_KEY = itemgetter(0, 1)


def collated(items: Iterable[T], name: Callable[[T], str], locale: str) -> list[T]:
    """The items as sectioned lists them, without the sections' numbers."""
    return [item for _number, item in sectioned(items, name, locale)]


def label(section: int, locale: str) -> str:
    """The label of the locale's index section ``section``: its letter, ``#`` or ``…``."""
    text: str = _index(locale).getBucket(section)[0]
    return text


def primary_key(locale: str) -> Callable[[str], bytes]:
    """A text's sort key at the primary level: texts that differ only in case or accents
    ("Sä", "SA", "sa"; あ and ア) have the same."""
    key: Callable[[str], bytes] = _primary(locale).getSortKey
    return key


def prepare(locales: Sequence[str]) -> None:
    """Open the locales' collators and indexes now (a build that keeps running opens them
    before the first change)."""
    for locale in locales:
        _collator(locale)
        _primary(locale)
        _index(locale)
