"""A card's texts as its page reads them: the Oracle faces and the printed texts per locale."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import NamedTuple

from sqlalchemy import ColumnElement, SQLColumnExpression, select
from sqlalchemy.engine import Connection

from kb import schema as tables

CardFilter = Callable[[SQLColumnExpression[int]], ColumnElement[bool]]
"""The cards to read, as a condition on a card id column."""


class FaceView(NamedTuple):
    """A face of a card of several faces, in English as the Oracle has it."""

    name: str
    mana_cost: str | None
    type_line: str | None
    oracle_text: str | None


class PrintedView(NamedTuple):
    """What the most recent printing of a face says in one locale (printed_texts)."""

    face: int
    """The face's position; 0 for a card of one face."""
    face_name: str | None
    """The face's printed name, on a card of several faces."""
    type_line: str | None
    text: str | None
    set_code: str | None
    collector_number: str | None
    released_on: dt.date | None


def oracle_faces(connection: Connection, of_cards: CardFilter) -> dict[int, tuple[FaceView, ...]]:
    """The faces of the cards of several faces, by card, in order."""
    faces: dict[int, list[FaceView]] = {}
    columns = (tables.card_faces.c[name] for name in FaceView._fields)
    for card_id, *face in connection.execute(
        select(tables.card_faces.c.card_id, *columns)
        .where(of_cards(tables.card_faces.c.card_id))
        .order_by(tables.card_faces.c.card_id, tables.card_faces.c.position)
    ).all():
        faces.setdefault(card_id, []).append(FaceView(*face))
    return {card_id: tuple(found) for card_id, found in faces.items()}


def printed(
    connection: Connection, of_cards: CardFilter
) -> dict[tuple[int, str], tuple[PrintedView, ...]]:
    """The printed faces of the cards, by card and locale, in order."""
    texts: dict[tuple[int, str], list[PrintedView]] = {}
    columns = (tables.printed_texts.c[name] for name in PrintedView._fields)
    for card_id, locale, *text in connection.execute(
        select(tables.printed_texts.c.card_id, tables.printed_texts.c.locale, *columns)
        .where(of_cards(tables.printed_texts.c.card_id))
        .order_by(*tables.printed_texts.primary_key.columns)
    ).all():
        texts.setdefault((card_id, locale), []).append(PrintedView(*text))
    return {key: tuple(found) for key, found in texts.items()}
