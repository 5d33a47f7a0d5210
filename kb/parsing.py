"""The parsing side of an import: which files, in which format (``plan``), and their records
in batches (``parse_stream``), in a parser process for large inputs (``parsed_streams``).

Knows no database: the parser process loads this module and the parsers only, not SQLAlchemy
nor the loader, and starts before the files are recognised (``early_parser``), so that its start
overlaps the recognition (docs/importing.md). kb.importing wires it to the loader.
"""

from __future__ import annotations

import hashlib
import os
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection as PipeEnd
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import BinaryIO

from kb import collector
from kb.batches import BATCH_SIZE, chunks
from kb.child_processes import SpawnedSender, received, send_error
from kb.formats import CATALOG, COMPREHENSIVE_RULES, IMPORT_FORMATS, SEED_PAGE
from kb.importers import comprehensive_rules, json_lines, limits, mtgjson, scryfall, streams
from kb.importers.recognise import UnknownFormat, detect
from kb.importers.streams import Input, Sniffed
from kb.records import ParseError, Record

# Below this much input, starting a parser process costs more than it saves.
PARALLEL_PARSE_BYTES = 16 * 1024 * 1024


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


def plan(paths: Iterable[Path], format_: str | None = None) -> ImportPlan:
    """Every input under ``paths`` with its format; a file named itself must be of a known
    format, one found in a folder or an archive is skipped when of none. ``format_``: every file
    is of this format (``--format``), not recognised."""
    files, unknown = [], []
    for path in paths:
        if not path.exists():
            raise ParseError(str(path), "no such file or folder")
        for source in streams.iter_inputs(path):
            try:
                found = Sniffed(format_) if format_ else detect(source)
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


class ReadObserver:
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


def parse_stream(item: InputFile) -> Iterator[Parsed]:
    """A source file of a streamed format as batches of records, then its checksum."""
    observer = ReadObserver()
    try:
        with streams.open_input(item.source, digest=observer) as stream:
            content = line_limited(stream, item)
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
                for parsed in parse_stream(item):
                    parent.send(parsed)
    except ParseError as error:
        send_error(parent, error)
    except BaseException:  # a bug: show it where the user looks, not in a silent worker
        send_error(parent, RuntimeError(f"parsing failed:\n{traceback.format_exc()}"))
    finally:
        parent.close()


@contextmanager
def parsed_streams(
    items: list[InputFile], started: SpawnedSender | None = None
) -> Iterator[Iterator[Parsed]]:
    """The parsed streamed files, in order: in a second process for large inputs, so that
    parsing and loading share the machine's cores (``started``, where ``early_parser`` started
    one); in this one for small inputs."""
    if sum(item.size for item in items) < PARALLEL_PARSE_BYTES:
        yield (parsed for item in items for parsed in parse_stream(item))
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

    with started or SpawnedSender(_parse_in_worker) as sender:
        yield messages(*sender.give(items))


def _parser_ended(item: InputFile, how: str) -> str:
    return f"{item.name}: the parser process ended while reading it ({how}); nothing was imported"


@contextmanager
def early_parser(paths: Iterable[Path]) -> Iterator[SpawnedSender | None]:
    """A parser process started now, before ``plan`` recognises the files, where the files
    under ``paths`` are large enough for one (``PARALLEL_PARSE_BYTES``); ``parsed_streams``
    gives it its work. Its spawn and its modules (a third of a second) then overlap the
    recognition (0.4 s for the real corpus's 579 files) rather than follow it. Ended on
    leaving the block, used or not."""
    if _bytes_under(paths) < PARALLEL_PARSE_BYTES:
        yield None
        return
    with SpawnedSender(_parse_in_worker) as sender:
        yield sender


def _bytes_under(paths: Iterable[Path]) -> int:
    """The size of the files under ``paths`` as stored; a path that is not there counts 0
    (``plan`` says so)."""
    total = 0
    for path in paths:
        if path.is_dir():
            files = [os.path.join(top, name) for top, _, names in os.walk(path) for name in names]
        else:
            files = [str(path)]
        for file in files:
            with suppress(OSError):
                total += os.stat(file).st_size
    return total


TEXT_FORMATS = frozenset({CATALOG, SEED_PAGE, COMPREHENSIVE_RULES})


def line_limited(stream: BinaryIO, item: InputFile) -> BinaryIO:
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
