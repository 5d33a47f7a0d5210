"""``kb build``: the static site, rendered from the store.

The site never writes to the store. Every page has a fingerprint of what it shows (a card's
names, rulings and tags; the templates, catalogs and renderer code of the build); the output
folder keeps a manifest of each page's fingerprint and content hash. An incremental build renders
only the pages whose fingerprint changed or whose file is missing, and writes only those whose
content changed, so one edited ruling costs the pages that show it, not a pass over the site.

Pages are rendered into a staging folder beside the output first, so a failed build leaves the
previous site untouched: a full build then swaps the staging folder in whole, an incremental one
moves its few changed pages into place. Card pages are rendered by worker processes forked after
the store is read, each taking a share of the cards and writing its pages itself.
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import multiprocessing
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple, TypeVar

from sqlalchemy.engine import Connection, Engine

from kb import changelog
from kb.engine import SQLITE_CACHE_KIB, sqlite_file
from kb.locales import BY_CODE, LOCALES, Locale
from kb.resources import resource_dir
from kb.site import DEFAULT_BASE_URL, OutputFolderError, render
from kb.site.data import (
    CardEntry,
    CardView,
    LocalizedCard,
    MechanicView,
    RulingView,
    SiteIndex,
    load_cards,
    load_index,
    localized_cards,
    update_index,
)
from kb.site.exchange import exchange
from kb.site.render import (
    ROBOTS,
    ROOT_PAGES,
    SITEMAP,
    STYLESHEET,
    CardList,
    CardPages,
    Page,
    RulingItems,
    SitemapPage,
    Urls,
    cards_page,
    home_page,
    mechanic_page,
    robots,
    root_pages,
    sitemap,
    sitemap_index,
    sitemap_pages,
    sitemap_path,
    stylesheet,
)

CARDS_PER_TASK = 500
SITEMAP_GROUPS = 300
"""Pages (each in 11 languages) per sitemap file: 3,300 addresses (about 4 MB with their
alternates, rendered in memory), under the protocol's 50,000 and 50 MB.
A larger site's sitemap.xml is an index of sitemap-1.xml, sitemap-2.xml, ..."""
MANIFEST = ".kb-manifest"
"""The output folder's record of its pages (see Manifest)."""
_SITEMAP_PART = re.compile(r"sitemap-[0-9]+\.xml")
_OWN_FILES = frozenset(
    {*ROOT_PAGES, ROBOTS, SITEMAP, STYLESHEET.split("/")[0], MANIFEST, f"{MANIFEST}.tmp"}
)
"""The entries of an output folder that kb writes beside the locale folders (and the sitemap
parts): a build replaces those and keeps every other entry."""
SQLITE_DEFAULT_CACHE_KIB = 2000
"""SQLite's own default page cache size."""


@dataclass(frozen=True)
class BuildOptions:
    locales: tuple[Locale, ...] = LOCALES
    jobs: int = 1
    full: bool = False
    """Render and write every page, even those whose input and bytes did not change."""
    base_url: str = DEFAULT_BASE_URL
    """Where the site is published: sitemap.xml and robots.txt need absolute addresses."""


@dataclass(frozen=True)
class BuildResult:
    out: Path
    pages: int
    written: int
    """Pages new or changed (all of them with --full)."""
    removed: int
    """Files of the previous site that are gone (deleted cards, for instance)."""
    rendered: int = 0
    """Pages rendered: those whose input changed (the others were not even rendered)."""

    @property
    def unchanged(self) -> int:
        return self.pages - self.written


HASH_LENGTH = 20
"""Hashes in the manifest: the first 80 bits of a SHA-256, in hexadecimal. SHA-256 rather than
BLAKE2: processors hash it in hardware (a 4.6 KB page: 3.5 µs against BLAKE2b's 6.1 µs)."""


