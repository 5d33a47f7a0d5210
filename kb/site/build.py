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
    sitemap_index,
    sitemap_pages,
    stylesheet,
)

CARDS_PER_TASK = 500
SITEMAP_GROUPS = 300
"""Pages (each in 11 languages) per sitemap file: 3,300 addresses (about 4 MB with their
alternates, rendered in memory), under the protocol's 50,000 and 50 MB.
A larger site's sitemap.xml is an index of sitemap-1.xml, sitemap-2.xml, ..."""
MANIFEST = ".kb-manifest"
"""The output folder's record of its pages (see Manifest)."""
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


DIGEST_SIZE = 10
HASH_LENGTH = 2 * DIGEST_SIZE
"""Hashes in the manifest: hexadecimal."""


def digest(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.blake2b(raw, digest_size=DIGEST_SIZE).hexdigest()


def _code_version(base_url: str) -> str:
    """What every page depends on besides the store: templates, catalogs, the renderer."""
    roots = [
        resource_dir("templates"),
        Path(render.__file__).parent,
        Path(render.__file__).parents[1] / "locale",
    ]
    hasher = hashlib.blake2b(base_url.encode("utf-8"), digest_size=DIGEST_SIZE)
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in {".html", ".css", ".py", ".po"}:
                name = path.relative_to(root).as_posix()
                hasher.update(name.encode("utf-8") + path.read_bytes())
    return hasher.hexdigest()


@dataclass
class Fingerprints:
    """Fingerprints of what pages show, computed once per build."""

    version: str
    _rulings: dict[int, str] = field(default_factory=dict)
    _names: dict[int, str] = field(default_factory=dict)

    def of(self, *parts: object) -> str:
        return digest(repr((self.version, parts)))

    def ruling(self, ruling: RulingView) -> str:
        # By identity: the cards that share a ruling (and date) share its view.
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

    def names(self, card: CardView) -> str:
        """What a link to the card shows in any locale (a digest: the index and mechanic pages
        fingerprint every card's names)."""
        found = self._names.get(card.id)
        if found is None:
            found = self._names[card.id] = digest(
                repr((card.slug, card.name, sorted(card.names.items())))
            )
        return found

    def card(self, card: CardView, mechanics: str) -> str:
        return self.of(
            self.names(card), card.mana_cost, card.type_line, card.faces,
            [self.ruling(ruling) for ruling in card.rulings], mechanics,
        )  # fmt: skip


NO_PAGE = "-" * HASH_LENGTH
"""A card's hash in a locale it has no page in (yet)."""


@dataclass
class Manifest:
    """The output folder's record of the pages: what each shows (fingerprint) and its bytes'
    hash. Card pages are recorded per card, with one hash per locale, so the record has one line
    per card, not one per page."""

    cards: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Card slug → (fingerprint, page hashes in the order of LOCALES, NO_PAGE where none)."""
    pages: dict[str, tuple[str, str]] = field(default_factory=dict)
    """The other pages: path → (fingerprint, hash)."""

    @classmethod
    def read(cls, folder: Path) -> Manifest | None:
        try:
            text = (folder / MANIFEST).read_text("utf-8")
        except FileNotFoundError:
            return None
        manifest = cls()
        for line in text.splitlines():
            kind, key, fingerprint, hashes = line.split("\t")
            (manifest.cards if kind == "card" else manifest.pages)[key] = (fingerprint, hashes)
        return manifest

    def write(self, folder: Path) -> None:
        lines = [
            f"card\t{slug}\t{fp}\t{hashes}\n" for slug, (fp, hashes) in sorted(self.cards.items())
        ]
        lines += [
            f"page\t{path}\t{fp}\t{hashes}\n" for path, (fp, hashes) in sorted(self.pages.items())
        ]
        temporary = folder / f"{MANIFEST}.tmp"
        temporary.write_text("".join(lines), "utf-8")
        os.replace(temporary, folder / MANIFEST)

    def card_hashes(self, slug: str) -> list[str]:
        """A card's page hashes, one per locale of LOCALES."""
        hashes = self.cards.get(slug, ("", NO_PAGE * len(LOCALES)))[1]
        return [hashes[start : start + HASH_LENGTH] for start in range(0, len(hashes), HASH_LENGTH)]


class Previous:
    """The previous site as an incremental build sees it: its manifest, and which files exist
    (listed once per folder, never read)."""

    def __init__(self, out: Path, manifest: Manifest) -> None:
        self.out = out
        self.manifest = manifest
        self._listings: dict[str, frozenset[str]] = {}

    def present(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        listing = self._listings.get(folder)
        if listing is None:
            try:
                listing = frozenset(os.listdir(self.out / folder))
            except FileNotFoundError:
                listing = frozenset()
            self._listings[folder] = listing
        return name in listing


@dataclass(frozen=True)
class _Job:
    """What a build's workers need: inherited from the parent when a worker is forked, never
    pickled."""

    site: SiteData
    staging: Path
    manifest: Manifest
    """The previous site's record (empty if none): hashes of the pages it holds."""
    previous: Previous | None
    """None in a full build: every page is rendered and written."""
    card_pages: CardPages

    def stage(self, page: Page, old_hash: str) -> tuple[str, bool]:
        """Write a rendered page into the staging folder unless the previous site holds its
        bytes; (hash, written). Paths are made of slugs ([a-z0-9-]) and fixed folder names, so
        they stay inside."""
        data = page.text.encode("utf-8")
        content = digest(data)
        if self.previous is not None and old_hash == content and self.previous.present(page.path):
            return content, False
        target = self.staging / page.path
        try:
            target.write_bytes(data)
        except FileNotFoundError:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return content, True


_job: _Job | None = None

CardTask = list[tuple[int, tuple[int, ...]]]
"""A share of the cards to render: (card index, indexes in LOCALES of the pages to render)."""
CardDone = list[tuple[int, str, tuple[int, ...]]]
"""Per card rendered: (card index, its page hashes, indexes in LOCALES of the pages written)."""


def _render_cards(task: CardTask) -> CardDone:
    assert _job is not None, "no build running"
    # Most rulings stand on one card: a cache kept across shares would only grow.
    _job.card_pages.forget_rulings()
    done: CardDone = []
    for index, locales in task:
        card = _job.site.cards[index]
        hashes = _job.manifest.card_hashes(card.slug)
        written = []
        for locale in locales:
            page = _job.card_pages.render(card, LOCALES[locale])
            hashes[locale], changed = _job.stage(page, hashes[locale])
            if changed:
                written.append(locale)
        done.append((index, "".join(hashes), tuple(written)))
    return done


def _card_tasks(
    site: SiteData, options: BuildOptions, fingerprints: Fingerprints, previous: Previous | None
) -> tuple[list[str], list[CardTask]]:
    """Each card's fingerprint, and shares of the cards whose pages must be rendered."""
    mechanics = fingerprints.of(
        sorted((key, m.slug, sorted(m.names.items())) for key, m in site.mechanics.items())
    )
    built = [LOCALES.index(locale) for locale in options.locales]
    card_fingerprints = []
    todo: CardTask = []
    for index, card in enumerate(site.cards):
        fingerprint = fingerprints.card(card, mechanics)
        card_fingerprints.append(fingerprint)
        if previous is None:
            todo.append((index, tuple(built)))
            continue
        recorded, hashes = previous.manifest.cards.get(card.slug, ("", ""))
        stale = tuple(
            locale
            for locale in built
            if recorded != fingerprint
            or hashes[locale * HASH_LENGTH : (locale + 1) * HASH_LENGTH] in ("", NO_PAGE)
            or not previous.present(Urls.card(LOCALES[locale], card))
        )
        if stale:
            todo.append((index, stale))
    tasks = [todo[start : start + CARDS_PER_TASK] for start in range(0, len(todo), CARDS_PER_TASK)]
    return card_fingerprints, tasks


@dataclass
class Plan:
    """The pages beside the card pages: path → fingerprint, and how to render each."""

    fingerprints: dict[str, str] = field(default_factory=dict)
    renderers: list[tuple[str, Callable[[], Page]]] = field(default_factory=list)

    def add(self, path: str, fingerprint: str, renderer: Callable[[], Page]) -> None:
        self.fingerprints[path] = fingerprint
        self.renderers.append((path, renderer))


def _plan_other_pages(site: SiteData, options: BuildOptions, fingerprints: Fingerprints) -> Plan:
    """The pages beside the card pages, each with the fingerprint of what it shows."""
    plan = Plan()
    all_names = digest("\n".join(fingerprints.names(card) for card in site.cards))
    cards_by_id = {card.id: card for card in site.cards}
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
                    [fingerprints.names(cards_by_id[card_id]) for card_id in mechanic.card_ids],
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
    pages = sitemap_pages(site)
    parts = [
        pages[start : start + SITEMAP_GROUPS] for start in range(0, len(pages), SITEMAP_GROUPS)
    ]
    if len(parts) == 1:
        paths = [render.SITEMAP]
    else:
        index = sitemap_index(options.base_url, len(parts))
        plan.add(index.path, fingerprints.of(len(parts)), lambda: index)
        paths = [render.sitemap_part_path(number) for number in range(1, len(parts) + 1)]
    english = BY_CODE["en"]
    for path, part in zip(paths, parts, strict=True):
        plan.add(
            path,
            fingerprints.of([path_of(english) for path_of in part]),
            lambda path=path, part=part: sitemap(options.base_url, path, part),  # type: ignore[misc]
        )
    return plan


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
    manifest = (Manifest.read(out) if out.is_dir() else None) or Manifest()
    full = options.full or not (out / MANIFEST).is_file()
    previous = None if full else Previous(out, manifest)
    fingerprints = Fingerprints(_code_version(options.base_url))
    card_fingerprints, tasks = _card_tasks(site, options, fingerprints, previous)
    plan = _plan_other_pages(site, options, fingerprints)
    loaded(sum(len(locales) for task in tasks for _index, locales in task))
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        _job = _Job(site, staging, manifest, previous, CardPages(site.mechanics))
        cards_done, others_done = _render(tasks, plan, options.jobs, progress)
        new = _new_manifest(
            site, options, card_fingerprints, plan, manifest, cards_done, others_done
        )
        written = [
            Urls.card(LOCALES[locale], site.cards[index])
            for index, _hashes, locales in cards_done
            for locale in locales
        ] + [path for path, _hash, changed in others_done if changed]
        gone = _gone(manifest, new, options.locales)
        if full:
            if out.is_dir():
                _carry_over(out, staging, options.locales)
                if not manifest.cards and not manifest.pages:
                    gone = sorted(_files(out) - _files(staging))
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
    finally:
        _job = None
        shutil.rmtree(staging, ignore_errors=True)
    pages = len(site.cards) * len(options.locales) + len(plan.fingerprints)
    rendered = sum(len(locales) for task in tasks for _index, locales in task) + len(others_done)
    return BuildResult(out, pages, len(written), len(gone), rendered)


def _render(
    tasks: list[CardTask], plan: Plan, jobs: int, progress: Callable[[int], None]
) -> tuple[CardDone, list[tuple[str, str, bool]]]:
    """Render the card pages of ``tasks`` (in worker processes when there are several) and the
    other pages whose input changed, staging the changed ones: per card, its hashes and the
    pages written; per other page, (path, hash, written)."""
    assert _job is not None
    job = _job
    manifest, previous = job.manifest, job.previous

    def others() -> list[tuple[str, str, bool]]:
        done = []
        for path, renderer in plan.renderers:
            recorded, old_hash = manifest.pages.get(path, ("", ""))
            current = previous is not None and recorded == plan.fingerprints[path]
            if not (current and previous is not None and previous.present(path)):
                done.append((path, *job.stage(renderer(), old_hash)))
        return done

    cards_done: CardDone = []
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            cards_done += _render_cards(task)
            progress(sum(len(locales) for _index, locales in task))
        return cards_done, others()
    # Forked workers inherit _job; the parent renders the other pages meanwhile.
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        futures: list[Future[CardDone]] = [pool.submit(_render_cards, task) for task in tasks]
        others_done = others()
        for task, future in zip(tasks, futures, strict=True):
            cards_done += future.result()
            progress(sum(len(locales) for _index, locales in task))
    return cards_done, others_done


def _new_manifest(
    site: SiteData,
    options: BuildOptions,
    card_fingerprints: list[str],
    plan: Plan,
    old: Manifest,
    cards_done: CardDone,
    others_done: list[tuple[str, str, bool]],
) -> Manifest:
    """The record of the new site: what was rendered, what stayed, and the pages of the locales
    this build left out."""
    new = Manifest()
    rendered = {index: hashes for index, hashes, _written in cards_done}
    for index, card in enumerate(site.cards):
        hashes = rendered.get(index)
        if hashes is None:
            hashes = "".join(old.card_hashes(card.slug))
        new.cards[card.slug] = (card_fingerprints[index], hashes)
    built = {LOCALES.index(locale) for locale in options.locales}
    for slug, (fingerprint, _hashes) in old.cards.items():
        if slug in new.cards:
            continue
        kept = [h if i not in built else NO_PAGE for i, h in enumerate(old.card_hashes(slug))]
        if any(h != NO_PAGE for h in kept):  # a deleted card's pages in the other locales
            new.cards[slug] = (fingerprint, "".join(kept))
    new.pages = {
        path: entry for path, entry in old.pages.items() if not _in_locales(path, options.locales)
    }
    hashes_of_others = {path: content for path, content, _written in others_done}
    for path, fingerprint in plan.fingerprints.items():
        new.pages[path] = (fingerprint, hashes_of_others.get(path) or old.pages[path][1])
    return new


def _gone(old: Manifest, new: Manifest, locales: Sequence[Locale]) -> list[str]:
    """Pages of the previous site that the new one no longer has."""
    gone = [path for path in old.pages if path not in new.pages]
    built = [LOCALES.index(locale) for locale in locales]
    for slug in old.cards:
        before = old.card_hashes(slug)
        after = new.card_hashes(slug)
        gone += [
            f"{LOCALES[i].folder}/cards/{slug}.html"
            for i in built
            if before[i] != NO_PAGE and after[i] == NO_PAGE
        ]
    return gone


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
