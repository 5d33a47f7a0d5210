"""kb's own human-editable catalog (TOML): mechanics, cards and their localized names."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import Any

from kb.locales import BY_CODE
from kb.records import CardNameRecord, CardRecord, CardRef, MechanicRecord, ParseError, Record


def parse(data: bytes, path: str) -> Iterator[Record]:
    """Yield the catalog's mechanics, then its cards, each followed by its localized names."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ParseError(path, "not valid UTF-8", line) from None
    except tomllib.TOMLDecodeError as error:
        raise _toml_error(error, path, data.rstrip().count(b"\n") + 1) from None
    for index, entry in enumerate(_tables(document, "mechanics", path)):
        where = f"mechanics[{index}]"
        names = _names(entry, where, path)
        yield MechanicRecord(
            slug=_text(entry, "slug", where, path),
            kind=_text(entry, "kind", where, path),
            rule=_text(entry, "rule", where, path, required=False),
            names=names,
            pattern=_text(entry, "pattern", where, path, required=False),
            where=where,
        )
    for index, entry in enumerate(_tables(document, "cards", path)):
        where = f"cards[{index}]"
        name = _text(entry, "name", where, path)
        oracle_id = _text(entry, "oracle_id", where, path, required=False)
        keywords = entry.get("keywords", [])
        if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
            raise ParseError(path, f"{where}.keywords must be a list of strings")
        yield CardRecord(
            name=name,
            oracle_id=oracle_id,
            mana_cost=_text(entry, "mana_cost", where, path, required=False),
            type_line=_text(entry, "type_line", where, path, required=False),
            oracle_text=_text(entry, "oracle_text", where, path, required=False),
            keywords=tuple(keywords),
            where=where,
        )
        card = CardRef(oracle_id=oracle_id, name=name)
        for locale, localized in _names(entry, where, path).items():
            yield CardNameRecord(card, locale, localized, where=f"{where}.names.{locale}")


# tomllib tells where only in its message (Python 3.14 adds lineno): "... (at line 3, column 5)".
_TOML_AT = re.compile(r"^(?P<reason>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)$")


def _toml_error(error: tomllib.TOMLDecodeError, path: str, lines: int) -> ParseError:
    """The error as kb names a place: ``catalog.toml:3: not valid TOML: ... (column 5)``."""
    found = _TOML_AT.match(str(error))
    if found is None:
        reason = str(error).removesuffix(" (at end of document)")
        if reason != str(error):
            return ParseError(path, f"not valid TOML: {reason} (at the end)", lines)
        return ParseError(path, f"not valid TOML: {error}")
    reason = f"not valid TOML: {found['reason']} (column {found['column']})"
    return ParseError(path, reason, int(found["line"]))


def _tables(document: dict[str, Any], key: str, path: str) -> list[dict[str, Any]]:
    tables = document.get(key, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ParseError(path, f"{key} must be an array of tables ([[{key}]])")
    return tables


def _text(entry: dict[str, Any], key: str, where: str, path: str, required: bool = True) -> Any:
    value = entry.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ParseError(path, f"{where}.{key} must be a non-empty string")
    return value


def _names(entry: dict[str, Any], where: str, path: str) -> dict[str, str]:
    names = entry.get("names", {})
    if not isinstance(names, dict):
        raise ParseError(path, f"{where}.names must be a table of locale = name")
    for locale, name in names.items():
        if locale not in BY_CODE:
            raise ParseError(path, f"{where}.names: unknown locale {locale!r}")
        if not isinstance(name, str) or not name.strip():
            raise ParseError(path, f"{where}.names.{locale} must be a non-empty string")
    return dict(names)
