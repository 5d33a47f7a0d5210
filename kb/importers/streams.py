"""Inputs for the parsers: files, folders, compressed files and archives, and their formats.

A source may come as a plain file, gzip/xz/bzip2-compressed, a zip archive of several files, or a
folder of any of these. This module turns a path into *inputs* (one per file or archive member),
opens each as a decompressed binary stream, and tells its format from its content, never from its
name: a renamed or extension-less download still imports. Everything streams; nothing reads a
whole file into memory.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import datetime as dt
import gzip
import hashlib
import io
import lzma
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, Final, NamedTuple, cast

import ijson  # type: ignore[import-untyped]  # ijson ships no type hints
import orjson

# The names sniff returns, kept in kb.formats for the command line.
from kb.formats import COMPREHENSIVE_RULES as COMPREHENSIVE_RULES
from kb.formats import MTGJSON as MTGJSON
from kb.formats import SCRYFALL_CARDS as SCRYFALL_CARDS
from kb.formats import SCRYFALL_RULINGS as SCRYFALL_RULINGS
from kb.formats import SEED_PAGE as SEED_PAGE
from kb.records import ParseError

SNIFF_BYTES: Final = 64 * 1024
"""How much decompressed content recognise.detect reads: enough to reach a card object's
"object" key (Scryfall sorts keys, so it comes after all_parts, artist, ..., legalities: ~4 KB
in)."""

JSON_LOCATE_BYTES: Final = 16 * 1024 * 1024
"""The largest input (decompressed) that is read whole again to tell where its JSON breaks."""

READ_ERRORS: Final = (EOFError, OSError, lzma.LZMAError, zlib.error, zipfile.BadZipFile)
"""What reading a damaged file or archive raises (truncated gzip, xz, bzip2 or zip)."""

_GZIP_MAGIC: Final = b"\x1f\x8b"
_XZ_MAGIC: Final = b"\xfd7zXZ\x00"
_BZIP2_MAGIC: Final = b"BZh"
_ZIP_MAGIC: Final = b"PK\x03\x04"
_MAGIC_LENGTH: Final = 6


@dataclass(frozen=True)
class Input:
    """One file to parse: a file on disk, or one member of a zip archive."""

    path: Path
    member: str | None = None

    @property
    def name(self) -> str:
        """How error messages and provenance name the input: ``a.zip!cards.json`` for a member."""
        return f"{self.path}!{self.member}" if self.member is not None else str(self.path)


def iter_inputs(path: str | Path) -> Iterator[Input]:
    """The inputs under ``path``: a folder recursively in sorted order, a zip's members in order.

    Hidden files and folders (``.git``, ``.DS_Store``) are skipped, as are hidden zip members
    (``__MACOSX/._x``): they are never sources.
    """
    path = Path(path)
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            relative_parts = child.relative_to(path).parts
            if child.is_file() and not any(part.startswith(".") for part in relative_parts):
                yield from _inputs_of_file(child)
    else:
        yield from _inputs_of_file(path)


def _inputs_of_file(path: Path) -> Iterator[Input]:
    with path.open("rb") as file:
        magic = file.read(_MAGIC_LENGTH)
    if not magic.startswith(_ZIP_MAGIC):
        yield Input(path)
        return
    try:
        with zipfile.ZipFile(path) as archive:
            members = [info.filename for info in archive.infolist() if not info.is_dir()]
    except zipfile.BadZipFile as error:
        raise ParseError(str(path), f"not a readable zip archive ({error})") from error
    for member in members:
        if not any(part.startswith(".") or part == "__MACOSX" for part in member.split("/")):
            yield Input(path, member)


class _Digesting(io.RawIOBase):
    """Feeds every byte read from ``raw`` to ``digest``: provenance checksums in the same pass."""

    def __init__(self, raw: IO[bytes], digest: Any) -> None:
        self._raw = raw
        self._digest = digest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(len(buffer))
        buffer[: len(data)] = data
        self._digest.update(data)
        return len(data)


@contextlib.contextmanager
def _open_stored(source: Input) -> Iterator[IO[bytes]]:
    """The input's bytes as stored: the file, or the zip member (still gzip, xz, ...)."""
    if source.member is None:
        with source.path.open("rb") as raw:
            yield raw
        return
    with zipfile.ZipFile(source.path) as archive, archive.open(source.member) as raw:
        yield raw


