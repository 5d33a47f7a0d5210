"""The one writer of imported records: upsert, dedupe, damaged variants, provenance, tagging.

Records arrive as a stream from the parsers and are written in batches, each looked up with a
handful of ``IN`` queries, so memory stays flat however large the source is. The caller owns the
transaction: one per ``kb import`` run, rolled back whole on any error.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeVar

from sqlalchemy import Table, and_, func, insert, select, tuple_, update
from sqlalchemy.engine import Connection

from kb import db
from kb.locales import canonical_locale
from kb.official_names import name_a_page_keeps
from kb.records import (
    CardNameRecord,
    CardRecord,
    CardRef,
    MechanicRecord,
    ParseError,
    Record,
    RulingRecord,
)
from kb.tagging import MechanicMatcher, slugify_mechanic, word_pattern
from kb.text import better_text, has_symbols, normalize, ruling_keys, text_key

BATCH_SIZE = 2000
HAND_EDITED_FORMATS = frozenset({"catalog", "seed-page"})
# Well under SQLite's and PostgreSQL's bound-parameter limits.
IN_CHUNK = 900

cards = db.Base.metadata.tables["cards"]
card_names = db.Base.metadata.tables["card_names"]
rulings = db.Base.metadata.tables["rulings"]
card_rulings = db.Base.metadata.tables["card_rulings"]
mechanics = db.Base.metadata.tables["mechanics"]
mechanic_names = db.Base.metadata.tables["mechanic_names"]
card_mechanics = db.Base.metadata.tables["card_mechanics"]
card_faces = db.Base.metadata.tables["card_faces"]
ruling_mechanics = db.Base.metadata.tables["ruling_mechanics"]
sources = db.Base.metadata.tables["sources"]
revisions = db.Base.metadata.tables["revisions"]
_EDITED_TABLES = ("rulings", "card_names", "card_mechanics", "ruling_mechanics")
"""The tables whose editors' changes an import keeps (see Loader._replaced_by_editors)."""

T = TypeVar("T")


def chunks(items: Iterable[T], size: int = IN_CHUNK) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


near_duplicates = db.Base.metadata.tables["near_duplicates"]
SAME_WITHOUT_SYMBOLS = "same without symbols"
SAME_BEGINNING = "same beginning"
NEAR_LENGTH_SLACK = 10
"""Rulings that begin alike are near duplicates when their lengths differ by at most this."""
NEAR_DUPLICATES_LOCK = 0x6B625F6E656172  # "kb_near": a PostgreSQL advisory lock key


def refresh_near_duplicates(connection: Connection, ruling_ids: Iterable[int]) -> None:
    """Recompute the near_duplicates pairs of ``ruling_ids``, whose text was just written.

    Two rulings are near duplicates when their texts without mana symbols are the same (a
    damaged copy) or when their folded texts begin alike and their lengths are within
    ``NEAR_LENGTH_SLACK``. Finding every pair reads every ruling's keys, too slow for an
    editor's query; a ruling's pairs change only when its text does, so they are kept here.
    """
    ids = sorted(set(ruling_ids))
    if not ids:
        return
    if connection.dialect.name == "postgresql":
        # Two transactions refreshing rulings that pair with each other would each compare with
        # the other's old text (READ COMMITTED); taken in turn, the later one sees the earlier
        # one's text and pairs. SQLite lets one transaction write at a time already.
        connection.execute(select(func.pg_advisory_xact_lock(NEAR_DUPLICATES_LOCK)))
    for chunk in chunks(ids):
        connection.execute(
            near_duplicates.delete().where(
                near_duplicates.c.ruling_id.in_(chunk)
                | near_duplicates.c.other_ruling_id.in_(chunk)
            )
        )
    a, b = rulings.alias("a"), rulings.alias("b")
    same_skeleton = b.c.skeleton_key == a.c.skeleton_key
    same_beginning = and_(
        b.c.head_key == a.c.head_key,
        func.abs(func.length(a.c.text) - func.length(b.c.text)) <= NEAR_LENGTH_SLACK,
    )
    pairs: dict[tuple[int, int], str] = {}
    for chunk in chunks(ids):
        query = (
            select(a.c.id, b.c.id, same_skeleton)
            .select_from(a.join(b, and_(b.c.id != a.c.id, same_skeleton | same_beginning)))
            .where(a.c.id.in_(chunk))
        )
        for ruling_id, other_id, damaged in connection.execute(query):
            reason = SAME_WITHOUT_SYMBOLS if damaged else SAME_BEGINNING
            pairs[(min(ruling_id, other_id), max(ruling_id, other_id))] = reason
    for batch in chunks(pairs, BATCH_SIZE):
        connection.execute(
            insert(near_duplicates),
            [{"ruling_id": x, "other_ruling_id": y, "reason": pairs[(x, y)]} for x, y in batch],
        )


