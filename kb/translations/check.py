"""``kb translations check``: translations of rulings that name a mechanic without its term.

A translation is checked for each mechanic its ruling is tagged with whose English term the
English text says (the mechanic's tagging pattern, ``mechanics.pattern``, matches it: a general
Spree ruling that never says "Spree" names nothing to check) and that has a name in the locale
(the glossary's term). A finding is a translation that does not use that term: either it leaves
the English term in (the pattern matches the translation too) or it says something else.

Matching is case-insensitive (Unicode case folding) and, since the term is a dictionary form and
a translation inflects it, by stems: each word of the term, its last third cut off (words of
four letters or fewer kept whole), must begin a word of the translation. German "Umwandlung"
is the stem "umwand", which "umwandeln", "umwandelst" and "Umwandlungskosten" begin, and
"umgewandelt" does not (a prefix inside the word). In Japanese, Korean and Chinese, which part no
words by spaces, the term must stand in the translation as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from sqlalchemy import and_, select
from sqlalchemy.engine import Connection

from kb.batches import chunks
from kb.schema import mechanic_names, mechanics, ruling_mechanics, ruling_translations, rulings
from kb.translations.po_export import context

UNSPACED: Final = frozenset({"ja", "ko", "zh-Hans", "zh-Hant"})
"""Locales whose texts part no words by spaces: a term is looked for as written."""
_WORD: Final = re.compile(r"[\w-]+")
MIN_STEM: Final = 4


@dataclass(frozen=True)
class Finding:
    ruling_id: int
    english: str
    expected: str
    left_in_english: bool

    def line(self) -> str:
        problem = (
            "the English term is left untranslated"
            if self.left_in_english
            else "the translation does not use it"
        )
        return f'{context(self.ruling_id)}: {self.english}: expected "{self.expected}"; {problem}'


@dataclass
class Report:
    locale: str
    checked: int = 0
    """Translations of the locale."""
    naming: int = 0
    """Of those, translations of a ruling that names a mechanic with a term in the locale."""
    findings: list[Finding] = field(default_factory=list)

    def summary(self) -> str:
        findings, naming = (
            _counted(len(self.findings), "finding"),
            _counted(self.naming, "translation"),
        )
        return (
            f"{self.locale}: {findings} in {naming} that name a mechanic ({self.checked} checked)"
        )


def _counted(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def stem(word: str) -> str:
    """The start of a term's word that its inflected forms keep: "umwandlung" → "umwand"."""
    if len(word) <= MIN_STEM:
        return word
    return word[: max(MIN_STEM, len(word) - -(-len(word) // 3))]


def uses(translation: str, term: str, locale: str) -> bool:
    """Whether ``translation`` uses ``term`` (the locale's name of a mechanic)."""
    folded, wanted = translation.casefold(), term.casefold()
    if locale in UNSPACED:
        return wanted in folded
    words = _WORD.findall(folded)
    return all(any(word.startswith(stem(part)) for word in words) for part in _WORD.findall(wanted))


@dataclass(frozen=True)
class _Mechanic:
    english: str
    localized: str | None
    pattern: re.Pattern[str] | None

    def term_in(self, english: str) -> str | None:
        """The locale's term, if the English text says the mechanic's and the locale has one."""
        if self.localized is None or self.pattern is None or not self.pattern.search(english):
            return None
        return self.localized


def _mechanics(connection: Connection, locale: str) -> dict[int, _Mechanic]:
    english, localized = mechanic_names.alias("english"), mechanic_names.alias("localized")
    query = (
        select(
            mechanics.c.id, mechanics.c.slug, mechanics.c.pattern, english.c.name, localized.c.name
        )
        .outerjoin(english, and_(english.c.mechanic_id == mechanics.c.id, english.c.locale == "en"))
        .outerjoin(
            localized, and_(localized.c.mechanic_id == mechanics.c.id, localized.c.locale == locale)
        )
    )
    return {
        row[0]: _Mechanic(
            row[3] or row[1], row[4], re.compile(row[2], re.IGNORECASE) if row[2] else None
        )
        for row in connection.execute(query)
    }


def _translations(connection: Connection, locale: str) -> Iterator[tuple[int, str, str]]:
    query = (
        select(ruling_translations.c.ruling_id, rulings.c.text, ruling_translations.c.text)
        .join(rulings, rulings.c.id == ruling_translations.c.ruling_id)
        .where(ruling_translations.c.locale == locale)
        .order_by(ruling_translations.c.ruling_id)
    )
    for row in connection.execute(query):
        yield row[0], row[1], row[2]


def check(connection: Connection, locale: str) -> Report:
    """Every translation of ``locale`` checked against its mechanics' terms, by ruling id."""
    known = _mechanics(connection, locale)
    found = list(_translations(connection, locale))
    tags: dict[int, list[int]] = {}
    for chunk in chunks([ruling_id for ruling_id, _english, _text in found]):
        query = select(ruling_mechanics.c.ruling_id, ruling_mechanics.c.mechanic_id).where(
            ruling_mechanics.c.ruling_id.in_(chunk)
        )
        for ruling_id, mechanic_id in connection.execute(query):
            tags.setdefault(ruling_id, []).append(mechanic_id)
    report = Report(locale, checked=len(found))
    for ruling_id, english, translation in found:
        named = sorted(
            (
                (mechanic.english, term, mechanic)
                for mechanic in (known[mechanic_id] for mechanic_id in tags.get(ruling_id, ()))
                if (term := mechanic.term_in(english)) is not None
            ),
            key=lambda found: found[:2],
        )
        report.naming += bool(named)
        for english_term, term, mechanic in named:
            if uses(translation, term, locale):
                continue
            left = mechanic.pattern is not None and bool(mechanic.pattern.search(translation))
            report.findings.append(Finding(ruling_id, english_term, term, left))
    return report