@contextlib.contextmanager
def open_input(source: Input | str | Path, digest: Any = None) -> Iterator[BinaryIO]:
    """The input's content as a binary stream, decompressed when gzip, xz or bzip2 (by content).

    With ``digest`` (a hashlib object), the stored bytes read are fed to it as they stream by.
    """
    source = source if isinstance(source, Input) else Input(Path(source))
    with _open_stored(source) as raw:
        stream = raw if digest is None else cast(IO[bytes], _Digesting(raw, digest))
        with _decompressed(stream) as decompressed:
            yield decompressed


def stored_sha256(source: Input) -> str:
    """SHA-256 of the input's bytes as stored (compressed files are not decompressed)."""
    digest = hashlib.sha256()
    with _open_stored(source) as raw:
        while block := raw.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _decompressed(raw: IO[bytes]) -> contextlib.closing[BinaryIO]:
    buffered = io.BufferedReader(raw)  # type: ignore[type-var]  # for peek(); reads nothing
    magic = buffered.peek(_MAGIC_LENGTH)[:_MAGIC_LENGTH]
    stream: BinaryIO = buffered
    if magic.startswith(_GZIP_MAGIC):
        stream = gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[assignment]
    elif magic.startswith(_XZ_MAGIC):
        stream = lzma.LZMAFile(buffered, "rb")  # type: ignore[assignment]  # noqa: SIM115  # closed by caller
    elif magic.startswith(_BZIP2_MAGIC):
        stream = bz2.BZ2File(buffered, "rb")  # type: ignore[assignment]
    return contextlib.closing(stream)


def json_items(stream: BinaryIO, prefix: str) -> Iterator[object]:
    """The JSON values under ``prefix`` (ijson syntax: "item", "data.cards.item"), streamed."""
    items: Iterator[object] = ijson.items(stream, prefix, use_float=True)
    return items


def json_array_items(stream: BinaryIO, prefix: str, name: str) -> Iterator[object]:
    """The items of the array at ``prefix`` ("data.cards"), streamed; none where the document
    has no value there. Any other value than an array is an error: ijson's "data.cards.item"
    alone matches nothing in an object or a number, and the file would import as empty.

    The type is read first with ijson's events, which stop at the value's first event (in an
    MTGJSON set file, after ``booster``: past any head a sniffer reads); the bytes read so far
    are kept and served again to the streaming parse."""
    seen = _Recording(stream)
    found: JsonEvent | None = None
    for event in ijson.parse(seen, use_float=True):
        if event[0] == prefix:
            found = event
            break
    if found is None:
        return iter(())
    if found[1] != "start_array":
        value = {"start_map": "an object", "null": "null"}.get(found[1]) or _shown(found[2])
        raise ParseError(name, f"{prefix} {value} is not a list")
    return json_items(replay(seen.recorded(), stream), f"{prefix}.item")


class _Recording(io.RawIOBase):
    """A stream that keeps a copy of every byte read through it."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._chunks: list[bytes] = []

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self._chunks.append(data)
        return data

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def recorded(self) -> bytes:
        return b"".join(self._chunks)


def json_kvitems(stream: BinaryIO, prefix: str) -> Iterator[tuple[str, object]]:
    """The key-value pairs of the JSON object at ``prefix``, streamed one value at a time."""
    pairs: Iterator[tuple[str, object]] = ijson.kvitems(stream, prefix, use_float=True)
    return pairs


@contextlib.contextmanager
def read_errors_as_parse_errors(name: str) -> Iterator[None]:
    """Turn what a broken input raises while being read (truncated gzip, bad JSON, bad UTF-8)
    into one ParseError naming the input, so callers handle a single exception type."""
    try:
        yield
    except ParseError:
        raise
    except ijson.IncompleteJSONError as error:
        raise InvalidJson(name, f"truncated or invalid JSON ({_one_line(error)})") from error
    except ijson.JSONError as error:
        raise InvalidJson(name, f"invalid JSON ({_one_line(error)})") from error
    except orjson.JSONDecodeError as error:  # before UnicodeDecodeError: both are ValueErrors
        at_end = error.pos >= len(error.doc.rstrip())
        reason = "truncated or invalid JSON" if at_end else "invalid JSON"
        raise InvalidJson(name, f"{reason} ({_one_line(error)})") from error
    except UnicodeDecodeError as error:
        # The offset is into whatever block the decoder was given: no use to the user.
        raise InvalidUtf8(name, f"not valid UTF-8 ({error.reason})") from error
    except READ_ERRORS as error:
        raise ParseError(name, f"unreadable or truncated input ({_one_line(error)})") from error


class Unlocated(ParseError):
    """Bad input whose reader cannot tell the line: kb.importers.json_lines.located finds it."""


class InvalidJson(Unlocated):
    """JSON that does not parse: ijson, which streams it, does not say where."""


class InvalidUtf8(Unlocated):
    """Text that is not UTF-8, found by a decoder that reads ahead in blocks."""


def with_line(error: ParseError, line: int | None) -> ParseError:
    """``error`` naming ``line`` (a JSON Lines line whose value it is about), unless it names
    one already. A function, not a context manager: it sits on the path of every line."""
    if line is None or error.line is not None:
        return error
    return ParseError(error.path, error.reason, line)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def read_head(stream: BinaryIO, size: int = SNIFF_BYTES) -> bytes:
    """Up to ``size`` bytes from the start of ``stream`` (fewer only at the end of the stream)."""
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


class _ReplayedStream(io.RawIOBase):
    """A stream that serves bytes already read from its head again, then the rest."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def replay(head: bytes, rest: BinaryIO) -> BinaryIO:
    """A stream of ``head`` followed by the unread rest of ``rest``: sniff, then parse it all."""
    return io.BufferedReader(_ReplayedStream(head, rest))


