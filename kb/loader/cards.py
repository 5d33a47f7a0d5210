"""Cards, their faces and their names: the records of Oracle cards and of their printed names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import update

from kb.batches import chunks
from kb.loader.mechanics import Mechanics
from kb.loader.names import Names
from kb.loader.references import CardReferences, describe
from kb.loader.state import LoadState, Placed
from kb.loader.tables import card_faces, card_names, cards
from kb.loader.tags import Tags
from kb.locales import canonical_locale
from kb.records import CardNameRecord, CardRecord, OracleFace

HAND_EDITED_FORMATS = frozenset({"catalog", "seed-page"})
FACE_COLUMNS = ("name", "mana_cost", "type_line", "oracle_text")
"""card_faces' columns, named as OracleFace's fields."""
CARD_VALUES = ("name", "oracle_id", "mana_cost", "type_line", "oracle_text", "layout")
"""The columns a card record gives."""


class Cards:
    """Writes card records (with faces, English names and tags) and card name records."""

    def __init__(
        self,
        state: LoadState,
        references: CardReferences,
        names: Names,
        mechanics: Mechanics,
        tags: Tags,
    ) -> None:
        self.state = state
        self.references = references
        self.names = names
        self.mechanics = mechanics
        self.tags = tags
        self._cards_loaded: set[int] = set()
        self._faces_loaded: set[int] = set()
        """Cards whose faces a record of this run gave: later records do not change them."""
        self._empty_sets: dict[frozenset[str], frozenset[str]] = {}
        """One copy of each set of empty columns that ``LoadState.placed`` holds."""

    def load(self, records: Sequence[CardRecord]) -> None:
        if not records:
            return
        rows: list[dict[str, Any]] = []  # each record's card, in the records' order
        looked_up: list[tuple[CardRecord, int]] = []
        for record in records:
            card_id = self._placed_unchanged(record)
            if card_id is None:
                looked_up.append((record, len(rows)))
            else:
                self.state.summary.counts["cards unchanged"] += 1
            rows.append({"id": card_id})
        by_oracle = self.references.cards_where("oracle_id", {r.oracle_id for r, _ in looked_up})
        by_name = self.references.cards_where(
            "name", {r.name for r, _ in looked_up if r.oracle_id not in by_oracle}
        )
        listed_tags: dict[int, set[int]] = {}
        text_tags: dict[int, set[int]] = {}
        wanted_faces: dict[int, tuple[OracleFace, ...]] = {}
        english_names: dict[tuple[int, str], str] = {}
        text_matcher = self.mechanics.text_matcher()
        placed_rows: set[int] = set()
        new_rows: list[dict[str, Any]] = []
        # Rows of the cards new or changed here: only their name and text need a look.
        fresh: list[dict[str, Any]] = []
        for record, position in looked_up:
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
                self.state.summary.counts["cards new"] += 1
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
                    self.state.connection.execute(
                        update(cards).where(cards.c.id == existing["id"]).values(**changes)
                    )
                    existing.update(changes)
                    fresh.append(existing)
                    self.state.summary.counts["cards updated"] += 1
                else:
                    self.state.summary.counts["cards unchanged"] += 1
            by_name[record.name] = existing
            if record.oracle_id:
                by_oracle[record.oracle_id] = existing
            rows[position] = existing
            placed_rows.add(id(existing))
        if new_rows:
            inserted = self.state.bulk.insert_ids(
                cards, CARD_VALUES, [[row[key] for key in CARD_VALUES] for row in new_rows]
            )
            for row, card_id in zip(new_rows, inserted, strict=True):
                row["id"] = card_id
        for _, position in looked_up:  # the rows read or written here, as they stand now
            self._remember(rows[position])
        fresh_ids = {row["id"] for row in fresh}
        for record, row in zip(records, rows, strict=True):
            card_id = row["id"]
            self._cards_loaded.add(card_id)
            if record.faces and card_id not in self._faces_loaded:
                # As a card's fields: its first record in a run gives its faces.
                self._faces_loaded.add(card_id)
                wanted_faces[card_id] = record.oracle_faces or tuple(map(OracleFace, record.faces))
            tags = listed_tags.setdefault(card_id, set())
            tags.update(self.mechanics.for_keyword(k).id for k in record.keywords)
            if card_id in fresh_ids:
                english_names[(card_id, "en")] = row["name"]
                read = text_matcher.matches(row["oracle_text"] or "")
                if read:
                    text_tags.setdefault(card_id, set()).update(read)
        self.names.upsert(card_names, "card_id", english_names, counter="names")
        self.tags.add_to_cards(listed_tags, text_tags)
        self._sync_faces(wanted_faces)

    def _placed_unchanged(self, record: CardRecord) -> int | None:
        """The id of the record's card if this run placed it and the record fills none of its
        empty columns. A card's later records in a run only fill its empty columns
        (``_card_changes`` with ``fill_only``): such a record changes nothing, and its card
        needs no look."""
        found = self.state.placed.get(record.oracle_id) if record.oracle_id else None
        if found is None or any(getattr(record, column) is not None for column in found.empty):
            return None
        return found.card_id

    def _remember(self, row: dict[str, Any]) -> None:
        if self.state.remembers and row["oracle_id"]:
            empty = frozenset(column for column in CARD_VALUES if row[column] is None)
            self.state.placed[row["oracle_id"]] = Placed(
                row["id"], self._empty_sets.setdefault(empty, empty)
            )

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

    def _sync_faces(self, wanted: dict[int, tuple[OracleFace, ...]]) -> None:
        existing: dict[int, list[OracleFace]] = {}
        found = self.state.bulk.select_in(
            card_faces, ("card_id", "position", *FACE_COLUMNS), "card_id", wanted
        )
        for card_id, _, *values in sorted(found, key=lambda row: (row[0], row[1])):
            existing.setdefault(card_id, []).append(OracleFace(*values))
        stale = [
            card_id for card_id, faces in wanted.items() if existing.get(card_id) != list(faces)
        ]
        for chunk in chunks(card_id for card_id in stale if card_id in existing):
            self.state.connection.execute(
                card_faces.delete().where(card_faces.c.card_id.in_(chunk))
            )
        rows = [
            (card_id, position, *(getattr(face, name) for name in FACE_COLUMNS))
            for card_id in stale
            for position, face in enumerate(wanted[card_id])
        ]
        self.state.bulk.insert(card_faces, ("card_id", "position", *FACE_COLUMNS), rows)

    def load_names(self, records: Sequence[CardNameRecord]) -> None:
        if not records:
            return
        resolved = self.references.resolve([r.card for r in records])
        wanted: dict[tuple[int, str], str] = {}
        english_of: dict[tuple[int, str], str] = {}
        untranslated: set[tuple[int, str]] = set()  # wanted names that are the English one
        for record in records:
            locale = canonical_locale(record.locale)
            if locale is None:
                self.state.summary.other_locales[record.locale] += 1
                continue
            card_id = resolved.get(record.card)
            if card_id is None:
                self.state.warn(record.line, f"a name for an unknown card: {describe(record.card)}")
                continue
            key = (card_id, locale)
            if record.card.name:
                english_of[key] = record.card.name
            english = locale != "en" and record.name == record.card.name
            if key not in wanted or (key in untranslated and not english):
                wanted[key] = record.name
                if english:
                    untranslated.add(key)
                else:
                    untranslated.discard(key)
        # Bulk sources repeat a name on every printing: a name record only fills a missing name
        # (the name follows the most recent printing with a printed text: kb.loader.texts), so
        # a re-import changes nothing. But a source's "translation" that is the English name is
        # a gap in its data (MTGJSON gives Commander 2019's German Farm // Market so, where Hour
        # of Devastation's is "Feld // Markt"): a translation replaces it, whichever comes
        # first. kb's own files (catalog, pages) are edited by people: what they say wins.
        translating = {
            key: english_of[key] for key in wanted.keys() - untranslated if key in english_of
        }
        hand_edited = self.state.source_format in HAND_EDITED_FORMATS
        self.names.upsert(
            card_names, "card_id", wanted, "names", replace=hand_edited, translating=translating
        )
