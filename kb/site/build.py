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

import hashlib
import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine

from kb.locales import BY_CODE, LOCALES, Locale
from kb.resources import resource_dir
from kb.site import render
from kb.site.data import CardView, RulingView, SiteData, load_site
from kb.site.render import (
    CardPages,
    Page,
    Urls,
    cards_page,
    home_page,
    mechanic_page,
    robots,
    root_pages,
    sitemap,
    sitemap_groups,
    sitemap_index,
    stylesheet,
)

CARDS_PER_TASK = 500
SITEMAP_GROUPS = 1_000
"""Pages (each in 11 languages) per sitemap file: 11,000 addresses (about 13 MB with their
alternates), under the protocol's 50,000 and 50 MB.
A larger site's sitemap.xml is an index of sitemap-1.xml, sitemap-2.xml, ..."""
MANIFEST = ".kb-manifest"
"""The output folder's record of each page: path, fingerprint and content hash, a line each."""
DEFAULT_BASE_URL = "http://127.0.0.1:8000/"


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


def digest(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.blake2b(raw, digest_size=10).hexdigest()


def _code_version(base_url: str) -> str:
    """What every page depends on besides the store: templates, catalogs, the renderer."""
    roots = [
        resource_dir("templates"),
        Path(render.__file__).parent,
        Path(render.__file__).parents[1] / "locale",
    ]
    hasher = hashlib.blake2b(base_url.encode("utf-8"), digest_size=10)
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in {".html", ".css", ".py", ".po"}:
                hasher.update(path.as_posix().encode("utf-8") + path.read_bytes())
    return hasher.hexdigest()


@dataclass
class Fingerprints:
    """Fingerprints of what pages show, computed once per build."""

    version: str
    _rulings: dict[int, str] = field(default_factory=dict)

    def of(self, *parts: object) -> str:
        return digest(repr((self.version, parts)))

    def ruling(self, ruling: RulingView) -> str:
        key = id(ruling)
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

    @staticmethod
    def names(card: CardView) -> str:
        """What a link to the card shows in any locale."""
        return repr((card.slug, card.name, sorted(card.names.items())))

    def card(self, card: CardView, mechanics: str) -> str:
        return self.of(
            self.names(card), card.mana_cost, card.type_line, card.faces,
            [self.ruling(ruling) for ruling in card.rulings], mechanics,
        )  # fmt: skip


@dataclass(frozen=True)
class Entry:
    fingerprint: str
    content: str
    """Hash of the page's bytes."""


class Manifest(dict[str, Entry]):
    """Page path → entry, kept in the output folder as ``path\\tfingerprint\\thash`` lines."""

    @classmethod
    def read(cls, folder: Path) -> Manifest | None:
        try:
            text = (folder / MANIFEST).read_text("utf-8")
        except FileNotFoundError:
            return None
        manifest = cls()
        for line in text.splitlines():
            path, fingerprint, content = line.split("\t")
            manifest[path] = Entry(fingerprint, content)
        return manifest

    def write(self, folder: Path) -> None:
        lines = "".join(
            f"{path}\t{entry.fingerprint}\t{entry.content}\n"
            for path, entry in sorted(self.items())
        )
        temporary = folder / f"{MANIFEST}.tmp"
        temporary.write_text(lines, "utf-8")
        os.replace(temporary, folder / MANIFEST)


class Previous:
    """The previous site as an incremental build sees it: its manifest, and which files exist
    (listed once per folder, never read)."""

    def __init__(self, out: Path, manifest: Manifest) -> None:
        self.out = out
        self.manifest = manifest
        self._listings: dict[str, frozenset[str]] = {}

    def _present(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        listing = self._listings.get(folder)
        if listing is None:
            try:
                listing = frozenset(os.listdir(self.out / folder))
            except FileNotFoundError:
                listing = frozenset()
            self._listings[folder] = listing
        return name in listing

    def current(self, path: str, fingerprint: str) -> bool:
        """True when the page's input is unchanged and its file still there: nothing to do."""
        entry = self.manifest.get(path)
        return entry is not None and entry.fingerprint == fingerprint and self._present(path)

    def holds(self, path: str, content: str) -> bool:
        """True when the file on disk already has these bytes (per the manifest)."""
        entry = self.manifest.get(path)
        return entry is not None and entry.content == content and self._present(path)


@dataclass(frozen=True)
class Staged:
    path: str
    content: str
    written: bool


def _stage(staging: Path, page: Page, previous: Previous | None) -> Staged:
    """Write a rendered page into the staging folder unless the previous site holds its bytes.
    Paths are built from slugs ([a-z0-9-]) and fixed folder names, so they stay inside."""
    data = page.text.encode("utf-8")
    content = digest(data)
    if previous is not None and previous.holds(page.path, content):
        return Staged(page.path, content, False)
    target = staging / page.path
    try:
        target.write_bytes(data)
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return Staged(page.path, content, True)


@dataclass(frozen=True)
class _Job:
    """What a worker needs: inherited from the parent when the worker is forked, never pickled."""

    site: SiteData
    staging: Path
    previous: Previous | None
    card_pages: CardPages


_job: _Job | None = None


def _render_cards(task: Sequence[tuple[int, tuple[str, ...]]]) -> list[Staged]:
    """Render and stage the pages of a share of the cards: (card index, locale codes) pairs."""
    assert _job is not None, "no build running"
    return [
        _stage(
            _job.staging,
            _job.card_pages.render(_job.site.cards[index], BY_CODE[code]),
            _job.previous,
        )
        for index, codes in task
        for code in codes
    ]


def _card_tasks(
    site: SiteData,
    options: BuildOptions,
    fingerprints: Fingerprints,
    previous: Previous | None,
    plan: Plan,
) -> list[list[tuple[int, tuple[str, ...]]]]:
    """Shares of the cards whose pages must be rendered, with the locales to render; every
    card page goes into ``plan`` with its fingerprint."""
    mechanics = fingerprints.of(
        sorted((key, m.slug, sorted(m.names.items())) for key, m in site.mechanics.items())
    )
    todo: list[tuple[int, tuple[str, ...]]] = []
    for index, card in enumerate(site.cards):
        fingerprint = fingerprints.card(card, mechanics)
        codes = []
        for locale in options.locales:
            path = Urls.card(locale, card)
            plan.fingerprints[path] = fingerprint
            if previous is None or not previous.current(path, fingerprint):
                codes.append(locale.code)
        if codes:
            todo.append((index, tuple(codes)))
    return [todo[start : start + CARDS_PER_TASK] for start in range(0, len(todo), CARDS_PER_TASK)]


@dataclass
class Plan:
    """Every page of this build: path → fingerprint, and the other pages' renderers."""

    fingerprints: dict[str, str] = field(default_factory=dict)
    renderers: list[tuple[str, Callable[[], Page]]] = field(default_factory=list)

    def add(self, path: str, fingerprint: str, renderer: Callable[[], Page]) -> None:
        self.fingerprints[path] = fingerprint
        self.renderers.append((path, renderer))


def _plan_other_pages(
    site: SiteData, options: BuildOptions, fingerprints: Fingerprints, plan: Plan
) -> None:
    """The pages beside the card pages, each with the fingerprint of what it shows."""
    names = [Fingerprints.names(card) for card in site.cards]
    all_names = digest("\n".join(names))
    cards_by_id = {card.id: card for card in site.cards}
    names_by_id = dict(zip((card.id for card in site.cards), names, strict=True))
    mechanic_list = fingerprints.of(
        sorted((m.key, m.slug, sorted(m.names.items())) for m in site.mechanics.values())
    )
    for locale in options.locales:
        plan.add(
            Urls.home(locale),
            fingerprints.of(len(site.cards), site.ruling_count, mechanic_list),
            lambda locale=locale: home_page(site, locale),  # type: ignore[misc]
        )
        plan.add(
            Urls.cards(locale),
            fingerprints.of(all_names),
            lambda locale=locale: cards_page(site, locale),  # type: ignore[misc]
        )
        for mechanic in site.mechanics.values():
            plan.add(
                Urls.mechanic(locale, mechanic),
                fingerprints.of(
                    mechanic_list,
                    mechanic.key,
                    mechanic.rule,
                    [fingerprints.ruling(ruling) for ruling in mechanic.general_rulings],
                    [names_by_id[card_id] for card_id in mechanic.card_ids],
                ),
                lambda locale=locale, mechanic=mechanic: mechanic_page(  # type: ignore[misc]
                    site, locale, mechanic, cards_by_id
                ),
            )
    fixed = fingerprints.of()
    for page in root_pages():
        plan.add(page.path, fixed, lambda page=page: page)  # type: ignore[misc]
    style = stylesheet()
    plan.add(style.path, fixed, lambda: style)
    robots_page = robots(options.base_url)
    plan.add(robots_page.path, fixed, lambda: robots_page)
    groups = sitemap_groups(site)
    parts = [
        groups[start : start + SITEMAP_GROUPS] for start in range(0, len(groups), SITEMAP_GROUPS)
    ]
    if len(parts) == 1:
        paths = [render.SITEMAP]
    else:
        index = sitemap_index(options.base_url, len(parts))
        plan.add(index.path, fingerprints.of(len(parts)), lambda: index)
        paths = [render.sitemap_part_path(number) for number in range(1, len(parts) + 1)]
    for path, part in zip(paths, parts, strict=True):
        plan.add(
            path,
            fingerprints.of([versions[0] for versions in part]),
            lambda path=path, part=part: sitemap(options.base_url, path, part),  # type: ignore[misc]
        )


def _in_locales(path: str, locales: Sequence[Locale]) -> bool:
    """Whether a page belongs to the build of these locales (root pages belong to every build)."""
    folder = path.partition("/")[0]
    return "/" not in path or folder in {locale.folder for locale in locales}


def build(
    engine: Engine,
    out: Path,
    options: BuildOptions = BuildOptions(),
    progress: Callable[[int], None] = lambda _pages: None,
    loaded: Callable[[int], None] = lambda _pages: None,
) -> BuildResult:
    """Render the site into ``out``. ``loaded`` hears how many card pages will be rendered
    once the store is read; ``progress`` hears of each share rendered."""
    global _job
    with engine.connect() as connection:
        site = load_site(connection)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    manifest = Manifest.read(out) if out.is_dir() else None
    previous = Previous(out, manifest) if manifest is not None and not options.full else None
    fingerprints = Fingerprints(_code_version(options.base_url))
    plan = Plan()
    tasks = _card_tasks(site, options, fingerprints, previous, plan)
    _plan_other_pages(site, options, fingerprints, plan)
    loaded(sum(len(codes) for task in tasks for _index, codes in task))
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _job = _Job(site, staging, previous, CardPages(site.mechanics))
        staged = _render(tasks, plan, options.jobs, progress)
        result = _finish(out, staging, options, plan, staged, manifest, full=previous is None)
    finally:
        _job = None
        shutil.rmtree(staging, ignore_errors=True)
    return result


def _render(
    tasks: list[list[tuple[int, tuple[str, ...]]]],
    plan: Plan,
    jobs: int,
    progress: Callable[[int], None],
) -> list[Staged]:
    """Render the card pages of ``tasks`` (in worker processes when there are several) and the
    other pages whose input changed, staging the changed ones."""
    assert _job is not None
    others = [
        (path, renderer)
        for path, renderer in plan.renderers
        if _job.previous is None or not _job.previous.current(path, plan.fingerprints[path])
    ]
    if jobs <= 1 or len(tasks) <= 1:
        staged = []
        for task in tasks:
            staged += _render_cards(task)
            progress(len(staged))
        return staged + [_stage(_job.staging, render(), _job.previous) for _path, render in others]
    # Forked workers inherit _job; the parent renders the other pages meanwhile.
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        futures: list[Future[list[Staged]]] = [pool.submit(_render_cards, task) for task in tasks]
        staged = [_stage(_job.staging, render(), _job.previous) for _path, render in others]
        for future in futures:
            done = future.result()
            progress(len(done))
            staged += done
    return staged


def _finish(
    out: Path,
    staging: Path,
    options: BuildOptions,
    plan: Plan,
    staged: list[Staged],
    manifest: Manifest | None,
    full: bool,
) -> BuildResult:
    """Put the staged pages in place, remove the pages of the previous site that are gone, and
    record the new manifest."""
    previous = manifest or Manifest()
    contents = {item.path: item.content for item in staged}
    kept = {
        path: entry for path, entry in previous.items() if not _in_locales(path, options.locales)
    }
    new = Manifest(kept)
    for path, fingerprint in plan.fingerprints.items():
        new[path] = Entry(fingerprint, contents.get(path) or previous[path].content)
    gone = [path for path in previous if path not in new]
    written = [item.path for item in staged if item.written]
    if full:
        if out.is_dir():
            _carry_over(out, staging, options.locales)
            if manifest is None:
                gone = sorted(_files(out) - _files(staging) - {MANIFEST})
        new.write(staging)
        _swap_in(staging, out)
    else:
        for path in written:
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / path, target)
        for path in gone:
            (out / path).unlink(missing_ok=True)
        if new != manifest:
            new.write(out)
    return BuildResult(out, len(plan.fingerprints), len(written), len(gone), len(staged))


def _carry_over(previous: Path, staging: Path, locales: Sequence[Locale]) -> None:
    """Keep the previous site's pages of the locales this build leaves out."""
    built = {locale.folder for locale in locales}
    for locale in LOCALES:
        if locale.folder in built or not (previous / locale.folder).is_dir():
            continue
        shutil.copytree(previous / locale.folder, staging / locale.folder, copy_function=_copy)


def _copy(source: str, target: str) -> None:
    _link_or_copy(Path(source), Path(target))


def _link_or_copy(source: Path, target: Path) -> None:
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
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    retired.rmdir()
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired)