JsonEvent = tuple[str, str, object]


def json_head_events(head: bytes) -> list[JsonEvent]:
    """ijson's (prefix, event, value) triples for as much of ``head`` as parses.

    The head is a cut of a larger document, so the parser is expected to run out mid-value;
    whatever parsed before that point is returned.
    """
    events: list[JsonEvent] = []
    with contextlib.suppress(ijson.JSONError):
        events.extend(ijson.parse(io.BytesIO(head), use_float=True))
    return events


class Sniffed(NamedTuple):
    format: str
    shape: str | None = None
    """MTGJSON's layout (SET_FILE, ...): its parser need not read the head's events again."""


def sniff(head: bytes, name: str) -> Sniffed:
    """The format of content that starts with ``head``: one of SCRYFALL_RULINGS, SCRYFALL_CARDS,
    MTGJSON, COMPREHENSIVE_RULES, SEED_PAGE (kb.importers.recognise.detect reads the head and
    tells kb's own catalog). Raises ParseError for binary content, content that is not UTF-8,
    and JSON of no known shape."""
    if not head.strip():
        raise ParseError(name, "the file is empty", 1)
    if b"\x00" in head:
        line = head[: head.index(b"\x00")].count(b"\n") + 1
        raise ParseError(name, "binary content, not a known source format", line)
    # The BOM goes first, so that a decoding error's offset is one into ``head``.
    head = head.removeprefix(codecs.BOM_UTF8)
    try:
        # Not final: the head may end in the middle of a multi-byte character.
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as error:
        line = head[: error.start].count(b"\n") + 1
        reason = f"not valid UTF-8 (byte 0x{head[error.start]:02x})"
        raise ParseError(name, reason, line) from error
    if text.lstrip()[:1] in ("[", "{"):
        return _sniff_json(json_head_events(text.lstrip().encode()), name)
    return Sniffed(COMPREHENSIVE_RULES if _RULE_NUMBER.search(text) else SEED_PAGE)


# A numbered rule at the start of a line: "702.2. Deathtouch", "   702.2a Deathtouch is ...".
_RULE_NUMBER = re.compile(r"^\s*[1-9]\d{2}\.\d+[a-z]?\.?\s", re.MULTILINE)

# Keys only Scryfall objects have: enough to recognise a card or ruling before its "object" key.
_SCRYFALL_RULING_KEYS: Final = frozenset({"published_at", "comment"})
_SCRYFALL_CARD_KEYS: Final = frozenset({"oracle_id", "type_line", "oracle_text", "lang"})


def _sniff_json(events: list[JsonEvent], name: str) -> Sniffed:
    if not events:
        raise ParseError(name, "invalid JSON at the start of the input")
    top_level_is_array = events[0][1] == "start_array"
    # Where one Scryfall object's keys live: items of a top-level array, the top-level object
    # itself, or the items of a list object's "data".
    item_prefixes = ("item",) if top_level_is_array else ("", "data.item")
    object_prefixes = {f"{p}.object".lstrip(".") for p in item_prefixes}  # once, not per event
    item_keys = {
        str(value)
        for prefix, event, value in events
        if event == "map_key" and prefix in item_prefixes
    }
    object_kinds = {
        value for prefix, event, value in events if event == "string" and prefix in object_prefixes
    }
    if "ruling" in object_kinds or item_keys >= _SCRYFALL_RULING_KEYS:
        return Sniffed(SCRYFALL_RULINGS)
    if "card" in object_kinds or len(_SCRYFALL_CARD_KEYS & item_keys) >= 2:
        return Sniffed(SCRYFALL_CARDS)
    shape = None if top_level_is_array else mtgjson_shape(events)
    if shape is not None:
        return Sniffed(MTGJSON, shape)
    raise ParseError(name, "JSON of no known shape (not Scryfall rulings or cards, nor MTGJSON)")


