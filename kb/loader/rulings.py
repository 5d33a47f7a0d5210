"""Rulings: one row per text whatever its typography, a damaged copy mended into the ruling it is
a copy of, and each ruling linked to its cards in publication order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, func, insert, select, tuple_, update

from kb.batches import chunks
from kb.derived import ruling_keys
from kb.loader.references import CardReferences, describe
from kb.loader.state import LoadState
from kb.loader.tables import card_rulings, rulings
from kb.records import RulingRecord
from kb.text import better_text, has_symbols, text_key


class Rulings:
    """Writes ruling records: the ruling rows, and the links from their cards."""

    def __init__(self, state: LoadState, references: CardReferences) -> None:
        self.state = state
        self.references = references

    def load(self, records: Sequence[RulingRecord]) -> None:
        if not records:
            return
        resolved = self.references.resolve([r.card for r in records])
        known: list[tuple[int, str, RulingRecord]] = []
        for record in records:
            card_id = resolved.get(record.card)
            if card_id is None:
                # Not stored at all: a ruling row must stand on at least one card.
                self.state.warn(
                    record.line, f"a ruling for an unknown card: {describe(record.card)}"
                )
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
            for row in self.state.connection.execute(query):
                known[row.text_key] = row.id
                origin = texts[row.text_key].origin
                if origin and row.origin is None:
                    self._set_ruling(row.id, origin=origin)
        self.state.summary.counts["rulings reused"] += len(known)
        if len(known) < len(texts):
            replaced = self.state.corrections()["rulings"]
            for key in texts.keys() - known.keys():
                if key in replaced:
                    known[key] = replaced[key]
                    self.state.summary.counts["rulings as edited"] += 1
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
                    self.state.summary.counts["rulings improved"] += 1
                else:
                    self.state.summary.counts["rulings reused"] += 1
                known[key] = variant["id"]
                continue
            new_rows.append({"text": record.text.strip(), **keys, "origin": record.origin})
        if new_rows:
            # One statement per batch; RETURNING gives the new ids in insertion order.
            returned = self.state.connection.execute(
                insert(rulings).returning(
                    rulings.c.id, rulings.c.text_key, sort_by_parameter_order=True
                ),
                new_rows,
            )
            for row in returned:
                known[row.text_key] = row.id
                self.state.touched_rulings.add(row.id)
                self.state.texts_written.add(row.id)
            self.state.summary.counts["rulings new"] += len(new_rows)
        return known

    def _rulings_by_skeleton(self, keys: set[str]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for chunk in chunks(keys):
            query = select(rulings.c.id, rulings.c.text, rulings.c.skeleton_key).where(
                rulings.c.skeleton_key.in_(chunk)
            )
            for row in self.state.connection.execute(query):
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
        self.state.connection.execute(
            update(rulings).where(rulings.c.id == ruling_id).values(**values)
        )
        self.state.touched_rulings.add(ruling_id)
        if "text" in values:
            self.state.texts_written.add(ruling_id)

    def _upsert_card_rulings(self, links: dict[tuple[int, int], RulingRecord]) -> None:
        existing: dict[tuple[int, int], Any] = {}
        for chunk in chunks(links):
            query = select(card_rulings).where(
                tuple_(card_rulings.c.card_id, card_rulings.c.ruling_id).in_(chunk)
            )
            existing.update(
                {(r.card_id, r.ruling_id): r for r in self.state.connection.execute(query).all()}
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
                        "source_id": self.state.source(),
                    }
                )
            elif old.published_on is None and record.published_on is not None:
                # A dated source also knows the publication order that an undated page lost.
                self.state.connection.execute(
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
                        source_id=self.state.source(),
                    )
                )
                self.state.summary.counts["links dated"] += 1
            else:
                self.state.summary.counts["links unchanged"] += 1
        if new_rows:
            self.state.connection.execute(insert(card_rulings), new_rows)
            self.state.summary.counts["links new"] += len(new_rows)
            self.state.touched_rulings.update(row["ruling_id"] for row in new_rows)

    def _next_positions(self, card_ids: set[int]) -> Counter[int]:
        """Where each card's next new ruling goes: after the ones it has."""
        positions: Counter[int] = Counter()
        for chunk in chunks(card_ids):
            query = (
                select(card_rulings.c.card_id, func.max(card_rulings.c.position))
                .where(card_rulings.c.card_id.in_(chunk))
                .group_by(card_rulings.c.card_id)
            )
            for card_id, highest in self.state.connection.execute(query):
                positions[card_id] = highest + 1
        return positions
