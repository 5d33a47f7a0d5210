"""``kb export``: what the store holds, in the anchors' own formats.

- ``mtgjson``: MTGJSON's AtomicCards layout (``{"meta", "data": {name: [card]}}``) with
  ``foreignData``, ``rulings``, ``keywords`` and ``identifiers.scryfallOracleId``: everything kb
  imports back (cards, faces, names, rulings with dates, links).
- ``scryfall-rulings``: Scryfall's rulings bulk file, for cards with an ``oracle_id``. Every
  object has its ``source``, as Scryfall's do: the one a Scryfall file gave, else ``wotc``
  (kb's other sources of rulings, MTGJSON, which takes them from Gatherer, and the pages
  copied from a card's official page, carry only Wizards' own rulings).
- ``csv``: one row per card–ruling link, for spreadsheets (``origin`` empty where no Scryfall
  file told it).

``export`` returns how many of the format's units it wrote: cards (MTGJSON), ruling objects
(Scryfall), rows below the header (CSV).

Cards are read a chunk at a time in name order and written as they are read, so memory stays
flat, and the same store always gives the same bytes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import select
from sqlalchemy.engine import Connection

from kb import schema
from kb.batches import chunks
from kb.locales import BY_CODE
from kb.records import FACE_SEPARATOR


@dataclass(frozen=True)
class LinkView:
    text: str
    published_on: str | None
    position: int
    origin: str | None
    mechanics: tuple[str, ...]


@dataclass
class CardExport:
    name: str
    oracle_id: str | None
    mana_cost: str | None
    type_line: str | None
    oracle_text: str | None
    layout: str | None
    faces: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    keywords: list[str] = field(default_factory=list)
    rulings: list[LinkView] = field(default_factory=list)


def cards_for_export(connection: Connection) -> Iterator[CardExport]:
    """Every card with its faces, names, keywords and rulings (page order), in name order."""
    card = schema.cards.c
    ids = connection.execute(select(card.id).order_by(card.name)).scalars().all()
    for chunk in chunks(ids):
        yield from _load_chunk(connection, chunk)


def _load_chunk(connection: Connection, ids: list[int]) -> Iterator[CardExport]:
    card, face, localized = schema.cards.c, schema.card_faces.c, schema.card_names.c
    tagged, mechanic, mechanic_name = (
        schema.card_mechanics.c,
        schema.mechanics.c,
        schema.mechanic_names.c,
    )
    link, ruling, ruling_tag = schema.card_rulings.c, schema.rulings.c, schema.ruling_mechanics.c
    rows = connection.execute(select(schema.cards).where(card.id.in_(ids))).mappings()
    cards = {
        row["id"]: CardExport(
            row["name"],
            row["oracle_id"],
            row["mana_cost"],
            row["type_line"],
            row["oracle_text"],
            row["layout"],
        )
        for row in rows
    }
    faces = select(face.card_id, face.name).where(face.card_id.in_(ids))
    for card_id, name in connection.execute(faces.order_by(face.position)):
        cards[card_id].faces.append(name)
    names = select(localized.card_id, localized.locale, localized.name).where(
        localized.card_id.in_(ids), localized.locale != "en"
    )
    for card_id, locale, name in connection.execute(names.order_by(localized.locale)):
        cards[card_id].names[locale] = name
    keywords = (
        select(tagged.card_id, mechanic_name.name)
        .join(schema.mechanics, mechanic.id == tagged.mechanic_id)
        .join(schema.mechanic_names, mechanic_name.mechanic_id == mechanic.id)
        .where(
            tagged.card_id.in_(ids),
            mechanic.kind.startswith("keyword"),
            mechanic_name.locale == "en",
        )
        .order_by(mechanic_name.name)
    )
    for card_id, name in connection.execute(keywords):
        cards[card_id].keywords.append(name)
    tags: dict[int, list[str]] = {}
    links = (
        select(
            link.card_id,
            link.ruling_id,
            link.published_on,
            link.position,
            ruling.text,
            ruling.origin,
        )
        .join(schema.rulings, ruling.id == link.ruling_id)
        .where(link.card_id.in_(ids))
    ).subquery()
    ruling_tags = (
        select(ruling_tag.ruling_id, mechanic.slug)
        .join(schema.mechanics, mechanic.id == ruling_tag.mechanic_id)
        .where(ruling_tag.ruling_id.in_(select(links.c.ruling_id)))
        .order_by(mechanic.slug)
    )
    for ruling_id, slug in connection.execute(ruling_tags):
        tags.setdefault(ruling_id, []).append(slug)
    page_order = (links.c.published_on.is_(None), links.c.published_on, links.c.position)
    for row in connection.execute(select(links).order_by(links.c.card_id, *page_order)):
        cards[row.card_id].rulings.append(
            LinkView(
                row.text,
                row.published_on.isoformat() if row.published_on else None,
                row.position,
                row.origin,
                tuple(tags.get(row.ruling_id, ())),
            )
        )
    for card_id in ids:
        yield cards[card_id]


WOTC = "wotc"
"""A ruling's source where no Scryfall file told it: Wizards' (see the module's notes)."""

UNITS = {"mtgjson": "cards", "scryfall-rulings": "rulings", "csv": "rows"}
"""What ``export`` counts in each format."""


def export(connection: Connection, format: str, out: TextIO) -> int:
    """Write the store to ``out`` in ``format``; returns how many UNITS[format] it wrote."""
    writers = {"mtgjson": _mtgjson, "scryfall-rulings": _scryfall_rulings, "csv": _csv}
    return writers[format](cards_for_export(connection), out)


def export_to_file(connection: Connection, format: str, path: Path) -> int:
    """``export`` into the file ``path``, written beside it and renamed: a failed export
    leaves no half file (and the file there before, if any, as it was)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("w", encoding="utf-8", newline="") as file:
            written = export(connection, format, file)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return written


def _mtgjson_card(card: CardExport) -> dict[str, Any]:
    # A meld part is stored under its own name with the melded card as its second face; MTGJSON
    # names it by both, with the part as faceName.
    if card.faces and FACE_SEPARATOR.join(card.faces) != card.name:
        full_name, face_name = FACE_SEPARATOR.join(card.faces), card.name
    else:
        full_name, face_name = card.name, None
    item: dict[str, Any] = {"name": full_name}
    if face_name is not None:
        item["faceName"] = face_name
    fields = {
        "layout": card.layout,
        "manaCost": card.mana_cost,
        "type": card.type_line,
        "text": card.oracle_text,
    }
    item.update({key: value for key, value in fields.items() if value is not None})
    item["keywords"] = card.keywords
    if card.oracle_id:
        item["identifiers"] = {"scryfallOracleId": card.oracle_id}
    item["foreignData"] = [
        {"language": BY_CODE[locale].english_name, "name": name}
        for locale, name in card.names.items()
    ]
    item["rulings"] = [{"date": link.published_on, "text": link.text} for link in card.rulings]
    return item


def _mtgjson(cards: Iterator[CardExport], out: TextIO) -> int:
    out.write('{"meta": {"source": "kb"}, "data": {')
    written = 0
    for card in cards:
        out.write(",\n" if written else "\n")
        out.write(json.dumps(card.name, ensure_ascii=False))
        out.write(": ")
        out.write(json.dumps([_mtgjson_card(card)], ensure_ascii=False, sort_keys=True))
        written += 1
    out.write("\n}}\n")
    return written


def _scryfall_rulings(cards: Iterator[CardExport], out: TextIO) -> int:
    out.write("[")
    first = True
    written = 0
    for card in cards:
        if card.oracle_id is None:
            continue
        for link in card.rulings:
            ruling = {
                "object": "ruling",
                "oracle_id": card.oracle_id,
                "source": link.origin or WOTC,
                "published_at": link.published_on,
                "comment": link.text,
            }
            out.write("\n" if first else ",\n")
            out.write(json.dumps(ruling, ensure_ascii=False))
            first = False
            written += 1
    out.write("\n]\n")
    return written


CSV_COLUMNS = ("card", "oracle_id", "published_on", "position", "origin", "mechanics", "text")


def _csv(cards: Iterator[CardExport], out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    written = 0
    for card in cards:
        written += len(card.rulings)
        for link in card.rulings:
            writer.writerow(
                (
                    card.name,
                    card.oracle_id or "",
                    link.published_on or "",
                    link.position,
                    link.origin or "",
                    " ".join(link.mechanics),
                    link.text,
                )
            )
    return written
