"""What ``kb card`` prints: a card as text for a terminal, the cards a name names, and both as
JSON for scripts (its keys are described in docs/sql.md; the same store prints the same)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from kb.locales import BY_CODE
from kb.lookup import CardSheet, Lookup, Match, TagSheet
from kb.terminal_text import wrap

INDENT = "  "
DAMAGED = (
    "(This printed text looks damaged in its source: lines run together or mana symbols lost. "
    "The Oracle text is whole.)"
)


def card_text(card: CardSheet, width: int) -> str:
    """The card as text, its texts wrapped at ``width`` columns (0: not wrapped)."""
    out: list[str] = []
    localized = card.localized_name
    if card.locale == "en":
        out.append(card.name)
    elif localized is not None:
        out += [localized, card.name]
    else:
        out += [card.name, f"(no {BY_CODE[card.locale].english_name} name in the store)"]
    if card.mana_cost:
        out.append(f"Mana cost: {card.mana_cost}")
    if card.mechanics:
        out.append(f"Mechanics: {_tags(card.mechanics)}")
    if card.printed:
        out += ["", "Printed text" + _printing(card)]
        if any(face.damaged_in_source for face in card.printed):
            out += wrap(DAMAGED, width, INDENT)
        for face in card.printed:
            out += _face(face.face_name, face.type_line, face.text, width)
    if card.type_line or card.oracle_text or card.faces:
        out += ["", "Oracle text"]
        if card.faces:
            for oracle in card.faces:
                name = f"{oracle.name}  {oracle.mana_cost}" if oracle.mana_cost else oracle.name
                out += _face(name, oracle.type_line, oracle.oracle_text, width)
        else:
            out += _face(None, card.type_line, card.oracle_text, width)
    count = len(card.rulings)
    out += ["", f"{count} ruling" if count == 1 else f"{count or 'No'} rulings"]
    for number, ruling in enumerate(card.rulings):
        if number:
            out.append("")
        date = ruling.published_on.isoformat() if ruling.published_on else "(undated)"
        out.append(INDENT + " · ".join([date, _tags(ruling.tags)] if ruling.tags else [date]))
        out += wrap(ruling.text, width, INDENT * 2)
    return "\n".join(out) + "\n"


def _printing(card: CardSheet) -> str:
    """Which printing the printed text is from, as the card's page says it."""
    first = card.printed[0]
    if first.set_code is None:
        return ""
    said = f", as printed in {first.set_code}, number {first.collector_number or '–'}"
    return said + (f" ({first.released_on.isoformat()})" if first.released_on else "")


def _face(name: str | None, type_line: str | None, text: str | None, width: int) -> list[str]:
    """A face's lines: its name if it has one, with its type line and text under it."""
    indent = INDENT * 2 if name else INDENT
    lines = [INDENT + name] if name else []
    for part in (type_line, text):
        if part:
            lines += wrap(part, width, indent, hanging=INDENT)
    return lines


def _tags(tags: tuple[TagSheet, ...]) -> str:
    return ", ".join(tag.name for tag in tags)


def describe(match: Match) -> str:
    """A card a name names, told apart from the others: its English name, and which of its
    names matched (``Coercion  (Zwang: de)``, ``Fire // Ice  (face Fire: en, it)``)."""
    said: dict[str, list[str]] = {}
    for hit in match.hits:
        if hit.english:
            said.setdefault("English name", [])
            continue
        said.setdefault(f"face {hit.name}" if hit.face else hit.name, []).append(hit.locale)
    parts = [f"{what}: {', '.join(locales)}" if locales else what for what, locales in said.items()]
    return f"{match.card}  ({'; '.join(parts)})"


def matches_text(lookup: Lookup) -> str:
    """The cards the name names, one a line."""
    return "".join(describe(match) + "\n" for match in lookup.matches)


def lookup_json(lookup: Lookup, locale: str, card: CardSheet | None) -> str:
    """The lookup as one JSON object: always the same keys, ``card`` null unless exactly one
    card was found."""
    document = {
        "query": lookup.query,
        "locale": locale,
        "matches": [_match(match) for match in lookup.matches],
        "others": [_match(match) for match in lookup.others],
        "suggestions": list(lookup.suggestions),
        "card": None if card is None else _card(card),
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _match(match: Match) -> dict[str, Any]:
    return {
        "card": match.card,
        "names": [
            {"name": hit.name, "locale": hit.locale, "face": hit.face, "english": hit.english}
            for hit in match.hits
        ],
    }


def _card(card: CardSheet) -> dict[str, Any]:
    return {
        "name": card.name,
        "localized_name": card.localized_name,
        "oracle_id": card.oracle_id,
        "layout": card.layout,
        "names": card.names,
        "mana_cost": card.mana_cost,
        "type_line": card.type_line,
        "oracle_text": card.oracle_text,
        "faces": [face._asdict() for face in card.faces],
        "printed": [
            face._asdict() | {"released_on": _date(face.released_on)} for face in card.printed
        ],
        "mechanics": [_tag(tag) for tag in card.mechanics],
        "rulings": [
            {
                "id": ruling.id,
                "published_on": _date(ruling.published_on),
                "text": ruling.text,
                "tags": [_tag(tag) for tag in ruling.tags],
            }
            for ruling in card.rulings
        ],
    }


def _tag(tag: TagSheet) -> dict[str, str]:
    return {"slug": tag.slug, "name": tag.name, "locale": tag.locale}


def _date(date: dt.date | None) -> str | None:
    return None if date is None else date.isoformat()
