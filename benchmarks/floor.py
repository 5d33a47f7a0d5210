"""The floor of an import: the same files stream-parsed and the same rows inserted with raw
sqlite3 ``executemany`` into kb's schema, with no lookups, no checks, no dedupe against the store.

What kb's loader does beyond this (resolving cards, merging sources, damaged variants, tagging,
provenance, one transaction with rollback) is what the import target's 3 × pays for.
"""

from __future__ import annotations

import gzip
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ijson  # type: ignore[import-untyped]

from kb.batches import chunks
from kb.locales import canonical_locale

BATCH = 5000


class RawRows:
    """Rows for kb's tables, numbered in Python as they are first seen."""

    def __init__(self) -> None:
        self.card_ids: dict[str, int] = {}
        self.ruling_ids: dict[str, int] = {}
        self.mechanic_ids: dict[str, int] = {}
        self.cards: list[tuple[Any, ...]] = []
        self.names: list[tuple[Any, ...]] = []
        self.rulings: list[tuple[Any, ...]] = []
        self.links: list[tuple[Any, ...]] = []
        self.tags: list[tuple[Any, ...]] = []
        self.mechanics: list[tuple[Any, ...]] = []

    def card(self, key: str, name: str, oracle_id: str | None, item: dict[str, Any]) -> int:
        card_id = self.card_ids.get(key)
        if card_id is None:
            card_id = self.card_ids[key] = len(self.card_ids) + 1
            self.cards.append(
                (
                    card_id,
                    name,
                    oracle_id,
                    item.get("mana_cost") or item.get("manaCost"),
                    item.get("type_line") or item.get("type"),
                    item.get("oracle_text") or item.get("text"),
                    item.get("layout"),
                )
            )
            self.names.append((card_id, "en", name))
            for keyword in item.get("keywords") or ():
                mechanic_id = self.mechanic_ids.get(keyword)
                if mechanic_id is None:
                    mechanic_id = self.mechanic_ids[keyword] = len(self.mechanic_ids) + 1
                    self.mechanics.append((mechanic_id, keyword.lower(), "keyword"))
                self.tags.append((card_id, mechanic_id))
        return card_id

    def name(self, card_id: int, language: str, name: str) -> None:
        locale = canonical_locale(language)
        if locale is not None:
            self.names.append((card_id, locale, name))

    def ruling(self, card_id: int, text: str, date: str | None, position: int) -> None:
        ruling_id = self.ruling_ids.get(text)
        if ruling_id is None:
            ruling_id = self.ruling_ids[text] = len(self.ruling_ids) + 1
            key = str(ruling_id)
            self.rulings.append((ruling_id, text, key, key, key))
        self.links.append((card_id, ruling_id, date, position))

    def flush(self, connection: sqlite3.Connection) -> None:
        statements = {
            "mechanics": "INSERT INTO mechanics (id, slug, kind) VALUES (?, ?, ?)",
            # Two Oracle cards of one name (Un-set variants) are one card in kb, too.
            "cards": "INSERT OR IGNORE INTO cards (id, name, oracle_id, mana_cost, type_line,"
            " oracle_text, layout) VALUES (?, ?, ?, ?, ?, ?, ?)",
            "names": "INSERT OR IGNORE INTO card_names (card_id, locale, name) VALUES (?, ?, ?)",
            "rulings": "INSERT INTO rulings (id, text, text_key, skeleton_key, head_key)"
            " VALUES (?, ?, ?, ?, ?)",
            "links": "INSERT OR IGNORE INTO card_rulings (card_id, ruling_id, published_on,"
            " position) VALUES (?, ?, ?, ?)",
            "tags": "INSERT OR IGNORE INTO card_mechanics (card_id, mechanic_id) VALUES (?, ?)",
        }
        for table, statement in statements.items():
            rows: list[tuple[Any, ...]] = getattr(self, table)
            connection.executemany(statement, rows)
            rows.clear()


def _items(path: Path, prefix: str) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as stream:
        yield from ijson.items(stream, prefix, use_float=True)


def _scryfall(path: Path, rows: RawRows, connection: sqlite3.Connection) -> None:
    positions: dict[int, int] = {}
    for batch in chunks(_items(path, "item"), BATCH):
        for item in batch:
            if item.get("object") == "ruling":
                card_id = rows.card_ids[item["oracle_id"]]
                position = positions.get(card_id, 0)
                positions[card_id] = position + 1
                rows.ruling(card_id, item["comment"], item["published_at"], position)
            else:
                card_id = rows.card(item["oracle_id"], item["name"], item["oracle_id"], item)
                if item["lang"] != "en" and item.get("printed_name"):
                    rows.name(card_id, item["lang"], item["printed_name"])
        rows.flush(connection)


def _mtgjson(path: Path, rows: RawRows, connection: sqlite3.Connection) -> None:
    for batch in chunks(_items(path, "data.cards.item"), BATCH):
        for item in batch:
            oracle_id = (item.get("identifiers") or {}).get("scryfallOracleId")
            card_id = rows.card(oracle_id or item["name"], item["name"], oracle_id, item)
            for entry in item.get("foreignData") or ():
                rows.name(card_id, entry["language"], entry["name"])
            for position, ruling in enumerate(item.get("rulings") or ()):
                rows.ruling(card_id, ruling["text"], ruling["date"], position)
        rows.flush(connection)


def _files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path])
    # Cards before the rulings that name them, as kb orders them.
    return sorted(found, key=lambda p: (p.name.startswith("rulings"), str(p)))


def insert_raw(database: Path, paths: list[Path]) -> int:
    """Parse and insert ``paths``; returns how many rows were inserted."""
    connection = sqlite3.connect(database)
    rows = RawRows()
    for path in _files(paths):
        if path.name.endswith(".json.gz"):
            _mtgjson(path, rows, connection)
        else:
            _scryfall(path, rows, connection)
    connection.commit()
    total = connection.total_changes
    connection.close()
    return total
