"""Parser for MTGJSON v5: set files, AllPrintings and AtomicCards.

MTGJSON lists a card once per printing, and a multi-face card once per face: each face object has
``faceName`` and ``side`` and the card's full ``name`` ("Fire // Ice"). This parser regroups faces
into one Oracle card, keyed by ``identifiers.scryfallOracleId`` (or the name where MTGJSON has
none, as on reversible cards), and yields it once per file with its foreign names and rulings,
each once per card however many printings repeat them, and the printed texts of its
printings: for each card, locale and face, the text of the set's printing that ranks highest
(``Printing.rank``), once per set (the loader keeps the most recent printing's).

Sets are read one at a time, each whole (its ``releaseDate`` follows its ``cards``, and a
printed text needs it): a set file at once with orjson, AllPrintings' sets one after the other
with ijson; AtomicCards one card at a time. What is kept across a file is only what dedupes:
card keys and hashes of ruling texts.
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterable, Iterator
from typing import BinaryIO, NamedTuple

import orjson

from kb.importers.mtgjson_names import mended_name, partly_english
from kb.importers.mtgjson_texts import as_printed
from kb.importers.streams import (
    ALL_PRINTINGS,
    ATOMIC_CARDS,
    BARE_SET,
    SET_FILE,
    json_head_events,
    json_kvitems,
    json_object,
    mtgjson_shape,
    object_list,
    optional_iso_date,
    optional_str,
    read_errors_as_parse_errors,
    read_head,
    replay,
    required_str,
    str_list,
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

MtgjsonRecord = CardRecord | CardNameRecord | RulingRecord | PrintedTextRecord
Face = dict[str, object]
TextKey = tuple[str, str, int]
"""A printed text's card key, locale and face."""


def parse(stream: BinaryIO, path: str, shape: str | None = None) -> Iterator[MtgjsonRecord]:
    """Each Oracle card of the file, followed by its foreign names and rulings, in file order.

    A card comes when all its faces have been read; a later printing of a card already yielded
    adds only the names and rulings not seen yet. A ruling's ``position`` is its index in the
    card's ``rulings`` list where first seen, and its date the date there: MTGJSON copies an
    Oracle card's rulings onto every printing, dates included (no date differs between printings
    in the 2022 corpus), so keeping the first copy needs no buffering of the file's rulings.
    A ruling with an empty text (a few promo printings have one) is left out. ``shape``: the
    file's layout where recognising it read that already (``streams.Sniffed``).
    """
    with read_errors_as_parse_errors(path):
        head = read_head(stream).removeprefix(codecs.BOM_UTF8)
        shape = shape or mtgjson_shape(json_head_events(head))
        if shape is None:
            raise ParseError(path, "not an MTGJSON set, AllPrintings or AtomicCards file")
        cards = _OracleCards(path)
        number = 0
        for printing, faces in _sets(replay(head, stream), shape, path):
            cards.printing = printing
            for value in faces:
                number += 1
                yield from cards.add(json_object(value, f"card {number}", path), f"card {number}")
            yield from cards.end_set()
        yield from cards.flush()


def _sets(stream: BinaryIO, shape: str, path: str) -> Iterator[tuple[Printing, Iterable[object]]]:
    """Each set of the file as the printing its cards share (set code, release date), with its
    card objects; AtomicCards, of no printing, as one set of every card's faces."""
    if shape in (SET_FILE, BARE_SET):
        # The set whole (its cards come before its release date): a set is a few MB, which
        # orjson reads three times as fast as ijson's events.
        document = orjson.loads(stream.read())
        if shape == SET_FILE:
            document = document.get("data") if isinstance(document, dict) else None
        card_set = document if isinstance(document, dict) else {}
        where = "data.cards" if shape == SET_FILE else "cards"
        if "cards" in card_set and not isinstance(card_set["cards"], list):
            found = card_set["cards"]
            shown = {dict: "an object", type(None): "null"}.get(type(found)) or _shown(found)
            raise ParseError(path, f"{where} {shown} is not a list")
        yield _set_printing(card_set, "set", path), _set_cards("", card_set, path)
    elif shape == ALL_PRINTINGS:
        # One whole set at a time (a set is small): an ijson prefix cannot name "any key".
        for code, value in json_kvitems(stream, "data"):
            cards = _set_cards(code, value, path)
            where = f"set {code}"
            yield _set_printing(json_object(value, where, path), where, path), cards
    elif shape == ATOMIC_CARDS:
        # A card's faces; a value that is not a list is passed on to be reported as not a card.
        atomic_cards = json_kvitems(stream, "data")
        yield (
            Printing(),
            (
                face
                for _, faces in atomic_cards
                for face in (faces if isinstance(faces, list) else [faces])
            ),
        )
    else:
        raise AssertionError(f"unknown MTGJSON shape {shape}")


