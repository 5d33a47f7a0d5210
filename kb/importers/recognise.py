"""Which format an input is, and which inputs are of no format kb knows.

In a folder, a file kb cannot read as any source (a README, a picture, a package.json) is
skipped and listed; a file named on the command line must be of a known format. So the content
that no format claims raises UnknownFormat, and a source that is of a known format but broken
(invalid UTF-8, JSON that does not parse, a truncated archive) raises a plain ParseError, which
stops the import wherever the file was found.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from kb.formats import CATALOG, SEED_PAGE
from kb.importers import seed_pages, streams
from kb.importers.streams import Input, Sniffed
from kb.records import ParseError


class UnknownFormat(ParseError):
    """Content that is no format kb imports."""


def detect(source: Input | Path) -> Sniffed:
    """kb's catalog by its ``.toml`` name; every other format by its first bytes of content,
    with what that read of an MTGJSON file's layout."""
    if isinstance(source, Path):
        source = Input(source)
    with streams.read_errors_as_parse_errors(source.name), streams.open_input(source) as stream:
        head = streams.read_head(stream)
    if not head.strip():
        raise UnknownFormat(source.name, "the file is empty", 1)
    name = source.member or source.path.name
    if name.lower().endswith(".toml"):
        # Another tool's TOML (a pyproject.toml) would otherwise import as a catalog of nothing.
        if not _CATALOG_TABLES.search(head):
            reason = "TOML without [[mechanics]] or [[cards]]: not kb's catalog"
            raise UnknownFormat(source.name, reason)
        return Sniffed(CATALOG)
    if b"\x00" in head:
        line = head[: head.index(b"\x00")].count(b"\n") + 1
        raise UnknownFormat(source.name, "binary content, not a known source format", line)
    try:
        found = streams.sniff(head, source.name)
    except ParseError as error:
        if _is_json(head):  # it parses, but as nothing kb reads
            raise UnknownFormat(error.path, error.reason, error.line) from None
        raise
    if found.format == SEED_PAGE:
        # Not final: the head may end in the middle of a character; sniff checked it.
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=False)
        shape = seed_pages.not_a_page(text)
        if shape is not None:
            line, reason = shape
            raise UnknownFormat(source.name, reason, line)
    return found


# The catalog's arrays of tables, as [[cards]] headers or as a key (cards = [...]).
_CATALOG_TABLES = re.compile(
    rb"^[ \t]*(\[\[[ \t]*(mechanics|cards)[ \t]*\]\]|(mechanics|cards)[ \t]*=)", re.M
)


def _is_json(head: bytes) -> bool:
    stripped = head.removeprefix(codecs.BOM_UTF8).lstrip()
    return stripped[:1] in (b"[", b"{") and bool(streams.json_head_events(stripped))
