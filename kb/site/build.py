"""``kb build``: the static site, rendered from the store.

The site never writes to the store. Every page has a fingerprint of what it shows (a card's
names, rulings and tags; the templates, catalogs and renderer code of the build); the output
folder keeps a manifest of each page's fingerprint and content hash. An incremental build renders
only the pages whose fingerprint changed or whose file is missing, and writes only those whose
content changed, so one edited ruling costs the pages that show it, not a pass over the site.

Pages are rendered into a staging folder first (kb.site.output: beside the output folder, or
inside a mount point), so a failed build leaves the previous site untouched: a full build then
swaps the staging folder in whole, an incremental one moves its few changed pages into place.
Card pages are rendered by worker processes forked after the store is read, each taking a share
of the cards and writing its pages itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sqlalchemy.engine import Engine

from kb import changelog, collector
from kb.locales import LOCALES, Locale
from kb.site import search
from kb.site.data import load_index
from kb.site.fingerprints import Fingerprints, code_version
from kb.site.manifest import NO_PAGE, Manifest, Previous
from kb.site.other_pages import OtherDone, OtherPagesPlan, plan_other_pages, stage_other_pages
from kb.site.output import Output
from kb.site.reading import reading
from kb.site.render import Languages, Renderer, Urls
from kb.site.staging import Stager, check_output_folder, move_into_place
from kb.site.views import SiteIndex
from kb.site.watch_state import CodeChanged, FinishedBuild, WatchState
from kb.site.workers import CardJob, CardResult, render_shares, share_bounds
from kb.translations.coverage import coverage

__all__ = ["BuildOptions", "BuildResult", "CodeChanged", "WatchState", "build"]


@dataclass(frozen=True)
class BuildOptions:
    locales: tuple[Locale, ...] = LOCALES
    jobs: int = 1
    full: bool = False
    """Render and write every page, even those whose input and bytes did not change."""
    base_url: str | None = None
    """Where the site is published, for the addresses that must be absolute (sitemaps,
    robots.txt, 404.html); "" none (no sitemap, 404.html's links from the server's root);
    None the one the output folder's site was built with (none for a new site)."""
    search: str = "now"
    """The locales' search bundles (kb.site.search): "now", made in the staging folder before
    the pages go live, so a build that fails while indexing leaves the old site and index;
    "later", left to ``index_later`` once the pages are live (kb build --watch); "off"."""


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
    base_url: str = ""
    """The site's base address ("" none)."""
    base_url_was: str | None = None
    """The previous site's, if this build changed it ("" none)."""
    indexed: tuple[Locale, ...] = ()
    """The locales whose search bundle this build made again."""
    search_pending: tuple[Locale, ...] = ()
    """With ``search="later"``: the locales whose bundle is stale, for ``index_later``."""

    @property
    def unchanged(self) -> int:
        return self.pages - self.written


def build(
    engine: Engine,
    out: Path,
    options: BuildOptions = BuildOptions(),
    progress: Callable[[int], None] = lambda _pages: None,
    loaded: Callable[[int], None] = lambda _pages: None,
    kept: WatchState | None = None,
    indexing: search.Progress = search.no_progress,
) -> BuildResult:
    """Render the site into ``out``. ``loaded`` hears how many card pages will be looked at
    once the store's index is read; ``progress`` hears of each share done; ``indexing`` of
    the search index's pages. ``kept``: what the previous build of a process that keeps
    building left, updated for the next one."""
    # The cycle collector paused in the build's processes, the workers too (kb.collector: a
    # large build is 20 % faster without it, and peaks no higher; a worker's share of 500 cards
    # leaves some 70 cyclic objects, SQLAlchemy's, and collecting was 5 % of a small build).
    with collector.paused():
        result, built = _build(engine, out, options, progress, loaded, kept, indexing)
    if kept is not None:
        kept.keep(built)
    return result


