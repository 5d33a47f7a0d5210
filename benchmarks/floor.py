"""The floor of an import: the same files stream-parsed and the same rows inserted with raw
sqlite3 ``executemany`` into kb's schema, with no lookups, no checks, no dedupe against the store.

What kb's loader does beyond this (resolving cards, merging sources, damaged variants, tagging,
provenance, the most recent printing's text, mining the mechanics' names, one transaction with
rollback) is what the import target's 3 × pays for.

The floor has kb import's two processes: where kb parses in a second process while the first
loads (inputs of ``PARALLEL_PARSE_BYTES`` or more), the floor parses in a second process too and
passes its rows through the same pipe as kb's (``kb.child_processes.spawned_sender``), while the
first inserts them. Both sides then have the same two cores and pay for pickling what they pass;
neither is compared with a side that has a core less.
"""

from __future__ import annotations

import gzip
import itertools
import sqlite3
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import ijson  # type: ignore[import-untyped]

from kb.child_processes import spawned_sender
from kb.locales import canonical_locale
from kb.parsing import PARALLEL_PARSE_BYTES

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
        self.texts: list[tuple[Any, ...]] = []

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

    def text(self, card_id: int, language: str, face: int, item: dict[str, Any]) -> None:
        """A printed type line and text (MTGJSON's foreignData entry, or Scryfall's card
        object): the last printing read wins, where kb keeps the most recent one."""
        locale = canonical_locale(language)
        if locale is not None and (item.get("text") or item.get("type")):
            self.texts.append(
                (card_id, locale, face, item.get("faceName"), item.get("type"), item.get("text"))
            )

    def ruling(self, card_id: int, text: str, date: str | None, position: int) -> None:
        ruling_id = self.ruling_ids.get(text)
        if ruling_id is None:
            ruling_id = self.ruling_ids[text] = len(self.ruling_ids) + 1
            key = str(ruling_id)
            self.rulings.append((ruling_id, text, key, key, key))
        self.links.append((card_id, ruling_id, date, position))

    def take(self) -> Batch:
        """The rows gathered since the last take, by table."""
        taken = {table: getattr(self, table) for table in STATEMENTS}
        for table in STATEMENTS:
            setattr(self, table, [])
        return taken


Batch = dict[str, list[tuple[Any, ...]]]

STATEMENTS = {
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
    "texts": "INSERT OR REPLACE INTO printed_texts (card_id, locale, face, face_name,"
    " type_line, text) VALUES (?, ?, ?, ?, ?, ?)",
}


def _insert(connection: sqlite3.Connection, batch: Batch) -> None:
    for table, statement in STATEMENTS.items():
        connection.executemany(statement, batch[table])


def _items(path: Path, prefix: str) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as stream:
        yield from ijson.items(stream, prefix, use_float=True)


def _in_batches(items: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    while batch := list(itertools.islice(items, BATCH)):
        yield batch


def _scryfall(path: Path, rows: RawRows) -> Iterator[Batch]:
    positions: dict[int, int] = {}
    for batch in _in_batches(_items(path, "item")):
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
                if item["lang"] != "en":
                    printed = {
                        "text": item.get("printed_text"),
                        "type": item.get("printed_type_line"),
                    }
                    rows.text(card_id, item["lang"], 0, printed)
        yield rows.take()


def _mtgjson(path: Path, rows: RawRows) -> Iterator[Batch]:
    for batch in _in_batches(_items(path, "data.cards.item")):
        for item in batch:
            oracle_id = (item.get("identifiers") or {}).get("scryfallOracleId")
            card_id = rows.card(oracle_id or item["name"], item["name"], oracle_id, item)
            face = "abcde".find(item.get("side") or "a")  # a card of one face: 0
            for entry in item.get("foreignData") or ():
                rows.name(card_id, entry["language"], entry["name"])
                rows.text(card_id, entry["language"], face, entry)
            for position, ruling in enumerate(item.get("rulings") or ()):
                rows.ruling(card_id, ruling["text"], ruling["date"], position)
        yield rows.take()


def _files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path])
    # Cards before the rulings that name them, as kb orders them.
    return sorted(found, key=lambda p: (p.name.startswith("rulings"), str(p)))


def parsed_batches(files: list[Path]) -> Iterator[Batch]:
    """Every file's rows, a batch at a time."""
    rows = RawRows()
    for path in files:
        yield from (_mtgjson if path.name.endswith(".json.gz") else _scryfall)(path, rows)


def _parse_in_worker(files: list[Path], parent: Connection) -> None:
    """The parser process: every batch to ``parent``, then None (or the error's text)."""
    try:
        for batch in parsed_batches(files):
            parent.send(batch)
        parent.send(None)
    except BaseException:
        parent.send(traceback.format_exc())
    finally:
        parent.close()


@contextmanager
def _batches(files: list[Path]) -> Iterator[Iterator[Batch]]:
    """The files' rows: parsed in a second process where kb import parses in one (inputs of
    PARALLEL_PARSE_BYTES or more, through the same pipe as kb's), else in this process."""
    if sum(path.stat().st_size for path in files) < PARALLEL_PARSE_BYTES:
        yield parsed_batches(files)
        return

    def received(reader: Connection) -> Iterator[Batch]:
        while (message := reader.recv()) is not None:
            if isinstance(message, str):
                raise RuntimeError(f"the floor's parser failed:\n{message}")
            yield message

    with spawned_sender(_parse_in_worker, (files,)) as (reader, _):
        yield received(reader)


def insert_raw(database: Path, paths: list[Path]) -> int:
    """Parse and insert ``paths``; returns how many rows were inserted."""
    connection = sqlite3.connect(database)
    with _batches(_files(paths)) as batches:
        for batch in batches:
            _insert(connection, batch)
    connection.commit()
    total = connection.total_changes
    connection.close()
    return total
