"""The peer editors use today: the MTGJSON corpus in mtgsqlive's SQL layout, for bench_sql.

    .venv/bin/python -m benchmarks.mtgsqlive [--sqlite FILE] [--postgres URL]

mtgsqlive (github.com/mtgjson/mtgsqlive) turns MTGJSON into SQL with one row per printing:
``cards`` (keyed by the printing's ``uuid``; list fields such as ``keywords`` joined with ", "),
``cardRulings`` and ``cardForeignData``, which repeat a card's rulings and foreign names on every
printing and join on ``uuid``. Only the columns an editor's queries use are kept. mtgsqlive
itself adds no index but the primary keys; the peer gets those a careful user of its layout
would add for the queries bench_sql asks, on every column they filter or join on:
``cardRulings(uuid)``, ``cardRulings(text)`` and ``cardRulings(date)`` (the undated links),
``cards(name)``, ``cardForeignData(uuid, language)`` (a card's name in one language) and
``cardForeignData(language, name)``. No index serves ``cards.keywords LIKE '%, Flying, %'``.

A database already built from the same corpus (same files, same sizes) is kept: reruns are fast.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    insert,
    inspect,
    select,
)
from sqlalchemy.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
REAL_CORPUS = ROOT.parent / "shared" / "realdata" / "mtgjson-sets-2022-05"
OUT = ROOT / "benchmarks" / "out"
DEFAULT_SQLITE = OUT / "mtgsqlive.sqlite"
INSERT_BATCH = 5000

metadata = MetaData()
cards = Table(
    "cards",
    metadata,
    Column("uuid", String(36), primary_key=True),
    Column("name", Text),
    Column("faceName", Text),
    Column("layout", Text),
    Column("manaCost", Text),
    Column("type", Text),
    Column("text", Text),
    Column("keywords", Text),
    Column("scryfallOracleId", String(36)),
    Column("setCode", Text),
    Index("ix_cards_name", "name"),
)
card_rulings = Table(
    "cardRulings",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("uuid", String(36), nullable=False),
    Column("date", Text),
    Column("text", Text),
    Index("ix_cardRulings_uuid", "uuid"),
    Index("ix_cardRulings_date", "date"),
    # A hash index on PostgreSQL: a B-tree entry cannot hold a text longer than ~2.7 kB.
    Index("ix_cardRulings_text", "text", postgresql_using="hash"),
)
card_foreign_data = Table(
    "cardForeignData",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("uuid", String(36), nullable=False),
    Column("language", Text),
    Column("name", Text),
    Column("faceName", Text),
    Column("text", Text),
    Column("type", Text),
    Index("ix_cardForeignData_uuid_language", "uuid", "language"),
    Index("ix_cardForeignData_language_name", "language", "name"),
)
# Which corpus the database was built from, so that a rebuilt corpus is noticed.
build_info = Table("peer_build", metadata, Column("corpus", String(64), primary_key=True))


def corpus_signature(corpus: Path) -> str:
    """A digest of the corpus' file names and sizes (cheap, and enough to notice a change) and
    of the peer's indexes, so that a database built before an index was added is rebuilt."""
    digest = hashlib.sha256()
    for table in metadata.sorted_tables:
        for index in sorted(table.indexes, key=lambda index: str(index.name)):
            columns = ",".join(column.name for column in index.columns)
            digest.update(f"{table.name}:{index.name}({columns})\n".encode())
    for path in sorted(corpus.glob("*.json.gz")):
        digest.update(f"{path.name}:{path.stat().st_size}\n".encode())
    return digest.hexdigest()


def _printings(corpus: Path) -> Iterator[dict[str, Any]]:
    """Every card object of every set file (one per printing, one per face)."""
    for path in sorted(corpus.glob("*.json.gz")):
        with gzip.open(path, "rb") as stream:
            yield from json.load(stream)["data"]["cards"]


def _rows(corpus: Path) -> Iterator[tuple[Table, dict[str, Any]]]:
    for card in _printings(corpus):
        uuid = card["uuid"]
        yield (
            cards,
            {
                "uuid": uuid,
                "name": card.get("name"),
                "faceName": card.get("faceName"),
                "layout": card.get("layout"),
                "manaCost": card.get("manaCost"),
                "type": card.get("type"),
                "text": card.get("text"),
                "keywords": ", ".join(card["keywords"]) if card.get("keywords") else None,
                "scryfallOracleId": card.get("identifiers", {}).get("scryfallOracleId"),
                "setCode": card.get("setCode"),
            },
        )
        for ruling in card.get("rulings", []):
            yield card_rulings, {"uuid": uuid, "date": ruling.get("date"), "text": ruling["text"]}
        for foreign in card.get("foreignData", []):
            yield (
                card_foreign_data,
                {
                    "uuid": uuid,
                    "language": foreign.get("language"),
                    "name": foreign.get("name"),
                    "faceName": foreign.get("faceName"),
                    "text": foreign.get("text"),
                    "type": foreign.get("type"),
                },
            )


def is_built(engine: Engine, corpus: Path) -> bool:
    if not inspect(engine).has_table(build_info.name):
        return False
    with engine.connect() as connection:
        return connection.scalar(select(build_info.c.corpus)) == corpus_signature(corpus)


def build(engine: Engine, corpus: Path = REAL_CORPUS) -> None:
    """Create the peer's tables from ``corpus``, replacing any."""
    metadata.drop_all(engine)
    with engine.begin() as connection:
        metadata.create_all(connection)
        batches: dict[Table, list[dict[str, Any]]] = {}
        for table, row in _rows(corpus):
            batch = batches.setdefault(table, [])
            batch.append(row)
            if len(batch) == INSERT_BATCH:
                connection.execute(insert(table), batch)
                batch.clear()
        for table, batch in batches.items():
            if batch:
                connection.execute(insert(table), batch)
        connection.execute(insert(build_info), {"corpus": corpus_signature(corpus)})


def analyze(engine: Engine) -> None:
    """Fresh planner statistics (and on PostgreSQL a visibility map for index-only scans)."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
    else:
        with engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")


def ensure_built(url: str, corpus: Path = REAL_CORPUS) -> Engine:
    """An engine on the peer database at ``url``, built first unless it already holds corpus."""
    engine = create_engine(url)
    if not is_built(engine, corpus):
        build(engine, corpus)
        analyze(engine)
    return engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", type=Path, default=DEFAULT_SQLITE, help="peer SQLite file")
    parser.add_argument("--postgres", help="also build a peer in this PostgreSQL database")
    parser.add_argument("--corpus", type=Path, default=REAL_CORPUS)
    args = parser.parse_args()
    args.sqlite.parent.mkdir(parents=True, exist_ok=True)
    for url in [f"sqlite:///{args.sqlite}", *([args.postgres] if args.postgres else [])]:
        ensure_built(url, args.corpus).dispose()
        print(f"peer ready: {url}")


if __name__ == "__main__":
    main()
