"""Mining's writer: mines the store's printed texts (kb/mining) at an import's end and writes
the names it finds, with their votes (docs/mining.md)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Any, Final

from sqlalchemy import String, and_, delete, func, insert, select, type_coerce, update

from kb.loader.bulk import Row, plain_way
from kb.loader.mechanics import EVIDENCE, IN_TEXT, LISTED, MINED, counted
from kb.loader.state import LoadState
from kb.loader.tables import (
    card_faces,
    card_mechanics,
    cards,
    mechanic_names,
    mechanics,
    printed_texts,
    type_names,
)
from kb.mining.mine import Mined
from kb.mining.samples import PrintedRow, Sample, from_printed_rows
from kb.mining.two_cores import mine_on_two_cores
from kb.mining.votes import MinedName
from kb.tagging import MechanicMatcher

UNLISTED_MIN_CARDS: Final = 100
"""A keyword action no source lists on a card is mined from the cards whose Oracle text says it,
where this many do. On fewer the contrast cannot tell the name from the words around it: in the
May 2022 corpus Counter (494 cards) and Regenerate (420) are named right in 19 of 20 locales,
Double (58), Venture into the Dungeon (46), Planeswalk (26), Vote (20) in about half."""


class MinedNames:
    """Mines the store's printed texts (kb/mining) and writes what it finds: a mechanic's name
    in a locale where no source or editor has named it, with its votes; every type's name.

    A vote is a share of all the cards, so mining reads the whole store, and its names replace
    the mined names of the last run; a name a source or an editor wrote is never replaced.
    """

    def __init__(self, state: LoadState) -> None:
        self.state = state

    def mine(self) -> None:
        keywords: dict[int, list[str]] = {}
        by_name: dict[str, int] = {}
        query = (
            select(
                card_mechanics.c.card_id,
                mechanics.c.id,
                mechanic_names.c.name,
                mechanics.c.kind,
                card_mechanics.c.origin,
            )
            .join(mechanics, mechanics.c.id == card_mechanics.c.mechanic_id)
            .join(
                mechanic_names,
                and_(
                    mechanic_names.c.mechanic_id == mechanics.c.id,
                    mechanic_names.c.locale == "en",
                ),
            )
            .where(mechanics.c.kind.like("keyword%"))
            .order_by(card_mechanics.c.card_id, mechanic_names.c.name)
        )
        for card_id, mechanic_id, name, kind, origin in self.state.connection.execute(query):
            if counted(kind, origin):  # an action no source lists: _unlisted_actions
                keywords.setdefault(card_id, []).append(name)
                by_name[name] = mechanic_id
        unlisted = self._unlisted_actions()
        for name, (mechanic_id, card_ids) in unlisted.items():
            by_name[name] = mechanic_id
            for card_id in card_ids:
                keywords.setdefault(card_id, []).append(name)
        # One tuple per card, which its printed texts' samples share.
        listed = {card_id: tuple(sorted(names)) for card_id, names in keywords.items()}
        english = self._english()

        def samples(rows: Iterable[Row]) -> Iterator[Sample]:
            return from_printed_rows(_printed(rows, listed, english))

        mined = mine_on_two_cores(
            self._rows(), samples, itemgetter(2), also_actions=frozenset(unlisted)
        )  # by locale
        self._write_mechanic_names(mined, by_name)
        self._write_type_names(mined)

    def texts(self) -> int:
        """How many printed texts ``mine`` reads: all the store's."""
        query = select(func.count()).select_from(printed_texts)
        return int(self.state.connection.execute(query).scalar_one())

    def _unlisted_actions(self) -> dict[str, tuple[int, set[int]]]:
        """Keyword actions that no source or editor lists on a card (no listed tag: MTGJSON
        lists Scry and Mill, never Counter or Regenerate), by English name: the mechanic and the
        cards whose Oracle text says it in the rule's sense (``kb.tagging.rule_pattern``:
        "counter target spell", not "+1/+1 counter"), where at least ``UNLISTED_MIN_CARDS`` do.
        Matched in the texts here (``_said``), unless the cards' text tags are whole
        (``_text_tags_whole``): a store older than those tags has none until its mechanics
        change."""
        connection = self.state.connection
        query = (
            select(mechanics.c.id, mechanic_names.c.name, mechanics.c.pattern)
            .join(
                mechanic_names,
                and_(
                    mechanic_names.c.mechanic_id == mechanics.c.id, mechanic_names.c.locale == "en"
                ),
            )
            .where(
                mechanics.c.kind == "keyword_action",
                mechanics.c.pattern.is_not(None),
                ~select(card_mechanics.c.card_id)
                .where(
                    card_mechanics.c.mechanic_id == mechanics.c.id,
                    card_mechanics.c.origin == LISTED,
                )
                .exists(),
            )
            .order_by(mechanics.c.id)
        )
        unlisted = {
            name: (mechanic_id, pattern) for mechanic_id, name, pattern in connection.execute(query)
        }
        if not unlisted:
            return {}
        said = self._tagged_by_text(unlisted) if self._text_tags_whole() else self._said(unlisted)
        found = {}
        for name, (mechanic_id, _pattern) in unlisted.items():
            card_ids = said.get(mechanic_id, set())
            if len(card_ids) >= UNLISTED_MIN_CARDS:
                found[name] = (mechanic_id, card_ids)
        return found

    def _text_tags_whole(self) -> bool:
        """Whether every card's text tags (``IN_TEXT``) are this run's, each card read with
        every pattern as it is now: in a store this run made, whose rules came before its cards,
        where no pattern came or changed once cards were in (``card_texts_stale``: tags are
        only added, so an old pattern's would stay); and not where ``KB_BULK=plain``
        (kb.loader.bulk.plain_way) asks for the plain way."""
        state = self.state
        return not state.read_before and not state.card_texts_stale and not plain_way()

    def _tagged_by_text(self, unlisted: dict[str, tuple[int, str]]) -> dict[int, set[int]]:
        """The cards that the loader tagged with each mechanic by their Oracle texts: what
        ``_said`` finds, read rather than matched again (0.23 s of the real corpus's mining,
        tests/test_loader_bulk.py proves them equal)."""
        mechanic_ids = [mechanic_id for mechanic_id, _pattern in unlisted.values()]
        query = select(card_mechanics.c.mechanic_id, card_mechanics.c.card_id).where(
            card_mechanics.c.mechanic_id.in_(mechanic_ids), card_mechanics.c.origin == IN_TEXT
        )
        said: dict[int, set[int]] = {}
        for mechanic_id, card_id in self.state.connection.execute(query):
            said.setdefault(mechanic_id, set()).add(card_id)
        return said

    def _said(self, unlisted: dict[str, tuple[int, str]]) -> dict[int, set[int]]:
        """The cards whose Oracle text, or a face's, says each mechanic: every text matched."""
        matcher = MechanicMatcher(
            (mechanic_id, pattern) for mechanic_id, pattern in unlisted.values()
        )
        said: dict[int, set[int]] = {}
        texts = select(cards.c.id, cards.c.oracle_text).union_all(
            select(card_faces.c.card_id, card_faces.c.oracle_text)
        )
        for card_id, text in self.state.connection.execute(texts):
            for mechanic_id in matcher.matches(text or ""):
                said.setdefault(mechanic_id, set()).add(card_id)
        return said

    def _english(self) -> _English:
        """Every card's name, Oracle text and type line, and its faces': read once, before the
        mining's child is forked, which inherits them. Each printed text's row would otherwise
        carry its card's copy (joined, fetched, and pickled for the child: a sixth of the
        mining's time)."""
        connection, face = self.state.connection, card_faces.c
        printed = select(printed_texts.c.card_id).where(printed_texts.c.card_id == cards.c.id)
        query = select(cards.c.id, cards.c.name, cards.c.oracle_text, cards.c.type_line).where(
            printed.exists()  # only those: a store of Scryfall's files alone has no printed text
        )
        by_card = {row[0]: (row[1], row[2], row[3]) for row in connection.execute(query)}
        query = select(face.card_id, face.position, face.oracle_text, face.type_line)
        faces = {
            (row[0], row[1]): (row[2], row[3])
            for row in connection.execute(query)
            if row[0] in by_card
        }
        return by_card, faces

    def _rows(self) -> Iterator[Row]:
        """Every printed text, in the card's order: the DBAPI's rows."""
        text = printed_texts.c
        query = select(
            text.card_id,
            text.face,
            text.locale,
            text.text,
            text.type_line,
            text.english_text,
            text.english_type_line,
            # As the DBAPI gives it (ISO text on SQLite, a date on PostgreSQL): SQLAlchemy's
            # conversion of 166,000 ISO texts to dates, turned back into text, cost more.
            type_coerce(text.released_on, String),
            text.set_code,
            text.collector_number,
        ).order_by(text.card_id, text.locale, text.face)
        return self.state.bulk.rows(query)

    def _write_mechanic_names(self, mined: Mined, by_name: dict[str, int]) -> None:
        table, connection = mechanic_names, self.state.connection
        named = {
            (row.mechanic_id, row.locale): row.origin
            for row in connection.execute(
                select(table.c.mechanic_id, table.c.locale, table.c.origin)
            )
        }
        wanted: dict[tuple[int, str], dict[str, Any]] = {}
        for name in mined.mechanics:
            key = (by_name.get(name.mechanic, -1), name.locale)
            if key[0] != -1 and name.locale != "en" and named.get(key, MINED) == MINED:
                wanted[key] = _values(name)
        previous = {
            (row.mechanic_id, row.locale): dict(row._mapping)
            for row in connection.execute(
                select(table.c.mechanic_id, table.c.locale, table.c.name, *_columns(table)).where(
                    table.c.origin == MINED
                )
            )
        }
        counts = self.state.summary.counts
        for mechanic_id, locale in sorted(previous.keys() - wanted.keys()):
            connection.execute(
                delete(table).where(table.c.mechanic_id == mechanic_id, table.c.locale == locale)
            )
            counts["mined names gone"] += 1
        new_rows = []
        for (mechanic_id, locale), values in sorted(wanted.items()):
            old = previous.get((mechanic_id, locale))
            if old is None:
                new_rows.append(
                    {"mechanic_id": mechanic_id, "locale": locale, "origin": MINED, **values}
                )
            elif any(old[column] != value for column, value in values.items()):
                connection.execute(
                    update(table)
                    .where(table.c.mechanic_id == mechanic_id, table.c.locale == locale)
                    .values(**values)
                )
                counts["mined names changed"] += 1
        if new_rows:
            connection.execute(insert(table), new_rows)
            counts["mined names new"] += len(new_rows)

    def _write_type_names(self, mined: Mined) -> None:
        """Type names have no other origin yet: the table is the last mining's."""
        connection = self.state.connection
        connection.execute(delete(type_names))
        rows = [
            {"type": name.mechanic, "locale": name.locale, **_values(name)}
            for name in mined.types
            if name.locale != "en"
        ]
        if rows:
            connection.execute(insert(type_names), rows)


