"""``kb import``: files in, one transaction, a summary out.

Wires the parsers (which know no database) to the loader (the one writer). Any bad file aborts the
whole run and the transaction rolls back, leaving the store exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from kb import changelog, collector, schema
from kb.batches import chunks
from kb.child_processes import SpawnedSender
from kb.formats import CATALOG
from kb.importers import PARSER_REVISION, catalog, limits, seed_pages, streams
from kb.loader import Loader, Summary
from kb.parsing import (
    STREAM_PARSERS,
    ImportPlan,
    InputFile,
    Parsed,
    ParsedFile,
    ReadObserver,
    line_limited,
    parsed_streams,
    plan,
)
from kb.records import Record

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


def run_import(
    engine: Engine,
    paths: Iterable[Path],
    options: ImportOptions = ImportOptions(),
    progress: Progress | None = None,
    planned: ImportPlan | None = None,
    parser: SpawnedSender | None = None,
) -> Summary:
    """Import ``paths`` in one transaction; raise ParseError (nothing written) on bad input.
    ``planned``: ``plan(paths)``, where the caller made it; ``parser``: a parser process the
    caller started before planning (``kb.parsing.early_parser``), for the import to use."""
    planned = planned if planned is not None else plan(paths, options.format)
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
        with parsed_streams([item for item in streamed if item not in skipped], parser) as parsed:
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
    observer = ReadObserver()
    with streams.open_input(item.source, digest=observer) as stream:
        data = line_limited(stream, item).read()
    records = list(limits.checked(_small_file_records(item, data, options, loader), item.name))
    loader.load(records)
    loader.end_source(observer.sha256.hexdigest())
    report(item.size)
    return len(records)


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
