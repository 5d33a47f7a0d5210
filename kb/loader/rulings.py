"""Rulings: one row per text whatever its typography, a damaged copy mended into the ruling it is
a copy of, and each ruling linked to its cards in publication order."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import and_, select, update

from kb.batches import chunks
from kb.derived import ruling_keys
from kb.loader.references import CardReferences, describe
from kb.loader.state import LoadState
from kb.loader.tables import card_rulings, rulings
from kb.records import RulingRecord
from kb.text import better_text, has_symbols

RULING_COLUMNS = ("text", "text_key", "skeleton_key", "head_key", "origin")
LINK_COLUMNS = ("card_id", "ruling_id", "published_on", "position", "source_id")


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
            known.append((card_id, record.key, record))
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
        columns = ("id", "text_key", "origin")
        for ruling_id, found_key, stored_origin in self.state.bulk.select_in(
            rulings, columns, "text_key", texts
        ):
            known[found_key] = ruling_id
            origin = texts[found_key].origin
            if origin and stored_origin is None:
                self._set_ruling(ruling_id, origin=origin)
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
        new_rows: list[dict[str, Any]] = []
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
            # One statement per batch; the new ids come in the rows' order (kb.loader.bulk).
            values = [[row[name] for name in RULING_COLUMNS] for row in new_rows]
            new_ids = self.state.bulk.insert_ids(rulings, RULING_COLUMNS, values)
            for row, ruling_id in zip(new_rows, new_ids, strict=True):
                known[row["text_key"]] = ruling_id
                self.state.touched_rulings.add(ruling_id)
                self.state.texts_written.add(ruling_id)
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
        # One read of the links' cards' links gives both the links that exist and where each
        # card's next new one goes (after the ones it has).
        existing: dict[tuple[int, int], _Link] = {}
        next_position: Counter[int] = Counter()
        found = self.state.bulk.select_in(
            card_rulings,
            ("card_id", "ruling_id", "published_on", "position"),
            "card_id",
            {card_id for card_id, _ in links},
        )
        for card_id, ruling_id, published_on, position in found:
            if (card_id, ruling_id) in links:
                existing[card_id, ruling_id] = _Link(published_on, position)
            next_position[card_id] = max(next_position[card_id], position + 1)
        new_rows: list[tuple[Any, ...]] = []
        for (card_id, ruling_id), record in links.items():
            old = existing.get((card_id, ruling_id))
            if old is None:
                position = next_position[card_id]
                next_position[card_id] += 1
                new_rows.append(
                    (card_id, ruling_id, record.published_on, position, self.state.source())
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
            self.state.bulk.insert(card_rulings, LINK_COLUMNS, new_rows)
            self.state.summary.counts["links new"] += len(new_rows)
            self.state.touched_rulings.update(row[1] for row in new_rows)


class _Link(NamedTuple):
    """What a stored link between a card and a ruling says."""

    published_on: dt.date | None
    position: int