def _columns(table: Any) -> list[Any]:
    return [table.c[column] for column in EVIDENCE]


def _values(name: MinedName) -> dict[str, Any]:
    return {
        "name": name.name,
        "cards": name.cards,
        "voters": name.voters,
        "method": name.method,
        "runner_up": name.runner_up,
        "runner_up_cards": name.runner_up_cards if name.runner_up else None,
    }


_English = tuple[
    dict[int, tuple[str, str | None, str | None]],
    dict[tuple[int, int], tuple[str | None, str | None]],
]
"""``MinedNames._english``: by card id, its name, Oracle text and type line; by card id and face
position, the face's Oracle text and type line."""


def _printed(
    rows: Iterable[Row], keywords: dict[int, tuple[str, ...]], english: _English
) -> Iterator[PrintedRow]:
    """``MinedNames._rows``' rows as the miner reads them, each with its card's name and
    keywords and its face's Oracle text and type line (the card's where the face has none)."""
    by_card, faces = english
    no_face = (None, None)
    dates: dict[object, str | None] = {None: None}  # a few hundred release dates
    for row in rows:
        day = row[7]
        released = dates.get(day)
        if released is None and day is not None:
            released = dates[day] = day if isinstance(day, str) else day.isoformat()
        card_id = row[0]
        name, oracle_text, oracle_type_line = by_card[card_id]
        face_text, face_type_line = faces.get((card_id, row[1]), no_face)
        yield PrintedRow(  # by position: keywords cost a named tuple a third more
            name,
            keywords.get(card_id, ()),
            row[2],  # locale
            row[3],  # text
            row[4],  # type_line
            row[5],  # english_text
            row[6],  # english_type_line
            oracle_text if face_text is None else face_text,
            oracle_type_line if face_type_line is None else face_type_line,
            released,
            f"{row[8] or ''} {row[9] or ''}".strip(),  # printing
        )
