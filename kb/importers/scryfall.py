"""Parsers for Scryfall's JSON: rulings and card objects, from bulk files or API responses.

A bulk file is JSON Lines, one object a line (Scryfall's only form since 2026-07-20), or a JSON
array of objects (older downloads); an API response is one object or a ``{"object": "list",
"data": [...]}`` page. JSON Lines are read a line at a time, arrays item by item with ijson, so
memory does not grow with the file. Errors name a JSON Lines line by its number
("cards.jsonl:48213: ..."), an array's items by their place from 1 ("item 17: ...").
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Iterator
from typing import BinaryIO

from kb.importers import json_lines
from kb.importers.streams import (
    json_items,
    json_object,
    object_list,
    optional_iso_date,
    optional_str,
    read_errors_as_parse_errors,
    read_head,
    replay,
    required_str,
    str_list,
    with_line,
)
from kb.locales import canonical_locale
from kb.records import (
    FACE_SEPARATOR,
    FACE_TEXT_SEPARATOR,
    CardNameRecord,
    CardRecord,
    CardRef,
    OracleFace,
    ParseError,
    PrintedTextRecord,
    Printing,
    RulingRecord,
)

CardObjectRecord = CardRecord | CardNameRecord | PrintedTextRecord


def parse_rulings(stream: BinaryIO, path: str) -> Iterator[RulingRecord]:
    """Rulings of a Scryfall rulings file, in file order.

    ``position`` numbers each card's rulings from 0 in file order, which is Scryfall's order on
    the card's page.
    """
    positions: Counter[str] = Counter()
    with read_errors_as_parse_errors(path):
        for where, line, item in _objects(stream, path, expected_kind="ruling"):
            try:
                oracle_id = required_str(item, "oracle_id", where, path)
                ruling = RulingRecord(
                    card=CardRef(oracle_id=oracle_id),
                    text=required_str(item, "comment", where, path),
                    published_on=optional_iso_date(item, "published_at", where, path),
                    position=positions[oracle_id],
                    origin=optional_str(item, "source", where, path),
                    line=line,
                    where=where,
                )
            except ParseError as error:
                raise with_line(error, line) from None
            yield ruling
            positions[oracle_id] += 1


def parse_cards(stream: BinaryIO, path: str) -> Iterator[CardObjectRecord]:
    """For each Oracle card, its card record once; for each non-English object, its printed name
    and its printed texts (a face's ``printed_type_line`` and ``printed_text``), one per face.

    Scryfall has one object per printing and language. Every object carries the Oracle card in
    English (``name``, ``oracle_text``, ...), so the first object of a card gives the card, even
    in a file of German printings only; the non-English ones add a localized name. A non-English
    object without a printed name (Scryfall leaves it out where the printing shows the English
    name) adds no name.
    """
    cards_seen: set[str] = set()
    with read_errors_as_parse_errors(path):
        for where, line, item in _objects(stream, path, expected_kind="card"):
            try:
                records = _card_records(item, cards_seen, where, path, line)
            except ParseError as error:
                raise with_line(error, line) from None
            yield from records


def _card_records(
    item: dict[str, object], cards_seen: set[str], where: str, path: str, line: int | None
) -> list[CardObjectRecord]:
    """One card object's records: its Oracle card the first time, its printed name and texts
    if any."""
    records: list[CardObjectRecord] = []
    faces = object_list(item, "card_faces", where, path)
    oracle_id = _oracle_id(item, faces, where, path)
    english_name = required_str(item, "name", where, path)
    if oracle_id not in cards_seen:
        cards_seen.add(oracle_id)
        records.append(_card_record(item, faces, oracle_id, english_name, where, path, line))
    lang = optional_str(item, "lang", where, path) or "en"
    if lang == "en":
        return records
    card = CardRef(oracle_id=oracle_id, name=english_name)
    locale = canonical_locale(lang) or lang
    printed_name = _printed_name(item, faces, where, path)
    if printed_name is not None:
        records.append(CardNameRecord(card, locale, printed_name, line=line, where=where))
    printing = _printing(item, where, path)
    for position, face in enumerate(faces or [item]):
        type_line = optional_str(face, "printed_type_line", where, path)
        text = optional_str(face, "printed_text", where, path)
        if type_line is None and text is None:
            continue
        face_name = optional_str(face, "printed_name", where, path) if faces else None
        records.append(
            PrintedTextRecord(
                card,
                locale,
                face=position,
                face_name=face_name,
                type_line=type_line,
                text=text,
                printing=printing,
                # A promotional printing under another name (the Godzilla series) names no
                # card, as kb.importers.mtgjson says.
                card_name=None if "flavor_name" in item else printed_name,
                line=line,
                where=where,
            )
        )
    return records


def _printing(item: dict[str, object], where: str, path: str) -> Printing:
    code = optional_str(item, "set", where, path)
    return Printing(
        code.upper() if code else None,
        optional_str(item, "collector_number", where, path),
        optional_iso_date(item, "released_at", where, path),
    )


def _card_record(
    item: dict[str, object],
    faces: list[dict[str, object]],
    oracle_id: str,
    name: str,
    where: str,
    path: str,
    line: int | None,
) -> CardRecord:
    """The Oracle card of an object; a multi-face card may keep cost and text per face."""

    def card_or_faces(key: str, separator: str, keep_empty: bool = True) -> str | None:
        value = optional_str(item, key, where, path)
        if value is not None or not faces:
            return value
        face_values = [optional_str(face, key, where, path) or "" for face in faces]
        kept = (
            face_values if keep_empty else [face_value for face_value in face_values if face_value]
        )
        return separator.join(kept) if any(face_values) else None

    return CardRecord(
        name=name,
        oracle_id=oracle_id,
        # A back face that is never cast (transform, flip) has no cost, rather than "{W} // ".
        mana_cost=card_or_faces("mana_cost", FACE_SEPARATOR, keep_empty=False),
        type_line=card_or_faces("type_line", FACE_SEPARATOR),
        oracle_text=card_or_faces("oracle_text", FACE_TEXT_SEPARATOR),
        keywords=str_list(item, "keywords", where, path),
        layout=optional_str(item, "layout", where, path),
        faces=tuple(required_str(face, "name", where, path) for face in faces),
        oracle_faces=tuple(
            OracleFace(
                required_str(face, "name", where, path),
                optional_str(face, "mana_cost", where, path),
                optional_str(face, "type_line", where, path),
                optional_str(face, "oracle_text", where, path),
            )
            for face in faces
        ),
        where=where,
        line=line,
    )


def _oracle_id(
    item: dict[str, object], faces: list[dict[str, object]], where: str, path: str
) -> str:
    """The card's oracle_id; reversible cards keep it on each face instead of the card."""
    if item.get("oracle_id") is None and faces and faces[0].get("oracle_id") is not None:
        return required_str(faces[0], "oracle_id", where, path)
    return required_str(item, "oracle_id", where, path)


def _printed_name(
    item: dict[str, object], faces: list[dict[str, object]], where: str, path: str
) -> str | None:
    printed_name = optional_str(item, "printed_name", where, path)
    if printed_name is not None or not faces:
        return printed_name
    face_names = [optional_str(face, "printed_name", where, path) for face in faces]
    if any(face_name is None for face_name in face_names):
        return None
    return FACE_SEPARATOR.join(face_name for face_name in face_names if face_name)


def _objects(
    stream: BinaryIO, path: str, expected_kind: str
) -> Iterator[tuple[str, int | None, dict[str, object]]]:
    """The Scryfall objects of a file with where each stands: ("item 3", None) in a JSON array,
    ("", 48213) on a JSON Lines line, ("item 3", 12) in a list object on line 12. Each is checked
    to be an object of ``expected_kind`` where it says its kind.

    A top-level array (an older bulk file) is streamed. A top-level object that fills its first
    line starts JSON Lines; one that spans lines is one API response, small by Scryfall's paging.
    Whatever follows the first JSON value is read (as JSON Lines) or an error, never left unread.
    """
    head = read_head(stream).removeprefix(codecs.BOM_UTF8)
    if not head.strip():
        raise ParseError(path, "the file is empty", 1)
    stream = replay(head, stream)
    if head.lstrip()[:1] == b"[":
        for number, value in enumerate(json_items(stream, "item"), start=1):
            yield _checked(value, f"item {number}", None, path, expected_kind)
        return
    json_lines_values, stream = json_lines.open_lines(stream, path)
    values = _one_document(stream) if json_lines_values is None else json_lines_values
    for line, value in values:
        if not (isinstance(value, dict) and value.get("object") == "list"):
            # A line's number names its value; a document spanning lines is the file's item 1.
            yield _checked(value, "" if line is not None else "item 1", line, path, expected_kind)
            continue
        try:
            items = object_list(value, "data", "list", path)
        except ParseError as error:
            raise with_line(error, line) from None
        for number, item in enumerate(items, start=1):
            yield _checked(item, f"item {number}", line, path, expected_kind)


def _one_document(stream: BinaryIO) -> Iterator[tuple[int | None, object]]:
    """The single JSON value of ``stream`` (named by no line: it spans several), read to the
    end, so that content after it is an error (ijson's), not left unread."""
    for value in json_items(stream, ""):
        yield None, value


def _checked(
    value: object, where: str, line: int | None, path: str, expected_kind: str
) -> tuple[str, int | None, dict[str, object]]:
    if isinstance(value, dict) and value.get("object", expected_kind) == expected_kind:
        return where, line, value  # every good object: the cheap test first
    try:
        item = json_object(value, where, path)
        what = f"{where}: object" if where else "object"
        raise ParseError(path, f"{what} {item.get('object')!r} is not a {expected_kind}")
    except ParseError as error:
        raise with_line(error, line) from None
