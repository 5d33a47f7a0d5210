"""``kb translations import``: a translator's PO file back into the store, as audited edits.

States follow Weblate's documented reading of gettext PO files (docs/translations.md): an empty
``msgstr`` is not translated, ``#, fuzzy`` needs editing (not imported, as Weblate's upload does
by default), any other ``msgstr`` is translated. A PO file holds no approved state, so, as with
Weblate's "Add as approved translation" upload, the reviewer says so for the whole file
(``reviewed``); otherwise a new or changed text is a draft. The whole file is one transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import PoFileError, PoFileParser
from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from kb.batches import chunks
from kb.locales import canonical_locale
from kb.records import ParseError
from kb.revisions import Change, Values, commit_changes
from kb.schema import ruling_translations, rulings
from kb.text import text_key as english_key
from kb.translations.po_export import CONTEXT_PREFIX

_KEYWORD = re.compile(r"msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?")
_CONTEXT = re.compile(rf"{re.escape(CONTEXT_PREFIX)}([1-9][0-9]*)")

REWORDED = "the English text changed since the export (its msgid is no longer the ruling's text)"
FUZZY = "marked fuzzy (needs editing)"


@dataclass(frozen=True)
class PoEntry:
    ruling_id: int
    english: str
    translation: str
    fuzzy: bool
    line: int


@dataclass(frozen=True)
class PoFile:
    path: str
    locale: str
    entries: list[PoEntry]


class _Entries(Catalog):
    """A catalog that refuses a second entry with the same msgctxt and msgid (Babel's merges
    them silently), so that a file never says two things about one ruling."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def __setitem__(self, id: object, message: Message) -> None:
        if id and (id, message.context) in self._messages:
            raise ParseError(self.path, "the same entry twice", message.lineno)
        super().__setitem__(id, message)  # type: ignore[index]


def read_po(path: str, data: bytes, locale: str | None = None) -> PoFile:
    """Parse a PO file (pure: bytes in); ``locale``, when given, is the locale it must be for.
    Raises ParseError ``file:line: reason`` for anything but a kb rulings file."""
    try:
        text = data.decode("utf-8-sig")  # a byte order mark, as some editors write
    except UnicodeDecodeError as error:
        raise ParseError(path, "not UTF-8", data[: error.start].count(b"\n") + 1) from None
    lines = text.splitlines()
    header_line = _check_lines(path, lines)
    catalog = _Entries(path)
    try:
        PoFileParser(catalog, ignore_obsolete=True, abort_invalid=True).parse(lines)
    except PoFileError as error:
        raise ParseError(path, str(error.args[0]).rsplit(" on ", 1)[0], error.lineno + 1) from None
    except ParseError:
        raise
    except ValueError as error:  # Babel's reading of a header field (Language, a date)
        raise ParseError(path, f"bad header: {error}", header_line) from None
    found = _locale(path, catalog, header_line, locale)
    return PoFile(path, found, [_entry(path, message) for message in catalog if message.id])


def _quoted(string: str) -> bool:
    return len(string) >= 2 and string[0] == '"' and string[-1] == '"'


def _check_lines(path: str, lines: list[str]) -> int:
    """Every line is blank, a comment, a quoted string or a keyword with one (Babel reads a
    string without its quotes silently); returns the header's line. String ends are checked,
    not every escape: this runs on every line of a file of 23,000 rulings."""
    header_line = 0
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped[0] == "#" or _quoted(stripped):
            continue
        keyword, _, rest = stripped.partition(" ")
        if _KEYWORD.fullmatch(keyword) is None or not _quoted(rest.strip()):
            raise ParseError(path, f"not a PO line: {stripped[:40]!r}", number)
        if not header_line and keyword == "msgid":
            header_line = number
    if not header_line:
        raise ParseError(path, "no entries: not a PO file")
    return header_line


def _locale(path: str, catalog: Catalog, header_line: int, expected: str | None) -> str:
    identifier = catalog.locale_identifier
    if not identifier:
        raise ParseError(
            path,
            "the header names no Language (a template?); translate a locale's file",
            header_line,
        )
    locale = canonical_locale(identifier.replace("_", "-"))
    if locale is None or locale == "en":
        raise ParseError(
            path, f"Language {identifier!r} is not one of kb's translation locales", header_line
        )
    if expected is not None and locale != expected:
        raise ParseError(path, f"the file is for {locale}, not {expected}", header_line)
    if catalog.charset.lower().replace("-", "") != "utf8":
        raise ParseError(path, f"charset {catalog.charset}: kb reads UTF-8 PO files", header_line)
    return locale