class _Site(NamedTuple):
    """What the finished site holds and where it is published: what its pages link to."""

    languages: Languages
    """The locales built and those of the previous site carried over, in LOCALES' order."""
    base_url: str
    """"" none."""


def _build(
    engine: Engine,
    out: Path,
    options: BuildOptions,
    progress: Callable[[int], None],
    loaded: Callable[[int], None],
    kept: WatchState | None,
    indexing: search.Progress,
) -> tuple[BuildResult, FinishedBuild]:
    """The build (``kept``: writing the manifest is left to it)."""
    out = out.resolve()
    check_output_folder(out, engine)
    output = Output(out)
    root = output.root
    if kept is not None:
        recorded = kept.recorded(root)
    else:
        recorded = Manifest.read(root) if root.is_dir() else None
    full = options.full or recorded is None
    manifest = recorded or Manifest()
    previous = None if full else Previous(root, manifest)
    base_url = manifest.base_url if options.base_url is None else options.base_url
    held = {*options.locales, *output.locales()}
    site = _Site(tuple(locale for locale in LOCALES if locale in held), base_url)
    fingerprints = Fingerprints(code_version(site.base_url, site.languages))
    if kept is not None:
        kept.same_code(fingerprints.version)
    # The previous build's change log position, if its pages are this code's.
    fresh = previous is not None and manifest.version == fingerprints.version
    since = manifest.position if fresh else ""
    with reading(engine) as connection:
        position = changelog.position(connection)  # before the data: later writes come after it
        # The cards changed since (None: any card may have, or the previous build is unknown).
        changed = changelog.changed_cards(connection, since, position) if since else None
        updated = kept.updated_index(connection, changed) if kept is not None else None
        index = updated or load_index(connection)
        if kept is not None:
            kept.az_names.begin(index, changed, options.locales)
            # The kept index's change log position is the kept names' (None: another build
            # wrote the site since, or cards were added, removed or renamed).
            kept.feed_entries.forget_names(changed if updated is not None else None)
        # Read whole each build (one aggregate): a translation of a ruling on no card is not
        # in the change log, and the next build states it all the same.
        translated = coverage(connection)
    mechanics = fingerprints.mechanics(index.mechanics.values())
    renderer = kept.renderer(site.languages) if kept is not None else Renderer(site.languages)
    built = tuple(LOCALES.index(locale) for locale in options.locales)
    count = len(index.cards)
    names = [""] * count  # each card's names digest: pages that list cards are fingerprinted so
    looked_at: Sequence[int] = range(count)
    if previous is not None and changed is not None:
        known = kept.unchanged_names(index, manifest) if kept is not None else None
        looked_at = _split_unchanged(index, previous, changed, built, names, known)
    # Shares of cards adjacent by id: a full build's are read with a range of ids.
    by_id = sorted(looked_at, key=lambda position: index.cards[position].id)
    shares = [by_id[start:end] for start, end in share_bounds(len(by_id), options.jobs)]
    loaded(len(by_id) * len(built))
    staging = output.stage()
    try:
        for locale in options.locales:
            (staging / locale.folder / "cards").mkdir(parents=True)
        stager = Stager(staging, previous)
        job = CardJob(engine, index, stager, manifest, renderer, fingerprints, built)

        def other_pages() -> tuple[OtherPagesPlan, OtherDone]:
            # A full build renders every other page while the workers render the cards; an
            # incremental one must first know the cards' names digests to find the stale ones.
            plan = plan_other_pages(
                engine, index, options.locales, site.languages, site.base_url, fingerprints,
                mechanics, names, renderer,
                kept.sitemaps(index, mechanics) if kept is not None else {}, full, translated,
                manifest.pages, kept.feed_entries if kept is not None else None,
                kept.az_names if kept is not None else None,
            )  # fmt: skip
            return plan, stage_other_pages(plan, None, manifest, stager) if full else []

        cards_done, (plan, others_done) = render_shares(
            job, shares, options.jobs, progress, other_pages
        )
        for result in cards_done:
            names[result.position] = result.record.names
        other_fingerprints = plan.fingerprints()
        if not full:
            others_done = stage_other_pages(plan, other_fingerprints, manifest, stager)
        # Cards the previous site has (index.slugs is a large site's 2 MB: a new one has none).
        deleted = manifest.cards.keys() - index.slugs if manifest.cards else set()
        new = _new_manifest(
            index, options, cards_done, other_fingerprints, manifest, others_done,
            fingerprints.version, position, deleted,
        )  # fmt: skip
        new.base_url = base_url
        written = sum(len(result.written) for result in cards_done)
        written += sum(changed for _path, _hash, changed in others_done)
        looked_at_slugs = [index.cards[result.position].slug for result in cards_done]
        gone = _gone(manifest, new, options.locales, [*looked_at_slugs, *sorted(deleted)])
        stale = _stale_search(root, options, cards_done, others_done, full)
        indexed: tuple[Locale, ...] = ()
        if stale and options.search == "now":
            search.write_bundles(engine, index, staging, stale, options.jobs, indexing)
            indexed = tuple(stale)
        if full:
            output.carry_over(options.locales)
            if not manifest.cards and not manifest.pages:
                # The live files the new site lacks, looked up one by one: a set of the
                # staging folder's 330,000 paths would be the build's peak memory (~80 MB).
                live = output.live_files()
                gone = sorted(path for path in live if not os.path.lexists(f"{staging}/{path}"))
            new.write(staging)
            output.swap_in()
            in_file = True
        else:
            for path in _written(index, cards_done, others_done):
                move_into_place(f"{staging}/{path}", f"{root}/{path}")
            for path in gone:
                (root / path).unlink(missing_ok=True)
            search.put_in_place(staging, root, indexed)
            output.settle()
            if new == manifest:
                new = manifest
            elif kept is None:
                new.write(root)
            else:
                new.note_folders(root)
            in_file = kept is None
    finally:
        output.discard()
    pages = count * len(options.locales) + plan.page_count
    rendered = sum(result.rendered for result in cards_done) + len(others_done)
    every_locale = len(built) == len(LOCALES)
    was = manifest.base_url if recorded is not None and manifest.base_url != base_url else None
    pending = tuple(stale) if options.search == "later" else ()
    return (
        BuildResult(out, pages, written, len(gone), rendered, base_url, was, indexed, pending),
        FinishedBuild(out, index, new, in_file, names if every_locale else None, site.languages),
    )