# MTGJSON layouts, told apart by the prefix under which their cards are found.
SET_FILE: Final = "set"
"""One set in MTGJSON's wrapper: {"meta", "data": set}."""
ALL_PRINTINGS: Final = "all-printings"
"""{"data": {set code: set}}."""
ATOMIC_CARDS: Final = "atomic-cards"
"""{"data": {card name: [face, ...]}}."""
BARE_SET: Final = "bare-set"
"""A set object without the {meta, data} wrapper: {"baseSetSize", "cards", ...}."""


def mtgjson_shape(events: list[JsonEvent]) -> str | None:
    """Which MTGJSON layout the head events show, or None if they are not MTGJSON.

    Under "data", a set object's keys are lower camelCase fields (baseSetSize, cards, code),
    AllPrintings' keys are upper-case set codes whose values are objects, and AtomicCards' keys
    are card names whose values are arrays of faces.
    """
    top_level_keys = [
        value for prefix, event, value in events if prefix == "" and event == "map_key"
    ]
    if "cards" in top_level_keys or "baseSetSize" in top_level_keys:
        return BARE_SET
    for index, (prefix, event, value) in enumerate(events):
        if prefix == "data" and event == "map_key":
            key = str(value)
            if key[:1].islower():
                return SET_FILE
            following = events[index + 1][1] if index + 1 < len(events) else None
            if following == "start_map":
                return ALL_PRINTINGS
            if following == "start_array":
                return ATOMIC_CARDS
            return None
    return None


# Checking JSON values: parsers report a wrong type as "item 17: published_at 'x' is not ...".
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def required_str(item: dict[str, object], key: str, where: str, name: str) -> str:
    """``item[key]``, which must be a string."""
    value = item.get(key)
    if not isinstance(value, str):
        raise ParseError(name, _at(where, f"{key} {_shown(value)} is not a string"))
    return value


def optional_str(item: dict[str, object], key: str, where: str, name: str) -> str | None:
    """``item[key]`` if present and not null, which must then be a string."""
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParseError(name, _at(where, f"{key} {_shown(value)} is not a string"))
    return value


def str_list(item: dict[str, object], key: str, where: str, name: str) -> tuple[str, ...]:
    """``item[key]`` as a tuple of strings; absent or null is empty."""
    value = item.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise ParseError(name, _at(where, f"{key} {_shown(value)} is not a list of strings"))
    return tuple(value)


def object_list(
    item: dict[str, object], key: str, where: str, name: str
) -> list[dict[str, object]]:
    """``item[key]`` as a list of JSON objects; absent or null is empty."""
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise ParseError(name, _at(where, f"{key} {_shown(value)} is not a list of objects"))
    return value


def iso_date(item: dict[str, object], key: str, where: str, name: str) -> dt.date:
    """``item[key]``, which must be a date written YYYY-MM-DD."""
    value = item.get(key)
    if isinstance(value, str) and _ISO_DATE.fullmatch(value):
        with contextlib.suppress(ValueError):
            return dt.date.fromisoformat(value)
    raise ParseError(name, _at(where, f"{key} {_shown(value)} is not a date YYYY-MM-DD"))


def optional_iso_date(item: dict[str, object], key: str, where: str, name: str) -> dt.date | None:
    """``item[key]`` as a date, or None where it is null or missing (kb's own exports of undated
    links write null)."""
    return None if item.get(key) is None else iso_date(item, key, where, name)


def json_object(value: object, where: str, name: str) -> dict[str, object]:
    """``value``, which must be a JSON object."""
    if not isinstance(value, dict):
        raise ParseError(name, _at(where, f"{_shown(value)} is not a JSON object"))
    return value


def _at(where: str, reason: str) -> str:
    """A reason prefixed by where it applies ("item 17: ..."); a JSON Lines line is named by its
    number instead, so it has no prefix."""
    return f"{where}: {reason}" if where else reason


def _shown(value: object) -> str:
    """A value as error messages quote it: short, on one line."""
    if value is None:
        return "(missing)"
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."
