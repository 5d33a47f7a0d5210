"""Plain records that parsers yield and the loader writes.

Parsers know nothing of the database: they turn a source into these records, in source order.
A record names its card by ``oracle_id`` and/or English name, or, for a seed page whose locale or
card is not known yet, by a localized name that the loader resolves against the store.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TypeVar

from typing_extensions import dataclass_transform

from kb.text import text_key

_Record = TypeVar("_Record")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_Record]) -> type[_Record]:
    """A record class: a dataclass that compares and hashes by its fields as a frozen one does,
    and that type checkers hold frozen: mypy, which CI runs on kb/, rejects an assignment to a
    field (tests/test_records.py). Nothing changes a record once made.

    Not frozen at run time, because a frozen dataclass sets each field through
    ``object.__setattr__`` as it is made: four times as slow (460 against 120 ns for five
    fields), and the parser makes some 630,000 records in an import of the real corpus, on the
    import's critical path. Parsing and pickling the corpus took 0.5-1.3 s less CPU (three
    runs each way in turns, 2026-12-08); the store is the same table by table."""
    return dataclass(unsafe_hash=True)(cls)


FACE_SEPARATOR = " // "
"""Between the faces of a card of several faces, in its name ("Fire // Ice"), mana cost and
type line."""
FACE_TEXT_SEPARATOR = "\n//\n"
"""Between the faces' rules texts, in a card's Oracle text."""


def english_faces(name: str, english: str) -> int | None:
    """How many faces of a card of several faces ``name`` gives as their English names
    (``english`` is the card's English name); None where it does not name those faces."""
    faces, originals = name.split(FACE_SEPARATOR), english.split(FACE_SEPARATOR)
    if len(faces) != len(originals) or len(faces) < 2:
        return None
    return sum(face == original for face, original in zip(faces, originals, strict=True))


@record
class CardRef:
    """How a record names its card. At least one field is set."""

    oracle_id: str | None = None
    name: str | None = None
    """English (canonical) name."""
    localized_name: str | None = None
    """A printed name in ``locale`` (or in any locale when ``locale`` is None)."""
    locale: str | None = None


@record
class OracleFace:
    """One face of a card of several faces, in English as the Oracle has it."""

    name: str
    mana_cost: str | None = None
    type_line: str | None = None
    oracle_text: str | None = None


@record
class CardRecord:
    name: str
    oracle_id: str | None = None
    mana_cost: str | None = None
    type_line: str | None = None
    oracle_text: str | None = None
    keywords: tuple[str, ...] = ()
    layout: str | None = None
    """Scryfall/MTGJSON layout: normal, split, transform, modal_dfc, meld, flip, adventure, ..."""
    faces: tuple[str, ...] = ()
    """Face names in printed order for cards of several faces (``Fire``, ``Ice``)."""
    oracle_faces: tuple[OracleFace, ...] = ()
    """The faces with their Oracle cost, type line and text, where the source has them: as
    many as ``faces``, in the same order (a face the file lacks has only its name)."""
    line: int | None = None
    where: str | None = field(default=None, compare=False)
    """Where a source without lines (JSON, TOML) has the record: ``item 17``, ``cards[3]``."""


@record
class CardNameRecord:
    card: CardRef
    locale: str
    """A canonical locale code, or the source's own spelling when it is not one of the 11."""
    name: str
    line: int | None = None
    where: str | None = field(default=None, compare=False)


@record
class RulingRecord:
    card: CardRef
    text: str
    published_on: dt.date | None = None
    position: int | None = None
    origin: str | None = None
    """Who wrote the ruling where the source says so: ``wotc`` or ``scryfall``."""
    line: int | None = None
    where: str | None = field(default=None, compare=False)
    key: str = field(default="", compare=False, repr=False)
    """The text's key (``kb.text.text_key``), made with the record: by the parser's process,
    for a bulk file, so that the loading one (the import's critical path) does not."""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", text_key(self.text))


@record
class MechanicRecord:
    slug: str
    kind: str
    rule: str | None = None
    names: dict[str, str] = field(default_factory=dict)
    """Localized names by canonical locale code, English included."""
    pattern: str | None = None
    """A regular expression that tags a ruling (and a card's Oracle text) with the mechanic."""
    rule_text: str | None = None
    """The rule that defines it, as the Comprehensive Rules print it ("702.29a Cycling is ...")."""
    line: int | None = None
    where: str | None = field(default=None, compare=False)


@record
class Printing:
    """Which printing a printed text comes from. Printings compare by their ``rank``."""

    set_code: str | None = None
    """Upper case, as MTGJSON writes it (Scryfall's lower-case codes are upper-cased)."""
    collector_number: str | None = None
    released_on: dt.date | None = None
    """The set's release date (MTGJSON ``releaseDate``, Scryfall ``released_at``)."""

    @property
    def rank(self) -> tuple[dt.date, str, int, str]:
        """Later printings rank higher: by release date (an undated one lowest), then, between
        printings released the same day, by set code, then by collector number's leading digits
        (as a number), then by the whole collector number (as text)."""
        number = self.collector_number or ""
        digits = len(number) - len(number.lstrip("0123456789"))
        return (
            self.released_on or dt.date.min,
            self.set_code or "",
            int(number[:digits]) if digits else -1,
            number,
        )


@record
class PrintedTextRecord:
    """What one printing of a card face says in one locale: its type line and rules text, with
    the English printed on that printing where the source has it (MTGJSON ``originalText``)."""

    card: CardRef
    locale: str
    """A canonical locale code, or the source's own spelling when it is not one of the 11."""
    face: int = 0
    """The face's position in the card's faces; 0 for a card of one face."""
    face_name: str | None = None
    """The face's printed name on a card of several faces; None on a card of one face."""
    type_line: str | None = None
    text: str | None = None
    english_type_line: str | None = None
    english_text: str | None = None
    printing: Printing = Printing()
    card_name: str | None = None
    """The whole card's printed name on this printing, where the source gives it: the card's
    name in the locale follows its most recent printing, as the text does."""
    line: int | None = None
    where: str | None = field(default=None, compare=False)


Record = CardRecord | CardNameRecord | RulingRecord | MechanicRecord | PrintedTextRecord


class ParseError(ValueError):
    """Bad input: names the file, the line where known, and the reason."""

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[type[ParseError], tuple[str, str, int | None]]:
        # Parsing runs in a worker process for large imports: errors cross back pickled.
        return (ParseError, (self.path, self.reason, self.line))
