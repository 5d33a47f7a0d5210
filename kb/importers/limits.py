"""How long a name, a text and a line of an imported source may be.

Every record of every format passes through ``checked`` on its way to the loader, and every text
format (pages, the Comprehensive Rules, the catalog) is read through ``line_limited``: a source
that is not data (a page of 30 MB on one line) stops the import instead of becoming a ruling that
every later build writes out again.

The limits leave a wide margin over the real corpus (MTGJSON's 2022 sets, the Comprehensive
Rules): its longest ruling has 1,505 characters, its longest card text 1,232, its longest name
141 (an Un-card's), its longest line 2,318 bytes (a rule of the 2022 Comprehensive Rules).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import BinaryIO, Final

from kb.records import (
    CardNameRecord,
    CardRecord,
    CardRef,
    MechanicRecord,
    OracleFace,
    ParseError,
    PrintedTextRecord,
    Record,
    RulingRecord,
)

MAX_NAME_CHARS: Final = 500
"""A card's name in any locale (English, localized, a face's), a mechanic's name, a page's title,
and a card's type line (Oracle or printed, in any locale) and mana cost."""
MAX_TEXT_CHARS: Final = 10_000
"""A ruling's text and a card's rules text (Oracle or printed, in any locale)."""
MAX_CODE_CHARS: Final = 32
"""A printing's set code and collector number (the real corpus's longest: 5 and 7)."""
MAX_LINE_BYTES: Final = 64 * 1024
"""A line of a text format, in bytes as stored (decompressed): room for the longest ruling in
any script (up to 4 bytes a character) with its date."""


def checked(records: Iterable[Record], path: str) -> Iterator[Record]:
    """``records``, each checked against the limits: a ParseError names the first too long."""
    for record in records:
        if not _fits(record):
            for what, value, limit in _fields(record):
                if value is not None and len(value) > limit:
                    raise _too_long(record, path, what, value, limit)
        yield record


def _fits(record: Record) -> bool:
    """Whether every field is within its limit: the quick test every record passes."""
    if isinstance(record, RulingRecord):
        return len(record.text) <= MAX_TEXT_CHARS and _fits_ref(record.card)
    if isinstance(record, CardNameRecord):
        return len(record.name) <= MAX_NAME_CHARS and _fits_ref(record.card)
    if isinstance(record, PrintedTextRecord):
        return (
            len(record.text or "") <= MAX_TEXT_CHARS
            and len(record.english_text or "") <= MAX_TEXT_CHARS
            and len(record.type_line or "") <= MAX_NAME_CHARS
            and len(record.english_type_line or "") <= MAX_NAME_CHARS
            and len(record.face_name or "") <= MAX_NAME_CHARS
            and len(record.printing.set_code or "") <= MAX_CODE_CHARS
            and len(record.printing.collector_number or "") <= MAX_CODE_CHARS
            and _fits_ref(record.card)
        )
    if isinstance(record, CardRecord):
        return (
            len(record.name) <= MAX_NAME_CHARS
            and len(record.oracle_text or "") <= MAX_TEXT_CHARS
            and len(record.type_line or "") <= MAX_NAME_CHARS
            and len(record.mana_cost or "") <= MAX_NAME_CHARS
            and max(map(len, (*record.faces, *record.keywords)), default=0) <= MAX_NAME_CHARS
            and all(map(_fits_face, record.oracle_faces))
        )
    return False  # mechanics are a few hundred: _fields looks at each of theirs


def _fits_face(face: OracleFace) -> bool:
    return (
        len(face.oracle_text or "") <= MAX_TEXT_CHARS
        and len(face.type_line or "") <= MAX_NAME_CHARS
        and len(face.mana_cost or "") <= MAX_NAME_CHARS
    )


def _fits_ref(card: CardRef) -> bool:
    return (
        len(card.name or "") <= MAX_NAME_CHARS and len(card.localized_name or "") <= MAX_NAME_CHARS
    )