def index_later(
    engine: Engine,
    out: Path,
    index: SiteIndex,
    locales: Sequence[Locale],
    jobs: int = 1,
    indexing: search.Progress = search.no_progress,
) -> None:
    """Make the search bundles of ``locales`` again after a build with ``search="later"``
    put its pages in place (kb build --watch): staged, then moved in; one that fails leaves
    the old bundles."""
    output = Output(out.resolve())
    staging = output.stage()
    try:
        search.write_bundles(engine, index, staging, locales, jobs, indexing)
        search.put_in_place(staging, output.root, locales)
    finally:
        output.discard()


def _stale_search(
    root: Path,
    options: BuildOptions,
    cards_done: list[CardResult],
    others_done: OtherDone,
    full: bool,
) -> list[Locale]:
    """The locales whose search bundle is out of date: all of a full build's; an incremental
    build's whose pages were written, or whose bundle is missing."""
    if options.search == "off":
        return []
    if full:
        return list(options.locales)
    written = {LOCALES[locale].folder for result in cards_done for locale in result.written}
    written.update(path.partition("/")[0] for path, _hash, changed in others_done if changed)
    return search.stale_locales(root, options.locales, written)


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
        for locale in sorted(result.written)
    ]
    return cards + [path for path, _hash, changed in others_done if changed]


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


def _in_locales(path: str, folders: set[str]) -> bool:
    """Whether a page belongs to the build of the locales with these folders (root pages
    belong to every build)."""
    return "/" not in path or path.partition("/")[0] in folders
