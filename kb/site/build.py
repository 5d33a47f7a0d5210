"""``kb build``: the static site, rendered from the store.

The site never writes to the store. A build renders into a fresh staging folder beside the
output and swaps it in only when every page was written, so a failed build leaves the previous
site in place. Incremental by default: a page whose bytes did not change is hard-linked from the
previous site into the staging folder, so it keeps its file (and mtime) and is not rewritten.
Card pages are rendered in worker processes, each taking a share of the cards for all locales;
workers write their pages themselves, so memory stays bounded by a share, not by the site.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from kb.locales import LOCALES, Locale
from kb.site.data import CardView, MechanicView, SiteData, load_site
from kb.site.paths import inside
from kb.site.render import Page, card_pages, locale_pages, site_pages, stylesheet

CARDS_PER_TASK = 200
DEFAULT_BASE_URL = "http://127.0.0.1:8000/"


@dataclass(frozen=True)
class BuildOptions:
    locales: tuple[Locale, ...] = LOCALES
    jobs: int = 1
    full: bool = False
    """Write every page, even those whose bytes did not change."""
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

    @property
    def unchanged(self) -> int:
        return self.pages - self.written


@dataclass(frozen=True)
class Stage:
    """Writes pages into the staging folder, reusing the previous site's identical files."""

    staging: Path
    previous: Path | None

    def put(self, page: Page) -> bool:
        """Stage one page; True when it is new or changed."""
        content = page.text.encode("utf-8")
        target = inside(self.staging, page.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if self.previous is not None:
            old = self.previous / page.path
            if old.is_file() and old.stat().st_size == len(content) and old.read_bytes() == content:
                _link_or_copy(old, target)
                return False
        target.write_bytes(content)
        return True

    def put_all(self, pages: Iterable[Page]) -> tuple[int, int]:
        """Stage pages; (pages, written)."""
        changes = [self.put(page) for page in pages]
        return len(changes), sum(changes)


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links: a copy that keeps the mtime
        shutil.copy2(source, target)


# Worker state, set once per process by _start_worker: what every share of cards needs.
_stage: Stage | None = None
_mechanics: dict[str, MechanicView] = {}
_locales: tuple[Locale, ...] = ()


def _start_worker(
    stage: Stage, mechanics: dict[str, MechanicView], locales: tuple[Locale, ...]
) -> None:
    global _stage, _mechanics, _locales
    _stage, _mechanics, _locales = stage, mechanics, locales


def _stage_cards(cards: Sequence[CardView]) -> tuple[int, int]:
    assert _stage is not None, "worker not started"
    return _stage.put_all(page for card in cards for page in card_pages(card, _mechanics, _locales))


def _shares(cards: list[CardView], size: int) -> Iterator[list[CardView]]:
    for start in range(0, len(cards), size):
        yield cards[start : start + size]


def _stage_card_pages(
    site: SiteData, stage: Stage, options: BuildOptions, progress: Callable[[int], None]
) -> tuple[int, int]:
    shares = list(_shares(site.cards, CARDS_PER_TASK))
    counts: list[tuple[int, int]] = []
    if options.jobs <= 1 or len(shares) <= 1:
        _start_worker(stage, site.mechanics, options.locales)
        for share in shares:
            counts.append(_stage_cards(share))
            progress(counts[-1][0])
    else:
        with ProcessPoolExecutor(
            max_workers=options.jobs,
            initializer=_start_worker,
            initargs=(stage, site.mechanics, options.locales),
        ) as pool:
            for count in pool.map(_stage_cards, shares):
                counts.append(count)
                progress(count[0])
    return sum(pages for pages, _ in counts), sum(written for _, written in counts)


def page_count(site: SiteData, options: BuildOptions) -> int:
    """Card pages to render: the length of the progress bar."""
    return len(site.cards) * len(options.locales)


def _carry_over(previous: Path, staging: Path, locales: tuple[Locale, ...]) -> None:
    """Keep the previous site's pages of the locales this build leaves out."""
    built = {locale.folder for locale in locales}
    for locale in LOCALES:
        if locale.folder in built or not (previous / locale.folder).is_dir():
            continue
        shutil.copytree(previous / locale.folder, staging / locale.folder, copy_function=_copy)


def _copy(source: str, target: str) -> None:
    _link_or_copy(Path(source), Path(target))


def _files(folder: Path) -> set[Path]:
    return {path.relative_to(folder) for path in folder.rglob("*") if path.is_file()}


def build(
    engine: Engine,
    out: Path,
    options: BuildOptions = BuildOptions(),
    progress: Callable[[int], None] = lambda _pages: None,
    loaded: Callable[[int], None] = lambda _pages: None,
) -> BuildResult:
    """Render the site into ``out``. ``loaded`` hears how many card pages will be rendered
    once the store is read; ``progress`` hears of each share rendered."""
    with engine.connect() as connection:
        site = load_site(connection)
    loaded(page_count(site, options))
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = out if out.is_dir() and not options.full else None
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        stage = Stage(staging, previous)
        pages, written = _stage_card_pages(site, stage, options, progress)
        for locale in options.locales:
            more, changed = stage.put_all(locale_pages(site, locale))
            pages, written = pages + more, written + changed
        more, changed = stage.put_all([*site_pages(site, options.base_url), stylesheet()])
        pages, written = pages + more, written + changed
        if out.is_dir():
            _carry_over(out, staging, options.locales)
        removed = len(_files(out) - _files(staging)) if out.is_dir() else 0
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildResult(out, pages, written, removed)


def _swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` by ``staging`` with renames only."""
    staging.chmod(0o755)
    if not out.exists():
        staging.rename(out)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    retired.rmdir()
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired)
