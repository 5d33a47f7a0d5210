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
from kb.locales import LOCALES, Locale
from kb.site import WATCH_INTERVAL, SearchIndexError, collation, render
from kb.site.build import BuildOptions, BuildResult, build, index_later
from kb.site.views import SiteIndex
from kb.site.watch_state import WatchState, file_identity


def watch(
    engine: Engine,
    out: Path,
    options: BuildOptions,
    kept: WatchState,
    stop: threading.Event,
    built: Callable[[BuildResult, float], None],
    failed: Callable[[Exception], None],
    interval: float | None = None,
    caught_up: Callable[[tuple[Locale, ...], float], None] = lambda _locales, _seconds: None,
) -> None:
    """After a build that filled ``kept``, build incrementally after each change to the store
    until ``stop`` is set, looking every ``interval`` seconds (None: the engine's
    WATCH_INTERVAL). ``built`` hears of each build (its result and seconds). A build that
    fails (a database error, a full disk) leaves the previous site in place: ``failed`` hears of
    it, and the next change to the store builds again; a failure that recurs at every look (the
    database server gone) is told once. The manifest is written once the store is quiet, and
    before returning. Raises CodeChanged when kb's templates or code change on disk.

    An edit's pages are put in place first; the search index of the locales they belong to
    is made again after them, behind the next builds (``SearchCatchUp``; ``caught_up`` hears
    of each run, with the seconds it took)."""
    render.prepare(options.locales, kept.languages)
    collation.prepare([locale.code for locale in options.locales])
    incremental = replace(options, full=False, search="later" if options.search != "off" else "off")
    changes = _Changes(engine, kept)
    if interval is None:
        interval = WATCH_INTERVAL[engine.dialect.name]
    catching_up = SearchCatchUp(engine, out, options.jobs, caught_up, failed)
    told = ""
    try:
        while not stop.wait(interval):
            try:
                if changes.new():
                    started = time.perf_counter()
                    result = build(engine, out, incremental, kept=kept)
                    built(result, time.perf_counter() - started)
                    if result.search_pending and kept.index is not None:
                        catching_up.add(result.search_pending, kept.index)
                else:
                    kept.write_manifest(out)
                catching_up.poll()
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
        catching_up.close()


class SearchCatchUp:
    """The search bundles made again behind the watcher's builds, on a thread of their own: an
    edit's pages are put in place at once, even while an earlier edit's locales are being
    indexed (a locale of the real corpus takes half a minute). Locales that go stale meanwhile
    are indexed together once the run under way is done. Stopping waits for that run, so that
    its staging folder is removed and no bundle is left half moved."""

    def __init__(
        self,
        engine: Engine,
        out: Path,
        jobs: int,
        caught_up: Callable[[tuple[Locale, ...], float], None],
        failed: Callable[[Exception], None],
    ) -> None:
        self.engine, self.out, self.jobs = engine, out, jobs
        self.caught_up, self.failed = caught_up, failed
        self._pending: set[Locale] = set()
        self._index: SiteIndex | None = None
        self._thread: threading.Thread | None = None

    def add(self, locales: tuple[Locale, ...], index: SiteIndex) -> None:
        """Index ``locales`` again from ``index`` (the kept index of the build that made their
        pages: a build replaces the kept index, never changes it)."""
        self._pending.update(locales)
        self._index = index
        self.poll()

    def poll(self) -> None:
        """Start the next run if none is under way and locales wait."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._thread = None
        if not self._pending or self._index is None:
            return
        locales = tuple(locale for locale in LOCALES if locale in self._pending)
        self._pending.clear()
        self._thread = threading.Thread(
            target=self._run, args=(locales, self._index), name="search-catch-up", daemon=True
        )
        self._thread.start()

    def _run(self, locales: tuple[Locale, ...], index: SiteIndex) -> None:
        started = time.perf_counter()
        try:
            index_later(self.engine, self.out, index, locales, self.jobs)
        except (SQLAlchemyError, OSError, SearchIndexError) as error:
            self.failed(error)  # the old bundles stay; the locales' next pages index them
            return
        self.caught_up(locales, time.perf_counter() - started)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join()


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
