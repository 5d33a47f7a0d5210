"""Mechanics: upserted from the rules and catalog, added for a card's keyword, the patterns
that tag cards and rulings with them, and their names mined from the printed texts."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

from sqlalchemy import String, and_, delete, func, insert, select, type_coerce, update

from kb.loader.bulk import Row
from kb.loader.names import Names
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
from kb.records import MechanicRecord
from kb.tagging import RULES_VOCABULARY, MechanicMatcher, rule_pattern, slugify_mechanic

SOURCE: Final = "source"
MINED: Final = "mined"
EDITOR: Final = "editor"
LISTED: Final = "listed"
"""A card tag's origin: a source lists the keyword on the card, or an editor tagged it."""
IN_TEXT: Final = "text"
"""A card tag's origin: kb read the mechanic in the card's Oracle text (``text_matcher``)."""
EVIDENCE: Final = ("cards", "voters", "method", "runner_up", "runner_up_cards")
"""The columns of a mined name's votes (mechanic_names, type_names)."""
UNLISTED_MIN_CARDS: Final = 100
"""A keyword action no source lists on a card is mined from the cards whose Oracle text says it,
where this many do. On fewer the contrast cannot tell the name from the words around it: in the
May 2022 corpus Counter (494 cards) and Regenerate (420) are named right in 19 of 20 locales,
Double (58), Venture into the Dungeon (46), Planeswalk (26), Vote (20) in about half."""


_TEMPLATE: Final = re.compile(r'"\[type\]([a-z]+)', re.IGNORECASE)
"""A rule's template for keywords named by a type: '"[type]walk,"', '"[Type]cycling [cost]"'."""


def counted(kind: str, origin: str) -> bool:
    """Whether a card's tag, of a mechanic of this kind, votes in mining and makes a ruling
    general: all but a keyword action's read in a text, so that reading the texts changes no
    name and no ruling's tag. An action's cards count as the sources list them."""
    return origin == LISTED or kind != "keyword_action"


@dataclass
class KnownMechanic:
    id: int
    slug: str
    kind: str
    rule: str | None
    pattern: str | None
    rule_text: str | None


