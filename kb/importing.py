"""``kb import``: files in, one transaction, a summary out.

Wires the parsers (which know no database) to the loader (the one writer). Any bad file aborts the
whole run and the transaction rolls back, leaving the store exactly as it was.
"""

from __future__ import annotations

import hashlib
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection as PipeEnd
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from kb import changelog, collector, schema
from kb.batches import BATCH_SIZE, chunks
from kb.child_processes import received, send_error, spawned_sender
from kb.formats import CATALOG, COMPREHENSIVE_RULES, IMPORT_FORMATS, SEED_PAGE
from kb.importers import (
    PARSER_REVISION,
    catalog,
    comprehensive_rules,
    json_lines,
    limits,
    mtgjson,
    scryfall,
    seed_pages,
    streams,
)
from kb.importers.recognise import UnknownFormat, detect
from kb.importers.streams import Input, Sniffed
from kb.loader import Loader, Summary
from kb.records import ParseError, Record

# Below this much input, starting a parser process costs more than it saves.
PARALLEL_PARSE_BYTES = 16 * 1024 * 1024

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
    force: bool = False
    """``--force``: read bulk files again even when a file of the same checksum was imported."""
    replace_name: bool = False
    """``--replace-name``: a page's title replaces the card's name even from an official source."""


@dataclass(frozen=True)
class InputFile:
    source: Input
    format: str
    size: int
    shape: str | None = None
    """MTGJSON's layout, as recognising the file read it: the parser need not read it again."""

    @property
    def name(self) -> str:
        return self.source.name


@dataclass(frozen=True)
class ImportPlan:
    files: list[InputFile]
    """Every input to read, with its format, in the order the loader needs them."""
    unknown: list[UnknownFormat]
    """The files found in folders (or archives) that are of no known format: skipped."""

    @property
    def size(self) -> int:
        return sum(item.size for item in self.files)


def plan(paths: Iterable[Path], options: ImportOptions) -> ImportPlan:
    """Every input under ``paths`` with its format; a file named itself must be of a known
    format, one found in a folder or an archive is skipped when of none."""
    files, unknown = [], []
    for path in paths:
        if not path.exists():
            raise ParseError(str(path), "no such file or folder")
        for source in streams.iter_inputs(path):
            try:
                found = Sniffed(options.format) if options.format else detect(source)
            except UnknownFormat as error:
                if source.path == path and source.member is None:
                    raise
                unknown.append(error)
                continue
            files.append(InputFile(source, found.format, source.path.stat().st_size, found.shape))
    if not files:
        skipped = (
            f" ({len(unknown)} of no known format, such as {unknown[0].path})" if unknown else ""
        )
        raise ParseError(", ".join(str(p) for p in paths), f"no files to import{skipped}")
    files.sort(key=lambda f: (IMPORT_FORMATS.index(f.format), f.source.name))
    return ImportPlan(files, unknown)


class _ReadObserver:
    """A digest that also reports how many stored bytes went by since the last report."""

    def __init__(self) -> None:
        self.sha256 = hashlib.sha256()
        self.unreported = 0

    def update(self, data: bytes) -> None:
        self.sha256.update(data)
        self.unreported += len(data)

    def take_unreported(self) -> int:
        taken, self.unreported = self.unreported, 0
        return taken


@dataclass(frozen=True)
class ParsedBatch:
    records: list[Record]
    bytes_read: int


@dataclass(frozen=True)
class ParsedFile:
    sha256: str
    bytes_read: int


Parsed = ParsedBatch | ParsedFile


def _parse_stream(item: InputFile) -> Iterator[Parsed]:
    """A source file of a streamed format as batches of records, then its checksum."""
    observer = _ReadObserver()
    try:
        with streams.open_input(item.source, digest=observer) as stream:
            content = _content(stream, item)
            parsed: Iterator[Record]
            if item.format == streams.MTGJSON:  # with its layout, where recognising read it
                parsed = mtgjson.parse(content, item.source.name, item.shape)
            else:
                parsed = STREAM_PARSERS[item.format](content, item.source.name)
            records = limits.checked(parsed, item.name)
            for batch in chunks(records, BATCH_SIZE):
                yield ParsedBatch(batch, observer.take_unreported())
            # A parser reads its input to the end; content left unread would be a silent
            # partial read, so it is an error rather than a success. (Whitespace still counts
            # in the checksum.)
            while block := stream.read(1 << 20):
                if block.strip():
                    raise ParseError(item.source.name, "content after the end of the data")
    except streams.Unlocated as error:
        raise json_lines.located(error, item.source) from error
    yield ParsedFile(observer.sha256.hexdigest(), observer.take_unreported())


def _parse_in_worker(items: list[InputFile], parent: PipeEnd) -> None:
    """The parser process: parse every streamed file in order, errors included, to ``parent``."""
    try:
        with collector.paused():  # a set file's parsed JSON: many objects, no cycles
            for item in items:
                for parsed in _parse_stream(item):
                    parent.send(parsed)
    except ParseError as error:
        send_error(parent, error)
    except BaseException:  # a bug: show it where the user looks, not in a silent worker
        send_error(parent, RuntimeError(f"parsing failed:\n{traceback.format_exc()}"))
    finally:
        parent.close()


@contextmanager
def _parsed_streams(items: list[InputFile]) -> Iterator[Iterator[Parsed]]:
    """The parsed streamed files, in order: in a second process for large inputs, so that
    parsing and loading share the machine's cores; in this one for small inputs."""
    if sum(item.size for item in items) < PARALLEL_PARSE_BYTES:
        yield (parsed for item in items for parsed in _parse_stream(item))
        return

    def messages(reader: PipeEnd, worker: BaseProcess) -> Iterator[Parsed]:
        # A process that ended without a word (killed: by the kernel for want of memory, say)
        # closed the pipe: an error naming the file it was reading, never a wait for ever.
        for item in items:
            ended = partial(_parser_ended, item)
            while True:
                message = received(reader, worker, "parser", ended)
                yield message
                if isinstance(message, ParsedFile):
                    break

    with spawned_sender(_parse_in_worker, (items,)) as (reader, worker):
        yield messages(reader, worker)