def digest(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()[:HASH_LENGTH]


def _code_version(base_url: str) -> str:
    """What every page depends on besides the store: templates, catalogs, the renderer and the
    locales (their names and folders)."""
    package = Path(render.__file__).parents[1]
    roots = [resource_dir("templates"), package / "site", package / "locale"]
    files = [
        (root, path)
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.suffix in {".html", ".css", ".py", ".po"}
    ]
    files.append((package, package / "locales.py"))
    hasher = hashlib.sha256(base_url.encode("utf-8"))
    for root, path in files:
        hasher.update(path.relative_to(root).as_posix().encode("utf-8") + path.read_bytes())
    return hasher.hexdigest()[:HASH_LENGTH]


@dataclass
class Fingerprints:
    """Fingerprints of what pages show."""

    version: str
    _rulings: dict[tuple[int, dt.date | None], str] = field(default_factory=dict)

    def of(self, *parts: object) -> str:
        return digest(repr((self.version, parts)))

    def ruling(self, ruling: RulingView) -> str:
        # Cached: the cards of a share that show a ruling (on one date) show the same.
        key = (ruling.id, ruling.published_on)
        found = self._rulings.get(key)
        if found is None:
            found = self._rulings[key] = digest(
                repr(
                    (
                        ruling.id,
                        ruling.text,
                        ruling.published_on,
                        ruling.mechanics,
                        sorted(ruling.translations.items()),
                    )
                )
            )
        return found

    def forget_rulings(self) -> None:
        self._rulings.clear()

    @staticmethod
    def names(card: CardEntry) -> str:
        """What a link to the card shows in any locale (a digest: the index and mechanic pages
        fingerprint every card's names)."""
        return digest(repr((card.slug, card.name, sorted(card.names.items()))))

    def card(self, card: CardView, names: str, mechanics: str) -> str:
        """``names``: the card's names digest."""
        return self.of(
            names, card.mana_cost, card.type_line, card.faces,
            [self.ruling(ruling) for ruling in card.rulings], mechanics,
        )  # fmt: skip


NO_PAGE = "-" * HASH_LENGTH
"""A card's hash in a locale it has no page in (yet)."""


MANIFEST_FORMAT = "kb-manifest 2"


class CardRecord(NamedTuple):
    fingerprint: str
    """What the card's pages show; "" when some of its pages may be stale (a build of some
    locales only saw it change)."""
    names: str
    """The digest of its names (Fingerprints.names), which the pages listing it depend on."""
    hashes: str
    """Its page hashes in the order of LOCALES, NO_PAGE where it has none."""


@dataclass
class Manifest:
    """The output folder's record of the pages: what each shows (fingerprint) and its bytes'
    hash, the build's code version and the store's change log position it was built from.
    Card pages are recorded per card, with one hash per locale, so the record has one line
    per card, not one per page."""

    version: str = ""
    """The fingerprints' version (code and base address) of the build that wrote it."""
    position: str = ""
    """kb.changelog's position when that build read the store."""
    cards: dict[str, CardRecord] = field(default_factory=dict)
    """By card slug."""
    pages: dict[str, tuple[str, str]] = field(default_factory=dict)
    """The other pages: path → (fingerprint, hash)."""
    folders: dict[str, int] = field(default_factory=dict, compare=False)
    """The card folders' modification times when the manifest was written: a folder whose
    time has not changed since has every page recorded, and none other."""

    @classmethod
    def read(cls, folder: Path) -> Manifest | None:
        """None when there is none, or one in an older format (the next build is full)."""
        try:
            text = (folder / MANIFEST).read_text("utf-8")
        except FileNotFoundError:
            return None
        header, _, body = text.partition("\n")
        fields = header.split("\t")
        if len(fields) != 4 or fields[0] != MANIFEST_FORMAT:
            return None
        _format, version, position, folders = fields
        manifest = cls(version, position)
        for entry in filter(None, folders.split(" ")):
            name, _, time = entry.rpartition("=")
            manifest.folders[name] = int(time)
        for line in body.splitlines():
            kind, key, *values = line.split("\t")
            if kind == "card":
                manifest.cards[key] = CardRecord(*values)
            else:
                manifest.pages[key] = (values[0], values[1])
        return manifest

    def write(self, folder: Path) -> None:
        temporary = folder / f"{MANIFEST}.tmp"
        self.note_folders(folder)
        with temporary.open("w", encoding="utf-8") as file:
            folders = " ".join(f"{name}={time}" for name, time in self.folders.items())
            file.write(f"{MANIFEST_FORMAT}\t{self.version}\t{self.position}\t{folders}\n")
            for kind, entries in (("card", self.cards), ("page", self.pages)):
                file.writelines(
                    f"{kind}\t{key}\t{chr(9).join(values)}\n"
                    for key, values in sorted(entries.items())
                )
        os.replace(temporary, folder / MANIFEST)

    def note_folders(self, folder: Path) -> None:
        """Note the card folders' times: the site in ``folder`` has the pages recorded."""
        self.folders = dict(_card_folder_times(folder))

    def card_hashes(self, slug: str) -> list[str]:
        """A card's page hashes, one per locale of LOCALES."""
        record = self.cards.get(slug)
        hashes = record.hashes if record is not None else NO_PAGE * len(LOCALES)
        return [hashes[start : start + HASH_LENGTH] for start in range(0, len(hashes), HASH_LENGTH)]


def _card_folder_times(site: Path) -> Iterator[tuple[str, int]]:
    for locale in LOCALES:
        time = _card_folder_time(site, locale.folder)
        if time is not None:
            yield locale.folder, time


def _card_folder_time(site: Path, folder: str) -> int | None:
    """The modification time of a locale folder's cards/ folder; None when there is none."""
    try:
        return (site / folder / "cards").stat().st_mtime_ns
    except FileNotFoundError:
        return None


class Previous:
    """The previous site as an incremental build sees it: its manifest, and which files exist
    (a card folder listed once when it changed since the manifest was written; files never
    read)."""

    def __init__(self, out: Path, manifest: Manifest) -> None:
        self.out = out
        self.manifest = manifest
        self._listings: dict[str, frozenset[str]] = {}
        self._touched: dict[tuple[int, ...], list[tuple[int, frozenset[str]]]] = {}

    def present(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        if folder.endswith("/cards") and folder not in self._listings:
            # One file: not worth listing a folder of 30,000 card pages.
            return os.path.exists(f"{self.out}/{path}")
        return name in self._listing(folder)

    def _listing(self, folder: str) -> frozenset[str]:
        listing = self._listings.get(folder)
        if listing is None:
            try:
                listing = frozenset(os.listdir(self.out / folder))
            except FileNotFoundError:
                listing = frozenset()
            self._listings[folder] = listing
        return listing

    def missing_pages(
        self, card: CardEntry, hashes: str, locales: tuple[int, ...]
    ) -> Sequence[int]:
        """The locales (indexes in LOCALES) of the card's pages that the previous site lacks:
        none recorded, or the file gone."""
        touched = self._touched_card_folders(locales)
        if NO_PAGE not in hashes and (
            not touched or all(f"{card.slug}.html" in listing for _locale, listing in touched)
        ):
            return ()  # the usual case, decided without splitting the hashes
        name = f"{card.slug}.html"
        recorded = self.manifest.card_hashes(card.slug)
        gone = {locale for locale, listing in touched if name not in listing}
        return [locale for locale in locales if recorded[locale] == NO_PAGE or locale in gone]

    def touched(self, locales: tuple[int, ...]) -> bool:
        """Whether a card folder of these locales (indexes in LOCALES) changed since the
        manifest was written."""
        return bool(self._touched_card_folders(locales))

    def _touched_card_folders(self, locales: tuple[int, ...]) -> list[tuple[int, frozenset[str]]]:
        """The card folders of these locales (indexes in LOCALES) whose modification time is
        not the one the manifest noted, each with its listing. The others hold exactly the
        pages the manifest records, and are not even listed."""
        touched = self._touched.get(locales)
        if touched is None:
            touched = self._touched[locales] = [
                (locale, self._listing(f"{LOCALES[locale].folder}/cards"))
                for locale in locales
                if _card_folder_time(self.out, LOCALES[locale].folder)
                != self.manifest.folders.get(LOCALES[locale].folder)
            ]
        return touched


class CodeChanged(Exception):
    """What a build that keeps running renders with is no longer what is on disk."""


@dataclass
class Kept:
    """What a build that keeps running (``kb build --watch``) keeps for its next build, which
    then reads only what changed: the store's card index as of the change log's position of
    its manifest, that manifest, and the renderer of card pages.

    An incremental build leaves writing the manifest to ``write_manifest``, which the watcher
    calls once the store is quiet: the pages are in place first. A manifest left older than the
    pages (the process killed) costs the next build those pages rendered and written again,
    never a stale one, since its change log position is older too."""

    index: SiteIndex | None = None
    manifest: Manifest | None = None
    unwritten: bool = False
    """The kept manifest is newer than the file."""
    _manifest_file: tuple[int, int, int] | None = None
    """The identity of the manifest file the kept one was read from or written to."""
    _card_pages: tuple[str, CardPages] | None = None
    _sitemaps: tuple[list[CardEntry], str, dict[str, str]] | None = None
    _names: list[str] | None = None
    """The kept index's cards' names digests, by position, as the kept manifest records them
    (after a build of every locale, whose records are complete)."""
    _version: str = ""
    """The code version (Fingerprints.version) of the process's first build."""

    def same_code(self, version: str) -> None:
        """Refuse to build with templates and code that changed on disk since this process
        loaded them: it would render with the old ones and record the new version."""
        if self._version and version != self._version:
            raise CodeChanged(
                "kb's templates, catalogs or code (or the site's base address) changed since "
                "this build started: start it again"
            )
        self._version = version

    def card_pages(self, mechanics: str, index: SiteIndex) -> CardPages:
        """The kept renderer of card pages, with the shapes and dates it rendered, if the
        mechanics (``mechanics``: their fingerprint), whose tags it renders, are the same."""
        if self._card_pages is None or self._card_pages[0] != mechanics:
            self._card_pages = mechanics, CardPages(index.mechanics)
        return self._card_pages[1]

    def updated_index(self, connection: Connection, changed: set[int] | None) -> SiteIndex | None:
        """The kept index brought up to date with the cards the change log names since the
        kept manifest (``changed``; None: any card), if they include none added, removed or
        renamed."""
        if self.index is None or changed is None:
            return None
        return update_index(connection, self.index, changed)

    def sitemaps(self, index: SiteIndex, mechanics: str) -> dict[str, str]:
        """The sitemaps' fingerprints, by path, kept while the cards and the mechanics (their
        fingerprint: ``mechanics``) are those of the kept index: a sitemap lists their pages."""
        kept = self._sitemaps
        if kept is None or kept[0] is not index.cards or kept[1] != mechanics:
            kept = self._sitemaps = index.cards, mechanics, {}
        return kept[2]

    def recorded(self, out: Path) -> Manifest | None:
        """The manifest of the site in ``out``: the kept one, unless another build wrote the
        file since (then the file's, kept from now on)."""
        found = file_identity(out / MANIFEST)
        if self.manifest is None or found != self._manifest_file:
            self.manifest = Manifest.read(out) if found is not None else None
            self._manifest_file = found
            self.unwritten = False
            self.index = None  # read as of the kept manifest's position, not of this one's
        return self.manifest

    def unchanged_names(self, index: SiteIndex, manifest: Manifest) -> list[str] | None:
        """The cards' names digests, if the kept ones are those of these cards as this
        manifest records them."""
        if self._names is None or self.index is None or self.index.cards is not index.cards:
            return None
        return self._names if self.manifest is manifest else None

    def keep(self, built: _Built) -> None:
        """Keep what a build read and left."""
        self.index = built.index
        self._names = built.names
        if built.in_file:
            self._manifest_file = file_identity(built.result.out / MANIFEST)
            self.unwritten = False
        elif built.manifest is not self.manifest:
            self.unwritten = True
        self.manifest = built.manifest

    def write_manifest(self, out: Path) -> None:
        """Write the kept manifest if it is newer than the file, unless another build wrote
        the file since (its record is then the site's: the next build reads it)."""
        if not self.unwritten or self.manifest is None:
            return
        if file_identity(out / MANIFEST) != self._manifest_file:
            self.manifest = None
        else:
            self.manifest.write(out)
            self._manifest_file = file_identity(out / MANIFEST)
        self.unwritten = False


def file_identity(path: Path) -> tuple[int, int, int] | None:
    """A file's inode, size and modification time, which a write changes; None when there is
    none."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


@dataclass(frozen=True)
class _Job:
    """What a build's workers need: inherited from the parent when a worker is forked, never
    pickled."""

    engine: Engine
    """Workers read their shares of the cards themselves, on connections of their own."""
    index: SiteIndex
    staging: Path
    manifest: Manifest
    """The previous site's record (empty if none): fingerprints and hashes of its pages."""
    previous: Previous | None
    """None in a full build: every page is rendered and written."""
    card_pages: CardPages
    fingerprints: Fingerprints
    mechanics: str
    """The fingerprint of the mechanics (keys, file names, names), which card pages show on
    ruling tags and the other pages list."""
    locales: tuple[int, ...]
    """Indexes in LOCALES of the locales built."""

    def stage(self, page: Page, old_hash: str) -> tuple[str, bool]:
        """Write a rendered page into the staging folder unless the previous site holds its
        bytes; (hash, written). Paths are made of slugs ([a-z0-9-]) and fixed folder names, so
        they stay inside."""
        data = page.text
        if isinstance(data, str) and len(data) <= ENCODED_AT_ONCE:
            data = data.encode("utf-8")
        content = digest(data) if isinstance(data, bytes) else _digest_in_slices(data)
        if self.previous is not None and old_hash == content and self.previous.present(page.path):
            return content, False
        target = f"{self.staging}/{page.path}"  # a string: pathlib's joins cost more than a write
        try:
            _write(target, data)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _write(target, data)
        return content, True


ENCODED_AT_ONCE = 1 << 20
"""Characters of a page encoded in one piece. A larger page (a large site's A–Z index of
30,000 cards, a sitemap) is encoded a slice at a time, twice (for its hash, then to write it):
a whole copy of it as bytes would be the build's peak memory."""
ENCODED_SLICE = 1 << 18
"""Characters of a slice (up to 768 KB in UTF-8)."""


def _encoded_in_slices(text: str) -> Iterator[bytes]:
    for start in range(0, len(text), ENCODED_SLICE):
        yield text[start : start + ENCODED_SLICE].encode("utf-8")


def _digest_in_slices(text: str) -> str:
    hasher = hashlib.sha256()
    for data in _encoded_in_slices(text):
        hasher.update(data)
    return hasher.hexdigest()[:HASH_LENGTH]


def _write(path: str, data: bytes | str) -> None:
    """Write the page: its bytes, or its text a slice at a time."""
    # Three system calls for a page: creating files is most of a full build's time on some disks.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for piece in (data,) if isinstance(data, bytes) else _encoded_in_slices(data):
            os.write(descriptor, piece)
    finally:
        os.close(descriptor)


_job: _Job | None = None


@contextmanager
def _reading(engine: Engine) -> Iterator[Connection]:
    """A connection that reads pages' data. On SQLite with the default page cache, not kb's
    larger one: a build reads each row about once, and a page cache that fills up counts in
    the memory of every worker."""
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.exec_driver_sql(f"PRAGMA cache_size=-{SQLITE_DEFAULT_CACHE_KIB}")
        try:
            yield connection
        finally:
            if sqlite:
                connection.exec_driver_sql(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")


class CardResult(NamedTuple):
    """A card after its share was rendered."""

    position: int
    """In the site index's cards."""
    record: CardRecord
    """The new manifest's record of the card (the previous one's, when it did not change)."""
    rendered: int
    """Pages rendered: those whose input changed or whose file is missing."""
    written: int
    """The pages whose bytes changed, staged: bit i for the locale LOCALES[i] (a full build
    keeps one per card)."""


def _render_cards(share: list[int]) -> list[CardResult]:
    """Read a share of the cards, fingerprint each, and render and stage the pages whose input
    changed."""
    assert _job is not None, "no build running"
    job = _job
    with _reading(job.engine) as connection:
        cards = load_cards(
            connection, [job.index.cards[position] for position in share], job.index.mechanics
        )
    # Most rulings stand on one card: a cache kept across shares would only grow.
    job.fingerprints.forget_rulings()
    every_locale = len(job.locales) == len(LOCALES)
    results = []
    for position, card in zip(share, cards, strict=True):
        names = job.fingerprints.names(card)
        fingerprint = job.fingerprints.card(card, names, job.mechanics)
        record = job.manifest.cards.get(card.slug)
        stale: Sequence[int] = job.locales
        if record is None or record.fingerprint != fingerprint:
            if not every_locale:
                fingerprint = ""  # its pages in the locales not built are not of this fingerprint
        elif job.previous is not None:
            stale = job.previous.missing_pages(card, record.hashes, job.locales)
        hashes = job.manifest.card_hashes(card.slug)
        written = 0
        for locale in stale:
            page = job.card_pages.render(card, LOCALES[locale])
            hashes[locale], changed = job.stage(page, hashes[locale])
            written |= changed << locale
        results.append(
            CardResult(
                position, CardRecord(fingerprint, names, "".join(hashes)), len(stale), written
            )
        )
    return results


def _start_worker() -> None:
    """In a forked worker: never use the parent's connections (SQLAlchemy's advice); collect
    cycles again (see _cycle_collection_paused)."""
    assert _job is not None
    _job.engine.dispose(close=False)
    gc.enable()


@dataclass
class Plan:
    """The pages beside the card pages: how to render each, and how to fingerprint it once
    the cards' names are digested (the fingerprints need them; rendering does not)."""

    renderers: list[tuple[str, Callable[[], Page]]] = field(default_factory=list)
    _fingerprints: dict[str, Callable[[], str]] = field(default_factory=dict)
    _releases: list[Callable[[], None]] = field(default_factory=list)
    """How to let go of what the renderers share, once the pages are staged."""

    def add(self, path: str, fingerprint: Callable[[], str], renderer: Callable[[], Page]) -> None:
        self._fingerprints[path] = fingerprint
        self.renderers.append((path, renderer))

    def fingerprints(self) -> dict[str, str]:
        return {path: fingerprint() for path, fingerprint in self._fingerprints.items()}

    def after_staging(self, release: Callable[[], None]) -> None:
        self._releases.append(release)

    def staged(self) -> None:
        for release in self._releases:
            release()


class LocalizedCards:
    """The cards with their names in one locale, for the pages that list them. A full build
    renders those pages locale by locale: only the last locale's whole list is kept. An
    incremental one renders a mechanic's pages one after the other: its cards' names in every
    locale built are read at once, and kept until the next mechanic's."""

    def __init__(self, engine: Engine, index: SiteIndex, locales: Sequence[Locale]) -> None:
        self.engine = engine
        self.index = index
        self.locales = locales
        self._every: CardList | None = None
        self._some: tuple[Sequence[int], dict[str, list[LocalizedCard]]] | None = None

    def every(self, locale: Locale) -> CardList:
        """Every card."""
        if self._every is None or self._every.locale != locale:
            self._every = None  # let the previous locale's go before reading the next
            cards = self._read(self.index.cards, [locale.code])
            self._every = CardList(cards[locale.code], locale)
        return self._every

    def forget(self) -> None:
        """Let the lists go (a large site's whole list is about 15 MB)."""
        self._every = None
        self._some = None

    def some(self, locale: Locale, ids: Sequence[int]) -> CardList:
        """At least these cards: read alone unless the locale's whole list is at hand (an
        incremental build renders a mechanic's page without the A–Z index)."""
        if self._every is not None and self._every.locale == locale:
            return self._every
        if self._some is None or self._some[0] is not ids:
            self._some = None
            positions = sorted(self.index.positions[card_id] for card_id in ids)
            cards = [self.index.cards[position] for position in positions]
            self._some = ids, self._read(cards, [built.code for built in self.locales])
        return CardList(self._some[1][locale.code], locale)

    def _read(self, cards: Sequence[CardEntry], codes: list[str]) -> dict[str, list[LocalizedCard]]:
        with _reading(self.engine) as connection:
            return localized_cards(connection, cards, codes)


def _plan_other_pages(
    engine: Engine,
    index: SiteIndex,
    options: BuildOptions,
    fingerprints: Fingerprints,
    mechanic_list: str,
    names: list[str],
    ruling_items: RulingItems,
    sitemap_fingerprints: dict[str, str],
    full: bool,
) -> Plan:
    """The pages beside the card pages (``full``: of a build that renders them all).
    ``mechanic_list`` is the mechanics' fingerprint;
    ``names`` will hold each card's names digest by the time the fingerprints are taken;
    ``ruling_items`` renders a mechanic's general rulings; ``sitemap_fingerprints`` holds the
    sitemaps' fingerprints, by path, once taken (a build that keeps running keeps them)."""
    plan = Plan()
    localized = LocalizedCards(engine, index, options.locales)
    plan.after_staging(localized.forget)
    all_names = cache(lambda: digest("\n".join(names)))
    counts = fingerprints.of(len(index.cards), index.ruling_count, mechanic_list)

    @cache
    def mechanic_fingerprint(key: str) -> str:
        """What the mechanic's page shows in any locale."""
        mechanic = index.mechanics[key]
        positions = index.positions
        return fingerprints.of(
            mechanic_list,
            mechanic.key,
            mechanic.rule,
            [fingerprints.ruling(ruling) for ruling in mechanic.general_rulings],
            [names[positions[card_id]] for card_id in mechanic.card_ids],
        )

    def add_mechanic_page(locale: Locale, mechanic: MechanicView) -> None:
        plan.add(
            Urls.mechanic(locale, mechanic),
            lambda: mechanic_fingerprint(mechanic.key),
            lambda: mechanic_page(
                mechanic, localized.some(locale, mechanic.card_ids), ruling_items
            ),
        )

    for locale in options.locales:
        plan.add(
            Urls.home(locale),
            lambda: counts,
            lambda locale=locale: home_page(index, locale),  # type: ignore[misc]
        )
        plan.add(
            Urls.cards(locale),
            lambda: fingerprints.of(all_names()),
            lambda locale=locale: cards_page(localized.every(locale)),  # type: ignore[misc]
        )
        if full:  # after the locale's A–Z page, from the same list of its cards
            for mechanic in index.mechanics.values():
                add_mechanic_page(locale, mechanic)
    if not full:  # a mechanic's pages one after the other, from its cards' names read at once
        for mechanic in index.mechanics.values():
            for locale in options.locales:
                add_mechanic_page(locale, mechanic)
    fixed = fingerprints.of()
    rendered_root_pages = cache(lambda: root_pages(options.base_url))
    for number, path in enumerate(ROOT_PAGES):
        plan.add(path, lambda: fixed, lambda number=number: rendered_root_pages()[number])  # type: ignore[misc]
    style = stylesheet()
    plan.add(style.path, lambda: fixed, lambda: style)
    robots_page = robots(options.base_url)
    plan.add(robots_page.path, lambda: fixed, lambda: robots_page)
    pages = sitemap_pages(index)
    parts = [
        pages[start : start + SITEMAP_GROUPS] for start in range(0, len(pages), SITEMAP_GROUPS)
    ]
    if len(parts) == 1:
        paths = [render.SITEMAP]
    else:
        sitemaps = sitemap_index(options.base_url, len(parts))
        plan.add(sitemaps.path, lambda: fingerprints.of(len(parts)), lambda: sitemaps)
        paths = [render.sitemap_part_path(number) for number in range(1, len(parts) + 1)]

    def sitemap_fingerprint(path: str, part: list[SitemapPage]) -> str:
        if path not in sitemap_fingerprints:
            english = BY_CODE["en"]
            listed = [sitemap_path(page, english) for page in part]
            sitemap_fingerprints[path] = fingerprints.of(listed)
        return sitemap_fingerprints[path]

    for path, part in zip(paths, parts, strict=True):
        plan.add(
            path,
            lambda path=path, part=part: sitemap_fingerprint(path, part),  # type: ignore[misc]
            lambda path=path, part=part: sitemap(options.base_url, path, part),  # type: ignore[misc]
        )
    return plan


def _in_locales(path: str, folders: set[str]) -> bool:
    """Whether a page belongs to the build of the locales with these folders (root pages
    belong to every build)."""
    return "/" not in path or path.partition("/")[0] in folders


OtherDone = list[tuple[str, str, bool]]
"""Per other page rendered: (path, hash, written)."""


def build(
    engine: Engine,
    out: Path,
    options: BuildOptions = BuildOptions(),
    progress: Callable[[int], None] = lambda _pages: None,
    loaded: Callable[[int], None] = lambda _pages: None,
    kept: Kept | None = None,
) -> BuildResult:
    """Render the site into ``out``. ``loaded`` hears how many card pages will be looked at
    once the store's index is read; ``progress`` hears of each share done. ``kept``: what the
    previous build of a process that keeps building left, updated for the next one."""
    with _cycle_collection_paused():
        built = _build(engine, out, options, progress, loaded, kept)
    if kept is not None:
        kept.keep(built)
    return built.result


@contextmanager
def _cycle_collection_paused() -> Iterator[None]:
    """CPython's cycle collector off in the build's process, as Python's documentation advises
    for a parent that forks workers: each full collection walks every object the process holds
    (a large site's index and manifest), the build makes no garbage cycles worth one (a large
    build is 20 % faster without, and peaks no higher), and objects the workers inherit are
    frozen before they fork so that collections in the workers, on again there, leave their
    memory pages shared."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def _build(
    engine: Engine,
    out: Path,
    options: BuildOptions,
    progress: Callable[[int], None],
    loaded: Callable[[int], None],
    kept: Kept | None,
) -> _Built:
    """The build (``kept``: writing the manifest is left to it)."""
    global _job
    out = out.resolve()
    _check_output_folder(out, engine)
    out.parent.mkdir(parents=True, exist_ok=True)
    if kept is not None:
        recorded = kept.recorded(out)
    else:
        recorded = Manifest.read(out) if out.is_dir() else None
    full = options.full or recorded is None
    manifest = recorded or Manifest()
    previous = None if full else Previous(out, manifest)
    fingerprints = Fingerprints(_code_version(options.base_url))
    if kept is not None:
        kept.same_code(fingerprints.version)
    # The previous build's change log position, if its pages are this code's.
    fresh = previous is not None and manifest.version == fingerprints.version
    since = manifest.position if fresh else ""
    with _reading(engine) as connection:
        position = changelog.position(connection)  # before the data: later writes come after it
        # The cards changed since (None: any card may have, or the previous build is unknown).
        changed = changelog.changed_cards(connection, since, position) if since else None
        updated = kept.updated_index(connection, changed) if kept is not None else None
        index = updated or load_index(connection)
    mechanics = fingerprints.of(
        sorted((m.key, m.slug, sorted(m.names.items())) for m in index.mechanics.values())
    )
    card_pages = (
        kept.card_pages(mechanics, index) if kept is not None else CardPages(index.mechanics)
    )
    built = tuple(LOCALES.index(locale) for locale in options.locales)
    count = len(index.cards)
    names = [""] * count  # each card's names digest: pages that list cards are fingerprinted so
    looked_at: Sequence[int] = range(count)
    if previous is not None and changed is not None:
        known = kept.unchanged_names(index, manifest) if kept is not None else None
        looked_at = _split_unchanged(index, previous, changed, built, names, known)
    # Shares of cards adjacent by id: a full build's are read with a range of ids.
    by_id = sorted(looked_at, key=lambda position: index.cards[position].id)
    shares = [by_id[start:end] for start, end in _share_bounds(len(by_id), options.jobs)]
    loaded(len(by_id) * len(built))
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as error:  # it names the random folder; the one to fix is where it goes
        reason = f"cannot make the build's staging folder here ({error.strerror})"
        raise OSError(error.errno, reason, str(out.parent)) from error
    try:
        for locale in options.locales:
            (staging / locale.folder / "cards").mkdir(parents=True)
        _job = _Job(
            engine, index, staging, manifest, previous, card_pages, fingerprints, mechanics, built
        )  # fmt: skip

        def meanwhile() -> tuple[Plan, OtherDone]:
            # A full build renders every other page while the workers render the cards; an
            # incremental one must first know the cards' names digests to find the stale ones.
            plan = _plan_other_pages(
                engine, index, options, fingerprints, mechanics, names, card_pages.rulings,
                kept.sitemaps(index, mechanics) if kept is not None else {}, full,
            )  # fmt: skip
            return plan, _stage_others(plan, None) if full else []

        cards_done, (plan, others_done) = _render(shares, options.jobs, progress, meanwhile)
        for result in cards_done:
            names[result.position] = result.record.names
        other_fingerprints = plan.fingerprints()
        if not full:
            others_done = _stage_others(plan, other_fingerprints)
        deleted = manifest.cards.keys() - index.slugs  # cards the previous site has
        new = _new_manifest(
            index, options, cards_done, other_fingerprints, manifest, others_done,
            fingerprints.version, position, deleted,
        )  # fmt: skip
        written = sum(result.written.bit_count() for result in cards_done)
        written += sum(changed for _path, _hash, changed in others_done)
        looked_at_slugs = [index.cards[result.position].slug for result in cards_done]
        gone = _gone(manifest, new, options.locales, [*looked_at_slugs, *sorted(deleted)])
        if full:
            if out.is_dir():
                _carry_over(out, staging, options.locales)
                if not manifest.cards and not manifest.pages:
                    gone = sorted(_files(out) - _files(staging))
            new.write(staging)
            _swap_in(staging, out)
            in_file = True
        else:
            for path in _written(index, cards_done, others_done):
                _move(f"{staging}/{path}", f"{out}/{path}")
            for path in gone:
                (out / path).unlink(missing_ok=True)
            if new == manifest:
                new = manifest
            elif kept is None:
                new.write(out)
            else:
                new.note_folders(out)
            in_file = kept is None
    finally:
        _job = None
        shutil.rmtree(staging, ignore_errors=True)
    pages = count * len(options.locales) + len(plan.renderers)
    rendered = sum(result.rendered for result in cards_done) + len(others_done)
    every_locale = len(built) == len(LOCALES)
    return _Built(
        BuildResult(out, pages, written, len(gone), rendered),
        index, new, in_file, names if every_locale else None,
    )  # fmt: skip


@dataclass(frozen=True)
class _Built:
    """A build's result, and what it leaves for the next one of a process that keeps them."""

    result: BuildResult
    index: SiteIndex
    manifest: Manifest
    """The manifest of the site it left."""
    in_file: bool
    """Whether that manifest is the manifest file's."""
    names: list[str] | None
    """After a build of every locale, the cards' names digests, by position in the index."""


def _share_bounds(count: int, jobs: int) -> Iterator[tuple[int, int]]:
    """The shares of ``count`` cards for ``jobs`` workers, as (start, end): CARDS_PER_TASK
    cards, then smaller towards the end, each about half of what is left per worker (a fifth
    of CARDS_PER_TASK at least), so that the workers finish together rather than one waiting
    for the other's last large share (a small site's last share took 0.2 s, one core idle).
    CARDS_PER_TASK cards or fewer are one share, which the main process renders itself."""
    smallest = max(1, CARDS_PER_TASK // 5)
    start = 0
    while start < count:
        left = count - start
        size = left if count <= CARDS_PER_TASK else min(CARDS_PER_TASK, left // (2 * jobs))
        end = min(count, start + max(smallest, size))
        yield start, end
        start = end


def _split_unchanged(
    index: SiteIndex,
    previous: Previous,
    changed: set[int],
    built: tuple[int, ...],
    names: list[str],
    known: list[str] | None,
) -> list[int]:
    """The positions of the cards to read and fingerprint: those the change log names, and
    new, renamed, stale in some locale or with a page missing. The others stay as the previous
    build recorded them: their names digests go into ``names``. ``known``: those digests, when
    a build that keeps running has them (then, unless a card folder changed, the cards the log
    names are the only ones to look at)."""
    if known is not None and len(built) == len(LOCALES) and not previous.touched(built):
        names[:] = known
        positions = index.positions
        return sorted(positions[card_id] for card_id in changed if card_id in positions)
    looked_at = []
    records = previous.manifest.cards
    for position, card in enumerate(index.cards):
        record = records.get(card.slug)
        if (
            record is None
            or card.id in changed
            or not record.fingerprint
            or previous.missing_pages(card, record.hashes, built)
        ):
            looked_at.append(position)
        else:
            names[position] = record.names
    return looked_at


def _written(index: SiteIndex, cards_done: list[CardResult], others_done: OtherDone) -> list[str]:
    """The pages staged: new or changed."""
    cards = [
        Urls.card(LOCALES[locale], index.cards[result.position])
        for result in cards_done
        if result.written
        for locale in range(len(LOCALES))
        if result.written >> locale & 1
    ]
    return cards + [path for path, _hash, changed in others_done if changed]


def _move(source: str, target: str) -> None:
    try:
        os.replace(source, target)
    except FileNotFoundError:  # a folder the previous site lacks
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(source, target)


def _stage_others(plan: Plan, fingerprints: dict[str, str] | None) -> OtherDone:
    """Render and stage the other pages: all of them (``fingerprints`` None), or those whose
    fingerprint differs from the manifest's or whose file is missing."""
    assert _job is not None
    job = _job
    done = []
    for path, renderer in plan.renderers:
        recorded, old_hash = job.manifest.pages.get(path, ("", ""))
        if (
            fingerprints is not None
            and job.previous is not None
            and recorded == fingerprints[path]
            and job.previous.present(path)
        ):
            continue
        done.append((path, *job.stage(renderer(), old_hash)))
    plan.staged()
    return done


Meanwhile = TypeVar("Meanwhile")


def _render(
    shares: list[list[int]],
    jobs: int,
    progress: Callable[[int], None],
    meanwhile: Callable[[], Meanwhile],
) -> tuple[list[CardResult], Meanwhile]:
    """Render the cards' shares (in worker processes when there are several) while the parent
    does ``meanwhile``."""
    assert _job is not None
    pages_per_card = len(_job.locales)
    cards_done: list[CardResult] = []
    if jobs <= 1 or len(shares) <= 1:
        for share in shares:
            cards_done += _render_cards(share)
            progress(len(share) * pages_per_card)
        return cards_done, meanwhile()
    render.prepare(LOCALES[locale] for locale in _job.locales)  # for the workers to inherit
    gc.freeze()
    # Forked workers inherit _job.
    with ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker
    ) as pool:
        futures: list[Future[list[CardResult]]] = [
            pool.submit(_render_cards, share) for share in shares
        ]
        result = meanwhile()
        for share, future in zip(shares, futures, strict=True):
            cards_done += future.result()
            progress(len(share) * pages_per_card)
    return cards_done, result


def _new_manifest(
    index: SiteIndex,
    options: BuildOptions,
    cards_done: list[CardResult],
    other_fingerprints: dict[str, str],
    old: Manifest,
    others_done: OtherDone,
    version: str,
    position: str,
    deleted: set[str],
) -> Manifest:
    """The record of the new site: what was rendered (``cards_done``: the cards looked at),
    what stayed, and the pages of the locales this build left out; ``position``: the change
    log's when the store was read; ``deleted``: the slugs of the previous site's cards that
    the store no longer has."""
    new = Manifest(version, position)
    new.cards = dict(old.cards)  # the cards not looked at, as the previous build recorded them
    for result in cards_done:
        new.cards[index.cards[result.position].slug] = result.record
    built = {LOCALES.index(locale) for locale in options.locales}
    for slug in deleted:
        kept = [h if i not in built else NO_PAGE for i, h in enumerate(old.card_hashes(slug))]
        if any(h != NO_PAGE for h in kept):  # a deleted card's pages in the other locales
            new.cards[slug] = old.cards[slug]._replace(hashes="".join(kept))
        else:
            del new.cards[slug]
    folders = {locale.folder for locale in options.locales}
    new.pages = {path: entry for path, entry in old.pages.items() if not _in_locales(path, folders)}
    hashes_of_others = {path: content for path, content, _written in others_done}
    for path, fingerprint in other_fingerprints.items():
        new.pages[path] = (fingerprint, hashes_of_others.get(path) or old.pages[path][1])
    return new


def _gone(
    old: Manifest, new: Manifest, locales: Sequence[Locale], slugs: Iterable[str]
) -> list[str]:
    """Pages of the previous site that the new one no longer has; ``slugs``: the cards whose
    records may differ (the others' records are the previous site's)."""
    gone = [path for path in old.pages if path not in new.pages]
    built = [LOCALES.index(locale) for locale in locales]
    for slug in slugs:
        record = old.cards.get(slug)
        if record is None:
            continue
        kept = new.cards.get(slug)
        if kept is record or (
            NO_PAGE not in record.hashes and kept is not None and kept.hashes == record.hashes
        ):
            continue
        before = old.card_hashes(slug)
        after = new.card_hashes(slug)
        gone += [
            f"{LOCALES[i].folder}/cards/{slug}.html"
            for i in built
            if before[i] != NO_PAGE and after[i] == NO_PAGE
        ]
    return gone


def _check_output_folder(out: Path, engine: Engine) -> None:
    """Refuse to build where the build would replace files kb did not write: into a folder
    that is neither new, empty nor a site kb built, or one that holds the store."""
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{out}: not a folder")
    store = sqlite_file(engine)
    if store and Path(store).resolve().is_relative_to(out):
        raise OutputFolderError(f"{out}: holds the store {Path(store).resolve()}; build elsewhere")
    if out.is_dir() and not (out / MANIFEST).is_file() and any(out.iterdir()):
        raise OutputFolderError(
            f"{out}: has files and no kb site in it (no {MANIFEST}); kb builds into a new or "
            "empty folder, or a site it built"
        )


def _own_file(name: str) -> bool:
    """Whether the output folder's entry ``name`` is one that kb writes beside the locale
    folders."""
    return name in _OWN_FILES or _SITEMAP_PART.fullmatch(name) is not None


def _carry_over(previous: Path, staging: Path, locales: Sequence[Locale]) -> None:
    """Keep the previous site's pages of the locales this build leaves out, and every entry of
    the folder that kb did not write (a CNAME, a .git folder): all hard-linked where they can
    be, so that a build that fails leaves them as they were."""
    built = {locale.folder for locale in locales}
    for entry in sorted(previous.iterdir()):
        target = staging / entry.name
        if entry.name in built or _own_file(entry.name) or os.path.lexists(target):
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), target)
        elif entry.is_dir():
            shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry, target)


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links: a copy that keeps the mtime
        shutil.copy2(source, target)


def _files(folder: Path) -> set[str]:
    return {
        os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
        for root, _folders, names in os.walk(folder)
        for name in names
    }


def _swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` by ``staging`` with renames only."""
    staging.chmod(0o755)
    if not out.exists():
        staging.rename(out)
        return
    if exchange(staging, out):  # killed at any moment, the old site or the new one is there
        shutil.rmtree(staging)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    retired.rmdir()
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired)