def _set_printing(card_set: dict[str, object], where: str, path: str) -> Printing:
    """What a set's printings share: its code and release date (a card's own ``setCode`` and
    ``number`` complete it)."""
    code = optional_str(card_set, "code", where, path)
    released_on = optional_iso_date(card_set, "releaseDate", where, path)
    return Printing(code.upper() if code else None, None, released_on)


def _set_cards(code: str, card_set: object, path: str) -> list[object]:
    """An AllPrintings set's cards: none where it has no ``cards``; any other value than a list
    is an error, not a set silently left out."""
    found = json_object(card_set, f"set {code}", path).get("cards")
    if found is None:
        return []
    if not isinstance(found, list):
        raise ParseError(path, f"set {code}: cards {found!r:.40} is not a list")
    return found


def _oracle_name(face: Face, where: str, path: str) -> tuple[str, tuple[str, ...]]:
    """The Oracle card's name and face names for one face object.

    A meld card's parts are separate Oracle cards (each its own Scryfall oracle id) although
    MTGJSON names the front "Bruna, the Fading Light // Brisela, Voice of Nightmares": the part is
    its ``faceName``, and its faces are itself and the melded card on its back. A reversible
    card repeats one card on both sides ("Zndrsplt, Eye of Wisdom // Zndrsplt, Eye of Wisdom"):
    that is one face.
    """
    full_name = required_str(face, "name", where, path)
    if face.get("layout") == "meld":
        return optional_str(face, "faceName", where, path) or full_name, _collapsed_faces(
            full_name
        )[1]
    return _collapsed_faces(full_name)


def _collapsed_faces(full_name: str) -> tuple[str, tuple[str, ...]]:
    faces = tuple(dict.fromkeys(full_name.split(FACE_SEPARATOR)))
    if len(faces) == 1:
        return faces[0], ()
    return FACE_SEPARATOR.join(faces), faces


class _EnglishFace(NamedTuple):
    """A face object, with what its printed texts share (``_OracleCards._english_face``)."""

    face: Face
    where: str
    printing: Printing
    position: int
    """The face's position among the card's faces."""
    several: bool
    """Whether the card has several faces (its texts then name their face)."""