class Mechanics:
    """The store's mechanics, read once per import and kept in step with what it writes."""

    def __init__(self, state: LoadState, names: Names) -> None:
        self.state = state
        self.names = names
        self._known = {
            row.slug: KnownMechanic(
                row.id, row.slug, row.kind, row.rule, row.pattern, row.rule_text
            )
            for row in state.connection.execute(select(mechanics))
        }
        self._text_matcher: MechanicMatcher | None = None
        """Shared by every batch of cards, until a mechanic is added or changed."""

    def upsert(self, record: MechanicRecord) -> None:
        known = self._known.get(record.slug)
        wanted: dict[str, Any] = {
            "kind": record.kind,
            "rule": record.rule,
            "pattern": record.pattern,
            "rule_text": record.rule_text,
        }
        if known is None:
            new_id = self.state.connection.execute(
                insert(mechanics).values(slug=record.slug, **wanted).returning(mechanics.c.id)
            ).scalar_one()
            known = self._known[record.slug] = KnownMechanic(new_id, record.slug, **wanted)
            self._text_matcher = None
            self.state.summary.counts["mechanics new"] += 1
            self.state.retag_everything = True
        else:
            # A mechanic of the rules' vocabulary tags by no word, even where an older kb
            # stored a pattern for it: None is its pattern, not a pattern unknown.
            authoritative = {"pattern"} if record.slug in RULES_VOCABULARY else set()
            changes = {
                key: value
                for key, value in wanted.items()
                if (value is not None or key in authoritative) and getattr(known, key) != value
            }
            if changes:
                self.state.connection.execute(
                    update(mechanics).where(mechanics.c.id == known.id).values(**changes)
                )
                for key, value in changes.items():
                    setattr(known, key, value)
                self._text_matcher = None
                self.state.summary.counts["mechanics updated"] += 1
                # The rule's text tags nothing: a new one leaves the tags as they are.
                self.state.retag_everything |= bool(changes.keys() - {"rule_text"})
        named = {(known.id, locale): name for locale, name in record.names.items()}
        origins: dict[str, str] = {
            locale: origin
            for locale, origin in self.state.connection.execute(
                select(mechanic_names.c.locale, mechanic_names.c.origin).where(
                    mechanic_names.c.mechanic_id == known.id
                )
            )
        }
        # An editor's name stays; a source's name replaces a mined one, and is the source's.
        named = {key: name for key, name in named.items() if origins.get(key[1]) != EDITOR}
        self.names.upsert(mechanic_names, "mechanic_id", named, counter="mechanics updated")
        mined = [locale for _, locale in named if origins.get(locale) == MINED]
        if mined:
            self.state.connection.execute(
                update(mechanic_names)
                .where(mechanic_names.c.mechanic_id == known.id, mechanic_names.c.locale.in_(mined))
                .values(origin=SOURCE, **dict.fromkeys(EVIDENCE))
            )

    def rules_by_template(self) -> None:
        """Give each card keyword that the rules define only by a template its template's rule:
        Islandwalk and Nonbasic landwalk that of Landwalk ("702.14a ... '[type]walk'"),
        Swampcycling and Basic landcycling that of Typecycling ("702.29e ... '[Type]cycling'").
        Whichever came first, the rules or the cards, and as the latest rules say, so it runs
        at each import's end (the store holds a few hundred mechanics); derived, so not
        counted as an update."""
        templates = {  # the rule's own mechanic: its subject ("702.14a Landwalk is"), not a copy
            found.group(1).lower(): known
            for known in self._known.values()
            if known.rule_text
            and (found := _TEMPLATE.search(known.rule_text))
            and slugify_mechanic(known.rule_text.partition(" ")[2].partition(" ")[0]) == known.slug
        }
        for known in self._known.values():
            suffix = next((end for end in templates if known.slug.endswith(end)), None)
            if known.kind != "keyword" or suffix is None:
                continue
            template = templates[suffix]
            if known is template or (known.rule, known.rule_text) == (
                template.rule,
                template.rule_text,
            ):
                continue  # the template's own, or as a new edition of the rules left it
            self.state.connection.execute(
                update(mechanics)
                .where(mechanics.c.id == known.id)
                .values(rule=template.rule, rule_text=template.rule_text)
            )
            known.rule, known.rule_text = template.rule, template.rule_text

    def for_keyword(self, keyword: str) -> KnownMechanic:
        slug = slugify_mechanic(keyword)
        if slug not in self._known:
            self.upsert(
                MechanicRecord(
                    slug=slug,
                    kind="keyword",
                    names={"en": keyword},
                    pattern=rule_pattern("keyword", keyword),
                )
            )
        return self._known[slug]

    def matcher(self, names: Iterable[str] = ()) -> MechanicMatcher:
        """Tags rulings; ``names`` are the cards' names, which name no mechanic."""
        return MechanicMatcher(((m.id, m.pattern) for m in self._known.values()), names)

    def kinds(self) -> dict[int, str]:
        """Each mechanic's kind, by id."""
        return {m.id: m.kind for m in self._known.values()}

    def text_matcher(self) -> MechanicMatcher:
        """Patterns that tag cards by their Oracle text: terms such as outlaw, and keyword
        actions in the rule's sense ("counter target spell", not "+1/+1 counter"), which sources
        list on few cards (MTGJSON lists Scry) or none (Counter). Keyword abilities tag cards
        from the cards' keywords alone: a text names them in other cards' abilities too
        ("creatures with flying")."""
        if self._text_matcher is None:
            self._text_matcher = MechanicMatcher(
                (m.id, m.pattern)
                for m in self._known.values()
                if m.kind == "keyword_action" or not m.kind.startswith("keyword")
            )
        return self._text_matcher


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

        def samples(rows: Iterable[Row]) -> Iterator[Sample]:
            return from_printed_rows(_printed(rows, listed))

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
        Read here rather than from the tags read in the texts: a store older than those tags
        has none until its mechanics change."""
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
        matcher = MechanicMatcher(
            (mechanic_id, pattern) for mechanic_id, pattern in unlisted.values()
        )
        said: dict[int, set[int]] = {}
        texts = select(cards.c.id, cards.c.oracle_text).union_all(
            select(card_faces.c.card_id, card_faces.c.oracle_text)
        )
        for card_id, text in connection.execute(texts):
            for mechanic_id in matcher.matches(text or ""):
                said.setdefault(mechanic_id, set()).add(card_id)
        found = {}
        for name, (mechanic_id, _pattern) in unlisted.items():
            card_ids = said.get(mechanic_id, set())
            if len(card_ids) >= UNLISTED_MIN_CARDS:
                found[name] = (mechanic_id, card_ids)
        return found

    def _rows(self) -> Iterator[Row]:
        """Every printed text, with its card's name and Oracle text: the DBAPI's rows."""
        text, face = printed_texts, card_faces
        query = (
            select(
                cards.c.id,
                cards.c.name,
                text.c.locale,
                text.c.text,
                text.c.type_line,
                text.c.english_text,
                text.c.english_type_line,
                func.coalesce(face.c.oracle_text, cards.c.oracle_text),
                func.coalesce(face.c.type_line, cards.c.type_line),
                # As the DBAPI gives it (ISO text on SQLite, a date on PostgreSQL): SQLAlchemy's
                # conversion of 166,000 ISO texts to dates, turned back into text, cost more.
                type_coerce(text.c.released_on, String),
                text.c.set_code,
                text.c.collector_number,
            )
            .join(cards, cards.c.id == text.c.card_id)
            .outerjoin(face, and_(face.c.card_id == text.c.card_id, face.c.position == text.c.face))
            .order_by(text.c.card_id, text.c.locale, text.c.face)
        )
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


def _printed(rows: Iterable[Row], keywords: dict[int, tuple[str, ...]]) -> Iterator[PrintedRow]:
    """``MinedNames._rows``' rows as the miner reads them, each with its card's keywords."""
    dates: dict[object, str | None] = {None: None}  # a few hundred release dates
    for row in rows:
        day = row[9]
        released = dates.get(day)
        if released is None and day is not None:
            released = dates[day] = day if isinstance(day, str) else day.isoformat()
        yield PrintedRow(  # by position: keywords cost a named tuple a third more
            row[1],  # card
            keywords.get(row[0], ()),
            row[2],  # locale
            row[3],  # text
            row[4],  # type_line
            row[5],  # english_text
            row[6],  # english_type_line
            row[7],  # oracle_text
            row[8],  # oracle_type_line
            released,
            f"{row[10] or ''} {row[11] or ''}".strip(),  # printing
        )