def _entry(path: str, message: Message) -> PoEntry:
    line = message.lineno or 0
    if isinstance(message.id, tuple | list):
        raise ParseError(path, "plural forms: a ruling has none", line)
    match = _CONTEXT.fullmatch(message.context or "")
    if match is None:
        raise ParseError(
            path, f"msgctxt {message.context!r} is not a ruling's key (ruling:ID)", line
        )
    assert isinstance(message.string, str)
    return PoEntry(int(match[1]), message.id, message.string, message.fuzzy, line)


@dataclass
class Report:
    """What an import did: counts, and the entries not applied with the reason."""

    path: str
    new: int = 0
    changed: int = 0
    reviewed: int = 0
    unchanged: int = 0
    untranslated: int = 0
    not_applied: list[tuple[PoEntry, str]] = field(default_factory=list)
    revisions: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        rest = (
            f"{self.unchanged} unchanged, {self.untranslated} untranslated, "
            f"{len(self.not_applied)} not applied"
        )
        if self.revisions:
            span = f"revisions {self.revisions[0]} to {self.revisions[-1]}"
            head = f"{self.new} new, {self.changed} changed, {self.reviewed} reviewed ({span}); "
        else:
            head = "nothing changed; "
        skipped = [
            f"{self.path}:{entry.line}: not applied: {CONTEXT_PREFIX}{entry.ruling_id}: {reason}"
            for entry, reason in self.not_applied
        ]
        return [f"{self.path}: {head}{rest}", *skipped]


def _stored(
    connection: Connection, locale: str, ids: Iterable[int]
) -> tuple[dict[int, tuple[str, str]], dict[int, Values]]:
    """The rulings' texts and text keys, and their translations in ``locale``, by ruling id."""
    keys: dict[int, tuple[str, str]] = {}
    current: dict[int, Values] = {}
    for chunk in chunks(sorted(set(ids))):
        query = select(rulings.c.id, rulings.c.text, rulings.c.text_key).where(
            rulings.c.id.in_(chunk)
        )
        keys.update((row.id, (row.text, row.text_key)) for row in connection.execute(query))
        query = select(
            ruling_translations.c.ruling_id,
            ruling_translations.c.text,
            ruling_translations.c.status,
            ruling_translations.c.reviewed_key,
        ).where(ruling_translations.c.locale == locale, ruling_translations.c.ruling_id.in_(chunk))
        for row in connection.execute(query):
            current[row.ruling_id] = {
                "text": row.text,
                "status": row.status,
                "reviewed_key": row.reviewed_key,
            }
    return keys, current


def plan(
    connection: Connection, po: PoFile, reviewed: bool, report: Report
) -> list[tuple[str, Change]]:
    """The changes the file makes to the store as it is now; raises ParseError for an entry
    about no ruling of the store (the whole file is refused)."""
    keys, current = _stored(connection, po.locale, (entry.ruling_id for entry in po.entries))
    changes: list[tuple[str, Change]] = []
    for entry in po.entries:
        if entry.ruling_id not in keys:
            reason = (
                f"unknown msgctxt {CONTEXT_PREFIX}{entry.ruling_id}: no such ruling in the store"
            )
            raise ParseError(po.path, reason, entry.line)
        text = entry.translation.strip()
        if not text:
            report.untranslated += 1
            continue
        english, text_key = keys[entry.ruling_id]
        # The text as stored is its own key; another spelling is folded first (typography).
        if entry.english != english and english_key(entry.english) != text_key:
            report.not_applied.append((entry, REWORDED))
            continue
        if entry.fuzzy:
            report.not_applied.append((entry, FUZZY))
            continue
        old = current.get(entry.ruling_id)
        new: Values = {"text": text, "status": "reviewed" if reviewed else "draft"}
        new["reviewed_key"] = text_key if reviewed else None
        if old is not None and old["text"] == text and (not reviewed or old == new):
            # The same text, as a draft or reviewed: a draft file does not undo a review.
            report.unchanged += 1
            continue
        if old is None:
            report.new += 1
        elif old["text"] != text:
            report.changed += 1
        if reviewed:
            report.reviewed += 1
        key = {"ruling_id": entry.ruling_id, "locale": po.locale}
        action = "review" if old is not None and old["text"] == text else "translation"
        changes.append(
            (action, Change("ruling_translations", key, old, new, None, entry.ruling_id))
        )
    return changes


def import_po(
    engine: Engine, editor: str, path: Path, reviewed: bool = False, locale: str | None = None
) -> Report:
    """Import the file ``path`` in one transaction; every change a revision."""
    po = read_po(str(path), path.read_bytes(), locale)
    report = Report(str(path))
    report.revisions = commit_changes(engine, editor, lambda c: plan(c, po, reviewed, report))
    return report
