"""Printed texts: for each card, locale and face, the row of the most recent printing.

A printed text record replaces the stored row only when its printing ranks higher
(``Printing.rank``: a later release date, then set code and collector number), so the result
does not depend on the order in which files come, and importing a file again changes nothing.
Two copies of one printing (MTGJSON's and Scryfall's) rank alike: the one stored first stays.

The same printing read again from a source of the stored row's format, by a later import run
(the first import after an upgrade of kb's parsers, which reads their files again; ``--force``;
a newer file of the same source), replaces the row where it reads otherwise: the parsers'
repairs (kb/importers/mtgjson_texts.py) and the source's own fixes reach a store imported
before them. Within one run the first stays, as above; a column an editor corrected keeps the
editor's value.

The card's name in the locale follows the same printing, where the source gives it (MTGJSON's
and Scryfall's printings name the whole card beside each text): a printing written here
replaces a name that a bulk source gave, or one that is the English name (a gap in a source's
data), so that the page's title and its printed text agree ("Toucher de l'Éthermage", 2018,
over "Toucher de l'Aethermage", 2013). Names from kb's catalog, pages and editors stay.

An editor's correction (``kb edit printed-text``, ``printed-type-line``, ``face-name``) stands
while a later printing still says what the editor replaced: that column keeps the editor's
value, the rest of the row follows the new printing. A later printing that says something else
is a new translation, and replaces the correction (which ``kb history`` keeps).

A face's printed name that is its English one, on a card whose name in the locale is translated
face by face, is a gap in the source's data (MTGJSON gives Commander 2019's German Dusk // Dawn
the faces "Dusk" and "Dawn" under the name of Amonkhet's "Sonnenuntergang // Sonnenaufgang"):
``name_faces`` takes the face's part of the card's name, once every text and name is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, select, update

from kb.formats import MTGJSON, SCRYFALL_CARDS
from kb.loader.names import Key as NameKey
from kb.loader.names import Names
from kb.loader.references import CardReferences, describe
from kb.loader.state import LoadState
from kb.loader.tables import card_faces, card_names, cards, printed_texts, sources
from kb.locales import canonical_locale
from kb.records import FACE_SEPARATOR, PrintedTextRecord, Printing

EDITED_COLUMNS = ("face_name", "type_line", "text")
"""The columns of a printed text that editors correct."""
PRINTING_COLUMNS = ("set_code", "collector_number", "released_on")
KEY_COLUMNS = ("card_id", "locale", "face")
ROW_COLUMNS = (
    "face_name",
    "type_line",
    "text",
    "english_type_line",
    "english_text",
    *PRINTING_COLUMNS,
)
"""The columns ``_row`` gives, in its order."""

Key = tuple[int, str, int]
"""A printed text's card id, locale and face."""
BULK_FORMATS = frozenset({MTGJSON, SCRYFALL_CARDS})


