"""What the miner reads: one sample per card, locale and face, and where samples come from.

A sample is one face of one printing in one locale: the localized printed text beside the English
text of the same printing, line for line, and the two type lines. The miner knows nothing else;
``from_mtgjson_sets`` reads samples from MTGJSON set files (the tests' and the evaluation's
source), keeping per card, locale and face the most recent printing, as the store does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import orjson

from kb.importers.mtgjson_texts import as_printed
from kb.importers.streams import iter_inputs, open_input
from kb.locales import canonical_locale


class Sample(NamedTuple):
    """A named tuple, as ``PrintedRow``: one is made per printed text, and a frozen
    dataclass sets each field through ``object.__setattr__`` (a fifth of reading the rows)."""

    card: str
    """The Oracle card (its English name): one card, one vote."""
    keywords: tuple[str, ...]
    """The face's keywords as MTGJSON lists them ("Flying", "Cycling", "Scry")."""
    locale: str
    english: tuple[str, ...]
    """The printing's English lines (``originalText``; the Oracle text's when only those
    match the localized lines in number)."""
    localized: tuple[str, ...]
    english_type: str | None = None
    localized_type: str | None = None
    released: str = ""
    """The printing's release date (ISO), for telling an old translation from the current one."""
    printing: str = ""
    """Which printing: set code and collector number ("M21 2")."""


def lines(text: str | None) -> tuple[str, ...]:
    """The text's lines, stripped, without the empty ones."""
    return tuple(filter(None, map(str.strip, (text or "").split("\n"))))


def english_lines(
    original: str | None, oracle: str | None, localized: tuple[str, ...]
) -> tuple[str, ...]:
    """The printing's English lines; the Oracle text's where only they match the localized
    lines in number (MTGJSON lacks ``originalText`` on some printings, and a few old printings'
    originals are laid out otherwise than their translations)."""
    printed = lines(original)
    if len(printed) != len(localized):
        current = lines(oracle)
        if len(current) == len(localized) or not printed:
            return current
    return printed


class PrintedRow(NamedTuple):
    """One row of the store's printed texts (issue 20 section 1) with what the miner needs
    beside it: the card's keywords (its keyword tags' English names) and the face's Oracle
    text and type line, for when the printing's English is missing or laid out otherwise.
    A named tuple: one is made per printed text (166,000 on the real corpus), and a frozen
    dataclass takes three times as long to make."""

    card: str
    keywords: tuple[str, ...]
    locale: str
    text: str | None
    type_line: str | None
    english_text: str | None
    english_type_line: str | None
    oracle_text: str | None
    oracle_type_line: str | None
    released_on: str | None
    printing: str = ""


def from_printed_rows(rows: Iterable[PrintedRow]) -> Iterator[Sample]:
    """Samples from the store's rows: the store keeps only the most recent printing per card,
    locale and face already, so each row is one sample."""
    # A database hands each row its own copies of the strings that repeat (locales, dates,
    # card names, type lines): the miner keeps many of them, so one copy each.
    shared: dict[str, str] = {}

    def one(value: str | None) -> str | None:
        return None if value is None else shared.setdefault(value, value)

    for row in rows:
        localized = lines(row.text)
        if row.locale == "en" or not (localized or row.type_line):
            continue
        yield Sample(  # by position, as PrintedRow: keywords cost a named tuple a third more
            shared.setdefault(row.card, row.card),
            row.keywords,
            shared.setdefault(row.locale, row.locale),
            english_lines(row.english_text, row.oracle_text, localized),
            localized,
            one(row.english_type_line or row.oracle_type_line),
            one(row.type_line),
            shared.setdefault(row.released_on or "", row.released_on or ""),
            row.printing,
        )


def from_mtgjson_sets(path: str | Path) -> Iterator[Sample]:
    """Samples from a folder (or file) of MTGJSON set files, the most recent printing per card,
    locale and face; ties (one release date) go to the lower set code, then collector number."""
    newest: dict[tuple[str, str, str], tuple[tuple[str, str, str], Sample]] = {}
    for source in iter_inputs(path):
        with open_input(source) as stream:
            document = orjson.loads(stream.read())
        card_set = document.get("data", document)
        released = str(card_set.get("releaseDate") or "")
        code = str(card_set.get("code") or "")
        for face in card_set.get("cards") or ():
            printing = f"{code} {face.get('number') or ''}".strip()
            for key, sample in _face_samples(face, released, printing):
                order = (released, _reverse(code), _reverse(str(face.get("number") or "")))
                kept = newest.get(key)
                if kept is None or order > kept[0]:
                    newest[key] = (order, sample)
    for key in sorted(newest):
        yield newest[key][1]


def _reverse(text: str) -> str:
    """A key that sorts ``text`` backwards, so that the greatest order is the lowest code."""
    return "".join(chr(0x10FFFF - ord(character)) for character in text)


def _face_samples(
    face: dict[str, object], released: str, printing: str
) -> Iterable[tuple[tuple[str, str, str], Sample]]:
    identifiers = face.get("identifiers")
    oracle_id = identifiers.get("scryfallOracleId") if isinstance(identifiers, dict) else None
    card = str(face.get("faceName") or face.get("name") or "")
    full_name = str(face.get("name") or "")
    keywords = tuple(str(keyword) for keyword in face.get("keywords") or ())  # type: ignore[attr-defined]
    english_type = face.get("originalType") or face.get("type")
    for entry in face.get("foreignData") or ():  # type: ignore[attr-defined]
        locale = canonical_locale(str(entry.get("language") or ""))
        if locale is None or locale == "en":
            continue
        printed = as_printed(  # as the import reads them
            face.get("layout"),
            face.get("originalText"),  # type: ignore[arg-type]
            entry.get("text"),
            str(entry["type"]) if entry.get("type") else None,
            locale,
        )
        localized = lines(printed.text)
        if not (localized or printed.type_line):
            continue
        english = english_lines(printed.english, face.get("text"), localized)  # type: ignore[arg-type]
        key = (str(oracle_id or full_name), locale, card)
        yield (
            key,
            Sample(
                card=full_name,
                keywords=keywords,
                locale=locale,
                english=english,
                localized=localized,
                english_type=str(english_type) if english_type else None,
                localized_type=printed.type_line,
                released=released,
                printing=printing,
            ),
        )
