"""``kb import``: files in, one transaction, a summary out.

Wires the parsers (which know no database) to the loader (the one writer). Any bad file aborts the
whole run and the transaction rolls back, leaving the store exactly as it was.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from sqlalchemy.engine import Engine

from kb.importers import catalog, comprehensive_rules, mtgjson, scryfall, seed_pages, streams
from kb.importers.streams import Input
from kb.loader import Loader, Summary
from kb.records import ParseError, Record

CATALOG = "catalog"
# Mechanics first, then the cards they tag, then the rulings that name cards.
FORMAT_ORDER = (
    CATALOG,
    streams.COMPREHENSIVE_RULES,
    streams.SCRYFALL_CARDS,
    streams.MTGJSON,
    streams.SCRYFALL_RULINGS,
    streams.SEED_PAGE,
)
FORMATS = FORMAT_ORDER

Progress = Callable[[int, int], None]
"""Called with (bytes read since the last call, records loaded so far)."""


@dataclass(frozen=True)
class ImportOptions:
    locale: str | None = None
    """``--locale``: the locale of rulings pages whose footer and title do not tell."""
    card: str | None = None
    """``--card``: the English card of a rulings page whose localized name is not known yet."""
    format: str | None = None
    """``--format``: parse every file as this format instead of recognising it."""


@dataclass(frozen=True)
class InputFile:
    source: Input
    format: str
    size: int


def detect_format(source: Input) -> str:
    """kb's catalog by its ``.toml`` name; every other format by its content."""
    name = source.member or source.path.name
    if name.lower().endswith(".toml"):
        return CATALOG
    return streams.detect_format(source)


def plan(paths: Iterable[Path], options: ImportOptions) -> list[InputFile]:
    """Every input under ``paths`` with its format, in the order the loader needs them."""
    files = []
    for path in paths:
        if not path.exists():
            raise ParseError(str(path), "no such file or folder")
        for source in streams.iter_inputs(path):
            kind = options.format or detect_format(source)
            files.append(InputFile(source, kind, source.path.stat().st_size))
    if not files:
        raise ParseError(", ".join(str(p) for p in paths), "no files to import")
    return sorted(files, key=lambda f: (FORMAT_ORDER.index(f.format), f.source.name))


class _ReadObserver:
    """A digest that also reports how many stored bytes went by."""

    def __init__(self, progress: Progress | None) -> None:
        self.sha256 = hashlib.sha256()
        self.progress = progress
        self.records = 0

    def update(self, data: bytes) -> None:
        self.sha256.update(data)
        if self.progress is not None:
            self.progress(len(data), self.records)

    def counted(self, records: Iterator[Record]) -> Iterator[Record]:
        for record in records:
            self.records += 1
            yield record


def run_import(
    engine: Engine,
    paths: Iterable[Path],
    options: ImportOptions = ImportOptions(),
    progress: Progress | None = None,
    files: list[InputFile] | None = None,
) -> Summary:
    """Import ``paths`` in one transaction; raise ParseError (nothing written) on bad input."""
    files = files if files is not None else plan(paths, options)
    records_before = 0
    with engine.begin() as connection:
        loader = Loader(connection)
        for item in files:
            observer = _ReadObserver(progress)
            observer.records = records_before
            with streams.open_input(item.source, digest=observer) as stream:
                loader.begin_source(item.source.name, item.format)
                records = _records(item, stream, options, loader)
                loader.load(observer.counted(records))
                # Whatever the parser did not read still counts in the checksum.
                while stream.read(1 << 20):
                    pass
            loader.end_source(observer.sha256.hexdigest())
            records_before = observer.records
        return loader.finish()


def _records(
    item: InputFile, stream: BinaryIO, options: ImportOptions, loader: Loader
) -> Iterator[Record]:
    name = item.source.name
    if item.format == CATALOG:
        return catalog.parse(stream.read(), name)
    if item.format == streams.SEED_PAGE:
        return seed_pages.parse_page(
            stream.read(),
            name,
            locale=options.locale,
            resolve_locale=lambda title: loader.locale_of_name(
                title, must_exist=options.card is None
            ),
            card_name=options.card,
        )
    parsers: dict[str, Callable[[BinaryIO, str], Iterator[Record]]] = {
        streams.SCRYFALL_RULINGS: scryfall.parse_rulings,
        streams.SCRYFALL_CARDS: scryfall.parse_cards,
        streams.MTGJSON: mtgjson.parse,
        streams.COMPREHENSIVE_RULES: comprehensive_rules.parse,
    }
    return parsers[item.format](stream, name)
