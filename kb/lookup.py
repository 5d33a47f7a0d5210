"""``kb card``: the cards a name names, in any locale, and one card read whole. Reads only.

A name is any a card is known by: its English name, its printed name in a locale, or a face's
name (English or printed). It is looked for as stored first, which the indexes answer at once;
then with case, accents and typography folded (``fold``), which reads every stored name; when
neither finds a card, the close names are suggested as kb import suggests them (kb.suggest).
Of several cards found, the one whose English name it is wins, as an English name is unique:
``Regeneration`` is the card Regeneration, though it is also Regenerate's German name.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, SQLColumnExpression, literal, select
from sqlalchemy.engine import Connection

from kb import schema as tables
from kb.locales import LOCALE_CODES
from kb.site.card_texts import FaceView, PrintedView, oracle_faces, printed
from kb.suggest import close_names
from kb.text import TYPOGRAPHY

# Only the Latin, Greek and Cyrillic accents (combining diacritical marks): kana's voicing
# marks and Hangul's jamo are letters of their words, not accents.
_ACCENTS = re.compile("[\u0300-\u036f]")
_SLASHES = re.compile(r"\s*//\s*")


def fold(name: str) -> str:
    """A name as it is compared when not found as stored: case, spacing, compatibility forms
    (full-width letters), accents, typographic quotes and dashes folded (``Æther  Vial`` is
    ``aether vial``, ``Fire//Ice`` is ``fire // ice``)."""
    folded = " ".join(name.split()).casefold()
    if "/" in folded:
        folded = _SLASHES.sub(" // ", folded)
    if folded.isascii():  # most names: none of the rest applies (and it is the slow part)
        return folded
    decomposed = unicodedata.normalize("NFKD", folded.translate(TYPOGRAPHY))
    return unicodedata.normalize("NFC", _ACCENTS.sub("", decomposed)).replace("æ", "ae")


@dataclass(frozen=True, order=True, slots=True)
class NameHit:
    """A stored name that a looked-for name matched."""

    locale: str
    face: bool
    """A face's name (card_faces, printed_texts), not the whole card's."""
    name: str
    english: bool = False
    """The card's own English name (cards.name), which no other card has."""


@dataclass(frozen=True, slots=True)
class Match:
    card_id: int
    card: str
    """The card's English name."""
    hits: tuple[NameHit, ...]
    """The names of the card that matched, sorted."""


@dataclass(frozen=True, slots=True)
class Lookup:
    query: str
    matches: tuple[Match, ...]
    """The cards found, by English name; one, unless the name is several cards'."""
    others: tuple[Match, ...] = ()
    """Cards the name also names, when the card whose English name it is won over them."""
    suggestions: tuple[str, ...] = ()
    """Close names, when no card was found."""


_Row = tuple[int, str, str, bool, bool]
"""card id, name, locale, a face's, the English name: one stored name."""


def _stored_names(connection: Connection, name: str | None = None) -> list[_Row]:
    """Every stored name; ``name``: only the rows so named (what the indexes answer)."""
    c, n, f, p = tables.cards.c, tables.card_names.c, tables.card_faces.c, tables.printed_texts.c
    # (card id, name, locale), whether a face's, whether the English name
    places: list[tuple[Select[int, str, str], SQLColumnExpression[str], bool, bool]] = [
        (select(c.id, c.name, literal("en")), c.name, False, True),
        (select(n.card_id, n.name, n.locale), n.name, False, False),
        (select(f.card_id, f.name, literal("en")), f.name, True, False),
        (
            select(p.card_id, p.face_name, p.locale).where(p.face_name.is_not(None)),
            p.face_name,
            True,
            False,
        ),
    ]
    rows: list[_Row] = []
    for query, column, face, english in places:
        if name is not None:
            query = query.where(column == name)
        rows.extend(
            (card_id, found, locale, face, english)
            for card_id, found, locale in connection.execute(query)
        )
    return rows


def find_cards(connection: Connection, query: str) -> Lookup:
    """The cards ``query`` names (see the module's docstring for how)."""
    rows = _stored_names(connection, unicodedata.normalize("NFC", query).strip())
    if not rows:
        every_name = _stored_names(connection)
        folded = {name: fold(name) for name in {row[1] for row in every_name}}
        wanted = fold(query)
        rows = [row for row in every_name if folded[row[1]] == wanted]
        if not rows:
            suggested = close_names(
                query, folded, key=lambda name: folded[name] if name in folded else fold(name)
            )
            return Lookup(query, (), suggestions=tuple(suggested))
    matches = _matches(connection, rows)
    english = [match for match in matches if any(hit.english for hit in match.hits)]
    if len(matches) > 1 and len(english) == 1:
        return Lookup(query, tuple(english), tuple(m for m in matches if m is not english[0]))
    return Lookup(query, tuple(matches))


def _matches(connection: Connection, rows: Sequence[_Row]) -> list[Match]:
    hits: dict[int, set[NameHit]] = {}
    for card_id, name, locale, face, english in rows:
        hits.setdefault(card_id, set()).add(NameHit(locale, face, name, english))
    english_names = select(tables.cards.c.id, tables.cards.c.name).where(
        tables.cards.c.id.in_(sorted(hits))
    )
    names = {card_id: name for card_id, name in connection.execute(english_names)}
    return sorted(
        (Match(card_id, names[card_id], _shown(found)) for card_id, found in hits.items()),
        key=lambda match: match.card,
    )


_ORDER = {code: number for number, code in enumerate(LOCALE_CODES)}


def _shown(hits: set[NameHit]) -> tuple[NameHit, ...]:
    """The hits in locale order, without the English name card_names holds again."""
    english = {hit.name for hit in hits if hit.english}
    kept = (
        hit
        for hit in hits
        if hit.english or hit.face or hit.locale != "en" or hit.name not in english
    )
    return tuple(sorted(kept, key=lambda hit: (_ORDER.get(hit.locale, len(_ORDER)), hit)))


@dataclass(frozen=True, slots=True)
class TagSheet:
    """A mechanic as a card or a ruling is tagged with it, named in the locale asked for."""

    slug: str
    name: str
    locale: str
    """The name's locale: the one asked for, else English (the name then is the English
    name, or the slug where the store has none)."""


@dataclass(frozen=True, slots=True)
class RulingSheet:
    id: int
    text: str
    published_on: dt.date | None
    tags: tuple[TagSheet, ...]


@dataclass(frozen=True, slots=True)
class CardSheet:
    """A card whole, as kb card prints it in one locale."""

    locale: str
    id: int
    name: str
    oracle_id: str | None
    layout: str | None
    mana_cost: str | None
    type_line: str | None
    oracle_text: str | None
    names: dict[str, str]
    """The card's printed names, by locale, in kb.locales' order."""
    faces: tuple[FaceView, ...]
    """The Oracle faces of a card of several faces."""
    printed: tuple[PrintedView, ...]
    """The faces as printed in the locale (none in English: its text is the Oracle's)."""
    mechanics: tuple[TagSheet, ...]
    rulings: tuple[RulingSheet, ...]
    """In publication order, as the card's page shows them."""

    @property
    def localized_name(self) -> str | None:
        return self.names.get(self.locale) or (self.name if self.locale == "en" else None)


def read_card(connection: Connection, card_id: int, locale: str) -> CardSheet:
    """The card whole, with its printed texts and tags in ``locale``."""

    def of_the_card(column: SQLColumnExpression[int]) -> ColumnElement[bool]:
        return column == card_id

    c = tables.cards.c
    card = connection.execute(
        select(c.name, c.oracle_id, c.layout, c.mana_cost, c.type_line, c.oracle_text).where(
            c.id == card_id
        )
    ).one()
    n = tables.card_names.c
    stored = {
        code: name
        for code, name in connection.execute(select(n.locale, n.name).where(n.card_id == card_id))
    }
    names = {code: stored[code] for code in LOCALE_CODES if code in stored}
    tags = _Tags(connection, locale)
    return CardSheet(
        locale=locale,
        id=card_id,
        name=card.name,
        oracle_id=card.oracle_id,
        layout=card.layout,
        mana_cost=card.mana_cost,
        type_line=card.type_line,
        oracle_text=card.oracle_text,
        names=names,
        faces=oracle_faces(connection, of_the_card).get(card_id, ()),
        printed=printed(connection, of_the_card).get((card_id, locale), ()),
        mechanics=tags.of_card(card_id),
        rulings=tuple(_rulings(connection, card_id, tags)),
    )


def _rulings(connection: Connection, card_id: int, tags: _Tags) -> Iterator[RulingSheet]:
    link, ruling = tables.card_rulings.c, tables.rulings.c
    rows = connection.execute(
        select(link.ruling_id, ruling.text, link.published_on)
        .join(tables.rulings, ruling.id == link.ruling_id)
        .where(link.card_id == card_id)
        .order_by(link.published_on.is_(None), link.published_on, link.position, link.ruling_id)
    ).all()
    by_ruling = tags.of_rulings(card_id)
    for ruling_id, text, published_on in rows:
        yield RulingSheet(ruling_id, text, published_on, by_ruling.get(ruling_id, ()))


class _Tags:
    """Mechanics named in one locale, read once per lookup."""

    def __init__(self, connection: Connection, locale: str) -> None:
        self.connection = connection
        m, n = tables.mechanics.c, tables.mechanic_names.c
        names: dict[tuple[int, str], str] = {
            (mechanic_id, code): name
            for mechanic_id, code, name in connection.execute(
                select(n.mechanic_id, n.locale, n.name).where(n.locale.in_({locale, "en"}))
            )
        }
        self.by_id: dict[int, TagSheet] = {}
        for mechanic_id, slug in connection.execute(select(m.id, m.slug)):
            if (mechanic_id, locale) in names:
                tag = TagSheet(slug, names[mechanic_id, locale], locale)
            else:
                tag = TagSheet(slug, names.get((mechanic_id, "en"), slug), "en")
            self.by_id[mechanic_id] = tag

    def of_card(self, card_id: int) -> tuple[TagSheet, ...]:
        tagged = self.connection.execute(
            select(tables.card_mechanics.c.mechanic_id).where(
                tables.card_mechanics.c.card_id == card_id
            )
        ).scalars()
        return self._sorted(self.by_id[mechanic_id] for mechanic_id in tagged)

    def of_rulings(self, card_id: int) -> dict[int, tuple[TagSheet, ...]]:
        """The tags of the card's rulings, by ruling."""
        r = tables.ruling_mechanics.c
        of_the_card = select(tables.card_rulings.c.ruling_id).where(
            tables.card_rulings.c.card_id == card_id
        )
        found: dict[int, list[TagSheet]] = {}
        for ruling_id, mechanic_id in self.connection.execute(
            select(r.ruling_id, r.mechanic_id).where(r.ruling_id.in_(of_the_card))
        ):
            found.setdefault(ruling_id, []).append(self.by_id[mechanic_id])
        return {ruling_id: self._sorted(tags) for ruling_id, tags in found.items()}

    @staticmethod
    def _sorted(tags: Iterable[TagSheet]) -> tuple[TagSheet, ...]:
        """By the store's slug, as the card's page shows them."""
        return tuple(sorted(tags, key=lambda tag: tag.slug))
