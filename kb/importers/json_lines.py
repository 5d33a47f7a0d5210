"""JSON read a line at a time: JSON Lines files, and the line where a JSON document breaks.

Scryfall publishes its bulk files as JSON Lines since 2026-07-20: one object a line. A line is a
small complete document, so it is parsed whole with orjson, several times faster than the event
stream ijson needs for a JSON array; memory holds one line at a time, however long the file.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterator
from typing import BinaryIO, Final

import ijson  # type: ignore[import-untyped]  # ijson ships no type hints
import orjson

from kb.importers.streams import (
    JSON_LOCATE_BYTES,
    READ_ERRORS,
    Input,
    InvalidJson,
    Unlocated,
    open_input,
    replay,
)
from kb.records import ParseError

MAX_LINE_BYTES: Final = 4 * 1024 * 1024
"""The longest line a JSON Lines file may have. A Scryfall object is a few KB: a longer line is
not one object of theirs, and reading it whole would let one line take any amount of memory."""

_PIECE_BYTES: Final = 1 << 20
"""How much of a line the locator reads at a time."""

Loads = Callable[[bytes], object]
JsonLine = tuple[int, object]
"""A line's number (from 1) and its JSON value."""


def open_lines(
    stream: BinaryIO, path: str, loads: Loads = orjson.loads
) -> tuple[Iterator[JsonLine] | None, BinaryIO]:
    """The values of a JSON Lines stream, if its first non-blank line is one JSON value by
    itself; otherwise None and the stream as it was, to be read as one JSON document.

    Either way nothing is lost: the lines read to tell are served again.
    """
    read: list[bytes] = []
    number = 0
    while raw := stream.readline(MAX_LINE_BYTES + 1):
        read.append(raw)
        number += 1
        if raw.strip():
            break
    else:
        return None, replay(b"".join(read), stream)
    first = raw.removeprefix(codecs.BOM_UTF8) if number == 1 else raw
    if _too_long(raw):
        return None, replay(b"".join(read), stream)
    try:
        value = loads(first)
    except (ValueError, TypeError):
        # Not a whole value on its line: a pretty-printed document, or a damaged first line
        # that the document's reader will locate.
        return None, replay(b"".join(read), stream)
    return _values(stream, path, number, value, loads), stream


def _values(
    stream: BinaryIO, path: str, number: int, first: object, loads: Loads
) -> Iterator[JsonLine]:
    yield number, first
    while raw := stream.readline(MAX_LINE_BYTES + 1):
        number += 1
        if _too_long(raw):
            limit = MAX_LINE_BYTES // (1024 * 1024)
            raise ParseError(path, f"a line longer than {limit} MiB is not one JSON object", number)
        if not raw.strip():
            continue  # blank lines (a final newline) carry nothing
        try:
            value = loads(raw)
        except (ValueError, TypeError):
            raise ParseError(path, _line_error(raw, loads), number) from None
        yield number, value


def _too_long(raw: bytes) -> bool:
    return len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n")


def _line_error(raw: bytes, loads: Loads) -> str:
    """Why a line is not a JSON value, as the user can act on it."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte 0x{raw[bad.start]:02x}, column {bad.start + 1})"
    content = raw.rstrip(b"\r\n")
    try:  # again without the line's end, so that the column is one on this line
        loads(content)
    except (ValueError, TypeError) as error:
        message = getattr(error, "msg", None) or str(error)
        column = getattr(error, "colno", None)
        at = f" (column {column})" if column is not None else ""
        if message == "unexpected content after document":
            return f"more than one JSON value on the line{at}"
        cut = getattr(error, "pos", 0) >= len(content.rstrip()) and content == raw
        return f"{'truncated' if cut else 'invalid'} JSON: {message}{at}"
    return "invalid JSON"


def located(error: Unlocated, source: Input) -> ParseError:
    """``error`` with the line where the input breaks (and the column, for inputs small enough
    to read whole again): the first byte that is not UTF-8, or, for JSON, where it stops
    parsing; ``error`` as it is where the input reads without error the second time."""
    try:
        with open_input(source) as stream:
            data = stream.read(JSON_LOCATE_BYTES + 1)
    except READ_ERRORS:
        return error  # a damaged archive: what the first read said stands
    if len(data) > JSON_LOCATE_BYTES:
        return _locate_line_by_line(source, error)
    data = data.removeprefix(codecs.BOM_UTF8)  # first, so that an error's offset is into data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        line = data[: bad.start].count(b"\n") + 1
        return ParseError(error.path, f"not valid UTF-8 (byte 0x{data[bad.start]:02x})", line)
    if not isinstance(error, InvalidJson):
        return error
    try:
        json.loads(text)
    except json.JSONDecodeError as found:
        return ParseError(error.path, _document_error(found, text), found.lineno)
    # Python's parser takes what ijson's refuses (an integer past 64 bits): ijson tells the line.
    return _locate_line_by_line(source, error)


def _document_error(found: json.JSONDecodeError, text: str) -> str:
    if found.msg == "Extra data":
        return f"content after the end of the JSON value (column {found.colno})"
    # A string left open runs to the end: in strict mode a line break inside one is an error of
    # its own.
    at_end = found.pos >= len(text.rstrip()) or found.msg.startswith("Unterminated string")
    return f"{'truncated' if at_end else 'invalid'} JSON: {found.msg} (column {found.colno})"


def _locate_line_by_line(source: Input, error: Unlocated) -> ParseError:
    """The first line that is not UTF-8 or where the JSON breaks, found in one pass that holds
    at most a piece of a line: for inputs too large to read whole again.

    ijson's push parser is fed a line at a time, so the line it fails on is the line at fault.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    events = ijson.sendable_list()
    parser = ijson.basic_parse_coro(events, use_float=True)
    number, path = 0, error.path
    try:
        with open_input(source) as stream:
            ended = True  # whether the piece before ended its line
            while piece := stream.readline(_PIECE_BYTES):
                if number == 0:
                    piece = piece.removeprefix(codecs.BOM_UTF8)
                number += ended
                ended = piece.endswith(b"\n")
                try:
                    text = decoder.decode(piece)
                except UnicodeDecodeError as bad:
                    # The offset may fall in a character the piece before began.
                    shown = f" (byte 0x{piece[bad.start]:02x})" if bad.start < len(piece) else ""
                    return ParseError(path, f"not valid UTF-8{shown}", number)
                if isinstance(error, InvalidJson):
                    parser.send(text.encode())
                    events.clear()
        if isinstance(error, InvalidJson):
            parser.close()
    except ijson.JSONError as broken:
        return ParseError(path, _ijson_error(broken), max(number, 1))
    except READ_ERRORS:
        pass
    return error


def _ijson_error(error: Exception) -> str:
    detail = error.args[0] if error.args else ""
    if isinstance(detail, bytes):  # yajl's messages come as bytes
        detail = detail.decode("utf-8", "replace")
    message = str(detail).strip().splitlines()[0] if str(detail).strip() else "invalid JSON"
    if "trailing garbage" in message:
        return "content after the end of the JSON value"
    if "overflow" in message:  # yajl reads numbers into 64 bits: no card has a larger one
        return f"a number too large to read ({message})"
    return f"{'truncated' if 'premature EOF' in message else 'invalid'} JSON ({message})"
