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
    damaged_in_source: bool = False
    """The text looks damaged in its source beside the English printed on the same printing
    (``damaged_in_source``): the page says so, and that the Oracle text is whole."""


def damaged_in_source(text: str | None, english_text: str | None) -> bool:
    """Whether a printed text looks damaged in its source beside the English printed on the same
    printing: fewer lines (lines run together), or no mana or tap symbol where the English has
    one. The same test as queries/printed_texts_to_check.sql, which lists them for editors.
    A break right after an opening quote in the English is no line: MTGJSON breaks the token's
    ability of Urza's Saga (MH2) and Reef Worm (C21) there, and their translations whole."""
    if text is None or english_text is None:
        return False
    english_lines = english_text.replace("‘\n", "‘").replace("“\n", "“").count("\n")
    if text.count("\n") < english_lines:
        return True
    return "{" in english_text and "{" not in text


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
    table = tables.printed_texts
    # Every field but the last, which is derived from the text and the English printed.
    columns = [table.c[name] for name in PrintedView._fields[:-1]]
    for card_id, locale, english_text, *fields in connection.execute(
        select(table.c.card_id, table.c.locale, table.c.english_text, *columns)
        .where(of_cards(table.c.card_id))
        .order_by(*table.primary_key.columns)
    ).all():
        view = PrintedView._make([*fields, False])
        if damaged_in_source(view.text, english_text):
            view = view._replace(damaged_in_source=True)
        texts.setdefault((card_id, locale), []).append(view)
    return {key: tuple(found) for key, found in texts.items()}
