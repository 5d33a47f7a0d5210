"""``kb import``: files in, one transaction, a summary out.

Wires the parsers (which know no database) to the loader (the one writer). Any bad file aborts the
whole run and the transaction rolls back, leaving the store exactly as it was.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kb.importers import catalog, seed_pages
from kb.loader import Loader, Summary
from kb.records import ParseError, Record

# Files that define cards and mechanics go before the rulings that name them.
FORMAT_ORDER = ("catalog", "seed-page")


@dataclass(frozen=True)
class ImportOptions:
    locale: str | None = None
    """``--locale``: the locale of rulings pages whose footer and title do not tell."""
    card: str | None = None
    """``--card``: the English card of a rulings page whose localized name is not known yet."""
    format: str | None = None


@dataclass(frozen=True)
class InputFile:
    path: Path
    format: str


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files named, and the files under folders named (sorted, hidden ones skipped)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and not any(part.startswith(".") for part in p.parts)
                )
            )
        elif path.is_file():
            found.append(path)
        else:
            raise ParseError(str(path), "no such file or folder")
    return found


def detect_format(path: Path) -> str:
    return "catalog" if path.suffix.lower() == ".toml" else "seed-page"


def plan(paths: Iterable[Path], options: ImportOptions) -> list[InputFile]:
    files = [InputFile(path, options.format or detect_format(path)) for path in expand(paths)]
    if not files:
        raise ParseError(", ".join(str(p) for p in paths), "no files to import")
    return sorted(files, key=lambda f: (FORMAT_ORDER.index(f.format), str(f.path)))


def run_import(
    engine: Engine,
    paths: Iterable[Path],
    options: ImportOptions = ImportOptions(),
    progress: Callable[[InputFile], None] | None = None,
) -> Summary:
    """Import ``paths`` in one transaction; raise ParseError (nothing written) on bad input."""
    files = plan(paths, options)
    with engine.begin() as connection:
        loader = Loader(connection)
        for item in files:
            data = item.path.read_bytes()
            loader.begin_source(str(item.path), item.format, hashlib.sha256(data).hexdigest())
            loader.load(_records(item, data, options, loader))
            loader.end_source()
            if progress is not None:
                progress(item)
        return loader.finish()


def _records(
    item: InputFile, data: bytes, options: ImportOptions, loader: Loader
) -> Iterator[Record]:
    path = str(item.path)
    if item.format == "catalog":
        return catalog.parse(data, path)
    return seed_pages.parse_page(
        data,
        path,
        locale=options.locale,
        resolve_locale=lambda title: loader.locale_of_name(title, must_exist=options.card is None),
        card_name=options.card,
    )