@dataclass
class Summary:
    """What an import did, for the closing summary."""

    counts: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    other_locales: Counter[str] = field(default_factory=Counter)
    unknown_files: list[str] = field(default_factory=list)
    """Files in folders that are of no known format, each with why: skipped."""

    CHANGES = (
        "cards new",
        "cards updated",
        "names new",
        "names changed",
        "rulings new",
        "rulings improved",
        "links new",
        "links dated",
        "mechanics new",
        "mechanics updated",
        "card tags new",
        "ruling tags new",
    )

    @property
    def changed(self) -> bool:
        return any(self.counts[key] for key in self.CHANGES)


@dataclass
class _Mechanic:
    id: int
    slug: str
    kind: str
    rule: str | None
    pattern: str | None


class Loader:
    """Writes records into the store on ``connection``; call ``finish`` once at the end."""

    def __init__(self, connection: Connection, now: dt.datetime | None = None) -> None:
        self.connection = connection
        self.now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
        self.summary = Summary()
        self.replace_names = False
        """``--replace-name``: a page's title replaces even an official name."""
        self.path = ""
        self._mechanics = {
            row.slug: _Mechanic(row.id, row.slug, row.kind, row.rule, row.pattern)
            for row in connection.execute(select(mechanics))
        }
        self._touched_rulings: set[int] = set()
        self._texts_written: set[int] = set()
        self._edits: dict[str, dict[Any, Any]] | None = None
        self._cards_loaded: set[int] = set()
        self._retag_everything = False

    # Sources

    def begin_source(self, uri: str, format: str) -> None:
        """Records that follow come from this file.

        Its ``sources`` row is written with the first row it adds: a file that adds nothing (a
        re-import) writes nothing at all.
        """
        self.path = uri
        self._source_format = format
        self._source_id: int | None = None
        self._counts_before = Counter(self.summary.counts)

    def _source(self) -> int:
        if self._source_id is None:
            self._source_id = self.connection.execute(
                insert(sources)
                .values(uri=self.path, format=self._source_format, sha256="", imported_at=self.now)
                .returning(sources.c.id)
            ).scalar_one()
        return self._source_id

    def end_source(self, sha256: str) -> None:
        """Record the file's checksum and what it added, if it added anything."""
        added = Counter(
            {
                key: self.summary.counts[key] - self._counts_before[key]
                for key in Summary.CHANGES
                if self.summary.counts[key] > self._counts_before[key]
            }
        )
        if added:
            self._source()
        if self._source_id is not None:
            self.connection.execute(
                update(sources)
                .where(sources.c.id == self._source_id)
                .values(sha256=sha256, stats=dict(sorted(added.items())))
            )

    # Records

    def load(self, records: Iterable[Record]) -> None:
        for batch in chunks(records, BATCH_SIZE):
            self._load_batch(batch)

    def _load_batch(self, batch: list[Record]) -> None:
        for record in batch:
            if isinstance(record, MechanicRecord):
                self._upsert_mechanic(record)
        self._load_cards([r for r in batch if isinstance(r, CardRecord)])
        self._load_names([r for r in batch if isinstance(r, CardNameRecord)])
        self._load_rulings([r for r in batch if isinstance(r, RulingRecord)])

    # Mechanics

    def _upsert_mechanic(self, record: MechanicRecord) -> None:
        known = self._mechanics.get(record.slug)
        wanted: dict[str, Any] = {
            "kind": record.kind,
            "rule": record.rule,
            "pattern": record.pattern,
        }
        if known is None:
            new_id = self.connection.execute(
                insert(mechanics).values(slug=record.slug, **wanted).returning(mechanics.c.id)
            ).scalar_one()
            known = self._mechanics[record.slug] = _Mechanic(new_id, record.slug, **wanted)
            self.summary.counts["mechanics new"] += 1
            self._retag_everything = True
        else:
            changes = {
                key: value
                for key, value in wanted.items()
                if value is not None and getattr(known, key) != value
            }
            if changes:
                self.connection.execute(
                    update(mechanics).where(mechanics.c.id == known.id).values(**changes)
                )
                for key, value in changes.items():
                    setattr(known, key, value)
                self.summary.counts["mechanics updated"] += 1
                self._retag_everything = True
        self._upsert_names(
            mechanic_names,
            "mechanic_id",
            {(known.id, locale): name for locale, name in record.names.items()},
            counter="mechanics updated",
        )

    def _mechanic_for_keyword(self, keyword: str) -> _Mechanic:
        slug = slugify_mechanic(keyword)
        if slug not in self._mechanics:
            self._upsert_mechanic(
                MechanicRecord(
                    slug=slug,
                    kind="keyword",
                    names={"en": keyword},
                    pattern=word_pattern(keyword),
                )
            )
        return self._mechanics[slug]

    def _matcher(self) -> MechanicMatcher:
        return MechanicMatcher((m.id, m.pattern) for m in self._mechanics.values())

    def _term_matcher(self) -> MechanicMatcher:
        """Patterns that tag cards by their Oracle text: terms such as outlaw. Keyword
        mechanics tag cards from the cards' keywords instead."""
        return MechanicMatcher(
            (m.id, m.pattern) for m in self._mechanics.values() if not m.kind.startswith("keyword")
        )

    # Cards

    def _load_cards(self, records: Sequence[CardRecord]) -> None:
        if not records:
            return
        by_oracle = self._cards_where(cards.c.oracle_id, {r.oracle_id for r in records})
        by_name = self._cards_where(
            cards.c.name, {r.name for r in records if r.oracle_id not in by_oracle}
        )
        wanted_tags: dict[int, set[int]] = {}
        wanted_faces: dict[int, tuple[str, ...]] = {}
        english_names: dict[tuple[int, str], str] = {}
        term_matcher = self._term_matcher()
        placed: list[tuple[CardRecord, dict[str, Any]]] = []
        placed_rows: set[int] = set()
        new_rows: list[dict[str, Any]] = []
        # Rows of the cards new or changed here: only their name and text need a look.
        fresh: list[dict[str, Any]] = []
        for record in records:
            existing = by_oracle.get(record.oracle_id) if record.oracle_id else None
            existing = existing or by_name.get(record.name)
            values = {
                "name": record.name,
                "oracle_id": record.oracle_id,
                "mana_cost": record.mana_cost,
                "type_line": record.type_line,
                "oracle_text": record.oracle_text,
                "layout": record.layout,
            }
            if existing is None:
                existing = {"id": None, **values}
                new_rows.append(existing)
                fresh.append(existing)
                self.summary.counts["cards new"] += 1
            else:
                # A card's first record in a run gives its fields, later ones only fill gaps:
                # printings in later files may differ, and letting them flip the card would
                # make every re-import a change.
                first_this_run = (
                    existing["id"] not in self._cards_loaded and id(existing) not in placed_rows
                )
                changes = self._card_changes(existing, values, fill_only=not first_this_run)
                if existing["id"] is None:
                    existing.update(changes)
                elif changes:
                    self.connection.execute(
                        update(cards).where(cards.c.id == existing["id"]).values(**changes)
                    )
                    existing.update(changes)
                    fresh.append(existing)
                    self.summary.counts["cards updated"] += 1
                else:
                    self.summary.counts["cards unchanged"] += 1
            by_name[record.name] = existing
            if record.oracle_id:
                by_oracle[record.oracle_id] = existing
            placed.append((record, existing))
            placed_rows.add(id(existing))
        if new_rows:
            inserted = self.connection.execute(
                insert(cards).returning(cards.c.id, sort_by_parameter_order=True),
                [{key: value for key, value in row.items() if key != "id"} for row in new_rows],
            )
            for row, card_id in zip(new_rows, inserted.scalars(), strict=True):
                row["id"] = card_id
        fresh_ids = {row["id"] for row in fresh}
        for record, row in placed:
            card_id = row["id"]
            self._cards_loaded.add(card_id)
            if record.faces:
                wanted_faces[card_id] = record.faces
            tags = wanted_tags.setdefault(card_id, set())
            tags.update(self._mechanic_for_keyword(k).id for k in record.keywords)
            if card_id in fresh_ids:
                english_names[(card_id, "en")] = row["name"]
                tags.update(term_matcher.matches(row["oracle_text"] or ""))
        self._upsert_names(card_names, "card_id", english_names, counter="names")
        self._add_links(card_mechanics, "card_id", wanted_tags, counter="card tags new")
        self._sync_faces(wanted_faces)

    @staticmethod
    def _card_changes(
        existing: dict[str, Any], values: dict[str, Any], fill_only: bool
    ) -> dict[str, Any]:
        """What a record changes on a known card (only its empty fields if ``fill_only``).

        A card keeps the oracle_id it has: two Oracle cards of one name (Un-set variants) are
        one card here, and must not flip between ids.
        """
        return {
            key: value
            for key, value in values.items()
            if value is not None
            and existing[key] != value
            and (existing[key] is None or (not fill_only and key != "oracle_id"))
        }

    def _sync_faces(self, wanted: dict[int, tuple[str, ...]]) -> None:
        existing: dict[int, list[str]] = {}
        for chunk in chunks(wanted):
            query = (
                select(card_faces.c.card_id, card_faces.c.name)
                .where(card_faces.c.card_id.in_(chunk))
                .order_by(card_faces.c.card_id, card_faces.c.position)
            )
            for card_id, name in self.connection.execute(query):
                existing.setdefault(card_id, []).append(name)
        stale = [
            card_id for card_id, faces in wanted.items() if existing.get(card_id) != list(faces)
        ]
        for chunk in chunks(card_id for card_id in stale if card_id in existing):
            self.connection.execute(card_faces.delete().where(card_faces.c.card_id.in_(chunk)))
        rows = [
            {"card_id": card_id, "position": position, "name": name}
            for card_id in stale
            for position, name in enumerate(wanted[card_id])
        ]
        if rows:
            self.connection.execute(insert(card_faces), rows)

    def _cards_where(
        self, column: Any, keys: set[Any], columns: Sequence[Any] = (cards,)
    ) -> dict[Any, dict[str, Any]]:
        """Rows of the cards whose ``column`` is one of ``keys`` (selecting ``columns``)."""
        keys.discard(None)
        found: dict[Any, dict[str, Any]] = {}
        for chunk in chunks(keys):
            query = select(*columns).where(column.in_(chunk))
            for row in self.connection.execute(query).mappings().all():
                found[row[column.name]] = dict(row)
        return found

    # Names

    def _load_names(self, records: Sequence[CardNameRecord]) -> None:
        if not records:
            return
        resolved = self._resolve([r.card for r in records])
        wanted: dict[tuple[int, str], str] = {}
        for record in records:
            locale = canonical_locale(record.locale)
            if locale is None:
                self.summary.other_locales[record.locale] += 1
                continue
            card_id = resolved.get(record.card)
            if card_id is None:
                self._warn(record.line, f"a name for an unknown card: {_describe(record.card)}")
                continue
            wanted.setdefault((card_id, locale), record.name)
        # Bulk sources repeat a name on every printing, and older printings may spell it
        # differently: they only fill missing names, so the result does not depend on file order
        # and a re-import changes nothing. kb's own files (catalog, pages) are edited by people:
        # what they say wins.
        replace = self._source_format in HAND_EDITED_FORMATS
        self._upsert_names(card_names, "card_id", wanted, counter="names", replace=replace)

    def _upsert_names(
        self,
        table: Table,
        owner: str,
        wanted: dict[tuple[int, str], str],
        counter: str,
        replace: bool = True,
    ) -> None:
        """Insert (owner id, locale) → name rows, and change differing ones if ``replace``."""
        owner_column = table.c[owner]
        with_source = "source_id" in table.c
        columns = [owner_column, table.c.locale, table.c.name]
        existing: dict[tuple[int, str], str] = {}
        by_editor: set[tuple[int, str]] = set()  # names an editor wrote (no source file)
        for chunk in chunks({owner_id for owner_id, _ in wanted}):
            query = select(*columns, *([table.c.source_id] if with_source else [])).where(
                owner_column.in_(chunk)
            )
            for found in self.connection.execute(query):
                existing[found[0], found[1]] = found[2]
                if with_source and found[3] is None:
                    by_editor.add((found[0], found[1]))
        replaced = self._replaced_by_editors()[table.name] if by_editor else {}
        new_rows = []
        for (owner_id, locale), name in wanted.items():
            old = existing.get((owner_id, locale))
            if old is None:
                new_rows.append({owner: owner_id, "locale": locale, "name": name})
            elif (owner_id, locale) in by_editor and replaced.get((owner_id, locale)) == name:
                # The source still says what an editor corrected: the correction stands.
                self.summary.counts[f"{counter} as edited"] += 1
            elif old != name and replace:
                self.connection.execute(
                    update(table)
                    .where(and_(owner_column == owner_id, table.c.locale == locale))
                    .values(name=name, **({"source_id": self._source()} if with_source else {}))
                )
                self.summary.counts[f"{counter} changed" if with_source else counter] += 1
            elif with_source:
                self.summary.counts[f"{counter} unchanged"] += 1
        if new_rows:
            if with_source:
                for row in new_rows:
                    row["source_id"] = self._source()
            self.connection.execute(insert(table), new_rows)
            if with_source:
                self.summary.counts[f"{counter} new"] += len(new_rows)

    # Card references

    def _resolve(self, refs: Sequence[CardRef]) -> dict[CardRef, int]:
        """Card ids for the references that name a known card."""
        unique = set(refs)
        identity = (cards.c.id, cards.c.oracle_id, cards.c.name)
        by_oracle = self._cards_where(cards.c.oracle_id, {r.oracle_id for r in unique}, identity)
        unresolved_names = {r.name for r in unique if r.oracle_id not in by_oracle}
        by_name = self._cards_where(cards.c.name, unresolved_names, identity)
        resolved: dict[CardRef, int] = {}
        for ref in unique:
            row = (by_oracle.get(ref.oracle_id) if ref.oracle_id else None) or by_name.get(ref.name)
            if ref.localized_name is not None:
                card_id = self._card_by_localized_name(ref, row)
                if card_id is not None:
                    resolved[ref] = card_id
            elif row is not None:
                resolved[ref] = row["id"]
        return resolved

    def _card_by_localized_name(self, ref: CardRef, named: dict[str, Any] | None) -> int | None:
        """The card a page's title names; ``--card`` (``named``) records the title as its name."""
        assert ref.localized_name is not None
        query = select(card_names.c.card_id, card_names.c.locale).where(
            card_names.c.name == ref.localized_name
        )
        matches = {
            row.card_id
            for row in self.connection.execute(query)
            if ref.locale is None or row.locale == ref.locale
        }
        if not matches:  # a name an editor corrected still names its card
            matches = {
                card_id
                for (card_id, locale), name in self._replaced_by_editors()["card_names"].items()
                if name == ref.localized_name and (ref.locale is None or locale == ref.locale)
            }
        if named is not None:
            if (
                ref.locale is not None
                and named["id"] not in matches
                and not self._keeps_official_name(named["id"], ref)
            ):
                self._upsert_names(
                    card_names,
                    "card_id",
                    {(named["id"], ref.locale): ref.localized_name},
                    counter="names",
                )
            return int(named["id"])
        if ref.name is not None:
            raise ParseError(self.path, f"--card: no card named {ref.name!r} in the store")
        if len(matches) == 1:
            return int(matches.pop())
        if matches:
            raise ParseError(
                self.path, f"{ref.localized_name!r} names {len(matches)} cards: use --card", 1
            )
        raise ParseError(self.path, self._unknown_name_reason(ref), 1)

    def _keeps_official_name(self, card_id: int, ref: CardRef) -> bool:
        """Whether the card's name is official, so a page's title may not replace it (see
        kb.official_names); counted and told when so."""
        assert ref.locale is not None
        if self.replace_names:
            return False
        kept = name_a_page_keeps(self.connection, card_id, ref.locale)
        if kept is None:
            return False
        self.summary.counts["names kept official"] += 1
        self._warn(
            1,
            f"kept {kept.name!r} ({ref.locale}, from {kept.source}) over the title "
            f"{ref.localized_name!r} (--replace-name replaces it)",
        )
        return True

    def _unknown_name_reason(self, ref: CardRef) -> str:
        assert ref.localized_name is not None
        names = self.connection.execute(select(card_names.c.name).distinct()).scalars().all()
        close = difflib.get_close_matches(ref.localized_name, names, n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(repr(n) for n in close)}?)" if close else ""
        where = f" in {ref.locale}" if ref.locale else ""
        return (
            f"unknown card name {ref.localized_name!r}{where}{hint}; "
            'name its card with --card "English name"'
        )

    def locale_of_name(self, name: str, must_exist: bool = True) -> str | None:
        """The locale of a printed name, when the store knows it in exactly one.

        A name the store does not know at all is an error (with close matches) when
        ``must_exist``: no ``--card`` names the page's card.
        """
        query = select(card_names.c.locale).where(card_names.c.name == name).distinct()
        found = self.connection.execute(query).scalars().all()
        if not found and must_exist:
            raise ParseError(self.path, self._unknown_name_reason(CardRef(localized_name=name)), 1)
        return found[0] if len(found) == 1 else None

    # Rulings

    def _replaced_by_editors(self) -> dict[str, dict[Any, Any]]:
        """What community editors replaced or removed (``kb edit``, the revisions), read once
        per import: a source that still says it means the row as corrected. ``rulings``: each
        replaced text's key → its ruling; ``card_names``: (card, locale) → the name replaced
        last; ``card_mechanics`` and ``ruling_mechanics``: (owner, mechanic) → whether the
        tag's last edit removed it."""
        if self._edits is None:
            edits: dict[str, dict[Any, Any]] = {table: {} for table in _EDITED_TABLES}
            query = (
                select(
                    revisions.c.table_name,
                    revisions.c.row_key,
                    revisions.c.old_value,
                    revisions.c.new_value,
                )
                .where(revisions.c.table_name.in_(_EDITED_TABLES))
                .order_by(revisions.c.id)
            )
            for table, key, old, new in self.connection.execute(query):
                if table == "rulings" and old and old.get("text"):
                    edits[table][text_key(old["text"])] = key["id"]
                elif table == "card_names" and old and old.get("name"):
                    edits[table][key["card_id"], key["locale"]] = old["name"]
                elif table in ("card_mechanics", "ruling_mechanics"):
                    owner = key["card_id"] if table == "card_mechanics" else key["ruling_id"]
                    edits[table][owner, key["mechanic_id"]] = new is None
            self._edits = edits
        return self._edits

    def _load_rulings(self, records: Sequence[RulingRecord]) -> None:
        if not records:
            return
        resolved = self._resolve([r.card for r in records])
        known: list[tuple[int, str, RulingRecord]] = []
        for record in records:
            card_id = resolved.get(record.card)
            if card_id is None:
                # Not stored at all: a ruling row must stand on at least one card.
                self._warn(record.line, f"a ruling for an unknown card: {_describe(record.card)}")
                continue
            known.append((card_id, text_key(record.text), record))
        texts: dict[str, RulingRecord] = {}
        for _, key, record in known:
            texts.setdefault(key, record)
        ruling_ids = self._ruling_ids(texts)
        links: dict[tuple[int, int], RulingRecord] = {}
        for card_id, key, record in known:
            links.setdefault((card_id, ruling_ids[key]), record)
        self._upsert_card_rulings(links)

    def _ruling_ids(self, texts: dict[str, RulingRecord]) -> dict[str, int]:
        """The ruling id for each text key: existing, mended or new."""
        known: dict[str, int] = {}
        for chunk in chunks(texts):
            query = select(rulings.c.id, rulings.c.text_key, rulings.c.origin).where(
                rulings.c.text_key.in_(chunk)
            )
            for row in self.connection.execute(query):
                known[row.text_key] = row.id
                origin = texts[row.text_key].origin
                if origin and row.origin is None:
                    self._set_ruling(row.id, origin=origin)
        self.summary.counts["rulings reused"] += len(known)
        if len(known) < len(texts):
            replaced = self._replaced_by_editors()["rulings"]
            for key in texts.keys() - known.keys():
                if key in replaced:
                    known[key] = replaced[key]
                    self.summary.counts["rulings as edited"] += 1
        missing = {
            key: (record, ruling_keys(record.text))
            for key, record in texts.items()
            if key not in known
        }
        skeletons = self._rulings_by_skeleton(
            {keys["skeleton_key"] for _, keys in missing.values()}
        )
        new_rows = []
        for key, (record, keys) in missing.items():
            variant = self._damaged_variant(record.text, skeletons.get(keys["skeleton_key"]))
            if variant is not None:
                kept = better_text(variant["text"], record.text)
                if kept != variant["text"]:  # the incoming text, whose keys these are
                    self._set_ruling(variant["id"], text=kept, **keys)
                    variant["text"] = kept
                    self.summary.counts["rulings improved"] += 1
                else:
                    self.summary.counts["rulings reused"] += 1
                known[key] = variant["id"]
                continue
            new_rows.append({"text": record.text.strip(), **keys, "origin": record.origin})
        if new_rows:
            # One statement per batch; RETURNING gives the new ids in insertion order.
            returned = self.connection.execute(
                insert(rulings).returning(
                    rulings.c.id, rulings.c.text_key, sort_by_parameter_order=True
                ),
                new_rows,
            )
            for row in returned:
                known[row.text_key] = row.id
                self._touched_rulings.add(row.id)
                self._texts_written.add(row.id)
            self.summary.counts["rulings new"] += len(new_rows)
        return known

    def _rulings_by_skeleton(self, keys: set[str]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for chunk in chunks(keys):
            query = select(rulings.c.id, rulings.c.text, rulings.c.skeleton_key).where(
                rulings.c.skeleton_key.in_(chunk)
            )
            for row in self.connection.execute(query):
                found.setdefault(row.skeleton_key, []).append(dict(row._mapping))
        return found

    @staticmethod
    def _damaged_variant(
        text: str, candidates: list[dict[str, Any]] | None
    ) -> dict[str, Any] | None:
        """The stored ruling that ``text`` is a damaged copy of (or that is one of ``text``)."""
        if not candidates or len(candidates) > 1:
            return None
        candidate = candidates[0]
        if has_symbols(candidate["text"]) and has_symbols(text):
            return None
        return candidate

    def _set_ruling(self, ruling_id: int, **values: Any) -> None:
        self.connection.execute(update(rulings).where(rulings.c.id == ruling_id).values(**values))
        self._touched_rulings.add(ruling_id)
        if "text" in values:
            self._texts_written.add(ruling_id)

    def _upsert_card_rulings(self, links: dict[tuple[int, int], RulingRecord]) -> None:
        existing: dict[tuple[int, int], Any] = {}
        for chunk in chunks(links):
            query = select(card_rulings).where(
                tuple_(card_rulings.c.card_id, card_rulings.c.ruling_id).in_(chunk)
            )
            existing.update(
                {(r.card_id, r.ruling_id): r for r in self.connection.execute(query).all()}
            )
        next_position = self._next_positions({card_id for card_id, _ in links})
        new_rows: list[dict[str, Any]] = []
        for (card_id, ruling_id), record in links.items():
            old = existing.get((card_id, ruling_id))
            if old is None:
                position = next_position[card_id]
                next_position[card_id] += 1
                new_rows.append(
                    {
                        "card_id": card_id,
                        "ruling_id": ruling_id,
                        "published_on": record.published_on,
                        "position": position,
                        "source_id": self._source(),
                    }
                )
            elif old.published_on is None and record.published_on is not None:
                # A dated source also knows the publication order that an undated page lost.
                self.connection.execute(
                    update(card_rulings)
                    .where(
                        and_(
                            card_rulings.c.card_id == card_id,
                            card_rulings.c.ruling_id == ruling_id,
                        )
                    )
                    .values(
                        published_on=record.published_on,
                        position=record.position if record.position is not None else old.position,
                        source_id=self._source(),
                    )
                )
                self.summary.counts["links dated"] += 1
            else:
                self.summary.counts["links unchanged"] += 1
        if new_rows:
            self.connection.execute(insert(card_rulings), new_rows)
            self.summary.counts["links new"] += len(new_rows)
            self._touched_rulings.update(row["ruling_id"] for row in new_rows)

    def _next_positions(self, card_ids: set[int]) -> Counter[int]:
        """Where each card's next new ruling goes: after the ones it has."""
        positions: Counter[int] = Counter()
        for chunk in chunks(card_ids):
            query = (
                select(card_rulings.c.card_id, func.max(card_rulings.c.position))
                .where(card_rulings.c.card_id.in_(chunk))
                .group_by(card_rulings.c.card_id)
            )
            for card_id, highest in self.connection.execute(query):
                positions[card_id] = highest + 1
        return positions

    # Links and tags

    def _add_links(
        self, table: Table, owner: str, wanted: dict[int, set[int]], counter: str
    ) -> None:
        """Add (owner, mechanic) tags that are missing; tags are never removed by an import, and
        one an editor removed is not added back."""
        owner_column = table.c[owner]
        existing: set[tuple[int, int]] = set()
        for chunk in chunks(wanted):
            query = select(owner_column, table.c.mechanic_id).where(owner_column.in_(chunk))
            existing.update((row[0], row[1]) for row in self.connection.execute(query).all())
        untagged = self._replaced_by_editors()[table.name]
        new_rows = [
            {owner: owner_id, "mechanic_id": mechanic_id}
            for owner_id, mechanic_ids in wanted.items()
            for mechanic_id in sorted(mechanic_ids)
            if (owner_id, mechanic_id) not in existing
            and not untagged.get((owner_id, mechanic_id), False)
        ]
        if new_rows:
            self.connection.execute(insert(table), new_rows)
            self.summary.counts[counter] += len(new_rows)

    def finish(self) -> Summary:
        """Tag the rulings this run touched (all of them after a mechanic changed)."""
        if self._retag_everything:
            self._retag_cards()
            ruling_ids: Iterable[int] = self.connection.execute(select(rulings.c.id)).scalars()
        else:
            ruling_ids = sorted(self._touched_rulings)
        matcher = self._matcher()
        for chunk in chunks(list(ruling_ids)):
            self._tag_rulings(chunk, matcher)
        refresh_near_duplicates(self.connection, self._texts_written)
        return self.summary

    def _retag_cards(self) -> None:
        term_matcher = self._term_matcher()
        wanted: dict[int, set[int]] = {}
        for row in self.connection.execute(select(cards.c.id, cards.c.oracle_text)):
            found = term_matcher.matches(row.oracle_text or "")
            if found:
                wanted[row.id] = found
        for chunk in chunks(wanted):
            self._add_links(
                card_mechanics, "card_id", {k: wanted[k] for k in chunk}, counter="card tags new"
            )

    def _tag_rulings(self, ruling_ids: list[int], matcher: MechanicMatcher) -> None:
        query = select(rulings.c.id, rulings.c.text).where(rulings.c.id.in_(ruling_ids))
        texts = {row.id: row.text for row in self.connection.execute(query)}
        cards_of: dict[int, set[int]] = {}
        for ruling_id, card_id in self.connection.execute(
            select(card_rulings.c.ruling_id, card_rulings.c.card_id).where(
                card_rulings.c.ruling_id.in_(ruling_ids)
            )
        ):
            cards_of.setdefault(ruling_id, set()).add(card_id)
        tags_of_card: dict[int, set[int]] = {}
        all_cards = set().union(*cards_of.values()) if cards_of else set()
        for chunk in chunks(all_cards):
            for card_id, mechanic_id in self.connection.execute(
                select(card_mechanics.c.card_id, card_mechanics.c.mechanic_id).where(
                    card_mechanics.c.card_id.in_(chunk)
                )
            ):
                tags_of_card.setdefault(card_id, set()).add(mechanic_id)
        wanted: dict[int, set[int]] = {}
        for ruling_id, text in texts.items():
            tags = matcher.matches(normalize(text))
            linked = cards_of.get(ruling_id, set())
            # A ruling that stands on several cards, all of one mechanic, is its general ruling.
            if len(linked) >= 2:
                tags |= set.intersection(*(tags_of_card.get(c, set()) for c in linked))
            if tags:
                wanted[ruling_id] = tags
        self._add_links(ruling_mechanics, "ruling_id", wanted, counter="ruling tags new")

    def _warn(self, line: int | None, message: str) -> None:
        where = f"{self.path}:{line}" if line is not None else self.path
        self.summary.warnings.append(f"{where}: {message}")


def _describe(ref: CardRef) -> str:
    return ref.name or ref.oracle_id or ref.localized_name or "?"