def _fields(record: Record) -> Iterator[tuple[str, str | None, int]]:
    if isinstance(record, RulingRecord):
        yield "a ruling's text", record.text, MAX_TEXT_CHARS
        yield from _card_ref(record.card)
    elif isinstance(record, CardNameRecord):
        yield "a card's name", record.name, MAX_NAME_CHARS
        yield from _card_ref(record.card)
    elif isinstance(record, CardRecord):
        yield "a card's name", record.name, MAX_NAME_CHARS
        for face in record.faces:
            yield "a face's name", face, MAX_NAME_CHARS
        for keyword in record.keywords:
            yield "a keyword", keyword, MAX_NAME_CHARS
        yield "a type line", record.type_line, MAX_NAME_CHARS
        yield "a mana cost", record.mana_cost, MAX_NAME_CHARS
        yield "a card's rules text", record.oracle_text, MAX_TEXT_CHARS
        for oracle_face in record.oracle_faces:
            yield "a face's type line", oracle_face.type_line, MAX_NAME_CHARS
            yield "a face's mana cost", oracle_face.mana_cost, MAX_NAME_CHARS
            yield "a face's rules text", oracle_face.oracle_text, MAX_TEXT_CHARS
    elif isinstance(record, PrintedTextRecord):
        yield "a face's printed name", record.face_name, MAX_NAME_CHARS
        yield "a card's name", record.card_name, MAX_NAME_CHARS
        yield "a printed type line", record.type_line, MAX_NAME_CHARS
        yield "a printed text", record.text, MAX_TEXT_CHARS
        yield "an English printed type line", record.english_type_line, MAX_NAME_CHARS
        yield "an English printed text", record.english_text, MAX_TEXT_CHARS
        yield "a set code", record.printing.set_code, MAX_CODE_CHARS
        yield "a collector number", record.printing.collector_number, MAX_CODE_CHARS
        yield from _card_ref(record.card)
    elif isinstance(record, MechanicRecord):
        yield "a mechanic's slug", record.slug, MAX_NAME_CHARS
        for name in record.names.values():
            yield "a mechanic's name", name, MAX_NAME_CHARS
        yield "a mechanic's pattern", record.pattern, MAX_TEXT_CHARS


def _card_ref(card: CardRef) -> Iterator[tuple[str, str | None, int]]:
    # A page's title, or a name a record finds its card by.
    yield "a card's name", card.name, MAX_NAME_CHARS
    yield "a card's name", card.localized_name, MAX_NAME_CHARS


def _too_long(record: Record, path: str, what: str, value: str, limit: int) -> ParseError:
    start = " ".join(value[:40].split())
    reason = f"{what} of {len(value):,} characters ({start!r}...): at most {limit:,}"
    if record.line is None and record.where is not None:
        return ParseError(path, f"{record.where}: {reason}")
    return ParseError(path, reason, record.line)


class _LineLimited(io.RawIOBase):
    """Passes ``raw`` through, raising a ParseError as soon as a line passes MAX_LINE_BYTES.

    It reads at most MAX_LINE_BYTES at a time, so a line that lies whole inside one read is
    shorter than the limit: only the runs that cross from one read into the next are counted.
    Line ends are counted as Python's universal newlines read them (LF, CRLF, bare CR).
    """

    def __init__(self, raw: BinaryIO, path: str) -> None:
        self._raw = raw
        self._path = path
        self._line = 1
        self._run = 0  # bytes of the current line read so far
        self._after_cr = False  # the last read ended with CR: an LF next ends no new line

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(min(len(buffer), MAX_LINE_BYTES))
        buffer[: len(data)] = data
        self._count(data)
        return len(data)

    def _count(self, data: bytes) -> None:
        first = _first_break(data)
        if first < 0:
            self._run += len(data)
            self._check()
            return
        self._run += first
        self._check()
        breaks = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
        if self._after_cr and data.startswith(b"\n"):
            breaks -= 1
        self._line += breaks
        self._run = len(data) - 1 - max(data.rfind(b"\n"), data.rfind(b"\r"))
        self._after_cr = data.endswith(b"\r")
        self._check()

    def _check(self) -> None:
        if self._run > MAX_LINE_BYTES:
            reason = f"a line of more than {MAX_LINE_BYTES:,} bytes: not a source kb reads"
            raise ParseError(self._path, reason, self._line)


def _first_break(data: bytes) -> int:
    found = [index for index in (data.find(b"\n"), data.find(b"\r")) if index >= 0]
    return min(found) if found else -1


def line_limited(stream: BinaryIO, path: str) -> BinaryIO:
    """``stream``, read through a check that no line is longer than MAX_LINE_BYTES."""
    return io.BufferedReader(_LineLimited(stream, path))
