"""``kb build --watch``: build the site, then build it again whenever the store changes.

The process looks at the store's change log (kb.changelog) many times a second: a query of one
row, made on SQLite only when the store's files changed. It pays once for what every build
needs (Python's start, the imports, the templates, Babel's locale data, ICU's collators)
and keeps what its last build read (kb.site.watch_state.WatchState): a build after an edit
reads the cards the change log names and renders the pages that show them, not the store's
index of every card or the output folder's manifest again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from kb import changelog
from kb.engine import sqlite_file
from kb.locales import Locale
from kb.site import WATCH_INTERVAL, SearchIndexError, collation, render
from kb.site.build import BuildOptions, BuildResult, build, index_later
from kb.site.watch_state import WatchState, file_identity


def watch(
    engine: Engine,
    out: Path,
    options: BuildOptions,
    kept: WatchState,
    stop: threading.Event,
    built: Callable[[BuildResult, float], None],
    failed: Callable[[Exception], None],
    interval: float = WATCH_INTERVAL,
    caught_up: Callable[[tuple[Locale, ...], float], None] = lambda _locales, _seconds: None,
) -> None:
    """After a build that filled ``kept``, build incrementally after each change to the store
    until ``stop`` is set. ``built`` hears of each build (its result and seconds). A build that
    fails (a database error, a full disk) leaves the previous site in place: ``failed`` hears of
    it, and the next change to the store builds again; a failure that recurs at every look (the
    database server gone) is told once. The manifest is written once the store is quiet, and
    before returning. Raises CodeChanged when kb's templates or code change on disk.

    An edit's pages are put in place first; the search index of the locales they belong to
    is made again after them (``caught_up`` hears of it, with the seconds it took)."""
    render.prepare(options.locales, kept.languages)
    collation.prepare([locale.code for locale in options.locales])
    incremental = replace(options, full=False, search="later" if options.search != "off" else "off")
    changes = _Changes(engine, kept)
    told = ""
    try:
        while not stop.wait(interval):
            try:
                if changes.new():
                    started = time.perf_counter()
                    result = build(engine, out, incremental, kept=kept)
                    built(result, time.perf_counter() - started)
                    if result.search_pending:
                        started = time.perf_counter()
                        index_later(engine, out, kept, result.search_pending, options.jobs)
                        caught_up(result.search_pending, time.perf_counter() - started)
                else:
                    kept.write_manifest(out)
                told = ""
            except (SQLAlchemyError, OSError, SearchIndexError) as error:
                # A server going away fails with another message at each stage (connections
                # terminated, refused, the server starting up): one outage, told once.
                failure = UNREACHABLE if unreachable(error) else str(error)
                if failure != told:
                    failed(error)
                told = failure
    finally:
        kept.write_manifest(out)


UNREACHABLE = "the database server cannot be reached"


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the database server cannot be reached: a connection it closed
    (SQLAlchemy invalidates it), or one it refused or could not open yet (the error came from
    connecting, not from a statement)."""
    if not isinstance(error, DBAPIError):
        return False
    return error.connection_invalidated or error.statement is None


RECHECK = 1.0
"""Seconds after which the change log is read again even if an SQLite store's files look the
same: a write within the file system's clock tick may leave their size and time as they were."""


class _Changes:
    """The store's change log as the watcher reads it. On SQLite the store's files are looked
    at first (two ``stat`` calls): every write changes the database or its write-ahead log, so
    while neither changed the log is not read (a query costs some 40 times more)."""

    def __init__(self, engine: Engine, kept: WatchState) -> None:
        self.engine = engine
        self.kept = kept
        self._seen = ""
        database = sqlite_file(engine)
        self._files = [database, f"{database}-wal"] if database else []
        self._stamp: list[tuple[int, int, int] | None] = []
        self._read_at = 0.0

    def new(self) -> bool:
        """Whether the store changed since the kept build read it, and since the last look (a
        build that failed is tried again after the next write, not at every look)."""
        stamp = [file_identity(Path(path)) for path in self._files]
        if stamp and stamp == self._stamp and time.monotonic() - self._read_at < RECHECK:
            return False
        read_at = time.monotonic()
        with self.engine.connect() as connection:
            now = changelog.position(connection)
            since = self.kept.manifest.position if self.kept.manifest is not None else ""
            changed = now != self._seen and changelog.changed_cards(connection, since, now) != set()
        # Noted only once the log was read: a look that fails leaves the next one to read it
        # again (and fail alike, or tell that the store is back), not to find nothing new.
        self._stamp, self._read_at, self._seen = stamp, read_at, now
        return changed