class _OracleCards:
    """Groups face objects into Oracle cards and remembers what a file has yielded already."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._pending: dict[str, list[tuple[str, Face]]] = {}
        """Faces read of multi-face cards whose other faces are still to come, by card key."""
        self._pending_sets: dict[str, Printing] = {}
        """The set each pending face object (by its place in the file) was read in."""
        self._yielded_cards: set[str] = set()
        self._yielded_names: set[tuple[str, str]] = set()
        """(card, locale) of the names yielded: a translated one, or the English one where
        no printing read so far was translated (another of the file's printings may be)."""
        self._yielded_rulings: set[tuple[str, bytes]] = set()
        self.printing = Printing()
        """The set being read: its code and release date."""
        self._texts: dict[TextKey, PrintedTextRecord] = {}
        """The set's printed texts so far, the highest-ranking printing's per key."""
        self._waiting: dict[str, list[PrintedTextRecord]] = {}
        """Printed texts of cards not yielded yet (faces still to come), by card key."""

    def add(self, face: Face, where: str) -> Iterator[MtgjsonRecord]:
        name, face_names = _oracle_name(face, where, self._path)
        oracle_id = _scryfall_oracle_id(face, where, self._path)
        key = oracle_id or name
        if key in self._yielded_cards:
            yield from self._names_and_rulings(key, CardRef(oracle_id, name), [(where, face)])
            return
        group = [*self._pending.pop(key, []), (where, face)]
        # Printings of one card may interleave their faces ("a", "a", "b", "b"): count sides.
        # A meld part's back is another card's object (the melded card): the front is whole.
        sides = 1 if face.get("layout") == "meld" else max(len(face_names), 1)
        if len(_first_face_per_side(group)) < sides:
            self._pending[key] = group
            self._pending_sets[where] = self.printing
            return
        yield from self._card(key, oracle_id, name, face_names, group)

    def end_set(self) -> Iterator[PrintedTextRecord]:
        """The set's printed texts, once per card, locale and face; those of a card still to
        come wait for it (a text's card must be in the store before the text)."""
        for (key, _, _), record in self._texts.items():
            if key in self._yielded_cards:
                yield record
            else:
                self._waiting.setdefault(key, []).append(record)
        self._texts.clear()

    def flush(self) -> Iterator[MtgjsonRecord]:
        """The cards some of whose faces the file lacks (an excerpt, a promo of one face)."""
        for key, group in self._pending.items():
            where, face = group[0]
            oracle_id = _scryfall_oracle_id(face, where, self._path)
            name, face_names = _oracle_name(face, where, self._path)
            yield from self._card(key, oracle_id, name, face_names, group)
        self._pending.clear()
        yield from self.end_set()  # the texts of the cards just yielded
        for waiting in self._waiting.values():
            yield from waiting  # only texts whose card never came: the loader warns
        self._waiting.clear()

    def _card(
        self,
        key: str,
        oracle_id: str | None,
        name: str,
        face_names: tuple[str, ...],
        group: list[tuple[str, Face]],
    ) -> Iterator[MtgjsonRecord]:
        faces = _first_face_per_side(group)
        where, first = faces[0]

        def joined(key: str, separator: str, keep_empty: bool = True) -> str | None:
            values = [optional_str(face, key, where, self._path) or "" for where, face in faces]
            kept = values if keep_empty else [value for value in values if value]
            return separator.join(kept) if any(values) else None

        keywords = (str_list(face, "keywords", where, self._path) for where, face in faces)
        self._yielded_cards.add(key)
        yield CardRecord(
            name=name,
            oracle_id=oracle_id,
            # A back face that is never cast (transform, flip) has no cost, rather than "{W} // ".
            mana_cost=joined("manaCost", FACE_SEPARATOR, keep_empty=False),
            type_line=joined("type", FACE_SEPARATOR),
            oracle_text=joined("text", FACE_TEXT_SEPARATOR),
            keywords=tuple(dict.fromkeys(keyword for face in keywords for keyword in face)),
            layout=optional_str(first, "layout", where, self._path),
            faces=face_names,
            oracle_faces=self._oracle_faces(face_names, faces),
            where=where,
        )
        yield from self._names_and_rulings(key, CardRef(oracle_id, name), group)
        yield from self._waiting.pop(key, [])

    def _oracle_faces(
        self, face_names: tuple[str, ...], faces: list[tuple[str, Face]]
    ) -> tuple[OracleFace, ...]:
        """Each face of ``face_names`` in English, from its face object where the file has one
        (a meld card's back is another card's)."""
        by_name = {
            optional_str(face, "faceName", where, self._path): (where, face)
            for where, face in faces
        }
        oracle_faces = []
        for face_name in face_names:
            if face_name not in by_name:
                oracle_faces.append(OracleFace(face_name))
                continue
            where, face = by_name[face_name]
            oracle_faces.append(
                OracleFace(
                    face_name,
                    optional_str(face, "manaCost", where, self._path),
                    optional_str(face, "type", where, self._path),
                    optional_str(face, "text", where, self._path),
                )
            )
        return tuple(oracle_faces)

    def _names_and_rulings(
        self, key: str, card: CardRef, group: Iterable[tuple[str, Face]]
    ) -> Iterator[MtgjsonRecord]:
        for where, face in group:
            foreign = object_list(face, "foreignData", where, self._path)
            at = f"{where} foreignData"
            # A face that waited for its card's other faces was read in its own set.
            card_set = self._pending_sets.pop(where, self.printing)
            printing = self._face_printing(face, where, card_set) if foreign else card_set
            english: _EnglishFace | None = None  # read once per face, at its first text
            for entry in foreign:
                language = required_str(entry, "language", at, self._path)
                locale = canonical_locale(language) or language
                name = None  # read once, for the card's name in the locale or for its text
                if (key, locale) not in self._yielded_names:
                    name = self._foreign_name(face, entry, where, card.name or "")
                    if name != card.name and not partly_english(name, card.name or ""):
                        self._yielded_names.add((key, locale))
                    yield CardNameRecord(card, locale, name, where=at)
                text = optional_str(entry, "text", at, self._path)
                type_line = optional_str(entry, "type", at, self._path)
                if text is None and type_line is None:
                    continue  # a name only, as older sets' foreign entries are
                if english is None:
                    english = self._english_face(face, where, printing)
                self._add_text(key, card, locale, english, entry, text, type_line, at, name)
            for position, ruling in enumerate(object_list(face, "rulings", where, self._path)):
                at = f"{where} ruling {position + 1}"
                text = required_str(ruling, "text", at, self._path)
                if not text.strip():
                    continue  # A few promo printings carry an empty ruling: nothing to record.
                text_key = (key, hashlib.blake2b(text.encode(), digest_size=16).digest())
                if text_key not in self._yielded_rulings:
                    self._yielded_rulings.add(text_key)
                    published_on = optional_iso_date(ruling, "date", at, self._path)
                    yield RulingRecord(card, text, published_on, position, where=at)

    def _face_printing(self, face: Face, where: str, card_set: Printing) -> Printing:
        """The printing a face object is of: its set's, with the card's own code and number."""
        code = optional_str(face, "setCode", where, self._path)
        return Printing(
            code.upper() if code else card_set.set_code,
            optional_str(face, "number", where, self._path),
            card_set.released_on,
        )

    def _english_face(self, face: Face, where: str, printing: Printing) -> _EnglishFace:
        """What a face object's printed texts share: its printing, its position among the
        card's faces, and whether the card has several."""
        _, face_names = _oracle_name(face, where, self._path)
        english_face = optional_str(face, "faceName", where, self._path)
        position = face_names.index(english_face) if english_face in face_names else 0
        return _EnglishFace(face, where, printing, position, bool(face_names))

    def _add_text(
        self,
        key: str,
        card: CardRef,
        locale: str,
        english: _EnglishFace,
        entry: Face,
        text: str | None,
        type_line: str | None,
        at: str,
        name: str | None,
    ) -> None:
        """Keep a foreign entry's printed text if its printing ranks highest of the set's for
        its card, locale and face (the first of equal ranks). ``name``: the entry's name of the
        card, where it was read already."""
        text_key = (key, locale, english.position)
        kept = self._texts.get(text_key)
        if kept is not None and kept.printing.rank >= english.printing.rank:
            return
        printed = as_printed(
            english.face.get("layout"),
            optional_str(english.face, "originalText", english.where, self._path),
            text,
            type_line,
            locale,
        )
        if printed.text is None and printed.type_line is None:
            return  # the English copied (mtgjson_texts.english_copy): no printed text
        self._texts[text_key] = PrintedTextRecord(
            card,
            locale,
            face=english.position,
            face_name=(
                optional_str(entry, "faceName", at, self._path) if english.several else None
            ),
            type_line=printed.type_line,
            text=printed.text,
            english_type_line=optional_str(english.face, "originalType", english.where, self._path),
            english_text=printed.english,
            printing=english.printing,
            card_name=self._printing_name(english, entry, card.name or "", name),
            where=at,
        )

    def _printing_name(
        self, english: _EnglishFace, entry: Face, card_name: str, name: str | None
    ) -> str | None:
        """The printing's name of the card (``card_name`` in English), beside its text; None
        where it names no card: a promotional printing under another name (the Godzilla series
        prints that one too, "不思議な卵 (モスラの巨大な繭)"), a name whose brackets do not pair
        (Japanese ruby cut off: "リリアナの軍旗手（しゅ"), or one partly English."""
        if english.face.get("flavorName"):
            return None
        if name is None:  # not read for the card's name already
            name = self._foreign_name(english.face, entry, english.where, card_name)
        if name.count("(") != name.count(")") or name.count("（") != name.count("）"):
            return None
        if partly_english(name, card_name):
            return None
        return name

    def _foreign_name(self, face: Face, entry: Face, where: str, english: str) -> str:
        """A card's name in a language (``english`` is its English name), mended
        (``mtgjson_names.mended_name``): MTGJSON already joins a multi-face card's foreign face
        names ("Sonnenuntergang // Sonnenaufgang") on every face, as in its English ``name``; a
        meld part is named by its own face."""
        where = f"{where} foreignData"
        if face.get("layout") == "meld":
            face_name = optional_str(entry, "faceName", where, self._path)
            name = face_name or required_str(entry, "name", where, self._path)
        else:
            name = _collapsed_faces(required_str(entry, "name", where, self._path))[0]
        return mended_name(name, english)


def _shown(value: object) -> str:
    """A value as the errors quote it (as kb.importers.streams does)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _first_face_per_side(group: list[tuple[str, Face]]) -> list[tuple[str, Face]]:
    """One face object per side ("a", "b", ...), in side order."""
    by_side: dict[str, tuple[str, Face]] = {}
    for where, face in group:
        by_side.setdefault(str(face.get("side") or ""), (where, face))
    return [by_side[side] for side in sorted(by_side)]


def _scryfall_oracle_id(face: Face, where: str, path: str) -> str | None:
    identifiers = face.get("identifiers")
    if identifiers is None:
        return None
    return optional_str(json_object(identifiers, where, path), "scryfallOracleId", where, path)