class Texts:
    """Writes printed text records."""

    def __init__(self, state: LoadState, references: CardReferences, names: Names) -> None:
        self.state = state
        self.references = references
        self.names = names
        self._formats: dict[int, str] = {}
        """Each source's format, by id: a bulk file's names a later printing replaces."""

    def load(self, records: Sequence[PrintedTextRecord]) -> None:
        if not records:
            return
        wanted = self._best_of_batch(records)
        stored = self._stored(wanted)
        corrections: dict[Key, dict[str, set[Any]]] = self.state.corrections()["printed_texts"]
        counts = self.state.summary.counts
        new_rows: list[tuple[Any, ...]] = []
        changed_rows: list[tuple[dict[str, Any], Key]] = []
        again: list[Key] = []
        reread: list[tuple[dict[str, Any], Key]] = []
        for key, record in wanted.items():
            row = _row(record)
            old = stored.get(key)
            if old is None:
                new_rows.append((*key, *row.values()))
                continue
            rank = _printing(old).rank
            if rank == record.printing.rank and self._read_before(old["source_id"]):
                again.append(key)
                if self._reads_otherwise(record, row, old, corrections.get(key, {})):
                    reread.append((row, key))
                else:
                    counts["texts unchanged"] += 1
                continue
            if rank >= record.printing.rank:
                counts["texts unchanged"] += 1
                continue
            replaced = corrections.get(key, {})
            for column in EDITED_COLUMNS:
                if row[column] != old[column] and row[column] in replaced.get(column, ()):
                    # The new printing still says what an editor corrected: the correction stands.
                    row[column] = old[column]
                    counts["texts as edited"] += 1
            changed_rows.append((row, key))
        if new_rows:
            source_id = self.state.source()
            self.state.bulk.insert(
                printed_texts,
                (*KEY_COLUMNS, *ROW_COLUMNS, "source_id"),
                [(*row, source_id) for row in new_rows],
            )
            counts["texts new"] += len(new_rows)
        if changed_rows or reread:
            source_id = self.state.source()
            self.state.bulk.update(
                printed_texts,
                (*ROW_COLUMNS, "source_id"),
                KEY_COLUMNS,
                [(*row.values(), source_id, *key) for row, key in (*changed_rows, *reread)],
            )
            counts["texts changed"] += len(changed_rows)
            counts["texts reread"] += len(reread)
        # The cards' names follow every printing written or read again (a name an older kb
        # gave, too).
        later = (key for _, key in changed_rows)
        self._name_cards(wanted, [*(row[:3] for row in new_rows), *later, *again])

    def _read_before(self, source_id: int | None) -> bool:
        """Whether a stored row's source is of this file's format and an earlier run's: its
        printing read again is worth comparing (the module's docstring)."""
        if source_id is None or source_id in self.state.sources_written:
            return False
        return self._format(source_id) == self.state.source_format

    def _reads_otherwise(
        self,
        record: PrintedTextRecord,
        row: dict[str, Any],
        old: dict[str, Any],
        edited: dict[str, set[Any]],
    ) -> bool:
        """Whether a printing stored by an earlier run, read again, now reads otherwise than
        the stored ``old``; ``row`` becomes what ``load`` writes. An editor's column stays the
        editor's."""
        if _english_face(record):
            row["face_name"] = old["face_name"]  # as ``name_faces`` named it
        for column in edited:
            if row[column] != old[column]:
                row[column] = old[column]
                self.state.summary.counts["texts as edited"] += 1
        return any(row[column] != old[column] for column in ROW_COLUMNS)

    def _name_cards(self, wanted: dict[Key, PrintedTextRecord], written: list[Key]) -> None:
        """The cards' names in the locales of the texts ``written``: their printings'."""
        names: dict[NameKey, str] = {}
        english: dict[NameKey, str] = {}
        for key in written:
            record = wanted[key]
            if record.card_name and record.card_name != record.card.name:
                names[key[0], key[1]] = record.card_name
                if record.card.name:
                    english[key[0], key[1]] = record.card.name
        if names:
            self.names.upsert(
                card_names,
                "card_id",
                names,
                "names",
                replace=self._from_bulk,
                translating=english,
                count_unchanged=False,
            )

    def name_faces(self) -> None:
        """Each imported face name that is the English one, where the card's name in the locale
        is translated face by face: the face's part of that name (see the module's docstring),
        but where an editor set it. Reads every such face, a few hundred rows."""
        p, f, n, c = printed_texts.c, card_faces.c, card_names.c, cards.c
        query = (
            select(p.card_id, p.locale, p.face, n.name, c.name)
            .join(card_faces, and_(f.card_id == p.card_id, f.position == p.face))
            .join(card_names, and_(n.card_id == p.card_id, n.locale == p.locale))
            .join(cards, c.id == p.card_id)
            .where(
                p.face_name == f.name,
                n.name != c.name,
                p.source_id.is_not(None),
                # Read from the few cards of several faces: a new store has no statistics yet,
                # and SQLite would read every printed text (0.07-0.14 s on the real corpus).
                p.card_id.in_(select(f.card_id)),
            )
        )
        edited = self.state.corrections()["printed_texts"]
        for card_id, locale, face, localized, english in self.state.connection.execute(query).all():
            parts, english_parts = localized.split(FACE_SEPARATOR), english.split(FACE_SEPARATOR)
            if len(parts) != len(english_parts) or parts[face] == english_parts[face]:
                continue
            if "face_name" in edited.get((card_id, locale, face), {}):
                continue  # an editor's, if the English one: it stands
            self.state.connection.execute(
                update(printed_texts)
                .where(p.card_id == card_id, p.locale == locale, p.face == face)
                .values(face_name=parts[face])
            )
            self.state.summary.counts["texts faces named"] += 1

    def _from_bulk(self, source_id: int) -> bool:
        """Whether the source is a bulk file (MTGJSON or Scryfall cards), not kb's own."""
        return self._format(source_id) in BULK_FORMATS

    def _format(self, source_id: int) -> str:
        found = self._formats.get(source_id)
        if found is None:
            query = sources.select().with_only_columns(sources.c.format)
            format_ = self.state.connection.execute(query.where(sources.c.id == source_id))
            found = self._formats[source_id] = format_.scalar_one()
        return found

    def _best_of_batch(self, records: Sequence[PrintedTextRecord]) -> dict[Key, PrintedTextRecord]:
        """Each key's highest-ranking record of the batch (the first of equal ranks)."""
        resolved = self.references.resolve([r.card for r in records])
        wanted: dict[Key, PrintedTextRecord] = {}
        for record in records:
            locale = canonical_locale(record.locale)
            if locale is None or locale == "en":
                continue  # a language outside the 11 (its name is counted as such)
            card_id = resolved.get(record.card)
            if card_id is None:
                self.state.warn(record.line, f"a text for an unknown card: {describe(record.card)}")
                continue
            key = (card_id, locale, record.face)
            kept = wanted.get(key)
            if kept is None or record.printing.rank > kept.printing.rank:
                wanted[key] = record
        return wanted

    def _stored(self, wanted: dict[Key, PrintedTextRecord]) -> dict[Key, dict[str, Any]]:
        """The stored rows of the wanted keys' cards: every column where a row may be an
        earlier run's (``_reads_otherwise`` compares them), else those ``load`` compares."""
        compared = ROW_COLUMNS if self.state.read_before else (*EDITED_COLUMNS, *PRINTING_COLUMNS)
        columns = (*KEY_COLUMNS, *compared, "source_id")
        stored: dict[Key, dict[str, Any]] = {}
        cards = {card_id for card_id, _, _ in wanted}
        for found in self.state.bulk.select_in(printed_texts, columns, "card_id", cards):
            key = (found[0], found[1], found[2])
            if key in wanted:
                stored[key] = dict(zip(columns, found, strict=True))
        return stored


def _row(record: PrintedTextRecord) -> dict[str, Any]:
    """The columns a record writes, but its key and source."""
    return {
        "face_name": record.face_name,
        "type_line": record.type_line,
        "text": record.text,
        "english_type_line": record.english_type_line,
        "english_text": record.english_text,
        "set_code": record.printing.set_code,
        "collector_number": record.printing.collector_number,
        "released_on": record.printing.released_on,
    }


def _english_face(record: PrintedTextRecord) -> bool:
    """Whether the record names its face as the English does (a gap ``name_faces`` fills)."""
    english = (record.card.name or "").split(FACE_SEPARATOR)
    return len(english) > record.face and record.face_name == english[record.face]


def _printing(row: dict[str, Any]) -> Printing:
    return Printing(row["set_code"], row["collector_number"], row["released_on"])