def _parser_ended(item: InputFile, how: str) -> str:
    return f"{item.name}: the parser process ended while reading it ({how}); nothing was imported"


def run_import(
    engine: Engine,
    paths: Iterable[Path],
    options: ImportOptions = ImportOptions(),
    progress: Progress | None = None,
    planned: ImportPlan | None = None,
) -> Summary:
    """Import ``paths`` in one transaction; raise ParseError (nothing written) on bad input."""
    planned = planned if planned is not None else plan(paths, options)
    files = planned.files
    streamed = [item for item in files if item.format in STREAM_PARSERS]
    records_loaded = 0

    def report(bytes_read: int) -> None:
        if progress is not None:
            progress(bytes_read, records_loaded)

    with collector.paused(), engine.begin() as connection:  # the loader's keys: no cycles
        skipped, older = (set(), set()) if options.force else _imported_before(connection, streamed)
        loading = len(skipped) < len(files)
        if loading:
            changelog.begin_bulk_load(connection)
        with _parsed_streams([item for item in streamed if item not in skipped]) as parsed:
            loader = Loader(connection)
            loader.replace_names = options.replace_name
            loader.summary.counts["files read again"] = len(older)
            for item in files:
                if item in skipped:
                    loader.summary.counts["files skipped"] += 1
                    report(item.size)
                    continue
                records_loaded += _load_file(item, loader, parsed, options, report)
            summary = loader.finish()
            summary.unknown_files = [str(error) for error in planned.unknown]
        if loading:
            changelog.end_bulk_load(connection, summary.changed)
    if summary.changed:
        _refresh_statistics(engine)
    return summary


def _refresh_statistics(engine: Engine) -> None:
    """Planner statistics for what the import wrote: SQLite keeps none until ANALYZE, and
    PostgreSQL's autovacuum may come minutes later; until then the saved queries' plans guess."""
    with engine.begin() as connection:
        connection.exec_driver_sql("ANALYZE")


def _imported_before(
    connection: Connection, items: list[InputFile]
) -> tuple[set[InputFile], set[InputFile]]:
    """The bulk files whose exact bytes an earlier import read (``sources.sha256``): those
    that kb's parsers of today's revision read (``PARSER_REVISION``, or a later one), and those
    that only an older revision read.

    Re-reading a bulk file that did not change cannot add anything, and proving that record by
    record costs most of an import; unless the parsers changed since: then the file is read
    again, so that their repairs reach the store. kb's own small files (catalog, pages) are
    always read: what they mean depends on --locale and --card.
    """
    checksums = {item: streams.stored_sha256(item.source) for item in items}
    revisions: dict[str, int] = {}
    sources = schema.sources.c
    for chunk in chunks(set(checksums.values())):
        query = select(sources.sha256, func.coalesce(sources.parser_revision, 0)).where(
            sources.sha256.in_(chunk)
        )
        for checksum, revision in connection.execute(query):
            revisions[checksum] = max(revision, revisions.get(checksum, 0))
    read = {item for item, checksum in checksums.items() if checksum in revisions}
    current = {item for item in read if revisions[checksums[item]] >= PARSER_REVISION}
    return current, read - current


def _load_file(
    item: InputFile,
    loader: Loader,
    parsed: Iterator[Parsed],
    options: ImportOptions,
    report: Callable[[int], None],
) -> int:
    """Load one file's records; returns how many there were."""
    loader.begin_source(item.source.name, item.format)
    loaded = 0
    if item.format in STREAM_PARSERS:
        for message in parsed:
            report(message.bytes_read)
            if isinstance(message, ParsedFile):
                loader.end_source(message.sha256)
                return loaded
            loader.load(message.records)
            loaded += len(message.records)
    observer = _ReadObserver()
    with streams.open_input(item.source, digest=observer) as stream:
        data = _content(stream, item).read()
    records = list(limits.checked(_small_file_records(item, data, options, loader), item.name))
    loader.load(records)
    loader.end_source(observer.sha256.hexdigest())
    report(item.size)
    return len(records)


TEXT_FORMATS = frozenset({CATALOG, SEED_PAGE, COMPREHENSIVE_RULES})


def _content(stream: BinaryIO, item: InputFile) -> BinaryIO:
    """A text format's content is read through the line limit; JSON may be one line."""
    if item.format in TEXT_FORMATS:
        return limits.line_limited(stream, item.name)
    return stream


STREAM_PARSERS: dict[str, Callable[[BinaryIO, str], Iterator[Record]]] = {
    streams.SCRYFALL_RULINGS: scryfall.parse_rulings,
    streams.SCRYFALL_CARDS: scryfall.parse_cards,
    streams.MTGJSON: mtgjson.parse,
    streams.COMPREHENSIVE_RULES: comprehensive_rules.parse,
}


def _small_file_records(
    item: InputFile, data: bytes, options: ImportOptions, loader: Loader
) -> Iterator[Record]:
    """Records of kb's own small formats, read whole (a page's locale may need the store)."""
    name = item.source.name
    if item.format == CATALOG:
        return catalog.parse(data, name)
    return seed_pages.parse_page(
        data,
        name,
        locale=options.locale,
        resolve_locale=lambda title: loader.locale_of_name(title, must_exist=options.card is None),
        card_name=options.card,
    )
